package plan

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/sim"
)

// Rank is what the planner's answer puts first among the configurations
// of a device and model. Whatever the rank, configurations that meet the
// targets come before those that do not, and those that do not are
// ordered by how little they miss (cmpMiss).
type Rank uint8

// The ranks; RankQuality is the default.
const (
	// RankQuality: the best published quality among the configurations
	// that meet the targets, formats within the tolerance of it counting
	// as equal; then the fastest decode, the longest context, the largest
	// batch, the widest margin.
	RankQuality Rank = iota
	// RankSpeed: the fastest decode at the reference point; then quality.
	RankSpeed
	// RankMargin: the widest margin at the slow end of the predictions'
	// interval (the smallest of target / prediction for TTFT and TPOT and
	// usable / needed memory); then quality.
	RankMargin
	// RankContext: the longest context, then the largest batch that runs at once; then
	// quality.
	RankContext
	// RankMemory: the least memory needed; then quality.
	RankMemory
)

var rankNames = [...]string{"quality", "speed", "margin", "context", "memory"}

// Ranks lists the rank names, the default first.
func Ranks() []string { return rankNames[:] }

func (r Rank) String() string { return rankNames[r] }

// ParseRank reads a rank name, ignoring case.
func ParseRank(s string) (Rank, error) {
	for i, n := range rankNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Rank(i), nil
		}
	}
	return 0, fmt.Errorf("%q: unknown rank (ranks: %s)", s, strings.Join(rankNames[:], ", "))
}

// Rule says in words how a rank orders configurations.
func (r Rank) Rule(tolerance float64) string {
	switch r {
	case RankSpeed:
		return "the fastest decode (per sequence, at the smallest context and batch planned), then quality"
	case RankMargin:
		return "the widest margin to the targets at the slow end of the predictions' interval, then quality"
	case RankContext:
		return "the longest context, then the largest batch that runs at once, then quality"
	case RankMemory:
		return "the least memory needed, then quality"
	}
	return fmt.Sprintf("the best published quality among those that meet the targets, formats losing at most %s points more than the best of their metric counting as equal (perplexity and accuracy never compared, each only with the model itself); then the fastest decode, the longest context, the largest batch that runs at once",
		points(tolerance))
}

// points writes a share as percentage points.
func points(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", 100*f), "0"), ".")
}

// DefaultTolerance is the quality loss within which formats count as
// equal under RankQuality: 3 percentage points of the relative loss in
// model.FormatQuality. Kurtic et al. ("Give Me BF16 or Give Me Death"?,
// ACL 2025, arXiv:2411.02355) find INT8 weights and activations lose 1–3 %
// of accuracy and call it deployable, and recommend INT4 weight-only
// (W4A16, 2.5 % in the table) for latency-bound serving; llama.cpp's
// Q4_K_M (2.8 % perplexity) is the 4-bit type local runtimes ship by
// default. Within this band a user takes the faster format.
const DefaultTolerance = 0.03

// Margin is a configuration's narrowest margin at the slow end of the
// predictions' interval: the smallest of target / slow-end prediction for
// TTFT and TPOT, and of usable / needed memory. Above 1 every target is
// met with room to spare.
func (g *Group) Margin(c sim.Config, t sim.Targets) float64 {
	m := g.UsableFor(c) / c.Memory
	ttft, tpot := g.Judge(c, t) // without a target, an infinite margin
	return math.Min(m, math.Min(ttft.MarginLo, tpot.MarginLo))
}

// Speed is the group's decode rate per sequence at the reference point,
// tokens/s: the same context and batch for every group, so that formats
// and engines compare fairly.
func (g *Group) Speed() float64 { return 1 / g.Reference.TPOT }

// pickBetter reports whether configuration c of group g ranks before cur
// within the group, whose quality and speed are the same for all.
func (r Rank) pickBetter(g *Group, c, cur sim.Config, t sim.Targets) bool {
	if d := cmpMiss(c, cur); d != 0 || !c.Feasible {
		return d < 0
	}
	switch r {
	case RankMargin:
		if a, b := g.Margin(c, t), g.Margin(cur, t); a != b {
			return a > b
		}
	case RankMemory:
		if c.Memory != cur.Memory {
			return c.Memory < cur.Memory
		}
	}
	if c.Context != cur.Context {
		return c.Context > cur.Context
	}
	// The largest batch that runs at once; of batches that run alike
	// (a static batch's cap, or one sequence at a time), the smallest:
	// the sequences beyond it only queue, adding latency and no rate.
	if a, b := g.runsAtOnce(c.Batch), g.runsAtOnce(cur.Batch); a != b {
		return a > b
	}
	return c.Batch < cur.Batch
}

// runsAtOnce is how many of batch's sequences share a step.
func (g *Group) runsAtOnce(batch int) int {
	if g.atOnce > 0 {
		return min(batch, g.atOnce)
	}
	return batch
}

