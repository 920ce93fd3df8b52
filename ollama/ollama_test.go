package ollama_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roofline/roofline/ollama"
)

func TestParseName(t *testing.T) {
	for _, c := range []struct {
		in   string
		want ollama.Name
		err  string
	}{
		{"llama3.2", ollama.Name{"registry.ollama.ai", "library", "llama3.2", "latest"}, ""},
		{"llama3.2:3b", ollama.Name{"registry.ollama.ai", "library", "llama3.2", "3b"}, ""},
		{"qwen2.5:7b-instruct-q8_0", ollama.Name{"registry.ollama.ai", "library", "qwen2.5", "7b-instruct-q8_0"}, ""},
		{"library/llama3.2:1b", ollama.Name{"registry.ollama.ai", "library", "llama3.2", "1b"}, ""},
		{"orieg/gemma3-tools:12b-ft", ollama.Name{"registry.ollama.ai", "orieg", "gemma3-tools", "12b-ft"}, ""},
		{"localhost:5000/team/m:v1", ollama.Name{"localhost:5000", "team", "m", "v1"}, ""},
		{"llama3.2:", ollama.Name{}, "the tag after ':' is empty"},
		{":3b", ollama.Name{}, "no model name"},
		{"llama3.2:3b:q4", ollama.Name{}, `model "llama3.2:3b" has a character`},
		{"llama3.2:3b/../../x", ollama.Name{}, "more than three parts"},
		{"../x:1b", ollama.Name{}, `namespace ".." has a character`},
		{"a/b/c/d:1", ollama.Name{}, "more than three parts"},
		{"llama 3.2:3b", ollama.Name{}, `model "llama 3.2" has a character`},
		{"llama3.2@sha256:abc", ollama.Name{}, "a digest"},
		{"m:" + strings.Repeat("x", 81), ollama.Name{}, "longer than 80"},
	} {
		n, err := ollama.ParseName(c.in)
		switch {
		case c.err != "":
			var ne *ollama.NameError
			if !errors.As(err, &ne) || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "is not an Ollama model name") {
				t.Errorf("%q: %v, want %q", c.in, err, c.err)
			}
		case err != nil || n != c.want:
			t.Errorf("%q: %+v, %v; want %+v", c.in, n, err, c.want)
		}
	}
	n, _ := ollama.ParseName("library/llama3.2")
	if n.String() != "llama3.2:latest" || !n.Library() {
		t.Errorf("%+v shown %q", n, n.String())
	}
}

const digest = "6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c96807de94ca2aa"

// store builds an Ollama store: files maps paths under it to contents.
func store(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func manifest(layers ...string) string {
	return fmt.Sprintf(`{"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
  "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "digest": "sha256:%s", "size": 487},
  "layers": [%s]}`, digest, strings.Join(layers, ","))
}

func layer(media, dig string) string {
	return fmt.Sprintf(`{"mediaType": %q, "digest": %q, "size": 1}`, media, dig)
}

func TestBlob(t *testing.T) {
	const lib = "manifests/registry.ollama.ai/library/"
	dir := store(t, map[string]string{
		lib + "llama3.2/3b":        manifest(layer(ollama.ModelMediaType, "sha256:"+digest), layer("application/vnd.ollama.image.license", "sha256:"+strings.Repeat("1", 64))),
		"blobs/sha256-" + digest:   "GGUF",
		lib + "escape/latest":      manifest(layer(ollama.ModelMediaType, "sha256:../../../../etc/passwd")),
		lib + "nomodel/latest":     manifest(layer("application/vnd.ollama.image.adapter", "sha256:"+digest)),
		lib + "missing/latest":     manifest(layer(ollama.ModelMediaType, "sha256:"+strings.Repeat("2", 64))),
		lib + "notjson/latest":     "<html>",
		lib + "huge/latest":        strings.Repeat(" ", 1<<20+1),
		lib + "two/latest":         manifest(layer(ollama.ModelMediaType, "sha256:"+digest), layer(ollama.ModelMediaType, "sha256:"+digest)),
		lib + "linked/latest":      manifest(layer(ollama.ModelMediaType, "sha256:"+strings.Repeat("3", 64))),
		"outside/secret.gguf":      "GGUF",
		"manifests/x/y/z/w":        "",
		lib + "emptydigest/latest": manifest(layer(ollama.ModelMediaType, "")),
	})
	// A blob that is a link out of the store.
	if err := os.Symlink(filepath.Join(dir, "outside", "secret.gguf"), filepath.Join(dir, "blobs", "sha256-"+strings.Repeat("3", 64))); err != nil {
		t.Fatal(err)
	}
	name := func(s string) ollama.Name {
		n, err := ollama.ParseName(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	p, err := ollama.Blob(dir, name("llama3.2:3b"))
	if err != nil || p != filepath.Join(dir, "blobs", "sha256-"+digest) {
		t.Errorf("llama3.2:3b: %s, %v", p, err)
	}
	for n, want := range map[string]string{
		"llama3.2:1b": "not in the local Ollama store",
		"escape":      `model layer digest "sha256:../../../../etc/passwd" is not a sha256 digest: refused`,
		"emptydigest": `model layer digest "" is not a sha256 digest`,
		"nomodel":     "no layer of type application/vnd.ollama.image.model",
		"missing":     "is missing (pull the model again)",
		"notjson":     "not an Ollama manifest",
		"huge":        "larger than 1 MiB, the limit for an Ollama manifest",
		"two":         "two model layers",
		"linked":      "leads outside " + filepath.Join(dir, "blobs"),
	} {
		_, err := ollama.Blob(dir, name(n))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", n, err, want)
		}
		if n == "llama3.2:1b" && !errors.Is(err, ollama.ErrNotPulled) {
			t.Errorf("%s: %v is not ErrNotPulled", n, err)
		}
	}
	t.Setenv("OLLAMA_MODELS", "/srv/ollama")
	if d := ollama.ModelsDir(); d != "/srv/ollama" {
		t.Errorf("OLLAMA_MODELS: %s", d)
	}
	t.Setenv("OLLAMA_MODELS", "")
	if home, err := os.UserHomeDir(); err == nil && ollama.ModelsDir() != filepath.Join(home, ".ollama", "models") {
		t.Errorf("default store %s", ollama.ModelsDir())
	}
}
