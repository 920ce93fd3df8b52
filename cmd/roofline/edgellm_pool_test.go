package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// "Does Qwen3-4B fit on an Orin Nano 8GB under TensorRT Edge-LLM at
// context 8k, batch 4?" The engine allocates its KV cache at load for
// its 4 rows (--maxBatchSize) of --maxKVCacheCapacity tokens, here built
// for the context, 8192 (kv_pool in its profile): Qwen3-4B's f16 KV,
// 36 layers × 8 heads × 128 × 2 × 2 B = 147 456 B a token, takes
// 4 × 8192 × 147 456 = 4 831 838 208 B (4.50 GiB): with the 2.48 GiB of
// w4a16 weights it does not fit the 6.91 GiB usable (exit 3), and at
// batch 1 no better: the engine holds its 4 rows whatever the batch. At
// the defaults (512 + 128 tokens, batch 1) it fits, holding the default
// build's 4 × 4096 × 147 456 = 2 415 919 104 B (2.25 GiB, where the
// request's own cache is 640 × 147 456 B = 94 MB): the golden file. An
// engine built for 4096 (--max-context 4096) cannot hold the 8192-token
// context: refused, naming the builder's flag and the value to build
// with (exit 2).
func TestEdgeLLMKVPool(t *testing.T) {
	base := []string{"predict", "--model", "qwen3-4b", "--hardware", "jetson-orin-nano-8gb", "--runtime", "edge-llm", "--weights", "w4a16",
		"--prompt", "7000", "--output-tokens", "1192", "--batch", "4"}
	for _, c := range []struct {
		extra []string
		code  int
		want  []string
		kv    float64
	}{
		{nil, exitInfeasible, []string{"KV cache (4 × 8192 tokens: the engine's)", "4.50 GiB", "DOES NOT FIT",
			"the engine's KV cache of 4 rows (an engine built with --maxBatchSize 4, the builder's default) fits up to --maxKVCacheCapacity"}, 4831838208},
		{[]string{"--batch", "1"}, exitInfeasible, []string{"KV cache (4 × 8192 tokens: the engine's)", "4.50 GiB", "DOES NOT FIT"}, 4831838208},
		{[]string{"--batch", "1", "--prompt", "512", "--output-tokens", "128"}, exitOK, []string{"KV cache (4 × 4096 tokens: the engine's)", "2.25 GiB", "fits: headroom"}, 2415919104},
	} {
		args := append(append([]string{}, base...), c.extra...)
		out, errOut, code := runCLI(args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d:\n%s", c.extra, code, c.code, errOut)
		}
		if c.code == exitOK {
			golden(t, "predict-qwen3-4b-orin-nano-edge-llm-default.stdout", out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", c.extra, w, out)
			}
		}
		js, _, _ := runCLI(append(args, "--format", "json")...)
		var j struct {
			Memory struct {
				KV float64 `json:"kv_bytes"`
			} `json:"memory"`
		}
		if err := json.Unmarshal([]byte(js), &j); err != nil || j.Memory.KV != c.kv {
			t.Errorf("%v: kv_bytes %g (%v), want %g", c.extra, j.Memory.KV, err, c.kv)
		}
	}
	_, errOut, code := runCLI(append(base, "--max-context", "4096")...)
	for _, w := range []string{"--max-context 4096: a context of 8192 tokens", "build the engine with --maxKVCacheCapacity 8192"} {
		if code != exitUsage || !strings.Contains(errOut, w) {
			t.Errorf("--max-context 4096: exit %d, stderr lacks %q:\n%s", code, w, errOut)
		}
	}
}

