package hfhub_test

import (
	"context"
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

const (
	commit = "0123456789abcdef0123456789abcdef01234567"
	token  = "hf_s3cr3tT0k3n"
	config = `{"model_type": "llama"}`
)

// hub is an in-process Hub: a repository org/model with a config.json,
// org/gated, and whatever the hostile paths answer.
func hub(t *testing.T, got *atomic.Value) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got != nil {
			got.Store(r.Header.Get("Authorization"))
		}
		switch r.URL.EscapedPath() {
		case "/api/models/org/model/revision/main", "/api/models/org/model/revision/refs%2Fpr%2F1":
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			fmt.Fprintf(w, `{"id": "Org/Model", "sha": %q, "siblings": [{"rfilename": "config.json"}, {"rfilename": "m-Q4_K_M.gguf"}]}`, commit)
		case "/org/model/resolve/" + commit + "/config.json":
			w.Header().Set("ETag", `"`+strings.Repeat("ab", 20)+`"`)
			fmt.Fprint(w, config)
		case "/api/models/org/model/revision/v9":
			w.Header().Set("X-Error-Code", "RevisionNotFound")
			w.WriteHeader(http.StatusNotFound)
		case "/api/models/org/gated/revision/main":
			w.Header().Set("X-Error-Code", "GatedRepo")
			w.WriteHeader(http.StatusForbidden)
		case "/api/models/org/private/revision/main":
			w.WriteHeader(http.StatusUnauthorized)
		case "/api/models/org/missing/revision/main":
			w.Header().Set("X-Error-Code", "RepoNotFound")
			w.WriteHeader(http.StatusUnauthorized) // as the Hub answers without a token
		case "/api/models/org/html/revision/main":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>Sign in</html>")
		case "/api/models/org/huge/revision/main":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "100000000000")
			w.WriteHeader(http.StatusOK)
		case "/api/models/org/endless/revision/main":
			w.Header().Set("Content-Type", "application/json")
			buf := make([]byte, 64<<10)
			for i := 0; i < 1<<12; i++ { // 256 MiB at most
				if _, err := w.Write(buf); err != nil {
					return
				}
			}
		case "/api/models/org/slow/revision/main":
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		case "/api/models/org/loop/revision/main":
			http.Redirect(w, r, srv.URL+r.URL.Path, http.StatusFound)
		case "/api/models/org/bad/revision/main":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"sha": "../../etc"}`)
		case "/api/models/org/down/revision/main":
			w.WriteHeader(http.StatusBadGateway)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func settings(t *testing.T, endpoint, tok string) hfhub.Settings {
	t.Helper()
	t.Setenv("HF_ENDPOINT", endpoint+"/")
	t.Setenv("HF_TOKEN", tok)
	t.Setenv("HF_HUB_OFFLINE", "")
	s, err := hfhub.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRepoAndDownload(t *testing.T) {
	var auth atomic.Value
	srv := hub(t, &auth)
	s := settings(t, srv.URL, token)
	if s.Endpoint != srv.URL {
		t.Errorf("endpoint %q: the trailing slash stays", s.Endpoint)
	}
	r, err := s.Repo(context.Background(), "org/model", "")
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != "Org/Model" || r.Commit != commit || !r.Has("config.json") || !r.Has("m-Q4_K_M.gguf") {
		t.Errorf("repo %+v", r)
	}
	if auth.Load() != "Bearer "+token {
		t.Errorf("the Hub got Authorization %q, want the token as a bearer", auth.Load())
	}
	if _, err := s.Repo(context.Background(), "org/model", "refs/pr/1"); err != nil {
		t.Errorf("a revision with slashes is escaped as one segment: %v", err)
	}
	data, etag, err := s.Download(context.Background(), "org/model", commit, "config.json", 1<<20)
	if err != nil || string(data) != config || etag != strings.Repeat("ab", 20) {
		t.Errorf("download: %q, etag %q, %v", data, etag, err)
	}
}

// Every failure is worded for what the user does next, and none holds
// the token.
func TestErrors(t *testing.T) {
	srv := hub(t, nil)
	saved := hfhub.Deadline
	hfhub.Deadline = 300 * time.Millisecond
	defer func() { hfhub.Deadline = saved }()
	for _, c := range []struct {
		id, rev, tok string
		kind         hfhub.Kind
		want         string
	}{
		{"org/gated", "", "", hfhub.Gated, "org/gated is a gated repository: accept its conditions at " + srv.URL + "/org/gated, then set HF_TOKEN to a read token of that account"},
		{"org/gated", "", token, hfhub.Gated, "with the account HF_TOKEN belongs to (the token was sent and refused)"},
		{"org/private", "", "", hfhub.Denied, "refused access (HTTP 401): a private or gated repository needs HF_TOKEN"},
		{"org/private", "", token, hfhub.Denied, "refused HF_TOKEN (HTTP 401): check the token is valid and can read this repository"},
		{"org/missing", "", "", hfhub.NotFound, "org/missing does not exist on " + srv.URL + " (or it is private: set HF_TOKEN"},
		{"org/nothing", "", "", hfhub.NotFound, "org/nothing does not exist"},
		{"org/model", "v9", "", hfhub.NoRevision, `org/model has no revision "v9"`},
		{"org/html", "", "", hfhub.Bad, "came back as a web page (text/html), not the file: a proxy, a login page or a captive portal"},
		{"org/huge", "", "", hfhub.Bad, "larger than 16 MiB, the limit for the Hub's listing of a repository"},
		{"org/endless", "", "", hfhub.Bad, "larger than 16 MiB, the limit for the Hub's listing of a repository"},
		{"org/slow", "", token, hfhub.Unreachable, "no answer within 300ms"},
		{"org/loop", "", token, hfhub.Unreachable, "more than 10 redirects (a redirect loop?)"},
		{"org/bad", "", "", hfhub.Bad, `gives no commit (sha "../../etc")`},
		{"org/down", "", "", hfhub.Bad, "HTTP 502 Bad Gateway"},
	} {
		s := settings(t, srv.URL, c.tok)
		start := time.Now()
		_, err := s.Repo(context.Background(), c.id, c.rev)
		var he *hfhub.Error
		if !errors.As(err, &he) || he.Kind != c.kind || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s@%s: %v (kind %v), want kind %v and %q", c.id, c.rev, err, he, c.kind, c.want)
			continue
		}
		if strings.Contains(err.Error(), token) || strings.Contains(fmt.Sprintf("%+v", he), token) {
			t.Errorf("%s: the token is in the error: %v", c.id, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v", c.id, d)
		}
	}
}

// No network: the message says so and names the ways round it.
func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	s := settings(t, url, token)
	_, err := s.Repo(context.Background(), "org/model", "")
	var he *hfhub.Error
	if !errors.As(err, &he) || he.Kind != hfhub.Unreachable ||
		!strings.Contains(err.Error(), "cannot reach "+url+" for org/model") ||
		!strings.Contains(err.Error(), "HF_HUB_OFFLINE=1 reads the local Hugging Face cache only, or give a local config.json, checkpoint directory or .gguf file") {
		t.Errorf("unreachable: %v", err)
	}
}

// The token goes to the endpoint's host only: a redirect to another
// host (the Hub's CDN) gets no Authorization.
func TestTokenStaysWithTheHub(t *testing.T) {
	var cdnAuth atomic.Value
	cdnAuth.Store("unset")
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cdnAuth.Store(r.Header.Get("Authorization"))
		fmt.Fprint(w, config)
	}))
	defer cdn.Close()
	// The same server under another host name: localhost, not 127.0.0.1.
	other := strings.Replace(cdn.URL, "127.0.0.1", "localhost", 1)
	var hubAuth atomic.Value
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hubAuth.Store(r.Header.Get("Authorization"))
		http.Redirect(w, r, other+"/blob", http.StatusFound)
	}))
	defer h.Close()
	s := settings(t, h.URL, token)
	data, _, err := s.Download(context.Background(), "org/model", commit, "config.json", 1<<20)
	if err != nil || string(data) != config {
		t.Fatalf("download through a redirect: %q, %v", data, err)
	}
	if hubAuth.Load() != "Bearer "+token || cdnAuth.Load() != "" {
		t.Errorf("Authorization: the Hub got %q, the other host %q (want none)", hubAuth.Load(), cdnAuth.Load())
	}
}

func TestFromEnv(t *testing.T) {
	for _, c := range []struct {
		endpoint, offline string
		want              hfhub.Settings
		err               string
	}{
		{"", "", hfhub.Settings{Endpoint: "https://huggingface.co"}, ""},
		{"https://hf-mirror.com/", "1", hfhub.Settings{Endpoint: "https://hf-mirror.com", Offline: true}, ""},
		{"", "yes", hfhub.Settings{Endpoint: "https://huggingface.co", Offline: true}, ""},
		{"", "0", hfhub.Settings{Endpoint: "https://huggingface.co"}, ""},
		{"ftp://mirror", "", hfhub.Settings{}, `HF_ENDPOINT "ftp://mirror" is not an http(s) URL`},
		{"https://user:pw@mirror/?key=k", "", hfhub.Settings{Endpoint: "https://user:pw@mirror/?key=k"}, ""},
	} {
		t.Setenv("HF_ENDPOINT", c.endpoint)
		t.Setenv("HF_HUB_OFFLINE", c.offline)
		t.Setenv("HF_TOKEN", "")
		s, err := hfhub.FromEnv()
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want %q", c.endpoint, err, c.err)
			}
		case err != nil || s.Endpoint != c.want.Endpoint || s.Offline != c.want.Offline:
			t.Errorf("%q %q: %+v, %v; want %+v", c.endpoint, c.offline, s, err, c.want)
		}
		if strings.Contains(s.Shown(), "pw") || strings.Contains(s.Shown(), "=k") {
			t.Errorf("the endpoint is shown with its secrets: %s", s.Shown())
		}
	}
	t.Setenv("HF_HUB_OFFLINE", "1")
	s, _ := hfhub.FromEnv()
	if _, err := s.Repo(context.Background(), "org/model", ""); !strings.Contains(fmt.Sprint(err), "HF_HUB_OFFLINE is set") {
		t.Errorf("offline: %v", err)
	}
}

// The cache is laid out as huggingface_hub lays it out, so that it and
// roofline read each other's: refs/main, blobs/ETAG, a link in the
// snapshot; headers beside it, never in a snapshot.
func TestSaveFile(t *testing.T) {
	dir := t.TempDir()
	etag := strings.Repeat("ab", 20)
	p, err := hfhub.SaveFile(dir, "Org/Model", "main", commit, "config.json", []byte(config), etag)
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "models--Org--Model")
	if want := filepath.Join(repo, "snapshots", commit, "config.json"); p != want {
		t.Errorf("path %s, want %s", p, want)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != config {
		t.Errorf("snapshot file: %q, %v", b, err)
	}
	if target, err := os.Readlink(p); err != nil || target != filepath.Join("..", "..", "blobs", etag) {
		t.Errorf("snapshot link %q, %v", target, err)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "refs", "main")); string(b) != commit {
		t.Errorf("refs/main holds %q", b)
	}
	// Again, as a second run does: replaced in place.
	if _, err := hfhub.SaveFile(dir, "Org/Model", "main", commit, "config.json", []byte(config), etag); err != nil {
		t.Errorf("again: %v", err)
	}
	h, err := hfhub.SaveHeader(dir, "Org/Model", commit, "sub/m-Q4_K_M.gguf", []byte("GGUF"))
	if err != nil || h != filepath.Join(repo, "roofline-gguf-headers", commit, "sub", "m-Q4_K_M.gguf") {
		t.Errorf("header at %s, %v", h, err)
	}
	left, _ := filepath.Glob(filepath.Join(repo, "*", ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	for _, bad := range []struct{ commit, file string }{
		{"../../../../etc", "config.json"}, {commit, "../config.json"}, {commit, "/etc/passwd"}, {commit, `a\b`}, {commit, "a//b"},
	} {
		if _, err := hfhub.SaveHeader(dir, "Org/Model", bad.commit, bad.file, nil); err == nil {
			t.Errorf("%s %s: saved", bad.commit, bad.file)
		}
	}
}
