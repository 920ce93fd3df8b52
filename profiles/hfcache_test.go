package profiles

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestHFCacheDir(t *testing.T) {
	home, _ := os.UserHomeDir()
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, filepath.Join(home, ".cache", "huggingface", "hub")},
		{map[string]string{"XDG_CACHE_HOME": "/x"}, "/x/huggingface/hub"},
		{map[string]string{"XDG_CACHE_HOME": "/x", "HF_HOME": "/h"}, "/h/hub"},
		{map[string]string{"HF_HOME": "/h", "HUGGINGFACE_HUB_CACHE": "/old"}, "/old"},
		{map[string]string{"HF_HOME": "/h", "HUGGINGFACE_HUB_CACHE": "/old", "HF_HUB_CACHE": "/c"}, "/c"},
		{map[string]string{"HF_HOME": "~/hf"}, filepath.Join(home, "hf", "hub")},
	}
	for _, c := range cases {
		for _, v := range []string{"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"} {
			t.Setenv(v, c.env[v])
		}
		if got := HFCacheDir(); got != c.want {
			t.Errorf("%v: %q, want %q", c.env, got, c.want)
		}
	}
}

// hfCache builds a Hugging Face cache under a temporary HF_HOME: files
// maps paths under hub/ to their contents.
func hfCache(t *testing.T, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HUGGINGFACE_HUB_CACHE", "")
	t.Setenv("HF_HOME", home)
	hub := filepath.Join(home, "hub")
	for p, content := range files {
		full := filepath.Join(hub, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return hub
}

// Commit hashes, as refs/REVISION holds them.
const (
	hashA = "0123456789abcdef0123456789abcdef0aaaa111"
	hashB = "0123456789abcdef0123456789abcdef0bbbb222"
	hashC = "cccccccccccccccccccccccccccccccccccccccc"
	hashD = "dddddddddddddddddddddddddddddddddddddddd"
	hashE = "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
	hashF = "ffffffffffffffffffffffffffffffffffffffff"
)

func TestModelFromHFCache(t *testing.T) {
	smol, err := os.ReadFile("../model/testdata/hf/smollm3-3b.json")
	if err != nil {
		t.Fatal(err)
	}
	tied := strings.Replace(string(smol), `"use_cache": false`, `"use_cache": false, "tie_word_embeddings": false`, 1)
	const repo = "models--HuggingFaceTB--SmolLM3-3B"
	hub := hfCache(t, map[string]string{
		repo + "/refs/main": hashA + "\n",
		repo + "/refs/v0":   hashB,
		repo + "/snapshots/" + hashA + "/config.json": string(smol),
		repo + "/snapshots/" + hashB + "/config.json": tied,
		// A built-in alias is found in the catalog first.
		"models--Qwen--Qwen3-4B/refs/main":                           hashC,
		"models--Qwen--Qwen3-4B/snapshots/" + hashC + "/config.json": `{"model_type": "mamba"}`,
		// No refs/main: the newest snapshot.
		"models--org--norefs/snapshots/old/config.json": tied,
		"models--org--norefs/snapshots/new/config.json": string(smol),
		// GGUF repositories without a config.json.
		"models--org--two-ggufs/refs/main":                        hashD,
		"models--org--two-ggufs/snapshots/" + hashD + "/a.gguf":   "x",
		"models--org--two-ggufs/snapshots/" + hashD + "/b.gguf":   "x",
		"models--org--empty/refs/main":                            hashE,
		"models--org--empty/snapshots/" + hashE + "/README.md":    "x",
		"models--org--broken/refs/main":                           hashF,
		"models--org--broken/snapshots/" + hashF + "/config.json": `{"model_type": "smollm3", "hidden_size": 1`,
	})
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(hub, "models--org--norefs", "snapshots", "old"), old, old); err != nil {
		t.Fatal(err)
	}
	cat, _ := Builtin()

	for _, c := range []struct {
		id, name, snapshot string
		tied               bool
		note               string
	}{
		{"HuggingFaceTB/SmolLM3-3B", "HuggingFaceTB/SmolLM3-3B", hashA, true, "model_type smollm3 read as llama"},
		{"huggingfacetb/smollm3-3b", "huggingfacetb/smollm3-3b", hashA, true, ""},
		{"HuggingFaceTB/SmolLM3-3B@v0", "HuggingFaceTB/SmolLM3-3B", hashB, false, ""},
		{"HuggingFaceTB/SmolLM3-3B@" + hashB, "HuggingFaceTB/SmolLM3-3B", hashB, false, ""},
		{"org/norefs", "org/norefs", "new", true, "read the newest of its 2 snapshots, new"},
	} {
		s, err := cat.Model(c.id)
		if err != nil {
			t.Errorf("%s: %v", c.id, err)
			continue
		}
		// The source says the id as typed and the snapshot read, never
		// the cache's path under the user's home.
		source := "config.json of " + c.id + " in the Hugging Face cache (snapshot " + c.snapshot + ")"
		if s.Name != c.name || s.Source != source || s.TiedEmbeddings != c.tied || s.Architecture != "llama" {
			t.Errorf("%s: name %q, source %q (want %q), tied %v", c.id, s.Name, s.Source, source, s.TiedEmbeddings)
		}
		if c.note != "" && !strings.Contains(strings.Join(s.FileNotes, "\n"), c.note) {
			t.Errorf("%s: notes %q lack %q", c.id, s.FileNotes, c.note)
		}
	}

	if s, err := cat.Model("Qwen/Qwen3-4B"); err != nil || s.Name != "qwen3-4b" {
		t.Errorf("a built-in alias: %v, %v", s, err)
	}

	var nf *NotFoundError
	_, err = cat.Model("Qwen/Qwen3-1.7B")
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), `unknown model "Qwen/Qwen3-1.7B": not a built-in name, and HF_HUB_OFFLINE is set, so http://127.0.0.1:1 was not asked (unset it, or 'hf download Qwen/Qwen3-1.7B config.json' while online); not in the Hugging Face cache (`+hub+` has no models--Qwen--Qwen3-1.7B)`) ||
		!strings.Contains(err.Error(), "did you mean Qwen/Qwen3-0.6B (qwen3-0.6b)") {
		t.Errorf("not cached: %v", err)
	}
	if h := nf.Hint(); !strings.Contains(h, "a config.json or a checkpoint directory holding one, a .gguf file or URL") || !strings.Contains(h, "'hf download Qwen/Qwen3-1.7B config.json'") {
		t.Errorf("hint: %s", h)
	}
	if _, err := cat.Model("HuggingFaceTB/SmolLM3-3B@v9"); !errors.As(err, &nf) || !strings.Contains(err.Error(), `has no revision "v9"`) {
		t.Errorf("unknown revision: %v", err)
	}
	for id, want := range map[string]string{
		"org/two-ggufs": "HF_HUB_OFFLINE is set, so http://127.0.0.1:1 was not asked (unset it, or 'hf download org/two-ggufs config.json' while online); not in the Hugging Face cache: it holds some of org/two-ggufs, and org/two-ggufs holds 2 GGUF files and none is Q4_K_M: name one as org/two-ggufs:QUANT (none found in the names) or org/two-ggufs:FILE.gguf (a.gguf, b.gguf)",
		"org/empty":     "not in the Hugging Face cache: it holds org/empty (" + filepath.Join(hub, "models--org--empty") + ") without its config.json or a GGUF file",
		"org/broken":    filepath.Join(hub, "models--org--broken", "snapshots", hashF, "config.json") + ": line 1, column 43:",
	} {
		if _, err := cat.Model(id); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", id, err, want)
		}
	}
	// Not an id, not a name: the plain error, with the hint.
	if _, err := cat.Model("no-such-model"); !errors.As(err, &nf) || nf.Detail != "" {
		t.Errorf("a plain name: %v", err)
	}
}

