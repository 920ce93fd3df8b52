package memlimit

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/roofline/roofline/limits"
)

// Limit is a bound on the process's memory and where it comes from.
type Limit struct {
	Bytes  int64
	Source string // what sets it: "ulimit -v (RLIMIT_AS)", "the cgroup's memory.max (path)"
	// AddressSpace is a bound on virtual memory (RLIMIT_AS), else on
	// resident memory (a cgroup).
	AddressSpace bool
}

// Find reads the tightest limit set on the process: the memory.max of
// its cgroup and every parent (cgroup v2), memory.limit_in_bytes (cgroup
// v1), and RLIMIT_AS. Both kinds are found: a cgroup bounds resident
// memory, RLIMIT_AS virtual memory.
func Find() (resident, virtual Limit) {
	resident = cgroupLimit("/proc/self/cgroup", "/sys/fs/cgroup")
	if as, ok := addressSpace(); ok {
		virtual = Limit{Bytes: as, Source: "ulimit -v (RLIMIT_AS)", AddressSpace: true}
	}
	return resident, virtual
}

// cgroupLimit is the smallest memory limit along the process's cgroup
// path under root, read from the cgroup file self.
func cgroupLimit(self, root string) Limit {
	f, err := os.Open(self)
	if err != nil {
		return Limit{}
	}
	defer f.Close()
	best := Limit{}
	take := func(file string) {
		b, err := os.ReadFile(file)
		if err != nil {
			return
		}
		s := strings.TrimSpace(string(b))
		n, err := strconv.ParseInt(s, 10, 64)
		// "max", or cgroup v1's page-rounded 2^63: no limit.
		if err != nil || n <= 0 || n >= math.MaxInt64/2 {
			return
		}
		if best.Bytes == 0 || n < best.Bytes {
			best = Limit{Bytes: n, Source: "the cgroup's " + filepath.Base(file) + " (" + file + ")"}
		}
	}
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 || strings.Contains(parts[2], "..") {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "": // cgroup v2
			for p := parts[2]; ; p = filepath.Dir(p) {
				take(filepath.Join(root, p, "memory.max"))
				if p == "/" || p == "." {
					break
				}
			}
		case strings.Contains(","+parts[1]+",", ",memory,"): // cgroup v1
			for p := parts[2]; ; p = filepath.Dir(p) {
				take(filepath.Join(root, "memory", p, "memory.limit_in_bytes"))
				if p == "/" || p == "." {
					break
				}
			}
		}
	}
	return best
}

// soft is the runtime's soft memory limit under the limits found: a
// quarter of a cgroup's limit kept for what the runtime does not count
// (the binary, thread stacks, page cache charged to the cgroup), and half
// of the address space left after what the runtime reserved at start
// (about 1.2 GB on linux/amd64, mostly never touched).
func soft(resident, virtual Limit, vmSize int64) int64 {
	s := int64(limits.SoftMemory)
	if resident.Bytes > 0 {
		s = min(s, resident.Bytes*3/4)
	}
	if virtual.Bytes > 0 {
		s = min(s, max((virtual.Bytes-vmSize)/2, 16<<20))
	}
	return s
}

// Apply sets the runtime's soft memory limit, unless GOMEMLIMIT does, and
// watches the process against the limits found: near one, it calls
// cleanup, writes why to stderr and exits with code 70. Under RLIMIT_AS a
// binary linked with the C library is first run again with
// MALLOC_ARENA_MAX=1: its allocator reserves 64 MB of address space per
// thread, which under ulimit -v 2 GB left the runtime 370 MB.
func Apply(stderr io.Writer, cleanup func()) {
	resident, virtual := Find()
	if virtual.Bytes > 0 && os.Getenv("MALLOC_ARENA_MAX") == "" && linksLibc() {
		reexec("MALLOC_ARENA_MAX=1") // returns only when it cannot
	}
	vm := vmSize()
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(soft(resident, virtual, vm))
	}
	if resident.Bytes > 0 || virtual.Bytes > 0 {
		go watch(resident, virtual, vm, stderr, cleanup)
	}
}

// watchEvery is how often the watchdog looks.
const watchEvery = 10 * time.Millisecond

// heapArena is what the Go runtime maps its heap by on 64-bit Linux
// (runtime.heapArenaBytes): the address space grows 64 MiB at a time.
const heapArena = 64 << 20

// asMargin is how far below an address-space limit the watchdog ends the
// process: two heap arenas and 32 MiB for thread stacks and the like.
// With one arena and 32 MiB (96 MiB) the watchdog had the time the
// program took to fill one arena to look once: a 131,072-run compare
// under ulimit -v 1.5 GiB maps 1,290, 1,355, 1,419 then 1,483 MiB, where
// the next arena is refused; a tick late by more than that fill lets the
// runtime die first, out of memory, which the reliability suite's case
// did under a load of 9–12 on two cores. Two arenas give the watchdog the
// time of two fills.
const asMargin = 2*heapArena + 32<<20

// nearAddressSpace says whether used bytes of address space are within
// asMargin of limit.
func nearAddressSpace(used, limit int64) bool { return used > limit-asMargin }

// watch ends the process when its memory comes within reach of a limit:
// 95 % of a cgroup's (the kernel kills without a word past it); under an
// address-space limit, within asMargin of it, or a live heap of 3/5 of the
// room the runtime had at its start (vm: it maps its heap 64 MiB and more
// at a time, and dies when a mapping is refused, so the live heap, which
// grows from one collection to the next, warns in time).
func watch(resident, virtual Limit, vm int64, stderr io.Writer, cleanup func()) {
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}, {Name: "/gc/heap/live:bytes"}}
	for range time.Tick(watchEvery) {
		metrics.Read(samples)
		if resident.Bytes > 0 {
			if used := int64(samples[0].Value.Uint64() - samples[1].Value.Uint64()); used > resident.Bytes/20*19 {
				exit(stderr, cleanup, fmt.Sprintf("%d MiB in use", used>>20), resident)
			}
		}
		if virtual.Bytes > 0 {
			if live := int64(samples[2].Value.Uint64()); live > (virtual.Bytes-vm)/5*3 {
				exit(stderr, cleanup, fmt.Sprintf("%d MiB live of the %d MiB of address space left at the start", live>>20, (virtual.Bytes-vm)>>20), virtual)
			}
			if used := vmSize(); nearAddressSpace(used, virtual.Bytes) {
				exit(stderr, cleanup, fmt.Sprintf("%d MiB of address space mapped", used>>20), virtual)
			}
		}
	}
}

// exit ends a process out of memory: what it was writing is removed, and
// it says so as an internal error.
func exit(stderr io.Writer, cleanup func(), used string, lim Limit) {
	if cleanup != nil {
		cleanup()
	}
	fmt.Fprintf(stderr, "roofline: internal error, please report it with the command that caused it: out of memory: %s, near the limit of %d MiB set by %s\n",
		used, lim.Bytes>>20, lim.Source)
	os.Exit(ExitCode)
}

// ExitCode is the exit status of a process that ran out of memory: that
// of an internal error (docs/cli.md).
const ExitCode = 70

// vmSize is the process's virtual memory, from /proc/self/status; 0
// where it cannot be read.
func vmSize() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// linksLibc reports a binary built with cgo, which allocates through the
// C library.
func linksLibc() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "CGO_ENABLED" {
			return s.Value == "1"
		}
	}
	return false
}
