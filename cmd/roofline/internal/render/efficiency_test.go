package render

import (
	"encoding/json"
	"testing"

	"github.com/roofline/roofline/hardware"
)

// The JSON of an efficiency (predict's inputs, a runtime's classes) holds
// every parameter of hardware.Efficiency, each once.
func TestEfficiencyJSONHoldsEveryParameter(t *testing.T) {
	p := make([]float64, len(hardware.ParameterNames))
	for i := range p {
		p[i] = float64(i + 1)
	}
	b, err := json.Marshal(newEfficiencyJSON(hardware.EfficiencyOf(p)))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]float64
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	seen := map[float64]bool{}
	for _, v := range got {
		seen[v] = true
	}
	if len(got) != len(p) || len(seen) != len(p) {
		t.Errorf("%d keys, %d distinct values, for %d parameters: %s", len(got), len(seen), len(p), b)
	}
}
