package sim_test

import (
	"math"
	"testing"

	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// --bw-efficiency is the share of the datasheet bandwidth achieved: on a
// GPU whose device has a measured read (the RTX 4090: 954.5 GB/s, where
// llama.cpp's CUDA class decodes at s_R × the read) it sets decode's
// bandwidth too, the flag's share of the datasheet through the units'
// cap, not the class's share of the read.
func TestBandwidthFlagSetsDecodeOverARead(t *testing.T) {
	cat := builtin(t)
	w := sim.Workload{Prompt: 512, Output: 128, Batch: 1}
	plain := builtinSetup(t, cat, "llama-3.1-8b", "rtx-4090", "llama.cpp", "q4_k_m", "f16")
	if plain.Inputs.Efficiency.ReadShare <= 0 || plain.Inputs.MeasuredBandwidth <= 0 {
		t.Fatalf("the RTX 4090 under llama.cpp should decode at a share of its read: %+v", plain.Inputs.Efficiency)
	}
	rate := func(s *sim.Setup) float64 {
		r, err := s.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		return r.Decode.Bytes / r.Decode.MemoryTime
	}
	// Without the flag: s_R × 954.5 GB/s.
	if got, want := rate(plain), plain.Inputs.Efficiency.ReadShare*plain.Inputs.MeasuredBandwidth; math.Abs(got-want) > 1e-9*want {
		t.Errorf("class: decode at %.4g B/s, want s_R × the read, %.4g", got, want)
	}
	for _, eta := range []float64{0.3, 0.9} {
		o := sim.DefaultOptions
		o.BandwidthEfficiency = eta
		s := chosenSetupWith(t, cat, "llama-3.1-8b", "rtx-4090", runtimes.Request{Runtime: "llama.cpp", Weights: "q4_k_m", KV: "f16"}, o)
		e := s.Inputs.Clocked()
		// η × 1008 GB/s, under the units' cap (hardware.Efficiency.AchievedBandwidth).
		want := e.AchievedBandwidth(s.Inputs.Bandwidth, s.Inputs.Units)
		if got := rate(s); math.Abs(got-want) > 1e-9*want {
			t.Errorf("--bw-efficiency %g: decode at %.4g B/s, want the flag's share of the datasheet, %.4g", eta, got, want)
		}
	}
}
