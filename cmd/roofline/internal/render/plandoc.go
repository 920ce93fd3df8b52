package render

import (
	"fmt"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/sim"
)

// planDoc is a plan for people: the ranked configurations per device and
// model in one table, and with --detail the inverse limits, the
// quality–speed frontier and what was skipped.
func planDoc(p *app.Plan) *Doc {
	t, sp, req := p.Targets, p.Space, p.Request
	doc := &Doc{}
	tg := append(PlanTargets(t, sp.Prompt), fmt.Sprintf("%.0f%% of usable memory kept free", 100*t.Headroom))
	doc.Line("targets: %s; %d tokens generated per request", strings.Join(tg, ", "), sp.Output)
	doc.Line("ranked by %s: %s", p.Rank, p.Rank.Rule(p.Tolerance))

	top := max(req.Show.Top, 1)
	title := "recommended configuration per device and model"
	if top > 1 {
		title = fmt.Sprintf("the %d best configurations per device and model", top)
	}
	doc.Section(title, false)
	var bq borrowed
	doc.Table(choicesTable(p, top > 1, &bq))
	if p.Rates != nil {
		doc.Line("%s", rateSentence(p))
	}
	for _, l := range fewestLines(p) {
		doc.Line("%s", l)
	}
	for i, sm := range p.Smallest {
		if ch := p.Shown.Choices[i]; sm != "" {
			doc.Line("%s on %s does not fit; smallest that would hold it: %s", ch.Model, ch.Device, sm)
		}
	}
	if t := poolsTable(p); t != nil {
		doc.Section("memory per pool of the recommended configurations spread over pools", false)
		doc.Table(t)
	}

	var more []string
	sh := p.Shown
	if sh.Infeasible > 0 {
		more = append(more, fmt.Sprintf("%d device and model pair%s where nothing meets the targets (left out by --feasible-only)", sh.Infeasible, Plural(sh.Infeasible)))
	}
	if sh.More > 0 {
		more = append(more, fmt.Sprintf("%d more configuration%s ranked below these: --top N", sh.More, Plural(sh.More)))
	}
	if sh.CPUHidden > 0 {
		more = append(more, fmt.Sprintf("%d on CPU engines of devices whose other engine runs the model: --engine cpu or --detail", sh.CPUHidden))
	}
	if !req.Detail {
		d := "the inverse limits and the quality–speed frontier"
		if n := len(p.Skipped); n > 0 {
			d += fmt.Sprintf(", %d engine and format combination%s skipped", n, Plural(n))
		}
		more = append(more, d+": --detail")
	}
	if len(more) > 0 {
		doc.Both(fmt.Sprintf("\nnot shown: %s\n", strings.Join(more, "; ")))
	}
	if req.Detail {
		limitsDetail(doc, p, &bq)
	}
	if n := bq.note(); n != "" {
		doc.Both("\n" + n + "\n")
	}
	doc.Raw("\n"+CountSentence(p)+"\n", "")
	planNotes(doc, p.Notes)
	return doc
}

// planNotes are the notes under a plan, as predict's: what it decided
// that its table does not show.
func planNotes(doc *Doc, notes []string) {
	numberedNotes(doc, notes)
}

// poolsTable is what each memory pool holds for the recommended
// configurations spread over several (offloaded to the host, split over
// devices), as predict prints it; nil when none is.
func poolsTable(p *app.Plan) *Table {
	var t *Table
	for i, pools := range p.Pools {
		ch := p.Shown.Choices[i]
		for _, u := range pools {
			if t == nil {
				t = NewTable("DEVICE", "MODEL", "WEIGHTS", "SPLIT", "MEMORY POOL", "TOTAL", "USABLE", "SHARE").Right(5, 6, 7)
			}
			share := Percent1(u.Total / u.Usable)
			if !u.Fits {
				share += " DOES NOT FIT"
			}
			t.Add(ch.Device, ch.Model, ch.Group.Weights, ch.Group.SplitText(ch.Config), u.Name, Bytes(u.Total), Bytes(u.Usable), share)
		}
	}
	return t
}

// CountSentence is how many configurations meet the targets: the one
// sentence plan and report print, so that neither says more than the
// other. Meeting the targets as predicted is not being sure to: only the
// configurations whose verdict is meets, at the targets' confidence, are
// counted as sure.
func CountSentence(p *app.Plan) string {
	return fmt.Sprintf("%d of %d configurations in %d groups meet the targets as predicted, %d of them %.0f%% sure (the slow end of the interval meets them too)",
		p.Meeting, p.Evaluated, len(p.Groups), p.Sure, 100*p.Targets.ConfidenceLevel())
}

