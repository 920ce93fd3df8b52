package sim_test

import (
	"math"
	"testing"

	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
)

// TestIntervalsNeverBelowIdeal: an 80 % interval's low end is no faster
// than the ideal (dense peak, datasheet bandwidth, no overhead). Llama-3.1-8B
// bf16 on an H100 SXM under vLLM, 32 prompts of 2048: 8 passes of 8192
// tokens, 950 TFLOP at 989 TFLOP/s, an ideal TTFT of 0.96 s, where the vllm
// class's prefill spread (fitted on 2 tests of this device) reached down to
// 0.2 × the 2.72 s prediction: 0.55 s, below what physics allows.
func TestIntervalsNeverBelowIdeal(t *testing.T) {
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		model, device, runtime string
		w                      sim.Workload
	}{
		{"llama-3.1-8b", "h100-sxm", "vllm", sim.Workload{Prompt: 2048, Output: 128, Batch: 32}},
		{"llama-3.1-8b", "h100-sxm", "vllm", sim.Workload{Prompt: 512, Output: 128, Batch: 1}},
		{"llama-3.2-3b", "jetson-orin-nano-8gb", "llama.cpp", sim.Workload{Prompt: 512, Output: 128, Batch: 1}},
		{"llama-3.2-3b", "raspberry-pi-5-8gb", "llama.cpp", sim.Workload{Prompt: 512, Output: 128, Batch: 4}},
	} {
		s := builtinSetup(t, cat, tc.model, tc.device, tc.runtime, "", "")
		r, err := s.Predict(tc.w)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name          string
			iv            *sim.Interval
			bound, figure float64
		}{{"TTFT", r.TTFTInterval, r.TTFTBound, r.TTFT}, {"TPOT", r.TPOTInterval, r.TPOTBound, r.TPOT}, {"E2E", r.E2EInterval, r.E2EBound, r.E2E}} {
			if c.iv == nil {
				t.Errorf("%s on %s %+v: no %s interval", tc.model, tc.device, tc.w, c.name)
				continue
			}
			if c.iv.Lo < c.bound*(1-1e-12) || c.iv.Lo > c.figure || c.iv.Hi < c.figure {
				t.Errorf("%s on %s %+v: %s interval %.4g–%.4g s about %.4g s, ideal %.4g s", tc.model, tc.device, tc.w, c.name, c.iv.Lo, c.iv.Hi, c.figure, c.bound)
			}
		}
	}
}

// TestE2EFastEndIsItsParts: E2E's 80 % low end is TTFT's low end plus the
// decode's, each raised to its ideal, as a split's is (Split.intervals).
// Llama-3.2-3B f16 under TensorRT Edge-LLM on a Jetson AGX Orin 64GB, 512
// prompt tokens and 100 out: the decode's low end is its ideal, 6.4 GB of
// weights at 205 GB/s, 31.7 ms a step (the class's fast end, ×0.4 of the
// 37.5 ms expected, is 15 ms); TTFT's low end (108 ms) is above its 68.8 ms
// ideal. E2E's low end is then 108 ms + 99 × 31.7 ms = 3.25 s. Until
// session 53 it was floored at E2E's own ideal alone, 68.8 ms + 99 ×
// 31.7 ms = 3.21 s: a fast end that took the prefill at its ideal, faster
// than TTFT's own fast end (serve's fast end, the parts' sum, did not
// agree).
func TestE2EFastEndIsItsParts(t *testing.T) {
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	s := builtinSetup(t, cat, "llama-3.2-3b", "jetson-agx-orin-64gb", "tensorrt-edge-llm", "f16", "")
	r, err := s.Predict(sim.Workload{Prompt: 512, Output: 100, Batch: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.TTFTInterval == nil || r.TPOTInterval == nil || r.E2EInterval == nil {
		t.Fatal("no intervals")
	}
	// The case is the one the rule is for: the decode's low end floored,
	// the prefill's not.
	if r.TPOTInterval.Lo != r.TPOTBound || !(r.TTFTInterval.Lo > r.TTFTBound) {
		t.Fatalf("TPOT low end %.4g s (ideal %.4g), TTFT's %.4g s (ideal %.4g): not the case tested", r.TPOTInterval.Lo, r.TPOTBound, r.TTFTInterval.Lo, r.TTFTBound)
	}
	want := r.TTFTInterval.Lo + 99*r.TPOTInterval.Lo
	if got := r.E2EInterval.Lo; math.Abs(got-want) > 1e-12*want {
		t.Errorf("E2E low end %.6g s, want TTFT's %.6g s + 99 × TPOT's %.6g s = %.6g s", got, r.TTFTInterval.Lo, r.TPOTInterval.Lo, want)
	}
}
