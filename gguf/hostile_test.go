package gguf_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/roofline/roofline/gguf"
)

// withRemote runs f under shorter remote limits.
func withRemote(t *testing.T, l gguf.RemoteLimits, f func()) {
	t.Helper()
	saved := gguf.Remote
	gguf.Remote = l
	defer func() { gguf.Remote = saved }()
	f()
}

// hugeArrayHeader is the start of a header whose one metadata value is an
// array of 2^24 uint64 (128 MiB): the reader skips it, reading on.
func hugeArrayHeader() []byte {
	var b []byte
	b = append(b, "GGUF"...)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint64(b, 0) // tensors
	b = binary.LittleEndian.AppendUint64(b, 1) // metadata entries
	b = binary.LittleEndian.AppendUint64(b, 1)
	b = append(b, 'x')
	b = binary.LittleEndian.AppendUint32(b, 9)  // array
	b = binary.LittleEndian.AppendUint32(b, 10) // of uint64
	b = binary.LittleEndian.AppendUint64(b, 1<<24)
	return b
}

var rangeHeader = regexp.MustCompile(`^bytes=(\d+)-(\d+)$`)

func parseRange(t *testing.T, r *http.Request) (int64, int64) {
	m := rangeHeader.FindStringSubmatch(r.Header.Get("Range"))
	if m == nil {
		t.Errorf("request without a range: %q", r.Header.Get("Range"))
		return 0, 0
	}
	a, _ := strconv.ParseInt(m[1], 10, 64)
	b, _ := strconv.ParseInt(m[2], 10, 64)
	return a, b
}

