package main

import (
	"io"
	"os/exec"
	"testing"
)

// BenchmarkStartup times roofline as a user meets it: the whole program,
// started as a process (the test binary, on PATH as roofline through
// TestMain), answering for one built-in model and device; "version" is the
// floor of a process that reads no profile. In-process figures: the
// profiles package's BenchmarkStartup (the catalog) and BenchmarkPredict.
func BenchmarkStartup(b *testing.B) {
	bin, err := exec.LookPath("roofline")
	if err != nil {
		b.Skip("roofline is not on PATH (run through go test)")
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"version", []string{"--version"}},
		{"predict", []string{"predict", "--model", "llama-3.2-1b", "--hardware", "rk3588"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(bin, c.args...)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}

// BenchmarkPredict is one predict answered in process, the catalog warm.
func BenchmarkPredict(b *testing.B) {
	args := []string{"roofline", "predict", "--model", "llama-3.2-1b", "--hardware", "rk3588"}
	for i := 0; i < b.N; i++ {
		if err := run(args, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
