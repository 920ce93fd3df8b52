package app

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/cmd/roofline/internal/plots"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// The builders behind every figure: each sweeps the predictions a figure
// draws and hands them to package plots.

// ladder is lo … hi in steps of 2^(1/perOctave), rounded to integers,
// always ending at hi.
func ladder(lo, hi, perOctave int) []int {
	var out []int
	for e := 0.0; ; e++ {
		v := int(math.Round(float64(lo) * math.Pow(2, e/float64(perOctave))))
		if v >= hi {
			break
		}
		if len(out) == 0 || v > out[len(out)-1] {
			out = append(out, v)
		}
	}
	return append(out, hi)
}

func floats(v []int) []float64 {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return f
}

func figTPOTContext(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	ss, err := env.series(req.Series)
	if err != nil {
		return nil, nil, err
	}
	maxCtx, err := req.tokensParam("max-context")
	if err != nil {
		return nil, nil, err
	}
	scale, err := req.scaleParam(plots.AutoY)
	if err != nil {
		return nil, nil, err
	}
	rows, err := env.measuredRows(ss)
	if err != nil {
		return nil, ss.warnings, err
	}
	b := ss.workload.Batch
	var curves []plots.Curve
	for i, s := range ss.list {
		hi := maxCtx
		if hi == 0 {
			hi = s.spec.MaxContext
		}
		if hi < 256 {
			return nil, ss.warnings, &RequestError{Input: "max-context", Msg: fmt.Sprintf("%d: want at least 256", hi)}
		}
		var pts []plots.Point
		lo := 64
		for _, r := range rows[i] {
			if r.Run.Test != measured.Decode {
				continue
			}
			// A tg test of G tokens from depth D: its mean step attends D + G/2.
			x := max(1, r.Run.Depth+r.Run.Gen/2)
			for lo > x {
				lo /= 2
			}
			pts = append(pts, plots.Point{X: float64(x), Y: float64(r.Run.Batch) / r.Measured * 1e3, Label: r.Utilization()})
		}
		ctx := ladder(lo, hi, 4)
		cv := plots.Curve{Label: s.label, Facet: s.facet, X: floats(ctx), Measured: pts}
		for _, x := range ctx {
			ph := s.setup.Decode(x, 1, b)
			cv.Expected = append(cv.Expected, ph.Time*1e3)
			cv.Ideal = append(cv.Ideal, ph.IdealTime*1e3)
		}
		l := s.setup.PlanLimits(b, 1, 1, 1, ss.workload.UBatch, sim.Targets{})
		if l.MaxContextFit > 0 {
			cv.Limit = float64(l.MaxContextFit)
		}
		curves = append(curves, cv)
	}
	title := ss.title("Time per output token as the KV cache grows", fmt.Sprintf("batch %d", b))
	f, err := plots.Latency(title, "context (tokens attended by the step)", "TPOT (ms)", curves, ss.targets.TPOT*1e3,
		"TPOT target "+units.FormatDuration(ss.targets.TPOT), scale)
	return f, ss.warnings, err
}

