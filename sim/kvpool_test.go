package sim_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// TestEngineKVPool: TensorRT Edge-LLM allocates its linear KV cache at
// load for the engine's maxBatchSize rows (4, llm_build's default, the
// profile's scheduler.max_seqs) of maxKVCacheCapacity tokens (4096 by
// default, kv_pool.capacity), whatever a request asks ([E10][E11] in
// its profile). Qwen3-4B keeps 36 layers × 8 KV heads × head_dim 128 ×
// K and V × 2 B (f16) = 147 456 B a token:
//
//	batch 1, 512 + 128 tokens:   4 × 4096 × 147 456 = 2 415 919 104 B (2.25 GiB, not 1 × 640 = 94.4 MB)
//	batch 4, 7000 + 1192 = 8192: 4 × 8192 × 147 456 = 4 831 838 208 B (an engine built for the context)
//	--max-context 2048, batch 2, 1000 + 500: 4 × 2048 × 147 456 = 1 207 959 552 B
//
// The scratch memory is TensorRT's for the prefill profile's largest
// pass, 4 prompts of maxInputLen 1024 = 4096 tokens, at least: the
// activations of a batch-1 prediction are those of 4 sequences of 1024
// tokens, not of one of 512. A context above --max-context is refused,
// naming the builder's flag.
func TestEngineKVPool(t *testing.T) {
	const perToken = 36 * 8 * 128 * 2 * 2 // 147 456 B
	edge := splitSetup(t, "qwen3-4b", "w4a16", "jetson-orin-nano-8gb", "gpu", "tensorrt-edge-llm")
	o := sim.DefaultOptions
	o.Settings = runtimes.Settings{MaxContext: 2048}
	built := splitSetupWith(t, "qwen3-4b", "w4a16", "jetson-orin-nano-8gb", "gpu", "tensorrt-edge-llm", o)
	if got := float64(edge.Model.KVBytesPerToken()); got != perToken {
		t.Fatalf("qwen3-4b f16 KV: %g B a token, want %d", got, perToken)
	}
	for _, c := range []struct {
		name         string
		s            *sim.Setup
		w            sim.Workload
		rows, tokens int
		kv           float64
	}{
		{"default build, batch 1", edge, sim.Workload{Prompt: 512, Output: 128, Batch: 1}, 4, 4096, 2415919104},
		{"built for 8k, batch 4", edge, sim.Workload{Prompt: 7000, Output: 1192, Batch: 4}, 4, 8192, 4831838208},
		{"--max-context 2048, batch 2", built, sim.Workload{Prompt: 1000, Output: 500, Batch: 2}, 4, 2048, 1207959552},
	} {
		r, err := c.s.Predict(c.w)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		m := r.Memory
		if !m.Pool || m.KVRows != c.rows || m.KVTokens != c.tokens || m.KV != c.kv {
			t.Errorf("%s: pool %v, %d × %d tokens, %g B; want the engine's %d × %d, %g B", c.name, m.Pool, m.KVRows, m.KVTokens, m.KV, c.rows, c.tokens, c.kv)
		}
		if m.Total != m.Weights+m.KV+m.Activations+m.Overhead {
			t.Errorf("%s: total %g is not weights + KV + activations + overhead", c.name, m.Total)
		}
		if !hasWarning(r, "kv-pool") {
			t.Errorf("%s: no kv-pool note", c.name)
		}
	}
	// The activations of the default build's largest pass: 4 × 1024
	// tokens, logits of the 4 last ones, as a batch of 4 prompts of 1024.
	one, err := edge.Predict(sim.Workload{Prompt: 512, Output: 128, Batch: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := edge.Model.ActivationPeakBytesLogits(4096, 4); one.Memory.Activations != want {
		t.Errorf("activations at batch 1: %g B, want the engine's 4 × 1024-token pass, %g B", one.Memory.Activations, want)
	}
	// An engine built for 2048 holds no context above it: the largest
	// context is the build's, and a longer one is refused.
	r, err := built.Predict(sim.Workload{Prompt: 1000, Output: 500, Batch: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Memory.MaxContext != 2048 || r.Memory.ContextBound != sim.BoundByBuild {
		t.Errorf("--max-context 2048: largest context %d (%s), want 2048 (%s)", r.Memory.MaxContext, r.Memory.ContextBound, sim.BoundByBuild)
	}
	_, err = built.Predict(sim.Workload{Prompt: 2000, Output: 100, Batch: 1})
	var fe *sim.FieldError
	if !errors.As(err, &fe) || fe.Field != "MaxContext" || !strings.Contains(fe.Msg, "--maxKVCacheCapacity 2100") {
		t.Errorf("2100 tokens on an engine built for 2048: %v, want a MaxContext error naming --maxKVCacheCapacity 2100", err)
	}
	// A runtime that sizes the cache for the request holds the batch's
	// own: llama.cpp at batch 1 and 640 tokens holds 1 × 640.
	ll := splitSetup(t, "qwen3-4b", "q4_k_m", "jetson-orin-nano-8gb", "gpu", "llama.cpp")
	lr, err := ll.Predict(sim.Workload{Prompt: 512, Output: 128, Batch: 1, UBatch: 512})
	if err != nil {
		t.Fatal(err)
	}
	if m := lr.Memory; m.Pool || m.KVRows != 1 || m.KVTokens != 640 || m.KV != 640*perToken {
		t.Errorf("llama.cpp: pool %v, %d × %d tokens, %g B; want 1 × 640, %d B", m.Pool, m.KVRows, m.KVTokens, m.KV, 640*perToken)
	}
}
