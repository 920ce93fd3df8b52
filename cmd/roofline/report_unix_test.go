//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// rooflineExe is this test binary under the name roofline: run so, it is
// the roofline command (TestMain), in its own process.
func rooflineExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "roofline")
	if err := os.Symlink(exe, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	return link
}

// TestReportLargeStudyMemory: the results of a large study are streamed,
// so the report's peak memory stays far below what they weigh (before:
// 1.2 GB for this study, 24 GB and killed with every weight format).
func TestReportLargeStudyMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 250 MB")
	}
	dir := t.TempDir()
	study := filepath.Join(dir, "large.toml")
	os.WriteFile(study, []byte(largeStudy), 0o644)
	out := filepath.Join(dir, "out")
	// Run as a reliability child, which writes its own peak (VmHWM):
	// getrusage's maxrss would count the test binary that forked it.
	raw, _ := json.Marshal([]string{"report", study, "-o", out})
	peakFile := filepath.Join(dir, "peak")
	cmd := exec.Command(os.Args[0], "-test.run=^TestReliabilityChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+string(raw), childPeakEnv+"="+peakFile)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	b, err := os.ReadFile(peakFile)
	if err != nil {
		t.Fatal("the child reported no peak memory:", err)
	}
	peak, _ := strconv.ParseInt(string(b), 10, 64)
	var written int64
	for _, f := range []string{"results.json", "results.csv", "report.md", "report.html"} {
		fi, err := os.Stat(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		written += fi.Size()
	}
	t.Logf("peak RSS %d MB for %d MB written", peak>>20, written>>20)
	if written < 200<<20 {
		t.Fatalf("the study wrote %d MB; it must weigh more than the memory bound to test streaming", written>>20)
	}
	if raceDetector {
		// The race detector's shadow memory is several times the
		// program's own: the bound is roofline's, checked without it.
		return
	}
	if peak > 200<<20 {
		t.Errorf("peak RSS %d MB for %d MB written; want under 200 MB", peak>>20, written>>20)
	}
}

// TestReportInterrupted: Ctrl-C or SIGTERM during a report removes its
// partial directory, and the process ends by the signal.
func TestReportInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 250 MB")
	}
	exe := rooflineExe(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			study := filepath.Join(dir, "large.toml")
			os.WriteFile(study, []byte(largeStudy), 0o644)
			cmd := exec.Command(exe, "report", study, "-o", filepath.Join(dir, "out"))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Signal it while it writes its results (the plan's
			// configurations stream in as the search runs).
			var partial string
			for deadline := time.Now().Add(time.Minute); partial == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				m, _ := filepath.Glob(filepath.Join(dir, ".out.partial-*", "results.json"))
				if fi, err := os.Stat(first(m)); err == nil && fi.Size() > 1<<20 {
					partial = filepath.Dir(m[0])
				}
			}
			if partial == "" {
				cmd.Process.Kill()
				t.Fatal("no partial directory appeared")
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("the report finished (%v) before the signal arrived", err)
			}
			if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
				t.Errorf("status %v; want ended by %v", ee, sig)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".out*")); len(left) > 0 {
				t.Errorf("left %v", left)
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
				t.Error("an interrupted report was moved into place")
			}
		})
	}
}

func first(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return l[0]
}