// cmpMiss is the one rule every rank applies first, within a group and
// across groups: negative when x comes before y. Configurations that meet
// the targets come first; then those that fit in memory, always, however
// far they miss a latency target (a board that holds the model can be
// given a shorter prompt or a longer wait; one that does not hold it
// cannot run it); then, within each, the smaller miss of the first
// constraint that fails (needed / allowed: Config.Excess). Zero when both
// meet the targets or miss alike: the rank decides.
func cmpMiss(x, y sim.Config) int {
	switch {
	case x.Feasible != y.Feasible:
		return bool2cmp(x.Feasible)
	case x.Feasible:
		return 0
	case x.Fits != y.Fits:
		return bool2cmp(x.Fits)
	case x.Excess < y.Excess:
		return -1
	case x.Excess > y.Excess:
		return 1
	}
	return 0
}

// bool2cmp is -1 when the configuration holding ok comes first.
func bool2cmp(ok bool) int {
	if ok {
		return -1
	}
	return 1
}

// Choice is one ranked configuration of a device and model.
type Choice struct {
	Device, Model string
	// Place is 1 for the recommended configuration, 2 for the next, ….
	Place int
	// Group is nil when no engine of the device runs the model in the
	// formats asked for.
	Group    *Group
	Config   sim.Config
	Feasible bool
	// EqualQuality is true when the format is within the tolerance of the
	// best quality among the candidates.
	EqualQuality bool
}

// Answer is the ranked configurations, with what the ranking left out.
type Answer struct {
	Choices []Choice
	// CPUHidden counts CPU-engine groups left out of the answer because
	// another engine of the same device runs the model; Infeasible counts
	// device and model pairs left out because nothing meets the targets.
	CPUHidden, Infeasible int
	// More counts configurations ranked after the top.
	More int
}

// Options say what an answer shows.
type Options struct {
	// Top is how many configurations per device and model (1 when 0).
	Top int
	// AllEngines keeps CPU engines that another engine of the device
	// outdoes; otherwise a device's CPU engine is shown only when it was
	// asked for, when no other engine runs the model, or when only the CPU
	// meets the targets.
	AllEngines bool
	// FeasibleOnly leaves out device and model pairs where nothing meets
	// the targets.
	FeasibleOnly bool
}

// Best is the recommended configuration per device and model.
func (r *Result) Best() []Choice { return r.Answer(Options{}).Choices }

// Answer ranks, per device and model, each group's pick and keeps the top.
func (r *Result) Answer(o Options) Answer {
	top := max(o.Top, 1)
	var a Answer
	for _, p := range r.Pairs {
		if len(p.Groups) == 0 {
			if !o.FeasibleOnly {
				a.Choices = append(a.Choices, Choice{Device: p.Device, Model: p.Model, Place: 1})
			}
			continue
		}
		cands := make([]*Group, 0, len(p.Groups))
		for _, i := range p.Groups {
			cands = append(cands, &r.Groups[i])
		}
		if !o.AllEngines && !r.EnginesAsked {
			var hidden int
			cands, hidden = withoutCPU(cands)
			a.CPUHidden += hidden
		}
		rk := r.ranker(cands)
		sort.SliceStable(cands, func(i, j int) bool { return rk.before(cands[i], cands[j]) })
		if o.FeasibleOnly && !cands[0].Pick.Feasible {
			a.Infeasible++
			continue
		}
		for i, g := range cands {
			if i == top || (o.FeasibleOnly && !g.Pick.Feasible) {
				a.More += len(cands) - i
				break
			}
			a.Choices = append(a.Choices, Choice{Device: p.Device, Model: p.Model, Place: i + 1, Group: g, Config: g.Pick,
				Feasible: g.Pick.Feasible, EqualQuality: rk.class(g) <= rk.best})
		}
	}
	return a
}

// withoutCPU drops CPU-engine groups when another engine of the device
// runs the model, unless only the CPU meets the targets.
func withoutCPU(gs []*Group) ([]*Group, int) {
	var cpu, other []*Group
	otherOK, cpuOK := false, false
	for _, g := range gs {
		if g.EngineKind == hardware.CPU {
			cpu = append(cpu, g)
			cpuOK = cpuOK || g.Pick.Feasible
		} else {
			other = append(other, g)
			otherOK = otherOK || g.Pick.Feasible
		}
	}
	if len(other) == 0 || len(cpu) == 0 || (cpuOK && !otherOK) {
		return gs, 0
	}
	return other, len(cpu)
}

// ranker orders the candidates of one device and model.
type ranker struct {
	rank    Rank
	targets sim.Targets
	bands   model.QualityBands
	// best is the best rank by quality among the candidates that count.
	best int
}