func figTTFTPrompt(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	ss, err := env.series(req.Series)
	if err != nil {
		return nil, nil, err
	}
	maxP, err := req.tokensParam("max-prompt")
	if err != nil || maxP < 64 {
		return nil, nil, &RequestError{Input: "max-prompt", Msg: fmt.Sprintf("%q: want a token count of at least 64", req.param("max-prompt"))}
	}
	scale, err := req.scaleParam(plots.LogY)
	if err != nil {
		return nil, nil, err
	}
	rows, err := env.measuredRows(ss)
	if err != nil {
		return nil, ss.warnings, err
	}
	w := ss.workload
	var curves []plots.Curve
	for i, s := range ss.list {
		lo := 16
		for _, r := range rows[i] {
			for r.Run.Test == measured.Prefill && lo > r.Run.Prompt && lo > 1 {
				lo /= 2
			}
		}
		prompts := ladder(lo, maxP, 4)
		cv := plots.Curve{Label: s.label, Facet: s.facet, X: floats(prompts), SwitchLabel: "prefill turns compute-bound"}
		for _, p := range prompts {
			ph := s.setup.Prefill(p, w.Depth, w.Batch, w.UBatch)
			cv.Expected = append(cv.Expected, ph.Time)
			cv.Ideal = append(cv.Ideal, ph.IdealTime)
			if cv.Switch == 0 && ph.Bound == sim.ComputeBound {
				cv.Switch = float64(p)
			}
		}
		for _, r := range rows[i] {
			if r.Run.Test != measured.Prefill {
				continue
			}
			cv.Measured = append(cv.Measured, plots.Point{X: float64(r.Run.Prompt), Y: float64(r.Run.Prompt*r.Run.Batch) / r.Measured, Label: r.Utilization()})
		}
		curves = append(curves, cv)
	}
	title := ss.title("Time to first token against prompt length", fmt.Sprintf("batch %d, depth %d, %s", w.Batch, w.Depth, ubatchLabel(w.UBatch)))
	f, err := plots.Latency(title, "prompt (tokens)", "TTFT (s)", curves, ss.targets.TTFT,
		"TTFT target "+units.FormatDuration(ss.targets.TTFT), scale)
	return f, ss.warnings, err
}

func figBatch(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	ss, err := env.series(req.Series)
	if err != nil {
		return nil, nil, err
	}
	maxB, err := req.intParam("max-batch", 2, 1<<16)
	if err != nil {
		return nil, nil, err
	}
	scale, err := req.scaleParam(plots.AutoY)
	if err != nil {
		return nil, nil, err
	}
	w := ss.workload
	if w.Output < 2 {
		return nil, nil, &RequestError{Input: "Output", Msg: "must be at least 2 for a batch plot (TPOT needs a decode step)"}
	}
	rows, err := env.measuredRows(ss)
	if err != nil {
		return nil, ss.warnings, err
	}
	var tput, tpot []plots.Curve
	for i, s := range ss.list {
		batches := ladder(1, maxB, 2)
		a := plots.Curve{Label: s.label, Facet: s.facet, X: floats(batches), SwitchLabel: "decode turns compute-bound"}
		t := plots.Curve{Label: s.label, Facet: s.facet, X: a.X, SwitchLabel: a.SwitchLabel}
		for _, b := range batches {
			wb := w
			wb.Batch = b
			r, err := s.setup.Predict(wb)
			if err != nil {
				return nil, ss.warnings, err
			}
			a.Expected = append(a.Expected, r.ThroughputTokensPerS)
			a.Ideal = append(a.Ideal, float64(b)/r.TPOTBound)
			t.Expected = append(t.Expected, r.TPOT*1e3)
			t.Ideal = append(t.Ideal, r.TPOTBound*1e3)
			if a.Switch == 0 && r.ComputeBoundBatch > 0 && r.ComputeBoundBatch <= maxB {
				a.Switch, t.Switch = float64(r.ComputeBoundBatch), float64(r.ComputeBoundBatch)
			}
		}
		l := s.setup.PlanLimits(1, w.Context(), w.Prompt, w.Output, w.UBatch, sim.Targets{})
		if l.MaxBatchFit > 0 {
			a.Limit, t.Limit = float64(l.MaxBatchFit), float64(l.MaxBatchFit)
		}
		// Measured decode runs (llama-batched-bench, vLLM) at their batch:
		// aggregate tokens/s above, batch / rate below.
		for _, r := range rows[i] {
			if r.Run.Test != measured.Decode {
				continue
			}
			b := float64(r.Run.Batch)
			a.Measured = append(a.Measured, plots.Point{X: b, Y: r.Measured, Label: r.Utilization()})
			t.Measured = append(t.Measured, plots.Point{X: b, Y: b / r.Measured * 1e3})
		}
		tput, tpot = append(tput, a), append(tpot, t)
	}
	title := ss.title("Batching: aggregate throughput and per-sequence TPOT", fmt.Sprintf("prompt %d + depth %d, output %d", w.Prompt, w.Depth, w.Output))
	f, err := plots.Batch(title, tput, tpot, ss.targets.TPOT*1e3, scale)
	return f, ss.warnings, err
}