// "My engine was built with --maxBatchSize 1, as NVIDIA's examples build
// it: does Qwen3-4B fit at context 8k?" --max-seqs 1 states it: the pool
// holds 1 row of 8192 tokens, 1 × 8192 × 147 456 B = 1 207 959 552 B
// (1.12 GiB), beside 2.48 GiB of weights in 6.91 GiB usable: it fits
// (exit 0), where the default build's 4 rows (4.50 GiB) do not. A batch
// of 4 on that engine queues, one sequence at a time, the note naming
// --maxBatchSize and the build to price instead. plan prices the same
// build; llama.cpp, which batches continuously, says it took no rows;
// --max-seqs 0 is a usage error (exit 2).
func TestEdgeLLMBatchBuild(t *testing.T) {
	base := []string{"--model", "qwen3-4b", "--hardware", "jetson-orin-nano-8gb", "--weights", "w4a16"}
	pred := append([]string{"predict", "--runtime", "edge-llm", "--prompt", "7000", "--output-tokens", "1192"}, base...)
	for _, c := range []struct {
		extra []string
		code  int
		want  []string
	}{
		{[]string{"--max-seqs", "1"}, exitOK, []string{"KV cache (1 × 8192 tokens: the engine's)", "1.12 GiB", "fits: headroom",
			"for its 1 row (an engine built with --maxBatchSize 1, as the run states)"}},
		{nil, exitInfeasible, []string{"KV cache (4 × 8192 tokens: the engine's)", "DOES NOT FIT", "an engine built with --maxBatchSize 4, the builder's default"}},
		{[]string{"--max-seqs", "1", "--batch", "4"}, exitOK, []string{"KV cache (1 × 8192 tokens: the engine's)",
			"runs one sequence at a time (an engine built with --maxBatchSize 1, as the run states): the 4 sequences queue",
			"on an engine whose KV pool holds 4 rows, build it with --maxBatchSize 4 and price that build with --max-seqs 4"}},
	} {
		out, errOut, code := runCLI(append(append([]string{}, pred...), c.extra...)...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d:\n%s", c.extra, code, c.code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", c.extra, w, out)
			}
		}
	}
	out, errOut, code := runCLI(append([]string{"plan", "--runtime", "tensorrt-edge-llm", "--context", "8k", "--tpot", "1s", "--max-seqs", "1"}, base...)...)
	if code != exitOK || !strings.Contains(out, "meets") {
		t.Errorf("plan --max-seqs 1 at 8k: exit %d, want 0 and a configuration that meets:\n%s%s", code, out, errOut)
	}
	// chat's context limit is the longest context whose own whole-prompt
	// pass and pool fit (it was refused outright: the pool's limit took a
	// pass of every token the search allows); one row leaves room for a
	// longer context than four.
	limit := func(extra ...string) int {
		out, errOut, code := runCLI(append(append([]string{"chat", "--runtime", "tensorrt-edge-llm"}, base...), extra...)...)
		var n int
		if i := strings.Index(out, "context limit "); code != exitOK || i < 0 {
			t.Fatalf("chat %v: exit %d, want 0 and a context limit:\n%s%s", extra, code, out, errOut)
		} else if _, err := fmt.Sscanf(out[i:], "context limit %d", &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if four, one := limit(), limit("--max-seqs", "1"); !(one > four && four > 0) {
		t.Errorf("chat: context limit %d at 1 row, %d at 4: want more at 1", one, four)
	}
	out, _, _ = runCLI("predict", "--model", "qwen3-4b", "--hardware", "jetson-orin-nano-8gb", "--runtime", "llama.cpp", "--max-seqs", "2")
	if !strings.Contains(out, "the limit of 2 sequences at once does not apply to it") {
		t.Errorf("llama.cpp --max-seqs 2: no note that it took none:\n%s", out)
	}
	_, errOut, code = runCLI(append(append([]string{}, pred...), "--max-seqs", "0")...)
	if code != exitUsage || !strings.Contains(errOut, "--max-seqs must be a number of sequences from 1") {
		t.Errorf("--max-seqs 0: exit %d, want %d and a message naming it:\n%s", code, exitUsage, errOut)
	}
}
