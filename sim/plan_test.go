package sim_test

import (
	"testing"

	"github.com/roofline/roofline/sim"
)

// Llama-3.1-8B Q4_K_M on the Jetson Orin Nano 8GB gpu (68 GB/s, 10.2 TFLOP/s
// fp16, default efficiencies 0.70 / 0.40, overhead 126 µs + 32 × 32 µs =
// 1.15 ms), prompt 512, output 128, ubatch 512, batch 1.
//
// Memory: weights 4,912,898,048 B + KV 131,072 B per token + activations
// 4 B · 512 · (128256 + 4096 + 14336) = 300,421,120 B + overhead
// 268,435,456 B, against 8 GiB − 1117 MiB (hardware.SharedOSReserve) =
// 7,418,675,200 B usable: the longest context is ⌊1,936,920,576 /
// 131,072⌋ = 14777 tokens; with 10 % headroom (6,676,807,680 B usable)
// ⌊1,195,053,056 / 131,072⌋ = 9117.
//
// TPOT at context c (the last step attends c − 1 keys): (4,617,398,528 +
// 131,072 · (c − 1)) B / (0.7 · 68 GB/s) + 1.15 ms; at c = 4096 that is
// 5,154,138,368 / 47.6e9 + 0.00115 = 0.109430 s.
//
// TTFT with no history (c = 640): 512 · 13,958,643,712 (linear) +
// 2 · 128256 · 4096 (logits) + 4 · 32 · 32 · 128 · (512 · 513 / 2)
// (causal attention) FLOP at 0.4 · 10.2 TFLOP/s, + 1.15 ms.
func TestPlanBoundaries(t *testing.T) {
	m, d := setup(t, "llama-3.1-8b", "q4_k_m", "f16", "jetson-orin-nano-8gb")
	s, err := setupOn(m, d, "", sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	const (
		overhead = 126e-6 + 32*32e-6
		bw       = 0.7 * 68e9
		peak     = 0.4 * 10.2e12
		// A decode step's fixed costs per layer run at the GPU's 625 MHz
		// (r = 0.625 of 1 GHz: 32 × 32 µs / 0.625 = 1.638 ms), its cost per
		// step at the host CPU's 1.5 GHz (126 µs / 1.5 = 84 µs;
		// hardware.Efficiency.AtClocks); a prefill pass's as fitted.
		stepOverhead = 126e-6/1.5 + 32*32e-6/0.625
	)
	tpot := func(c float64) float64 { return (4617398528+131072*(c-1))/bw + stepOverhead }
	ttft := (512*13958643712.0+2*128256*4096+4*32*32*128*(512*513/2))/peak + overhead
	cases := []struct {
		name     string
		ctx      int
		targets  sim.Targets
		feasible bool
		limit    sim.Limit
	}{
		{"just fits", 14777, sim.Targets{}, true, sim.LimitNone},
		{"just does not fit", 14778, sim.Targets{}, false, sim.LimitMemory},
		{"TPOT just under", 4096, sim.Targets{TPOT: tpot(4096) * (1 + 1e-9)}, true, sim.LimitNone},
		{"TPOT just over", 4097, sim.Targets{TPOT: tpot(4096) * (1 + 1e-9)}, false, sim.LimitTPOT},
		{"TTFT just under", 640, sim.Targets{TTFT: ttft * (1 + 1e-9)}, true, sim.LimitNone},
		{"TTFT just over", 640, sim.Targets{TTFT: ttft * (1 - 1e-9)}, false, sim.LimitTTFT},
		{"fits without headroom", 9118, sim.Targets{}, true, sim.LimitNone},
		{"headroom 10% takes the fit away", 9118, sim.Targets{Headroom: 0.10}, false, sim.LimitMemory},
		{"memory is checked first", 16000, sim.Targets{TPOT: 1e-3}, false, sim.LimitMemory},
		{"throughput", 4096, sim.Targets{MinThroughput: 1 / tpot(4096) * 1.01}, false, sim.LimitThroughput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := s.Evaluate(c.ctx, 1, 512, 128, 512, c.targets)
			if cfg.Feasible != c.feasible || cfg.Limit != c.limit {
				t.Errorf("context %d: feasible %v limit %q (memory %.0f, TTFT %.6g, TPOT %.6g), want %v %q",
					c.ctx, cfg.Feasible, cfg.Limit, cfg.Memory, cfg.TTFT, cfg.TPOT, c.feasible, c.limit)
			}
		})
	}
	l := s.PlanLimits(1, 640, 512, 128, 512, sim.Targets{TPOT: tpot(4096) * (1 + 1e-9), TTFT: ttft * (1 + 1e-9)})
	if l.MaxContextFit != 14777 || l.MaxContextTPOT != 4096 || l.MaxPromptTTFT != 512 {
		t.Errorf("limits %+v, want fit 14777, TPOT 4096, prompt 512", l)
	}
}

