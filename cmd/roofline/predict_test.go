package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPredictGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"predict-llama-3.2-3b-orin-nano-super.stdout", []string{"predict", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m", "--prompt", "1000", "--output-tokens", "200"}},
		{"predict-qwen2.5-1.5b-rk3588-npu.md", []string{"predict", "--model", "qwen2.5-1.5b", "--hardware", "rk3588", "--engine", "npu", "--weights", "w8a8", "--format", "markdown"}},
		{"predict-llama-3.1-70b-orin-nano.stdout", []string{"predict", "--model", "llama-3.1-70b", "--hardware", "jetson-orin-nano-8gb", "--cold", "--batch", "2"}},
		{"predict-llama-3.1-8b-h100.csv", []string{"predict", "-m", "llama-3.1-8b", "--hw", "h100-sxm", "--batch", "32", "--prompt", "2048", "--format", "csv"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(c.args...)
			// A 70B model does not fit an 8 GB board: exit 3.
			if want := map[bool]int{true: 3}[strings.Contains(c.name, "70b")]; code != want {
				t.Fatalf("exit %d, want %d: %s", code, want, errOut)
			}
			golden(t, c.name, out)
		})
	}
}

func TestPredictJSONKeys(t *testing.T) {
	out, errOut, code := runCLI("predict", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m",
		"--prompt", "1000", "--output-tokens", "200", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ttft_s", "tpot_s", "e2e_s", "itl_first_s", "itl_last_s", "prefill_tokens_per_s", "decode_tokens_per_s",
		"throughput_tokens_per_s", "ttft_bound_s", "tpot_bound_s", "prefill_bound", "decode_bound", "load_s", "memory", "inputs"} {
		if _, ok := j[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
	mem, _ := j["memory"].(map[string]any)
	for _, k := range []string{"weights_bytes", "kv_bytes", "activations_bytes", "overhead_bytes", "total_bytes", "usable_bytes", "fits"} {
		if _, ok := mem[k]; !ok {
			t.Errorf("memory.%s missing", k)
		}
	}
	in, _ := j["inputs"].(map[string]any)
	if in["model"] != "llama-3.2-3b" || in["weights"] != "q4_k_m" || in["precision"] != "fp16" || in["prompt"] != 1000.0 {
		t.Errorf("inputs %v", in)
	}
	ttft, _ := j["ttft_s"].(float64)
	bound, _ := j["ttft_bound_s"].(float64)
	if !(bound > 0 && bound <= ttft) {
		t.Errorf("ttft %v, bound %v", ttft, bound)
	}
}

func TestPredictErrors(t *testing.T) {
	base := []string{"predict", "--model", "llama-3.2-3b", "--hardware", "rk3588"}
	cases := []struct {
		extra []string
		code  int
		has   string
	}{
		{[]string{"--prompt", "0"}, 2, "--prompt must be at least 1"},
		{[]string{"--output-tokens", "-5"}, 2, "--output-tokens"},
		{[]string{"--batch", "0"}, 2, "--batch must be at least 1"},
		{[]string{"--depth", "-1"}, 2, "--depth"},
		{[]string{"--ubatch", "0"}, 2, "--ubatch must be at least 1"},
		{[]string{"--bw-efficiency", "NaN"}, 2, `invalid value "NaN" for flag --bw-efficiency: "NaN" is not a finite decimal number`},
		{[]string{"--compute-efficiency", "1.5"}, 2, "--compute-efficiency must be 0.0001 to 1, got 1.5"},
		{[]string{"--bw-efficiency", "-0.2"}, 2, "--bw-efficiency must be 0.0001 to 1, got -0.2"},
		{[]string{"--bw-efficiency", "1e-300"}, 2, "--bw-efficiency must be 0.0001 to 1, got 1e-300"},
		{[]string{"--engine", "tpu"}, 2, `--engine: device rk3588 has no engine "tpu"`},
		// A format no runtime runs on the engine is a bad flag value: 2.
		{[]string{"--engine", "npu", "--weights", "bf16"}, 2, "--weights: no runtime runs bf16 on the rk3588 npu engine (rkllm on npu runs w8a8, w4a16)"},
		{[]string{"--weights", "q9"}, 1, `unknown weight format "q9"`},
		{[]string{"--overhead", "lots"}, 2, "--overhead"},
		{[]string{"--format", "xml"}, 2, `--format "xml"`},
		{[]string{"extra"}, 2, `unexpected argument "extra"`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.extra, " "), func(t *testing.T) {
			out, errOut, code := runCLI(append(append([]string{}, base...), c.extra...)...)
			if code != c.code || out != "" || !strings.Contains(errOut, c.has) {
				t.Errorf("exit %d (want %d), stdout %q, stderr %q (want %q)", code, c.code, out, errOut, c.has)
			}
		})
	}
	// Missing required flags.
	if _, errOut, code := runCLI("predict", "--model", "llama-3.2-3b"); code != 2 || !strings.Contains(errOut, "hardware") {
		t.Errorf("missing --hardware: %d %q", code, errOut)
	}
	// Warnings go to stderr as footnotes when stdout is JSON; the result is
	// still printed, and as 200,000 tokens do not fit, exit 3.
	out, errOut, code := runCLI(append(base, "--output-tokens", "1", "--depth", "200000", "--format", "json")...)
	if code != 3 || !strings.Contains(errOut, "roofline: warning: one output token") || !strings.Contains(errOut, "exceeds the model's maximum") || !strings.Contains(out, `"tpot_s": null`) {
		t.Errorf("warnings: %d %q %q", code, errOut, out)
	}
}

// TestIdealNamesItsPeak: llama-3.2-3b q4_k_m on an Orin Nano Super runs
// llama.cpp's fp16 kernels (16.7 TFLOP/s), but its ideal TTFT is the
// int8 bound the format allows (33.4 TOP/s): 2.93 TFLOP / 33.4 TOP/s =
// 87.8 ms. predict printed only "fp16 at 16.7 TFLOP/s", compare an IDEAL
// at int8 beside an MFU of fp16. Every figure now names its peak, in text,
// Markdown and JSON.
func TestIdealNamesItsPeak(t *testing.T) {
	args := []string{"predict", "--hardware", "jetson-orin-nano-super-8gb", "--model", "llama-3.2-3b", "--weights", "q4_k_m"}
	text, _, _ := runCLI(args...)
	md, _, _ := runCLI(append(args, "--format", "markdown")...)
	for _, out := range []string{text, md} {
		if !strings.Contains(out, "IDEAL at int8 33.4 TOP/s") || !strings.Contains(out, "ideal at int8 33.4 TOP/s and 102 GB/s") {
			t.Errorf("the ideal's peak is not named:\n%s", out)
		}
	}
	j := predictOut(t, args[1:]...)
	pre := j["prefill"].(map[string]any)
	if pre["ideal_precision"] != "int8" || pre["precision"] != "fp16" {
		t.Errorf("prefill JSON: precision %v, ideal %v", pre["precision"], pre["ideal_precision"])
	}
	if got, want := j["ttft_bound_s"].(float64), pre["flops"].(float64)/pre["ideal_peak_ops_per_s"].(float64); math.Abs(got/want-1) > 1e-9 {
		t.Errorf("ideal TTFT %g s, flops / ideal peak %g s", got, want)
	}

	dir := t.TempDir()
	runs := filepath.Join(dir, "runs.json")
	row := `{"build_commit":"abc","build_number":5000,"backends":"CUDA","model_filename":"m.gguf","model_type":"llama 3B Q4_K - Medium","model_n_params":3212749824,"n_ubatch":512,"type_k":"f16","n_gpu_layers":99,"flash_attn":true,"n_prompt":512,"n_gen":0,"n_depth":0,"avg_ts":850}`
	if err := os.WriteFile(runs, []byte("["+row+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("compare", runs, "--hardware", "jetson-orin-nano-super-8gb")
	if code != 0 || !strings.Contains(out, "fp16 at 16.7 TFLOP/s for predictions and MFU, int8 at 33.4 TOP/s for the ideal prefill") ||
		!strings.Contains(out, "5832 t/s (int8)") || !strings.Contains(out, "MFU 29% of fp16") {
		t.Errorf("compare does not name its peaks (exit %d):\n%s%s", code, out, errOut)
	}
}

// TestOffloadIdealNote: an offloaded model's ideal TTFT is mostly its
// host layers' weights crossing PCIe (sim's TestOffloadIdealNamesTheLink),
// not the GPU's peaks; the note under BOUND says so, naming the link, its
// datasheet rate and the bytes, in text and in JSON. The TPOT note names
// the host's memory that decode reads those layers from. A model on one
// GPU keeps the peaks.
func TestOffloadIdealNote(t *testing.T) {
	out, errOut, code := runCLI("predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--weights", "q4_k_m")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	line := func(prefix string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		t.Fatalf("no %q line in\n%s", prefix, out)
		return ""
	}
	if l := line("TTFT "); !strings.Contains(l, "ideal bound by ") || !strings.Contains(l, " over pcie4-x16 at 31.5 GB/s: ") || strings.Contains(l, "ideal at int8") {
		t.Errorf("the TTFT note does not name the link the ideal is spent on:\n%s", l)
	}
	if l := line("TPOT "); !strings.Contains(l, "a step from desktop-ddr5 cpu's memory at 89.6 GB/s: ") {
		t.Errorf("the TPOT note does not name the host memory decode reads:\n%s", l)
	}
	js, _, _ := runCLI("predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--weights", "q4_k_m", "--format", "json")
	if !strings.Contains(js, `"ideal_ttft_largest_part": {
      "where": "pcie4-x16",
      "link": true,`) {
		t.Errorf("the JSON has no ideal_ttft_largest_part on pcie4-x16")
	}
	one, _, _ := runCLI("predict", "--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--weights", "q4_k_m")
	if !strings.Contains(one, "; ideal at int8 661 TOP/s and 1.01 TB/s") || strings.Contains(one, "ideal bound by") {
		t.Errorf("a model on one GPU lost its ideal peaks:\n%s", one)
	}
}

// TestMoEDecodeIntervalLabelled: an MoE decode on the llama.cpp CUDA
// class takes the class's 80 % interval joined with the full range of its
// MoE decode runs held out of scope (0.723-2.3 × the predicted TPOT); that
// holds more than 80 %, so TPOT and E2E, which it enters, are labelled
// "80% widened", TTFT keeps "80%", and JSON lists the widened intervals.
// A dense model's intervals are not widened.
func TestMoEDecodeIntervalLabelled(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"--model", "qwen3-30b-a3b", "--hardware", "rtx-4090", "--weights", "q4_k_m"},
			[]string{"TPOT (mean ITL)   2.93 ms (80% widened: ", "E2E                  428 ms (80% widened: ", "TTFT                      56.0 ms (80%: "}, nil},
		// Offloaded: the GPU stage's part is widened, and with it the
		// whole decode's interval.
		{[]string{"--model", "qwen3-30b-a3b", "--hardware", "rtx-4060-ti", "--weights", "q4_k_m", "--cpu-moe"},
			[]string{"(80% widened: 24.4 ms–64.8 ms)"}, nil},
		{[]string{"--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--weights", "q4_k_m"}, nil, []string{"widened"}},
	} {
		out, errOut, code := runCLI(append([]string{"predict"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in\n%s", c.args, w, out)
			}
		}
		for _, w := range c.not {
			if strings.Contains(out, w) {
				t.Errorf("%v: %q in\n%s", c.args, w, out)
			}
		}
	}
	out, _, _ := runCLI("predict", "--model", "qwen3-30b-a3b", "--hardware", "rtx-4090", "--weights", "q4_k_m", "--format", "json")
	var j struct {
		Level   float64  `json:"interval_level"`
		Widened []string `json:"intervals_widened"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.Level != 0.8 || strings.Join(j.Widened, ",") != "tpot,e2e,throughput" {
		t.Errorf("JSON: level %v, widened %v; want 0.8 and tpot,e2e,throughput", j.Level, j.Widened)
	}
}

// TestMoEDecodeWidenedInPlanAndServe: plan and serve label the widened MoE
// decode interval as predict does. plan's TPOT slow end is the slow end of
// the "80% widened" interval, and a configuration's JSON lists "tpot" in
// intervals_widened; serve's RANGE and max-rate ranges are at the ends of
// the "80% widened" interval, and its JSON lists "interval" and "max_rate".
// A dense model's are labelled "80%" and list none.
func TestMoEDecodeWidenedInPlanAndServe(t *testing.T) {
	for _, c := range []struct {
		model   string
		widened bool
	}{{"qwen3-30b-a3b", true}, {"llama-3.1-8b", false}} {
		planArgs := []string{"plan", "--hardware", "rtx-4090", "--model", c.model, "--weights", "q4_k_m", "--context", "1k", "--ttft", "1s", "--tpot", "50ms"}
		out, errOut, code := runCLI(planArgs...)
		if code != 0 {
			t.Fatalf("%s: plan: exit %d: %s", c.model, code, errOut)
		}
		if got := strings.Contains(out, "slow end") && strings.Contains(out, "under, 80% widened)"); got != c.widened {
			t.Errorf("%s: plan labels its TPOT slow end widened: %v, want %v:\n%s", c.model, got, c.widened, out)
		}
		out, errOut, code = runCLI(append(planArgs, "--format", "json")...)
		if code != 0 {
			t.Fatalf("%s: plan JSON: exit %d: %s", c.model, code, errOut)
		}
		var pj struct {
			Configs []struct {
				Widened []string `json:"intervals_widened"`
			} `json:"configs"`
			Best []struct {
				Widened []string `json:"intervals_widened"`
			} `json:"best"`
		}
		if err := json.Unmarshal([]byte(out), &pj); err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{true: "tpot", false: ""}[c.widened]
		if len(pj.Configs) != 1 || len(pj.Best) != 1 || strings.Join(pj.Configs[0].Widened, ",") != want || strings.Join(pj.Best[0].Widened, ",") != want {
			t.Errorf("%s: plan JSON's intervals_widened: %+v; want %q", c.model, pj, want)
		}

		serveArgs := []string{"serve", "--model", c.model, "--hardware", "rtx-4090", "--weights", "q4_k_m", "--rate", "0.5", "--requests", "20", "--max-rate"}
		out, errOut, code = runCLI(serveArgs...)
		if code != 0 {
			t.Fatalf("%s: serve: exit %d: %s", c.model, code, errOut)
		}
		for _, w := range []string{"RANGE: the same requests with every step at the fast and the slow end of the prediction's 80% widened interval", "the fast end of the prediction's 80% widened interval:"} {
			if got := strings.Contains(out, w); got != c.widened {
				t.Errorf("%s: serve says %q: %v, want %v:\n%s", c.model, w, got, c.widened, out)
			}
		}
		if !strings.Contains(out, "the prediction's 80%") {
			t.Errorf("%s: serve no longer says its interval's level:\n%s", c.model, out)
		}
		out, errOut, code = runCLI(append(serveArgs, "--format", "json")...)
		if code != 0 {
			t.Fatalf("%s: serve JSON: exit %d: %s", c.model, code, errOut)
		}
		var sj struct {
			Widened []string `json:"intervals_widened"`
		}
		if err := json.Unmarshal([]byte(out), &sj); err != nil {
			t.Fatal(err)
		}
		want = map[bool]string{true: "interval,max_rate", false: ""}[c.widened]
		if got := strings.Join(sj.Widened, ","); got != want {
			t.Errorf("%s: serve JSON's intervals_widened %q, want %q", c.model, got, want)
		}
	}
}