func contextLabel(ctx int) string {
	if ctx%1024 == 0 {
		return fmt.Sprintf("%dk ctx", ctx/1024)
	}
	return fmt.Sprintf("%d ctx", ctx)
}

func figMemory(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	ss, err := env.series(req.Series)
	if err != nil {
		return nil, nil, err
	}
	w := ss.workload
	contexts := []int{w.Context()}
	if s := req.param("context"); strings.TrimSpace(s) != "" {
		if contexts, err = units.ParseTokenList(s); err != nil {
			return nil, nil, &RequestError{Input: "context", Msg: err.Error()}
		}
	}
	var bars []plots.MemoryBar
	for _, s := range ss.list {
		for _, ctx := range contexts {
			wc := w
			wc.Depth = max(0, ctx-w.Prompt-w.Output)
			if ctx < w.Prompt+w.Output {
				wc.Prompt, wc.Output, wc.Depth = max(1, ctx-1), 1, 0
			}
			r, err := s.setup.Predict(wc)
			if err != nil {
				return nil, nil, err
			}
			label := s.label
			if len(contexts) > 1 {
				label = strings.TrimPrefix(label+" · ", s.spec.Name+" on "+s.dev.Name+" · ") + contextLabel(ctx)
				if len(ss.list) == 1 {
					label = contextLabel(ctx)
				}
			}
			m := r.Memory
			bars = append(bars, plots.MemoryBar{Label: label, Facet: s.facet, Weights: m.Weights, KV: m.KV, Activations: m.Activations, Overhead: m.Overhead + m.Reserve, Usable: m.Usable})
		}
	}
	over := ""
	if len(ss.list) > 0 {
		o := ss.list[0].setup.Inputs.Overhead
		over = ", runtime overhead " + units.FormatBytes(o, units.Binary)
		for _, s := range ss.list {
			if s.setup.Inputs.Overhead != o {
				over = "" // differs by runtime: the bars show it
			}
		}
	}
	// The context the bars hold: one for all, or each bar's own.
	ctx := fmt.Sprintf("context %d tokens", contexts[0])
	if len(contexts) > 1 {
		ctx = "at each bar's context"
	}
	// Memory depends on no efficiency: no "expected at" line.
	title := ss.heading("Memory against usable memory") + fmt.Sprintf("\n%s, batch %d, %s%s", ctx, w.Batch, ubatchLabel(w.UBatch), over)
	f, err := plots.Memory(title, bars)
	return f, nil, err
}

