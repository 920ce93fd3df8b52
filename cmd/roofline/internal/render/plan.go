package render

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// PlanConfigJSON is one planned configuration in the JSON vocabulary.
type PlanConfigJSON struct {
	Hardware    string   `json:"hardware"`
	Engine      string   `json:"engine"`
	Runtime     string   `json:"runtime"`
	Model       string   `json:"model"`
	Weights     string   `json:"weights"`
	KV          string   `json:"kv"`
	BitsPerWt   float64  `json:"bits_per_weight"`
	Context     int      `json:"context"`
	Batch       int      `json:"batch"`
	Prompt      int      `json:"prompt"`
	Output      int      `json:"output"`
	Depth       int      `json:"depth"`
	TTFT        float64  `json:"ttft_s"`
	TPOT        float64  `json:"tpot_s"`
	Throughput  float64  `json:"throughput_tokens_per_s"`
	MemoryBytes float64  `json:"memory_bytes"`
	UsableBytes float64  `json:"usable_bytes"`
	Fits        bool     `json:"fits"`
	Feasible    bool     `json:"feasible"`
	Limit       string   `json:"limit"`
	Excess      *float64 `json:"excess,omitempty"`
	TTFTMargin  *float64 `json:"ttft_margin,omitempty"`
	TPOTMargin  *float64 `json:"tpot_margin,omitempty"`
	// The margins at the slow and fast ends of the predictions' interval
	// at the confidence asked.
	TTFTMarginLow  *float64 `json:"ttft_margin_low,omitempty"`
	TTFTMarginHigh *float64 `json:"ttft_margin_high,omitempty"`
	TPOTMarginLow  *float64 `json:"tpot_margin_low,omitempty"`
	TPOTMarginHigh *float64 `json:"tpot_margin_high,omitempty"`
	MemoryMargin   float64  `json:"memory_margin"`
	// Verdict is meets, uncertain or fails at Confidence.
	Verdict    string  `json:"verdict"`
	Confidence float64 `json:"confidence"`
	// IntervalsWidened is ["tpot"] when the TPOT margins' interval is
	// widened for an MoE decode (plan.Group.MoEDecodeNote), as predict's
	// intervals_widened says it: it covers more than Confidence.
	IntervalsWidened []string `json:"intervals_widened,omitempty"`
	// Devices is how many devices the model is spread over (omitted for
	// one) and Split how, or how it is offloaded to the host.
	Devices int    `json:"devices,omitempty"`
	Split   string `json:"split,omitempty"`
}

// PlanChoiceJSON is a ranked configuration: its place among the device
// and model's configurations, what its format costs in quality, its speed
// at the reference point, and the concurrent sequences of its context that
// meet the targets.
type PlanChoiceJSON struct {
	Place int `json:"place"`
	PlanConfigJSON
	// QualityLoss is the published loss (0 for a reference), nil when no
	// figure is published; QualityMetric is ppl, accuracy, reference or
	// unknown.
	QualityLoss   *float64 `json:"quality_loss"`
	QualityMetric string   `json:"quality_metric"`
	// QualityMeasuredOn is the model the loss was measured on; Borrowed
	// is true when that is not the planned model.
	QualityMeasuredOn string  `json:"quality_measured_on"`
	QualityBorrowed   bool    `json:"quality_borrowed"`
	EqualQuality      bool    `json:"equal_quality"`
	DecodeTokensPerS  float64 `json:"decode_tokens_per_s"`
	// MaxConcurrent is the most sequences of ConcurrentContext tokens that
	// fit and meet the targets together (sim.MaxConcurrent, as chat), and
	// ConcurrentFits the most that fit.
	MaxConcurrent     int    `json:"max_concurrent"`
	ConcurrentFits    int    `json:"max_concurrent_fit"`
	ConcurrentContext int    `json:"concurrent_context"`
	ConcurrentFails   string `json:"concurrent_fails"`
	// MaxRate is the largest Poisson rate, requests/s, whose p99 TTFT and
	// TPOT meet the targets (0: none), present when it was searched
	// (plan --rate, or --detail).
	MaxRate *float64 `json:"max_rate,omitempty"`
	// SmallestThatFits says, for a recommended configuration that does
	// not fit, what would hold it (predict's smallest_that_fits).
	SmallestThatFits string `json:"smallest_that_fits,omitempty"`
	// Pools are, for a recommended configuration spread over memory
	// pools (offloaded, split over devices), what each holds.
	Pools []poolJSON `json:"pools,omitempty"`
}

