package render

import (
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/sim"
)

// The overhead line says how a prefill pass launched kernel by kernel
// from the host (llama.cpp's CUDA) reaches its cost: per layer, the
// pass's cost at the CPU's clock and the layer's at the GPU's. It said
// only "t_step and t_pass + L layers × t_layer", which does not add up
// to the pass's figure (a Jetson's 37.1 ms beside 2.08 ms + 28 × 103 µs).
func TestOverheadTextLaunchedPrefill(t *testing.T) {
	e := hardware.Efficiency{StepOverhead: 300e-6, PassOverhead: 400e-6, LayerOverhead: 20e-6}
	for _, c := range []struct {
		name      string
		in        sim.Inputs
		pass      float64
		want, not string
	}{
		// Quantized at the reference clocks: 32 × (400 + 20) µs = 13.4 ms.
		{"quantized", sim.Inputs{Layers: 32, LaunchedPrefill: true, Dequantizing: true, ClockRatio: 1, Efficiency: e},
			32 * 420e-6, "13.4 ms per prefill pass", "launched kernel by kernel from the host: 32 layers × (400 µs + 20.0 µs)"},
		// Quantized, the CPU at 2 × and the GPU at 0.5 × the reference:
		// 32 × (400 / 2 + 20 / 0.5) µs = 32 × (200 + 40) µs = 7.68 ms.
		{"clocked", sim.Inputs{Layers: 32, LaunchedPrefill: true, Dequantizing: true, ClockRatio: 0.5, HostClockRatio: 2, Efficiency: e},
			32 * 240e-6, "7.68 ms per prefill pass", "launched kernel by kernel from the host: 32 layers × (200 µs + 40.0 µs)"},
		// Float weights: 32 × 20 µs = 640 µs.
		{"float", sim.Inputs{Layers: 32, LaunchedPrefill: true, ClockRatio: 1, Efficiency: e},
			32 * 20e-6, "640 µs per prefill pass", "launched kernel by kernel from the host: 32 layers × 20.0 µs"},
		// Not launched: the pass's own cost once.
		{"graphs", sim.Inputs{Layers: 32, ClockRatio: 1, Efficiency: e},
			400e-6 + 32*20e-6, "1.04 ms per prefill pass (300 µs and 400 µs + 32 layers × 20.0 µs)", "launched"},
	} {
		c.in.PrefillOverhead = c.pass
		got := overheadText(c.in)
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: %q does not say %q", c.name, got, c.want)
		}
		if c.not == "launched" && strings.Contains(got, c.not) {
			t.Errorf("%s: %q says the pass is launched", c.name, got)
		}
		if c.not != "launched" && !strings.Contains(got, c.not) {
			t.Errorf("%s: %q does not say %q", c.name, got, c.not)
		}
	}
}
