package main

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// ggufBytes is a real GGUF header of a built-in model in format w.
func ggufBytes(t *testing.T, name, w string) []byte {
	t.Helper()
	cat, _ := profiles.Builtin()
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

// prediction is what these tests read of predict's JSON.
type prediction struct {
	Model   string `json:"model"`
	Weights string `json:"weights"`
	Runtime string `json:"runtime"`
}

func predictJSON(t *testing.T, args ...string) (prediction, string, int) {
	t.Helper()
	out, errOut, code := runCLI(append([]string{"predict", "--hardware", "raspberry-pi-5-8gb", "--format", "json"}, args...)...)
	var j struct {
		Inputs prediction `json:"inputs"`
	}
	if code == 0 || code == 3 {
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	return j.Inputs, out + errOut, code
}

// Ollama names end to end: a pulled tag is its GGUF, a tag not pulled the
// built-in model in the tag's quantization, said why; bad names exit as
// docs/cli.md says.
func TestOllamaNames(t *testing.T) {
	store := t.TempDir()
	t.Setenv("OLLAMA_MODELS", store)
	const dig = "1111111111111111111111111111111111111111111111111111111111111111"
	for p, content := range map[string]string{
		"manifests/registry.ollama.ai/library/llama3.2/1b": fmt.Sprintf(`{"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:%s"}]}`, dig),
		"manifests/registry.ollama.ai/library/evil/latest": `{"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:../../../../etc/passwd"}]}`,
		"blobs/sha256-" + dig:                              string(ggufBytes(t, "llama-3.2-1b", "q4_k_m")),
	} {
		os.MkdirAll(filepath.Join(store, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(store, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, weights, note string
	}{
		{"llama3.2:1b", "file", ""},
		{"llama3.2:3b", "q4_k_m", "weights q4_k_m: the quantization of Ollama's llama3.2:3b ('ollama list' in attogram/ollama-bash-lib"},
		{"qwen2.5:7b-instruct-q8_0", "q8_0", "weights q8_0: the tag's suffix -q8_0 says so"},
		{"qwen2.5:1.5b", "q4_k_m", "weights q4_k_m: assumed Q4_K_M (Ollama's usual default; not verified for this tag)"},
	} {
		// The notes say why, on stderr beside the JSON (as every note).
		p, out, code := predictJSON(t, "--model", c.name)
		if (code != 0 && code != 3) || p.Model != c.name || p.Weights != c.weights || p.Runtime != "llama.cpp" || !strings.Contains(out, "roofline: warning: "+c.note) {
			t.Errorf("%s: exit %d, %+v\n%s", c.name, code, p, out)
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--model", "qwen2.5:7b-instruct-q8_0", "--weights", "q4_k_m"}, 2, "--weights: qwen2.5:7b-instruct-q8_0 names its weights, q8_0, and q4_k_m was given beside it"},
		{[]string{"--model", "llama3.2:"}, 1, `--model: "llama3.2:" is not an Ollama model name: the tag after ':' is empty`},
		{[]string{"--model", "lama3.2:3b"}, 1, "did you mean llama3.2:3b"},
		{[]string{"--model", "qwen2.5:7b-instruct-q4km"}, 1, `unknown weight format "q4km"; did you mean q4_k_m`},
		{[]string{"--model", "evil"}, 1, `model layer digest "sha256:../../../../etc/passwd" is not a sha256 digest: refused`},
	} {
		_, out, code := predictJSON(t, c.args...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want %d and %q\n%s", c.args, code, c.code, c.want, out)
		}
	}
}

// hubServer is an in-process Hugging Face Hub holding repository id at
// commit with files, which answers only requests that carry token (none
// when empty); asked counts the requests.
func hubServer(t *testing.T, id, commit, token string, files map[string][]byte, asked *int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*asked++
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/api/models/"+id+"/revision/main" {
			var sib []string
			for f := range files {
				sib = append(sib, fmt.Sprintf(`{"rfilename": %q}`, f))
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id": %q, "sha": %q, "siblings": [%s]}`, id, commit, strings.Join(sib, ","))
			return
		}
		f, ok := files[strings.TrimPrefix(r.URL.Path, "/"+id+"/resolve/"+commit+"/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "m.gguf", time.Time{}, bytes.NewReader(f))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A Hugging Face GGUF repository end to end, against an in-process Hub:
// the token reaches the Hub and no output; the second run is offline.
func TestHubModel(t *testing.T) {
	const token = "hf_n0tPr1nt3d"
	files := map[string][]byte{"Llama-3.2-1B-Q4_K_M.gguf": ggufBytes(t, "llama-3.2-1b", "q4_k_m"), "Llama-3.2-1B-Q8_0.gguf": ggufBytes(t, "llama-3.2-1b", "q8_0")}
	var asked int
	srv := hubServer(t, "org/llama-GGUF", "feed000000000000000000000000000000000001", token, files, &asked)
	t.Setenv("HF_HOME", t.TempDir())
	t.Setenv("HF_ENDPOINT", srv.URL)
	t.Setenv("HF_TOKEN", token)
	t.Setenv("HF_HUB_OFFLINE", "0")
	p, out, code := predictJSON(t, "--model", "org/llama-GGUF:Q8_0")
	if code != 0 || p.Weights != "file" || p.Runtime != "llama.cpp" || strings.Contains(out, token) {
		t.Fatalf("exit %d, %+v\n%s", code, p, out)
	}
	t.Setenv("HF_HUB_OFFLINE", "1")
	before := asked
	if _, out, code := predictJSON(t, "--model", "org/llama-GGUF:Q8_0"); code != 0 || asked != before {
		t.Errorf("offline: exit %d, %d requests\n%s", code, asked-before, out)
	}
	t.Setenv("HF_HUB_OFFLINE", "0")
	t.Setenv("HF_TOKEN", "")
	_, out, code = predictJSON(t, "--model", "org/other")
	if code != 1 || !strings.Contains(out, "refused access (HTTP 401): a private or gated repository needs HF_TOKEN") {
		t.Errorf("no token: exit %d\n%s", code, out)
	}
}