func figRoofline(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	ss, err := env.series(req.Series)
	if err != nil {
		return nil, nil, err
	}
	maxB, err := req.intParam("max-batch", 1, 1<<16)
	if err != nil {
		return nil, nil, err
	}
	rows, err := env.measuredRows(ss)
	if err != nil {
		return nil, ss.warnings, err
	}
	w := ss.workload
	var roofs []plots.Roof
	roofOf := map[string]int{}
	var points []plots.OpPoint
	roofKey := func(s series) string {
		return fmt.Sprintf("%s %s %s", s.dev.Name, s.setup.Inputs.Engine, s.setup.Inputs.Precision)
	}
	shared := map[string]int{}
	several := false // some roof is shared by several series
	for _, s := range ss.list {
		shared[s.facet+"|"+roofKey(s)]++
		several = several || shared[s.facet+"|"+roofKey(s)] > 1
	}
	ctx := w.MidContext()
	for i, s := range ss.list {
		in := s.setup.Inputs
		key := roofKey(s)
		ri, ok := roofOf[s.facet+"|"+key]
		if !ok {
			ri = len(roofs)
			roofOf[s.facet+"|"+key] = ri
			roofs = append(roofs, plots.Roof{Label: key, Peak: in.Peak, Bandwidth: s.dev.Bandwidth, Facet: s.facet})
		}
		// Name the points' series (colour them by it) when several series
		// share a roof.
		tag := ""
		if several {
			tag = s.label
		}
		pre := s.setup.Prefill(w.Prompt, w.Depth, w.Batch, w.UBatch)
		points = append(points, plots.OpPoint{Roof: ri, Intensity: pre.Intensity, FLOPPerS: pre.FLOPs / pre.Time, Label: fmt.Sprintf("pp%d", w.Prompt), Prefill: true, Series: tag})
		for b := 1; b <= maxB; b *= 16 {
			d := s.setup.Decode(ctx, 1, b)
			points = append(points, plots.OpPoint{Roof: ri, Intensity: d.Intensity, FLOPPerS: d.FLOPs / d.Time, Label: fmt.Sprintf("b%d", b), Batch: b, Series: tag})
		}
		for _, r := range rows[i] {
			if r.AchievedBytesPerS > 0 && r.AchievedFLOPPerS > 0 {
				points = append(points, plots.OpPoint{Roof: ri, Intensity: r.AchievedFLOPPerS / r.AchievedBytesPerS, FLOPPerS: r.AchievedFLOPPerS, Label: r.Utilization(),
					Prefill: r.Run.Test == measured.Prefill, Batch: r.Run.Batch, Series: tag, Measured: true})
			}
		}
	}
	title := ss.title("Roofline", fmt.Sprintf("pp%d: prefill of %d tokens; bN: decode at batch N, context %d", w.Prompt, w.Prompt, ctx))
	f, err := plots.Roofline(title, roofs, points)
	return f, ss.warnings, err
}

func figCompare(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	cmp, err := env.Compare(req.Runs)
	if err != nil {
		return nil, cmp.Warnings, err
	}
	rows := cmp.Rows
	var groups []string
	gi := map[string]int{}
	var points []plots.Comparison
	// Colour by device, or by hardware family when there are too many
	// devices for a legible legend.
	groupOf := func(r compare.Row) string { return r.Hardware }
	devices := map[string]bool{}
	models, formats := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		devices[r.Hardware] = true
		models[r.Model], formats[r.Weights] = true, true
	}
	if len(devices) > 6 {
		groupOf = func(r compare.Row) string { return r.Family }
	}
	for _, r := range rows {
		g, ok := gi[groupOf(r)]
		if !ok {
			g = len(groups)
			gi[groupOf(r)] = g
			groups = append(groups, groupOf(r))
		}
		// Name the test as llama-bench does, with what differs between runs.
		label := r.Run.TestName()
		if len(models) > 1 {
			label += " · " + r.Model
		}
		if len(formats) > 1 {
			label += " " + r.Weights
		}
		if len(devices) > 1 && len(rows) <= plots.MaxLabelledRuns {
			label += " · " + r.Hardware
		}
		pc := plots.Comparison{Group: g, Label: label, Measured: r.Measured, Predicted: r.Predicted, Utilization: r.MBU}
		if r.Run.Test == measured.Prefill {
			pc.Prefill, pc.Utilization = true, r.MFU
		}
		points = append(points, pc)
	}
	s := cmp.Summary
	title := fmt.Sprintf("Predicted against measured: %d runs\ndecode MdAPE %.1f%% (n=%d), prefill MdAPE %.1f%% (n=%d); default efficiencies unless calibrated",
		len(rows), 100*s.Decode.MdAPE, s.Decode.N, 100*s.Prefill.MdAPE, s.Prefill.N)
	f, err := plots.Compare(title, groups, points)
	return f, cmp.Warnings, err
}

// maxPlanRows keeps a plan figure legible.
const maxPlanRows = 40

