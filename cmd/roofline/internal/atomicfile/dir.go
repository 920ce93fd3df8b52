package atomicfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/safeio"
)

// MarkerName is the file in every directory roofline writes that lists
// what it wrote there: --force replaces a directory only while it holds
// nothing else.
const MarkerName = ".roofline"

// marker is the content of MarkerName.
type marker struct {
	Note    string `json:"note"`
	Version string `json:"version"`
	Command string `json:"command"`
	// Building is set while the directory is a partial one: the process
	// writing it, so that a later run can tell a killed run's leftovers
	// from a run still going.
	Building *building `json:"building,omitempty"`
	Files    []string  `json:"files"`
}

type building struct {
	PID  int    `json:"pid"`
	Host string `json:"host"`
}

const markerNote = "roofline wrote this directory; --force replaces it only while it holds just the files listed here"

// DirOptions say how an output directory may be written.
type DirOptions struct {
	// Force replaces an existing directory that roofline wrote and that
	// holds nothing but what it wrote.
	Force bool
	// Keep are paths that must survive (the study file, measured files):
	// a directory holding one is never replaced.
	Keep []string
	// Version and Command are recorded in the marker.
	Version, Command string
}

// Existing is an output directory found in place: what wrote it.
type Existing struct {
	Path             string
	Version, Command string
	Files            int
}

func (e *Existing) String() string {
	s := fmt.Sprintf("%s (%d files", e.Path, e.Files)
	if e.Command != "" {
		s += " written by " + e.Command
	}
	if e.Version != "" {
		s += ", roofline " + e.Version
	}
	return s + ")"
}

// CheckDir says whether a command may write the directory path: it does
// not exist, or it is empty, or o.Force is set and roofline wrote it (its
// marker lists every file in it) and it holds none of o.Keep. It returns
// what it would replace (nil when nothing).
func CheckDir(path string, o DirOptions) (*Existing, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return nil, &ExistsError{Path: path, Reason: "is a symbolic link, which roofline does not replace", Hint: "give the directory it points to"}
	case !fi.IsDir():
		return nil, &ExistsError{Path: path, Reason: "exists and is not a directory", Hint: "give a directory name"}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	for _, k := range o.Keep {
		ka, err := filepath.Abs(k)
		if err == nil && (ka == abs || strings.HasPrefix(ka, abs+string(filepath.Separator))) {
			return nil, &ExistsError{Path: path, Reason: "holds " + k + ", which this command reads", Hint: "write the output to another directory"}
		}
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return &Existing{Path: path}, nil // nothing to lose
	}
	m, err := readMarker(path)
	if err != nil {
		return nil, &ExistsError{Path: path, Reason: "exists and roofline did not write it (no " + MarkerName + " file listing its files)",
			Hint: "--force replaces only directories roofline wrote; choose a new directory or empty this one yourself"}
	}
	if foreign := foreignFiles(path, m.Files); len(foreign) > 0 {
		more := ""
		if len(foreign) > 3 {
			more = fmt.Sprintf(" and %d more", len(foreign)-3)
			foreign = foreign[:3]
		}
		return nil, &ExistsError{Path: path, Reason: "holds files roofline did not write (" + strings.Join(foreign, ", ") + more + ")",
			Hint: "--force would lose them: move them out or choose a new directory"}
	}
	if !o.Force {
		return nil, &ExistsError{Path: path, Reason: "exists (written by roofline)", Hint: "--force replaces it"}
	}
	return &Existing{Path: path, Version: m.Version, Command: m.Command, Files: len(m.Files)}, nil
}

// foreignFiles lists what dir holds besides the marker and listed files
// (and the directories leading to them).
func foreignFiles(dir string, listed []string) []string {
	ok := map[string]bool{MarkerName: true}
	for _, f := range listed {
		for p := filepath.ToSlash(filepath.Clean(f)); p != "." && p != "/"; p = filepath.ToSlash(filepath.Dir(p)) {
			ok[p] = true
		}
	}
	var foreign []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if err != nil || !ok[rel] || (d.Type()&fs.ModeSymlink != 0) {
			foreign = append(foreign, rel)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
		}
		return nil
	})
	return foreign
}

