package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsNeedForce: every command that writes a file refuses to
// replace one without --force (exit 2, the file untouched), writes it with
// --force, and never replaces a directory.
func TestOutputsNeedForce(t *testing.T) {
	dir := t.TempDir()
	png, csv, prof := filepath.Join(dir, "fig.png"), filepath.Join(dir, "fig.csv"), filepath.Join(dir, "m2u.toml")
	plot := []string{"plot", "memory", "-m", "qwen2.5-0.5b", "--hw", "rk3588", "-o", png, "--data", csv}
	cal := []string{"calibrate", m2ultraRuns, "--hardware", "apple-m2-ultra", "-o", prof}
	for _, c := range []struct {
		name  string
		args  []string
		files []string
	}{{"plot", plot, []string{png, csv}}, {"calibrate", cal, []string{prof}}} {
		for _, f := range c.files {
			os.Remove(f)
		}
		if _, errOut, code := runCLI(c.args...); code != 0 {
			t.Fatalf("%s: exit %d, %s", c.name, code, errOut)
		}
		for _, f := range c.files {
			// Each output, alone, blocks the command.
			os.Rename(f, f+".keep")
			for _, g := range c.files {
				if g != f {
					os.Remove(g)
				}
			}
			os.WriteFile(f, []byte("mine"), 0o644)
			if _, errOut, code := runCLI(c.args...); code != 2 || !strings.Contains(errOut, filepath.Base(f)+": exists; --force replaces it") {
				t.Errorf("%s over %s: exit %d, %s", c.name, filepath.Base(f), code, errOut)
			}
			if got, _ := os.ReadFile(f); string(got) != "mine" {
				t.Errorf("%s: a refused command changed %s", c.name, filepath.Base(f))
			}
			for _, g := range c.files {
				if _, err := os.Stat(g); g != f && err == nil {
					t.Errorf("%s: a refused command wrote %s", c.name, filepath.Base(g))
				}
			}
			os.Rename(f+".keep", f)
		}
		if _, errOut, code := runCLI(append(c.args, "--force")...); code != 0 {
			t.Errorf("%s --force: exit %d, %s", c.name, code, errOut)
		}
	}
	// A directory is not a file, even with --force.
	if _, errOut, code := runCLI("plot", "memory", "-m", "qwen2.5-0.5b", "--hw", "rk3588", "-o", filepath.Join(dir, "d.png"), "--data", dir, "--force"); code != 2 {
		t.Errorf("--data DIR: exit %d, %s", code, errOut)
	}
	os.Mkdir(filepath.Join(dir, "d.png"), 0o755)
	if _, errOut, code := runCLI("plot", "memory", "-m", "qwen2.5-0.5b", "--hw", "rk3588", "-o", filepath.Join(dir, "d.png"), "--force"); code != 2 || !strings.Contains(errOut, "is a directory") {
		t.Errorf("-o DIR: exit %d, %s", code, errOut)
	}
}