// A server that answers every range and then keeps sending: each
// response is cut at its range and the whole read at the byte budget.
func TestRemoteEndlessBody(t *testing.T) {
	prefix := hugeArrayHeader()
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, b := parseRange(t, r)
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/*", a, b))
		w.WriteHeader(http.StatusPartialContent)
		buf := make([]byte, 64<<10)
		for off := a; ; off += int64(len(buf)) {
			clear(buf)
			if off < int64(len(prefix)) {
				copy(buf, prefix[off:])
			}
			if _, err := w.Write(buf); err != nil {
				return // the client hung up
			}
			if sent.Add(int64(len(buf))) > 1<<30 {
				return
			}
		}
	}))
	defer srv.Close()
	withRemote(t, gguf.RemoteLimits{Deadline: 20 * time.Second, Bytes: 8 << 20, MinChunk: 64 << 10}, func() {
		_, err := gguf.Load(srv.URL + "/m.gguf")
		if err == nil || !strings.Contains(err.Error(), "more than 8 MiB over all parts") {
			t.Errorf("endless body: %v", err)
		}
	})
}

// A server that answers each range with one byte is refused at once
// rather than read a byte per request.
func TestRemoteOneBytePerRequest(t *testing.T) {
	var requests atomic.Int64
	data := encode(t, mustHeader(t))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		a, _ := parseRange(t, r)
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, a, len(data)))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(data[a : a+1])
	}))
	defer srv.Close()
	_, err := gguf.Load(srv.URL + "/m.gguf")
	if err == nil || !strings.Contains(err.Error(), "sent 1 bytes for a range of") {
		t.Errorf("one byte per request: %v", err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// A server slower than the deadline is cut off by it.
func TestRemoteDeadline(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer srv.Close()
	withRemote(t, gguf.RemoteLimits{Deadline: 200 * time.Millisecond, Bytes: 64 << 20, MinChunk: 64 << 10}, func() {
		start := time.Now()
		_, err := gguf.Load(srv.URL + "/m.gguf")
		if err == nil || !strings.Contains(err.Error(), "took longer than 200ms") {
			t.Errorf("slow server: %v", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
	})
}

func TestRemoteRedirects(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/loop.gguf":
			http.Redirect(w, r, srv.URL+"/loop.gguf", http.StatusFound)
		case "/file.gguf":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		}
	}))
	defer srv.Close()
	if _, err := gguf.Load(srv.URL + "/loop.gguf"); err == nil || !strings.Contains(err.Error(), "more than 10 redirects") {
		t.Errorf("redirect loop: %v", err)
	}
	if _, err := gguf.Load(srv.URL + "/file.gguf"); err == nil || !strings.Contains(err.Error(), "follows http(s) only") {
		t.Errorf("redirect to file: %v", err)
	}
}

// A 1,024-part split URL whose parts each carry a long (skipped) string:
// the byte budget holds over all parts together.
func TestRemoteHugeSplitSet(t *testing.T) {
	part := func(i int) []byte {
		var b []byte
		b = append(b, "GGUF"...)
		b = binary.LittleEndian.AppendUint32(b, 3)
		b = binary.LittleEndian.AppendUint64(b, 0)
		b = binary.LittleEndian.AppendUint64(b, 3)
		for _, kv := range []struct {
			k string
			v uint32
		}{{"split.no", uint32(i)}, {"split.count", 1024}} {
			b = binary.LittleEndian.AppendUint64(b, uint64(len(kv.k)))
			b = append(b, kv.k...)
			b = binary.LittleEndian.AppendUint32(b, 4) // uint32
			b = binary.LittleEndian.AppendUint32(b, kv.v)
		}
		b = binary.LittleEndian.AppendUint64(b, 1)
		b = append(b, 'x')
		b = binary.LittleEndian.AppendUint32(b, 8) // string
		b = binary.LittleEndian.AppendUint64(b, 512<<10)
		return append(b, make([]byte, 512<<10)...)
	}
	var requests atomic.Int64
	re := regexp.MustCompile(`-(\d{5})-of-01024\.gguf$`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		m := re.FindStringSubmatch(r.URL.Path)
		if m == nil {
			http.NotFound(w, r)
			return
		}
		i, _ := strconv.Atoi(m[1])
		http.ServeContent(w, r, "p.gguf", time.Time{}, bytes.NewReader(part(i-1)))
	}))
	defer srv.Close()
	withRemote(t, gguf.RemoteLimits{Deadline: 20 * time.Second, Bytes: 8 << 20, MinChunk: 64 << 10}, func() {
		_, err := gguf.Load(srv.URL + "/m-00001-of-01024.gguf")
		if err == nil || !strings.Contains(err.Error(), "more than 8 MiB over all parts") {
			t.Errorf("huge split set: %v", err)
		}
	})
	if n := requests.Load(); n > 20 {
		t.Errorf("%d requests for an 8 MiB budget of 0.5 MiB parts", n)
	}
}

// User information and query values never reach a message or the source;
// the query still reaches the server (it may be the credential).
func TestRemoteSecretsRedacted(t *testing.T) {
	data := encode(t, mustHeader(t))
	var gotToken atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotToken.Store(r.URL.Query().Get("token"))
		if strings.HasPrefix(r.URL.Path, "/missing") {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "m.gguf", time.Time{}, bytes.NewReader(data))
	}))
	defer srv.Close()
	secret := strings.Replace(srv.URL, "http://", "http://alice:s3cr3t@", 1)
	m, err := gguf.Load(secret + "/llama.gguf?token=t0k3n")
	if err != nil {
		t.Fatal(err)
	}
	if gotToken.Load() != "t0k3n" {
		t.Errorf("the server got token %q", gotToken.Load())
	}
	for _, s := range []string{m.Spec.Source, m.Spec.Name} {
		if strings.Contains(s, "s3cr3t") || strings.Contains(s, "alice") || strings.Contains(s, "t0k3n") {
			t.Errorf("secret in %q", s)
		}
	}
	_, err = gguf.Load(secret + "/missing-00001-of-00002.gguf?token=t0k3n")
	if err == nil || strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "t0k3n") || !strings.Contains(err.Error(), "404") {
		t.Errorf("error: %v", err)
	}
}

func mustHeader(t *testing.T) *gguf.File {
	f, _ := header(t, "llama-3.2-1b", "q4_k_m")
	return f
}

// Split parts are checked one by one: a part copied over another, a
// missing part, a tensor in two parts and a tensor count that does not
// add up are errors, not sums.
func TestSplitSetChecks(t *testing.T) {
	f, total := header(t, "llama-3.2-1b", "q4_k_m")
	num := func(v float64) gguf.Value { return gguf.Value{Num: v, IsNum: true} }
	third := len(f.Tensors) / 3
	parts := func() []*gguf.File {
		md0 := map[string]gguf.Value{}
		for k, v := range f.Metadata {
			md0[k] = v
		}
		md0["split.no"], md0["split.count"], md0["split.tensors.count"] = num(0), num(3), num(float64(len(f.Tensors)))
		return []*gguf.File{
			{Version: 3, Metadata: md0, Tensors: f.Tensors[:third]},
			{Version: 3, Metadata: map[string]gguf.Value{"split.no": num(1), "split.count": num(3)}, Tensors: f.Tensors[third : 2*third]},
			{Version: 3, Metadata: map[string]gguf.Value{"split.no": num(2), "split.count": num(3)}, Tensors: f.Tensors[2*third:]},
		}
	}
	write := func(t *testing.T, ps []*gguf.File) string {
		dir := t.TempDir()
		for i, p := range ps {
			if p == nil {
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m-%05d-of-00003.gguf", i+1)), encode(t, p), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	t.Run("good", func(t *testing.T) {
		dir := write(t, parts())
		// Any part names the set.
		for _, p := range []string{"m-00001-of-00003.gguf", "m-00003-of-00003.gguf"} {
			m, err := gguf.Load(filepath.Join(dir, p))
			if err != nil || m.Bytes != total {
				t.Errorf("%s: %v, %.0f B want %.0f", p, err, m.Bytes, total)
			}
		}
	})
	for name, c := range map[string]struct {
		edit func([]*gguf.File) []*gguf.File
		want string
	}{
		"part copied over another": {func(p []*gguf.File) []*gguf.File { p[2] = p[1]; return p }, "split.no is 1: this file is part 2"},
		"missing part":             {func(p []*gguf.File) []*gguf.File { p[1] = nil; return p }, "split part m-00002-of-00003.gguf is missing or not a regular file: every one of the 3 parts is needed"},
		"tensor in two parts": {func(p []*gguf.File) []*gguf.File {
			p[2].Tensors = append(append([]gguf.TensorInfo{}, p[2].Tensors...), p[0].Tensors[0])
			return p
		}, "is also in part 1"},
		"tensor count": {func(p []*gguf.File) []*gguf.File {
			p[0].Metadata["split.tensors.count"] = num(float64(len(f.Tensors) + 1))
			return p
		}, "split.tensors.count says"},
		"split count": {func(p []*gguf.File) []*gguf.File { p[1].Metadata["split.count"] = num(4); return p }, "split.count is 4"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := write(t, c.edit(parts()))
			if _, err := gguf.Load(filepath.Join(dir, "m-00001-of-00003.gguf")); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want %q", err, c.want)
			}
		})
	}
}

// A tensor listed twice in one file was summed twice.
func TestDuplicateTensor(t *testing.T) {
	f := mustHeader(t)
	f.Tensors = append(f.Tensors, f.Tensors[5])
	got, err := gguf.Read(bytes.NewReader(encode(t, f)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gguf.ToModel(got, "m"); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("duplicate tensor: %v", err)
	}
}

// sliding_window_pattern sized an allocation before any check: 2·10⁹ in a
// header of a few kilobytes ran out of memory.
func TestHugeSlidingWindowPattern(t *testing.T) {
	f, _ := header(t, "gemma-3-4b", "q4_k_m")
	f.Metadata["gemma3.attention.sliding_window_pattern"] = gguf.Value{Num: 2e9, IsNum: true}
	got, err := gguf.Read(bytes.NewReader(encode(t, f)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gguf.ToModel(got, "m"); err == nil || !strings.Contains(err.Error(), "sliding_window_pattern 2000000000 exceeds the limit") {
		t.Errorf("huge pattern: %v", err)
	}
	f.Metadata["gemma3.block_count"] = gguf.Value{Num: 1e19, IsNum: true}
	f.Metadata["gemma3.attention.sliding_window_pattern"] = gguf.Value{Num: 6, IsNum: true}
	got, _ = gguf.Read(bytes.NewReader(encode(t, f)))
	if _, err := gguf.ToModel(got, "m"); err == nil || !strings.Contains(err.Error(), "num_hidden_layers 1099511627776 exceeds the limit") {
		t.Errorf("huge block count: %v", err)
	}
}

// Local special files are refused, never read.
func TestSpecialFilesRefused(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "zero.gguf")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Skip(err)
	}
	if _, err := gguf.Load(link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("/dev/zero: %v", err)
	}
}

// Every number ToModel reads is a whole count: a float, a bool or a
// negative entry is an error naming the key (issue 29 L: block_count 2.5
// was read as 2 and true as 1, head_count_kv [-1, 2] as 2).
func TestCountKeysAreWholeCounts(t *testing.T) {
	for _, c := range []struct {
		key  string
		v    gguf.Value
		want string
	}{
		{"llama.block_count", gguf.Value{Num: 2.5, IsNum: true}, "llama.block_count is 2.5 (a float), not a whole count"},
		{"llama.block_count", gguf.Value{Num: 16, IsNum: true, IsFloat: true}, "llama.block_count is 16 (a float), not a whole count"},
		{"llama.block_count", gguf.Value{Num: 1, Bool: true, IsNum: true, IsBool: true}, "llama.block_count is 1 (a bool), not a whole count"},
		{"llama.attention.head_count_kv", gguf.Value{Arr: []float64{-1, 2}, Len: 2}, "llama.attention.head_count_kv is an array holding -1 (a number), not a whole count"},
	} {
		f := mustHeader(t)
		f.Metadata[c.key] = c.v
		got, err := gguf.Read(bytes.NewReader(encode(t, f)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gguf.ToModel(got, "m"); err == nil || err.Error() != c.want {
			t.Errorf("%s = %+v: %v, want %q", c.key, c.v, err, c.want)
		}
	}
}

// A metadata key written twice was read as its last value (llama.cpp
// finds the first): the header is refused, naming the key.
func TestDuplicateMetadataKey(t *testing.T) {
	var b []byte
	b = append(b, "GGUF"...)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint64(b, 0) // tensors
	b = binary.LittleEndian.AppendUint64(b, 2) // metadata entries
	for _, v := range []uint32{16, 2} {
		k := "llama.block_count"
		b = binary.LittleEndian.AppendUint64(b, uint64(len(k)))
		b = append(b, k...)
		b = binary.LittleEndian.AppendUint32(b, 4) // uint32
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	if _, err := gguf.Read(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), `metadata key "llama.block_count" appears twice`) {
		t.Errorf("duplicate key: %v", err)
	}
}

// A local split set is checked whole before any part is read, and read
// within one byte budget: eight parts of 400 MB headers were read (30 s)
// before a missing ninth part was found.
func TestLocalSplitBudget(t *testing.T) {
	dir := t.TempDir()
	// Nine parts, each a header holding one 512 KiB string.
	part := func(i, n int) []byte {
		var b []byte
		b = append(b, "GGUF"...)
		b = binary.LittleEndian.AppendUint32(b, 3)
		b = binary.LittleEndian.AppendUint64(b, 0)
		b = binary.LittleEndian.AppendUint64(b, 3)
		for _, kv := range []struct {
			k string
			v uint32
		}{{"split.no", uint32(i)}, {"split.count", uint32(n)}} {
			b = binary.LittleEndian.AppendUint64(b, uint64(len(kv.k)))
			b = append(b, kv.k...)
			b = binary.LittleEndian.AppendUint32(b, 4)
			b = binary.LittleEndian.AppendUint32(b, kv.v)
		}
		b = binary.LittleEndian.AppendUint64(b, 1)
		b = append(b, 'x')
		b = binary.LittleEndian.AppendUint32(b, 8)
		b = binary.LittleEndian.AppendUint64(b, 512<<10)
		return append(b, make([]byte, 512<<10)...)
	}
	name := func(i, n int) string { return filepath.Join(dir, fmt.Sprintf("big-%05d-of-%05d.gguf", i+1, n)) }
	for i := 0; i < 8; i++ {
		if err := os.WriteFile(name(i, 9), part(i, 9), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Part 9 missing: found before a byte is read (a FIFO for part 8 would
	// hang the read, were it opened).
	os.Remove(name(7, 9))
	if err := syscall.Mkfifo(name(7, 9), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := gguf.Open(name(0, 9))
	if err == nil || !strings.Contains(err.Error(), "2 of the 9 split parts are missing or not regular files (big-00008-of-00009.gguf, big-00009-of-00009.gguf): every part is needed") {
		t.Errorf("missing part: %v", err)
	}
	// Every part there: the set's headers share one budget.
	for i := 0; i < 4; i++ {
		if err := os.WriteFile(name(i, 4), part(i, 4), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	saved := gguf.LocalBytes
	defer func() { gguf.LocalBytes = saved }()
	gguf.LocalBytes = 3 << 20
	if _, err := gguf.Open(name(0, 4)); err != nil {
		t.Errorf("4 parts of 512 KiB within 3 MiB: %v", err)
	}
	gguf.LocalBytes = 1 << 20
	if _, err := gguf.Open(name(0, 4)); err == nil || !strings.Contains(err.Error(), "big-00002-of-00004.gguf: the headers take more than 1 MiB over all parts, the limit for a local model") {
		t.Errorf("4 parts of 512 KiB within 1 MiB: %v", err)
	}
}

// RemoteOptions: the header reaches the server with every range, and
// Keep is handed exactly the header, which reads back to the same file.
func TestRemoteOptions(t *testing.T) {
	data := encode(t, mustHeader(t))
	var auth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		http.ServeContent(w, r, "m.gguf", time.Time{}, bytes.NewReader(append(data, make([]byte, 1<<20)...)))
	}))
	defer srv.Close()
	var kept []byte
	var keptURL string
	f, err := gguf.OpenRemote(t.Context(), srv.URL+"/m.gguf", gguf.RemoteOptions{
		Header: http.Header{"Authorization": []string{"Bearer hf_secret"}},
		Keep:   func(u string, h []byte) { keptURL, kept = u, append([]byte(nil), h...) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if auth.Load() != "Bearer hf_secret" {
		t.Errorf("the server got Authorization %q", auth.Load())
	}
	if keptURL != srv.URL+"/m.gguf" || int64(len(kept)) != f.HeaderSize || !bytes.Equal(kept, data[:f.HeaderSize]) {
		t.Errorf("kept %d bytes of %s, want the %d of the header", len(kept), keptURL, f.HeaderSize)
	}
	back, err := gguf.Read(bytes.NewReader(kept))
	if err != nil || len(back.Tensors) != len(f.Tensors) || back.HeaderSize != f.HeaderSize {
		t.Errorf("the kept header reads back as %v, %v", back, err)
	}
}
