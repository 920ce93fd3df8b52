package profiles

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roofline/roofline/gguf"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/ollama"
)

// ggufFile is a real GGUF header of built-in model name in format w.
func ggufFile(t *testing.T, name, w string) []byte {
	t.Helper()
	cat, _ := Builtin()
	s, err := cat.Model(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := model.LookupWeightFormat(w)
	if err != nil {
		t.Fatal(err)
	}
	h, err := gguf.HeaderFor(s, f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := gguf.Write(&b, h); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Every mapped tag names a built-in model, and a format roofline knows;
// a tag whose format is set says where it comes from.
func TestOllamaTagsTable(t *testing.T) {
	cat, _ := Builtin()
	seen := map[string]bool{}
	for _, tag := range OllamaTags {
		if _, err := cat.modelNamed(tag.Model); err != nil {
			t.Errorf("%s: %v", tag.Library, err)
		}
		if tag.Weights != "" {
			if _, err := model.LookupWeightFormat(tag.Weights); err != nil || tag.Source == "" {
				t.Errorf("%s:%s: weights %q (%v), source %q", tag.Library, tag.Sizes[0], tag.Weights, err, tag.Source)
			}
		} else if tag.Source != "" {
			t.Errorf("%s:%s: a source without weights", tag.Library, tag.Sizes[0])
		}
		for _, sz := range tag.Sizes {
			k := tag.Library + ":" + sz
			if seen[k] {
				t.Errorf("%s is mapped twice", k)
			}
			seen[k] = true
		}
	}
}

// Tag → (model, weights, what the prediction says of them), without an
// Ollama store.
func TestOllamaTags(t *testing.T) {
	t.Setenv("OLLAMA_MODELS", t.TempDir())
	cat, _ := Builtin()
	const assumed = "assumed Q4_K_M (Ollama's usual default; not verified for this tag)"
	for _, c := range []struct {
		tag, model, weights string
		explicit            bool
		why                 string
	}{
		{"llama3.2:3b", "llama-3.2-3b", "q4_k_m", false, "the quantization of Ollama's llama3.2:3b ('ollama list' in attogram/ollama-bash-lib demos/list.md at a08e61a (2025-07-31): llama3.2:3b a80c4f17acd5, 2,019,393,189 B, Q4_K_M)"},
		{"llama3.2", "llama-3.2-3b", "q4_k_m", false, "Ollama's llama3.2:latest"},
		{"library/llama3.2:latest", "llama-3.2-3b", "q4_k_m", false, "Q4_K_M"},
		{"registry.ollama.ai/library/llama3.2:3b", "llama-3.2-3b", "q4_k_m", false, "Q4_K_M"},
		{"llama3.2:1b", "llama-3.2-1b", "q8_0", false, "baf6a787fdff, 1,321,098,329 B, Q8_0"},
		{"llama3.2:1b-instruct-q4_K_M", "llama-3.2-1b", "q4_k_m", true, "the tag's suffix -q4_k_m says so"},
		{"llama3.1:8b", "llama-3.1-8b", "q4_k_m", false, assumed},
		{"llama3.1:8b-instruct-fp16", "llama-3.1-8b", "f16", true, "the tag's suffix -fp16 says so"},
		{"qwen2.5:7b-instruct-q8_0", "qwen2.5-7b", "q8_0", true, "the tag's suffix -q8_0 says so"},
		{"qwen2.5:7b", "qwen2.5-7b", "q4_k_m", false, "845dbda0ea48"},
		{"qwen2.5:1.5b", "qwen2.5-1.5b", "q4_k_m", false, assumed},
		{"qwen2.5:3b", "qwen2.5-3b", "q4_k_m", false, assumed},
		{"gemma2:2b", "gemma-2-2b", "q4_0", false, "gemma2:2b, 2.6B, Q4_0 (not checked against the registry)"},
		{"gemma3:4b", "gemma-3-4b", "q4_k_m", false, "a2af6cc3eb7f"},
		{"gemma3:1b", "gemma-3-1b", "q4_k_m", false, "8648f39daa8f"},
		{"smollm2:1.7b", "smollm2-1.7b", "q8_0", false, "cef4a1e09247, 1,820,428,533 B, Q8_0"},
		{"phi3:mini", "phi-3-mini", "q4_0", false, "4f2222927938"},
		{"phi3:mini-4k-instruct", "phi-3-mini", "q4_0", false, "Q4_0"},
		{"mistral:7b", "mistral-7b", "q4_k_m", false, "before July 2025 is f974a74358d6"},
		{"mistral:7b-instruct-q4_0", "mistral-7b", "q4_0", true, "suffix"},
		{"qwen3:0.6b", "qwen3-0.6b", "q4_k_m", false, "7df6b6e09427"},
		{"qwen3:30b-a3b", "qwen3-30b-a3b", "q4_k_m", false, assumed},
		{"gpt-oss:20b", "gpt-oss-20b", "mxfp4", false, "MXFP4"},
		{"LLAMA3.2:3B", "llama-3.2-3b", "q4_k_m", false, "Q4_K_M"},
	} {
		s, err := cat.Model(c.tag)
		if err != nil {
			t.Errorf("%s: %v", c.tag, err)
			continue
		}
		n := s.Named
		if n == nil || n.Runtime != "llama.cpp" || n.Weights != c.weights || n.Explicit != c.explicit || !strings.Contains(n.Why, c.why) {
			t.Errorf("%s: %+v, want weights %s (explicit %v) and %q", c.tag, n, c.weights, c.explicit, c.why)
			continue
		}
		base, _ := cat.modelNamed(c.model)
		if s.Hidden != base.Hidden || s.Layers != base.Layers || s.Vocab != base.Vocab {
			t.Errorf("%s: not the shape of %s", c.tag, c.model)
		}
		if notes := strings.Join(s.FileNotes, "\n"); !strings.Contains(notes, "is Ollama's tag of the built-in "+c.model+"; it is not pulled here") {
			t.Errorf("%s: notes %q", c.tag, notes)
		}
		if base.Named != nil || base.Name != c.model {
			t.Errorf("%s changed the built-in %s: %+v", c.tag, c.model, base)
		}
	}
}

// Near misses get the nearest names; bad tags say what is wrong.
func TestOllamaTagErrors(t *testing.T) {
	t.Setenv("OLLAMA_MODELS", t.TempDir())
	cat, _ := Builtin()
	for tag, want := range map[string]string{
		"llama3.2:7b":              "roofline maps these tags of Ollama's llama3.2: llama3.2:3b, llama3.2:latest, llama3.2:1b",
		"lama3.2:3b":               "did you mean llama3.2:3b",
		"qwen2.5:7b-instruct-q4km": `unknown weight format "q4km"; did you mean q4_k_m`,
		"qwen2.5:7b-instruct-q9_9": "its suffix -q9_9 is no quantization roofline knows",
		"llama3.2:":                "the tag after ':' is empty",
		"llama3.2:3b:q4_0":         `"llama3.2:3b:q4_0" is not an Ollama model name`,
		"someone/custom:latest":    "unknown model", // a Hub id then: offline here
		"mymodel:latest":           "not pulled into the Ollama store",
		"gemma3:12b":               "roofline maps these tags of Ollama's gemma3",
	} {
		_, err := cat.Model(tag)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", tag, err, want)
		}
	}
}

// A pulled model is read from the store's GGUF: its own tensors, named
// by the tag; a tag roofline does not map works too.
func TestOllamaStore(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OLLAMA_MODELS", dir)
	data := ggufFile(t, "llama-3.2-1b", "q8_0")
	const dig = "74701a8c35f6c8d9a4b91f3f3497643001d63e0c7a84e085bed452548fa88d45"
	write := func(p, content string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := fmt.Sprintf(`{"schemaVersion":2,"layers":[{"mediaType":%q,"digest":"sha256:%s","size":%d}]}`, ollama.ModelMediaType, dig, len(data))
	write("manifests/registry.ollama.ai/library/llama3.2/1b", m)
	write("manifests/registry.ollama.ai/library/mine/latest", m)
	write("manifests/registry.ollama.ai/someone/custom/v1", m)
	write("manifests/registry.ollama.ai/library/evil/latest", `{"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:../../../etc/passwd"}]}`)
	write("blobs/sha256-"+dig, string(data))
	cat, _ := Builtin()
	for _, name := range []string{"llama3.2:1b", "mine", "someone/custom:v1"} {
		s, err := cat.Model(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want, _ := ollama.ParseName(name)
		if s.FileWeights == nil || s.Name != want.String() || !strings.Contains(s.Source, "in the local Ollama store (blobs/sha256-"+dig+")") ||
			s.Named == nil || s.Named.Runtime != "llama.cpp" || s.Named.Weights != "" {
			t.Errorf("%s: name %q, source %q, file weights %v, named %+v", name, s.Name, s.Source, s.FileWeights != nil, s.Named)
		}
	}
	_, err := cat.Model("evil")
	var se *ollama.StoreError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "is not a sha256 digest: refused") {
		t.Errorf("evil: %v", err)
	}
}

// ollamaRow is a tag's row in docs/profiles.md's table.
func ollamaRow(tag OllamaTag) string {
	var names []string
	for _, sz := range tag.Sizes {
		names = append(names, "`"+tag.Library+":"+sz+"`")
	}
	w, src := "`"+tag.Weights+"`", tag.Source
	if tag.Weights == "" {
		w, src = "`q4_k_m`, assumed", "assumed Q4_K_M (Ollama's usual default; not verified for this tag)"
	}
	return fmt.Sprintf("| %s | `%s` | %s | %s |", strings.Join(names, ", "), tag.Model, w, src)
}

// docs/profiles.md lists every mapped tag as the code maps it.
func TestOllamaTagsDoc(t *testing.T) {
	b, err := os.ReadFile("../docs/profiles.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range OllamaTags {
		if row := ollamaRow(tag); !strings.Contains(string(b), row) {
			t.Errorf("docs/profiles.md lacks the row\n%s", row)
		}
	}
}
