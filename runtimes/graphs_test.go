package runtimes

import (
	"strings"
	"testing"
)

// TestGraphs checks vLLM's capture rule and the time per layer a step
// adds, by hand: min(2 × max_num_seqs, 512) is 512 at the default 256
// or 1024 sequences and 16 at --max-num-seqs 8; a step of 513 tokens is
// past the largest graph (eager), one of 512 holding prompt tokens
// piecewise, a decode-only step of 512 a whole graph (nothing added).
func TestGraphs(t *testing.T) {
	g := Graphs{Capture: 512, PerSeq: 2, Piecewise: 15e-6, Eager: 339e-6}
	for _, c := range []struct{ seqs, want int }{{256, 512}, {1024, 512}, {8, 16}, {0, 512}} {
		if got := g.CaptureFor(c.seqs); got != c.want {
			t.Errorf("CaptureFor(%d) = %d, want %d", c.seqs, got, c.want)
		}
	}
	for _, c := range []struct {
		tokens float64
		prompt bool
		want   float64
	}{{513, false, 339e-6}, {513, true, 339e-6}, {512, true, 15e-6}, {512, false, 0}, {1, false, 0}} {
		if got := g.PerLayer(c.tokens, 512, c.prompt); got != c.want {
			t.Errorf("PerLayer(%g, prompt %v) = %g, want %g", c.tokens, c.prompt, got, c.want)
		}
	}
	if got := (Graphs{}).PerLayer(1e6, 0, true); got != 0 {
		t.Errorf("no graphs stated: PerLayer = %g, want 0", got)
	}
	for _, c := range []struct {
		g    Graphs
		want string
	}{
		{Graphs{Capture: -1}, "capture"},
		{Graphs{Capture: 512, Eager: -1e-6}, "eager_layer"},
		{Graphs{Capture: 512, Piecewise: 1, Eager: 1}, "piecewise_layer"},
		{Graphs{Capture: 512, Piecewise: 2e-4, Eager: 1e-4}, "exceeds"},
	} {
		err := c.g.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %q", c.g, err, c.want)
		}
	}
	if err := g.Validate(); err != nil {
		t.Errorf("vLLM's graphs: %v", err)
	}
}
