package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/serve"
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

// TestParallelBuildsTheGroupsOnce: --devices 16 on H100 SXM under vLLM
// (--link the boards' network) is two HGX boards of 8 (tensorGroup: nvlink4 joins 8, 16 % 8 = 0),
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
	split, _, err := env.parallel(s, Spread{Devices: 16, LinkRate: 50e9}, nil)
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

// TestPlanMaxRateSkipsOnlyUnsteppedSplits: plan --rate searches a
// pipeline (16 H100 SXM under vLLM: tp 8 × pp 2, two pipeline stages) as
// serve searches it (the same rate), leaves unsearched a split serve does
// not step (Gemma 2's stages would hold unlike shares of its sliding and
// global layers), and fails
// on any other error of the request, whatever input it names: --devices
// 2 with --tp 3 is tp 3 × pp 1 = 3 devices, an error of --devices (it
// was taken for a split not stepped, its rate left out in silence).
func TestPlanMaxRateSkipsOnlyUnsteppedSplits(t *testing.T) {
	env, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	sel := Selection{Model: "llama-3.1-70b", Hardware: "h100-sxm", Runtime: "vllm", Weights: "bf16", Options: sim.DefaultOptions}
	req := func(sp Spread) ServeRequest {
		return ServeRequest{Setup: sel, Spread: sp, SearchRuns: PlanRateRuns, Targets: serve.Targets{TTFT: 1, TPOT: 0.1},
			Workload: serve.Workload{Arrival: serve.Poisson, Rate: 1, Requests: PlanRateRequests, Prompt: serve.Dist{Kind: serve.Fixed, A: 512}, Output: serve.Dist{Kind: serve.Fixed, A: 128}, Seed: 1}}
	}
	pr, err := env.planMaxRate(req(Spread{Devices: 16, LinkRate: 50e9}))
	if err != nil || !pr.Searched || !(pr.MaxRate > 0) {
		t.Errorf("16 devices (pp 2): %+v, %v; want searched, a rate", pr, err)
	}
	if a, err := env.server(req(Spread{Devices: 16, LinkRate: 50e9})); err != nil || a.Server.Split == nil || a.Server.Split.PP != 2 {
		t.Errorf("16 devices (pp 2): serve's server %v, want the pipeline stepped", err)
	} else {
		r := req(Spread{Devices: 16, LinkRate: 50e9})
		rs, err := a.Server.MaxRate(r.Workload, r.Targets, r.SearchRuns)
		if err != nil || rs.MaxRate != pr.MaxRate {
			t.Fatalf("16 devices (pp 2): plan's rate %v, serve's search's %v (%v)", pr.MaxRate, rs.MaxRate, err)
		}
	}
	gemma := req(Spread{Devices: 16, LinkRate: 50e9})
	gemma.Setup.Model = "gemma-2-2b"
	if _, err := env.server(gemma); !errors.Is(err, ErrNotStepped) || !strings.HasPrefix(err.Error(), "Devices asks for a pipeline serve does not step: ") {
		// The message follows the flag's name ("--devices asks for a
		// pipeline …"), as every RequestError's does.
		t.Errorf("Gemma 2 over 16 devices (pp 2): server's error %v does not say the split is not stepped", err)
	}
	if pr, err := env.planMaxRate(gemma); err != nil || pr.Searched {
		t.Errorf("Gemma 2 over 16 devices (pp 2): %+v, %v; want not searched, no error", pr, err)
	}
	if pr, err := env.planMaxRate(req(Spread{Devices: 2, TP: 3})); err == nil {
		t.Errorf("--devices 2 --tp 3: %+v, no error; want the request's error", pr)
	}
}

// TestPlanSpreadLeavesOutACountNotSplit: 40 RTX 4090s under llama.cpp
// are 40 pipeline stages of Llama-3.1-8B's 32 layers, a count its mode
// does not split (ErrCount): that count is left out of the plan
// (plan.Unsplittable), not the plan's error.
func TestPlanSpreadLeavesOutACountNotSplit(t *testing.T) {
	env, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	s := setupOf(t, Selection{Model: "llama-3.1-8b", Hardware: "rtx-4090", Runtime: "llama.cpp", Weights: "q4_k_m", Options: sim.DefaultOptions})
	_, _, err = env.planSpread(Spread{}, nil)(s, 40)
	var un *plan.Unsplittable
	if !errors.As(err, &un) {
		t.Errorf("40 stages of 32 layers: %v, want a count left out", err)
	}
}

