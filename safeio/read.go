package safeio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// LimitError is an input larger than its limit.
type LimitError struct {
	Name  string // the file, "stdin" or a URL (redacted)
	Limit int64  // bytes
	What  string // the kind of input, e.g. "a measured-run file"
}

func (e *LimitError) Error() string {
	what := e.What
	if what == "" {
		what = "an input"
	}
	return fmt.Sprintf("%s: larger than %s, the limit for %s", e.Name, size(e.Limit), what)
}

// size writes a byte count in binary units.
func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// MissingError is an input file or directory that is not there: named,
// with advice on where a relative path is looked for (not the file
// system's bare "stat NAME: no such file or directory").
type MissingError struct {
	Name string
	Err  error // the file system's error (fs.ErrNotExist under it)
}

func (e *MissingError) Error() string { return e.Name + ": no such file or directory" }
func (e *MissingError) Unwrap() error { return e.Err }

// Hint says where a relative path is read from.
func (e *MissingError) Hint() string {
	if wd, err := os.Getwd(); err == nil && !filepath.IsAbs(e.Name) {
		return "check the path: a relative one is read from the current directory, " + wd
	}
	return "check the path"
}

// Stat is os.Stat with a path that is not there a *MissingError.
func Stat(name string) (fs.FileInfo, error) {
	st, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MissingError{Name: name, Err: err}
	}
	return st, err
}

// ErrNotRegular is returned for a device, FIFO or socket where a regular
// file is expected.
var ErrNotRegular = errors.New("not a regular file (a device, FIFO or socket): roofline reads only regular files here")

// OpenRegular opens name for reading if it is a regular file, checking the
// open file so that a path swapped after the check cannot slip through.
func OpenRegular(name string) (*os.File, error) {
	// Check the path first: opening a FIFO blocks until a writer comes.
	st, err := Stat(name)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(name, st); err != nil {
		return nil, err
	}
	// Non-blocking, in case the path became a FIFO since (no effect on a
	// regular file); the open file is checked again below.
	f, err := os.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	if st, err = f.Stat(); err != nil {
		f.Close()
		return nil, err
	}
	if err := checkRegular(name, st); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func checkRegular(name string, st fs.FileInfo) error {
	switch {
	case st.IsDir():
		return &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	case !st.Mode().IsRegular():
		return &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
	}
	return nil
}

// ReadFile reads the regular file name, refusing it when it holds more
// than limit bytes; what names the kind of input for the message.
func ReadFile(name string, limit int64, what string) ([]byte, error) {
	f, err := OpenRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, &LimitError{Name: name, Limit: limit, What: what}
	}
	return readAll(f, name, limit, what, int(st.Size()))
}

// ReadAll reads r to its end, refusing more than limit bytes. It reads in
// chunks and joins them once, so memory stays near the size of the input
// (never twice the limit) even when the input does not end.
func ReadAll(r io.Reader, name string, limit int64, what string) ([]byte, error) {
	return readAll(r, name, limit, what, 0)
}

func readAll(r io.Reader, name string, limit int64, what string, hint int) ([]byte, error) {
	lr := io.LimitReader(r, limit+1)
	if hint > 0 {
		// A regular file of known size: one buffer, grown only if the
		// file grows while it is read.
		var buf bytes.Buffer
		buf.Grow(hint + bytes.MinRead)
		if _, err := buf.ReadFrom(lr); err != nil {
			return nil, err
		}
		if int64(buf.Len()) > limit {
			return nil, &LimitError{Name: name, Limit: limit, What: what}
		}
		return buf.Bytes(), nil
	}
	const chunk = 1 << 20
	var parts [][]byte
	var total int64
	for {
		b := make([]byte, chunk)
		n, err := io.ReadFull(lr, b)
		total += int64(n)
		if total > limit {
			return nil, &LimitError{Name: name, Limit: limit, What: what}
		}
		if n > 0 {
			parts = append(parts, b[:n])
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	out := make([]byte, 0, total)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out, nil
}
