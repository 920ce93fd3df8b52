package main

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// layers are the layers of docs/architecture.md, lowest first: a package
// may import packages of its own layer or below, never above.
var layers = [][]string{
	{"units", "limits", "safeio"},
	{"model", "hardware"},
	{"gguf", "runtimes", "hfhub", "ollama"},
	{"profiles"},
	{"sim"},
	{"serve"},
	{"cmd/roofline/internal/measured", "cmd/roofline/internal/resolve", "cmd/roofline/internal/fit", "cmd/roofline/internal/compare",
		"cmd/roofline/internal/calibrate", "cmd/roofline/internal/plan", "cmd/roofline/internal/accuracy", "cmd/roofline/internal/plots",
		"cmd/roofline/internal/atomicfile", "cmd/roofline/internal/buildinfo", "cmd/roofline/internal/memlimit"},
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

// TestLowerLayersNameNoFlag: the library below the application layer
// answers with typed errors and words; only the commands (errors.go) name
// flags. No string in those packages, nor a profile they embed, names one
// of roofline's flags.
func TestLowerLayersNameNoFlag(t *testing.T) {
	flags := map[string]bool{}
	var walk func([]cli.Flag, []*cli.Command)
	walk = func(fs []cli.Flag, cmds []*cli.Command) {
		for _, f := range fs {
			for _, n := range f.Names() {
				if len(n) > 1 {
					flags[n] = true
				}
			}
		}
		for _, c := range cmds {
			walk(c.Flags, c.Subcommands)
		}
	}
	app := newApp(io.Discard, io.Discard)
	walk(app.Flags, app.Commands)
	flagIn := regexp.MustCompile(`--([a-z][a-z0-9-]*)`)
	check := func(where, text string) {
		for _, m := range flagIn.FindAllStringSubmatch(text, -1) {
			if flags[m[1]] {
				t.Errorf("%s names the flag --%s: return a typed error and let cmd/roofline/errors.go name it", where, m[1])
			}
		}
	}
	for _, l := range layers[:5] {
		for _, pkg := range l {
			dir := filepath.Join("..", "..", pkg)
			fset := token.NewFileSet()
			files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
			for _, name := range files {
				if strings.HasSuffix(name, "_test.go") {
					continue
				}
				f, err := parser.ParseFile(fset, name, nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				ast.Inspect(f, func(n ast.Node) bool {
					if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						check(fset.Position(lit.Pos()).String(), lit.Value)
					}
					return true
				})
			}
			tomls, _ := filepath.Glob(filepath.Join(dir, "*", "*.toml"))
			more, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
			for _, p := range append(tomls, more...) {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				check(p, string(b))
			}
		}
	}
}
