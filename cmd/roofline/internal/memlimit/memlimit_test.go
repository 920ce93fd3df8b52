package memlimit

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tightest memory limit along a process's cgroup path is found, in
// cgroup v2 and v1 layouts; "max" and v1's 2^63 are no limit.
func TestCgroupLimit(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("fs/memory.max", "max\n")
	write("fs/user.slice/memory.max", "2147483648\n")
	write("fs/user.slice/app/memory.max", "max\n")
	write("v2", "0::/user.slice/app\n")
	write("fs/memory/memory.limit_in_bytes", "9223372036854771712\n")
	write("fs/memory/docker/abc/memory.limit_in_bytes", "536870912\n")
	write("v1", "12:pids:/\n4:memory:/docker/abc\n1:cpu:/\n")
	write("none", "0::/elsewhere\n")
	for self, want := range map[string]int64{"v2": 2 << 30, "v1": 512 << 20, "none": 0, "missing": 0} {
		if got := cgroupLimit(filepath.Join(root, self), filepath.Join(root, "fs")); got.Bytes != want {
			t.Errorf("%s: %d (%s), want %d", self, got.Bytes, got.Source, want)
		}
	}
}

// The soft limit: limits.SoftMemory (384 MiB) at most; 3/4 of a cgroup's
// limit; half the address space left after the runtime's start.
func TestSoft(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		resident, virtual, vm, want int64
	}{
		{0, 0, 0, 384 * mib},
		{256 * mib, 0, 0, 192 * mib},                   // 256 × 3/4
		{4096 * mib, 0, 0, 384 * mib},                  // 3072 capped at 384
		{0, 2048 * mib, 1300 * mib, 374 * mib},         // (2048 − 1300) / 2
		{0, 1400 * mib, 1300 * mib, 50 * mib},          // (1400 − 1300) / 2
		{0, 1300 * mib, 1300 * mib, 16 * mib},          // nothing left: the floor
		{400 * mib, 2048 * mib, 1300 * mib, 300 * mib}, // the tighter of both
	} {
		if got := soft(Limit{Bytes: c.resident}, Limit{Bytes: c.virtual, AddressSpace: true}, c.vm); got != c.want {
			t.Errorf("soft(%d, %d, %d) = %d MiB, want %d MiB", c.resident/mib, c.virtual/mib, c.vm/mib, got/mib, c.want/mib)
		}
	}
}

// Under ulimit -v the watchdog ends the process two heap arenas and
// 32 MiB below the limit (160 MiB): under 1536 MiB at 1377 MiB and not at
// 1376, so that the 131,072-run compare, which maps 1,355, 1,419 and 1,483
// MiB, is ended at 1,419 with one more arena to spare, not at 1,483 with
// none (the next, 1,547, is refused).
func TestNearAddressSpace(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		used, limit int64
		want        bool
	}{
		{1376 * mib, 1536 * mib, false}, // 1536 − 160
		{1377 * mib, 1536 * mib, true},
		{1355 * mib, 1536 * mib, false},
		{1419 * mib, 1536 * mib, true},
		{2144 * mib, 2304 * mib, false}, // ulimit -v 2.25 GiB: the reliability suite's peaks, 1,756–1,885 MiB, run
		{1885 * mib, 2304 * mib, false},
	} {
		if got := nearAddressSpace(c.used, c.limit); got != c.want {
			t.Errorf("nearAddressSpace(%d MiB, %d MiB) = %v, want %v", c.used/mib, c.limit/mib, got, c.want)
		}
	}
}

// Near its limit the process removes what it was writing, says why and
// exits 70, the code of an internal error, instead of the runtime's
// goroutine dump and exit 2.
func TestWatchExits70(t *testing.T) {
	if os.Getenv("MEMLIMIT_CHILD") != "" {
		mark := os.Getenv("MEMLIMIT_CHILD")
		// A limit this process is already past: 1 MiB.
		watch(Limit{Bytes: 1 << 20, Source: "a test"}, Limit{}, 0, os.Stderr, func() { os.Remove(mark) })
		return
	}
	mark := filepath.Join(t.TempDir(), "partial")
	os.WriteFile(mark, nil, 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchExits70$")
	cmd.Env = append(os.Environ(), "MEMLIMIT_CHILD="+mark)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 70 {
		t.Fatalf("exit %v: %s", err, stderr.String())
	}
	if s := stderr.String(); !strings.Contains(s, "roofline: internal error, please report it with the command that caused it: out of memory:") ||
		!strings.Contains(s, "MiB in use, near the limit of 1 MiB set by a test") {
		t.Errorf("stderr: %s", s)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("what was being written is still there")
	}
}
