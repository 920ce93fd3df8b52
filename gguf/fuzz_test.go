package gguf_test

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roofline/roofline/gguf"
)

// FuzzSplit reads a two-part split set whose second part is arbitrary:
// no panic, and a set that loads prices every tensor once.
func FuzzSplit(f *testing.F) {
	h, _ := header(f, "llama-3.2-1b", "q4_k_m")
	num := func(v float64) gguf.Value { return gguf.Value{Num: v, IsNum: true} }
	half := len(h.Tensors) / 2
	md := map[string]gguf.Value{}
	for k, v := range h.Metadata {
		md[k] = v
	}
	md["split.no"], md["split.count"] = num(0), num(2)
	first := encode(f, &gguf.File{Version: 3, Metadata: md, Tensors: h.Tensors[:half]})
	f.Add(encode(f, &gguf.File{Version: 3, Metadata: map[string]gguf.Value{"split.no": num(1), "split.count": num(2)}, Tensors: h.Tensors[half:]}))
	f.Add(first)
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "m-00001-of-00002.gguf"), first, 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, second []byte) {
		if err := os.WriteFile(filepath.Join(dir, "m-00002-of-00002.gguf"), second, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := gguf.Load(filepath.Join(dir, "m-00001-of-00002.gguf"))
		if err != nil {
			return
		}
		if !(m.Bytes > 0) || math.IsInf(m.Bytes, 0) {
			t.Fatalf("file bytes %v", m.Bytes)
		}
		seen := map[string]bool{}
		f, _ := gguf.Open(filepath.Join(dir, "m-00002-of-00002.gguf"))
		for _, tn := range f.Tensors {
			if seen[tn.Name] {
				t.Fatalf("tensor %s twice", tn.Name)
			}
			seen[tn.Name] = true
		}
	})
}

// FuzzRemote serves arbitrary bytes over HTTP range requests in chunks of
// an arbitrary size: reading them remotely gives what reading them from
// memory gives, within the remote limits, and never panics.
func FuzzRemote(f *testing.F) {
	h, _ := header(f, "llama-3.2-1b", "q4_k_m")
	f.Add(encode(f, h), uint32(0))
	f.Add(encode(f, h), uint32(100))
	f.Add([]byte("GGUF\x03\x00\x00\x00"), uint32(1))
	var data atomic.Value
	var capAt atomic.Uint32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := data.Load().([]byte)
		if c := int(capAt.Load()); c > 0 && c < len(b) {
			// A server that caps its responses: ranges are honoured up to
			// c bytes, as some CDNs do.
			r.Header.Set("Range", capRange(r.Header.Get("Range"), c))
		}
		http.ServeContent(w, r, "m.gguf", time.Time{}, bytes.NewReader(b))
	}))
	f.Cleanup(srv.Close)
	saved := gguf.Remote
	// A budget of 256 least chunks: no input costs more than 256 requests.
	gguf.Remote = gguf.RemoteLimits{Deadline: 2 * time.Second, Bytes: 64 << 10, MinChunk: 256}
	f.Cleanup(func() { gguf.Remote = saved })
	f.Fuzz(func(t *testing.T, b []byte, chunk uint32) {
		data.Store(b)
		capAt.Store(chunk % 4096)
		remote, rerr := gguf.Open(srv.URL + "/m.gguf")
		local, lerr := gguf.Read(bytes.NewReader(b))
		if (rerr == nil) != (lerr == nil) {
			if rerr != nil && (int(chunk%4096) > 0 && int(chunk%4096) < 256 ||
				strings.Contains(rerr.Error(), "over all parts")) {
				return // below the least useful chunk, past the budget: refused by design
			}
			t.Fatalf("remote error %v, local error %v", rerr, lerr)
		}
		if rerr == nil && (len(remote.Tensors) != len(local.Tensors) || len(remote.Metadata) != len(local.Metadata)) {
			t.Fatalf("remote %d tensors %d keys, local %d, %d", len(remote.Tensors), len(remote.Metadata), len(local.Tensors), len(local.Metadata))
		}
	})
}

// capRange shortens "bytes=a-b" to at most c bytes.
func capRange(r string, c int) string {
	var a, b int
	if n, _ := fmt.Sscanf(r, "bytes=%d-%d", &a, &b); n != 2 || b-a+1 <= c {
		return r
	}
	return "bytes=" + strconv.Itoa(a) + "-" + strconv.Itoa(a+c-1)
}
