package plots

import (
	"strings"
	"testing"
)

// TestNameBy: three devices × six models are 18 series; Name facets them
// by device (the first dimension that leaves ≤ 8 per panel), NameBy by the
// dimension asked for when its panels are legible, and says why not.
func TestNameBy(t *testing.T) {
	dims := []Dim{{Name: "device"}, {Name: "model"}, {Name: "weights", Prefix: "weights "}}
	var keys [][]string
	for _, d := range []string{"a", "b", "c"} {
		for _, m := range []string{"m1", "m2", "m3", "m4", "m5", "m6"} {
			keys = append(keys, []string{d, m, "q4_k_m"})
		}
	}
	n, err := Name(dims, keys)
	if err != nil || n.By != "device" || n.Facets[7] != "b" || n.Labels[7] != "m2" || n.Common != "weights q4_k_m" {
		t.Errorf("Name: by %q, facet %q, label %q, common %q, %v", n.By, n.Facets[7], n.Labels[7], n.Common, err)
	}
	// By model: six panels of three devices each.
	n, err = NameBy(dims, keys, 1)
	if err != nil || n.By != "model" || n.Facets[7] != "m2" || n.Labels[7] != "b" {
		t.Errorf("NameBy model: by %q, facet %q, label %q, %v", n.By, n.Facets[7], n.Labels[7], err)
	}
	// Facets asked for though the series would share one panel.
	n, err = NameBy(dims, keys[:4], 1)
	if err != nil || n.By != "model" || n.Facets[3] != "m4" {
		t.Errorf("NameBy model, 4 series: by %q, %v", n.By, err)
	}
	// By weights: one value, 18 series in one panel.
	if _, err := NameBy(dims, keys, 2); err == nil || !strings.Contains(err.Error(), "facets by weights give one panel of 18 series") {
		t.Errorf("NameBy weights: %v", err)
	}
}
