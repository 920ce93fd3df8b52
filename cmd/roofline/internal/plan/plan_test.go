package plan

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
)

// space is two boards, two models and three formats over three contexts
// and two batches: the voice assistant's question.
func space(t *testing.T) Space {
	t.Helper()
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	devs, err := ResolveDevices(cat, []string{"jetson-orin-nano-super-8gb", "rk3588"})
	if err != nil {
		t.Fatal(err)
	}
	models, err := ResolveModels(cat, []string{"llama-3.2-3b", "qwen2.5-1.5b"})
	if err != nil {
		t.Fatal(err)
	}
	return Space{Devices: devs, Models: models, Weights: []string{"q4_k_m", "q8_0", "w8a8"}, Contexts: []int{2048, 4096, 8192},
		Batches: []int{1, 4}, Prompt: 1000, Output: 200, UBatch: 512, Options: sim.DefaultOptions, RuntimeSet: cat.Runtimes()}
}

// The planner's answers hold together: every configuration is priced,
// feasible exactly when no constraint fails, the recommended configuration
// is the best by the stated rank, and the frontier is not dominated.
func TestPlanBehaviour(t *testing.T) {
	sp := space(t)
	tg := sim.Targets{TTFT: 1, TPOT: 0.2, Headroom: 0.1}
	res, err := Run(sp, tg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) == 0 {
		t.Fatal("no groups")
	}
	n := 0
	for _, g := range res.Groups {
		if len(g.Configs) != len(sp.Contexts)*len(sp.Batches) {
			t.Errorf("%s %s %s: %d configurations, want %d", g.Device, g.Model, g.Weights, len(g.Configs), len(sp.Contexts)*len(sp.Batches))
		}
		for _, c := range g.Configs {
			n++
			if c.Feasible != (c.Limit == sim.LimitNone) {
				t.Errorf("%s %s: feasible %v with limit %v", g.Device, g.Weights, c.Feasible, c.Limit)
			}
			if c.Fits != (c.Memory <= g.Usable) {
				t.Errorf("%s %s ctx %d: fits %v, memory %.4g of %.4g", g.Device, g.Weights, c.Context, c.Fits, c.Memory, g.Usable)
			}
			if !c.Feasible && !(c.Excess > 1) {
				t.Errorf("%s %s ctx %d: fails %v by %v, want > 1", g.Device, g.Weights, c.Context, c.Limit, c.Excess)
			}
		}
		// The memory bound answers the same question directly.
		if l := g.Limits.MaxContextFit; l > 0 {
			for _, c := range g.Configs {
				if c.Batch == g.Limits.Batch && c.Fits != (c.Context <= l) {
					t.Errorf("%s %s: context %d fits %v, but the largest that fits is %d", g.Device, g.Weights, c.Context, c.Fits, l)
				}
			}
		}
	}
	if res.Evaluated != n {
		t.Errorf("evaluated %d, counted %d", res.Evaluated, n)
	}
	// rk3588's NPU runs w8a8 only and its CPU no w8a8: such pairs are
	// skipped and said so.
	if !slices.ContainsFunc(res.Skipped, func(s string) bool { return strings.HasPrefix(s, "rk3588/") }) {
		t.Errorf("skipped %v; want the rk3588 engines that cannot run a format", res.Skipped)
	}

	// The recommended configuration, every engine a candidate: it meets
	// the targets when any configuration does, it is its group's longest
	// context that does, no faster format is within the quality band, and
	// when nothing meets them it misses least.
	for _, ch := range res.Answer(Options{AllEngines: true}).Choices {
		if ch.Group == nil {
			continue
		}
		bestLoss := math.Inf(1)
		for gi := range res.Groups {
			g := &res.Groups[gi]
			if g.Device == ch.Device && g.Model == ch.Model && g.Pick.Feasible && g.Quality.Known {
				bestLoss = min(bestLoss, loss(g))
			}
		}
		if ch.Config != ch.Group.Pick {
			t.Errorf("%s %s: the answer is not its group's pick", ch.Device, ch.Model)
		}
		for gi := range res.Groups {
			g := &res.Groups[gi]
			if g.Device != ch.Device || g.Model != ch.Model {
				continue
			}
			inBand := g.Quality.Known && loss(g) <= bestLoss+DefaultTolerance
			if ch.Feasible && g.Pick.Feasible && inBand && g.Speed() > ch.Group.Speed() {
				t.Errorf("%s %s: recommends %s, but %s is in the quality band and faster", ch.Device, ch.Model, ch.Group.Weights, g.Weights)
			}
			for _, c := range g.Configs {
				switch {
				case c.Feasible && !ch.Feasible:
					t.Errorf("%s %s: best fails though %s ctx %d b%d is feasible", ch.Device, ch.Model, g.Weights, c.Context, c.Batch)
				case g == ch.Group && c.Feasible && c.Context > ch.Config.Context:
					t.Errorf("%s %s: best context %d, but %d is feasible", ch.Device, ch.Model, ch.Config.Context, c.Context)
				case !ch.Feasible && !c.Feasible && c.Fits && !ch.Config.Fits:
					t.Errorf("%s %s: the closest miss does not fit, but one that fits misses by %v", ch.Device, ch.Model, c.Excess)
				case !ch.Feasible && !c.Feasible && c.Fits == ch.Config.Fits && c.Excess < ch.Config.Excess:
					t.Errorf("%s %s: closest misses by %v, but one misses by %v", ch.Device, ch.Model, ch.Config.Excess, c.Excess)
				}
			}
		}
	}

	pts := res.Pareto()
	for i, p := range pts {
		for j, q := range pts {
			// Losses dominate within a metric only.
			if i != j && p.Device == q.Device && p.Model == q.Model && q.Quality.Comparable(*p.Quality) && q.Loss <= p.Loss && q.TokensPerS >= p.TokensPerS &&
				(q.Loss < p.Loss || q.TokensPerS > p.TokensPerS) {
				t.Errorf("%v is dominated by %v", p, q)
			}
		}
		if !(p.TokensPerS > 0) || math.IsInf(p.TokensPerS, 0) {
			t.Errorf("%v: decode rate", p)
		}
	}
}

