package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plotSVG runs a plot into an SVG and returns the SVG and stderr.
func plotSVG(t *testing.T, args ...string) (svg, stderr string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "fig.svg")
	_, errOut, code := runCLI(append(args, "-o", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	return string(must(os.ReadFile(out))), errOut
}

// TestPlotKeepsFormatsApart is issue 28's finding 10, as its user ran it:
// the Jetson's q4_k_m (28 ms) and q8_0 (46 ms) were merged into one "≈"
// line because 18 ms is 1 % of a linear axis to 1.8 s. Series are merged
// only within plots.MergeTolerance of their own value, and an axis whose
// values span more than 10× is logarithmic.
func TestPlotKeepsFormatsApart(t *testing.T) {
	svg, _ := plotSVG(t, "plot", "tpot-context", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb,rk3588,raspberry-pi-5-8gb", "--weights", "q4_k_m,q8_0")
	if strings.Contains(svg, "≈") {
		t.Error("the figure merges series that differ by more than 2 %")
	}
	for _, w := range []string{"jetson-orin-nano-super-8gb · gpu · q4_k_m", "jetson-orin-nano-super-8gb · gpu · q8_0"} {
		if !strings.Contains(svg, ">"+w+"<") {
			t.Errorf("the legend lacks %q", w)
		}
	}
	// A log y axis labels 1k (a linear one to 1,800 ms labels 500, 1000, 1500).
	if !strings.Contains(svg, ">1k<") || strings.Contains(svg, ">1500<") {
		t.Error("the y axis is not logarithmic over 20 ms … 1.8 s")
	}
	// --log-y=false keeps it linear.
	svg, _ = plotSVG(t, "plot", "tpot-context", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb,rk3588,raspberry-pi-5-8gb", "--weights", "q4_k_m,q8_0", "--log-y=false")
	if !strings.Contains(svg, ">1500<") {
		t.Error("--log-y=false: the y axis is not linear")
	}
}
