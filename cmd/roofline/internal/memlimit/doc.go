// Package memlimit fits the Go runtime to the memory roofline may use.
//
// The runtime knows nothing of a container's memory.max or a shell's
// ulimit -v: it grows its heap to twice what is live before collecting,
// and when the operating system refuses it more it dies with a goroutine
// dump and exit status 2, or the kernel kills it without a word. Apply
// reads those limits, sets the runtime's soft memory limit below them
// (and below limits.SoftMemory in any case), and watches the process: one
// about to run out ends with a message and exit status 70, the status of
// an internal error, having removed what it was writing.
package memlimit
