package profiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchedulerKeyErrors: a [scheduler] knob written wrong is told once,
// on its own line, with its own range. max_seqs = -1 was told twice: as
// a 'whole number 0 … 4194304' (the token knobs' range, not max_seqs')
// and then 'max_seqs must be 1 … 65536 requests, got 0' (the value it was
// left at after the first); policy = "" on the runtime's name line
// (line 4) rather than its own (line 37).
func TestSchedulerKeyErrors(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("runtimes", "tensorrt-edge-llm.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, old, new string
		line           string
		not            string
	}{
		{"max_seqs -1", "max_seqs = { value = 4,", "max_seqs = { value = -1,", "rt.toml:38: scheduler max_seqs must be 1 … 65536 requests, got -1", "got 0"},
		{"max_seqs 10⁹", "max_seqs = { value = 4,", "max_seqs = { value = 1000000000,", "rt.toml:38: scheduler max_seqs must be 1 … 65536 requests, got 1000000000", "got 0"},
		{"max_seqs a string", "max_seqs = { value = 4,", `max_seqs = { value = "4",`, `rt.toml:38: scheduler max_seqs value must be a whole number, got "4"`, "got 0"},
		{"empty policy", `policy = { value = "static",`, `policy = { value = "",`, `rt.toml:37: scheduler policy must be`, "rt.toml:4:"},
	} {
		if !strings.Contains(string(src), c.old) {
			t.Fatalf("%s: the profile has no %q", c.name, c.old)
		}
		bad := strings.Replace(string(src), c.old, c.new, 1)
		_, err := decodeRuntime("rt.toml", []byte(bad))
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		msg := err.Error()
		if !strings.Contains(msg, c.line) || strings.Contains(msg, c.not) || strings.Count(msg, "\n") > 0 {
			t.Errorf("%s: %q, want one error holding %q and not %q", c.name, msg, c.line, c.not)
		}
	}
}
