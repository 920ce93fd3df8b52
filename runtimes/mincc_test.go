package runtimes

import (
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
)

// A runtime that states the lowest compute capability it runs on
// (TensorRT Edge-LLM: 8.0) does not run an engine that states a lower
// one, runs one at or above it, and takes an engine that states none
// to meet it; the reason is told.
func TestMinComputeCapability(t *testing.T) {
	r := &Runtime{Name: "edge", Engines: []Support{{Kind: hardware.GPU, Families: []string{"jetson"}, MinCC: 8.0}}}
	cases := []struct {
		cc   float64
		runs bool
	}{
		{5.3, false}, // Jetson Nano (Maxwell)
		{7.2, false}, // Xavier (Volta)
		{8.0, true},  // the lowest it names
		{8.7, true},  // Orin
		{11.0, true}, // Thor
		{0, true},    // not stated
	}
	for _, c := range cases {
		d := &hardware.Device{Name: "j", Family: "jetson", Engines: []hardware.Engine{{Name: "gpu", Kind: hardware.GPU, ComputeCapability: c.cc}}}
		if got := r.Runs(d, &d.Engines[0]); got != c.runs {
			t.Errorf("compute capability %g: runs %v, want %v", c.cc, got, c.runs)
		}
		why := r.tooOld(d)
		if c.runs != (why == "") {
			t.Errorf("compute capability %g: reason %q", c.cc, why)
		}
		if c.cc == 5.3 && !strings.Contains(why, "compute capability 5.3, below the 8.0") {
			t.Errorf("reason %q", why)
		}
	}
}