// choicesTable is the ranked configurations, one line each; DEVICES and
// SPLIT when the plan spreads a model over devices or offloads one.
func choicesTable(p *app.Plan, places bool, bq *borrowed) *Table {
	t := p.Targets
	spread := len(p.Request.Counts) > 0
	for _, ch := range p.Shown.Choices {
		spread = spread || (ch.Group != nil && ch.Config.Offloaded())
	}
	var heads []string
	if places {
		heads = append(heads, "#")
	}
	heads = append(heads, "DEVICE", "MODEL", "ENGINE", "RUNTIME")
	if spread {
		heads = append(heads, "DEVICES", "SPLIT")
	}
	heads = append(heads, "WEIGHTS", "QUALITY LOSS", "KV", "CONTEXT", "BATCH", "TTFT", "TPOT", "MEMORY", "CONCURRENT")
	if p.Rates != nil {
		heads = append(heads, "MAX RATE")
	}
	heads = append(heads, "VERDICT")
	tb := NewTable(heads...)
	for i, h := range heads {
		switch h {
		case "#", "DEVICES", "QUALITY LOSS", "CONTEXT", "BATCH", "TTFT", "TPOT", "MEMORY", "CONCURRENT", "MAX RATE":
			tb.Right(i)
		}
	}
	for i, ch := range p.Shown.Choices {
		var row []string
		if places {
			row = append(row, fmt.Sprint(ch.Place))
		}
		if ch.Group == nil {
			row = append(row, ch.Device, ch.Model, Dash, Dash)
			if spread {
				row = append(row, "", "")
			}
			row = append(row, Dash)
			for len(row) < len(heads)-1 {
				row = append(row, "")
			}
			row = append(row, "no engine of this device runs the model as asked (--detail says why)")
			tb.Add(row...)
			continue
		}
		g, c := ch.Group, ch.Config
		row = append(row, g.Device, g.Model, g.Engine, g.Runtime)
		if spread {
			split := g.SplitText(c)
			if split == "" {
				split = Dash
			}
			row = append(row, fmt.Sprint(g.Devices), split)
		}
		row = append(row, g.Weights, bq.cell(g.Quality, g.Model), g.KV, fmt.Sprint(c.Context), fmt.Sprint(c.Batch),
			Duration(c.TTFT), Duration(c.TPOT), Bytes(c.Memory)+" / "+Bytes(g.UsableFor(c)), chatsText(p.Chats[i]))
		if p.Rates != nil {
			row = append(row, rateText(p.Rates[i]))
		}
		tb.Add(append(row, PlanVerdict(g, c, t))...)
	}
	return tb
}

// fewestLines say, per device and model of a plan over device counts
// (--devices LIST), the fewest devices that meet the targets, or that no
// count up to the largest searched does and the closest found.
func fewestLines(p *app.Plan) []string {
	counts := p.Request.Counts
	if len(counts) == 0 {
		return nil
	}
	var out []string
	for _, ch := range p.Best {
		if ch.Group == nil {
			continue
		}
		g, c := ch.Group, ch.Config
		largest, left := CountsSearched(p, g.Device)
		how := g.SplitText(c)
		if how == "" {
			how = "alone"
		}
		head := fmt.Sprintf("%s × %s (%s):", g.Model, g.Device, g.Runtime)
		switch {
		case c.Verdict == sim.Meets:
			out = append(out, fmt.Sprintf("%s the fewest devices that meet the targets, %.0f%% sure: %d (%s)", head, 100*p.Targets.ConfidenceLevel(), g.Devices, how))
		case c.Feasible:
			out = append(out, fmt.Sprintf("%s the fewest devices that meet the targets as predicted: %d (%s); no count up to %d is %.0f%% sure to%s", head, g.Devices, how, largest, 100*p.Targets.ConfidenceLevel(), left))
		default:
			out = append(out, fmt.Sprintf("%s no count up to %d devices meets the targets%s; the closest is %d (%s): %s", head, largest, left, g.Devices, how, PlanVerdict(g, c, p.Targets)))
		}
	}
	return out
}

// CountsSearched is the largest device count plan p searched for device
// ("": any) and, when it left larger counts of --devices out for want of
// a link between NVLink groups, a clause that says so: " (16 left out:
// see the notes)"; "" otherwise.
func CountsSearched(p *app.Plan, device string) (int, string) {
	n, out := p.Searched(device)
	if len(out) == 0 {
		return n, ""
	}
	left := make([]string, len(out))
	for i, c := range out {
		left[i] = fmt.Sprint(c)
	}
	return n, fmt.Sprintf(" (%s left out: see the notes)", strings.Join(left, ", "))
}

