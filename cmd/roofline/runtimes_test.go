package main

import (
	"strings"
	"testing"
)

// The issue-14 answers that depend on the runtime, through the CLI.

// The largest context that fits never exceeds the model's own maximum:
// gpt-oss-20b on an H100 has room for millions of tokens of its (mostly
// windowed) cache, but max_position_embeddings is 131072.
func TestPredictContextCappedAtModel(t *testing.T) {
	j := predictOut(t, "--model", "gpt-oss-20b", "--hardware", "h100-sxm")
	mem := j["memory"].(map[string]any)
	if mem["max_context"] != 131072.0 || mem["max_context_bound"] != "model" {
		t.Errorf("max_context %v (%v), want 131072 bounded by the model", mem["max_context"], mem["max_context_bound"])
	}
	out, errOut, code := runCLI("predict", "--model", "gpt-oss-20b", "--hardware", "h100-sxm")
	if code != 0 {
		t.Fatal(errOut)
	}
	if !strings.Contains(out, "largest context that fits: 131072 tokens per sequence at batch 1, the model's maximum context") {
		t.Errorf("text does not say the model bounds the context:\n%s", out)
	}
	// Where memory bounds it, it says nothing of the model: Llama-3.1-8B
	// q4_k_m on an 8 GB Orin Nano holds far less than 131072 tokens.
	j = predictOut(t, "--model", "llama-3.1-8b", "--weights", "q4_k_m", "--hardware", "jetson-orin-nano-8gb")
	mem = j["memory"].(map[string]any)
	if mc := mem["max_context"].(float64); mc >= 131072 || mem["max_context_bound"] != "memory" {
		t.Errorf("max_context %v (%v), want a memory bound below 131072", mc, mem["max_context_bound"])
	}
}

// RKLLM w4a16 on the RK3576 NPU runs fp16 x int4 products; Rockchip gives
// no fp16 rate, so the profile derives one, and every output says so.
func TestPredictDerivedPeak(t *testing.T) {
	args := []string{"--model", "qwen2.5-1.5b", "--hardware", "rk3576", "--engine", "npu", "--weights", "w4a16"}
	j := predictOut(t, args...)
	in := j["inputs"].(map[string]any)
	if in["runtime"] != "rkllm" || in["engine"] != "npu" || in["precision"] != "fp16" {
		t.Errorf("runtime %v, engine %v, precision %v; want rkllm, npu, fp16", in["runtime"], in["engine"], in["precision"])
	}
	// [D] half the 6 TOPS INT8 rate: 3 TFLOP/s.
	if in["peak_ops_per_s"] != 3e12 || in["peak_derived"] != true || !strings.HasPrefix(in["peak_source"].(string), "[D] half the INT8 rate") {
		t.Errorf("peak %v derived %v source %q", in["peak_ops_per_s"], in["peak_derived"], in["peak_source"])
	}
	var derived bool
	for _, w := range j["warnings"].([]any) {
		if w.(map[string]any)["code"] == "derived-peak" {
			derived = true
		}
	}
	if !derived {
		t.Errorf("no derived-peak warning in %v", j["warnings"])
	}
	out, errOut, code := runCLI(append([]string{"predict"}, args...)...)
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"fp16 at 3.00 TFLOP/s (dense peak, derived: see the note)", "fp16 peak (3.00 TFLOP/s) is derived, not a datasheet figure: half the INT8 rate"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	// A datasheet peak is not called derived: the H100's 989 TFLOP/s.
	j = predictOut(t, "--model", "llama-3.1-8b", "--hardware", "h100-sxm")
	if in := j["inputs"].(map[string]any); in["peak_derived"] != false {
		t.Errorf("h100 peak derived %v (%q)", in["peak_derived"], in["peak_source"])
	}
}

// A GGUF on an RK3588 runs under llama.cpp, which does not run on the
// Rockchip NPU (the device's default engine): it runs on the CPU, and a
// note says why.
func TestPredictGGUFOnRK3588(t *testing.T) {
	path := writeGGUF(t, t.TempDir(), "qwen2.5-1.5b", "q4_k_m")
	j := predictOut(t, "--model", path, "--hardware", "rk3588")
	in := j["inputs"].(map[string]any)
	if in["runtime"] != "llama.cpp" || in["engine"] != "cpu" || in["weights"] != "file" {
		t.Errorf("runtime %v engine %v weights %v; want llama.cpp on the cpu with the file's types", in["runtime"], in["engine"], in["weights"])
	}
	out, errOut, code := runCLI("predict", "--model", path, "--hardware", "rk3588")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"(cpu engine, llama.cpp)", "llama.cpp: the model is a GGUF file",
		"llama.cpp does not run on the rk3588 npu engine: the model runs on the cpu engine"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}
