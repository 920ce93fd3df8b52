package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File is one file of a set.
type File struct {
	Path string
	Data []byte
}

// ExistsError is an output that exists and may not be replaced as asked.
type ExistsError struct {
	Path string
	// Reason says why it may not be replaced; Hint what to do.
	Reason, Hint string
}

func (e *ExistsError) Error() string {
	s := e.Path + ": " + e.Reason
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// CheckFile says whether a command may write the file path: it does not
// exist, or force is set and it is a regular file (never a directory, a
// symbolic link or a device). Its directory must exist. Commands call it
// before any work, so a refusal costs nothing.
func CheckFile(path string, force bool) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		dir := filepath.Dir(path)
		if di, err := os.Stat(dir); err != nil || !di.IsDir() {
			return &ExistsError{Path: path, Reason: fmt.Sprintf("directory %s does not exist", dir), Hint: "create it first"}
		}
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case fi.IsDir():
		return &ExistsError{Path: path, Reason: "is a directory", Hint: "give a file name"}
	case fi.Mode()&os.ModeSymlink != 0:
		return &ExistsError{Path: path, Reason: "is a symbolic link, which roofline does not replace", Hint: "give the file it points to"}
	case !fi.Mode().IsRegular():
		return &ExistsError{Path: path, Reason: "is not a regular file (a device, pipe or socket)", Hint: "give a file name"}
	case !force:
		return &ExistsError{Path: path, Reason: "exists", Hint: "--force replaces it"}
	}
	return nil
}

// CheckFiles is CheckFile for each of paths, which must also differ.
func CheckFiles(force bool, paths ...string) error {
	seen := map[string]bool{}
	var errs []error
	for _, p := range paths {
		abs, _ := filepath.Abs(p)
		if seen[abs] {
			errs = append(errs, fmt.Errorf("%s: named twice as an output", p))
			continue
		}
		seen[abs] = true
		errs = append(errs, CheckFile(p, force))
	}
	return errors.Join(errs...)
}

// Write writes one file atomically with mode 0644; replace lets it
// replace an existing file (--force).
func Write(path string, data []byte, replace bool) error {
	return WriteAll(replace, File{path, data})
}

// WriteAll writes every file to a temporary name, then moves them into
// place. When a write fails, or the process is interrupted, nothing is
// moved and the temporary files are removed; a move failing part way (a
// full disk cannot cause it, only a vanished directory) leaves the files
// moved so far.
//
// Without replace, each file is created exclusively (a hard link, which
// fails if the name exists): a file another process created since the
// command checked its outputs is left alone, the files this call placed
// are removed, and the error says another writer won. Eight plots
// writing one new file in parallel all said "wrote" and one survived.
func WriteAll(replace bool, files ...File) (err error) {
	tmps := make([]string, 0, len(files))
	defer func() {
		for _, t := range tmps {
			os.Remove(t) // no-op once renamed
			untrack(t)
		}
	}()
	for _, f := range files {
		t, err := os.CreateTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+".*.tmp")
		if err != nil {
			return err
		}
		tmps = append(tmps, t.Name())
		track(t.Name())
		_, werr := t.Write(f.Data)
		cerr := t.Close()
		if err := errors.Join(werr, cerr); err != nil {
			return err
		}
		if err := os.Chmod(t.Name(), 0o644); err != nil {
			return err
		}
	}
	if replace {
		for i, f := range files {
			if err := os.Rename(tmps[i], f.Path); err != nil {
				return err
			}
		}
		return nil
	}
	var placed []string
	for i, f := range files {
		if err := createFrom(tmps[i], f.Path); err != nil {
			for _, p := range placed {
				os.Remove(p) // ours: created by this call a moment ago
			}
			if errors.Is(err, fs.ErrExist) {
				return &ExistsError{Path: f.Path, Reason: "was created by another writer while roofline wrote it; it is left as that writer made it", Hint: "--force replaces it"}
			}
			return err
		}
		placed = append(placed, f.Path)
	}
	return nil
}

// createFrom gives the temporary file tmp the name path, which must not
// exist. A file system without hard links gets a check and a rename,
// which a writer racing it may still beat.
func createFrom(tmp, path string) error {
	err := os.Link(tmp, path)
	switch {
	case err == nil, errors.Is(err, fs.ErrExist):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return err // the directory vanished
	}
	if _, lerr := os.Lstat(path); lerr == nil {
		return fs.ErrExist
	}
	return os.Rename(tmp, path)
}
