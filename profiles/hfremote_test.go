package profiles

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roofline/roofline/hfhub"
)

const hubCommit = "c0ffee0000000000000000000000000000000001"

// fakeHub is an in-process Hugging Face Hub: org/smol has a config.json,
// org/llama-GGUF three GGUF files (two quantizations and a vision
// projector), org/broken a config.json with a string where a number
// belongs, org/gated is gated. requests counts what it was asked.
func fakeHub(t *testing.T, requests *atomic.Int64, auth *atomic.Value) *httptest.Server {
	t.Helper()
	smol, err := os.ReadFile("../model/testdata/hf/smollm3-3b.json")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"org/smol/config.json":                     smol,
		"org/broken/config.json":                   []byte("{\n  \"model_type\": \"llama\",\n  \"hidden_size\": \"2048\"\n}\n"),
		"org/llama-GGUF/Llama-3.2-1B-Q4_K_M.gguf":  ggufFile(t, "llama-3.2-1b", "q4_k_m"),
		"org/llama-GGUF/Llama-3.2-1B-Q8_0.gguf":    ggufFile(t, "llama-3.2-1b", "q8_0"),
		"org/llama-GGUF/mmproj-Llama-3.2-F16.gguf": []byte("not a model"),
	}
	listing := func(id string) string {
		var sib []string
		for f := range files {
			if strings.HasPrefix(f, id+"/") {
				sib = append(sib, fmt.Sprintf(`{"rfilename": %q}`, strings.TrimPrefix(f, id+"/")))
			}
		}
		return fmt.Sprintf(`{"id": %q, "sha": %q, "siblings": [%s]}`, id, hubCommit, strings.Join(sib, ","))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if auth != nil {
			auth.Store(r.Header.Get("Authorization"))
		}
		p := r.URL.Path
		switch {
		case p == "/api/models/org/gated/revision/main":
			w.Header().Set("X-Error-Code", "GatedRepo")
			w.WriteHeader(http.StatusUnauthorized)
		case p == "/api/models/org/smol/revision/main", p == "/api/models/org/llama-GGUF/revision/main", p == "/api/models/org/broken/revision/main":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, listing(strings.TrimSuffix(strings.TrimPrefix(p, "/api/models/"), "/revision/main")))
		case strings.Contains(p, "/resolve/"+hubCommit+"/"):
			f, ok := files[strings.Replace(strings.TrimPrefix(p, "/"), "/resolve/"+hubCommit, "", 1)]
			if !ok {
				w.Header().Set("X-Error-Code", "EntryNotFound")
				w.WriteHeader(http.StatusNotFound)
				return
			}
			// GGUF files only by range, as the Hub's CDN serves them.
			http.ServeContent(w, r, filepath.Base(p), time.Time{}, bytes.NewReader(f))
		default:
			w.Header().Set("X-Error-Code", "RepoNotFound")
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// online points the Hub at srv with a fresh cache.
func online(t *testing.T, srv *httptest.Server, token string) string {
	home := t.TempDir()
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HUGGINGFACE_HUB_CACHE", "")
	t.Setenv("HF_HOME", home)
	t.Setenv("HF_ENDPOINT", srv.URL)
	t.Setenv("HF_TOKEN", token)
	t.Setenv("HF_HUB_OFFLINE", "0")
	return filepath.Join(home, "hub")
}

// A config.json is fetched once, cached as huggingface_hub caches it,
// and read from the cache on the next run, offline.
func TestModelFromHubConfig(t *testing.T) {
	var requests atomic.Int64
	var auth atomic.Value
	srv := fakeHub(t, &requests, &auth)
	hub := online(t, srv, "hf_t0k3n")
	cat, _ := Builtin()
	s, err := cat.Model("org/smol")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "org/smol" || s.Source != "config.json of org/smol from "+srv.URL+" (commit c0ffee000000)" || s.Architecture != "llama" {
		t.Errorf("fetched: %q from %q (%s)", s.Name, s.Source, s.Architecture)
	}
	if auth.Load() != "Bearer hf_t0k3n" {
		t.Errorf("Authorization %q", auth.Load())
	}
	if b, _ := os.ReadFile(filepath.Join(hub, "models--org--smol", "refs", "main")); string(b) != hubCommit {
		t.Errorf("refs/main %q", b)
	}
	asked := requests.Load()
	t.Setenv("HF_HUB_OFFLINE", "1")
	s, err = cat.Model("org/smol")
	if err != nil || s.Source != "config.json of org/smol in the Hugging Face cache (snapshot "+hubCommit+")" {
		t.Errorf("second run: %v, %v", s, err)
	}
	if requests.Load() != asked {
		t.Errorf("the second run asked the Hub %d times", requests.Load()-asked)
	}
}

// A GGUF repository: the Q4_K_M file by default (said so), another by
// its quantization or its name; the header is read by range, kept beside
// the cache's snapshots, and read from there offline.
func TestModelFromHubGGUF(t *testing.T) {
	var requests atomic.Int64
	srv := fakeHub(t, &requests, nil)
	hub := online(t, srv, "")
	cat, _ := Builtin()
	for _, c := range []struct{ name, file, note string }{
		{"org/llama-GGUF", "Llama-3.2-1B-Q4_K_M.gguf", "org/llama-GGUF holds 2 GGUF files: read Llama-3.2-1B-Q4_K_M.gguf, the Q4_K_M one, as 'ollama run hf.co/org/llama-GGUF' and llama.cpp's -hf choose by default; name another as org/llama-GGUF:QUANT (Q4_K_M, Q8_0)"},
		{"org/llama-GGUF:Q8_0", "Llama-3.2-1B-Q8_0.gguf", ""},
		{"hf.co/org/llama-GGUF:q8_0", "Llama-3.2-1B-Q8_0.gguf", ""},
		{"org/llama-GGUF:Llama-3.2-1B-Q4_K_M.gguf", "Llama-3.2-1B-Q4_K_M.gguf", ""},
	} {
		s, err := cat.Model(c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		// The first read of a file asks the Hub; a later one of a file
		// whose header is kept reads the cache.
		fromHub := s.Source == "GGUF header of "+c.file+" of org/llama-GGUF from "+srv.URL+" (commit c0ffee000000)"
		fromCache := s.Source == "GGUF header (kept by roofline) of "+c.file+" of org/llama-GGUF in the Hugging Face cache (snapshot "+hubCommit+")"
		if s.FileWeights == nil || !(fromHub || fromCache) {
			t.Errorf("%s: source %q, file weights %v", c.name, s.Source, s.FileWeights != nil)
		}
		if notes := strings.Join(s.FileNotes, "\n"); c.note != "" && !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q", c.name, notes)
		}
	}
	kept := filepath.Join(hub, "models--org--llama-GGUF", "roofline-gguf-headers", hubCommit, "Llama-3.2-1B-Q8_0.gguf")
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the header is not kept: %v", err)
	}
	if snaps, _ := filepath.Glob(filepath.Join(hub, "models--org--llama-GGUF", "snapshots", "*", "*.gguf")); len(snaps) > 0 {
		t.Errorf("a header in a snapshot passes for the model: %v", snaps)
	}
	asked := requests.Load()
	t.Setenv("HF_HUB_OFFLINE", "1")
	for _, name := range []string{"org/llama-GGUF:Q8_0", "org/llama-GGUF"} {
		s, err := cat.Model(name)
		if err != nil || !strings.HasPrefix(s.Source, "GGUF header (kept by roofline) of Llama-3.2-1B-") {
			t.Errorf("%s offline: %v, %v", name, s, err)
		}
	}
	if requests.Load() != asked {
		t.Errorf("the offline runs asked the Hub %d times", requests.Load()-asked)
	}
	for name, want := range map[string]string{
		"org/llama-GGUF:Q5_K_M": "org/llama-GGUF has no Q5_K_M file; its file types: Q4_K_M, Q8_0",
		"org/llama-GGUF:Q8_1":   "did you mean org/llama-GGUF:Q8_0?",
		"org/llama-GGUF:x.gguf": "org/llama-GGUF has no file x.gguf",
	} {
		t.Setenv("HF_HUB_OFFLINE", "0")
		if _, err := cat.Model(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}

// Gated, missing: what to do, the token never shown.
func TestModelFromHubErrors(t *testing.T) {
	var requests atomic.Int64
	srv := fakeHub(t, &requests, nil)
	online(t, srv, "hf_t0k3n")
	cat, _ := Builtin()
	_, err := cat.Model("org/gated")
	var he *hfhub.Error
	if !errors.As(err, &he) || he.Kind != hfhub.Gated || !strings.Contains(err.Error(), "HF_TOKEN") || strings.Contains(err.Error(), "hf_t0k3n") {
		t.Errorf("gated: %v", err)
	}
	_, err = cat.Model("Qwen/Qwen3-0.7B")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "Qwen/Qwen3-0.7B does not exist on "+srv.URL) ||
		!strings.Contains(err.Error(), "did you mean Qwen/Qwen3-0.6B (qwen3-0.6b)") || strings.Contains(err.Error(), "hf_t0k3n") {
		t.Errorf("missing: %v", err)
	}
	// A config.json that does not decode is named once, with the repo
	// and the Hub it came from, and told at its line.
	_, err = cat.Model("org/broken")
	if want := "config.json of org/broken from " + srv.URL + ": line 3"; err == nil || !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), "config.json") != 1 {
		t.Errorf("broken config.json: %v; want it to begin %q, naming config.json once", err, want)
	}
	srv.Close()
	_, err = cat.Model("org/smol")
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "cannot reach "+srv.URL) || !strings.Contains(err.Error(), "HF_HUB_OFFLINE=1") {
		t.Errorf("no network: %v", err)
	}
}
