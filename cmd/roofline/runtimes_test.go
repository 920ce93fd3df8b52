package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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

func TestListAndShowRuntimes(t *testing.T) {
	out, errOut, code := runCLI("list", "runtimes")
	if code != 0 {
		t.Fatal(errOut)
	}
	golden(t, "list-runtimes.stdout", out)

	out, errOut, code = runCLI("show", "runtime", "ollama") // an alias
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"runtime:     llama.cpp", "file:        profiles/runtimes/llama.cpp.toml",
		"honoured for gemma2, gemma3, gemma3_text, gpt_oss, cohere2; full attention for other models",
		"window + micro-batch, rounded up to 256", "[L2] a sliding layer caches its window plus one micro-batch",
		"an untied input table stays in host memory", "a model published in mxfp4 runs as mxfp4_moe",
		"efficiency per engine kind", "[L7] ggml-org/llama.cpp ggml/src/ggml-cuda/mmvq.cuh"} {
		if !strings.Contains(out, want) {
			t.Errorf("show runtime lacks %q:\n%s", want, out)
		}
	}
	out, errOut, code = runCLI("show", "runtime", "vllm", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var j struct {
		Name  string `json:"name"`
		Rules []struct {
			Key, Value, Source string
		} `json:"rules"`
		Classes []struct {
			Class string `json:"class"`
		} `json:"efficiency"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	sourced := map[string]bool{}
	for _, r := range j.Rules {
		sourced[r.Key] = r.Source != ""
	}
	for _, k := range []string{"formats", "engine.gpu", "layout.sliding_window", "layout.window_cache", "layout.mla_cache", "continuous_batching", "memory_overhead", "memory_share", "kernel.0"} {
		if !sourced[k] {
			t.Errorf("vllm rule %s missing or unsourced in %v", k, j.Rules)
		}
	}
	if j.Name != "vllm" || len(j.Classes) != 1 || j.Classes[0].Class != "gpu" {
		t.Errorf("name %q, classes %v", j.Name, j.Classes)
	}
}

// Bad runtime input is a usage error (exit 2) that names the flag or
// the file and line, with the nearest names as a hint.
func TestRuntimeBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base, err := os.ReadFile("../../profiles/testdata/runtime-base.toml.txt")
	if err != nil {
		t.Fatal(err)
	}
	unknownKey := write("unknown-key.toml", strings.Replace(string(base), `default_kv = "f16"`, "default_kv = \"f16\"\nbatching = true", 1))
	noSource := write("no-source.toml", strings.Replace(string(base), `source = "[R1] a context of one hundred MiB"`, `source = "[R1] draft"`, 1))
	hw := []string{"--model", "llama-3.1-8b", "--hardware", "h100-sxm"}
	cases := []struct {
		args []string
		want []string
	}{
		{append([]string{"predict", "--runtime", "vlm"}, hw...),
			[]string{`--runtime: unknown runtime "vlm"; did you mean vllm`, "hint: 'roofline list runtimes'"}},
		{append([]string{"predict", "--runtime", "mlc", "--weights", "q4_k_m"}, hw...),
			[]string{"--runtime: runtime mlc does not run weight format q4_k_m (it runs q4f16_1, f16)"}},
		{[]string{"predict", "--model", "llama-3.1-8b", "--hardware", "rk3588", "--engine", "npu", "--weights", "w4a16"},
			[]string{"--weights: no runtime runs w4a16 on the rk3588 npu engine", "rkllm runs w4a16, but the npu engine has no fp16 peak"}},
		{append([]string{"predict", "--runtime", unknownKey}, hw...),
			[]string{"--runtime: ", "unknown-key.toml:9:", `unknown key "batching"`}},
		{append([]string{"chat", "--runtime", noSource}, hw...),
			[]string{"no-source.toml:11:", `memory_overhead source "[R1] draft" says nothing beyond its reference tags`}},
		{[]string{"show", "runtime", "tensorrt"[:6]}, []string{`unknown runtime "tensor"; did you mean tensorrt-llm`}},
		{[]string{"plan", "--runtime", "llama.cpp,vlm", "--model", "llama-3.2-1b", "--hardware", "rtx-4090"},
			[]string{`--runtime: unknown runtime "vlm"`}},
		{[]string{"compare", "testdata/m2ultra-xd-runs.csv", "--runtime", "vlm"}, []string{`--runtime: unknown runtime "vlm"`}},
	}
	for _, c := range cases {
		_, errOut, code := runCLI(c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2:\n%s", c.args, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, errOut)
			}
		}
	}
	// A good user runtime profile is used by path.
	good := write("good.toml", string(base))
	j := predictOut(t, "--runtime", good, "--model", "llama-3.2-1b", "--weights", "q4_k_m", "--hardware", "rtx-4090")
	if in := j["inputs"].(map[string]any); in["runtime"] != "my-runtime" {
		t.Errorf("runtime %v, want my-runtime", in["runtime"])
	}
}
