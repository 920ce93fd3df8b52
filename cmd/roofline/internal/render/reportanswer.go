package render

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/sim"
)

// The report's answer: one short table, a row per device and model with
// the recommended configuration and how sure its verdict is, then one line
// per measured file.

// answer writes the Answer section.
func (rep *report) answer(doc *Doc, r *ReportJSON) {
	doc.Heading(2, "Answer")
	p := rep.Plan
	t := p.Targets
	if targets := rep.targetText(); targets != "" {
		doc.Para(fmt.Sprintf("Targets: %s. %s.", targets, CountSentence(p)))
		doc.Para(fmt.Sprintf("Per device and model, the recommended configuration (ranked by %s, docs/planning.md), with the memory it needs of the usable memory. "+
			"The verdict says by how much the tighter target is met or missed, the interval where that margin lies from the slow to the fast end of the prediction, each end %.0f%% sure (docs/accuracy.md): "+
			"meets, even the slow end meets every target; uncertain, the interval straddles one; fails, even the fast end misses.", p.Rank.Rule(p.Tolerance), 100*t.ConfidenceLevel()))
		tb := NewTable("device", "model", "configuration", "TTFT", "TPOT", "memory", "verdict", "interval").Right(3, 4, 5)
		for _, ch := range p.Best {
			if ch.Group == nil {
				tb.Add(ch.Device, ch.Model, Dash, Dash, Dash, Dash, "no engine of this device runs the formats asked for", Dash)
				continue
			}
			g, c := ch.Group, ch.Config
			verdict, interval := verdictCells(g, c, t)
			tb.Add(g.Device, g.Model, configText(g, c), Duration(c.TTFT), Duration(c.TPOT), memoryText(c.Memory, g.MemoryUsable), verdict, interval)
		}
		doc.Table(tb)
	} else {
		doc.Para("No targets: per device and model, the recommended configuration (ranked by " + p.Rank.Rule(p.Tolerance) +
			", docs/planning.md) predicted at the workload with its 80% interval (docs/accuracy.md), and the memory it needs of the usable memory.")
		tb := NewTable("device", "model", "configuration", "TTFT", "TPOT", "E2E", "memory", "fits").Right(3, 4, 5, 6)
		byGroup := rep.predictionsByGroup()
		for _, ch := range p.Best {
			var x *sim.Result
			if g := ch.Group; g != nil {
				x = byGroup[g.Device+"|"+g.Engine+"|"+g.Model+"|"+g.Weights]
			}
			if x == nil {
				tb.Add(ch.Device, ch.Model, Dash, Dash, Dash, Dash, Dash, "no engine of this device runs the formats asked for")
				continue
			}
			in := x.Inputs
			tb.Add(in.Device, in.Model, fmt.Sprintf("%s %s %s", in.Engine, in.Runtime, in.Weights), withInterval(x.TTFT, x.TTFTInterval),
				withInterval(x.TPOT, x.TPOTInterval), withInterval(x.E2E, x.E2EInterval), memoryText(x.Memory.Total, x.Memory.Usable), Fits(x.Memory.Fits))
		}
		doc.Table(tb)
	}
	lines := rep.servingSummary()
	for _, m := range r.Measured {
		lines = append(lines, measuredSummary(m))
	}
	doc.List(lines)
}

// predictionsByGroup indexes the report's predictions at the workload by
// the planned group they price.
func (rep *report) predictionsByGroup() map[string]*sim.Result {
	out := make(map[string]*sim.Result, len(rep.Predictions))
	for _, pr := range rep.Predictions {
		in := pr.Result.Inputs
		out[in.Device+"|"+in.Engine+"|"+in.Model+"|"+in.Weights] = pr.Result
	}
	return out
}

// configText names a planned configuration in a few words.
func configText(g *plan.Group, c sim.Config) string {
	return fmt.Sprintf("%s %s %s, context %d, batch %d", g.Engine, g.Runtime, g.Weights, c.Context, c.Batch)
}

// memoryText is memory needed of memory usable.
func memoryText(need, usable float64) string {
	return Bytes(need) + " of " + Bytes(usable)
}

