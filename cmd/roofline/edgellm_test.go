package main

import (
	"math"
	"strings"
	"testing"
)

// TensorRT Edge-LLM is a runtime of its own (profiles/runtimes/
// tensorrt-edge-llm.toml), priced by the class fitted on NVIDIA's v0.9.0
// runs (EDGELLM-JETSON): predict names it, by its name and NVIDIA's
// spelling, and prices the AGX Orin's Qwen3-4B INT4 AWQ run near what
// NVIDIA published (the run is in the fit, so this checks the path from
// the runs file to the prediction, not the held-out accuracy).
func TestPredictEdgeLLM(t *testing.T) {
	args := []string{"--model", "qwen3-4b", "--hardware", "jetson-agx-orin-64gb", "--weights", "w4a16", "--prompt", "57", "--output-tokens", "128"}
	for _, name := range []string{"tensorrt-edge-llm", "TensorRT Edge-LLM", "edge-llm"} {
		j := predictOut(t, append([]string{"--runtime", name}, args...)...)
		in := j["inputs"].(map[string]any)
		if in["runtime"] != "tensorrt-edge-llm" {
			t.Errorf("--runtime %q: runtime %v, want tensorrt-edge-llm", name, in["runtime"])
		}
		from, _ := in["efficiency_from"].(string)
		if !strings.Contains(from, "fitted on") || !strings.Contains(from, "jetson-agx-orin-64gb") {
			t.Errorf("--runtime %q: efficiency from %q, want the AGX Orin's fitted level", name, from)
		}
		// NVIDIA's v0.9.0 dashboard: decode 53.1 tok/s, 57 prompt tokens
		// in 42.6 ms. The ideal decode bound is the weights' 2.48 GiB
		// (+ the KV) over 204.8 GB/s: 13.1 ms a token, 76 tok/s.
		decode := j["decode_tokens_per_s"].(float64)
		bound := 1 / j["tpot_bound_s"].(float64)
		if math.Abs(decode/53.1-1) > 0.15 || decode > bound {
			t.Errorf("--runtime %q: decode %.1f tok/s, want within 15 %% of 53.1 and under the bound %.1f", name, decode, bound)
		}
		if ttft := j["ttft_s"].(float64); math.Abs(ttft/0.0426-1) > 0.15 {
			t.Errorf("--runtime %q: TTFT %.1f ms, want within 15 %% of 42.6 ms", name, ttft*1e3)
		}
	}
	// FP8 runs on the Thor (SM110, an FP8 peak) at fp8.
	j := predictOut(t, "--runtime", "tensorrt-edge-llm", "--model", "qwen3-4b", "--hardware", "jetson-agx-thor", "--weights", "fp8", "--kv", "fp8")
	if p := j["inputs"].(map[string]any)["precision"]; p != "fp8" {
		t.Errorf("fp8 on the Thor runs at %v, want fp8", p)
	}
}

// A format or device TensorRT Edge-LLM does not run is refused with the
// flag to change and why.
func TestEdgeLLMBadInput(t *testing.T) {
	orin := []string{"predict", "--runtime", "tensorrt-edge-llm", "--model", "qwen3-4b", "--hardware", "jetson-agx-orin-64gb"}
	cases := []struct {
		args []string
		code int
		want []string
	}{
		// FP8 GEMMs need SM89 and later: the Orin (Ampere) has no FP8 peak.
		{append(orin, "--weights", "fp8"), exitUsage,
			[]string{"--runtime: runtime tensorrt-edge-llm does not run fp8 on the gpu engine of jetson-agx-orin-64gb, which has no peak for fp8", "choose another --weights or --engine"}},
		{append(orin, "--weights", "q4_k_m"), exitUsage,
			[]string{"runtime tensorrt-edge-llm does not run weight format q4_k_m (it runs f16, w4a16, fp8)"}},
		{append(orin, "--weights", "nvfp4"), exitError, []string{`--weights: unknown weight format "nvfp4"`}},
		{append(orin, "--kv", "q8_0"), exitUsage, []string{"--kv: runtime tensorrt-edge-llm does not run KV format q8_0 (it runs f16, fp8)"}},
		{[]string{"predict", "--runtime", "tensorrt-edge-llm", "--model", "qwen3-4b", "--hardware", "h100-sxm"}, exitUsage,
			[]string{"runtime tensorrt-edge-llm does not run any engine of h100-sxm (nvidia); it runs on gpu engines of jetson devices (compute capability 8.0 and later) (choose another --runtime)"}},
		{[]string{"predict", "--runtime", "tensorrt-edge-llm", "--model", "qwen3-0.6b", "--hardware", "jetson-nano-4gb"}, exitUsage,
			[]string{"does not run any engine of jetson-nano-4gb (its gpu engine is of compute capability 5.3, below the 8.0 it runs on)", "choose another --runtime"}},
	}
	for _, c := range cases {
		_, errOut, code := runCLI(c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d:\n%s", c.args, code, c.code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, errOut)
			}
		}
	}
}