// PlanLimitsJSON is a group's inverse limits. A 0 means none: nothing
// fits (max_context_fit, max_batch_fit) or nothing meets the target.
type PlanLimitsJSON struct {
	Hardware       string  `json:"hardware"`
	Engine         string  `json:"engine"`
	Runtime        string  `json:"runtime"`
	Model          string  `json:"model"`
	Weights        string  `json:"weights"`
	KV             string  `json:"kv"`
	Batch          int     `json:"batch"`
	MaxContextFit  *int    `json:"max_context_fit"`
	ContextBound   string  `json:"max_context_bound"`
	MaxContextTPOT *int    `json:"max_context_tpot"`
	MaxPromptTTFT  *int    `json:"max_prompt_ttft"`
	MaxBatchFit    int     `json:"max_batch_fit"`
	BatchContext   int     `json:"batch_context"`
	BitsPerWeight  float64 `json:"bits_per_weight"`
	// Devices is how many devices the group spreads the model over
	// (omitted for one) and Split how.
	Devices int    `json:"devices,omitempty"`
	Split   string `json:"split,omitempty"`
}

type paretoJSON struct {
	BitsPerWeight    float64 `json:"bits_per_weight"`
	QualityLoss      float64 `json:"quality_loss"`
	DecodeTokensPerS float64 `json:"decode_tokens_per_s"`
	Engine           string  `json:"engine"`
	Hardware         string  `json:"hardware"`
	Model            string  `json:"model"`
	Weights          string  `json:"weights"`
}

// PlanJSON is plan's answer in the JSON vocabulary.
type PlanJSON struct {
	Configs []PlanConfigJSON `json:"configs"`
	PlanSummaryJSON
}

// PlanSummaryJSON is everything of a plan's JSON but its configurations:
// what a streamed plan writes after them.
type PlanSummaryJSON struct {
	Best      []PlanChoiceJSON `json:"best"`
	Limits    []PlanLimitsJSON `json:"limits"`
	Pareto    []paretoJSON     `json:"pareto"`
	Skipped   []string         `json:"skipped"`
	Notes     []string         `json:"notes"`
	RankedBy  string           `json:"ranked_by"`
	Tolerance float64          `json:"quality_tolerance"`
	Evaluated int              `json:"configurations"`
	Meeting   int              `json:"configurations_meeting_targets"`
	Sure      int              `json:"configurations_sure"`
}

// margins are a judgement's margins as the share a target is cleared by
// (margin − 1); nil without a target.
func margins(j *sim.Judgement) (m, lo, hi *float64) {
	if j == nil {
		return nil, nil, nil
	}
	a, b, c := j.Margin-1, j.MarginLo-1, j.MarginHi-1
	return &a, &b, &c
}

