package resolve

import (
	"math"
	"testing"

	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
)

// TestBatchedDecodeObeysTheRoofline: across the built-in catalog (every
// device, its default engine and runtime, every model at q4_k_m and at
// bf16 where the runtime runs them), aggregate decode throughput never
// falls as the batch grows up to the batch where decode turns
// compute-bound at peak (at most 256). Batching shares the weight reads;
// under the former ramp (issue 24) an RTX 4090 decoded llama-3.1-8b at
// 1,156 tokens/s at batch 8 and 264 at batch 9.
func TestBatchedDecodeObeysTheRoofline(t *testing.T) {
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range cat.Devices() {
		for _, m := range cat.Models() {
			for _, w := range []string{"q4_k_m", "bf16"} {
				res, err := Resolve(cat, Selection{Model: m.Name, Hardware: d.Name, Weights: w, Options: sim.DefaultOptions})
				if err != nil {
					continue // the device's runtime does not run the format, or the model's
				}
				s := res.Setup
				wl := sim.Workload{Prompt: 512, Output: 64, Batch: 1, UBatch: 512}
				r1, err := s.Predict(wl)
				if err != nil || r1.Queued {
					continue
				}
				limit := 256
				if b := r1.ComputeBoundBatch; b > 0 && b < limit {
					limit = b
				}
				prev, last := 0.0, 0
				for b := 1; b <= limit; b = nextBatch(b) {
					wl.Batch = b
					r, err := s.Predict(wl)
					if err != nil {
						t.Fatal(err)
					}
					if r.Queued {
						break
					}
					if r.ThroughputTokensPerS < prev*(1-1e-9) {
						t.Errorf("%s on %s (%s, %s): throughput falls from %.1f tokens/s at batch %d to %.1f at %d",
							m.Name, d.Name, s.Runtime.Name, w, prev, last, r.ThroughputTokensPerS, b)
						break
					}
					prev, last = r.ThroughputTokensPerS, b
				}
				checked++
			}
		}
	}
	if checked < 500 {
		t.Errorf("checked %d configurations: the catalog sweep lost its coverage", checked)
	}
}

// nextBatch steps through every batch to 48 (kernels switch at a few
// rows: llama.cpp's MMVQ ends at 8), then by about 10 %.
func nextBatch(b int) int {
	if b < 48 {
		return b + 1
	}
	return b + b/10
}

// TestBatchedDecodeH100: llama-3.1-8b in bf16 on an H100 SXM under vLLM
// streams 16.1 GB of weights per step; at batch 32 a step adds 32 ×
// 512+64 tokens of KV (128 KiB each, 2.4 GB), so it stays memory-bound
// (8.0 GFLOP per token × 32 = 0.51 TFLOP against 989 TFLOP/s, a few
// percent of the step) and TPOT grows by about the KV's share, not the
// 3.9× the former ramp gave (30.2 ms against 7.7 ms).
func TestBatchedDecodeH100(t *testing.T) {
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Resolve(cat, Selection{Model: "llama-3.1-8b", Hardware: "h100-sxm", Runtime: "vllm", Weights: "bf16", Options: sim.DefaultOptions})
	if err != nil {
		t.Fatal(err)
	}
	tpot := func(b int) *sim.Result {
		r, err := res.Setup.Predict(sim.Workload{Prompt: 512, Output: 128, Batch: b, UBatch: 512})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r1, r32 := tpot(1), tpot(32)
	if ratio := r32.TPOT / r1.TPOT; ratio > 1.5 || math.IsNaN(ratio) {
		t.Errorf("TPOT at batch 32 is %.2f× batch 1 (%.2f ms, %.2f ms), want ≤ 1.5×", ratio, 1e3*r32.TPOT, 1e3*r1.TPOT)
	}
	if r32.Decode.Bound != sim.MemoryBound || r32.Decode.ComputeBoundSteps != 0 {
		t.Errorf("batch 32 decode: bound %s, %d compute-bound steps; want memory-bound throughout", r32.Decode.Bound, r32.Decode.ComputeBoundSteps)
	}
	if b := res.Setup.ExpectedComputeBoundBatch(r32.Inputs.Workload.LastStepContext()); b <= 32 {
		t.Errorf("expected compute-bound batch %d, want above 32", b)
	}
}
