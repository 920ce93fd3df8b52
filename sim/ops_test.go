package sim_test

import (
	"math"
	"testing"

	"github.com/roofline/roofline/runtimes"

	"github.com/roofline/roofline/sim"
)

// The operators of a prefill, a mean decode step and one step add up to
// the prediction's TTFT, TPOT and ITL, expected and ideal, across models
// with windows, experts and MLA, fused and unfused attention, batches and
// depths that cross the windows.
func TestOperatorsAddUpToThePrediction(t *testing.T) {
	cases := []struct {
		model, weights, device string
		w                      sim.Workload
		noFlash, inOrder       bool
	}{
		// Whole prompts in order (vLLM's scheduler): two groups of two
		// prompts and a last group of one, then prompts longer than a
		// pass, each alone in three.
		{"llama-3.1-8b", "q4_k_m", "rtx-4090", sim.Workload{Prompt: 1000, Output: 64, Batch: 5, UBatch: 2048}, false, true},
		{"gemma-2-2b", "q4_0", "rtx-4090", sim.Workload{Prompt: 5000, Output: 64, Batch: 2, UBatch: 2048}, true, true},
		{"gemma-2-2b", "q4_0", "raspberry-pi-5-8gb", sim.Workload{Prompt: 512, Output: 128, Batch: 1, UBatch: 512}, false, false},
		{"gemma-2-2b", "q4_0", "raspberry-pi-5-8gb", sim.Workload{Prompt: 3000, Output: 2000, Batch: 2, Depth: 2500, UBatch: 512}, true, false},
		{"llama-3.1-8b", "q4_k_m", "rtx-4090", sim.Workload{Prompt: 2048, Output: 256, Batch: 32, UBatch: 512}, false, false},
		{"qwen3-30b-a3b", "q4_k_m", "jetson-agx-orin-64gb", sim.Workload{Prompt: 700, Output: 64, Batch: 3, Depth: 100, UBatch: 256}, true, false},
		{"deepseek-v3", "q4_k_m", "h100-sxm", sim.Workload{Prompt: 100, Output: 2, Batch: 1, UBatch: 512}, false, false},
		{"gpt-oss-20b", "mxfp4_moe", "apple-m2-max", sim.Workload{Prompt: 4000, Output: 300, Batch: 4, UBatch: 1024}, true, false},
	}
	for _, c := range cases {
		m, d := setup(t, c.model, c.weights, "f16", c.device)
		rt := testRuntime()
		if c.inOrder {
			rt.Prefill.Order = runtimes.InOrder
		}
		e, err := d.Engine("")
		if err != nil {
			t.Fatal(err)
		}
		s, err := sim.NewSetup(m, d, e, rt, sim.Options{RuntimeOverhead: -1, NoFlashAttention: c.noFlash})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Predict(c.w)
		if err != nil {
			t.Fatal(err)
		}
		oa, err := s.Operators()
		if err != nil {
			t.Fatal(err)
		}
		pre, err := oa.Prefill(c.w)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := oa.Decode(c.w)
		if err != nil {
			t.Fatal(err)
		}
		first, err := oa.Step(c.w.Depth+c.w.Prompt+1, c.w.Batch)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []struct {
			name        string
			view        *sim.OpView
			time, ideal float64
		}{
			{"prefill", pre, r.TTFT, r.TTFTBound},
			{"decode", dec, r.TPOT, r.TPOTBound},
			{"first step", first, r.ITLFirst, math.NaN()},
		} {
			var sum, ideal, share float64
			for _, o := range v.view.Ops {
				sum += o.Time
				ideal += o.IdealTime
				share += o.Share
				if o.Time < 0 || o.IdealTime < 0 || o.FLOPs < 0 || o.Read() < 0 || o.Written() < 0 {
					t.Errorf("%s %s %s: negative figure %+v", c.model, v.name, o.Name, o)
				}
			}
			if !near(sum, v.time, 1e-12) || !near(v.view.Time, v.time, 1e-12) {
				t.Errorf("%s %s: Σ operators %.17g, view %.17g, prediction %.17g", c.model, v.name, sum, v.view.Time, v.time)
			}
			if !math.IsNaN(v.ideal) && !near(ideal, v.ideal, 1e-12) {
				t.Errorf("%s %s: Σ operators' ideal %.17g, prediction's %.17g", c.model, v.name, ideal, v.ideal)
			}
			if !near(share, 1, 1e-12) {
				t.Errorf("%s %s: shares add up to %g", c.model, v.name, share)
			}
		}
		// Measured tests are priced as compare prices them.
		pp, err := oa.PrefillPhase(c.w.Prompt, c.w.Depth, c.w.Batch, c.w.UBatch)
		if err != nil {
			t.Fatal(err)
		}
		if ph := s.Prefill(c.w.Prompt, c.w.Depth, c.w.Batch, c.w.UBatch); !near(pp.Time, ph.Time, 1e-12) || !near(opSum(pp), ph.Time, 1e-12) {
			t.Errorf("%s prefill phase: Σ operators %g, phase %g", c.model, opSum(pp), ph.Time)
		}
		for _, depth := range []int{0, 5000} {
			dp, err := oa.DecodePhase(depth+1, 128, c.w.Batch)
			if err != nil {
				t.Fatal(err)
			}
			if ph := s.Decode(depth+1, 128, c.w.Batch); !near(128*opSum(dp), ph.Time, 1e-12) {
				t.Errorf("%s decode phase at depth %d: 128 × Σ operators %g, phase %g", c.model, depth, 128*opSum(dp), ph.Time)
			}
		}
		// Bytes and FLOPs add up to the phases'.
		var bytes, flops float64
		for _, o := range pre.Ops {
			bytes += o.Read() + o.Written()
			flops += o.FLOPs
		}
		if !near(bytes, r.Prefill.Bytes, 1e-9) || !near(flops, r.Prefill.FLOPs, 1e-9) {
			t.Errorf("%s prefill: Σ bytes %g FLOPs %g, phase %g and %g", c.model, bytes, flops, r.Prefill.Bytes, r.Prefill.FLOPs)
		}
		bytes, flops = 0, 0
		for _, o := range dec.Ops {
			bytes += o.Read() + o.Written()
			flops += o.FLOPs
		}
		steps := float64(r.Decode.Steps)
		if !near(bytes*steps, r.Decode.Bytes, 1e-9) || !near(flops*steps, r.Decode.FLOPs, 1e-9) {
			t.Errorf("%s decode: Σ bytes %g FLOPs %g per step, phase %g and %g per step", c.model, bytes, flops, r.Decode.Bytes/steps, r.Decode.FLOPs/steps)
		}
	}
}