func figPlan(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	p, err := env.PlanSearch(req.Plan)
	if err != nil {
		return nil, nil, err
	}
	// A row per group and batch size: too many are refused before the
	// plan is evaluated and kept.
	bl := slices.Clone(p.search.Batches())
	sort.Ints(bl)
	bl = slices.Compact(bl)
	if n := p.search.Groups() * len(bl); n > maxPlanRows {
		return nil, nil, &RequestError{Msg: fmt.Sprintf("the plan has %d rows (device · model · format): plot at most %d; narrow the devices, models or weights", n, maxPlanRows)}
	}
	if err := p.runKept(); err != nil {
		return nil, nil, err
	}
	res, t, sp := p.Result, p.Targets, p.Space
	if len(res.Groups) == 0 {
		// Nothing ran: the runtime, weights or KV asked for run on no
		// engine of the devices (plan prints that answer; a figure of no
		// rows would say nothing).
		why := "no engine of the devices runs the models with the runtime, weights and KV cache asked for"
		if len(res.Skipped) > 0 {
			why += " (" + res.Skipped[0]
			if n := len(res.Skipped) - 1; n > 0 {
				why += fmt.Sprintf("; %d more", n)
			}
			why += ")"
		}
		return nil, nil, &RequestError{Msg: "nothing to plot: " + why}
	}
	var rows []string
	var cells []plots.PlanCell
	// Row labels name what varies between groups; the rest goes in the title.
	varies := func(get func(plan.Group) string) bool {
		for _, g := range res.Groups {
			if get(g) != get(res.Groups[0]) {
				return true
			}
		}
		return false
	}
	var common []string
	parts := []struct {
		name string
		get  func(plan.Group) string
	}{
		{"", func(g plan.Group) string { return g.Device + " " + g.Engine }},
		{"", func(g plan.Group) string { return g.Model }},
		{"weights ", func(g plan.Group) string { return g.Weights }},
		{"KV ", func(g plan.Group) string { return g.KV }},
	}
	var vary []func(plan.Group) string
	for _, pt := range parts {
		if len(res.Groups) > 0 && varies(pt.get) {
			vary = append(vary, pt.get)
		} else if len(res.Groups) > 0 {
			common = append(common, pt.name+pt.get(res.Groups[0]))
		}
	}
	if len(vary) == 0 { // one group: name its device in the row
		vary, common = []func(plan.Group) string{parts[0].get}, common[1:]
	}
	for _, g := range res.Groups {
		for _, b := range bl {
			var lp []string
			for _, get := range vary {
				lp = append(lp, get(g))
			}
			label := strings.Join(lp, " · ")
			if len(bl) > 1 {
				label += fmt.Sprintf(" · b%d", b)
			}
			row := -1
			for _, cf := range g.Configs {
				if cf.Batch != b {
					continue
				}
				if row < 0 {
					row = len(rows)
					rows = append(rows, label)
				}
				cells = append(cells, plots.PlanCell{Row: row, Context: cf.Context, Verdict: cf.Verdict.String(), Limit: cf.Limit.String()})
			}
		}
	}
	var tg []string
	if t.TTFT > 0 {
		tg = append(tg, "TTFT < "+units.FormatDuration(t.TTFT))
	}
	if t.TPOT > 0 {
		tg = append(tg, "TPOT < "+units.FormatDuration(t.TPOT))
	}
	if t.MinThroughput > 0 {
		tg = append(tg, fmt.Sprintf("throughput > %.0f tok/s", t.MinThroughput))
	}
	tg = append(tg, fmt.Sprintf("fits with %.0f%% headroom", 100*t.Headroom))
	second := fmt.Sprintf("prompt %d, output %d; verdicts %.0f %% sure, else the first failing constraint", sp.Prompt, sp.Output, 100*t.ConfidenceLevel())
	if len(common) > 0 {
		second = strings.Join(common, ", ") + "; " + second
	}
	title := fmt.Sprintf("Plan: %s\n%s", strings.Join(tg, ", "), second)
	f, err := plots.Plan(title, rows, cells)
	return f, nil, err
}