// verdictCells say how a configuration meets or misses the targets: the
// verdict with the margin of the target that binds (the one nearest to
// failing at the slow end), and that margin's interval from the slow to
// the fast end of the prediction.
func verdictCells(g *plan.Group, c sim.Config, t sim.Targets) (verdict, interval string) {
	switch c.Limit {
	case sim.LimitMemory:
		return fmt.Sprintf("does not fit: needs %.2f× the memory allowed (usable less the headroom)", c.Excess), Dash
	case sim.LimitThroughput:
		return fmt.Sprintf("fails: throughput %s short", pct(1-1/c.Excess)), Dash
	}
	ttft, tpot := g.Judgements(c, t)
	var name string
	var j *sim.Judgement
	for _, x := range []struct {
		name string
		j    *sim.Judgement
	}{{"TTFT", ttft}, {"TPOT", tpot}} {
		if x.j != nil && (j == nil || x.j.MarginLo < j.MarginLo) {
			name, j = x.name, x.j
		}
	}
	word := c.Verdict.String()
	if j == nil {
		if c.Verdict == sim.Meets {
			return fmt.Sprintf("meets: %.0f%% of memory free", 100*(1-c.Memory/g.UsableFor(c))), Dash
		}
		return word, Dash
	}
	return fmt.Sprintf("%s: %s %s target", word, name, underOver(j.Margin)), marginRange(j.MarginLo, j.MarginHi)
}

// marginRange is the interval of a margin from its slow end lo to its fast
// end hi: "61–79% under", "10–40% over", "30% over – 12% under".
func marginRange(lo, hi float64) string {
	if math.IsInf(lo, 1) {
		return Dash
	}
	// d is how far under the target (negative: over).
	d := func(m float64) float64 { return 1 - 1/m }
	a, b := d(lo), d(hi)
	switch {
	case a >= 0:
		return fmt.Sprintf("%.0f–%s under", 100*a, pct(b))
	case b < 0:
		return fmt.Sprintf("%.0f–%s over", -100*b, pct(-a))
	}
	return fmt.Sprintf("%s over – %s under", pct(-a), pct(b))
}

func pct(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }

// measuredSummary is one line for a measured file: what ran, the
// utilisation each kind of test reached (MBU for decode, MFU for
// prefill, with the test at each end), and measured over predicted.
func measuredSummary(m reportMeasured) string {
	if len(m.Runs) == 0 {
		return fmt.Sprintf("%s: no run could be compared (see its warnings below).", m.File)
	}
	var what []string
	seen := map[string]bool{}
	for _, run := range m.Runs {
		s := fmt.Sprintf("%s %s on %s %s", run.Model, run.Weights, run.Hardware, run.Engine)
		if run.Runtime != "" {
			s += " (" + run.Runtime + ")"
		}
		if !seen[s] {
			seen[s] = true
			what = append(what, s)
		}
	}
	if len(what) > 2 {
		what = append(what[:2], fmt.Sprintf("%d more", len(what)-2))
	}
	var parts []string
	for _, k := range []struct {
		test, metric string
		get          func(ComparisonJSON) float64
	}{{"decode", "MBU", func(r ComparisonJSON) float64 { return r.MBU }}, {"prefill", "MFU", func(r ComparisonJSON) float64 { return r.MFU }}} {
		var runs []ComparisonJSON
		for _, run := range m.Runs {
			if run.Test == k.test && !math.IsNaN(k.get(run)) {
				runs = append(runs, run)
			}
		}
		if len(runs) == 0 {
			continue
		}
		slices.SortStableFunc(runs, func(a, b ComparisonJSON) int { return cmpFloat(k.get(a), k.get(b)) })
		lo, hi := runs[0], runs[len(runs)-1]
		if len(runs) == 1 {
			parts = append(parts, fmt.Sprintf("%s %s %s (%s)", k.test, k.metric, Percent(k.get(lo)), runLabel(lo)))
		} else {
			parts = append(parts, fmt.Sprintf("%s %s %s (%s) to %s (%s) over %d runs", k.test, k.metric, Percent(k.get(lo)), runLabel(lo), Percent(k.get(hi)), runLabel(hi), len(runs)))
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, run := range m.Runs {
		if !math.IsNaN(run.Ratio) {
			lo, hi = min(lo, run.Ratio), max(hi, run.Ratio)
		}
	}
	ratio := ""
	switch {
	case math.IsInf(lo, 1):
	case lo == hi:
		ratio = fmt.Sprintf("; measured / predicted %.2f", lo)
	default:
		ratio = fmt.Sprintf("; measured / predicted %.2f–%.2f", lo, hi)
	}
	return fmt.Sprintf("%s: %d %s of %s: %s%s.", m.File, len(m.Runs), plural(len(m.Runs), "run", "runs"), strings.Join(what, ", "), strings.Join(parts, ", "), ratio)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
