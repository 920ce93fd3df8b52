package serve

import (
	"errors"
	"testing"
)

// TestLongestPrompt: the longest prompt a workload sends, which a
// runtime that prefills each prompt whole takes its passes of: a trace's
// longest row sent, a fixed length, else the largest of the seeded draws
// (no longer the model's whole context for a shape without an upper end).
func TestLongestPrompt(t *testing.T) {
	rows := []Row{{Prompt: 300, Output: 10}, {Prompt: 1200, Output: 10}, {Prompt: 700, Output: 10}}
	for _, c := range []struct {
		name string
		w    Workload
		want int
	}{
		{"fixed", Workload{Requests: 5, Prompt: Dist{A: 512}}, 512},
		// A deviation of 0 draws the mean every time: σ² = ln(1 + 0) = 0,
		// μ = ln 500, each draw round(e^μ) = 500.
		{"log-normal of no spread", Workload{Requests: 20, Prompt: Dist{Kind: LogNormal, A: 500}, Output: Dist{A: 10}}, 500},
		// round(700 + 0·z) = 700.
		{"normal of no spread", Workload{Requests: 20, Prompt: Dist{Kind: Normal, A: 700}, Output: Dist{A: 10}}, 700},
		// A one-token uniform range: 900 + IntN(1) = 900.
		{"uniform of one value", Workload{Requests: 20, Prompt: Dist{Kind: Uniform, A: 900, B: 900}, Output: Dist{A: 10}}, 900},
		// Prompts of 1 token each under a 99-token shared prefix: the
		// source lengthens them to the prefix and one more, 100.
		{"a shared prefix", Workload{Requests: 3, SharedPrefix: 99, Prompt: Dist{Kind: Normal, A: 1}, Output: Dist{A: 10}}, 100},
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

// TestLongestRequest: the most tokens a request holds, prompt and output
// together, which an engine built for the workload gives each row of its
// KV cache (sim.Setup.PoolRow).
func TestLongestRequest(t *testing.T) {
	rows := []Row{{Prompt: 300, Output: 10}, {Prompt: 1200, Output: 10}, {Prompt: 700, Output: 900}}
	for _, c := range []struct {
		name string
		w    Workload
		want int
	}{
		// 7000 + 1192 = 8192.
		{"fixed", Workload{Requests: 5, Prompt: Dist{A: 7000}, Output: Dist{A: 1192}}, 8192},
		// Prompts of 1 token lengthened to the 99-token prefix and one
		// more, 100, and 10 output tokens: 110.
		{"a shared prefix", Workload{Requests: 3, SharedPrefix: 99, Prompt: Dist{Kind: Normal, A: 1}, Output: Dist{A: 10}}, 110},
		// 900 + IntN(1) and 50 + IntN(1): 950 every time.
		{"uniform of one value", Workload{Requests: 20, Prompt: Dist{Kind: Uniform, A: 900, B: 900}, Output: Dist{Kind: Uniform, A: 50, B: 50}}, 950},
		// 310, 1210, 1600: the longest request is not the longest
		// prompt's (1200 + 10).
		{"a trace", Workload{Arrival: Trace, Rows: rows}, 1600},
		// The first two rows: 310 and 1210.
		{"a trace's first two rows", Workload{Arrival: Trace, Rows: rows, Requests: 2}, 1210},
	} {
		if got := c.w.LongestRequest(); got != c.want {
			t.Errorf("%s: LongestRequest = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestLongestPromptIsTheLongestSent: for shapes without an upper end the
// longest prompt is the largest the run's source sends (the same stream,
// in the same order), and it sits where a sample of that size reaches.
// lognormal:500:300: σ² = ln(1 + 300²/500²) = ln 1.36 = 0.3075, σ =
// 0.5545, μ = ln 500 − σ²/2 = 6.2146 − 0.1538 = 6.0608; its 99th
// percentile is e^(6.0608 + 2.326·0.5545) = e^7.3506 = 1557 tokens and
// its 99.99th e^(6.0608 + 3.719·0.5545) = e^8.1230 = 3371: the largest
// of 1000 draws (about the 99.9th, e^(6.0608 + 3.090·0.5545) = 2377)
// lies between them but for a chance of 0.99¹⁰⁰⁰ + 1 − 0.9999¹⁰⁰⁰ ≈ 10 %
// a seed; the seeds below are fixed, and checked.
func TestLongestPromptIsTheLongestSent(t *testing.T) {
	for _, c := range []struct {
		name string
		w    Workload
		lo   int
		hi   int
	}{
		{"log-normal", Workload{Requests: 1000, Rate: 1, Prompt: Dist{Kind: LogNormal, A: 500, B: 300}, Output: Dist{Kind: LogNormal, A: 100, B: 50}, Seed: 1}, 1557, 3371},
		{"log-normal, another seed", Workload{Requests: 1000, Rate: 1, Prompt: Dist{Kind: LogNormal, A: 500, B: 300}, Output: Dist{Kind: Normal, A: 100, B: 50}, Seed: 7}, 1557, 3371},
		// normal:2000:1000 over 1000 draws: between its 99th percentile,
		// 2000 + 2.326·1000 = 4326, and its 99.99th, 2000 + 3.719·1000 =
		// 5719.
		{"normal", Workload{Requests: 1000, Rate: 1, Prompt: Dist{Kind: Normal, A: 2000, B: 1000}, Output: Dist{A: 64}, Seed: 3}, 4326, 5719},
		// uniform:100:3000 over 1000 draws: at most 3000, and below
		// 2971 with a chance of (2871/2901)¹⁰⁰⁰ = 0.98966¹⁰⁰⁰ ≈ 3·10⁻⁵.
		{"uniform", Workload{Requests: 1000, Rate: 1, Prompt: Dist{Kind: Uniform, A: 100, B: 3000}, Output: Dist{Kind: Uniform, A: 1, B: 200}, Seed: 1}, 2971, 3000},
	} {
		got := c.w.LongestPrompt()
		if got < c.lo || got > c.hi {
			t.Errorf("%s: LongestPrompt = %d, want within [%d, %d]", c.name, got, c.lo, c.hi)
		}
		// The source, holding any length, sends that longest prompt.
		src, err := newSource(c.w, MaxLength)
		if err != nil {
			t.Fatal(err)
		}
		sent := 0
		for range c.w.Requests {
			_, p, _, _ := src.pop()
			sent = max(sent, p)
		}
		if sent != got {
			t.Errorf("%s: the source sends prompts of up to %d tokens, LongestPrompt says %d", c.name, sent, got)
		}
	}
}

// TestWholePromptRuntimeSizedByItsPrompts: TensorRT Edge-LLM prefills
// each prompt in one pass and states no chunk, so its passes are the
// longest prompt served. Llama-3.2-3B w4a16 fits an Orin Nano 8GB with
// room for a KV cache (predict fits it with 4.7 GiB to spare); sized
// for a pass of 2²⁰ tokens its activations needed 40130 MiB more than
// the board holds and serve refused it. A pass of the model's context,
// 131072 tokens (what an unbounded prompt shape was sized for before its
// draws were), is still more than the board leaves: refused, the error
// naming the pass. A pass never exceeds the model's context.
func TestWholePromptRuntimeSizedByItsPrompts(t *testing.T) {
	s := setup(t, "llama-3.2-3b", "w4a16", "jetson-orin-nano-8gb", "gpu", "tensorrt-edge-llm")
	sch := s.Runtime.SchedulerFor(s.Device)
	sv, err := New(s, sch, Options{LongestPrompt: 512})
	if err != nil {
		t.Fatalf("a 512-token workload: %v", err)
	}
	if sv.StepTokens != 512 || sv.PassTokens != 512 || sv.PromptPass != 512 {
		t.Errorf("step %d, pass %d, prompt pass %d tokens, want 512 each", sv.StepTokens, sv.PassTokens, sv.PromptPass)
	}
	// lognormal:500:300, 1000 requests, seed 1: its longest draw.
	w := Workload{Requests: 1000, Rate: 1, Prompt: Dist{Kind: LogNormal, A: 500, B: 300}, Output: Dist{A: 128}, Seed: 1}
	if sv, err := New(s, sch, Options{LongestPrompt: w.LongestPrompt()}); err != nil {
		t.Errorf("lognormal:500:300: %v", err)
	} else if sv.PromptPass != w.LongestPrompt() {
		t.Errorf("lognormal:500:300: prompt pass %d, want %d", sv.PromptPass, w.LongestPrompt())
	}
	var nf *NotFitError
	if _, err := New(s, sch, Options{LongestPrompt: 1 << 20}); !errors.As(err, &nf) || nf.PromptPass != 131072 {
		t.Errorf("a pass of 2²⁰ tokens: got %v, want a NotFitError of a 131072-token pass (the model's context)", err)
	}
	if _, err := New(s, sch, Options{}); !errors.As(err, &nf) || nf.PromptPass != 131072 {
		t.Errorf("no longest prompt: got %v, want a NotFitError of the model's context", err)
	}
	// A chunk asked for is no prompt pass.
	if sv, err := New(s, sch, Options{UBatch: 256}); err != nil || sv.PromptPass != 0 || sv.PassTokens != 256 {
		t.Errorf("--ubatch 256: %v, prompt pass %d", err, sv.PromptPass)
	}
	if _, err := New(s, sch, Options{LongestPrompt: -1}); err == nil {
		t.Error("LongestPrompt -1 accepted")
	}
}
