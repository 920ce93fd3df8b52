package gguf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/safeio"
)

// Client fetches remote headers; tests replace it. It follows at most
// limits.RemoteRedirects redirects, and only to http(s) URLs.
var Client = &http.Client{Timeout: limits.RemoteRequestTimeout, CheckRedirect: safeio.CheckRedirect}

// Remote bounds one remote read, over every split part: an overall
// deadline, a byte budget, and the least a range response must carry.
// Tests shorten them.
var Remote = RemoteLimits{Deadline: limits.RemoteDeadline, Bytes: limits.RemoteBytes, MinChunk: limits.RemoteMinChunk}

// RemoteLimits are the bounds of a remote read.
type RemoteLimits struct {
	Deadline time.Duration
	Bytes    int64
	MinChunk int
}

// rangeChunk is how much of a remote file one range request asks for.
const rangeChunk = 4 << 20

// budget is what a remote model's reads have left, shared by its parts.
type budget struct {
	ctx   context.Context
	bytes int64
	lim   RemoteLimits
}

// RemoteOptions change how a remote model is read.
type RemoteOptions struct {
	// Header is sent with every range request: a bearer token for a
	// private repository. net/http drops an Authorization header on a
	// redirect to another host, so a token never reaches a CDN.
	Header http.Header
	// Keep, when set, is handed the header bytes of each file read, by
	// its URL: a caller that caches headers keeps them.
	Keep func(url string, header []byte)
}

// rangeReader reads a remote file front to back with HTTP range requests.
type rangeReader struct {
	url    string
	header http.Header
	b      *budget
	off    int64
	size   int64 // the file's size when a response said it, else -1
	buf    []byte
}

var contentRange = regexp.MustCompile(`^bytes (\d+)-(\d+)/(\d+|\*)$`)

func (r *rangeReader) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		if err := r.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// fill fetches the next chunk.
func (r *rangeReader) fill() error {
	if r.size >= 0 && r.off >= r.size {
		return io.EOF
	}
	if r.off >= MaxHeaderBytes {
		return io.EOF
	}
	want := int64(rangeChunk)
	if r.b.bytes < want {
		want = r.b.bytes
	}
	if want <= 0 {
		return fmt.Errorf("the headers take more than %s over all parts, the limit for a remote model; download the files", mib(r.b.lim.Bytes))
	}
	if err := r.b.ctx.Err(); err != nil {
		return r.deadline(err)
	}
	req, err := http.NewRequestWithContext(r.b.ctx, http.MethodGet, r.url, nil)
	if err != nil {
		return errors.New("not a valid URL")
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", r.off, r.off+want-1))
	resp, err := Client.Do(req)
	if err != nil {
		if r.b.ctx.Err() != nil {
			return r.deadline(r.b.ctx.Err())
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its URL is unredacted
		}
		return errors.New(safeio.RedactText(err.Error()))
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusPartialContent:
	case http.StatusRequestedRangeNotSatisfiable:
		return io.EOF
	case http.StatusOK:
		return errors.New("the server ignores range requests (it answered 200 with the whole file); roofline reads only the header — download it or use a server that supports ranges")
	default:
		return fmt.Errorf("HTTP %s", safeio.Shorten(resp.Status, 128)) // a server may send a megabyte
	}
	end := r.off + want - 1
	if m := contentRange.FindStringSubmatch(resp.Header.Get("Content-Range")); m != nil {
		start, _ := strconv.ParseInt(m[1], 10, 64)
		last, _ := strconv.ParseInt(m[2], 10, 64)
		if start != r.off || last < start || last > end {
			return fmt.Errorf("asked for bytes %d-%d, the server sent %s", r.off, end, m[0])
		}
		end = last
		if m[3] != "*" {
			r.size, _ = strconv.ParseInt(m[3], 10, 64)
		}
	} else if cr := resp.Header.Get("Content-Range"); cr != "" {
		return fmt.Errorf("malformed Content-Range %q", cr)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, end-r.off+1))
	if err != nil {
		if r.b.ctx.Err() != nil {
			return r.deadline(r.b.ctx.Err())
		}
		return fmt.Errorf("reading bytes %d-%d: %v", r.off, end, err)
	}
	if len(b) == 0 {
		return io.EOF
	}
	atEnd := r.size >= 0 && r.off+int64(len(b)) >= r.size
	if len(b) < r.b.lim.MinChunk && int64(len(b)) < want && !atEnd {
		return fmt.Errorf("the server sent %d bytes for a range of %d; roofline needs at least %s per request (or the end of the file) to read a header in bounded time", len(b), want, kib(r.b.lim.MinChunk))
	}
	r.b.bytes -= int64(len(b))
	r.buf = b
	r.off += int64(len(b))
	return nil
}