func newPlanConfigJSON(g *plan.Group, c sim.Config, t sim.Targets) PlanConfigJSON {
	j := PlanConfigJSON{Hardware: g.Device, Engine: g.Engine, Runtime: g.Runtime, Model: g.Model, Weights: g.Weights, KV: g.KV, BitsPerWt: g.BPW,
		Context: c.Context, Batch: c.Batch, Prompt: g.Prompt, Output: g.Output, Depth: c.Depth(g.Prompt, g.Output), TTFT: c.TTFT, TPOT: c.TPOT,
		Throughput: c.Throughput, MemoryBytes: c.Memory, UsableBytes: g.UsableFor(c), Fits: c.Fits, Feasible: c.Feasible, Limit: c.Limit.String(),
		MemoryMargin: g.UsableFor(c)/c.Memory - 1, Verdict: c.Verdict.String(), Confidence: t.ConfidenceLevel(), Split: g.SplitText(c)}
	if g.Devices > 1 {
		j.Devices = g.Devices
	}
	if c.Limit != sim.LimitNone {
		e := c.Excess
		j.Excess = &e
	}
	ttft, tpot := g.Judgements(c, t)
	j.TTFTMargin, j.TTFTMarginLow, j.TTFTMarginHigh = margins(ttft)
	j.TPOTMargin, j.TPOTMarginLow, j.TPOTMarginHigh = margins(tpot)
	j.IntervalsWidened = g.Widened(t)
	return j
}

func limit(v int) *int {
	if v < 0 {
		return nil
	}
	return &v
}

// qualityMetric names what a format's loss measures.
func qualityMetric(q *model.Quality) (string, *float64) {
	switch {
	case !q.Known:
		return "unknown", nil
	case q.Reference:
		z := 0.0
		return "reference", &z
	}
	l := q.Loss
	return q.Metric, &l
}

// newPlanSummaryJSON is a plan's answer but its configurations, with the
// limits of every group when limits is set.
func newPlanSummaryJSON(p *app.Plan, limits bool) PlanSummaryJSON {
	t := p.Targets
	out := PlanSummaryJSON{Best: []PlanChoiceJSON{}, Limits: []PlanLimitsJSON{}, Pareto: []paretoJSON{}, Skipped: p.Skipped,
		RankedBy: p.Rank.String(), Tolerance: p.Tolerance, Evaluated: p.Evaluated, Meeting: p.Meeting, Sure: p.Sure}
	for gi := range p.Groups {
		if !limits {
			break
		}
		g := &p.Groups[gi]
		l := g.Limits
		lj := PlanLimitsJSON{g.Device, g.Engine, g.Runtime, g.Model, g.Weights, g.KV, l.Batch,
			limit(l.MaxContextFit), l.ContextBound, limit(l.MaxContextTPOT), limit(l.MaxPromptTTFT), l.MaxBatchFit, l.BatchContext, g.BPW, 0, ""}
		if g.Devices > 1 {
			lj.Devices, lj.Split = g.Devices, g.Split
		}
		out.Limits = append(out.Limits, lj)
	}
	for i, ch := range p.Shown.Choices {
		g := ch.Group
		if g == nil {
			continue
		}
		cl := p.Chats[i]
		j := PlanChoiceJSON{Place: ch.Place, PlanConfigJSON: newPlanConfigJSON(g, ch.Config, t), EqualQuality: ch.EqualQuality, DecodeTokensPerS: g.Speed(),
			MaxConcurrent: cl.Meeting, ConcurrentFits: cl.Fit, ConcurrentContext: cl.Context, ConcurrentFails: cl.Fails.String()}
		j.QualityMetric, j.QualityLoss = qualityMetric(g.Quality)
		j.QualityMeasuredOn, j.QualityBorrowed = g.Quality.MeasuredOn(), g.Quality.Borrowed(g.Model)
		if p.Rates != nil && p.Rates[i].Searched {
			r := p.Rates[i].MaxRate
			j.MaxRate = &r
		}
		if p.Smallest != nil {
			j.SmallestThatFits = p.Smallest[i]
		}
		if p.Pools != nil && len(p.Pools[i]) > 0 {
			j.Pools = newPoolsJSON(p.Pools[i])
		}
		out.Best = append(out.Best, j)
	}
	for _, q := range p.Pareto {
		out.Pareto = append(out.Pareto, paretoJSON{q.BPW, q.Loss, q.TokensPerS, q.Engine, q.Device, q.Model, q.Weights})
	}
	if out.Skipped == nil {
		out.Skipped = []string{}
	}
	if out.Notes = p.Notes; out.Notes == nil {
		out.Notes = []string{}
	}
	return out
}

