package profiles

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/roofline/roofline/gguf"
	"github.com/roofline/roofline/hfhub"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/model"
)

// modelFromHF reads the model a Hugging Face reference names: from the
// local cache when it holds it, else from the Hub (HF_ENDPOINT, HF_TOKEN)
// unless HF_HUB_OFFLINE is set, caching what it read. A repository with
// a config.json is read from it; one of GGUF files from the header of the
// file ref.Select names (pickGGUF). nf is the error of the name, returned
// with where the model was looked for when it does not exist.
func modelFromHF(ref hfRef, nf *NotFoundError) (*model.Spec, error) {
	dir := HFCacheDir()
	hit, err := findHFCached(dir, ref.withRev())
	if err != nil && !errors.Is(err, errNotCached) {
		return nil, err // the cache holds it, damaged: a ref that is not a commit
	}
	if err == nil {
		var s *model.Spec
		if s, err = specFromCache(ref, dir, hit); !errors.Is(err, errNotCached) {
			return s, err
		}
	}
	cacheMiss := err.Error()
	hub, err := hfhub.FromEnv()
	if err != nil {
		return nil, err
	}
	if hub.Offline {
		fetch := fmt.Sprintf("'hf download %s config.json'", ref.ID)
		if ref.Select != "" {
			fetch = fmt.Sprintf("'hf download %s FILE'", ref.ID)
		}
		nf.Detail = fmt.Sprintf("not a built-in name, and HF_HUB_OFFLINE is set, so %s was not asked (unset it, or %s while online); %s", hub.Shown(), fetch, cacheMiss)
		return nil, nf
	}
	ctx := context.Background()
	repo, err := hub.Repo(ctx, ref.ID, ref.Rev)
	if err != nil {
		var he *hfhub.Error
		if errors.As(err, &he) && (he.Kind == hfhub.NotFound || he.Kind == hfhub.Unreachable) {
			// Unknown, or not known to be there: the name may be a typo
			// of a built-in one.
			nf.Detail = "not a built-in name, " + cacheMiss + ", and " + err.Error()
			nf.Err = err
			return nil, nf
		}
		return nil, err
	}
	rev := ref.Rev
	if rev == "" {
		rev = "main"
	}
	var notes []string
	cached := func(err error) {
		if err != nil {
			notes = append(notes, fmt.Sprintf("what was read from %s could not be cached in %s (%v): the next run asks the Hub again", hub.Shown(), dir, err))
		}
	}
	var s *model.Spec
	if ref.Select == "" && repo.Has("config.json") {
		data, etag, err := hub.Download(ctx, repo.ID, repo.Commit, "config.json", limits.ProfileBytes)
		if err != nil {
			return nil, err
		}
		if s, err = model.ParseHFConfig(data, repo.ID); err != nil {
			return nil, configError(fmt.Sprintf("config.json of %s from %s", repo.ID, hub.Shown()), true, err)
		}
		s.Source = fmt.Sprintf("config.json of %s from %s (commit %s)", repo.ID, hub.Shown(), short(repo.Commit))
		if dir != "" {
			_, err = hfhub.SaveFile(dir, repo.ID, rev, repo.Commit, "config.json", data, etag)
			cached(err)
		}
	} else {
		file, note, err := pickGGUF(repo.ID, repo.Files, ref.Select)
		if err != nil {
			return nil, err
		}
		if note != "" {
			notes = append(notes, note)
		}
		base := hub.ResolveURL(repo.ID, repo.Commit, "")
		var saveErr error
		keep := func(u string, header []byte) {
			if dir == "" || saveErr != nil {
				return
			}
			rel, err := url.PathUnescape(strings.TrimPrefix(u, base))
			if err == nil {
				_, err = hfhub.SaveHeader(dir, repo.ID, repo.Commit, rel, header)
			}
			saveErr = err
		}
		m, err := gguf.LoadRemote(ctx, hub.ResolveURL(repo.ID, repo.Commit, file), gguf.RemoteOptions{Header: hub.Header(), Keep: keep})
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w", file, repo.ID, err)
		}
		if saveErr == nil && dir != "" {
			saveErr = hfhub.SaveRef(dir, repo.ID, rev, repo.Commit)
		}
		cached(saveErr)
		s = m.Spec
		s.Source = fmt.Sprintf("GGUF header of %s of %s from %s (commit %s)", file, repo.ID, hub.Shown(), short(repo.Commit))
	}
	s.FileNotes = append(s.FileNotes, notes...)
	return s, nil
}

// specFromCache reads what the cache holds of ref: its config.json, else
// the GGUF file (or header) ref.Select names. An error wrapping
// errNotCached sends the lookup on to the Hub: the cache holds some of
// the repository, not what was asked for.
func specFromCache(ref hfRef, dir string, hit *hfCached) (*model.Spec, error) {
	if ref.Select == "" && hit.Config != "" {
		s, err := readHFConfig(hit.Config, ref.ID)
		if err != nil {
			return nil, err
		}
		// As the user named it, with the snapshot read, not the cache's
		// path under their home.
		s.Source = fmt.Sprintf("config.json of %s in the Hugging Face cache (snapshot %s)", ref.withRev(), hit.Commit)
		if hit.Note != "" {
			s.FileNotes = append(s.FileNotes, hit.Note)
		}
		return s, nil
	}
	if len(hit.GGUF) == 0 {
		return nil, fmt.Errorf("%w: it holds %s (%s) without its config.json or a GGUF file", errNotCached, ref.withRev(), hfhub.RepoDir(dir, ref.ID))
	}
	file, note, err := pickGGUF(ref.ID, hit.GGUF, ref.Select)
	if err != nil {
		// The cache may hold a few of the repository's files: the Hub
		// lists them all.
		return nil, fmt.Errorf("%w: it holds some of %s, and %v", errNotCached, ref.withRev(), err)
	}
	m, err := gguf.Load(hit.Path[file])
	if err != nil {
		return nil, err
	}
	s := m.Spec
	what := "GGUF header"
	if strings.Contains(filepath.ToSlash(hit.Path[file]), "/"+headersDirName+"/") {
		what = "GGUF header (kept by roofline)"
	}
	s.Source = fmt.Sprintf("%s of %s of %s in the Hugging Face cache (snapshot %s)", what, file, ref.withRev(), hit.Commit)
	for _, n := range []string{hit.Note, note} {
		if n != "" {
			s.FileNotes = append(s.FileNotes, n)
		}
	}
	return s, nil
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
