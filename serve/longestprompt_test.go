package serve

import (
	"errors"
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
		{"log-normal: unbounded", Workload{Prompt: Dist{Kind: LogNormal, A: 500, B: 200}}, 0},
		{"normal: unbounded", Workload{Prompt: Dist{Kind: Normal, A: 500, B: 200}}, 0},
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
	if _, err := New(s, sch, Options{}); !errors.As(err, new(*NotFitError)) {
		t.Errorf("passes of the model's context: got %v, want a NotFitError", err)
	}
	if _, err := New(s, sch, Options{LongestPrompt: -1}); err == nil {
		t.Error("LongestPrompt -1 accepted")
	}
}
