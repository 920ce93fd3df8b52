package main

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layers are the layers of docs/architecture.md, lowest first: a package
// may import packages of its own layer or below, never above.
var layers = [][]string{
	{"units", "limits", "safeio"},
	{"model", "hardware"},
	{"gguf", "runtimes"},
	{"profiles"},
	{"sim"},
	{"cmd/roofline/internal/measured", "cmd/roofline/internal/resolve", "cmd/roofline/internal/fit", "cmd/roofline/internal/compare",
		"cmd/roofline/internal/calibrate", "cmd/roofline/internal/plan", "cmd/roofline/internal/accuracy", "cmd/roofline/internal/plots",
		"cmd/roofline/internal/atomicfile", "cmd/roofline/internal/buildinfo"},
	{"cmd/roofline/internal/app"},
	{"cmd/roofline/internal/study"},
	{"cmd/roofline/internal/render"},
	{"cmd/roofline"},
}

// TestLayers holds the code to docs/architecture.md: no import runs from a
// lower layer to a higher one, and every package has a layer.
func TestLayers(t *testing.T) {
	const module = "github.com/roofline/roofline/"
	layer := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			layer[p] = i
		}
	}
	root := "../.."
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "docs") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		l, ok := layer[rel]
		seen[rel] = true
		if !ok {
			t.Errorf("package %s has no layer in docs/architecture.md", rel)
			return nil
		}
		for _, imp := range pkg.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if dl, ok := layer[dep]; ok && dl > l {
				t.Errorf("%s (layer %d) imports %s (layer %d): an import from a lower layer to a higher one", rel, l, dep, dl)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range layer {
		if !seen[p] {
			t.Errorf("docs/architecture.md names %s, which is not a package", p)
		}
	}
}
