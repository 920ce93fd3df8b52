package hfhub

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/safeio"
)

// Client makes every request to the Hub; tests may replace it.
var Client = &http.Client{Timeout: limits.RemoteRequestTimeout, CheckRedirect: safeio.CheckRedirect}

// Deadline bounds everything one model's lookup asks of the Hub; tests
// shorten it.
var Deadline = limits.RemoteDeadline

// Repo is a model repository at one commit.
type Repo struct {
	ID     string   // as the Hub spells it
	Commit string   // the revision's commit (40 hex digits)
	Files  []string // every file, as paths in the repository
}

// Has reports whether the repository holds file.
func (r *Repo) Has(file string) bool {
	for _, f := range r.Files {
		if f == file {
			return true
		}
	}
	return false
}

var commitHash = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Repo lists repository id at revision rev ("" for main) with the Hub's
// API (GET /api/models/ID/revision/REV).
func (s Settings) Repo(ctx context.Context, id, rev string) (*Repo, error) {
	if rev == "" {
		rev = "main"
	}
	if s.Offline {
		return nil, s.fail(Offline, id, 0, nil)
	}
	u := s.Endpoint + "/api/models/" + id + "/revision/" + url.PathEscape(rev)
	body, _, err := s.get(ctx, id, u, limits.HubListingBytes, "the Hub's listing of a repository", true)
	if err != nil {
		var he *Error
		if errors.As(err, &he) && he.Kind == NoRevision {
			he.Rev = rev
		}
		return nil, err
	}
	var info struct {
		ID       string `json:"id"`
		SHA      string `json:"sha"`
		Siblings []struct {
			Name string `json:"rfilename"`
		} `json:"siblings"`
	}
	if err := json.Unmarshal(body, &info); err != nil {
		return nil, s.fail(Bad, id, 0, fmt.Errorf("the listing of the repository is not the Hub's JSON: %v", err))
	}
	if !commitHash.MatchString(info.SHA) {
		return nil, s.fail(Bad, id, 0, fmt.Errorf("the listing of the repository gives no commit (sha %q)", info.SHA))
	}
	r := &Repo{ID: id, Commit: info.SHA}
	if sameRepo(info.ID, id) {
		r.ID = info.ID
	}
	for _, f := range info.Siblings {
		r.Files = append(r.Files, f.Name)
	}
	return r, nil
}

// sameRepo reports whether the Hub's spelling of an id is the id asked
// for, in another case.
func sameRepo(hub, asked string) bool {
	return hub != "" && strings.EqualFold(hub, asked) && !strings.ContainsAny(hub, `\`) && !strings.Contains(hub, "..")
}

// Download reads file of repository id at commit, refusing more than
// limit bytes. etag is the Hub's identifier of the content (the git blob
// hash of a small file), which names the cache's blob.
func (s Settings) Download(ctx context.Context, id, commit, file string, limit int64) (data []byte, etag string, err error) {
	if s.Offline {
		return nil, "", s.fail(Offline, id, 0, nil)
	}
	data, h, err := s.get(ctx, id, s.ResolveURL(id, commit, file), limit, file+" of "+id, false)
	if err != nil {
		var he *Error
		if errors.As(err, &he) && he.Kind == NoFile {
			he.File = file
		}
		return nil, "", err
	}
	return data, blobName(h, data), nil
}

var hexID = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// blobName is the name huggingface_hub gives a file's blob: its ETag
// (X-Linked-Etag for a file in LFS), else the git blob hash of the
// content, which is what the Hub's ETag of a small file is.
func blobName(h http.Header, data []byte) string {
	for _, k := range []string{"X-Linked-Etag", "ETag"} {
		e := strings.Trim(strings.TrimPrefix(h.Get(k), "W/"), `"`)
		if hexID.MatchString(e) {
			return e
		}
	}
	sum := sha1.New()
	fmt.Fprintf(sum, "blob %d\x00", len(data))
	sum.Write(data)
	return hex.EncodeToString(sum.Sum(nil))
}

// get reads u within limit bytes; wantJSON refuses an answer that is not
// JSON by its type.
func (s Settings) get(ctx context.Context, id, u string, limit int64, what string, wantJSON bool) ([]byte, http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, Deadline)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, s.fail(Bad, id, 0, errors.New("not a valid URL"))
	}
	for k, v := range s.Header() {
		req.Header[k] = v
	}
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := Client.Do(req)
	if err != nil {
		return nil, nil, s.unreachable(ctx, id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, s.status(id, resp)
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return nil, nil, s.fail(Bad, id, resp.StatusCode, fmt.Errorf("%s came back as a web page (%s), not the file: a proxy, a login page or a captive portal between roofline and the Hub?", what, ct))
	case wantJSON && mt != "" && mt != "application/json" && !strings.HasSuffix(mt, "+json"):
		return nil, nil, s.fail(Bad, id, resp.StatusCode, fmt.Errorf("%s came back as %s, not JSON", what, ct))
	}
	if resp.ContentLength > limit {
		return nil, nil, s.fail(Bad, id, resp.StatusCode, &safeio.LimitError{Name: safeio.RedactURL(u), Limit: limit, What: what})
	}
	body, err := safeio.ReadAll(resp.Body, safeio.RedactURL(u), limit, what)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, s.unreachable(ctx, id, ctx.Err())
		}
		var le *safeio.LimitError
		if errors.As(err, &le) {
			return nil, nil, s.fail(Bad, id, resp.StatusCode, err)
		}
		return nil, nil, s.unreachable(ctx, id, err)
	}
	return body, resp.Header, nil
}

// status turns an answer other than 200 into an Error, as
// huggingface_hub reads it: X-Error-Code first, then the status.
func (s Settings) status(id string, resp *http.Response) error {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	code := resp.StatusCode
	switch resp.Header.Get("X-Error-Code") {
	case "GatedRepo":
		return s.fail(Gated, id, code, nil)
	case "RepoNotFound":
		return s.fail(NotFound, id, code, nil)
	case "RevisionNotFound":
		return s.fail(NoRevision, id, code, nil)
	case "EntryNotFound":
		return s.fail(NoFile, id, code, nil)
	}
	switch code {
	case http.StatusNotFound:
		return s.fail(NotFound, id, code, nil)
	case http.StatusUnauthorized, http.StatusForbidden:
		return s.fail(Denied, id, code, nil)
	}
	return s.fail(Bad, id, code, fmt.Errorf("HTTP %s", safeio.RedactText(resp.Status)))
}

// unreachable is a request that got no answer.
func (s Settings) unreachable(ctx context.Context, id string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return s.fail(Unreachable, id, 0, fmt.Errorf("no answer within %v", Deadline))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return s.fail(Unreachable, id, 0, fmt.Errorf("no answer within %v", Client.Timeout))
		}
		err = ue.Err // its URL is not redacted
	}
	return s.fail(Unreachable, id, 0, errors.New(safeio.RedactText(err.Error())))
}

func (s Settings) fail(k Kind, id string, status int, err error) *Error {
	return &Error{Kind: k, ID: id, Endpoint: s.Shown(), Status: status, TokenSent: s.Token != "", Err: err}
}
