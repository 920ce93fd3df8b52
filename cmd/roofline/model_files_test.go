package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roofline/roofline/gguf"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
)

// writeGGUF writes the header llama.cpp would write for a built-in model
// quantized with weights, and returns its path.
func writeGGUF(t *testing.T, dir, name, weights string) string {
	t.Helper()
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	s, err := cat.Model(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := model.LookupWeightFormat(weights)
	if err != nil {
		t.Fatal(err)
	}
	h, err := gguf.HeaderFor(s, w)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+"-"+weights+".gguf")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := gguf.Write(f, h); err != nil {
		t.Fatal(err)
	}
	return path
}

func predictOut(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errOut, code := runCLI(append([]string{"predict", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("predict %v: exit %d: %s", args, code, errOut)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	return j
}

// A GGUF file and a config.json stand in for a built-in model: the same
// bytes, hence the same predictions.
func TestModelFromFiles(t *testing.T) {
	dir := t.TempDir()
	path := writeGGUF(t, dir, "llama-3.2-1b", "q4_k_m")
	hw := []string{"--hardware", "jetson-orin-nano-super-8gb", "--prompt", "512", "--output-tokens", "128"}

	fromFile := predictOut(t, append([]string{"--model", path}, hw...)...)
	builtin := predictOut(t, append([]string{"--model", "llama-3.2-1b", "--weights", "q4_k_m"}, hw...)...)
	for _, k := range []string{"ttft_s", "tpot_s", "e2e_s"} {
		if fromFile[k] != builtin[k] || fromFile[k] == nil {
			t.Errorf("%s: GGUF %v, built-in %v", k, fromFile[k], builtin[k])
		}
	}
	// --weights overrides the file's own types.
	f16 := predictOut(t, append([]string{"--model", path, "--weights", "f16"}, hw...)...)
	if f16["tpot_s"].(float64) <= 2*builtin["tpot_s"].(float64) {
		t.Errorf("f16 TPOT %v not well above q4_k_m %v", f16["tpot_s"], builtin["tpot_s"])
	}

	out, errOut, code := runCLI("show", "model", path)
	if code != 0 {
		t.Fatal(errOut)
	}
	// llama-3.2-1b Q4_K_M: 96 q4_K, 17 q6_K (attn_v and ffn_down of half
	// the layers, by llama.cpp's use_more_bits rule, plus the tied
	// embedding), 33 f32 norms.
	for _, want := range []string{"GGUF header of " + path, "q4_k       96", "q6_k       17", "f32        33", "weights:        file"} {
		if !strings.Contains(out, want) {
			t.Errorf("show model lacks %q:\n%s", want, out)
		}
	}

	// config.json, named directly or by its directory.
	cfg := filepath.Join("..", "..", "model", "testdata", "hf", "llama-3.1-8b.json")
	ckpt := filepath.Join(dir, "Llama-3.1-8B")
	if err := os.Mkdir(ckpt, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ckpt, "config.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ref := predictOut(t, append([]string{"--model", "llama-3.1-8b", "--weights", "q4_k_m"}, hw...)...)
	for _, m := range []string{cfg, ckpt} {
		got := predictOut(t, append([]string{"--model", m, "--weights", "q4_k_m"}, hw...)...)
		if got["tpot_s"] != ref["tpot_s"] || got["ttft_s"] != ref["ttft_s"] {
			t.Errorf("%s: TPOT %v TTFT %v, built-in %v %v", m, got["tpot_s"], got["ttft_s"], ref["tpot_s"], ref["ttft_s"])
		}
	}
	out, _, _ = runCLI("show", "model", ckpt)
	if !strings.Contains(out, "model:          Llama-3.1-8B (llama)") {
		t.Errorf("directory not used as the name:\n%s", out)
	}
}

func TestModelFileErrors(t *testing.T) {
	dir := t.TempDir()
	notGGUF := filepath.Join(dir, "fake.gguf")
	if err := os.WriteFile(notGGUF, []byte("{\"hello\": 1}"), 0o644); err != nil {
		t.Fatal(err)
	}
	badCfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(badCfg, []byte(`{"model_type": "mamba", "hidden_size": 10}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		model string
		want  []string
	}{
		{filepath.Join(dir, "missing.gguf"), []string{"missing.gguf", "no such file"}},
		{notGGUF, []string{"fake.gguf", "bad magic", "not a GGUF file"}},
		{badCfg, []string{"config.json", `unsupported architecture "mamba"`, "supported: "}},
		{dir, []string{"config.json", "mamba"}},
	}
	for _, c := range cases {
		out, errOut, code := runCLI("predict", "--model", c.model, "--hardware", "rtx-4090")
		if code == 0 || out != "" {
			t.Errorf("%s: exit %d, stdout %q", c.model, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr %q lacks %q", c.model, errOut, w)
			}
		}
	}
}