func (r *Result) ranker(cands []*Group) ranker {
	// The best quality of each metric among those that meet the targets;
	// when none does, among all (model.QualityBands, the one rule).
	anyFeasible := false
	for _, g := range cands {
		anyFeasible = anyFeasible || g.Pick.Feasible
	}
	qs, counted := make([]model.Quality, len(cands)), make([]bool, len(cands))
	for i, g := range cands {
		qs[i], counted[i] = *g.Quality, g.Pick.Feasible || !anyFeasible
	}
	rk := ranker{rank: r.Rank, targets: r.Targets, bands: model.NewQualityBands(qs, counted, r.Tolerance), best: model.NoBand}
	for i, g := range cands {
		if counted[i] {
			rk.best = min(rk.best, rk.class(g))
		}
	}
	return rk
}

// loss is the group's published quality loss; a reference loses none.
func loss(g *Group) float64 {
	if g.Quality.Reference {
		return 0
	}
	return g.Quality.Loss
}

// class is the group's rank by quality (model.QualityBands.Band): 0
// within a tolerance of the model itself, model.NoBand for a format with
// no published figure.
func (rk ranker) class(g *Group) int { return rk.bands.Band(*g.Quality) }

// cmpQuality is negative when a's quality ranks before b's: a lower band.
// Within a band, and between the bands of one rank on two metrics, quality
// is a tie.
func (rk ranker) cmpQuality(a, b *Group) float64 {
	return float64(rk.class(a) - rk.class(b))
}

// before reports whether group a ranks before group b.
func (rk ranker) before(a, b *Group) bool {
	x, y := a.Pick, b.Pick
	if d := cmpMiss(x, y); d != 0 {
		return d < 0
	}
	if a.Devices != b.Devices {
		// The fewest devices sure to meet the targets at their
		// confidence, else the fewest that meet them as predicted (or
		// miss alike): a board is bought once.
		if sa, sb := x.Verdict == sim.Meets, y.Verdict == sim.Meets; sa != sb {
			return sa
		}
		return a.Devices < b.Devices
	}
	speed := func() float64 { return b.Speed() - a.Speed() }
	context := func() float64 {
		if x.Context != y.Context {
			return float64(y.Context - x.Context)
		}
		return float64(y.Batch - x.Batch)
	}
	margin := func() float64 { return b.Margin(y, rk.targets) - a.Margin(x, rk.targets) }
	quality := func() float64 { return rk.cmpQuality(a, b) }
	memory := func() float64 { return x.Memory - y.Memory }
	var keys []func() float64
	switch rk.rank {
	case RankSpeed:
		keys = []func() float64{speed, quality, context, margin}
	case RankMargin:
		keys = []func() float64{margin, quality, speed, context}
	case RankContext:
		keys = []func() float64{context, quality, speed, margin}
	case RankMemory:
		keys = []func() float64{memory, quality, speed, context}
	default:
		keys = []func() float64{quality, speed, context, margin}
	}
	for _, k := range keys {
		if d := k(); d != 0 && !math.IsNaN(d) {
			return d < 0
		}
	}
	return false
}

// ParetoPoint is one format on the quality-speed frontier.
type ParetoPoint struct {
	Device, Engine, Model, Weights string
	BPW                            float64
	// Loss is the format's published quality loss (0 for a reference).
	Loss       float64
	Quality    *model.Quality
	TokensPerS float64 // decode, per sequence, at the smallest planned context and batch
}

// Pareto returns, per device and model, the formats no other format beats
// on both published quality and decode speed (among those that fit one
// device alone at the reference point and have a published quality
// figure).
func (r *Result) Pareto() []ParetoPoint {
	var out, ps []ParetoPoint
	for _, p := range r.Pairs {
		ps = ps[:0]
		for _, i := range p.Groups {
			g := &r.Groups[i]
			if !g.Reference.Fits || !g.Quality.Known || g.Devices > 1 || g.Reference.Offloaded() {
				continue
			}
			ps = append(ps, ParetoPoint{g.Device, g.Engine, g.Model, g.Weights, g.BPW, loss(g), g.Quality, g.Speed()})
		}
		front := len(out)
		for i, a := range ps {
			dominated := false
			for j, b := range ps {
				// Losses on two metrics do not compare (model.Quality.Comparable):
				// only a format of a's metric, or the reference, dominates it.
				if i != j && b.Quality.Comparable(*a.Quality) && b.Loss <= a.Loss && b.TokensPerS >= a.TokensPerS && (b.Loss < a.Loss || b.TokensPerS > a.TokensPerS) {
					dominated = true
					break
				}
			}
			if !dominated {
				out = append(out, a)
			}
		}
		f := out[front:]
		sort.SliceStable(f, func(i, j int) bool { return f[i].Loss < f[j].Loss })
	}
	return out
}
