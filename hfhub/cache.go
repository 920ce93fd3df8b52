package hfhub

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RepoDir is the cache directory of repository id under cache directory
// dir: models--ORG--NAME, as huggingface_hub names it.
func RepoDir(dir, id string) string {
	return filepath.Join(dir, "models--"+strings.ReplaceAll(id, "/", "--"))
}

// HeadersDir is where roofline keeps the GGUF headers it read of
// repository id at commit: beside huggingface_hub's refs, blobs and
// snapshots, never in a snapshot, where a file that holds only a header
// would pass for the model to llama.cpp and to 'hf download'.
func HeadersDir(dir, id, commit string) string {
	return filepath.Join(RepoDir(dir, id), "roofline-gguf-headers", commit)
}

// SaveFile writes file of repository id at commit into cache directory
// dir as huggingface_hub does: the content in blobs/ETAG, a link to it at
// snapshots/COMMIT/FILE (a copy where links cannot be made), and, when
// rev is a branch or tag, refs/REV holding the commit. Every file is
// written to a temporary name and renamed, so a reader never sees half a
// file. It returns the snapshot's path of the file.
func SaveFile(dir, id, rev, commit, file string, data []byte, etag string) (string, error) {
	if err := checkNames(commit, file); err != nil {
		return "", err
	}
	repo := RepoDir(dir, id)
	blob := filepath.Join(repo, "blobs", etag)
	if filepath.Base(blob) != etag || etag == "" {
		return "", fmt.Errorf("blob name %q is not a hash", etag)
	}
	if err := writeAtomic(blob, data); err != nil {
		return "", err
	}
	snap := filepath.Join(repo, "snapshots", commit, filepath.FromSlash(file))
	rel, err := filepath.Rel(filepath.Dir(snap), blob)
	if err != nil {
		return "", err
	}
	if err := linkAtomic(rel, snap); err != nil {
		if err := writeAtomic(snap, data); err != nil {
			return "", err
		}
	}
	if err := SaveRef(dir, id, rev, commit); err != nil {
		return "", err
	}
	return snap, nil
}

// SaveRef records that revision rev of repository id is commit
// (refs/REV), unless rev is the commit itself or empty.
func SaveRef(dir, id, rev, commit string) error {
	if rev == "" || rev == commit {
		return nil
	}
	if err := checkNames(commit, rev); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(RepoDir(dir, id), "refs", filepath.FromSlash(rev)), []byte(commit))
}

// SaveHeader writes the GGUF header of file (its first bytes, up to the
// end of the tensor table) of repository id at commit into HeadersDir.
func SaveHeader(dir, id, commit, file string, header []byte) (string, error) {
	if err := checkNames(commit, file); err != nil {
		return "", err
	}
	p := filepath.Join(HeadersDir(dir, id, commit), filepath.FromSlash(file))
	return p, writeAtomic(p, header)
}

// checkNames refuses a commit that is not a hash and a path that could
// leave the repository's directory.
func checkNames(commit, file string) error {
	if !commitHash.MatchString(commit) {
		return fmt.Errorf("commit %q is not a hash", commit)
	}
	if file == "" || strings.HasPrefix(file, "/") || strings.Contains(file, `\`) {
		return fmt.Errorf("unsafe path %q", file)
	}
	for _, seg := range strings.Split(file, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("unsafe path %q", file)
		}
	}
	return nil
}

// writeAtomic writes data to a temporary file beside path and renames it
// into place.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return werr
}

// linkAtomic makes path a symbolic link to target, replacing what is
// there in one rename.
func linkAtomic(target, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.link-%d", filepath.Base(path), os.Getpid()))
	os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
