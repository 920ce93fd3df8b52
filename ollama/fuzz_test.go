package ollama_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roofline/roofline/ollama"
)

// FuzzParseName: any string parses or is refused with a NameError, never
// a panic; a name parsed prints as a name that parses back to it.
func FuzzParseName(f *testing.F) {
	for _, s := range []string{"llama3.2", "llama3.2:3b", "qwen2.5:7b-instruct-q8_0", "library/x:1", "host:1/ns/m:t", "a:b:c", ":", "x@sha256:1", "../../x:y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ollama.ParseName(s)
		if err != nil {
			return
		}
		back, err := ollama.ParseName(n.String())
		if err != nil || back != n {
			t.Errorf("%q → %+v prints %q → %+v, %v", s, n, n.String(), back, err)
		}
		for _, p := range []string{n.Host, n.Namespace, n.Model, n.Tag} {
			if p == "" || p == "." || p == ".." || strings.ContainsAny(p, `/\`) {
				t.Errorf("%q: part %q could leave the manifests directory", s, p)
			}
		}
	})
}

// FuzzManifest: whatever a manifest holds, Blob answers a path inside
// blobs/ or an error, never a panic.
func FuzzManifest(f *testing.F) {
	f.Add(manifest(layer(ollama.ModelMediaType, "sha256:"+digest)))
	f.Add(manifest(layer(ollama.ModelMediaType, "sha256:../../etc/passwd")))
	f.Add(`{"layers": null}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, m string) {
		dir := t.TempDir()
		p := filepath.Join(dir, "manifests", "registry.ollama.ai", "library", "m", "latest")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, "blobs"), 0o755)
		os.WriteFile(filepath.Join(dir, "blobs", "sha256-"+digest), []byte("GGUF"), 0o644)
		blob, err := ollama.Blob(dir, ollama.Name{Host: "registry.ollama.ai", Namespace: "library", Model: "m", Tag: "latest"})
		if err == nil && filepath.Dir(blob) != filepath.Join(dir, "blobs") {
			t.Errorf("%q leads to %s", m, blob)
		}
	})
}