// serve sizes TensorRT Edge-LLM's one pass per prompt by the longest
// prompt the workload sends: prompts of normal:500:100 lengths (their
// longest draw a few hundred tokens past 500) serve on an Orin Nano 8GB
// as 512-token ones do, where sized for the model's 131072-token context
// they were refused, 706 MiB short, with no hint; prompts up to 200000
// tokens (past the context) are refused naming the pass and the flags
// that change it.
func TestServeEdgeLLMLongestPrompt(t *testing.T) {
	base := []string{"serve", "--runtime", "tensorrt-edge-llm", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-8gb", "--weights", "w4a16", "--rate", "0.1", "--requests", "50"}
	if _, errOut, code := runCLI(append(base, "--prompt", "normal:500:100")...); code != 0 {
		t.Errorf("normal:500:100: exit %d, want 0:\n%s", code, errOut)
	}
	_, errOut, code := runCLI(append(base, "--prompt", "uniform:1:200000")...)
	for _, want := range []string{"activations (of a pass of the longest prompt, 131072 tokens)", "hint: tensorrt-edge-llm prefills each prompt in one pass", "--ubatch N"} {
		if code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("uniform:1:200000: exit %d, stderr lacks %q:\n%s", code, want, errOut)
		}
	}
}

// predict --batch under TensorRT Edge-LLM runs static batches of up to
// maxBatchSize 4 (its [scheduler], as serve prices them): --batch 3 is one
// batch in lockstep, its note says so; --batch 6 is a batch of 4, then
// one of 2, its TTFT, TPOT, E2E, memory and energy per token the first
// batch's, the same numbers as --batch 4's. Energy per token is the
// profile's 60 W over the sequences decoding at once: 60 × TPOT / 3 at
// --batch 3, 60 × TPOT / 4 at --batch 6 (where it priced them one at a
// time, 60 × TPOT). RKLLM, which runs one sequence at a time, keeps
// queuing.
func TestEdgeLLMStaticBatch(t *testing.T) {
	edge := []string{"--model", "qwen3-4b", "--hardware", "jetson-agx-orin-64gb", "--runtime", "edge-llm", "--weights", "w4a16"}
	at := func(b string) map[string]any { return predictOut(t, append(edge, "--batch", b)...) }
	three, four, six := at("3"), at("4"), at("6")
	num := func(j map[string]any, path ...string) float64 {
		for _, k := range path[:len(path)-1] {
			j = j[k].(map[string]any)
		}
		return j[path[len(path)-1]].(float64)
	}
	same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
	for _, k := range [][]string{{"ttft_s"}, {"tpot_s"}, {"e2e_s"}, {"throughput_tokens_per_s"}, {"memory", "kv_bytes"}, {"memory", "total_bytes"}, {"energy", "joules_per_token"}} {
		if a, b := num(six, k...), num(four, k...); !same(a, b) {
			t.Errorf("%v: %g at --batch 6, want --batch 4's %g (its first batch)", k, a, b)
		}
	}
	for _, c := range []struct {
		j    map[string]any
		seqs float64
	}{{three, 3}, {six, 4}} {
		if jt, tpot := num(c.j, "energy", "joules_per_token"), num(c.j, "tpot_s"); !same(jt, 60*tpot/c.seqs) {
			t.Errorf("joules_per_token %g, want 60 W × %g s / %g = %g", jt, tpot, c.seqs, 60*tpot/c.seqs)
		}
	}
	// The engine's KV cache is allocated for its 4 rows of 4096
	// tokens whatever the batch (kv_pool): 4 × 4096 × 147 456 B
	// (Qwen3-4B's f16 KV a token) = 2 415 919 104 B at --batch 3 and 4.
	if a, b := num(three, "memory", "kv_bytes"), num(four, "memory", "kv_bytes"); a != 2415919104 || b != a {
		t.Errorf("KV cache %g at --batch 3 and %g at --batch 4, want the engine's 4 × 4096 tokens, 2415919104 B, at both", a, b)
	}
	for _, c := range []struct {
		args      []string
		want, not string
	}{
		{append(edge, "--batch", "3"), "tensorrt-edge-llm runs the 3 sequences as one static batch (up to 4)", "queue"},
		{append(edge, "--batch", "6"), "tensorrt-edge-llm runs static batches of up to 4 sequences (an engine built with --maxBatchSize 4, the builder's default): the 6 sequences run as a batch of 4 and one of 2, one after another", "slow bound"},
		{[]string{"--model", "llama-3.2-1b", "--hardware", "rk3588", "--runtime", "rkllm", "--weights", "w8a8", "--batch", "2"},
			"rkllm runs one sequence at a time: the 2 sequences queue", "static batch"},
	} {
		out, errOut, code := runCLI(append([]string{"predict"}, c.args...)...)
		if code != 0 || !strings.Contains(out, c.want) || strings.Contains(out, c.not) {
			t.Errorf("%v: exit %d, want %q and not %q:\n%s%s", c.args, code, c.want, c.not, out, errOut)
		}
	}
}