func figChat(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	var conv sim.Conversation
	for _, p := range []struct {
		name string
		dst  *int
	}{{"turns", &conv.Turns}, {"system-tokens", &conv.System}, {"user-tokens", &conv.User}, {"reply-tokens", &conv.Reply}, {"ubatch", &conv.UBatch}} {
		v, err := req.intParam(p.name, math.MinInt, math.MaxInt)
		if err != nil {
			return nil, nil, err
		}
		*p.dst = v
	}
	if err := conv.Validate(); err != nil {
		return nil, nil, err
	}
	if conv.Turns < 2 {
		return nil, nil, &RequestError{Input: "turns", Msg: fmt.Sprintf("%d: a conversation plot needs at least 2 turns", conv.Turns)}
	}
	target, err := units.ParseDuration(req.param("ttft"))
	if err != nil {
		return nil, nil, &RequestError{Input: "ttft", Msg: err.Error()}
	}
	ttftScale, err := req.scaleParam(plots.LogY)
	if err != nil {
		return nil, nil, err
	}
	cumScale, _ := req.scaleParam(plots.AutoY)
	res, err := env.Resolve(req.Setup)
	if err != nil {
		return nil, nil, err
	}
	s := res.Setup
	var ttft, cum []plots.Curve
	var limit int
	for _, st := range sim.Strategies {
		r, err := s.Chat(conv, st)
		if err != nil {
			return nil, nil, err
		}
		limit = r.Limit
		a := plots.Curve{Label: string(st)}
		b := plots.Curve{Label: string(st)}
		for _, t := range r.Turns {
			a.X = append(a.X, float64(t.N))
			a.Expected = append(a.Expected, t.TTFT)
			b.Expected = append(b.Expected, t.Cumulative)
			if t.DroppedTurns > 0 && a.Limit == 0 {
				a.Limit = float64(t.N)
			}
		}
		b.X, b.Limit = a.X, a.Limit
		ttft, cum = append(ttft, a), append(cum, b)
	}
	in := s.Inputs
	title := fmt.Sprintf("Conversation: %s on %s (%s, weights %s, KV %s)\nsystem %d, user %d, reply %d tokens per turn; context limit %d; expected at η_bw %.2f, η_compute %.2f",
		in.Model, in.Device, in.Engine, in.Weights, in.KV, conv.System, conv.User, conv.Reply, limit, in.Efficiency.Bandwidth, in.Efficiency.ComputeMax)
	f, err := plots.Stacked(title, "turn", false,
		plots.Panel{YLabel: "TTFT (s)", Curves: ttft, Target: target, TargetLabel: "TTFT target " + units.FormatDuration(target), Scale: ttftScale},
		plots.Panel{YLabel: "Σ E2E (s)", Curves: cum, Scale: cumScale})
	return f, nil, err
}

func figConcurrency(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	ss, err := env.series(req.Series)
	if err != nil {
		return nil, nil, err
	}
	maxN, err := req.intParam("max-chats", 2, 4096)
	if err != nil {
		return nil, nil, err
	}
	scale, err := req.scaleParam(plots.LogY)
	if err != nil {
		return nil, nil, err
	}
	w := ss.workload
	ctx := w.Context()
	var tpot, ttft []plots.Curve
	for _, s := range ss.list {
		cs := s.setup.Concurrent(maxN, ctx, w.Prompt, w.Output, w.UBatch, sim.Targets{})
		a := plots.Curve{Label: s.label, Facet: s.facet}
		b := plots.Curve{Label: s.label, Facet: s.facet}
		for _, r := range cs {
			a.X = append(a.X, float64(r.N))
			a.Expected = append(a.Expected, r.TPOT*1e3)
			b.Expected = append(b.Expected, r.TTFT)
			if !r.Fits && a.Limit == 0 && r.N > 1 {
				a.Limit = float64(r.N - 1)
			}
		}
		b.X, b.Limit = a.X, a.Limit
		tpot, ttft = append(tpot, a), append(ttft, b)
	}
	title := ss.title("Concurrent chats (continuous batching)",
		fmt.Sprintf("%d tokens per chat (depth %d + message %d + reply %d); TTFT: all send at once", ctx, w.Depth, w.Prompt, w.Output))
	f, err := plots.Stacked(title, "concurrent chats", true,
		plots.Panel{YLabel: "TPOT per chat (ms)", Curves: tpot, Target: ss.targets.TPOT * 1e3, TargetLabel: "TPOT target " + units.FormatDuration(ss.targets.TPOT), Scale: scale},
		plots.Panel{YLabel: "TTFT (s)", Curves: ttft, Target: ss.targets.TTFT, TargetLabel: "TTFT target " + units.FormatDuration(ss.targets.TTFT), Scale: scale})
	return f, nil, err
}

