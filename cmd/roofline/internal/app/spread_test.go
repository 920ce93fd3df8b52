package app

import (
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/sim"
)

// setupOf resolves a selection for the tests of this package.
func setupOf(t *testing.T, sel Selection) *sim.Setup {
	t.Helper()
	env, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	res, err := env.Resolve(sel)
	if err != nil {
		t.Fatal(err)
	}
	return res.Setup
}

// TestParallelBuildsTheGroupsOnce: --devices 16 alone on H100 SXM under
// vLLM is two HGX boards of 8 (tensorGroup: nvlink4 joins 8, 16 % 8 = 0),
// tp 8 × pp 2; the search for the groups builds that split, and parallel
// returns it rather than building it again: one sim.NewParallel, where
// the search's and a second one made two.
func TestParallelBuildsTheGroupsOnce(t *testing.T) {
	s := setupOf(t, Selection{Model: "llama-3.1-70b", Hardware: "h100-sxm", Runtime: "vllm", Weights: "bf16", Options: sim.DefaultOptions})
	calls := 0
	defer func(f func(*sim.Setup, *hardware.Link, sim.ParallelOptions) (*sim.Split, error)) { newParallel = f }(newParallel)
	inner := newParallel
	newParallel = func(s *sim.Setup, l *hardware.Link, o sim.ParallelOptions) (*sim.Split, error) {
		calls++
		return inner(s, l, o)
	}
	env, _ := NewEnv()
	split, _, err := env.parallel(s, Spread{Devices: 16}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if split.TP != 8 || split.PP != 2 {
		t.Errorf("16 H100 SXM: tp %d × pp %d, want tp 8 × pp 2", split.TP, split.PP)
	}
	if calls != 1 {
		t.Errorf("built %d splits, want 1", calls)
	}
}
