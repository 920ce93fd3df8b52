package safeio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

func TestReadFileLimits(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(small, 5, "a test file"); err != nil || string(b) != "hello" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	var le *LimitError
	if _, err := ReadFile(small, 4, "a test file"); !errors.As(err, &le) || !strings.Contains(err.Error(), "larger than 4 B, the limit for a test file") {
		t.Errorf("past the limit: %v", err)
	}
	if _, err := ReadFile(dir, 1<<20, "x"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	// /dev/zero never ends: refused before a byte is read.
	if _, err := ReadFile("/dev/zero", 1<<20, "x"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/zero: %v", err)
	}
	// A link to it is refused too.
	link := filepath.Join(dir, "profile.toml")
	if err := os.Symlink("/dev/zero", link); err == nil {
		if _, err := ReadFile(link, 1<<20, "x"); !errors.Is(err, ErrNotRegular) {
			t.Errorf("link to /dev/zero: %v", err)
		}
	}
	// A FIFO without a writer would block open forever: it is refused
	// before it is opened.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(fifo, 1<<20, "x"); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("fifo: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("fifo: open blocked")
		}
	}
}

// endless is a reader that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

func TestReadAllStopsAtTheLimit(t *testing.T) {
	_, err := ReadAll(endless{}, "stdin", 8<<20, "measured runs")
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != 8<<20 || !strings.Contains(err.Error(), "stdin: larger than 8 MiB") {
		t.Errorf("endless: %v", err)
	}
	b, err := ReadAll(io.LimitReader(endless{}, 3<<20+5), "stdin", 8<<20, "x")
	if err != nil || len(b) != 3<<20+5 {
		t.Errorf("3 MiB + 5: %d bytes, %v", len(b), err)
	}
	b, err = ReadAll(strings.NewReader(""), "stdin", 10, "x")
	if err != nil || len(b) != 0 {
		t.Errorf("empty: %q, %v", b, err)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:secret@host/m.gguf?token=abc&download=true": "https://xxxxx@host/m.gguf?token=xxxxx&download=xxxxx",
		"https://host/m.gguf":                    "https://host/m.gguf",
		"https://tok@host/m.gguf":                "https://xxxxx@host/m.gguf",
		"http://host/a/b.gguf?sig=x%2Fy#frag":    "http://host/a/b.gguf?sig=xxxxx#xxxxx",
		"llama-3.1-8b":                           "llama-3.1-8b",
		"./models/m.gguf":                        "./models/m.gguf",
		"https://user:pa ss@host:bad port/x?k=v": "https://xxxxx@host:bad port/x?k=xxxxx",
		"A://?\x000":                             "A://?xxxxx",
		"https://h/p?a=1&b&c=d=e#f?g=h":          "https://h/p?a=xxxxx&xxxxx&c=xxxxx#xxxxx",
		"https://host/?flag":                     "https://host/?xxxxx",
		// Issue 29 H: a value with no key, a fragment, an encoded '='.
		"http://h/m.gguf?hf_TOKEN":                                        "http://h/m.gguf?xxxxx",
		"http://h/m.gguf#access_token=X":                                  "http://h/m.gguf#access_token=xxxxx",
		"http://h/m.gguf?token%3DX":                                       "http://h/m.gguf?xxxxx",
		"http://h/m.gguf#frag?token=X":                                    "http://h/m.gguf#xxxxx",
		"http://h/m.gguf?&a=1&":                                           "http://h/m.gguf?&a=xxxxx&",
		"http://h/m.gguf?hf_abcdefghijklmnopqrstuvwxyz0123456789=":        "http://h/m.gguf?xxxxx",
		"meta-llama/Llama-3.1-8B":                                         "meta-llama/Llama-3.1-8B",
		"https://a:b@huggingface.co/r/resolve/main/m-00001-of-00002.gguf": "https://xxxxx@huggingface.co/r/resolve/main/m-00001-of-00002.gguf",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactText(t *testing.T) {
	in := `model "https://me:pw@h.example/m.gguf?token=t0k": HTTP 404 Not Found (see https://h.example/x?a=1).`
	got := RedactText(in)
	for _, secret := range []string{"me:pw", "t0k", "a=1"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q kept %q", got, secret)
		}
	}
	if !strings.Contains(got, `"https://xxxxx@h.example/m.gguf?token=xxxxx"`) || !strings.HasSuffix(got, "?a=xxxxx).") {
		t.Errorf("got %q", got)
	}
	var b bytes.Buffer
	if n, err := (Writer{W: &b}).Write([]byte(in)); err != nil || n != len(in) || b.String() != got {
		t.Errorf("Writer: %d, %v, %q", n, err, b.String())
	}
}

type inner struct {
	X float64 `json:"x"`
}

type outer struct {
	Name   string             `json:"name"`
	Rate   float64            `json:"rate"`
	Skip   float64            `json:"-"`
	Opt    float64            `json:"opt,omitempty"`
	Ptr    *float64           `json:"ptr"`
	List   []float64          `json:"list"`
	Map    map[string]float64 `json:"map"`
	Raw    json.RawMessage    `json:"raw"`
	Nested inner              `json:"nested"`
	inner
}

// Finite writes what encoding/json writes, with null for NaN and Inf.
func TestFinite(t *testing.T) {
	one := 1.0
	ok := outer{Name: "a<b", Rate: 2, Ptr: &one, List: []float64{1, 2}, Map: map[string]float64{"b": 1, "a": 2}, Raw: json.RawMessage(`{"k":1}`), Nested: inner{3}, inner: inner{4}}
	want, _ := json.Marshal(ok)
	got, err := json.Marshal(Finite(ok))
	if err != nil || string(got) != string(want) {
		t.Errorf("finite values:\n got %s %v\nwant %s", got, err, want)
	}
	nan := math.NaN()
	bad := ok
	bad.Rate, bad.Ptr, bad.List, bad.Map, bad.Nested.X = math.Inf(1), &nan, []float64{1, math.Inf(-1)}, map[string]float64{"a": nan}, nan
	if _, err := json.Marshal(bad); err == nil {
		t.Fatal("encoding/json accepted NaN")
	}
	got, err = json.Marshal(Finite(bad))
	if err != nil {
		t.Fatal(err)
	}
	const wantBad = `{"name":"a\u003cb","rate":null,"ptr":null,"list":[1,null],"map":{"a":null},"raw":{"k":1},"nested":{"x":null},"x":4}`
	if string(got) != wantBad {
		t.Errorf("non-finite values:\n got %s\nwant %s", got, wantBad)
	}
}

// FuzzRedact: redaction never panics, is idempotent, and hides the
// password and every query value of a URL that has them.
func FuzzRedact(f *testing.F) {
	f.Add("https://user:secret@host/m.gguf?token=abc&x=1")
	f.Add("http://h/x?%zz")
	f.Add("see https://a:b@c/d?e=f, then")
	f.Fuzz(func(t *testing.T, s string) {
		r := RedactURL(s)
		if RedactURL(r) != r {
			t.Fatalf("not idempotent: %q → %q → %q", s, r, RedactURL(r))
		}
		if txt := RedactText(s); RedactText(txt) != txt {
			t.Fatalf("text not idempotent: %q → %q", s, txt)
		}
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "" || u.Opaque != "" || !strings.HasPrefix(s, u.Scheme+"://") {
			return
		}
		if pw, ok := u.User.Password(); ok && len(pw) >= 4 && strings.Contains(r, pw) && !strings.Contains(u.Host+u.Path, pw) {
			t.Fatalf("password %q kept in %q", pw, r)
		}
		// Every query and fragment value is hidden, whatever its shape:
		// each part is empty, hidden, or a plain key with a hidden value.
		ru, err := url.Parse(r)
		if err != nil {
			return
		}
		frag := ru.RawFragment
		if frag == "" {
			frag = ru.Fragment
		}
		for _, p := range append(strings.Split(ru.RawQuery, "&"), strings.Split(frag, "&")...) {
			if k, v, ok := strings.Cut(p, "="); p != "" && p != Hidden && !(ok && plainKey(k) && v == Hidden) {
				t.Fatalf("%q kept in %q", p, r)
			}
		}
	})
}

// A message quotes a bounded part of its input.
func TestClip(t *testing.T) {
	digits := strings.Repeat("9", 100000)
	got := Clip("rate " + digits + " is too large")
	// 256 bytes kept before, 64 after, and the count of the 99,680 left out.
	if want := "rate " + digits[:256] + "…[99680 bytes]…" + digits[:64] + " is too large"; got != want {
		t.Errorf("a long number: %.400q", got)
	}
	if s := "a short message"; Clip(s) != s {
		t.Errorf("short: %q", Clip(s))
	}
	// 5,000 names on one line: cut at 64 KiB.
	names := strings.Repeat("model-00001-of-00002.gguf, ", 5000)
	if got := Clip(names + "\n"); len(got) > 64<<10+64 || !strings.Contains(got, "more bytes]") || !strings.HasSuffix(got, "\n") {
		t.Errorf("5,000 names: %d bytes, ends %q", len(got), got[len(got)-40:])
	}
	// 1,000 lines: 100 kept, the rest counted.
	many := strings.Repeat("x.toml:1: bad\n", 1000)
	if got := Clip(many); strings.Count(got, "\n") != 101 || !strings.HasSuffix(got, "… 900 more lines\n") {
		t.Errorf("1,000 lines: %d lines, ends %q", strings.Count(got, "\n"), got[len(got)-30:])
	}
	// A multi-byte character is never cut in two.
	if got := Clip(strings.Repeat("é", 1000)); !utf8.ValidString(got) {
		t.Errorf("cut a rune: %q", got)
	}
}

// Errors are told once each, at most limits.Errors of them, and the rest
// counted; errors.As sees the ones kept.
func TestJoinErrors(t *testing.T) {
	if JoinErrors(nil, nil) != nil {
		t.Error("nils joined into an error")
	}
	one := errors.New("one")
	if JoinErrors(nil, one) != one {
		t.Error("one error wrapped")
	}
	var errs []error
	for range 1999 {
		errs = append(errs, errors.New("s.toml:3: figures: plan listed twice"))
	}
	if got := JoinErrors(errs...).Error(); got != "s.toml:3: figures: plan listed twice\n(1998 repeated errors left out)" {
		t.Errorf("1,999 identical: %q", got)
	}
	errs = nil
	for i := range 150 {
		errs = append(errs, &LimitError{Name: fmt.Sprint(i), Limit: 1})
	}
	err := JoinErrors(append(errs, errs[0])...)
	if got := err.Error(); strings.Count(got, "\n") != 20 || !strings.HasSuffix(got, "… and 130 more errors (and 1 repeated)") {
		t.Errorf("150 errors: %q", got)
	}
	var le *LimitError
	if !errors.As(err, &le) || le.Name != "0" {
		t.Errorf("errors.As: %v", le)
	}
}

// TestMissingFile: a file that is not there is a *MissingError naming it,
// still fs.ErrNotExist underneath (callers test for it), with a hint that
// says where a relative path is read from.
func TestMissingFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, name := range []string{"bench.json", filepath.Join(dir, "nope", "x.toml")} {
		_, err := ReadFile(name, 1<<20, "a measured-run file")
		var m *MissingError
		if !errors.As(err, &m) || !errors.Is(err, os.ErrNotExist) || err.Error() != name+": no such file or directory" {
			t.Errorf("%s: %v (%T)", name, err, err)
			continue
		}
		want := "check the path"
		if !filepath.IsAbs(name) {
			want += ": a relative one is read from the current directory, " + dir
		}
		if m.Hint() != want {
			t.Errorf("%s: hint %q, want %q", name, m.Hint(), want)
		}
	}
}
