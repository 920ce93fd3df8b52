package profiles

import (
	"sync"
	"testing"
)

// resetBuiltin forgets the built-in catalog and every file decoded for
// it, as a new process starts without them.
func resetBuiltin() {
	builtinOnce = sync.Once{}
	builtinCat, builtinErr = nil, nil
	decodedMu.Lock()
	decodedBy = map[string]*decoded{}
	runtimesSnapshotTried = false
	decodedMu.Unlock()
}

// BenchmarkStartup is what a command costs before it computes anything:
// from a cold catalog, one built-in model, one device and the runtimes
// to choose from, as predict --model llama-3.2-1b --hardware rk3588 asks.
func BenchmarkStartup(b *testing.B) {
	for i := 0; i < b.N; i++ {
		resetBuiltin()
		cat, err := Builtin()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cat.Model("llama-3.2-1b"); err != nil {
			b.Fatal(err)
		}
		if _, err := cat.Device("rk3588"); err != nil {
			b.Fatal(err)
		}
		if len(cat.Runtimes().All()) == 0 {
			b.Fatal("no runtimes")
		}
	}
}