func TestIsHFRepoID(t *testing.T) {
	for id, want := range map[string]bool{
		"Qwen/Qwen3-1.7B": true, "org/name@main": true, "org/name@refs/pr/1": true, "a/b.c_d-e": true,
		"llama-3.1-8b": false, "a/b/c": false, "../x/y": false, "org/..": false, "org/name@../../x": false, "/abs/path": false, "org/": false,
	} {
		if got := IsHFRepoID(id); got != want {
			t.Errorf("IsHFRepoID(%q) = %v, want %v", id, got, want)
		}
	}
}

// A ref of the cache is a small regular file holding a commit hash: one
// linked to /dev/zero grew to out-of-memory, a FIFO hung for ever, and
// "../../x" read a config.json outside the cache.
func TestHFCacheHostileRefs(t *testing.T) {
	smol, err := os.ReadFile("../model/testdata/hf/smollm3-3b.json")
	if err != nil {
		t.Fatal(err)
	}
	hub := hfCache(t, map[string]string{
		"models--org--escape/refs/main":                         "../../../outside",
		"models--org--escape/snapshots/x/README":                "x",
		"models--org--long/refs/main":                           strings.Repeat("a", 1000),
		"models--org--long/snapshots/x/README":                  "x",
		"models--org--zero/snapshots/x/README":                  "x",
		"models--org--fifo/snapshots/x/README":                  "x",
		"models--org--dir/refs/main/x":                          hashA,
		"models--org--dir/snapshots/x/README":                   "x",
		"models--org--good/refs/main":                           hashA + "\n",
		"models--org--good/snapshots/" + hashA + "/config.json": string(smol),
	})
	// What "../../../outside" points at from a snapshot: never read.
	if err := os.MkdirAll(filepath.Join(hub, "..", "outside"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(hub, "..", "outside", "config.json"), smol, 0o644)
	if err := os.Symlink("/dev/zero", filepath.Join(hub, "models--org--zero", "refs", "main")); err != nil {
		os.MkdirAll(filepath.Join(hub, "models--org--zero", "refs"), 0o755)
		if err := os.Symlink("/dev/zero", filepath.Join(hub, "models--org--zero", "refs", "main")); err != nil {
			t.Skip(err)
		}
	}
	os.MkdirAll(filepath.Join(hub, "models--org--fifo", "refs"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(hub, "models--org--fifo", "refs", "main"), 0o600); err != nil {
		t.Skip(err)
	}
	cat, _ := Builtin()
	for id, want := range map[string]string{
		"org/escape": `refs/main holds "../../../outside", not a commit hash (40 hexadecimal digits)`,
		"org/long":   "refs/main: larger than 256 B, the limit for a Hugging Face cache ref",
		"org/zero":   "not a regular file",
		"org/fifo":   "not a regular file",
		"org/dir":    "refs/main: is a directory",
	} {
		done := make(chan error, 1)
		go func() { _, err := cat.Model(id); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Hugging Face cache") {
				t.Errorf("%s: %v, want %q", id, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: hung", id)
		}
	}
	if s, err := cat.Model("org/good"); err != nil || s.Hidden == 0 {
		t.Errorf("a good ref: %v", err)
	}
}
