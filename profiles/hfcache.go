package profiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/safeio"
)

// HFCacheDir is the local Hugging Face hub cache, as huggingface_hub
// finds it: $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE (its older name),
// else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub. Empty when none can be named.
func HFCacheDir() string {
	for _, v := range []string{"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"} {
		if d := os.Getenv(v); d != "" {
			return expandHome(d)
		}
	}
	if d := os.Getenv("HF_HOME"); d != "" {
		return filepath.Join(expandHome(d), "hub")
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(expandHome(d), "huggingface", "hub")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".cache", "huggingface", "hub")
	}
	return ""
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// hfRepoID matches a Hugging Face model id, ORG/NAME, with an optional
// @REVISION (a branch, a tag or a commit).
var hfRepoID = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)/([A-Za-z0-9][A-Za-z0-9._-]*)(?:@([A-Za-z0-9._/-]+))?$`)

// IsHFRepoID reports whether name reads as a Hugging Face model id.
func IsHFRepoID(name string) bool {
	m := hfRepoID.FindStringSubmatch(name)
	return m != nil && !strings.Contains(m[2], "..") && !strings.Contains(m[3], "..")
}

// errNotCached is a repository, or a revision of it, that the cache does
// not hold.
var errNotCached = errors.New("not in the Hugging Face cache")

// hfCached is what the cache holds of a model repository at one
// revision: its config.json, its GGUF files, and the GGUF headers
// roofline read of it from the Hub (hfhub.HeadersDir).
type hfCached struct {
	Config string // path of config.json, if there is one
	// GGUF are the snapshot's .gguf files and the headers roofline kept,
	// by path in the repository; Path gives each one's local path.
	GGUF   []string
	Path   map[string]string
	Commit string // the snapshot's commit (its directory's name)
	Note   string // how the snapshot was chosen, when it was a choice
}

// findHFCached looks up id (ORG/NAME[@REVISION]) in cache directory dir,
// laid out as huggingface_hub writes it:
// models--ORG--NAME/refs/REVISION holds a commit hash and
// models--ORG--NAME/snapshots/HASH/ the files of that commit. A revision
// may also be a commit hash itself; without one, refs/main is read, and
// failing that the newest snapshot is taken. Ids are matched ignoring
// case, as the Hub matches them.
func findHFCached(dir, id string) (*hfCached, error) {
	m := hfRepoID.FindStringSubmatch(id)
	if m == nil || dir == "" {
		return nil, errNotCached
	}
	repo, err := repoDir(dir, "models--"+m[1]+"--"+m[2])
	if err != nil {
		return nil, err
	}
	rev := m[3]
	var snap, note string
	hdrs := filepath.Join(repo, headersDirName)
	switch {
	case rev != "":
		if snap, err = snapshotOf(repo, rev); err != nil {
			return nil, err
		}
		if snap == "" {
			return nil, fmt.Errorf("%w: %s has no revision %q (refs/%s or snapshots/%s)", errNotCached, repo, rev, rev, rev)
		}
	default:
		if snap, err = snapshotOf(repo, "main"); err != nil {
			return nil, err
		}
		if snap == "" {
			snaps, _ := filepath.Glob(filepath.Join(repo, "snapshots", "*"))
			if len(snaps) == 0 {
				// Headers roofline kept, for a commit with no snapshot.
				hs, _ := filepath.Glob(filepath.Join(hdrs, "*"))
				for _, h := range hs {
					snaps = append(snaps, filepath.Join(repo, "snapshots", filepath.Base(h)))
				}
			}
			if len(snaps) == 0 {
				return nil, fmt.Errorf("%w: %s has no snapshot", errNotCached, repo)
			}
			sort.Slice(snaps, func(i, j int) bool { return modTime(snaps[i]) > modTime(snaps[j]) })
			snap = snaps[0]
			if len(snaps) > 1 {
				note = fmt.Sprintf("the cache has no refs/main for %s: read the newest of its %d snapshots, %s", m[1]+"/"+m[2], len(snaps), filepath.Base(snap))
			}
		}
	}
	c := &hfCached{Note: note, Commit: filepath.Base(snap), Path: map[string]string{}}
	if cfg := filepath.Join(snap, "config.json"); fileExists(cfg) {
		c.Config = cfg
	}
	// The snapshot's own files first: a whole file beats a header.
	for _, root := range []string{snap, filepath.Join(hdrs, c.Commit)} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(strings.ToLower(d.Name()), ".gguf") {
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return nil
			}
			rel = filepath.ToSlash(rel)
			if _, dup := c.Path[rel]; !dup {
				c.Path[rel] = p
				c.GGUF = append(c.GGUF, rel)
			}
			return nil
		})
	}
	sort.Strings(c.GGUF)
	return c, nil
}

// headersDirName is hfhub.HeadersDir's directory in a repository's.
const headersDirName = "roofline-gguf-headers"

// repoDir finds a repository directory of the cache by name, ignoring
// case when the exact name is not there.
func repoDir(dir, name string) (string, error) {
	p := filepath.Join(dir, name)
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return p, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("%w (%s: no such directory)", errNotCached, dir)
	}
	for _, e := range entries {
		if e.IsDir() && strings.EqualFold(e.Name(), name) {
			return filepath.Join(dir, e.Name()), nil
		}
	}
	return "", fmt.Errorf("%w (%s has no %s)", errNotCached, dir, name)
}

// commitHash is what huggingface_hub writes in refs/REVISION: a full
// commit hash, SHA-1 or SHA-256.
var commitHash = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// snapshotOf is the snapshot directory of revision rev: the commit
// refs/rev names, or rev itself as a commit; "" when neither is there.
// A ref is read as a regular file within limits.HFRefBytes, and must hold
// a commit hash: one linked to /dev/zero grew to out-of-memory, a FIFO
// hung, and "../../x" read a config.json outside the cache. A commit
// counts when its snapshot is there, or the GGUF headers roofline kept
// of it.
func snapshotOf(repo, rev string) (string, error) {
	held := func(commit string) bool {
		return isDir(filepath.Join(repo, "snapshots", commit)) || isDir(filepath.Join(repo, headersDirName, commit))
	}
	ref := filepath.Join(repo, "refs", filepath.FromSlash(rev))
	if _, err := os.Lstat(ref); err == nil {
		b, err := safeio.ReadFile(ref, limits.HFRefBytes, "a Hugging Face cache ref")
		if err != nil {
			return "", fmt.Errorf("in the Hugging Face cache: %w", err)
		}
		hash := strings.TrimSpace(string(b))
		if !commitHash.MatchString(hash) {
			return "", fmt.Errorf("in the Hugging Face cache, %s holds %q, not a commit hash (40 hexadecimal digits)", ref, safeio.Clip(hash))
		}
		if held(hash) {
			return filepath.Join(repo, "snapshots", hash), nil
		}
	}
	if !strings.ContainsAny(rev, `/\`) && rev != ".." && held(rev) {
		return filepath.Join(repo, "snapshots", rev), nil
	}
	return "", nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func modTime(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.ModTime().UnixNano()
}