// TestGroupCount: devices fill NVLink groups with whole tensor-parallel
// groups, ⌊joins / tp⌋ of them a group (sim.Split.GroupStages places the
// stages so). Boards of 8 at tp 3 hold 2 groups, 6 devices:
//
//	15 devices, tp 3: 5 stages, ⌈5 / 2⌉ = 3 boards (⌈15 / 8⌉ = 2 was said)
//	16 devices, tp 1: 16 stages, ⌈16 / 8⌉ = 2 boards of 8
//	16 devices, tp 8: 2 stages, 2 boards
//	4 devices, tp 2 on bridged pairs: 2 stages, 2 pairs
//
// A tp beyond the group (refused elsewhere) counts as 1.
func TestGroupCount(t *testing.T) {
	for _, c := range []struct{ joins, n, tp, count, most int }{
		{8, 15, 3, 3, 6},
		{8, 16, 1, 2, 8},
		{8, 16, 8, 2, 8},
		{2, 4, 2, 2, 2},
		{8, 9, 16, 2, 8},
	} {
		if count, most := groupCount(c.joins, c.n, c.tp); count != c.count || most != c.most {
			t.Errorf("groupCount(%d, %d, %d) = %d, %d; want %d, %d", c.joins, c.n, c.tp, count, most, c.count, c.most)
		}
	}
}

// TestUnsteppedPipelineNamesItsFlag: a pipeline serve does not step
// (Gemma 2's stages would hold unlike shares of its sliding and global
// layers) is refused naming the flag that asked for it: --pp 2 under
// vLLM ("PP asks for …"), --devices 2 under llama.cpp, which runs its
// devices as stages by itself. It named --devices for --pp too.
func TestUnsteppedPipelineNamesItsFlag(t *testing.T) {
	env, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		runtime, weights, want string
		spread                 Spread
	}{
		{"vllm", "bf16", "PP asks for a pipeline serve does not step: ", Spread{PP: 2}},
		{"llama.cpp", "q4_k_m", "Devices asks for a pipeline serve does not step: ", Spread{Devices: 2}},
	} {
		req := ServeRequest{Setup: Selection{Model: "gemma-2-2b", Hardware: "rtx-4090", Runtime: c.runtime, Weights: c.weights, Options: sim.DefaultOptions}, Spread: c.spread,
			Targets:  serve.Targets{TTFT: 1, TPOT: 0.1},
			Workload: serve.Workload{Arrival: serve.Poisson, Rate: 1, Requests: 10, Prompt: serve.Dist{Kind: serve.Fixed, A: 512}, Output: serve.Dist{Kind: serve.Fixed, A: 128}, Seed: 1}}
		if _, err := env.server(req); !errors.Is(err, ErrNotStepped) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s, %+v: %v, want %q…", c.runtime, c.spread, err, c.want)
		}
	}
}

// TestServeSplitShortHintsTheSmallestFit: a tensor-parallel group or a
// pipeline whose devices do not hold their parts gets the hint predict
// gives for it (the fewest devices like them that would, priced at a
// lone request of the mean lengths), as one device does: Llama-3.1-70B
// in BF16 (141 GB of weights) is 65.7 GiB a stage over --pp 2 and
// 32.9 GiB a device over --tp 2 against an RTX 4090's 21.6 GiB usable;
// eight hold it (8.2 GiB of weights each). Serve gave no hint for a split.
func TestServeSplitShortHintsTheSmallestFit(t *testing.T) {
	env, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range []Spread{{PP: 2}, {TP: 2}} {
		req := ServeRequest{Setup: Selection{Model: "llama-3.1-70b", Hardware: "rtx-4090", Runtime: "vllm", Weights: "bf16", Options: sim.DefaultOptions}, Spread: sp,
			Targets:  serve.Targets{TTFT: 1, TPOT: 0.1},
			Workload: serve.Workload{Arrival: serve.Poisson, Rate: 1, Requests: 10, Prompt: serve.Dist{Kind: serve.Fixed, A: 512}, Output: serve.Dist{Kind: serve.Fixed, A: 128}, Seed: 1}}
		_, err := env.server(req)
		var he *HintedError
		var nf *serve.NotFitError
		if !errors.As(err, &nf) || !errors.As(err, &he) || he.Advice != "8 devices like it would hold it: --devices 8 --tp 8" {
			t.Errorf("%+v: %v (hinted %v), want not fitting with the hint of 8 devices", sp, err, he)
		}
	}
}
