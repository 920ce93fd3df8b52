package serve

import (
	"errors"
	"strings"
	"testing"
)

// TestLongestPrompt: the longest prompt a workload sends, which a
// runtime that prefills each prompt whole takes its passes of.
func TestLongestPrompt(t *testing.T) {
	rows := []Row{{Prompt: 300, Output: 10}, {Prompt: 1200, Output: 10}, {Prompt: 700, Output: 10}}
	for _, c := range []struct {
		name string
		w    Workload
		want int
	}{
		{"fixed", Workload{Prompt: Dist{A: 512}}, 512},
		{"uniform: its upper end", Workload{Prompt: Dist{Kind: Uniform, A: 100, B: 900}}, 900},
		// Without an upper end, the draws: a deviation of 0 draws the
		// mean every time, and a prompt holds the shared prefix and a
		// token (10 → 51 under a 50-token prefix).
		{"normal of no deviation", Workload{Requests: 3, Prompt: Dist{Kind: Normal, A: 700}}, 700},
		{"log-normal of no deviation", Workload{Requests: 3, Prompt: Dist{Kind: LogNormal, A: 700}}, 700},
		{"normal under a longer prefix", Workload{Requests: 3, Prompt: Dist{Kind: Normal, A: 10}, SharedPrefix: 50}, 51},
		{"a trace: its longest row", Workload{Arrival: Trace, Rows: rows}, 1200},
		// Requests 2 sends the first two rows: 300 and 1200.
		{"a trace's first two rows", Workload{Arrival: Trace, Rows: rows, Requests: 2}, 1200},
		// Requests 1 sends the first row alone.
		{"a trace's first row", Workload{Arrival: Trace, Rows: rows, Requests: 1}, 300},
		{"lengths from a file", Workload{Arrival: Poisson, FromFile: true, Rows: rows}, 1200},
	} {
		if got := c.w.LongestPrompt(); got != c.want {
			t.Errorf("%s: LongestPrompt = %d, want %d", c.name, got, c.want)
		}
	}
	// A normal or log-normal workload's longest prompt is the longest
	// the server is sent: the source's draws, request by request (the
	// prompts and outputs share a stream, so the outputs' draws count),
	// where it said 0 and a whole-prompt runtime was sized for the
	// model's context.
	for _, w := range []Workload{
		{Arrival: Poisson, Rate: 1, Requests: 500, Seed: 7, Prompt: Dist{Kind: Normal, A: 500, B: 100}, Output: Dist{Kind: Uniform, A: 10, B: 300}},
		{Arrival: Closed, Users: 4, Requests: 300, Seed: 3, Prompt: Dist{Kind: LogNormal, A: 800, B: 1500}, Output: Dist{Kind: LogNormal, A: 200, B: 100}, SharedPrefix: 64},
	} {
		src, err := newSource(w, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		longest := 0
		for range w.count() {
			_, p, _, _ := src.pop()
			if src.w.Arrival == Closed {
				src.done(0, 0)
			}
			longest = max(longest, p)
		}
		if got := w.LongestPrompt(); got != longest || longest <= int(w.Prompt.A) {
			t.Errorf("%s: LongestPrompt = %d, want the longest sent, %d (above the mean %g)", w.Prompt, got, longest, w.Prompt.A)
		}
	}
}

// TestWholePromptRuntimeSizedByItsPrompts: TensorRT Edge-LLM prefills
// each prompt in one pass and states no chunk, so its passes are the
// longest prompt served. Llama-3.2-3B w4a16 fits an Orin Nano 8GB with
// room for a KV cache (predict fits it with 4.7 GiB to spare); sized
// for a pass of 2²⁰ tokens its activations needed 40130 MiB more than
// the board holds and serve refused it. Without a workload's bound
// (LongestPrompt 0) a pass is the model's context, 131072 tokens: an
// eighth of that, still more than the board leaves, and refused.
func TestWholePromptRuntimeSizedByItsPrompts(t *testing.T) {
	s := setup(t, "llama-3.2-3b", "w4a16", "jetson-orin-nano-8gb", "gpu", "tensorrt-edge-llm")
	sch := s.Runtime.SchedulerFor(s.Device)
	sv, err := New(s, sch, Options{LongestPrompt: 512})
	if err != nil {
		t.Fatalf("a 512-token workload: %v", err)
	}
	if sv.StepTokens != 512 || sv.PassTokens != 512 {
		t.Errorf("step %d, pass %d tokens, want 512 each", sv.StepTokens, sv.PassTokens)
	}
	// Unbounded, or beyond the model's context (the source clamps a
	// longer prompt to it): passes of the context, said in the error.
	for _, longest := range []int{0, 200000} {
		var nf *NotFitError
		_, err := New(s, sch, Options{LongestPrompt: longest})
		if !errors.As(err, &nf) || nf.WholePass != 131072 || !strings.Contains(err.Error(), "activations (of a 131072-token pass: the longest prompt, prefilled whole)") {
			t.Errorf("LongestPrompt %d: got %v, want a NotFitError of a 131072-token pass", longest, err)
		}
	}
	// A pass given (--ubatch) is not the longest prompt's: a NotFitError
	// then names no whole pass.
	if _, err := New(s, sch, Options{UBatch: 131072}); !errors.As(err, new(*NotFitError)) || strings.Contains(err.Error(), "pass") {
		t.Errorf("--ubatch 131072: got %v, want a NotFitError naming no whole pass", err)
	}
	if _, err := New(s, sch, Options{LongestPrompt: -1}); err == nil {
		t.Error("LongestPrompt -1 accepted")
	}
}