// The inverse limits agree with predict at the limit and one past it.
func TestPlanLimitsAgreeWithPredict(t *testing.T) {
	for _, c := range []struct{ model, weights, device string }{
		{"llama-3.2-3b", "q4_k_m", "jetson-orin-nano-super-8gb"},
		{"gemma-2-2b", "q8_0", "raspberry-pi-5-8gb"},
		{"qwen3-30b-a3b", "q4_k_m", "apple-m4-pro"},
	} {
		m, d := setup(t, c.model, c.weights, "f16", c.device)
		s, err := setupOn(m, d, "", sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		const prompt, output, batch = 256, 64, 2
		targets := sim.Targets{TTFT: 0.8, TPOT: 0.12}
		l := s.PlanLimits(batch, 1024, prompt, output, 512, targets)
		pred := func(depth, p int) *sim.Result {
			r, err := s.Predict(sim.Workload{Prompt: p, Output: output, Batch: batch, Depth: depth, UBatch: 512})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		if l.MaxContextFit <= prompt+output {
			t.Fatalf("%s: max context %d", c.model, l.MaxContextFit)
		}
		at, past := pred(l.MaxContextFit-prompt-output, prompt), pred(l.MaxContextFit+1-prompt-output, prompt)
		switch {
		case l.ContextBound == sim.BoundByModel:
			// Memory holds more; the model's maximum bounds both answers.
			if !at.Memory.Fits || at.Memory.MaxContext != l.MaxContextFit || at.Memory.ContextBound != sim.BoundByModel {
				t.Errorf("%s: max_context_fit %d (model): predict fits %v, max %d (%s)", c.model, l.MaxContextFit, at.Memory.Fits, at.Memory.MaxContext, at.Memory.ContextBound)
			}
		case !at.Memory.Fits || past.Memory.Fits:
			t.Errorf("%s: max_context_fit %d: fits %v, +1 fits %v", c.model, l.MaxContextFit, at.Memory.Fits, past.Memory.Fits)
		}
		if l.MaxContextTPOT > prompt+output && l.MaxContextTPOT < l.MaxContextFit {
			at, past = pred(l.MaxContextTPOT-prompt-output, prompt), pred(l.MaxContextTPOT+1-prompt-output, prompt)
			if at.ITLLast > targets.TPOT || past.ITLLast <= targets.TPOT {
				t.Errorf("%s: max_context_tpot %d: ITL %g, +1 %g vs %g", c.model, l.MaxContextTPOT, at.ITLLast, past.ITLLast, targets.TPOT)
			}
		}
		if l.MaxPromptTTFT > 0 {
			at, past = pred(0, l.MaxPromptTTFT), pred(0, l.MaxPromptTTFT+1)
			if at.TTFT > targets.TTFT || past.TTFT <= targets.TTFT {
				t.Errorf("%s: max_prompt_ttft %d: TTFT %g, +1 %g vs %g", c.model, l.MaxPromptTTFT, at.TTFT, past.TTFT, targets.TTFT)
			}
		}
		t.Logf("%s on %s: %+v", c.model, c.device, l)
	}
}

// The plan's largest context obeys the model's own maximum as predict's
// does: llama-3.2-3b q4_k_m on an RTX 4090 would hold about 202,000
// tokens of f16 KV (24 GiB usable less 1.9 GiB of weights, at 112 KiB per
// token: 28 layers × 2 × 8 KV heads × 128 × 2 B = 114,688 B), but the
// model attends 131,072 (max_position_embeddings). A small board keeps
// its memory bound: Llama-3.1-8B on an 8 GB Orin Nano, 14,777 tokens.
func TestPlanLimitsModelMaxContext(t *testing.T) {
	for _, c := range []struct {
		model, device string
		want          int
		bound         string
	}{
		{"llama-3.2-3b", "rtx-4090", 131072, sim.BoundByModel},
		{"llama-3.1-8b", "jetson-orin-nano-super-8gb", 14777, sim.BoundByMemory},
	} {
		m, d := setup(t, c.model, "q4_k_m", "f16", c.device)
		s, err := setupOn(m, d, "", sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		l := s.PlanLimits(1, 2048, 1000, 200, 512, sim.Targets{})
		mem := s.Memory(2048, 1, 512)
		if l.MaxContextFit != c.want || l.ContextBound != c.bound {
			t.Errorf("%s on %s: max context %d (%s), want %d (%s)", c.model, c.device, l.MaxContextFit, l.ContextBound, c.want, c.bound)
		}
		if l.MaxContextFit != mem.MaxContext || l.ContextBound != mem.ContextBound {
			t.Errorf("%s on %s: plan %d (%s), predict %d (%s): want the same", c.model, c.device, l.MaxContextFit, l.ContextBound, mem.MaxContext, mem.ContextBound)
		}
	}
}

// A micro-batch larger than the cache is capped at it, as llama.cpp caps
// n_ubatch at n_batch ≤ n_ctx: --ubatch 65536 on a 110-token context
// priced 34.1 GiB of activations (a 65,536-token pass) and "does not
// fit" on an RTX 4090. The memory at 110 tokens is the same with ubatch
// 65,536 as with 110; the largest context stays the boundary where the
// capped need crosses usable memory, and plan prices it as predict does.
func TestUBatchCappedAtTheCache(t *testing.T) {
	m, d := setup(t, "llama-3.2-3b", "q4_k_m", "f16", "rtx-4090")
	s, err := setupOn(m, d, "", sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	huge, capped := s.Memory(110, 1, 65536), s.Memory(110, 1, 110)
	if huge.Total != capped.Total || !huge.Fits {
		t.Errorf("110 tokens: %.4g B with ubatch 65536, %.4g B with 110 (fits %v); want the same", huge.Total, capped.Total, huge.Fits)
	}
	max := huge.MaxContext
	if max <= 110 || max >= 65536 {
		t.Fatalf("max context %d with ubatch 65536: want between the context and the micro-batch", max)
	}
	if at, past := s.Memory(max, 1, 65536), s.Memory(max+1, 1, 65536); !at.Fits || past.Fits {
		t.Errorf("max context %d: fits %v, +1 fits %v", max, at.Fits, past.Fits)
	}
	if c := s.Evaluate(110, 1, 100, 10, 65536, sim.Targets{}); c.Memory != huge.Total {
		t.Errorf("plan prices 110 tokens at %.4g B, predict at %.4g B", c.Memory, huge.Total)
	}
}

// TestEvaluatorIsPredictInOrder: under a runtime that takes whole prompts
// in turn (vLLM), a batch whose prompts leave a smaller last group (5
// prompts of 2,000 tokens in passes of 8,192: groups of 4, then 1) is
// planned at its history as predict prices it: every group's passes
// attend the history, not only the first's. Before, the last group's
// were priced at none, and Llama-3.1-8B on an H100 at 32k tokens planned
// a TTFT of 0.934 s where predict says 1.064 s.
func TestEvaluatorIsPredictInOrder(t *testing.T) {
	h := splitSetup(t, "llama-3.1-8b", "bf16", "h100-sxm", "", "vllm")
	if h.Inputs.Chunk != 8192 {
		t.Fatalf("vLLM's chunk on an H100 is %d, the case assumes 8192", h.Inputs.Chunk)
	}
	tg := sim.Targets{TTFT: 2, TPOT: 0.1}
	for _, c := range []struct{ prompt, batch int }{{2000, 5}, {3000, 3}, {700, 13}} {
		contexts := []int{c.prompt + 200, 8192, 32768, 65536}
		got := h.EvaluateContexts(contexts, c.batch, c.prompt, 128, 0, tg, nil)
		for i, ctx := range contexts {
			r, err := h.Predict(sim.PlanWorkload(ctx, c.batch, c.prompt, 128, 0))
			if err != nil {
				t.Fatal(err)
			}
			if got[i].TTFT != r.LastTTFT || got[i].TPOT != r.ITLLast {
				t.Errorf("%d × %d-token prompts at %d: plan TTFT %v TPOT %v, predict %v %v", c.batch, c.prompt, ctx, got[i].TTFT, got[i].TPOT, r.LastTTFT, r.ITLLast)
			}
		}
	}
}