// NewPlanJSON is a plan that kept its configurations in the JSON
// vocabulary (the report's); the plan command streams the same bytes.
func NewPlanJSON(p *app.Plan) PlanJSON {
	out := PlanJSON{Configs: []PlanConfigJSON{}, PlanSummaryJSON: newPlanSummaryJSON(p, true)}
	for gi := range p.Groups {
		g := &p.Groups[gi]
		for _, c := range g.Configs {
			if c.Feasible || !p.Request.Show.FeasibleOnly {
				out.Configs = append(out.Configs, newPlanConfigJSON(g, c, p.Targets))
			}
		}
	}
	return out
}

// Plan is `roofline plan`. Its JSON and CSV stream: each group's
// configurations are written as the search evaluates them.
func Plan(p *app.Plan) Answer { return planAnswer{p} }

type planAnswer struct{ p *app.Plan }

// Doc runs the search if the caller has not (the plan command runs it
// first, to report an error as an error).
func (a planAnswer) Doc() *Doc {
	if err := a.p.Run(nil); err != nil {
		doc := &Doc{}
		doc.Line("plan: %v", err)
		return doc
	}
	return planDoc(a.p)
}
func (a planAnswer) Data() any {
	if err := a.p.Run(nil); err != nil {
		return nil
	}
	return NewPlanJSON(a.p)
}
func (a planAnswer) Table() *Table      { return nil }
func (a planAnswer) Warnings() []string { return nil }

// PlanTargets says in words what a plan asks for.
func PlanTargets(t sim.Targets, prompt int) []string {
	var tg []string
	if t.TTFT > 0 {
		tg = append(tg, fmt.Sprintf("TTFT ≤ %s for a %d-token prompt", Duration(t.TTFT), prompt))
	}
	if t.TPOT > 0 {
		tg = append(tg, fmt.Sprintf("TPOT ≤ %s at the end of the context", Duration(t.TPOT)))
	}
	if t.MinThroughput > 0 {
		tg = append(tg, fmt.Sprintf("≥ %s tokens/s aggregate", units.Sig(t.MinThroughput, 4)))
	}
	return tg
}

// PlanVerdict says how a planned configuration meets or misses its
// targets, and how sure that is: "meets" when even the slow end of the
// predictions' interval at the targets' confidence meets every target,
// "uncertain" when the interval straddles one, else the first constraint
// it fails. It is the one verdict text of plan and the report.
func PlanVerdict(g *plan.Group, c sim.Config, t sim.Targets) string {
	if c.Verdict != sim.Fails {
		conf := t.ConfidenceLevel()
		var m []string
		ttft, tpot := g.Judgements(c, t)
		for _, x := range []struct {
			name    string
			j       *sim.Judgement
			widened bool
		}{{"TTFT", ttft, false}, {"TPOT", tpot, g.MoEDecodeNote != ""}} {
			if x.j == nil {
				continue
			}
			// The slow end of an interval widened for an MoE decode is
			// labelled as predict labels the interval.
			widened := ""
			if x.widened {
				widened = ", " + levelLabel(conf, true)
			}
			m = append(m, fmt.Sprintf("%s %s (slow end %s%s)", x.name, underOver(x.j.Margin), underOver(x.j.MarginLo), widened))
		}
		m = append(m, fmt.Sprintf("%.0f%% memory free", 100*(1-c.Memory/g.UsableFor(c))))
		word := fmt.Sprintf("meets (%.0f%% sure)", 100*conf)
		if c.Verdict == sim.Uncertain {
			word = fmt.Sprintf("uncertain (not %.0f%% sure)", 100*conf)
		}
		return word + ": " + strings.Join(m, ", ")
	}
	switch c.Limit {
	case sim.LimitMemory:
		return fmt.Sprintf("DOES NOT FIT: needs %s of %s (%.2f×)", Bytes(c.Memory), Bytes(g.UsableFor(c)), c.Excess)
	case sim.LimitTTFT:
		return fmt.Sprintf("FAILS TTFT: %s > %s at prompt %d: needs %.2f× faster prefill", Duration(c.TTFT), Duration(t.TTFT), g.Prompt, c.Excess)
	case sim.LimitTPOT:
		return fmt.Sprintf("FAILS TPOT: %s > %s at context %d: needs %.2f× faster decode", Duration(c.TPOT), Duration(t.TPOT), c.Context, c.Excess)
	case sim.LimitThroughput:
		return fmt.Sprintf("FAILS throughput: %s < %s tokens/s: needs %.2f×", units.Sig(c.Throughput, 4), units.Sig(t.MinThroughput, 4), c.Excess)
	}
	// Every constraint holds but the interval says the fast end misses.
	return "fails at the fast end of the predictions' interval"
}

