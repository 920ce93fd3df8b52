package gguf

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Client fetches remote headers; tests replace it.
var Client = &http.Client{Timeout: 60 * time.Second}

// rangeChunk is how much of a remote file one range request fetches.
const rangeChunk = 4 << 20

// rangeReader reads a remote file front to back with HTTP range requests.
type rangeReader struct {
	url string
	off int64
	buf []byte
}

func (r *rangeReader) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		if r.off >= MaxHeaderBytes {
			return 0, io.EOF
		}
		req, err := http.NewRequest(http.MethodGet, r.url, nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", r.off, r.off+rangeChunk-1))
		resp, err := Client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusPartialContent:
		case http.StatusRequestedRangeNotSatisfiable:
			return 0, io.EOF
		case http.StatusOK:
			return 0, fmt.Errorf("%s: the server ignores range requests (it answered 200 with the whole file); roofline reads only the header — download it or use a server that supports ranges", r.url)
		default:
			return 0, fmt.Errorf("%s: HTTP %s", r.url, resp.Status)
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, rangeChunk))
		if err != nil {
			return 0, err
		}
		if len(b) == 0 {
			return 0, io.EOF
		}
		r.buf = b
		r.off += int64(len(b))
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

var splitName = regexp.MustCompile(`^(.*)-(\d{5})-of-(\d{5})\.gguf$`)

// IsLocation reports whether s names a GGUF model: a path or an http(s)
// URL ending in .gguf (a URL's query, e.g. ?download=true, aside).
func IsLocation(s string) bool {
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		s, _, _ = strings.Cut(s, "?")
	}
	return strings.HasSuffix(strings.ToLower(s), ".gguf")
}

func readOne(loc string) (*File, error) {
	if strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://") {
		return Read(&rangeReader{url: loc})
	}
	f, err := os.Open(loc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// Open reads the header of the GGUF model at loc: a local path, an
// http(s) URL, or the first part of a split model (name-00001-of-0000N.gguf),
// whose parts' tensor tables are merged.
func Open(loc string) (*File, error) {
	f, err := readOne(loc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loc, err)
	}
	m := splitName.FindStringSubmatch(loc)
	if m == nil {
		return f, nil
	}
	n, _ := strconv.Atoi(m[3])
	if n > 1024 {
		return nil, fmt.Errorf("%s: %d split parts", loc, n)
	}
	for i := 1; i <= n; i++ {
		part := fmt.Sprintf("%s-%05d-of-%s.gguf", m[1], i, m[3])
		if part == loc {
			continue
		}
		pf, err := readOne(part)
		if err != nil {
			return nil, fmt.Errorf("split part %s: %w", part, err)
		}
		f.Tensors = append(f.Tensors, pf.Tensors...)
		if len(f.Tensors) > MaxTensors {
			return nil, errors.New("split parts hold too many tensors")
		}
	}
	return f, nil
}

// Load reads a GGUF model's header and builds its spec.
func Load(loc string) (*Model, error) {
	f, err := Open(loc)
	if err != nil {
		return nil, err
	}
	base, _, _ := strings.Cut(filepath.Base(loc), "?")
	name := strings.TrimSuffix(base, ".gguf")
	if m := splitName.FindStringSubmatch(base); m != nil {
		name = m[1]
	}
	mod, err := ToModel(f, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loc, err)
	}
	mod.Spec.Source = "GGUF header of " + loc
	return mod, nil
}
