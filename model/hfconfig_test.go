package model_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roofline/roofline/model"
)

// Each published config.json in testdata/hf (sources in its SOURCES.md)
// must give the same accounting as the hand-written built-in profile of
// the same model: parameters, checkpoint bytes, streamed bytes per token,
// KV bytes at a context past every sliding window, and prefill FLOPs.
func TestHFConfigMatchesBuiltin(t *testing.T) {
	cases := []struct{ file, builtin, checkpoint string }{
		{"llama-3.1-8b.json", "llama-3.1-8b", "bf16"},
		{"qwen3-4b.json", "qwen3-4b", "bf16"},
		{"mixtral-8x7b.json", "mixtral-8x7b", "bf16"},
		{"gemma-2-2b.json", "gemma-2-2b", "f32"}, // published as float32
		{"gemma-3-4b.json", "gemma-3-4b", "bf16"},
		{"deepseek-v3.json", "deepseek-v3", "fp8"},
		{"gpt-oss-20b.json", "gpt-oss-20b", "mxfp4"},
		{"qwen3-30b-a3b.json", "qwen3-30b-a3b", "bf16"},
		{"phi-3-mini.json", "phi-3-mini", "bf16"},
	}
	for _, c := range cases {
		t.Run(c.builtin, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "hf", c.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := model.ParseHFConfig(data, c.builtin)
			if err != nil {
				t.Fatal(err)
			}
			if got.Checkpoint != c.checkpoint {
				t.Errorf("checkpoint %q, want %q", got.Checkpoint, c.checkpoint)
			}
			want := spec(t, c.builtin)
			// Compare at the built-in's checkpoint so only shapes differ.
			a, err := model.BuildNamed(got, want.Checkpoint, "f16", model.Layout{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := model.BuildNamed(want, want.Checkpoint, "f16", model.Layout{})
			if err != nil {
				t.Fatal(err)
			}
			const ctx = 32768 // beyond every window (≤ 4096)
			for _, q := range []struct {
				what      string
				got, want float64
			}{
				{"params", a.ParamsTotal, b.ParamsTotal},
				{"active params", a.ParamsActive, b.ParamsActive},
				{"weight bytes", a.WeightBytes, b.WeightBytes},
				{"streamed bytes/token", a.StreamedBytesPerToken(), b.StreamedBytesPerToken()},
				{"KV bytes at 32k", a.KVBytes(ctx), b.KVBytes(ctx)},
				{"prefill FLOPs 4k", a.PrefillFLOPs(0, 4096, 1), b.PrefillFLOPs(0, 4096, 1)},
			} {
				if q.got != q.want {
					t.Errorf("%s: config.json %.6g, built-in %.6g", q.what, q.got, q.want)
				}
			}
		})
	}
}

// Hand-checked figures for one config so the comparison above cannot pass
// by both sides being wrong the same way. Llama-3.1-8B:
// embeddings 128256·4096 = 525,336,576, twice (untied) = 1,050,673,152;
// per layer q 4096² + k,v 2·1024·4096 + o 4096² = 41,943,040,
// MLP 3·4096·14336 = 176,160,768, norms 2·4096 = 8192 → 218,112,000;
// ×32 = 6,979,584,000; + final norm 4096 → 8,030,261,248 parameters.
// Bytes in bf16 with norms kept in f32 (as GGUF BF16 stores them): norms
// 32·8192 + 4096 = 266,240; 2·(8,030,261,248 − 266,240) + 4·266,240 =
// 16,061,054,976 B (the safetensors checkpoint, norms in bf16, is
// 16,060,522,496 B: 0.003 % less).
// KV per token: 32 layers · 2 · 8 heads · 128 · 2 B = 131,072 B.
func TestHFConfigLlamaByHand(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "hf", "llama-3.1-8b.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := model.ParseHFConfig(data, "l")
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.BuildNamed(s, "bf16", "f16", model.Layout{})
	if err != nil {
		t.Fatal(err)
	}
	if c.ParamsTotal != 8030261248 || c.WeightBytes != 16061054976 || c.KVBytesPerToken() != 131072 {
		t.Errorf("params %.0f, bytes %.0f, KV/token %.0f", c.ParamsTotal, c.WeightBytes, c.KVBytesPerToken())
	}
}

func TestHFConfigErrors(t *testing.T) {
	llama, err := os.ReadFile(filepath.Join("testdata", "hf", "llama-3.1-8b.json"))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(from, to string) string { return strings.Replace(string(llama), from, to, 1) }
	cases := []struct{ name, data, want string }{
		{"not json", "{hidden_size: 1", "config.json"},
		{"unknown architecture", edit(`"model_type": "llama"`, `"model_type": "mamba"`), `unsupported architecture "mamba"`},
		{"no hidden size", edit(`"hidden_size": 4096`, `"hidden_size": 0`), "config.json"},
		{"heads do not divide", edit(`"num_attention_heads": 32`, `"num_attention_heads": 30`), "does not divide"},
		{"negative layers", edit(`"num_hidden_layers": 32`, `"num_hidden_layers": -1`), "config.json"},
		{"kv heads do not divide heads", edit(`"num_key_value_heads": 8`, `"num_key_value_heads": 7`), "config.json"},
		{"wrong type", edit(`"hidden_size": 4096`, `"hidden_size": "big"`), "config.json"},
		// Issue 29 L: a negative expert count was priced as a dense model.
		{"negative experts", edit(`"model_type": "llama"`, `"model_type": "llama", "num_local_experts": -8, "num_experts_per_tok": 2`),
			"config.json: num_local_experts must not be negative, got -8"},
		{"negative window", edit(`"model_type": "llama"`, `"model_type": "llama", "sliding_window": -1`), "sliding_window must not be negative"},
	}
	for _, c := range cases {
		_, err := model.ParseHFConfig([]byte(c.data), "x")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

// TestHFConfigTextConfigPlace: an error inside a multimodal config's
// text_config is told at the file's line and column, under its path; it
// was counted from the sub-object ("text_config: line 5, column 26").
func TestHFConfigTextConfigPlace(t *testing.T) {
	gemma, err := os.ReadFile(filepath.Join("testdata", "hf", "gemma-3-4b.json"))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(from, to string) []byte { return []byte(strings.Replace(string(gemma), from, to, 1)) }
	for _, c := range []struct {
		data []byte
		want string
	}{
		// Line 14 is `    "num_hidden_layers": "34",`: 4 spaces and
		// `"num_hidden_layers": ` (21 bytes) put the string at columns
		// 26-29; the place told is its last byte, 29.
		{edit(`"num_hidden_layers": 34`, `"num_hidden_layers": "34"`),
			"config.json: line 14, column 29: text_config.num_hidden_layers: a string where a whole number belongs"},
		// Line 10 is `  "text_config": 5,`: the 5 is column 18.
		{edit(`"text_config": {`, `"text_config": 5, "x": {`),
			"config.json: line 10, column 18: text_config: a number where an object belongs"},
	} {
		_, err := model.ParseHFConfig(c.data, "x")
		if err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func FuzzParseHFConfig(f *testing.F) {
	for _, name := range []string{"llama-3.1-8b.json", "gemma-3-4b.json", "deepseek-v3.json", "gpt-oss-20b.json", "smollm3-3b.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "hf", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := model.ParseHFConfig(data, "fuzz")
		if err != nil {
			return
		}
		if _, err := model.BuildNamed(s, "", "f16", model.Layout{}); err != nil {
			t.Skip() // valid shapes with no buildable format are fine
		}
	})
}

// Counts a config.json states are checked before they size anything: a
// 146-byte file with sliding_window_pattern = 2·10⁹ ran out of memory.
func TestHFConfigCeilings(t *testing.T) {
	tiny := `{"model_type":"gemma3_text","hidden_size":64,"num_hidden_layers":2,"intermediate_size":64,"sliding_window":16,%s}`
	for _, c := range []struct{ extra, want string }{
		{`"sliding_window_pattern":2000000000`, "sliding_window_pattern 2000000000 exceeds the limit of 2^12"},
		{`"sliding_window_pattern":-5`, "sliding_window_pattern must not be negative"},
		{`"num_attention_heads":100000`, "num_attention_heads 100000 exceeds the limit of 2^14"},
		{`"vocab_size":1000000000`, "vocab_size 1000000000 exceeds the limit of 2^24"},
		{`"max_position_embeddings":4000000000`, "max_position_embeddings 4000000000 exceeds the limit of 2^30"},
		{`"head_dim":1048576`, "head_dim 1048576 exceeds the limit of 2^14"},
	} {
		_, err := model.ParseHFConfig([]byte(fmt.Sprintf(tiny, c.extra)), "x")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.extra, err, c.want)
		}
	}
}

// Editors on Windows save config.json with a byte-order mark.
func TestHFConfigByteOrderMark(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "hf", "llama-3.1-8b.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := model.ParseHFConfig(append([]byte("\ufeff"), data...), "llama")
	if err != nil || s.Hidden != 4096 {
		t.Errorf("with a BOM: %v", err)
	}
}

// Llama-shaped model types are read through the family table, with a
// note. SmolLM3-3B (testdata/hf/smollm3-3b.json: transformers'
// SmolLM3Config defaults, documented as HuggingFaceTB/SmolLM3-3B's;
// tie_word_embeddings left out, so the class default, true, applies):
//
//	embedding 128256·2048                        =   262,668,288
//	per layer: q 2048·2048 + k, v 2·2048·(4·128) + o 2048·2048
//	           = 4,194,304 + 2,097,152 + 4,194,304 =  10,485,760
//	           MLP 3·2048·11008                    =  67,633,152
//	           norms 2·2048                        =       4,096
//	36 layers · 78,123,008                         = 2,812,428,288
//	final norm 2048, head tied (none)
//	total                                          = 3,075,098,624 (3.08 B as published)
//
// KV per token: 36 layers · 2 · 4 heads · 128 · 2 B = 73,728 B.
func TestHFConfigFamilies(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "hf", "smollm3-3b.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := model.ParseHFConfig(data, "smollm3")
	if err != nil {
		t.Fatal(err)
	}
	if s.Architecture != "llama" || !s.TiedEmbeddings || len(s.FileNotes) != 1 || !strings.Contains(s.FileNotes[0], "model_type smollm3 read as llama") {
		t.Errorf("architecture %q, tied %v, notes %q", s.Architecture, s.TiedEmbeddings, s.FileNotes)
	}
	c, err := model.BuildNamed(s, "bf16", "f16", model.Layout{})
	if err != nil {
		t.Fatal(err)
	}
	if c.ParamsTotal != 3075098624 || c.KVBytesPerToken() != 73728 {
		t.Errorf("params %.0f, KV/token %.0f", c.ParamsTotal, c.KVBytesPerToken())
	}

	edit := func(from, to string) []byte { return []byte(strings.Replace(string(data), from, to, 1)) }
	// An explicit tie_word_embeddings wins over the class default.
	if s, err := model.ParseHFConfig(edit(`"use_cache": false`, `"use_cache": false, "tie_word_embeddings": false`), "x"); err != nil || s.TiedEmbeddings {
		t.Errorf("tie_word_embeddings false: %v, %v", err, s)
	}
	// ERNIE 4.5 leaves head_dim at 128 when its config omits it: with 32
	// heads, hidden / heads would be 64.
	ernie := strings.Replace(string(edit(`"model_type": "smollm3"`, `"model_type": "ernie4_5"`)), `"num_attention_heads": 16`, `"num_attention_heads": 32`, 1)
	if s, err := model.ParseHFConfig([]byte(ernie), "x"); err != nil || s.HeadDim != 128 {
		t.Errorf("ernie4_5 head_dim: %v, %v", err, s)
	}
	for _, bias := range []string{`"mlp_bias": true`, `"mlp_bias": false, "use_bias": true`} {
		if _, err := model.ParseHFConfig(edit(`"mlp_bias": false`, bias), "x"); err == nil || !strings.Contains(err.Error(), "not Llama-shaped") {
			t.Errorf("%s: %v", bias, err)
		}
	}
	if _, err := model.ParseHFConfig(edit(`"model_type": "smollm3"`, `"model_type": "granite"`), "x"); err != nil {
		t.Errorf("granite: %v", err)
	}
}
