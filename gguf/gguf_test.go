package gguf_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roofline/roofline/gguf"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
)

// header builds the GGUF header llama.cpp would write for a built-in model
// quantized with one of roofline's recipes, and the bytes of its tensors
// computed from the recipe (not from the header).
func header(t testing.TB, name, weights string) (*gguf.File, float64) {
	t.Helper()
	cat, _ := profiles.Builtin()
	s, err := cat.Model(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := model.LookupWeightFormat(weights)
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.HeaderFor(s, w)
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for _, tn := range s.Tensors() {
		total += w.TypeOf(s, tn).RowBytes(tn.Cols) * float64(tn.Rows) * float64(tn.Experts)
	}
	return f, total
}

func encode(t testing.TB, f *gguf.File) []byte {
	var b bytes.Buffer
	if err := gguf.Write(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A Q4_K_M header yields the sum of its tensors' sizes, the spec of the
// built-in entry, and the same streamed bytes.
func TestQ4KMHeader(t *testing.T) {
	for _, c := range []struct{ model, weights string }{{"llama-3.1-8b", "q4_k_m"}, {"qwen2.5-0.5b", "q4_k_m"}, {"gemma-2-2b", "q8_0"}, {"qwen3-30b-a3b", "q4_k_m"},
		{"deepseek-v3", "q4_k_m"}, {"gemma-3-4b", "q4_k_m"}, {"gpt-oss-20b", "mxfp4"}, {"phi-3-mini", "q4_k_m"}, {"mixtral-8x7b", "q5_k_m"}} {
		f, total := header(t, c.model, c.weights)
		got, err := gguf.Read(bytes.NewReader(encode(t, f)))
		if err != nil {
			t.Fatal(err)
		}
		m, err := gguf.ToModel(got, c.model)
		if err != nil {
			t.Fatal(err)
		}
		if m.Bytes != total {
			t.Errorf("%s: file bytes %.0f, tensors sum %.0f", c.model, m.Bytes, total)
		}
		cost, err := model.BuildNamed(m.Spec, "", "f16", model.Layout{})
		if err != nil {
			t.Fatal(err)
		}
		cat, _ := profiles.Builtin()
		ref, _ := cat.Model(c.model)
		want, _ := model.BuildNamed(ref, c.weights, "f16", model.Layout{})
		if cost.WeightBytes != total || cost.WeightBytes != want.WeightBytes || cost.StreamedBytesPerToken() != want.StreamedBytesPerToken() ||
			cost.KVBytesPerToken() != want.KVBytesPerToken() || cost.ParamsTotal != want.ParamsTotal {
			t.Errorf("%s: from GGUF %.0f B (streamed %.0f, KV %.0f), built-in %.0f B (streamed %.0f, KV %.0f)", c.model, cost.WeightBytes,
				cost.StreamedBytesPerToken(), cost.KVBytesPerToken(), want.WeightBytes, want.StreamedBytesPerToken(), want.KVBytesPerToken())
		}
		if len(m.Notes) > 0 {
			t.Errorf("%s: notes %v", c.model, m.Notes)
		}
	}
}

func TestBadHeaders(t *testing.T) {
	f, _ := header(t, "llama-3.2-1b", "q4_0")
	good := encode(t, f)
	cases := map[string][]byte{
		"bad magic":   append([]byte("GGML"), good[4:]...),
		"truncated":   good[:len(good)/2],
		"empty":       nil,
		"version 9":   append(append([]byte("GGUF"), 9, 0, 0, 0), good[8:]...),
		"lying count": append(append(append([]byte{}, good[:8]...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0), good[16:]...),
	}
	for name, data := range cases {
		if _, err := gguf.Read(bytes.NewReader(data)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Absurd dimensions.
	f.Tensors[3].Dims = []uint64{1 << 41, 2}
	if _, err := gguf.Read(bytes.NewReader(encode(t, f))); err == nil || !strings.Contains(err.Error(), "dimension") {
		t.Errorf("absurd dims: %v", err)
	}
	// An unsupported architecture names the supported ones.
	f, _ = header(t, "llama-3.2-1b", "q4_0")
	f.Metadata["general.architecture"] = gguf.Value{Str: "mamba"}
	if _, err := gguf.ToModel(f, "x"); err == nil || !strings.Contains(err.Error(), "supported: deepseek2") {
		t.Errorf("unsupported arch: %v", err)
	}
}

func TestSplitAndRemote(t *testing.T) {
	f, total := header(t, "llama-3.2-1b", "q4_k_m")
	dir := t.TempDir()
	half := len(f.Tensors) / 2
	p1 := &gguf.File{Version: 3, Metadata: f.Metadata, Tensors: f.Tensors[:half]}
	p2 := &gguf.File{Version: 3, Metadata: map[string]gguf.Value{"split.count": {Num: 2, IsNum: true}}, Tensors: f.Tensors[half:]}
	for i, p := range []*gguf.File{p1, p2} {
		name := filepath.Join(dir, "m-0000"+string(rune('1'+i))+"-of-00002.gguf")
		if err := os.WriteFile(name, encode(t, p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := gguf.Load(filepath.Join(dir, "m-00001-of-00002.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Bytes != total || m.Spec.Name != "m" {
		t.Errorf("split: %.0f B named %q, want %.0f", m.Bytes, m.Spec.Name, total)
	}

	data := encode(t, f)
	// A server that honours Range, with a large body behind the header.
	padded := append(append([]byte{}, data...), make([]byte, 1<<20)...)
	ranged := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "m.gguf", time.Time{}, bytes.NewReader(padded))
	}))
	defer ranged.Close()
	m, err = gguf.Load(ranged.URL + "/llama-3.2-1b-q4_k_m.gguf")
	if err != nil {
		t.Fatal(err)
	}
	if m.Bytes != total {
		t.Errorf("remote: %.0f B, want %.0f", m.Bytes, total)
	}
	// A server that ignores Range fails cleanly.
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(padded)
	}))
	defer plain.Close()
	if _, err := gguf.Load(plain.URL + "/m.gguf"); err == nil || !strings.Contains(err.Error(), "ignores range requests") {
		t.Errorf("no ranges: %v", err)
	}
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	if _, err := gguf.Load(missing.URL + "/m.gguf"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("404: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	h, _ := header(f, "llama-3.2-1b", "q4_k_m")
	f.Add(encode(f, h))
	h2, _ := header(f, "gemma-2-2b", "q8_0")
	f.Add(encode(f, h2))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := gguf.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		_, _ = gguf.ToModel(file, "fuzz")
	})
}

// Tensors the inventory lacks (here a vision projector) are noted and
// their bytes spread over the rest, so the priced total is the file's.
func TestExtraTensorsScaled(t *testing.T) {
	f, total := header(t, "gemma-3-4b", "q4_k_m")
	// 1152 × 2560 in f16: 5,898,240 B more than the language model.
	f.Tensors = append(f.Tensors, gguf.TensorInfo{Name: "mm.input_projection.weight", Dims: []uint64{1152, 2560}, Type: 1})
	m, err := gguf.ToModel(f, "g")
	if err != nil {
		t.Fatal(err)
	}
	if want := total + 5898240; m.Bytes != want {
		t.Errorf("file bytes %.0f, want %.0f", m.Bytes, want)
	}
	// One tensor is one: "1 file tensors are" read badly.
	if len(m.Notes) != 1 || m.Notes[0] != "a tensor of the file is not in roofline's inventory (mm.input_projection.weight): its bytes are spread over the rest" {
		t.Errorf("notes %v", m.Notes)
	}
	c, err := model.BuildNamed(m.Spec, "", "f16", model.Layout{})
	if err != nil {
		t.Fatal(err)
	}
	if c.WeightBytes != m.Bytes {
		t.Errorf("priced %.0f B, file %.0f B", c.WeightBytes, m.Bytes)
	}
}

// llama.cpp writes the Llama-shaped families under their own architecture
// names with Llama's tensors and keys (src/llama-arch.cpp): such a file
// reads as llama, with a note, and costs exactly what the llama file does.
func TestLlamaShapedArchitectures(t *testing.T) {
	f, _ := header(t, "llama-3.2-1b", "q4_k_m")
	ref, err := gguf.ToModel(f, "ref")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := model.BuildNamed(ref.Spec, "", "f16", model.Layout{})
	for _, arch := range []string{"smollm3", "granite", "ernie4_5"} {
		g := &gguf.File{Metadata: map[string]gguf.Value{}, Tensors: f.Tensors}
		for k, v := range f.Metadata {
			g.Metadata[strings.Replace(k, "llama.", arch+".", 1)] = v
		}
		g.Metadata["general.architecture"] = gguf.Value{Str: arch}
		read, err := gguf.Read(bytes.NewReader(encode(t, g)))
		if err != nil {
			t.Fatal(err)
		}
		m, err := gguf.ToModel(read, arch)
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if m.Spec.Architecture != "llama" || len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "GGUF architecture "+arch+" read as llama") {
			t.Errorf("%s: architecture %q, notes %q", arch, m.Spec.Architecture, m.Notes)
		}
		got, _ := model.BuildNamed(m.Spec, "", "f16", model.Layout{})
		if got.WeightBytes != want.WeightBytes || got.StreamedBytesPerToken() != want.StreamedBytesPerToken() || got.KVBytesPerToken() != want.KVBytesPerToken() {
			t.Errorf("%s: %.0f B (streamed %.0f, KV %.0f), llama file %.0f B (streamed %.0f, KV %.0f)", arch, got.WeightBytes,
				got.StreamedBytesPerToken(), got.KVBytesPerToken(), want.WeightBytes, want.StreamedBytesPerToken(), want.KVBytesPerToken())
		}
		if types, ok := gguf.ModelTypes(arch); !ok || types[0] != "llama" {
			t.Errorf("%s: model types %v", arch, types)
		}
	}
	// A spec of type llama is still written as llama, not as a family.
	if a, ok := gguf.ArchOf("llama"); !ok || a != "llama" {
		t.Errorf("ArchOf(llama) = %q", a)
	}
}
