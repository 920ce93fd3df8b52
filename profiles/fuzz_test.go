package profiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/roofline/roofline/limits"
)

func seed(f *testing.F, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b)
		}
	}
}

// The decoders never panic and never return a device or model without an
// error that fails validation.
func FuzzDecodeModel(f *testing.F) {
	seed(f, "models")
	seed(f, "testdata")
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := decodeModel("fuzz.toml", src)
		if err == nil {
			if verr := s.Validate(); verr != nil {
				t.Fatalf("accepted an invalid model: %v", verr)
			}
		}
	})
}

func FuzzDecodeDevices(f *testing.F) {
	seed(f, "hardware")
	seed(f, "testdata")
	f.Fuzz(func(t *testing.T, src []byte) {
		ds, err := decodeDevices("fuzz.toml", src)
		if err == nil {
			for _, d := range ds {
				if verr := d.Validate(); verr != nil {
					t.Fatalf("accepted an invalid device: %v", verr)
				}
			}
		}
	})
}

func FuzzDecodeRuntime(f *testing.F) {
	seed(f, "runtimes")
	// A kernel rule limited to builds from one on ([[kernel]] since).
	if b, err := readTestdata("runtime-base.toml.txt"); err == nil {
		from := `source = "[R1] products after dequantizing to fp16"`
		f.Add([]byte(strings.Replace(string(b), from, from+"\nsince = { first_build = 7175, date = \"2025-11-27\", source = \"[R1] a GEMM\" }", 1)))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		_, _ = decodeRuntime("fuzz.toml", src)
	})
}

// FuzzModelFile reads a model profile by path, as --model does: the file
// is named by the user, its profile's name is looked up, never opened.
// Whatever the bytes, no panic, and an accepted model validates and its
// inventory stays within the ceilings.
func FuzzModelFile(f *testing.F) {
	seed(f, "models")
	f.Add([]byte(strings.Replace(tinyModel, "%q", `"loop.toml"`, 1)))
	f.Add([]byte(strings.Replace(tinyModel, "%q", `"x"`, 1) + "norms_per_layer = 10000000\n"))
	cat, err := Builtin()
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		p := filepath.Join(dir, "m.toml")
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := cat.Model(p)
		if err != nil {
			return
		}
		if verr := s.Validate(); verr != nil {
			t.Fatalf("accepted an invalid model: %v", verr)
		}
		if n := len(s.Tensors()); n > 64*limits.Layers*limits.NormsPerLayer {
			t.Fatalf("%d tensors", n)
		}
	})
}

// The scan before the decoder never refuses for its depth a file the
// decoder reads whose every value sits within limits.TOMLDepth: the path
// to a value (keys, and an index for each array) bounds the depth the
// scan counts.
func FuzzScanTOML(f *testing.F) {
	seed(f, "models")
	seed(f, "hardware")
	seed(f, "runtimes")
	seed(f, "testdata")
	for _, s := range []string{"a = [[1]]", "a = [{b = {c = 1}}]", "[[a.b]]\nc.d = 1", "a.b.c = \"\"\"x\n\"\"\"", "'a'.\"b\" = {c=[1,{d=2}]}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		err := scanTOML("fuzz.toml", src)
		if err == nil || !strings.Contains(err.Error(), " deep ") {
			return
		}
		var v map[string]any
		if _, derr := toml.Decode(string(src), &v); derr == nil && pathDepth(v) <= limits.TOMLDepth {
			t.Fatalf("refused a file of depth %d: %v", pathDepth(v), err)
		}
	})
}

// pathDepth is the longest path to a value in v: a part for each key and
// each array index.
func pathDepth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, 1+pathDepth(e))
		}
	case []map[string]any:
		for _, e := range x {
			d = max(d, 1+pathDepth(e))
		}
	case []any:
		for _, e := range x {
			d = max(d, 1+pathDepth(e))
		}
	}
	return d
}
