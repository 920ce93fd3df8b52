//go:build unix

package memlimit

import (
	"math"
	"os"
	"syscall"
)

// addressSpace is RLIMIT_AS, when one is set.
func addressSpace() (int64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur == ^uint64(0) || r.Cur > math.MaxInt64 {
		return 0, false
	}
	return int64(r.Cur), true
}

// reexec runs this program again, in this process, with env added; it
// returns only when it cannot.
func reexec(env string) {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	syscall.Exec(exe, os.Args, append(os.Environ(), env))
}