func figSpeculative(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	draftModel := req.param("draft")
	if draftModel == "" {
		return nil, nil, &RequestError{Input: "draft", Msg: "MODEL is required"}
	}
	ks, err := units.ParseTokenList(req.param("draft-tokens"))
	if err != nil {
		return nil, nil, &RequestError{Input: "draft-tokens", Msg: err.Error()}
	}
	for _, k := range ks {
		if err := (sim.Speculation{K: k}).Validate(); err != nil {
			return nil, nil, err
		}
	}
	ctx, err := req.intParam("context", 1, sim.MaxTokens)
	if err != nil {
		return nil, nil, err
	}
	batch, err := req.intParam("batch", 1, sim.MaxTokens)
	if err != nil {
		return nil, nil, err
	}
	scale, err := req.scaleParam(plots.AutoY)
	if err != nil {
		return nil, nil, err
	}
	res, err := env.Resolve(req.Setup)
	if err != nil {
		return nil, nil, err
	}
	s := res.Setup
	draft, err := env.draftSetup(s, req.Setup, Draft{Model: draftModel, Weights: req.param("draft-weights")})
	if err != nil {
		return nil, nil, err
	}
	var curves []plots.Curve
	for _, k := range ks {
		cv := plots.Curve{Label: fmt.Sprintf("k = %d drafted tokens", k), SwitchLabel: "break-even acceptance"}
		for i := 0; i <= 38; i++ {
			a := 0.025 * float64(i)
			r, err := s.Speculate(draft, sim.Speculation{K: k, Acceptance: a}, ctx, batch)
			if err != nil {
				return nil, nil, err
			}
			cv.X = append(cv.X, a)
			cv.Expected = append(cv.Expected, r.Speedup)
			if i == 0 && r.BreakEven > 0 && r.BreakEven < 1 {
				cv.Switch = r.BreakEven
			}
		}
		curves = append(curves, cv)
	}
	in, din := s.Inputs, draft.Inputs
	formats := in.Weights
	if din.Weights != in.Weights {
		formats = din.Weights + " / " + in.Weights
	}
	title := fmt.Sprintf("Speculative decoding: %s drafts for %s (%s)\n%s %s, context %d, batch %d; expected at η_bw %.2f, η_compute %.2f",
		din.Model, in.Model, formats, in.Device, in.Engine, ctx, batch, in.Efficiency.Bandwidth, in.Efficiency.ComputeMax)
	f, err := plots.Stacked(title, "acceptance rate a (share of drafted tokens accepted)", false,
		plots.Panel{YLabel: "speed-up over plain decoding (×)", Curves: curves, Target: 1, TargetLabel: "no speed-up (1×)", Scale: scale})
	return f, nil, err
}

// ubatchLabel names a workload's tokens per prefill pass in a title:
// "ubatch 512", or the runtime's own passes when the workload gives none.
func ubatchLabel(u int) string {
	if u == 0 {
		return "the runtime's prefill passes"
	}
	return fmt.Sprintf("ubatch %d", u)
}
