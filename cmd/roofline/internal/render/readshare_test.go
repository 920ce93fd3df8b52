package render

import (
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/sim"
)

// A GPU whose device has a measured read decodes at s_R × the read
// (docs/method.md §6): the efficiency line says so, and that its
// bandwidth share is prefill's; it showed the datasheet's share alone.
func TestEfficiencyTextSaysTheRead(t *testing.T) {
	e := hardware.Efficiency{Bandwidth: 0.8, ComputeMax: 0.5, HalfRows: 10, Attention: 0.4, ReadShare: 0.9}
	in := sim.Inputs{EngineKind: hardware.GPU, Bandwidth: 1000e9, MeasuredBandwidth: 950e9, Peak: 100e12, Efficiency: e}
	// 0.9 × 950 GB/s = 855 GB/s.
	want := "; decode streams 0.9 × the measured read of 950 GB/s, 855 GB/s (the bandwidth share is prefill's)"
	if got := efficiencyText(in, 512); !strings.Contains(got, want) {
		t.Errorf("%q does not say %q", got, want)
	}
	// 1.1 × 950 GB/s = 1045 GB/s is past the datasheet's 1000 GB/s,
	// which caps it (sim.Inputs.ReadBandwidth): the line says the cap,
	// not a product its figure does not equal.
	capped := in
	capped.Efficiency.ReadShare = 1.1
	want = "; decode streams 1.1 × the measured read of 950 GB/s, capped at the datasheet's 1.00 TB/s (the bandwidth share is prefill's)"
	if got := efficiencyText(capped, 512); !strings.Contains(got, want) {
		t.Errorf("%q does not say %q", got, want)
	}
	// No read, or no share: nothing said.
	for _, c := range []sim.Inputs{
		{EngineKind: hardware.GPU, Bandwidth: 1000e9, Peak: 100e12, Efficiency: e},
		{EngineKind: hardware.GPU, Bandwidth: 1000e9, MeasuredBandwidth: 950e9, Peak: 100e12, Efficiency: hardware.Efficiency{Bandwidth: 0.8, ComputeMax: 0.5, HalfRows: 10, Attention: 0.4}},
	} {
		if got := efficiencyText(c, 512); strings.Contains(got, "read") {
			t.Errorf("%q speaks of a read that decode does not use", got)
		}
	}
}
