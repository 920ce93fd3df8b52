package atomicfile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

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
	// SHA256 is each file's digest as roofline wrote it ("" while it is
	// being written): a file is roofline's to remove only while its
	// content is that. A marker listing names alone (26 bytes of
	// {"files":["precious.txt"]}) made --force delete precious.txt.
	SHA256 map[string]string `json:"sha256"`
}

type building struct {
	PID  int    `json:"pid"`
	Host string `json:"host"`
}

const markerNote = "roofline wrote this directory; --force replaces it only while it holds just the files listed here, as they were written"

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
	// Without --force the names say enough; with it, every file is read
	// to check that it is still what roofline wrote.
	foreign, changed := unrecognised(path, m, o.Force, false)
	if len(foreign) > 0 {
		return nil, &ExistsError{Path: path, Reason: "holds files roofline did not write (" + few(foreign) + ")",
			Hint: "--force would lose them: move them out or choose a new directory"}
	}
	if len(changed) > 0 {
		return nil, &ExistsError{Path: path, Reason: "holds files that are not as roofline wrote them (" + few(changed) + "): changed since, or written by a roofline that recorded no checksums",
			Hint: "--force would lose them: move them out or choose a new directory"}
	}
	if !o.Force {
		return nil, &ExistsError{Path: path, Reason: "exists (written by roofline)", Hint: "--force replaces it"}
	}
	return &Existing{Path: path, Version: m.Version, Command: m.Command, Files: len(m.Files)}, nil
}

// few names at most three of names and counts the rest.
func few(names []string) string {
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
	}
	return strings.Join(names, ", ")
}

// unrecognised lists what dir holds that its marker m does not vouch for:
// foreign are entries it does not list (besides the marker and the
// directories leading to listed files) and links; changed, when sums is
// set, are listed files whose content is not the digest recorded, or has
// none (pending lets a file listed as being written pass: a killed run's).
func unrecognised(dir string, m *marker, sums, pending bool) (foreign, changed []string) {
	ok := map[string]bool{MarkerName: true}
	for _, f := range m.Files {
		for p := filepath.ToSlash(filepath.Clean(f)); p != "." && p != "/"; p = filepath.ToSlash(filepath.Dir(p)) {
			ok[p] = true
		}
	}
	listed := map[string]bool{}
	for _, f := range m.Files {
		listed[filepath.ToSlash(filepath.Clean(f))] = true
	}
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
			return nil
		}
		if !sums || rel == MarkerName || d.IsDir() {
			return nil
		}
		want, recorded := m.SHA256[rel]
		switch {
		case !listed[rel] || !d.Type().IsRegular():
			foreign = append(foreign, rel)
		case want == "" && recorded && pending:
		case want == "" || digest(p) != want:
			changed = append(changed, rel)
		}
		return nil
	})
	return foreign, changed
}

// digest is the SHA-256 of the regular file p, "" when it cannot be read.
func digest(p string) string {
	f, err := safeio.OpenRegular(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
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
	sums    map[string]string // by file: its SHA-256 once closed, "" before
	done    bool
	mu      sync.Mutex
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
	d := &Dir{Final: final, opts: o, sums: map[string]string{}}
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
	if err := d.writeMarker(d.building()); err != nil {
		d.Abort()
		return nil, err
	}
	return d, nil
}

// building is the marker's record of this process while it writes.
func (d *Dir) building() *building {
	host, _ := os.Hostname()
	return &building{PID: os.Getpid(), Host: host}
}

func partialPrefix(final string) string { return "." + filepath.Base(final) + ".partial-" }

// Path is where the files go until Commit.
func (d *Dir) Path() string { return d.partial }

func (d *Dir) writeMarker(b *building) error {
	files := slices.Clone(d.files)
	slices.Sort(files)
	m := marker{Note: markerNote, Version: d.opts.Version, Command: d.opts.Command, Building: b, Files: files, SHA256: maps.Clone(d.sums)}
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
	d.mu.Lock()
	defer d.mu.Unlock()
	// Listed before it is written, as being written: a run killed now
	// leaves a directory the next run recognises as its own.
	if !slices.Contains(d.files, rel) {
		d.files = append(d.files, rel)
	}
	d.sums[rel] = ""
	if err := d.writeMarker(d.building()); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &hashedFile{f: f, h: sha256.New(), d: d, rel: rel}, nil
}

// hashedFile is a file of the directory being written: its digest is
// recorded in the marker when it is closed.
type hashedFile struct {
	f   *os.File
	h   hash.Hash
	d   *Dir
	rel string
}

func (w *hashedFile) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.h.Write(p[:n])
	return n, err
}

func (w *hashedFile) Close() error {
	if err := w.f.Close(); err != nil {
		return err
	}
	w.d.mu.Lock()
	defer w.d.mu.Unlock()
	w.d.sums[w.rel] = hex.EncodeToString(w.h.Sum(nil))
	return w.d.writeMarker(w.d.building())
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

// cleanStale removes the partial directories beside final that roofline
// made and no running process is writing: their marker names a process
// of this host that is gone, or they are an old directory moved aside by
// a replacement that did not finish; and they hold only what the marker
// vouches for. One without a marker is a user's, never removed. It
// returns what it removed.
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
		m, err := readMarker(p)
		if err != nil {
			continue // not roofline's
		}
		stale := m.Building == nil || m.Building.Host == host && !alive(m.Building.PID) // a finished directory moved aside, or a killed run's
		if !stale {
			continue
		}
		if foreign, changed := unrecognised(p, m, true, m.Building != nil); len(foreign)+len(changed) > 0 {
			continue
		}
		if removeAll(p) == nil {
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
