package serve

import (
	"errors"
	"strings"
	"testing"

	"github.com/roofline/roofline/sim"
)

// TestEngineKVPool: a TensorRT Edge-LLM server holds the KV cache its
// engine allocates at load, maxBatchSize rows of maxKVCacheCapacity
// tokens ([E10] in its profile), not what memory would hold: Qwen3-4B in
// w4a16 on an Orin Nano 8GB, 147 456 B of f16 KV a token.
//
//	default build, prompts of 512:  4 rows × 4096 = 16 384 tokens, a request at most 4096 (the build)
//	prompts of 6000 (maxInputLen):  4 rows × 6000 = 24 000 tokens, built to hold the prompt
//	3000 + 2000-token replies:      4 rows × 5000 = 20 000 tokens, built for prompt and reply
//	                                (the builder's maxInputLen plus the expected output), a
//	                                request at most 5000: 20 000 × 147 456 B = 2.75 GiB
//	--max-context 16384:            4 × 16 384 × 147 456 B = 9.0 GiB of cache: more than the
//	                                6.91 GiB usable, refused naming --maxKVCacheCapacity
func TestEngineKVPoolServe(t *testing.T) {
	for _, c := range []struct {
		name                    string
		longest, request, built int
		tokens, ctx             int
		refused                 bool
	}{
		{"default", 512, 0, 0, 16384, 4096, false},
		{"long prompts", 6000, 0, 0, 24000, 6000, false},
		{"long replies", 3000, 5000, 0, 20000, 5000, false},
		{"built too large", 512, 0, 16384, 0, 0, true},
	} {
		s := setup(t, "qwen3-4b", "w4a16", "jetson-orin-nano-8gb", "gpu", "tensorrt-edge-llm")
		s.Inputs.PoolBuilt = c.built
		sv, err := New(s, s.Runtime.SchedulerFor(s.Device), Options{LongestPrompt: c.longest, LongestRequest: c.request})
		if c.refused {
			var fe *sim.FieldError
			if !errors.As(err, &fe) || fe.Field != "MaxContext" || !strings.Contains(fe.Msg, "--maxKVCacheCapacity") {
				t.Errorf("%s: %v, want a MaxContext error naming --maxKVCacheCapacity", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if sv.KVTokens() != c.tokens || sv.Context != c.ctx || sv.ContextBound != sim.BoundByBuild {
			t.Errorf("%s: %d tokens, a request at most %d (%s); want %d, %d (%s)", c.name, sv.KVTokens(), sv.Context, sv.ContextBound, c.tokens, c.ctx, sim.BoundByBuild)
		}
	}
}

// TestEngineBatchBuildServe: serve's scheduler of --max-seqs 1 runs an
// engine built with --maxBatchSize 1, whose pool holds one row: Qwen3-4B
// w4a16 on an Orin Nano 8GB, prompts of 512, the default capacity 4096:
// 1 row × 4096 = 4096 tokens (not 4 × 4096 = 16 384), a request at most
// 4096, the build's bound.
//
// Llama-2-13B in w4a16 does not fit the same board: its weights and the
// scratch of the engine's prefill profile, 4 prompts of maxInputLen 1024
// (4096 tokens, larger than the longest prompt's 100), exceed usable
// memory. The error says the profile sized it, not "a pass of the
// longest prompt".
func TestEngineBatchBuildServe(t *testing.T) {
	s := setup(t, "qwen3-4b", "w4a16", "jetson-orin-nano-8gb", "gpu", "tensorrt-edge-llm")
	sch := s.Runtime.SchedulerFor(s.Device)
	sch.MaxSeqs = 1
	sv, err := New(s, sch, Options{LongestPrompt: 512})
	if err != nil {
		t.Fatal(err)
	}
	if sv.KVTokens() != 4096 || sv.Context != 4096 || sv.ContextBound != sim.BoundByBuild || sv.Setup.Inputs.PoolSeqs != 1 {
		t.Errorf("--max-seqs 1: %d tokens in %d rows, a request at most %d (%s); want 4096 in 1, 4096 (%s)", sv.KVTokens(), sv.Setup.Inputs.PoolSeqs, sv.Context, sv.ContextBound, sim.BoundByBuild)
	}
	big := setup(t, "llama-2-13b", "w4a16", "jetson-orin-nano-8gb", "gpu", "tensorrt-edge-llm")
	_, err = New(big, big.Runtime.SchedulerFor(big.Device), Options{LongestPrompt: 100})
	var nf *NotFitError
	if !errors.As(err, &nf) || nf.PoolRows != 4 || nf.PoolInput != 1024 {
		t.Fatalf("llama-2-13b: %v, want a NotFitError sized by the 4 × 1024 prefill profile", err)
	}
	if msg := nf.Error(); !strings.Contains(msg, "the engine's prefill profile, 4 prompts of 1024 tokens: --maxBatchSize 4, --maxInputLen 1024") || strings.Contains(msg, "longest prompt") {
		t.Errorf("llama-2-13b: %q, want the prefill profile named, not the longest prompt", msg)
	}
}