// BenchmarkOperatorViews is what predict --ops adds to a prediction: the
// prefill, the mean decode step, and the first, the last and the longest
// step, operator by operator (the target is 50 µs); the cost lists its
// operators once (model's BenchmarkOperators). cpu-ns/op is the
// process's CPU time, garbage collection included: on a shared machine
// ns/op counts the time other work holds the cores.
func BenchmarkOperatorViews(b *testing.B) {
	for _, c := range []struct{ model, weights, device string }{
		{"gemma-2-2b", "q4_0", "raspberry-pi-5-8gb"},
		{"gpt-oss-120b", "mxfp4_moe", "h100-sxm"},
	} {
		m, d := setup(b, c.model, c.weights, "f16", c.device)
		s, err := setupOn(m, d, "", sim.DefaultOptions)
		if err != nil {
			b.Fatal(err)
		}
		w := sim.DefaultWorkload
		b.Run(c.model, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for range b.N {
				oa, err := s.Operators()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := oa.Prefill(w); err != nil {
					b.Fatal(err)
				}
				if _, err := oa.Decode(w); err != nil {
					b.Fatal(err)
				}
				for _, ctx := range []int{w.Prompt + 1, w.Context() - 1, m.Spec.MaxContext} {
					if _, err := oa.Step(ctx, w.Batch); err != nil {
						b.Fatal(err)
					}
				}
			}
			if t := cpuTime(); t > 0 {
				b.ReportMetric((t-start)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

func opSum(v *sim.OpView) (s float64) {
	for _, o := range v.Ops {
		s += o.Time
	}
	return s
}
