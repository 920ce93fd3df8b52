package sim_test

import (
	"fmt"
	"testing"

	"github.com/roofline/roofline/sim"
)

// TestStepPricerIsPredict sums the passes a serving runtime runs for one
// request, and for a batch moving in lockstep, and holds them against
// Predict: the prefill in chunks of the micro-batch is TTFT, a pass of B
// decode tokens at one context is the decode step at batch B, so E2E
// follows. Across a dense model, a model with sliding windows (gemma-2:
// the decode sums are kept per window), an MoE model and unfused
// attention.
func TestStepPricerIsPredict(t *testing.T) {
	cases := []struct {
		model, weights, device, engine string
		opts                           sim.Options
		w                              sim.Workload
	}{
		{"llama-3.2-3b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu", sim.DefaultOptions, sim.Workload{Prompt: 1300, Output: 40, Batch: 1, UBatch: 512}},
		{"llama-3.2-3b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu", sim.DefaultOptions, sim.Workload{Prompt: 100, Output: 30, Batch: 4, UBatch: 512, Depth: 200}},
		{"gemma-2-2b", "q8_0", "rtx-4090", "gpu", sim.DefaultOptions, sim.Workload{Prompt: 5000, Output: 60, Batch: 1, UBatch: 1024, Depth: 30}},
		{"gemma-2-2b", "q8_0", "rtx-4090", "gpu", sim.DefaultOptions, sim.Workload{Prompt: 1000, Output: 50, Batch: 3, UBatch: 4096, Depth: 3600}},
		{"qwen3-30b-a3b", "q4_k_m", "rtx-4090", "gpu", sim.Options{RuntimeOverhead: -1, NoFlashAttention: true}, sim.Workload{Prompt: 700, Output: 20, Batch: 2, UBatch: 2048}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/B%d", c.model, c.w.Batch), func(t *testing.T) {
			m, d := setup(t, c.model, c.weights, "f16", c.device)
			s, err := setupOn(m, d, c.engine, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Predict(c.w)
			if err != nil {
				t.Fatal(err)
			}
			sp := s.StepPricer()
			B, P, D, U := c.w.Batch, c.w.Prompt, c.w.Depth, c.w.UBatch
			// Prefill: every pass gives each sequence ⌊U/B⌋ tokens (the
			// whole prompt when it fits); the last pass computes their logits.
			per := max(1, U/B)
			ttft := 0.0
			for done := 0; done < P; {
				n := min(per, P-done)
				var a sim.Attention
				for range B {
					a.Add(sp.Chunk(D+done, n))
				}
				logits := 0
				if done+n == P {
					logits = B
				}
				ttft += sp.Pass(B*n, logits, true, a)
				done += n
			}
			if !near(ttft, r.TTFT, 1e-12) {
				t.Errorf("TTFT %v, predict %v", ttft, r.TTFT)
			}
			// Decode: B sequences at one context, kept as the window sums
			// a scheduler keeps.
			e2e := ttft
			for i := 1; i < c.w.Output; i++ {
				ctx := D + P + i
				sums := make([]float64, len(sp.Windows()))
				for j, w := range sp.Windows() {
					v := ctx
					if w > 0 {
						v = min(ctx, w)
					}
					sums[j] = float64(B * v)
				}
				step := sp.Pass(B, B, false, sp.Decodes(sums))
				if want := s.ITL(ctx, B); !near(step, want, 1e-12) {
					t.Fatalf("step at %d: %v, ITL %v", ctx, step, want)
				}
				e2e += step
			}
			if !near(e2e, r.E2E, 1e-12) {
				t.Errorf("E2E %v, predict %v", e2e, r.E2E)
			}
		})
	}
}

// TestDecodeSumsSplitPerWindow holds the window sums against the
// per-sequence attention summed one by one, for sequences on both sides
// of gemma-2's 4096-token window.
func TestDecodeSumsSplitPerWindow(t *testing.T) {
	m, d := setup(t, "gemma-2-2b", "q8_0", "f16", "rtx-4090")
	s, err := setupOn(m, d, "gpu", sim.Options{RuntimeOverhead: -1, NoFlashAttention: true})
	if err != nil {
		t.Fatal(err)
	}
	sp := s.StepPricer()
	if len(sp.Windows()) != 2 || sp.Windows()[0] != 4096 || sp.Windows()[1] != 0 {
		t.Fatalf("windows %v, want [4096 0]", sp.Windows())
	}
	ctxs := []int{1, 17, 4095, 4096, 4097, 9000, 131072}
	var want sim.Attention
	sums := make([]float64, 2)
	for _, c := range ctxs {
		want.Add(sp.Decode(c))
		sums[0] += float64(min(c, 4096))
		sums[1] += float64(c)
	}
	got := sp.Decodes(sums)
	if !near(got.Bytes, want.Bytes, 1e-12) || !near(got.FLOPs, want.FLOPs, 1e-12) {
		t.Errorf("sums give %+v, one by one %+v", got, want)
	}
}

// TestStepPricerScaled checks that an interval's ends scale the passes
// that hold prompt tokens and the decode-only ones apart.
func TestStepPricerScaled(t *testing.T) {
	s := newSetup(t, "llama-3.2-3b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu")
	sp := s.StepPricer()
	lo := sp.Scaled(0.5, 2)
	a := sp.Chunk(0, 100)
	if got, want := lo.Pass(100, 1, true, a), 0.5*sp.Pass(100, 1, true, a); !near(got, want, 1e-15) {
		t.Errorf("prefill pass %v, want %v", got, want)
	}
	d := sp.Decode(500)
	if got, want := lo.Pass(1, 1, false, d), 2*sp.Pass(1, 1, false, d); !near(got, want, 1e-15) {
		t.Errorf("decode pass %v, want %v", got, want)
	}
	// The 80 % interval of a class: [Low, High] of its spreads.
	plo, phi, dlo, dhi := s.StepSpread(0.8)
	c := s.Class()
	if !near(plo, c.Prefill.Low, 1e-9) || !near(phi, c.Prefill.High, 1e-9) || !near(dlo, c.Decode.Low, 1e-9) || !near(dhi, c.Decode.High, 1e-9) {
		t.Errorf("spread %v %v %v %v, class %+v %+v", plo, phi, dlo, dhi, c.Prefill, c.Decode)
	}
}