func readMarker(dir string) (*marker, error) {
	src, err := safeio.ReadFile(filepath.Join(dir, MarkerName), limits.ProfileBytes, "a roofline marker")
	if err != nil {
		return nil, err
	}
	var m marker
	if err := json.Unmarshal(src, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// Dir is an output directory being built: files go into a partial
// directory beside the final one, which Commit moves into place.
type Dir struct {
	Final string
	// Cleaned are partial directories of earlier runs, killed before they
	// finished, that NewDir removed.
	Cleaned []string
	partial string
	opts    DirOptions
	files   []string
	done    bool
}

// NewDir checks that final may be written (CheckDir), removes what killed
// runs left beside it, and creates the partial directory (mode 0755, with
// its marker), removed on an interrupt or by Abort.
func NewDir(final string, o DirOptions) (*Dir, error) {
	final = filepath.Clean(final)
	if _, err := CheckDir(final, o); err != nil {
		return nil, err
	}
	parent := filepath.Dir(final)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	d := &Dir{Final: final, opts: o}
	d.Cleaned = cleanStale(final)
	p, err := os.MkdirTemp(parent, partialPrefix(final))
	if err != nil {
		return nil, err
	}
	d.partial = p
	track(p)
	if err := os.Chmod(p, 0o755); err != nil {
		d.Abort()
		return nil, err
	}
	host, _ := os.Hostname()
	if err := d.writeMarker(&building{PID: os.Getpid(), Host: host}); err != nil {
		d.Abort()
		return nil, err
	}
	return d, nil
}

func partialPrefix(final string) string { return "." + filepath.Base(final) + ".partial-" }

// Path is where the files go until Commit.
func (d *Dir) Path() string { return d.partial }

func (d *Dir) writeMarker(b *building) error {
	files := slices.Clone(d.files)
	slices.Sort(files)
	m := marker{Note: markerNote, Version: d.opts.Version, Command: d.opts.Command, Building: b, Files: files}
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(d.partial, MarkerName), append(js, '\n'), 0o644)
}

// Create opens the file rel (slash-separated, inside the directory) for
// writing, with mode 0644 and its parent directories 0755.
func (d *Dir) Create(rel string) (io.WriteCloser, error) {
	rel = filepath.ToSlash(filepath.Clean(rel))
	if filepath.IsAbs(rel) || rel == "." || strings.HasPrefix(rel, "../") || rel == MarkerName {
		return nil, fmt.Errorf("%s: not a file name inside the output directory", rel)
	}
	p := filepath.Join(d.partial, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(d.files, rel) {
		d.files = append(d.files, rel)
	}
	return f, nil
}

// WriteFile writes the file rel with data.
func (d *Dir) WriteFile(rel string, data []byte) error {
	return d.WriteWith(rel, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteWith writes the file rel through write.
func (d *Dir) WriteWith(rel string, write func(io.Writer) error) error {
	f, err := d.Create(rel)
	if err != nil {
		return err
	}
	werr := write(f)
	return errors.Join(werr, f.Close())
}

// Commit moves the directory into place, replacing what CheckDir allows
// (checked again: files may have appeared during the run), and returns
// what it replaced (nil when nothing).
func (d *Dir) Commit() (*Existing, error) {
	if d.done {
		return nil, fmt.Errorf("%s: already committed or aborted", d.Final)
	}
	if err := d.writeMarker(nil); err != nil {
		return nil, err
	}
	old, err := CheckDir(d.Final, d.opts)
	if err != nil {
		return nil, err
	}
	if old != nil {
		aside := d.partial + ".old"
		if err := os.Rename(d.Final, aside); err != nil {
			return nil, err
		}
		if err := os.Rename(d.partial, d.Final); err != nil {
			os.Rename(aside, d.Final) // put the old directory back
			return nil, err
		}
		d.finish()
		if err := os.RemoveAll(aside); err != nil {
			return old, err
		}
		if old.Files == 0 {
			old = nil // an empty directory: nothing was replaced
		}
		return old, nil
	}
	if err := os.Rename(d.partial, d.Final); err != nil {
		return nil, err
	}
	d.finish()
	return nil, nil
}

func (d *Dir) finish() {
	d.done = true
	untrack(d.partial)
}

// Abort removes the partial directory; after Commit it does nothing.
func (d *Dir) Abort() {
	if d.done {
		return
	}
	removeAll(d.partial)
	d.finish()
}

// staleAge is how old a partial directory without a marker (written by a
// roofline that had none) must be before it counts as abandoned.
const staleAge = time.Hour

// cleanStale removes the partial directories beside final that no running
// process is writing: their marker names a process of this host that is
// gone, or they are an old directory moved aside by a replacement that
// did not finish. It returns what it removed.
func cleanStale(final string) []string {
	parent := filepath.Dir(final)
	matches, _ := filepath.Glob(filepath.Join(parent, globEscape(partialPrefix(final))+"*"))
	host, _ := os.Hostname()
	var removed []string
	for _, p := range matches {
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() {
			continue
		}
		stale := false
		if m, err := readMarker(p); err != nil {
			stale = time.Since(fi.ModTime()) > staleAge
		} else if m.Building == nil {
			stale = true // a finished directory moved aside
		} else {
			stale = m.Building.Host == host && !alive(m.Building.PID)
		}
		if stale && removeAll(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// globEscape escapes the glob metacharacters of a literal file name.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteRune('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// alive reports whether process pid runs on this host.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false // Windows: no such process
	}
	if runtime.GOOS == "windows" {
		return true
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, os.ErrPermission)
}
