package atomicfile

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.png")
	os.WriteFile(file, []byte("x"), 0o644)
	os.Symlink(file, filepath.Join(dir, "link.png"))
	cases := []struct {
		path  string
		force bool
		want  string // "" when allowed
	}{
		{filepath.Join(dir, "new.png"), false, ""},
		{file, false, "exists; --force replaces it"},
		{file, true, ""},
		{dir, true, "is a directory"},
		{filepath.Join(dir, "link.png"), true, "symbolic link"},
		{filepath.Join(dir, "missing", "b.png"), true, "does not exist"},
		{os.DevNull, true, "not a regular file"},
	}
	for _, c := range cases {
		err := CheckFile(c.path, c.force)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckFile(%s, %v) = %v; want nil", c.path, c.force, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckFile(%s, %v) = %v; want %q", c.path, c.force, err, c.want)
		}
	}
	if err := CheckFiles(false, filepath.Join(dir, "x.csv"), filepath.Join(dir, ".", "x.csv")); err == nil || !strings.Contains(err.Error(), "named twice") {
		t.Errorf("the same output twice: %v", err)
	}
}

// build writes a directory through Dir and commits it.
func build(t *testing.T, final string, o DirOptions, files map[string]string) *Existing {
	t.Helper()
	d, err := NewDir(final, o)
	if err != nil {
		t.Fatal(err)
	}
	for rel, data := range files {
		if err := d.WriteFile(rel, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	old, err := d.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return old
}

func TestDirReplacesOnlyWhatRooflineWrote(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	o := DirOptions{Version: "v1", Command: "roofline report s.toml -o out"}
	if old := build(t, out, o, map[string]string{"report.md": "a", "plots/x.svg": "<svg/>"}); old != nil {
		t.Errorf("a new directory replaced %v", old)
	}
	// Modes: 0755 directories, 0644 files (under the usual umask 022).
	if runtime.GOOS != "windows" {
		for p, want := range map[string]os.FileMode{out: 0o755, filepath.Join(out, "plots"): 0o755, filepath.Join(out, "report.md"): 0o644, filepath.Join(out, MarkerName): 0o644} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v, %v; want %v", p, fi.Mode().Perm(), err, want)
			}
		}
	}
	var m marker
	if err := json.Unmarshal(must(os.ReadFile(filepath.Join(out, MarkerName))), &m); err != nil || m.Building != nil ||
		strings.Join(m.Files, ",") != "plots/x.svg,report.md" || m.Command != o.Command {
		t.Errorf("marker %+v, %v", m, err)
	}

	// Without --force: refused, and the hint says --force.
	if _, err := NewDir(out, o); err == nil || !strings.Contains(err.Error(), "--force replaces it") {
		t.Errorf("existing without force: %v", err)
	}
	// With --force: replaced, and said what it replaced.
	o.Force = true
	old := build(t, out, o, map[string]string{"report.md": "b"})
	if old == nil || old.Files != 2 || old.Command != o.Command || !strings.Contains(old.String(), "2 files written by roofline report") {
		t.Errorf("replaced %v", old)
	}
	if got := string(must(os.ReadFile(filepath.Join(out, "report.md")))); got != "b" {
		t.Errorf("report.md = %q after --force", got)
	}
	if _, err := os.Stat(filepath.Join(out, "plots")); err == nil {
		t.Error("the old directory's plots survived the replacement")
	}

	// A file roofline did not write blocks --force, and is named.
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	if _, err := NewDir(out, o); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("foreign file: %v", err)
	}
	os.Remove(filepath.Join(out, "notes.txt"))

	// The study file inside the directory blocks --force.
	study := filepath.Join(out, "report.md")
	if _, err := NewDir(out, DirOptions{Force: true, Keep: []string{study}}); err == nil || !strings.Contains(err.Error(), "which this command reads") {
		t.Errorf("directory holding the study: %v", err)
	}
	// The directory holding the study (-o .) is never replaced.
	if _, err := NewDir(root, DirOptions{Force: true, Keep: []string{filepath.Join(root, "s.toml")}}); err == nil {
		t.Error("the study's own directory was accepted")
	}

	// A directory without a marker is never replaced, even empty-handed of
	// anything important; an empty one is used as is.
	plain := filepath.Join(root, "plain")
	os.Mkdir(plain, 0o755)
	if old := build(t, plain, DirOptions{}, map[string]string{"a": "1"}); old != nil {
		t.Errorf("an empty directory: replaced %v", old)
	}
	os.Remove(filepath.Join(plain, MarkerName))
	if _, err := NewDir(plain, DirOptions{Force: true}); err == nil || !strings.Contains(err.Error(), "roofline did not write it") {
		t.Errorf("no marker: %v", err)
	}
	// Nothing partial stays behind.
	for _, e := range must(os.ReadDir(root)) {
		if strings.Contains(e.Name(), ".partial-") {
			t.Errorf("left %s", e.Name())
		}
	}
}

