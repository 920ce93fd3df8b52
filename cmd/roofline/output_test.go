package main

import (
	"os"
	"path/filepath"
	"regexp"
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

// TestNoExponentsForPeople: text and Markdown are for people, who read
// 14815 t/s, never 1.481e+04 t/s. Every command that prints an answer is
// run on inputs that push figures to their extremes (a tiny model on a
// datacenter GPU at a large batch, a large model on a small board, fitted
// statistics), in both formats.
func TestNoExponentsForPeople(t *testing.T) {
	exponent := regexp.MustCompile(`\d(\.\d+)?[eE][+-]?\d+\b`)
	hash := regexp.MustCompile(`\b[0-9a-f]{7,40}\b`) // commits in sources: 8e672ef
	cmds := [][]string{
		{"list", "hardware"}, {"list", "models"}, {"list", "formats"}, {"list", "runtimes"},
		{"show", "model", "deepseek-v3", "--weights", "q4_k_m"}, {"show", "model", "qwen2-0.5b"},
		{"show", "hardware", "b200"}, {"show", "hardware", "raspberry-pi-5-8gb"},
		{"show", "runtime", "vllm"}, {"show", "runtime", "llama.cpp"}, {"show", "runtime", "rkllm"},
		{"predict", "--model", "qwen2-0.5b", "--hardware", "b200", "--batch", "1024", "--prompt", "16", "--output-tokens", "2"},
		{"predict", "--model", "qwen2-0.5b", "--hardware", "h100-sxm", "--batch", "256", "--battery-wh", "1", "--power", "700W"},
		{"predict", "--model", "llama-3.1-70b", "--hardware", "raspberry-pi-5-8gb", "--prompt", "32k", "--cold", "--storage", "sd"},
		{"predict", "--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--draft", "llama-3.2-1b", "--battery-wh", "50"},
		{"chat", "--model", "qwen2-0.5b", "--hardware", "b200", "--max-chats", "64"},
		{"chat", "--model", "tinyllama-1.1b", "--hardware", "raspberry-pi-5-8gb", "--battery-wh", "20", "--duty-cycle", "1%"},
		{"plan", "--model", "qwen2-0.5b,llama-3.1-8b", "--hardware", "b200,rk3588", "--weights", "all", "--batch", "1,1024", "--ttft", "1s", "--tpot", "50ms", "--detail"},
		{"compare", m2ultraRuns, "--hardware", "apple-m2-ultra"},
		{"calibrate", m2ultraRuns, "--hardware", "apple-m2-ultra"},
		{"calibrate", "internal/measured/testdata/m2ultra-llama2-7b-q4_0.jsonl", "--hardware", "apple-m2-ultra"},
	}
	for _, args := range cmds {
		for _, format := range []string{"text", "markdown"} {
			a := append(append([]string{}, args...), "--format", format)
			out, errOut, code := runCLI(a...)
			if code != 0 && code != exitInfeasible {
				t.Errorf("%s: exit %d, %s", strings.Join(a, " "), code, errOut)
				continue
			}
			for i, line := range strings.Split(out+errOut, "\n") {
				if m := exponent.FindString(hash.ReplaceAllString(line, "")); m != "" {
					t.Errorf("%s: line %d prints %q: %s", strings.Join(a, " "), i+1, m, line)
				}
			}
		}
	}
}