// limitsDetail adds the inverse limits of every group, the quality–speed
// frontier and the skipped combinations.
func limitsDetail(doc *Doc, p *app.Plan, bq *borrowed) {
	if len(p.Groups) == 0 {
		// Every combination skipped: the recommendation sends here for
		// why.
		skippedDetail(doc, p)
		return
	}
	l0 := p.Groups[0].Limits
	doc.Section(fmt.Sprintf("inverse limits (batch %d); the most sequences that fit, at context %d", l0.Batch, l0.BatchContext), false)
	spread := len(p.Request.Counts) > 0
	heads := []string{"DEVICE", "ENGINE", "RUNTIME"}
	if spread {
		heads = append(heads, "DEVICES", "SPLIT")
	}
	heads = append(heads, "MODEL", "WEIGHTS", "QUALITY LOSS", "MAX CONTEXT (MEMORY)", "MAX CONTEXT (TPOT)", "MAX PROMPT (TTFT)",
		fmt.Sprintf("MAX BATCH AT %d", l0.BatchContext))
	lt := NewTable(heads...)
	for i := len(heads) - 4; i < len(heads); i++ {
		lt.Right(i)
	}
	if spread {
		lt.Right(3)
	}
	for _, g := range p.Groups {
		l := g.Limits
		fit := planLimit(l.MaxContextFit, l.MaxContextFit, "any")
		if l.ContextBound == sim.BoundByModel {
			fit += " (model max)"
		}
		row := []string{g.Device, g.Engine, g.Runtime}
		if spread {
			split := g.Split
			if split == "" {
				split = "alone or offloaded"
			}
			row = append(row, fmt.Sprint(g.Devices), split)
		}
		lt.Add(append(row, g.Model, g.Weights, bq.cell(g.Quality, g.Model), fit,
			planLimit(l.MaxContextTPOT, l.MaxContextFit, Dash), planLimit(l.MaxPromptTTFT, l.MaxContextFit, Dash), planLimit(l.MaxBatchFit, l.MaxBatchFit, Dash))...)
	}
	doc.Table(lt)
	if len(p.Pareto) > 0 {
		c0 := p.Groups[0].Reference
		doc.Section(fmt.Sprintf("quality against speed: formats no other beats on both published quality and decode speed (at context %d, batch %d)", c0.Context, c0.Batch), false)
		pt := NewTable("DEVICE", "MODEL", "ENGINE", "WEIGHTS", "QUALITY LOSS", "BITS/WEIGHT", "DECODE").Right(4, 5, 6)
		for _, q := range p.Pareto {
			pt.Add(q.Device, q.Model, q.Engine, q.Weights, bq.cell(q.Quality, q.Model), Fixed(q.BPW, 2), Rate(q.TokensPerS, "tok/s"))
		}
		doc.Table(pt)
	}
	skippedDetail(doc, p)
}

// skippedDetail says which combinations were skipped and why.
func skippedDetail(doc *Doc, p *app.Plan) {
	if len(p.Skipped) > 0 {
		doc.Both(fmt.Sprintf("\nskipped: %s\n", strings.Join(p.Skipped, "; ")))
	}
}

// planLimit writes an inverse limit in words where a number would
// mislead: "does not fit" when the weights alone exceed memory (fit is the
// longest context that fits), "none" when nothing meets the target,
// unlimited (a word or a dash) for no bound.
func planLimit(v, fit int, unlimited string) string {
	switch {
	case v < 0:
		return unlimited
	case v == 0 && fit == 0:
		return "does not fit"
	case v == 0:
		return "none"
	case v >= sim.MaxPlanTokens:
		return "≥ " + fmt.Sprint(sim.MaxPlanTokens)
	}
	return fmt.Sprint(v)
}

// rateText is a configuration's largest Poisson rate within the latency
// targets (app.PlanRate).
func rateText(r app.PlanRate) string {
	switch {
	case !r.Searched:
		return Dash
	case r.NoCache:
		return "no KV room"
	case r.MaxRate == 0:
		return "none"
	}
	return Rate(r.MaxRate, "req/s")
}

// rateSentence says what the max-rate column is, and with --rate how
// many configurations sustain it.
func rateSentence(p *app.Plan) string {
	s := fmt.Sprintf("MAX RATE: the largest Poisson rate of these requests whose p99 TTFT and p99 TPOT meet the targets under the runtime's scheduler (roofline serve --max-rate, %d requests a rate, at most %d rates)", app.PlanRateRequests, app.PlanRateRuns)
	if p.Request.Detail {
		s += ", for every configuration shown"
	} else {
		s += ", for the recommended ones"
	}
	if r := p.Request.Rate; r > 0 {
		s += fmt.Sprintf("; %d sustain%s the %s asked for", p.RateMet(), map[bool]string{true: "s", false: ""}[p.RateMet() == 1], Rate(r, "req/s"))
	}
	return s
}