func TestDirCommitChecksAgain(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	d, err := NewDir(out, DirOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Abort()
	// Someone creates the directory with their own files during the run.
	os.Mkdir(out, 0o755)
	os.WriteFile(filepath.Join(out, "theirs"), []byte("x"), 0o644)
	if _, err := d.Commit(); err == nil {
		t.Fatal("commit replaced a directory that appeared during the run")
	}
	if _, err := os.Stat(filepath.Join(out, "theirs")); err != nil {
		t.Error("their file is gone")
	}
}

func TestDirAbort(t *testing.T) {
	root := t.TempDir()
	d, err := NewDir(filepath.Join(root, "out"), DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.WriteFile("a", []byte("x"))
	d.Abort()
	if e := must(os.ReadDir(root)); len(e) != 0 {
		t.Errorf("abort left %v", e)
	}
	if _, err := d.Create("../escape"); err == nil {
		t.Error("a file outside the directory was accepted")
	}
}

// TestStaleCleaned: partial directories of a run killed outright (its
// process gone) and an old directory moved aside are removed by the next
// run; one of a live process is kept.
func TestStaleCleaned(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	host, _ := os.Hostname()
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, m *marker, age time.Duration) string {
		p := filepath.Join(root, name)
		os.Mkdir(p, 0o755)
		if m != nil {
			js, _ := json.Marshal(m)
			os.WriteFile(filepath.Join(p, MarkerName), js, 0o644)
		}
		ts := time.Now().Add(-age)
		os.Chtimes(p, ts, ts)
		return p
	}
	killed := mk(".out.partial-1", &marker{Building: &building{PID: dead.Process.Pid, Host: host}}, 0)
	running := mk(".out.partial-2", &marker{Building: &building{PID: os.Getpid(), Host: host}}, 0)
	aside := mk(".out.partial-3.old", &marker{Files: []string{"a"}}, 0)
	otherHost := mk(".out.partial-4", &marker{Building: &building{PID: dead.Process.Pid, Host: host + "-elsewhere"}}, 0)
	oldNoMarker := mk(".out.partial-5", nil, 2*time.Hour)
	newNoMarker := mk(".out.partial-6", nil, 0)
	other := mk(".other.partial-7", &marker{Building: &building{PID: dead.Process.Pid, Host: host}}, 0)
	d, err := NewDir(out, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Abort()
	// A user's directory named like a partial one, without a marker, is
	// never removed, however old.
	want := map[string]bool{killed: false, running: true, aside: false, otherHost: true, oldNoMarker: true, newNoMarker: true, other: true}
	for p, keep := range want {
		_, err := os.Stat(p)
		if (err == nil) != keep {
			t.Errorf("%s: kept %v, want %v", filepath.Base(p), err == nil, keep)
		}
	}
	if len(d.Cleaned) != 2 {
		t.Errorf("cleaned %v; want 2", d.Cleaned)
	}
}

// --force removes only files whose content is what roofline wrote: a
// 26-byte marker listing precious.txt made report --force delete it, and a
// killed run's partial directory is removed only while it holds what its
// marker lists.
func TestForgedMarker(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	os.Mkdir(out, 0o755)
	os.WriteFile(filepath.Join(out, "precious.txt"), []byte("years of work"), 0o644)
	os.WriteFile(filepath.Join(out, MarkerName), []byte(`{"files":["precious.txt"]}`), 0o644)
	_, err := NewDir(out, DirOptions{Force: true})
	if err == nil || !strings.Contains(err.Error(), "holds files that are not as roofline wrote them (precious.txt)") {
		t.Errorf("forged marker: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "precious.txt")); err != nil {
		t.Fatal("precious.txt is gone")
	}

	// A directory roofline wrote, then edited: refused; restored: replaced.
	mine := filepath.Join(root, "mine")
	build(t, mine, DirOptions{}, map[string]string{"report.md": "as written", "plots/a.svg": "<svg/>"})
	var m marker
	json.Unmarshal(must(os.ReadFile(filepath.Join(mine, MarkerName))), &m)
	// sha256("as written"), from sha256sum.
	if m.SHA256["report.md"] != "a51efc7c4bd2b4444723b58cee4847c45bafb5bdefa0362e13ba8e48fe395e89" || len(m.SHA256) != 2 || len(m.SHA256["plots/a.svg"]) != 64 {
		t.Errorf("marker sums %v", m.SHA256)
	}
	os.WriteFile(filepath.Join(mine, "report.md"), []byte("my edits"), 0o644)
	if _, err := NewDir(mine, DirOptions{Force: true}); err == nil || !strings.Contains(err.Error(), "report.md") {
		t.Errorf("an edited file: %v", err)
	}
	os.WriteFile(filepath.Join(mine, "report.md"), []byte("as written"), 0o644)
	if old := build(t, mine, DirOptions{Force: true}, map[string]string{"report.md": "new"}); old == nil {
		t.Error("the restored directory was not replaced")
	}

	// Partial directories beside out: a killed run's, with the file it was
	// writing, is removed; one holding a file its marker does not list,
	// or a file changed since, is kept.
	host, _ := os.Hostname()
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, files map[string]string, sums map[string]string) string {
		p := filepath.Join(root, name)
		os.Mkdir(p, 0o755)
		var list []string
		for f, data := range files {
			os.WriteFile(filepath.Join(p, f), []byte(data), 0o644)
			if _, ok := sums[f]; ok {
				list = append(list, f)
			}
		}
		js, _ := json.Marshal(marker{Building: &building{PID: dead.Process.Pid, Host: host}, Files: list, SHA256: sums})
		os.WriteFile(filepath.Join(p, MarkerName), js, 0o644)
		return p
	}
	// sha256("a") = ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb
	const sumA = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
	killed := mk(".out2.partial-1", map[string]string{"a": "a", "b": "half written"}, map[string]string{"a": sumA, "b": ""})
	foreign := mk(".out2.partial-2", map[string]string{"a": "a", "mine.txt": "x"}, map[string]string{"a": sumA})
	changed := mk(".out2.partial-3", map[string]string{"a": "not a"}, map[string]string{"a": sumA})
	d, err := NewDir(filepath.Join(root, "out2"), DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Abort()
	for p, keep := range map[string]bool{killed: false, foreign: true, changed: true} {
		if _, err := os.Stat(p); (err == nil) != keep {
			t.Errorf("%s: kept %v, want %v", filepath.Base(p), err == nil, keep)
		}
	}
}

// TestInterruptRemovesPartial runs a child that builds a directory and
// waits; SIGINT and SIGTERM must remove its partial directory and end it
// by that signal. SIGKILL leaves it, for the next run to clean.
func TestInterruptRemovesPartial(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			root := t.TempDir()
			out := filepath.Join(root, "out")
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBuild$")
			cmd.Env = append(os.Environ(), "ATOMICFILE_HELPER_OUT="+out)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var partial string
			for deadline := time.Now().Add(10 * time.Second); partial == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				m, _ := filepath.Glob(filepath.Join(root, ".out.partial-*", "ready"))
				if len(m) > 0 {
					partial = filepath.Dir(m[0])
				}
			}
			if partial == "" {
				cmd.Process.Kill()
				t.Fatal("the child never started its directory")
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("child ended with %v", err)
			}
			if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
				t.Errorf("child's status %v; want killed by %v", ee, sig)
			}
			_, err = os.Stat(partial)
			if sig == syscall.SIGKILL {
				if err != nil {
					t.Fatal("SIGKILL cannot be caught, yet the partial directory is gone")
				}
				d, err := NewDir(out, DirOptions{})
				if err != nil {
					t.Fatal(err)
				}
				d.Abort()
				if len(d.Cleaned) != 1 || d.Cleaned[0] != partial {
					t.Errorf("the next run cleaned %v; want %s", d.Cleaned, partial)
				}
			} else if err == nil {
				t.Errorf("%v left %s", sig, partial)
			}
		})
	}
}

// TestHelperBuild is the child of TestInterruptRemovesPartial.
func TestHelperBuild(t *testing.T) {
	out := os.Getenv("ATOMICFILE_HELPER_OUT")
	if out == "" {
		t.Skip("a helper process")
	}
	d, err := NewDir(out, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.WriteFile("plots/a.svg", []byte("<svg/>"))
	d.WriteFile("ready", nil)
	time.Sleep(time.Minute)
	t.Fatal("not interrupted")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
