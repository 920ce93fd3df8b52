package profiles

import (
	"slices"
	"strings"
	"testing"
)

func TestPickGGUF(t *testing.T) {
	files := []string{"README.md", "Llama-3.2-3B-Instruct-Q4_K_M.gguf", "Llama-3.2-3B-Instruct-Q8_0.gguf", "Llama-3.2-3B-Instruct-IQ4_XS.gguf",
		"Llama-3.2-3B-Instruct-Q4_K_S.gguf", "mmproj-F16.gguf", "big/Llama-3.2-3B-Instruct-BF16-00001-of-00002.gguf", "big/Llama-3.2-3B-Instruct-BF16-00002-of-00002.gguf"}
	for _, c := range []struct{ sel, file, note, err string }{
		{"", "Llama-3.2-3B-Instruct-Q4_K_M.gguf", "holds 5 GGUF files: read Llama-3.2-3B-Instruct-Q4_K_M.gguf, the Q4_K_M one", ""},
		{"Q8_0", "Llama-3.2-3B-Instruct-Q8_0.gguf", "", ""},
		{"q4_k_s", "Llama-3.2-3B-Instruct-Q4_K_S.gguf", "", ""},
		{"IQ4_XS", "Llama-3.2-3B-Instruct-IQ4_XS.gguf", "", ""},
		{"BF16", "big/Llama-3.2-3B-Instruct-BF16-00001-of-00002.gguf", "", ""},
		{"Llama-3.2-3B-Instruct-Q8_0.gguf", "Llama-3.2-3B-Instruct-Q8_0.gguf", "", ""},
		{"big/Llama-3.2-3B-Instruct-BF16-00002-of-00002.gguf", "big/Llama-3.2-3B-Instruct-BF16-00002-of-00002.gguf", "", ""},
		{"Q4_K", "", "", "has no Q4_K file; its file types: BF16, IQ4_XS, Q4_K_M, Q4_K_S, Q8_0"},
		{"Q6_K", "", "", "did you mean o/r:Q8_0?"},
		{"F16", "", "", "has no F16 file"}, // the projector is never the model
	} {
		f, note, err := pickGGUF("o/r", files, c.sel)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %q, %v; want %q", c.sel, f, err, c.err)
			}
		case err != nil || f != c.file || !strings.Contains(note, c.note):
			t.Errorf("%q: %q (%q), %v; want %q", c.sel, f, note, err, c.file)
		}
	}
	if _, _, err := pickGGUF("o/r", []string{"a-Q8_0.gguf", "b-Q5_K_M.gguf"}, ""); err == nil || !strings.Contains(err.Error(), "none is Q4_K_M: name one as o/r:QUANT (Q5_K_M, Q8_0) or o/r:FILE.gguf (a-Q8_0.gguf, b-Q5_K_M.gguf)") {
		t.Errorf("no default: %v", err)
	}
}

func TestParseHFRef(t *testing.T) {
	for in, want := range map[string]hfRef{
		"meta-llama/Llama-3.1-8B":            {ID: "meta-llama/Llama-3.1-8B"},
		"org/r@v1.0":                         {ID: "org/r", Rev: "v1.0"},
		"org/r@refs/pr/1:Q8_0":               {ID: "org/r", Rev: "refs/pr/1", Select: "Q8_0"},
		"hf.co/bartowski/X-GGUF:Q4_K_M":      {ID: "bartowski/X-GGUF", Select: "Q4_K_M"},
		"huggingface.co/o/r:sub/f-Q8_0.gguf": {ID: "o/r", Select: "sub/f-Q8_0.gguf"},
	} {
		if got, ok := parseHFRef(in); !ok || got != want {
			t.Errorf("%q: %+v, %v; want %+v", in, got, ok, want)
		}
	}
	for _, in := range []string{"llama3.2:3b", "a/b/c", "o/r:../x.gguf", "o/r@../x", "o/r:/etc/passwd", "o/r:a//b.gguf", "https://huggingface.co/o/r"} {
		if got, ok := parseHFRef(in); ok {
			t.Errorf("%q read as %+v", in, got)
		}
	}
}

// FuzzHFSelect: any reference and file list gives a file of the list or
// an error, never a panic.
func FuzzHFSelect(f *testing.F) {
	f.Add("o/r:Q8_0", "a-Q8_0.gguf\nb-Q4_K_M.gguf\nmmproj.gguf")
	f.Add("hf.co/o/r", "x-00001-of-00002.gguf\nx-00002-of-00002.gguf")
	f.Add("o/r@main:x.gguf", "X.GGUF")
	f.Fuzz(func(t *testing.T, name, list string) {
		ref, ok := parseHFRef(name)
		if !ok {
			return
		}
		files := strings.Split(list, "\n")
		file, _, err := pickGGUF(ref.ID, files, ref.Select)
		if err == nil && !slices.Contains(files, file) {
			t.Errorf("%q in %q picked %q", name, files, file)
		}
	})
}
