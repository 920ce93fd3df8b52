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
	n, err = NameBy(dims, keys, []int{1})
	if err != nil || n.By != "model" || n.Facets[7] != "m2" || n.Labels[7] != "b" {
		t.Errorf("NameBy model: by %q, facet %q, label %q, %v", n.By, n.Facets[7], n.Labels[7], err)
	}
	// Facets asked for though the series would share one panel.
	n, err = NameBy(dims, keys[:4], []int{1})
	if err != nil || n.By != "model" || n.Facets[3] != "m4" {
		t.Errorf("NameBy model, 4 series: by %q, %v", n.By, err)
	}
	// By weights: one value, 18 series in one panel.
	if _, err := NameBy(dims, keys, []int{2}); err == nil || !strings.Contains(err.Error(), "facets by weights give one panel of 18 series") {
		t.Errorf("NameBy weights: %v", err)
	}
}

// TestNameByTwo: three devices × three models × three formats are 27
// series; no one dimension leaves at most 8 in a panel (each leaves 9),
// so Name facets by device and model: nine panels of the three formats.
func TestNameByTwo(t *testing.T) {
	dims := []Dim{{Name: "device"}, {Name: "engine", Prefix: "engine "}, {Name: "model"}, {Name: "weights", Prefix: "weights "}}
	var keys [][]string
	for _, m := range []string{"llama-3.2-1b", "llama-3.2-3b", "qwen2.5-1.5b"} {
		for _, d := range []string{"jetson", "rk3588", "pi"} {
			for _, w := range []string{"q4_k_m", "q8_0", "f16"} {
				engine := "cpu"
				if d == "jetson" {
					engine = "gpu"
				}
				keys = append(keys, []string{d, engine, m, w})
			}
		}
	}
	n, err := Name(dims, keys)
	if err != nil {
		t.Fatal(err)
	}
	if n.By != "device and model" || n.Facets[0] != "jetson · gpu · llama-3.2-1b" || n.Labels[0] != "q4_k_m" || n.Facets[5] != "rk3588 · cpu · llama-3.2-1b" {
		t.Errorf("by %q, facets %q, %q, label %q", n.By, n.Facets[0], n.Facets[5], n.Labels[0])
	}
	facets := map[string]int{}
	for _, f := range n.Facets {
		facets[f]++
	}
	if len(facets) != 9 {
		t.Errorf("%d facets; want 9 of 3 series", len(facets))
	}
	// Asked for: by device and weights.
	if n, err = NameBy(dims, keys, []int{0, 3}); err != nil || n.By != "device and weights" || n.Labels[0] != "llama-3.2-1b" {
		t.Errorf("NameBy device, weights: %+v, %v", n, err)
	}
}
