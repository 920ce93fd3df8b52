//go:build !unix

package sim_test

// cpuTime is unknown here: benchmarks report wall time alone.
func cpuTime() float64 { return 0 }
