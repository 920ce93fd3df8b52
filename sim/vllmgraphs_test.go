package sim_test

import (
	"testing"

	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// TestGraphsPriceLaunches holds vLLM's CUDA graphs ([graphs] in
// profiles/runtimes/vllm.toml) against the same setup without them, by
// hand: Qwen3-0.6B has 28 layers; on an H100 (1024 sequences: graphs up
// to min(2 × 1024, 512) = 512 tokens) a 512-token prompt runs in one
// piecewise pass, 28 × 15 µs = 420 µs more; a 600-token one past the
// largest graph, 28 × 339 µs = 9.492 ms more; a decode step of 8
// sequences replays a whole graph (nothing more), one of 600 sequences
// none (9.492 ms more a step). Serving steps are priced by the same
// code (TestStepPricerIsPredict), so serve's passes follow.
func TestGraphsPriceLaunches(t *testing.T) {
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cat.Runtimes().Lookup("vllm")
	if err != nil {
		t.Fatal(err)
	}
	bare := *rt
	bare.Graphs = runtimes.Graphs{}
	m, d := setup(t, "qwen3-0.6b", "bf16", "bf16", "h100-sxm")
	e, err := d.Engine("gpu")
	if err != nil {
		t.Fatal(err)
	}
	with, err := sim.NewSetup(m, d, e, rt, sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	without, err := sim.NewSetup(m, d, e, &bare, sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if with.Inputs.GraphCapture != 512 {
		t.Fatalf("capture %d tokens, want 512", with.Inputs.GraphCapture)
	}
	for _, c := range []struct {
		name   string
		prompt int
		batch  int
		decode bool
		extra  float64 // s, by hand
	}{
		{"512-token prompt, piecewise", 512, 1, false, 28 * 15e-6},
		{"600-token prompt, no graph", 600, 1, false, 28 * 339e-6},
		{"decode at batch 8, whole graph", 0, 8, true, 0},
		{"decode at batch 600, no graph", 0, 600, true, 28 * 339e-6},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got float64
			if c.decode {
				got = with.Decode(100, 1, c.batch).Time - without.Decode(100, 1, c.batch).Time
			} else {
				got = with.TTFT(c.prompt, 0, 1, 8192) - without.TTFT(c.prompt, 0, 1, 8192)
			}
			if !near(got, c.extra, 1e-9) && !(c.extra == 0 && got == 0) {
				t.Errorf("adds %v s, want %v s", got, c.extra)
			}
		})
	}
}
