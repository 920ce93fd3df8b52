package render

import (
	"fmt"
	"math"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/sim"
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
}

// PlanLimitsJSON is a group's inverse limits.
type PlanLimitsJSON struct {
	Hardware       string  `json:"hardware"`
	Engine         string  `json:"engine"`
	Runtime        string  `json:"runtime"`
	Model          string  `json:"model"`
	Weights        string  `json:"weights"`
	KV             string  `json:"kv"`
	Batch          int     `json:"batch"`
	MaxContextFit  *int    `json:"max_context_fit"`
	MaxContextTPOT *int    `json:"max_context_tpot"`
	MaxPromptTTFT  *int    `json:"max_prompt_ttft"`
	MaxBatchFit    int     `json:"max_batch_fit"`
	BitsPerWeight  float64 `json:"bits_per_weight"`
}

type paretoJSON struct {
	BitsPerWeight    float64 `json:"bits_per_weight"`
	DecodeTokensPerS float64 `json:"decode_tokens_per_s"`
	Engine           string  `json:"engine"`
	Hardware         string  `json:"hardware"`
	Model            string  `json:"model"`
	Weights          string  `json:"weights"`
}

// PlanJSON is plan's answer in the JSON vocabulary.
type PlanJSON struct {
	Configs []PlanConfigJSON `json:"configs"`
	Best    []PlanConfigJSON `json:"best"`
	Limits  []PlanLimitsJSON `json:"limits"`
	Pareto  []paretoJSON     `json:"pareto"`
	Skipped []string         `json:"skipped"`
}

// judgements hold a configuration's latencies against the targets at
// their confidence: sim.Judge is the one margin, target / prediction.
func judgements(g *plan.Group, c sim.Config, t sim.Targets) (ttft, tpot *sim.Judgement) {
	conf := t.ConfidenceLevel()
	if t.TTFT > 0 {
		j := sim.Judge(c.TTFT, t.TTFT, g.TTFTSpread, conf)
		ttft = &j
	}
	if t.TPOT > 0 {
		j := sim.Judge(c.TPOT, t.TPOT, g.TPOTSpread, conf)
		tpot = &j
	}
	return ttft, tpot
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
		Throughput: c.Throughput, MemoryBytes: c.Memory, UsableBytes: g.Usable, Fits: c.Fits, Feasible: c.Feasible, Limit: c.Limit.String(),
		MemoryMargin: g.Usable/c.Memory - 1, Verdict: c.Verdict.String(), Confidence: t.ConfidenceLevel()}
	if c.Limit != sim.LimitNone {
		e := c.Excess
		j.Excess = &e
	}
	ttft, tpot := judgements(g, c, t)
	j.TTFTMargin, j.TTFTMarginLow, j.TTFTMarginHigh = margins(ttft)
	j.TPOTMargin, j.TPOTMarginLow, j.TPOTMarginHigh = margins(tpot)
	return j
}

func limit(v int) *int {
	if v < 0 {
		return nil
	}
	return &v
}

// NewPlanJSON is a plan in the JSON vocabulary.
func NewPlanJSON(p *app.Plan) PlanJSON {
	t := p.Targets
	out := PlanJSON{Configs: []PlanConfigJSON{}, Best: []PlanConfigJSON{}, Limits: []PlanLimitsJSON{}, Pareto: []paretoJSON{}, Skipped: p.Skipped}
	for gi := range p.Groups {
		g := &p.Groups[gi]
		for _, c := range g.Configs {
			out.Configs = append(out.Configs, newPlanConfigJSON(g, c, t))
		}
		l := g.Limits
		out.Limits = append(out.Limits, PlanLimitsJSON{g.Device, g.Engine, g.Runtime, g.Model, g.Weights, g.KV, l.Batch,
			limit(l.MaxContextFit), limit(l.MaxContextTPOT), limit(l.MaxPromptTTFT), l.MaxBatchFit, g.BPW})
	}
	for _, ch := range p.Best {
		if ch.Group != nil {
			out.Best = append(out.Best, newPlanConfigJSON(ch.Group, ch.Config, t))
		}
	}
	for _, q := range p.Pareto {
		out.Pareto = append(out.Pareto, paretoJSON{q.BPW, q.TokensPerS, q.Engine, q.Device, q.Model, q.Weights})
	}
	if out.Skipped == nil {
		out.Skipped = []string{}
	}
	return out
}

// planTable is every configuration, for CSV.
func planTable(p *app.Plan) *Table {
	t := &Table{}
	for _, k := range []string{"hardware", "engine", "model", "weights", "kv", "bits_per_weight", "context", "batch", "prompt", "output",
		"ttft_s", "tpot_s", "throughput_tokens_per_s", "memory_bytes", "usable_bytes", "fits", "feasible", "limit"} {
		t.Cols = append(t.Cols, Col{Key: k})
	}
	for gi := range p.Groups {
		g := &p.Groups[gi]
		for _, c := range g.Configs {
			t.AddCells(C(g.Device), C(g.Engine), C(g.Model), C(g.Weights), C(g.KV), D(g.BPW), D(c.Context), D(c.Batch), D(g.Prompt),
				D(g.Output), D(c.TTFT), D(c.TPOT), D(c.Throughput), D(c.Memory), D(g.Usable), D(c.Fits), D(c.Feasible), C(c.Limit.String()))
		}
	}
	return t
}

