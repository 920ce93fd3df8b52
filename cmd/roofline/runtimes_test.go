package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
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
// no fp16 rate, so the profile derives one (the INT8 rate: fp16-activation
// products run no slower than int8 ones there), and every output says so.
func TestPredictDerivedPeak(t *testing.T) {
	args := []string{"--model", "qwen2.5-1.5b", "--hardware", "rk3576", "--engine", "npu", "--weights", "w4a16"}
	j := predictOut(t, args...)
	in := j["inputs"].(map[string]any)
	if in["runtime"] != "rkllm" || in["engine"] != "npu" || in["precision"] != "fp16" {
		t.Errorf("runtime %v, engine %v, precision %v; want rkllm, npu, fp16", in["runtime"], in["engine"], in["precision"])
	}
	// [D] the 6 TOPS INT8 rate: 6 TFLOP/s.
	if in["peak_ops_per_s"] != 6e12 || in["peak_derived"] != true || !strings.HasPrefix(in["peak_source"].(string), "[D] the INT8 rate") {
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
	for _, want := range []string{"fp16 at 6.00 TFLOP/s (dense peak, derived: see the note)", "fp16 peak (6.00 TFLOP/s) is derived, not a datasheet figure: the INT8 rate"} {
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
		"efficiency per engine kind", "[L8] ggml-org/llama.cpp common/arg.cpp"} {
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

// Bad runtime input names the flag or the file and line, with the
// nearest names as a hint: an unknown runtime or a broken profile exits 1,
// as an unknown model or device and a broken profile of theirs do; a
// runtime that cannot run the format on the engine exits 2, a usage
// error of the flags together.
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
		code int
		want []string
	}{
		{append([]string{"predict", "--runtime", "vlm"}, hw...), exitError,
			[]string{`--runtime: unknown runtime "vlm"; did you mean vllm`, "hint: 'roofline list runtimes'"}},
		{append([]string{"predict", "--runtime", "mlc", "--weights", "q4_k_m"}, hw...), exitUsage,
			[]string{"--runtime: runtime mlc does not run weight format q4_k_m (it runs q4f16_1, q4f16_ft, f16)"}},
		// q4f16_ft is CUDA's alone: MLC's engine on a Mali GPU lists its own formats.
		{[]string{"predict", "--model", "llama-3.2-1b", "--hardware", "rk3588", "--engine", "gpu", "--weights", "q4f16_ft"}, exitUsage,
			[]string{"--weights: no runtime runs q4f16_ft on the rk3588 gpu engine", "mlc does not run q4f16_ft on the gpu engine (it runs q4f16_1, f16 there)"}},
		{[]string{"predict", "--model", "llama-3.2-1b", "--hardware", "rk3588", "--engine", "gpu", "--weights", "w8a8"}, exitUsage,
			[]string{"--weights: no runtime runs w8a8 on the rk3588 gpu engine", "mlc on gpu runs q4f16_1, f16)"}},
		{[]string{"predict", "--model", "llama-3.1-8b", "--hardware", "rk3588", "--engine", "npu", "--weights", "w4a16"}, exitUsage,
			[]string{"--weights: no runtime runs w4a16 on the rk3588 npu engine", "rkllm runs w4a16, but the npu engine has no fp16 peak"}},
		{append([]string{"predict", "--runtime", unknownKey}, hw...), exitError,
			[]string{"--runtime: ", "unknown-key.toml:9:", `unknown key "batching"`}},
		{append([]string{"chat", "--runtime", noSource}, hw...), exitError,
			[]string{"no-source.toml:11:", `memory_overhead source "[R1] draft" says nothing beyond its reference tags`}},
		{[]string{"show", "runtime", "tensorrt"[:6]}, exitError, []string{`unknown runtime "tensor"; did you mean tensorrt-edge-llm, tensorrt-llm`}},
		{[]string{"plan", "--runtime", "llama.cpp,vlm", "--model", "llama-3.2-1b", "--hardware", "rtx-4090"}, exitError,
			[]string{`--runtime: unknown runtime "vlm"`}},
		{[]string{"compare", "testdata/m2ultra-xd-runs.csv", "--runtime", "vlm"}, exitError, []string{`--runtime: unknown runtime "vlm"`}},
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
	// A good user runtime profile is used by path.
	good := write("good.toml", string(base))
	j := predictOut(t, "--runtime", good, "--model", "llama-3.2-1b", "--weights", "q4_k_m", "--hardware", "rtx-4090")
	if in := j["inputs"].(map[string]any); in["runtime"] != "my-runtime" {
		t.Errorf("runtime %v, want my-runtime", in["runtime"])
	}
}

// llamaBenchRow is one llama-bench JSONL record of a decode test.
func llamaBenchRow(modelType string, size, params float64, gen int) string {
	return fmt.Sprintf(`{"build_commit":"2f68ce7cf","build_number":6918,"backends":"CUDA","model_filename":"m.gguf","model_type":%q,"model_size":%.0f,"model_n_params":%.0f,"n_batch":2048,"n_ubatch":512,"type_k":"f16","type_v":"f16","n_gpu_layers":99,"flash_attn":true,"n_prompt":0,"n_gen":%d,"n_depth":0,"avg_ns":1000000000,"avg_ts":150.0}`+"\n",
		modelType, size, params, gen)
}

func streamedPerStep(t *testing.T, args ...string) (float64, []any) {
	t.Helper()
	out, errOut, code := runCLI(append([]string{"compare", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("compare %v: exit %d: %s", args, code, errOut)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	b, _ := rows[0]["streamed_weight_bytes_per_step"].(float64)
	notes, _ := rows[0]["notes"].([]any)
	return b, notes
}

// A llama-bench row of a gpt-oss file is priced as that exact file: the
// bytes one decode step streams are those `show model` gives for the
// file itself, with no whole-file scale factor (issue 14, item 5).
func TestCompareGptOssFile(t *testing.T) {
	dir := t.TempDir()
	gguf := writeGGUF(t, dir, "gpt-oss-20b", "mxfp4_moe")
	out, errOut, code := runCLI("show", "model", gguf, "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var file struct {
		Weights  float64 `json:"weight_bytes"`
		Streamed float64 `json:"streamed_bytes_per_token"`
		Params   float64 `json:"params_total"`
	}
	if err := json.Unmarshal([]byte(out), &file); err != nil {
		t.Fatal(err)
	}
	// The file's tensors: 72 mxfp4 expert tensors, 98 q8_0 matrices, 289
	// f32 norms and biases = 12,096,558,336 B (the 11.27 GiB llama-bench
	// reports for ggml-org's gpt-oss-20b-mxfp4.gguf).
	if file.Weights != 12096558336 {
		t.Fatalf("file weights %.0f B, want 12096558336", file.Weights)
	}
	bench := filepath.Join(dir, "bench.jsonl")
	if err := os.WriteFile(bench, []byte(llamaBenchRow("gpt-oss 20B MXFP4 MoE", file.Weights, file.Params, 128)), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := streamedPerStep(t, bench, "--hardware", "rtx-4090")
	if got != file.Streamed {
		t.Errorf("compare streams %.0f B per step, the file %.0f B", got, file.Streamed)
	}
	byFile, _ := streamedPerStep(t, bench, "--hardware", "rtx-4090", "--model", gguf)
	if byFile != file.Streamed {
		t.Errorf("compare --model FILE streams %.0f B per step, the file %.0f B", byFile, file.Streamed)
	}

	// A Q4_K_M file 1 % larger than the recipe (another quantizer
	// version or an importance matrix): only the tensors whose type the
	// recipe is unsure of absorb it. The MXFP4 experts are certain, so the
	// bytes per step grow by far less than the file's 1 %, and the note
	// says which tensors absorbed how much.
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := cat.Model("gpt-oss-20b")
	recipe, err := model.BuildNamed(spec, "q4_k_m", "f16", model.Layout{})
	if err != nil {
		t.Fatal(err)
	}
	size := math.Round(1.01 * recipe.WeightBytes) // llama-bench writes whole bytes
	fitted, fit := recipe.FitTo(size)
	if !fit.Absorbed {
		t.Fatalf("a 1 %% difference was not absorbed: %+v", fit)
	}
	if err := os.WriteFile(bench, []byte(llamaBenchRow("gpt-oss 20B Q4_K - Medium", size, file.Params, 128)), 0o644); err != nil {
		t.Fatal(err)
	}
	got, notes := streamedPerStep(t, bench, "--hardware", "rtx-4090")
	if want := fitted.StreamedBytesPerToken(); math.Abs(got/want-1) > 1e-12 {
		t.Errorf("q4_k_m file: %.0f B per step, want the fitted %.0f B", got, want)
	}
	// The file's 116 MB more all land on tensors every token reads (head,
	// attention, embedding rows), not 1 % of the 4-of-32 experts a token
	// reads: the step grows by more than 1 %, unlike a whole-file scale.
	if whole := 1.01 * recipe.StreamedBytesPerToken(); math.Abs(got-whole) < 1e6 {
		t.Errorf("q4_k_m file: %.0f B per step, as if the whole file were scaled (%.0f B)", got, whole)
	}
	var fitNote string
	for _, n := range notes {
		if s := n.(string); strings.Contains(s, "matched to the file") {
			fitNote = s
		}
	}
	for _, want := range []string{"+1.00 % from the q4_k_m recipe", "token_embd +", "output +", "attn_v +"} {
		if !strings.Contains(fitNote, want) {
			t.Errorf("fit note %q lacks %q", fitNote, want)
		}
	}
	if strings.Contains(fitNote, "ffn_down_exps") {
		t.Errorf("the MXFP4 experts absorbed part of the file: %q", fitNote)
	}
}

// MBU stays at or under 100 % on every public row: bytes per step are
// never understated for the runs roofline is scored on.
func TestPublicRunsMBU(t *testing.T) {
	out, errOut, code := runCLI("compare", "testdata/public/runs.csv", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 300 {
		t.Fatalf("only %d rows compared", len(rows))
	}
	worst, worstRow := 0.0, ""
	for _, r := range rows {
		mbu, ok := r["mbu"].(float64)
		if !ok {
			continue
		}
		if mbu > worst {
			worst, worstRow = mbu, fmt.Sprint(r["source"], " ", r["hardware"], " ", r["model"], " ", r["weights"], " ", r["test"])
		}
		if mbu > 1 {
			t.Errorf("%v on %v (%v %v %v): MBU %.1f %%", r["source"], r["hardware"], r["model"], r["weights"], r["test"], 100*mbu)
		}
	}
	t.Logf("%d rows, highest MBU %.1f %% (%s)", len(rows), 100*worst, worstRow)
}

// show model --file-size matches a recipe to a published file and says
// which tensors absorbed how much: gpt-oss-20b Q4_K_M, recipe
// 11,611,750,656 B, matched to 11.7 GB: the head, embedding, attn_v and
// attn_output (1,203,701,760 B together) scale by
// 1 + 88,249,344 / 1,203,701,760 = ×1.0733; the experts do not move.
func TestShowModelFileSize(t *testing.T) {
	out, errOut, code := runCLI("show", "model", "gpt-oss-20b", "--weights", "q4_k_m", "--file-size", "11.7GB", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var j struct {
		Weights float64 `json:"weight_bytes"`
		Fit     struct {
			Factor  float64 `json:"factor"`
			Changes []struct {
				Role string  `json:"role"`
				From float64 `json:"recipe_bytes"`
				To   float64 `json:"file_bytes"`
			} `json:"changes"`
		} `json:"file_fit"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.Weights != 11.7e9 || math.Abs(j.Fit.Factor-(1+88249344.0/1203701760)) > 1e-12 {
		t.Errorf("weights %.0f, factor %.6f", j.Weights, j.Fit.Factor)
	}
	var roles []string
	var from float64
	for _, c := range j.Fit.Changes {
		roles = append(roles, c.Role)
		from += c.From
	}
	if strings.Join(roles, ",") != "token_embd,attn_v,attn_output,output" || from != 1203701760 {
		t.Errorf("roles %v absorbed from %.0f B", roles, from)
	}
	text, _, _ := runCLI("show", "model", "gpt-oss-20b", "--weights", "q4_k_m", "--file-size", "11.7GB")
	if !strings.Contains(text, "matched to the file's 10.9 GiB (+0.76 % from the q4_k_m recipe)") {
		t.Errorf("text lacks the match:\n%s", text)
	}
	// One rule and one text with compare's note (TestCompareGptOssFile):
	// a size within model.FileTolerance of the recipe (11,611,750,656 B;
	// 11.65 GB is +0.33 %) is the recipe.
	out, _, _ = runCLI("show", "model", "gpt-oss-20b", "--weights", "q4_k_m", "--file-size", "11.65GB", "--format", "json")
	var within struct {
		Weights float64 `json:"weight_bytes"`
		Fit     struct {
			Within bool `json:"within_tolerance"`
		} `json:"file_fit"`
	}
	if err := json.Unmarshal([]byte(out), &within); err != nil || within.Weights != 11611750656 || !within.Fit.Within {
		t.Errorf("11.65 GB: %v, %+v", err, within)
	}
	text, _, _ = runCLI("show", "model", "gpt-oss-20b", "--weights", "q4_k_m", "--file-size", "11.65GB")
	if !strings.Contains(text, "the file's 10.8 GiB is within 0.5 % of the q4_k_m recipe (+0.33 %): priced at the recipe") || strings.Contains(text, "ROLE") {
		t.Errorf("11.65 GB:\n%s", text)
	}
	// A file's own types are exact: nothing to match.
	gguf := writeGGUF(t, t.TempDir(), "llama-3.2-1b", "q4_k_m")
	if _, errOut, code := runCLI("show", "model", gguf, "--file-size", "1GB"); code != 2 || !strings.Contains(errOut, "--file-size: the model is a file") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// show model --file-size reads a tied model's file that stores its head
// apart as untied (model.Cost.FitTo): edge-format-tax's Qwen2.5-0.5B
// Q4_0 file, 428,730,208 B, is the tied recipe plus a Q4_0 token_embd of
// 151,936 × 896 × 18/32 = 76,575,744 B (llama-quantize's 73.03 MiB), and
// 1.4 % of metadata and small tensors; its decode step streams the Q8_0
// head (137.94 MiB) as the tied recipe does, not the second table.
func TestShowModelUntiedFile(t *testing.T) {
	tied, _, _ := runCLI("show", "model", "qwen2.5-0.5b", "--weights", "q4_0", "--format", "json")
	out, errOut, code := runCLI("show", "model", "qwen2.5-0.5b", "--weights", "q4_0", "--file-size", "428730208B", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	type shown struct {
		Weights  float64 `json:"weight_bytes"`
		Streamed float64 `json:"streamed_bytes_per_token"`
		Fit      struct {
			Untied      bool    `json:"untied"`
			UntiedBytes float64 `json:"untied_recipe_bytes"`
			Recipe      float64 `json:"recipe_bytes"`
		} `json:"file_fit"`
	}
	var r, f shown
	if err := json.Unmarshal([]byte(tied), &r); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &f); err != nil {
		t.Fatal(err)
	}
	if !f.Fit.Untied || f.Fit.UntiedBytes != f.Fit.Recipe+76575744 || f.Weights != 428730208 {
		t.Errorf("untied %v, untied recipe %.0f B (tied %.0f B), weights %.0f B", f.Fit.Untied, f.Fit.UntiedBytes, f.Fit.Recipe, f.Weights)
	}
	// One row of the Q4_0 table (896 × 18/32 = 504 B) beside the tied
	// recipe's step, and the ≤ 2 % the uncertain tensors absorb.
	if q := f.Streamed / (r.Streamed + 504); q < 1 || q > 1.02 {
		t.Errorf("streams %.0f B a step against the tied recipe's %.0f B", f.Streamed, r.Streamed)
	}
	text, _, _ := runCLI("show", "model", "qwen2.5-0.5b", "--weights", "q4_0", "--file-size", "428730208B")
	if !strings.Contains(text, "the file stores the output head apart from the embedding table") || !strings.Contains(text, "embeddings:     untied") {
		t.Errorf("text lacks the untied reading:\n%s", text)
	}
}

// Measured runs carry their runtime: llama-bench and llama-batched-bench
// are llama.cpp, a vLLM benchmark is vllm, without being told.
func TestCompareKnowsRuntime(t *testing.T) {
	for _, c := range []struct {
		args    []string
		runtime string
	}{
		{[]string{"internal/measured/testdata/rtx4080-qwen2.5-7b.json", "--hardware", "rtx-4080"}, "llama.cpp"},
		{[]string{"internal/measured/testdata/batched-bench.txt", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--weights", "q4_k_m"}, "llama.cpp"},
		{[]string{"internal/measured/testdata/vllm-summary.json", "--hardware", "h100-sxm", "--model", "llama-3.1-8b"}, "vllm"},
	} {
		out, errOut, code := runCLI(append([]string{"compare", "--format", "json"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		var rows []struct {
			Runtime string `json:"runtime"`
			Why     string `json:"runtime_why"`
		}
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.Runtime != c.runtime || !strings.Contains(r.Why, "measured runs name it") {
				t.Errorf("%v: runtime %q (%s), want %s from the file", c.args[0], r.Runtime, r.Why, c.runtime)
			}
		}
	}
}
