// Package atomicfile writes files so that a failure never leaves a
// half-written one behind: each file goes to a temporary name in its
// directory first and is renamed into place only once every file of the
// set has been written.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// File is one file of a set.
type File struct {
	Path string
	Data []byte
}

// Write writes one file atomically with mode 0644.
func Write(path string, data []byte) error {
	return WriteAll(File{path, data})
}

// WriteAll writes every file to a temporary name, then renames them into
// place. When a write fails nothing is renamed; a rename failing part way
// (a full disk cannot cause it, only a vanished directory) leaves the
// files renamed so far.
func WriteAll(files ...File) (err error) {
	tmps := make([]string, 0, len(files))
	defer func() {
		for _, t := range tmps {
			os.Remove(t) // no-op once renamed
		}
	}()
	for _, f := range files {
		t, err := os.CreateTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+".*.tmp")
		if err != nil {
			return err
		}
		tmps = append(tmps, t.Name())
		_, werr := t.Write(f.Data)
		cerr := t.Close()
		if err := errors.Join(werr, cerr); err != nil {
			return err
		}
		if err := os.Chmod(t.Name(), 0o644); err != nil {
			return err
		}
	}
	for i, f := range files {
		if err := os.Rename(tmps[i], f.Path); err != nil {
			return err
		}
	}
	return nil
}