// Plan is `roofline plan`.
func Plan(p *app.Plan) Answer {
	return answer{doc: func() *Doc { return planDoc(p) }, data: func() any { return NewPlanJSON(p) }, table: func() *Table { return planTable(p) }}
}

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
		tg = append(tg, fmt.Sprintf("≥ %s tokens/s aggregate", Sig(t.MinThroughput, 4)))
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
		ttft, tpot := judgements(g, c, t)
		for _, x := range []struct {
			name string
			j    *sim.Judgement
		}{{"TTFT", ttft}, {"TPOT", tpot}} {
			if x.j != nil {
				m = append(m, fmt.Sprintf("%s %s (slow end %s)", x.name, underOver(x.j.Margin), underOver(x.j.MarginLo)))
			}
		}
		m = append(m, fmt.Sprintf("%.0f%% memory free", 100*(1-c.Memory/g.Usable)))
		word := fmt.Sprintf("meets (%.0f%% sure)", 100*conf)
		if c.Verdict == sim.Uncertain {
			word = fmt.Sprintf("uncertain (not %.0f%% sure)", 100*conf)
		}
		return word + ": " + strings.Join(m, ", ")
	}
	switch c.Limit {
	case sim.LimitMemory:
		return fmt.Sprintf("FAILS memory: needs %s of %s (%.2f×)", Bytes(c.Memory), Bytes(g.Usable), c.Excess)
	case sim.LimitTTFT:
		return fmt.Sprintf("FAILS TTFT: %s > %s at prompt %d: needs %.2f× faster prefill", Duration(c.TTFT), Duration(t.TTFT), g.Prompt, c.Excess)
	case sim.LimitTPOT:
		return fmt.Sprintf("FAILS TPOT: %s > %s at context %d: needs %.2f× faster decode", Duration(c.TPOT), Duration(t.TPOT), c.Context, c.Excess)
	case sim.LimitThroughput:
		return fmt.Sprintf("FAILS throughput: %s < %s tokens/s: needs %.2f×", Sig(c.Throughput, 4), Sig(t.MinThroughput, 4), c.Excess)
	}
	return ""
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

// planLimit prints an inverse limit.
func planLimit(v int, unlimited string) string {
	switch {
	case v < 0:
		return unlimited
	case v >= sim.MaxPlanTokens:
		return "≥ " + fmt.Sprint(sim.MaxPlanTokens)
	}
	return fmt.Sprint(v)
}

func planDoc(p *app.Plan) *Doc {
	t, sp := p.Targets, p.Space
	doc := &Doc{}
	tg := append(PlanTargets(t, sp.Prompt), fmt.Sprintf("fits with %.0f%% of usable memory kept free", 100*t.Headroom))
	doc.Line("targets: %s; %d tokens generated per request", strings.Join(tg, ", "), sp.Output)

	doc.Section("best configuration per device and model (highest-precision weights, then longest context, then largest batch)", false)
	bt := NewTable("DEVICE", "MODEL", "ENGINE", "RUNTIME", "WEIGHTS", "KV", "CONTEXT", "BATCH", "TTFT", "TPOT", "MEMORY", "VERDICT").Right(6, 7, 8, 9, 10)
	for _, ch := range p.Best {
		if ch.Group == nil {
			bt.Add(ch.Device, ch.Model, Dash, Dash, Dash, Dash, "", "", "", "", "", "no engine of this device runs the formats asked for")
			continue
		}
		g, cfg := ch.Group, ch.Config
		bt.Add(g.Device, g.Model, g.Engine, g.Runtime, g.Weights, g.KV, fmt.Sprint(cfg.Context), fmt.Sprint(cfg.Batch), Duration(cfg.TTFT), Duration(cfg.TPOT),
			Bytes(cfg.Memory)+" / "+Bytes(g.Usable), PlanVerdict(g, cfg, t))
	}
	doc.Table(bt)
	doc.Section(fmt.Sprintf("inverse limits (batch %d)", sp.Batches[0]), false)
	lt := NewTable("DEVICE", "ENGINE", "RUNTIME", "MODEL", "WEIGHTS", "BPW", "MAX CONTEXT (MEMORY)", "MAX CONTEXT (TPOT)", "MAX PROMPT (TTFT)", "MAX BATCH").Right(5, 6, 7, 8, 9)
	for _, g := range p.Groups {
		l := g.Limits
		lt.Add(g.Device, g.Engine, g.Runtime, g.Model, g.Weights, Fixed(g.BPW, 2), planLimit(l.MaxContextFit, "any"), planLimit(l.MaxContextTPOT, Dash),
			planLimit(l.MaxPromptTTFT, Dash), fmt.Sprint(l.MaxBatchFit))
	}
	doc.Table(lt)
	if len(p.Pareto) > 0 {
		c0 := p.Groups[0].Configs[0]
		doc.Section(fmt.Sprintf("quality against speed: formats no other beats on both (decode at context %d, batch %d)", c0.Context, c0.Batch), false)
		pt := NewTable("DEVICE", "MODEL", "ENGINE", "WEIGHTS", "BITS/WEIGHT", "DECODE").Right(4, 5)
		for _, q := range p.Pareto {
			pt.Add(q.Device, q.Model, q.Engine, q.Weights, Fixed(q.BPW, 2), Rate(q.TokensPerS, "tok/s"))
		}
		doc.Table(pt)
	}
	if len(p.Skipped) > 0 {
		doc.Both(fmt.Sprintf("\nskipped: %s\n", strings.Join(p.Skipped, "; ")))
	}
	doc.Raw(fmt.Sprintf("\n%d configurations in %d groups evaluated\n", p.Evaluated, len(p.Groups)), "")
	return doc
}
