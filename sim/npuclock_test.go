package sim

import (
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
)

// TestNPUClockClass: a prediction at an NPU clock below the engine's
// maximum joins the class's decode interval with the one covering the
// runs held out of scope at such clocks: [0.8, 1.2] ∪ [1.1, 2.09] =
// [0.8, 2.09]; at the maximum, or without a stated clock, or where the
// class holds no such runs, the class is as fitted.
func TestNPUClockClass(t *testing.T) {
	class := &runtimes.Class{Decode: runtimes.Spread{Low: 0.8, High: 1.2}, Prefill: runtimes.Spread{Low: 0.7, High: 1.5},
		NPUClockDecode: runtimes.Spread{Low: 1.1, High: 2.09}, NPUClockDecodeBasis: "7 decode tests"}
	in := Inputs{Runtime: "rkllm"}
	got, note := npuClockClass(class, in, hardware.Clocks{NPU: 300e6}, 1e9)
	if got.Decode != (runtimes.Spread{Low: 0.8, High: 2.09}) || got.Prefill != class.Prefill {
		t.Errorf("at 300 MHz: decode %+v prefill %+v, want [0.8, 2.09] and the class's prefill", got.Decode, got.Prefill)
	}
	if !strings.Contains(note, "(300 of 1000 MHz)") || !strings.Contains(note, "7 decode tests") || !strings.Contains(note, "widened to 0.8-2.09") {
		t.Errorf("note %q", note)
	}
	if class.Decode.High != 1.2 {
		t.Error("npuClockClass changed the class it was given")
	}
	bare := *class
	bare.NPUClockDecode = runtimes.Spread{}
	for _, c := range []struct {
		name  string
		class *runtimes.Class
		clk   hardware.Clocks
	}{
		{"at the maximum", class, hardware.Clocks{NPU: 1e9}},
		{"memory clock only", class, hardware.Clocks{Memory: 534e6}},
		{"no runs held out", &bare, hardware.Clocks{NPU: 300e6}},
	} {
		if got, note := npuClockClass(c.class, in, c.clk, 1e9); got != c.class || note != "" {
			t.Errorf("%s: %+v, %q; want the class as fitted", c.name, got.Decode, note)
		}
	}
}