func (r *rangeReader) deadline(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("reading the remote headers took longer than %v, the limit for a remote model", r.b.lim.Deadline)
	}
	return err
}

func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }
func kib(n int) string   { return fmt.Sprintf("%d KiB", n>>10) }

var splitName = regexp.MustCompile(`^(.*)-(\d{5})-of-(\d{5})\.gguf$`)

// IsLocation reports whether s names a GGUF model: a path or an http(s)
// URL ending in .gguf (a URL's query, e.g. ?download=true, aside).
func IsLocation(s string) bool {
	if isURL(s) {
		s, _, _ = strings.Cut(s, "?")
		s, _, _ = strings.Cut(s, "#")
	}
	return strings.HasSuffix(strings.ToLower(s), ".gguf")
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// Shown is loc as roofline prints it: a URL without its user information
// and query values.
func Shown(loc string) string {
	if isURL(loc) {
		return safeio.RedactURL(loc)
	}
	return loc
}

// LocalBytes bounds the headers of a local model over all its split
// parts (limits.LocalHeaderBytes); tests shorten it.
var LocalBytes int64 = limits.LocalHeaderBytes

func readOne(b *budget, loc string, o RemoteOptions) (*File, error) {
	if isURL(loc) {
		rr := &rangeReader{url: loc, header: o.Header, b: b, size: -1}
		if o.Keep == nil {
			return Read(rr)
		}
		// The reader buffers ahead: what it took holds the header.
		var took bytes.Buffer
		f, err := Read(io.TeeReader(rr, &took))
		if err != nil {
			return nil, err
		}
		o.Keep(loc, took.Bytes()[:f.HeaderSize])
		return f, nil
	}
	f, err := safeio.OpenRegular(loc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(&localReader{f: f, b: b})
}

// localReader reads a local part within the model's budget: the bytes
// left over all its parts, and the deadline of the whole read.
type localReader struct {
	f io.Reader
	b *budget
}

func (r *localReader) Read(p []byte) (int, error) {
	if err := r.b.ctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return 0, fmt.Errorf("reading the headers took longer than %v, the limit for a model", r.b.lim.Deadline)
		}
		return 0, err
	}
	if r.b.bytes <= 0 {
		return 0, fmt.Errorf("the headers take more than %s over all parts, the limit for a local model", mib(LocalBytes))
	}
	if int64(len(p)) > r.b.bytes {
		p = p[:r.b.bytes]
	}
	n, err := r.f.Read(p)
	r.b.bytes -= int64(n)
	return n, err
}

// checkParts finds every local part of a split model before any is read:
// a set missing its ninth part read eight headers of 400 MB first. It
// names at most a few of the missing parts.
func checkParts(parts []string) error {
	var missing []string
	for _, p := range parts {
		if isURL(p) {
			return nil // a remote set is read within its budget
		}
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			missing = append(missing, filepath.Base(p))
		}
	}
	switch n := len(missing); {
	case n == 0:
		return nil
	case n == 1:
		return fmt.Errorf("split part %s is missing or not a regular file: every one of the %d parts is needed", missing[0], len(parts))
	case n > 3:
		missing = append(missing[:3], fmt.Sprintf("and %d more", n-3))
	}
	return fmt.Errorf("%d of the %d split parts are missing or not regular files (%s): every part is needed", len(missing), len(parts), strings.Join(missing, ", "))
}

// splitParts names every part of a split model from one part's location
// (a URL's query is kept for each part), or nil for a single file.
func splitParts(loc string) ([]string, error) {
	dir, base, query := "", loc, ""
	if isURL(loc) {
		u, err := url.Parse(loc)
		if err != nil {
			return nil, errors.New("not a valid URL")
		}
		base = path.Base(u.Path)
		if i := strings.LastIndex(loc, base); i >= 0 {
			dir = loc[:i]
		}
		if u.RawQuery != "" {
			query = "?" + u.RawQuery
		}
	} else {
		dir, base = filepath.Dir(loc)+string(filepath.Separator), filepath.Base(loc)
	}
	m := splitName.FindStringSubmatch(base)
	if m == nil {
		return nil, nil
	}
	n, _ := strconv.Atoi(m[3])
	i, _ := strconv.Atoi(m[2])
	if n < 1 || n > limits.SplitParts {
		return nil, fmt.Errorf("%d split parts (limit %d)", n, limits.SplitParts)
	}
	if i < 1 || i > n {
		return nil, fmt.Errorf("part %d of %d does not exist", i, n)
	}
	parts := make([]string, n)
	for k := range parts {
		parts[k] = fmt.Sprintf("%s%s-%05d-of-%s.gguf%s", dir, m[1], k+1, m[3], query)
	}
	return parts, nil
}

