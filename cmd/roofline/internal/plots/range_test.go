package plots

import (
	"strings"
	"testing"
)

// A rate near the float64 maximum overflowed the axis range (hi × 1.5 ×
// 1.2 is +Inf), plotter.NewLine refused the line and the nil line was
// dereferenced: it is an error now.
func TestCompareAxisOverflow(t *testing.T) {
	for _, measured := range []float64{1e308, 1.7e308} {
		_, err := Compare("t", []string{"g"}, []Comparison{{Label: "r", Group: 0, Measured: measured, Predicted: 100}})
		if err == nil || !strings.Contains(err.Error(), "cannot be drawn") {
			t.Errorf("measured %g: %v", measured, err)
		}
	}
	if _, err := Compare("t", []string{"g"}, []Comparison{{Label: "r", Group: 0, Measured: 90, Predicted: 100}}); err != nil {
		t.Errorf("an ordinary run: %v", err)
	}
}