// underOver writes a margin (target / prediction) as how far under or
// over the target the prediction is.
func underOver(margin float64) string {
	if math.IsInf(margin, 1) {
		return "no target"
	}
	if d := 1 - 1/margin; d >= 0 {
		return fmt.Sprintf("%.0f%% under", 100*d)
	}
	return fmt.Sprintf("%.0f%% over", -100*(1-1/margin))
}

// QualityText is a format's published quality loss in a few words.
func QualityText(q *model.Quality) string {
	switch {
	case !q.Known:
		return "unknown"
	case q.Reference:
		return "reference"
	case q.Metric == model.MetricAccuracy:
		return lossText(q.Loss) + " acc"
	}
	return lossText(q.Loss) + " ppl"
}

// borrowed collects the quality figures a plan's tables apply to a model
// they were not measured on, to say so once under them.
type borrowed struct{ seen map[string]string } // weights → measured on

// cell is the quality of format q on modelName, marked * when the figure
// is another model's (model.Quality.Borrowed).
func (b *borrowed) cell(q *model.Quality, modelName string) string {
	s := QualityText(q)
	if q.Borrowed(modelName) {
		if b.seen == nil {
			b.seen = map[string]string{}
		}
		b.seen[q.Format] = strings.Fields(q.Model)[0]
		s += "*"
	}
	return s
}

// note says whose losses the marked figures are; "" when none is marked.
func (b *borrowed) note() string {
	if len(b.seen) == 0 {
		return ""
	}
	byModel := map[string][]string{}
	var models []string
	for w, m := range b.seen {
		if byModel[m] == nil {
			models = append(models, m)
		}
		byModel[m] = append(byModel[m], w)
	}
	sort.Strings(models)
	var parts []string
	for _, m := range models {
		sort.Strings(byModel[m])
		parts = append(parts, fmt.Sprintf("%s on %s", strings.Join(byModel[m], ", "), m))
	}
	return "* a loss measured on another model, a guide for this one (docs/formats.md): " + strings.Join(parts, "; ")
}

// lossText is a loss as a percentage with two significant digits.
func lossText(l float64) string { return units.Sig(100*l, 2) + "%" }

// chatsText is a concurrency limit with the context it holds at.
func chatsText(c sim.ConcurrencyLimit) string {
	switch {
	case c.Fit == 0:
		return "does not fit"
	case c.Meeting == 0:
		return fmt.Sprintf("none at %d", c.Context)
	case c.Meeting > c.Fit && c.Meeting >= sim.MaxQueued && c.Fails == sim.LimitNone:
		// A runtime that runs only so many at once (static batches, or
		// one at a time), without a time target: the others queue, and
		// nothing bounds how many.
		return fmt.Sprintf("any at %d, queued", c.Context)
	}
	return fmt.Sprintf("%d at %d", c.Meeting, c.Context)
}
