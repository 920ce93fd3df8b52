//go:build unix

package sim_test

import "syscall"

// cpuTime is the process's CPU time so far, ns: a benchmark's figure on a
// machine shared with other work, where wall time counts the waits.
func cpuTime() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano() + ru.Stime.Nano())
}