// A plan is deterministic and keeps the order of its lists.
func TestPlanDeterministic(t *testing.T) {
	sp := space(t)
	a, err := Run(sp, sim.Targets{TPOT: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(sp, sim.Targets{TPOT: 0.1})
	if len(a.Groups) != len(b.Groups) {
		t.Fatal("group counts differ")
	}
	for i := range a.Groups {
		ga, gb := a.Groups[i], b.Groups[i]
		if ga.Device != gb.Device || ga.Weights != gb.Weights || !slices.Equal(ga.Configs, gb.Configs) {
			t.Fatalf("group %d differs between runs", i)
		}
	}
	if a.Groups[0].Device != sp.Devices[0].Name {
		t.Errorf("first group on %s, want the first device listed", a.Groups[0].Device)
	}
}

func TestPlanErrors(t *testing.T) {
	sp := space(t)
	sp.MinContext = 1 << 20
	if _, err := Run(sp, sim.Targets{}); err == nil || !strings.Contains(err.Error(), "no context length left") {
		t.Errorf("min context above every context: %v", err)
	}
	sp = space(t)
	sp.Devices = nil
	if _, err := Run(sp, sim.Targets{}); err == nil {
		t.Error("an empty space planned")
	}
}

// A search larger than limits.PlanConfigs is refused by Prepare, before a
// configuration is evaluated or a buffer sized: 20,000 contexts × 20,000
// batches tried to allocate 24.8 GB at once.
func TestPlanTooLarge(t *testing.T) {
	sp := space(t)
	sp.Contexts, sp.Batches = nil, nil
	for i := 1; i <= 20000; i++ {
		sp.Contexts = append(sp.Contexts, 2048+i)
		sp.Batches = append(sp.Batches, i)
	}
	_, err := Prepare(sp, sim.Targets{})
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("20,000 × 20,000: %v", err)
	}
	// 20,000 × 20,000 × the groups of the space: the product is stated.
	if tl.Contexts != 20000 || tl.Batches != 20000 || tl.Groups < 2 || !strings.Contains(err.Error(), "at most 16777216 (2^24)") {
		t.Errorf("%+v: %v", tl, err)
	}
}

// A group is evaluated and handed on in parts: what the parts hold, in
// order, is what a search keeping every configuration keeps, and the
// group's counts and pick are the same. 5,000 contexts × 2 batches make
// three parts a batch.
func TestPlanParts(t *testing.T) {
	sp := space(t)
	sp.Contexts = nil
	for i := 0; i < 5000; i++ {
		sp.Contexts = append(sp.Contexts, 1200+7*i)
	}
	tg := sim.Targets{TTFT: 1, TPOT: 0.05}
	kept, err := Run(sp, tg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Prepare(sp, tg)
	if err != nil {
		t.Fatal(err)
	}
	got := make([][]sim.Config, s.Groups())
	parts := 0
	streamed, err := s.Run(func(g *Group) error {
		if len(g.Configs) > partSize {
			t.Fatalf("a part of %d configurations, more than %d", len(g.Configs), partSize)
		}
		i := slices.IndexFunc(kept.Groups, func(k Group) bool {
			return k.Device == g.Device && k.Engine == g.Engine && k.Model == g.Model && k.Weights == g.Weights && k.KV == g.KV
		})
		got[i] = append(got[i], g.Configs...)
		parts++
		return nil
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := s.Groups() * 2 * 2; parts != want { // 5,000 contexts: 4,096 and 904
		t.Errorf("%d parts, want %d", parts, want)
	}
	for i := range kept.Groups {
		k, st := &kept.Groups[i], &streamed.Groups[i]
		if !slices.Equal(got[i], k.Configs) {
			t.Errorf("group %d: the parts differ from the kept configurations", i)
		}
		if st.Configs != nil || st.Pick != k.Pick || st.Reference != k.Reference || st.Evaluated != k.Evaluated || st.Meeting != k.Meeting || st.Sure != k.Sure || st.Limits != k.Limits {
			t.Errorf("group %d: streamed %+v, kept %+v", i, st, k)
		}
	}
	if streamed.Evaluated != kept.Evaluated || streamed.Meeting != kept.Meeting || kept.Evaluated != s.Groups()*10000 {
		t.Errorf("evaluated %d (meeting %d), kept %d (meeting %d)", streamed.Evaluated, streamed.Meeting, kept.Evaluated, kept.Meeting)
	}
}