// Open reads the header of the GGUF model at loc: a local path, an
// http(s) URL, or any part of a split model (name-00001-of-0000N.gguf),
// whose parts' tensor tables are merged after checking that the parts
// are the ones their names say, each once. A remote model is read within
// the bounds of Remote over all its parts.
func Open(loc string) (*File, error) {
	return OpenContext(context.Background(), loc)
}

// OpenContext is Open under a context.
func OpenContext(ctx context.Context, loc string) (*File, error) {
	return OpenRemote(ctx, loc, RemoteOptions{})
}

// OpenRemote is OpenContext with options for a remote model.
func OpenRemote(ctx context.Context, loc string, o RemoteOptions) (*File, error) {
	ctx, cancel := context.WithTimeout(ctx, Remote.Deadline)
	defer cancel()
	b := &budget{ctx: ctx, bytes: Remote.Bytes, lim: Remote}
	if !isURL(loc) {
		b.bytes = LocalBytes
	}
	shown := Shown(loc)
	parts, err := splitParts(loc)
	if err == nil {
		err = checkParts(parts)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	if parts == nil {
		f, err := readOne(b, loc, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", shown, err)
		}
		return f, nil
	}
	var out *File
	seen := map[string]int{}
	for i, p := range parts {
		f, err := readOne(b, p, o)
		if err != nil {
			return nil, fmt.Errorf("split part %s: %w", Shown(p), err)
		}
		if err := checkPart(f, i, len(parts)); err != nil {
			return nil, fmt.Errorf("split part %s: %w", Shown(p), err)
		}
		for _, t := range f.Tensors {
			if prev, dup := seen[t.Name]; dup {
				return nil, fmt.Errorf("split part %s: tensor %q is also in part %d: a part repeated or a corrupt set", Shown(p), t.Name, prev+1)
			}
			seen[t.Name] = i
		}
		if out == nil {
			out = f
			continue
		}
		if len(out.Tensors)+len(f.Tensors) > MaxTensors {
			return nil, fmt.Errorf("%s: split parts hold more than %d tensors", shown, MaxTensors)
		}
		out.Tensors = append(out.Tensors, f.Tensors...)
		out.HeaderSize += f.HeaderSize
	}
	if v, ok := out.Metadata["split.tensors.count"]; ok && v.IsNum && int(v.Num) != len(out.Tensors) {
		return nil, fmt.Errorf("%s: the parts hold %d tensors, split.tensors.count says %.0f: a part is missing or wrong", shown, len(out.Tensors), v.Num)
	}
	return out, nil
}

// checkPart checks part i (0-based) of n against its split metadata, which
// llama.cpp's gguf-split writes in every part: split.no and split.count.
func checkPart(f *File, i, n int) error {
	no, hasNo := f.Metadata["split.no"]
	count, hasCount := f.Metadata["split.count"]
	if hasCount && (!count.IsNum || int(count.Num) != n) {
		return fmt.Errorf("split.count is %v, the name says %d parts", count.Num, n)
	}
	if hasNo && (!no.IsNum || int(no.Num) != i) {
		return fmt.Errorf("split.no is %v: this file is part %.0f of the set, not part %d (a part copied over another?)", no.Num, no.Num+1, i+1)
	}
	if i > 0 && !hasNo && !hasCount {
		return errors.New("no split.no or split.count: not a part of a split model")
	}
	return nil
}

// Load reads a GGUF model's header and builds its spec.
func Load(loc string) (*Model, error) {
	return LoadContext(context.Background(), loc)
}

// LoadContext is Load under a context.
func LoadContext(ctx context.Context, loc string) (*Model, error) {
	return LoadRemote(ctx, loc, RemoteOptions{})
}

// LoadRemote is LoadContext with options for a remote model.
func LoadRemote(ctx context.Context, loc string, o RemoteOptions) (*Model, error) {
	f, err := OpenRemote(ctx, loc, o)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(loc)
	if isURL(loc) {
		if u, err := url.Parse(loc); err == nil {
			base = path.Base(u.Path)
		}
	}
	name := strings.TrimSuffix(base, ".gguf")
	if m := splitName.FindStringSubmatch(base); m != nil {
		name = m[1]
	}
	shown := Shown(loc)
	mod, err := ToModel(f, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	mod.Spec.Source = "GGUF header of " + shown
	return mod, nil
}
