package atomicfile

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// interrupts are the signals that remove what is being written before the
// process ends: Ctrl-C and a polite kill. SIGKILL cannot be caught; the
// next run cleans after it (NewDir).
var interrupts = []os.Signal{os.Interrupt, syscall.SIGTERM}

// pending is what an interrupt removes: temporary files and partial
// directories not yet renamed into place. The signal handler is installed
// only while something is pending, so a process that writes nothing keeps
// the default behaviour.
var pending struct {
	sync.Mutex
	paths map[string]bool
	ch    chan os.Signal
}

// track registers path for removal on an interrupt.
func track(path string) {
	pending.Lock()
	defer pending.Unlock()
	if pending.paths == nil {
		pending.paths = map[string]bool{}
	}
	pending.paths[path] = true
	if pending.ch != nil {
		return
	}
	var sigs []os.Signal
	for _, s := range interrupts {
		// A signal the parent told us to ignore (nohup, a background job)
		// stays ignored: Notify would turn it back on.
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) == 0 {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	pending.ch = ch
	go onInterrupt(ch)
}

// untrack forgets path: it was renamed into place or removed.
func untrack(path string) {
	pending.Lock()
	defer pending.Unlock()
	delete(pending.paths, path)
	if len(pending.paths) == 0 && pending.ch != nil {
		signal.Stop(pending.ch)
		close(pending.ch)
		pending.ch = nil
	}
}

// RemovePending removes what is being written, for a process about to end
// by other means than returning (out of memory).
func RemovePending() {
	pending.Lock()
	defer pending.Unlock()
	for p := range pending.paths {
		removeAll(p)
	}
}

// onInterrupt removes everything pending and ends the process by the
// signal it received, so the parent sees the usual status (130 for
// Ctrl-C in a shell).
func onInterrupt(ch chan os.Signal) {
	sig, ok := <-ch
	if !ok {
		return
	}
	pending.Lock() // held to the end: nothing new is tracked
	for p := range pending.paths {
		removeAll(p)
	}
	signal.Stop(ch)
	signal.Reset(sig)
	if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(sig) == nil {
		time.Sleep(time.Second) // the default action ends the process
	}
	code := 130
	if sig == syscall.SIGTERM {
		code = 143
	}
	os.Exit(code)
}

// removeAll removes path, retrying while a writer still running in
// another goroutine adds files to a directory being removed.
func removeAll(path string) error {
	var err error
	for range 5 {
		if err = os.RemoveAll(path); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}
