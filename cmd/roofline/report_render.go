package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/atomicfile"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/cmd/roofline/internal/report"
	"github.com/roofline/roofline/safeio"
	"github.com/roofline/roofline/units"
)

// A report is a list of blocks rendered twice: Markdown and HTML.
type block struct {
	kind  string // h1, h2, h3, p, list, table, code, figure
	text  string
	items []string
	table report.Table
	fig   *reportFigure
}

func writeReportFiles(dir string, r *reportData) error {
	doc := reportBlocks(r)
	js, err := json.MarshalIndent(r, "", "  ")
	var uv *json.UnsupportedValueError
	if errors.As(err, &uv) { // a NaN: null rather than no report
		js, err = json.MarshalIndent(safeio.Finite(r), "", "  ")
	}
	if err != nil {
		return err
	}
	return atomicfile.WriteAll(
		atomicfile.File{Path: filepath.Join(dir, "report.md"), Data: renderMarkdown(doc)},
		atomicfile.File{Path: filepath.Join(dir, "report.html"), Data: renderHTML(r.Title, doc)},
		atomicfile.File{Path: filepath.Join(dir, "results.json"), Data: append(js, '\n')},
		atomicfile.File{Path: filepath.Join(dir, "results.csv"), Data: resultsCSV(r)},
	)
}

func pct(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }

func reportBlocks(r *reportData) []block {
	var doc []block
	add := func(kind, text string) { doc = append(doc, block{kind: kind, text: text}) }
	list := func(items []string) {
		if len(items) > 0 {
			doc = append(doc, block{kind: "list", items: items})
		}
	}
	table := func(t report.Table) { doc = append(doc, block{kind: "table", table: t}) }
	w := r.Workload

	add("h1", r.Title)
	for _, para := range strings.Split(r.Description, "\n\n") {
		if p := strings.Join(strings.Fields(para), " "); p != "" {
			add("p", p)
		}
	}
	add("p", fmt.Sprintf("Workload: prompt %d tokens on top of %d cached, %d generated, batch %d, prefill passes of %d tokens.",
		w.Prompt, w.Depth, w.Output, w.Batch, w.UBatch))

	// The answer first.
	add("h2", "Answer")
	var answer []string
	targets := targetText(r)
	if targets != "" {
		answer = append(answer, fmt.Sprintf("%d of %d configurations meet the targets (%s).", r.Plan.Feasible, r.Plan.Total, targets))
	}
	for _, b := range r.Plan.Best {
		if targets == "" {
			break
		}
		cfg := fmt.Sprintf("%s %s · %s · %s", b.Hardware, b.Engine, b.Model, b.Weights)
		if b.Feasible {
			answer = append(answer, fmt.Sprintf("%s %s at context %d, batch %d: TTFT %s, TPOT %s, %s of %s memory.",
				cfg, sureText(b), b.Context, b.Batch, dur(b.TTFT), dur(b.TPOT), units.FormatBytes(b.MemoryBytes, units.Binary), units.FormatBytes(b.UsableBytes, units.Binary)))
		} else {
			miss := ""
			if b.Excess != nil {
				miss = fmt.Sprintf(" by %.2f×", *b.Excess)
			}
			answer = append(answer, fmt.Sprintf("%s: no configuration meets them; the closest (context %d, batch %d) fails %s%s.", cfg, b.Context, b.Batch, b.Limit, miss))
		}
	}
	if targets == "" {
		for _, p := range r.Predictions {
			in := p.Result.Inputs
			x := p.Result
			answer = append(answer, fmt.Sprintf("%s %s · %s · %s: TTFT %s, TPOT %s, E2E %s; %s.", in.Hardware, in.Engine, in.Model, in.Weights,
				withIv(x.TTFT, x.TTFTInterval, x.IntervalLevel), withIvp(x.TPOT, x.TPOTInterval, x.IntervalLevel),
				withIv(x.E2E, x.E2EInterval, x.IntervalLevel), fitText(x.Memory.Fits)))
		}
	}
	for _, m := range r.Measured {
		for _, run := range m.Runs {
			answer = append(answer, measuredSentence(run))
		}
	}
	list(answer)

	// Tables.
	if len(r.Plan.Best) > 0 && targets != "" {
		add("h3", "Best configuration per device and model")
		add("p", "Highest-precision weights first, then the longest context, then the largest batch; the verdict says by how much the targets are met or missed.")
		t := report.Table{Header: []string{"device", "engine", "model", "weights", "context", "batch", "TTFT", "TPOT", "memory", "verdict"}, Right: map[int]bool{4: true, 5: true, 6: true, 7: true, 8: true}}
		for _, b := range r.Plan.Best {
			verdict := fmt.Sprintf("%s (%.0f%% sure)", b.Verdict, 100*b.Confidence) + slowEnds(b)
			if b.Verdict == "uncertain" {
				verdict = fmt.Sprintf("uncertain (not %.0f%% sure)", 100*b.Confidence) + slowEnds(b)
			}
			if b.Verdict == "fails" {
				verdict = "fails " + b.Limit
				if b.Excess != nil {
					verdict += fmt.Sprintf(" (%.2f×)", *b.Excess)
				}
			}
			t.Add(b.Hardware, b.Engine, b.Model, b.Weights, fmt.Sprint(b.Context), fmt.Sprint(b.Batch), dur(b.TTFT), dur(b.TPOT),
				units.FormatBytes(b.MemoryBytes, units.Binary)+" / "+units.FormatBytes(b.UsableBytes, units.Binary), verdict)
		}
		table(t)
	}
	if len(r.Plan.Limits) > 0 {
		add("h3", "Limits per device and model")
		add("p", "The longest context that fits in memory and that meets the TPOT target, the longest prompt that meets the TTFT target (at batch 1), and the most sequences that fit.")
		t := report.Table{Header: []string{"device", "engine", "model", "weights", "max context (memory)", "max context (TPOT)", "max prompt (TTFT)", "max batch"}, Right: map[int]bool{4: true, 5: true, 6: true, 7: true}}
		for _, l := range r.Plan.Limits {
			t.Add(l.Hardware, l.Engine, l.Model, l.Weights, intp(l.MaxContextFit, "any"), intp(l.MaxContextTPOT, "no target"), intp(l.MaxPromptTTFT, "no target"), fmt.Sprint(l.MaxBatchFit))
		}
		table(t)
	}

	add("h2", "Predictions at the workload")
	add("p", "Expected figures at each engine's efficiencies; ideal figures are the physical limit (datasheet bandwidth and dense peak, no overhead).")
	byDevice := map[string][]reportPredict{}
	var devices []string
	for _, p := range r.Predictions {
		d := p.Result.Inputs.Hardware
		if _, ok := byDevice[d]; !ok {
			devices = append(devices, d)
		}
		byDevice[d] = append(byDevice[d], p)
	}
	for _, d := range devices {
		add("h3", d)
		t := report.Table{Header: []string{"engine", "model", "weights", "KV", "TTFT", "ideal TTFT", "TPOT", "ideal TPOT", "E2E", "decode tok/s", "memory", "fits"},
			Right: map[int]bool{4: true, 5: true, 6: true, 7: true, 8: true, 9: true, 10: true}}
		for _, p := range byDevice[d] {
			x, in := p.Result, p.Result.Inputs
			t.Add(in.Engine, in.Model, in.Weights, in.KV, withIv(x.TTFT, x.TTFTInterval, x.IntervalLevel), dur(x.TTFTBound),
				withIvp(x.TPOT, x.TPOTInterval, x.IntervalLevel), durp(x.TPOTBound), withIv(x.E2E, x.E2EInterval, x.IntervalLevel),
				optRate(x.DecodeTokensPerS), units.FormatBytes(x.Memory.TotalBytes, units.Binary)+" / "+units.FormatBytes(x.Memory.UsableBytes, units.Binary),
				fitText(x.Memory.Fits))
		}
		table(t)
	}

	if len(r.Measured) > 0 {
		add("h2", "Measured runs")
		add("p", "MBU is the share of the datasheet bandwidth a run achieved, MFU the share of the dense peak, both from the same byte and FLOP account as the predictions; the bound is the physical limit.")
		for _, m := range r.Measured {
			add("h3", m.File)
			t := report.Table{Header: []string{"run", "test", "device", "model", "weights", "measured tok/s", "predicted", "bound", "measured / predicted", "MBU", "MFU"},
				Right: map[int]bool{5: true, 6: true, 7: true, 8: true, 9: true, 10: true}}
			for _, run := range m.Runs {
				t.Add(run.Source, runLabel(run), run.Hardware, run.Model, run.Weights, tokRate(run.MeasuredTokensPerS),
					tokRate(run.PredictedTokensPerS), tokRate(run.BoundTokensPerS), fmt.Sprintf("%.2f", run.Ratio), pct(run.MBU), pct(run.MFU))
			}
			table(t)
			list(m.Warnings)
		}
	}

	if len(r.Figures) > 0 {
		add("h2", "Figures")
		for i := range r.Figures {
			doc = append(doc, block{kind: "figure", fig: &r.Figures[i]})
		}
	}

	add("h2", "Assumptions")
	var eff []string
	seen := map[string]bool{}
	for _, p := range r.Predictions {
		in := p.Result.Inputs
		s := fmt.Sprintf("%s %s under %s: %s at %s dense peak, matrix products up to %.2f of it; %s datasheet bandwidth, η_bw %.2f; overheads %s per prefill pass, %s per decode step; efficiency from %s.",
			in.Hardware, in.Engine, in.Runtime, in.Precision, units.FormatRate(in.PeakOpsPerS, units.Precision(in.Precision).RateUnit()), in.Efficiency.ComputeMax,
			units.FormatBandwidth(in.BandwidthBytesPerS), in.Efficiency.Bandwidth, dur(in.PrefillOverheadS), dur(in.DecodeOverheadS), in.EfficiencyFrom)
		if !seen[s] {
			seen[s] = true
			eff = append(eff, s)
		}
	}
	list(eff)
	add("p", "Memory: weights + KV cache + peak activations + 256 MiB runtime overhead against usable memory. Method and equations: docs/method.md.")
	add("h3", "Devices")
	for _, d := range r.Devices {
		var items []string
		items = append(items, fmt.Sprintf("%s (%s)", d.Description, d.File))
		for _, k := range slices.Sorted(maps.Keys(d.Sources)) {
			items = append(items, k+": "+d.Sources[k])
		}
		items = append(items, d.References...)
		add("p", d.Name)
		list(items)
	}
	add("h3", "Models")
	mt := report.Table{Header: []string{"model", "parameters", "active", "layers", "KV per token (f16)", "max context", "source"}, Right: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true}}
	for _, m := range r.Models {
		mt.Add(m.Name, units.FormatCount(m.Params), units.FormatCount(m.Active), fmt.Sprint(m.Layers), units.FormatBytes(m.KVPerToken, units.Binary), fmt.Sprint(m.MaxContext), m.Source)
	}
	table(mt)

	add("h2", "Reproduce")
	add("p", fmt.Sprintf("Generated by roofline %s from %s with:", r.Version, r.StudyFile))
	doc = append(doc, block{kind: "code", text: r.Command})
	add("p", "The same numbers from the individual commands (run from the study's directory):")
	cmds := []string{r.Plan.Command}
	for _, p := range r.Predictions {
		cmds = append(cmds, p.Command)
	}
	for _, m := range r.Measured {
		cmds = append(cmds, m.Command)
	}
	for _, f := range r.Figures {
		cmds = append(cmds, f.Command)
	}
	doc = append(doc, block{kind: "code", text: strings.Join(cmds, "\n")})
	if len(r.Notes) > 0 {
		add("h2", "Notes")
		list(r.Notes)
	}
	return doc
}

func targetText(r *reportData) string {
	var tg []string
	t := r.Targets
	if t.TTFT != "" {
		tg = append(tg, fmt.Sprintf("TTFT ≤ %s for a %d-token prompt", t.TTFT, r.Workload.Prompt))
	}
	if t.TPOT != "" {
		tg = append(tg, "TPOT ≤ "+t.TPOT+" at the end of the context")
	}
	if t.MinThroughput > 0 {
		tg = append(tg, fmt.Sprintf("≥ %.4g tokens/s aggregate", t.MinThroughput))
	}
	if len(tg) == 0 {
		return ""
	}
	h := t.Headroom
	if h == "" {
		h = "0%"
	}
	return strings.Join(tg, ", ") + ", fitting with " + h + " of memory free"
}

func measuredSentence(run comparisonJSON) string {
	what := runLabel(run)
	s := fmt.Sprintf("%s (%s) on %s, %s %s: measured %s tokens/s", what, run.Source, run.Hardware, run.Model, run.Weights, tokRate(run.MeasuredTokensPerS))
	if run.Test == "decode" {
		s += fmt.Sprintf(" is %s of the datasheet bandwidth (MBU)", pct(run.MBU))
	} else {
		s += fmt.Sprintf(" is %s of the dense peak (MFU)", pct(run.MFU))
	}
	s += fmt.Sprintf(", %s of the physical limit of %s tokens/s; roofline predicted %s (measured / predicted %.2f).",
		pct(run.MeasuredTokensPerS/run.BoundTokensPerS), tokRate(run.BoundTokensPerS), tokRate(run.PredictedTokensPerS), run.Ratio)
	return s
}

// tokRate prints a token rate with four significant digits at most and no
// exponent: 14815, 163.0, 9.871.
func tokRate(v float64) string {
	switch {
	case v >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func optRate(v num) string {
	if v == nil {
		return "—"
	}
	return tokRate(*v)
}

// runLabel names a compared run as compare does (pp512, tg128 @ d4096 ×4).
func runLabel(run comparisonJSON) string {
	return testName(measured.Run{Test: measured.Test(run.Test), Prompt: run.PromptTokens, Gen: run.GenTokens, Depth: run.Depth, Batch: run.Batch})
}

func fitText(fits bool) string {
	if fits {
		return "fits"
	}
	return "does not fit"
}

func intp(v *int, none string) string {
	if v == nil {
		return none
	}
	return fmt.Sprint(*v)
}

func valueOr(v num) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

func renderMarkdown(doc []block) []byte {
	var b bytes.Buffer
	for _, bl := range doc {
		switch bl.kind {
		case "h1":
			fmt.Fprintf(&b, "# %s\n\n", bl.text)
		case "h2":
			fmt.Fprintf(&b, "## %s\n\n", bl.text)
		case "h3":
			fmt.Fprintf(&b, "### %s\n\n", bl.text)
		case "p":
			fmt.Fprintf(&b, "%s\n\n", bl.text)
		case "list":
			for _, it := range bl.items {
				fmt.Fprintf(&b, "- %s\n", it)
			}
			b.WriteString("\n")
		case "table":
			bl.table.WriteMarkdown(&b)
			b.WriteString("\n")
		case "code":
			fmt.Fprintf(&b, "```\n%s\n```\n\n", bl.text)
		case "figure":
			f := bl.fig
			fmt.Fprintf(&b, "![%s](%s)\n\n%s ([SVG](%s))\n\n```\n%s\n```\n\n", f.Kind, f.PNG, f.Caption, f.SVG, f.Command)
		}
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

const reportCSS = `body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#111;line-height:1.45}
h1{font-size:1.7rem}h2{font-size:1.35rem;border-bottom:1px solid #ccc;padding-bottom:.2rem;margin-top:2rem}h3{font-size:1.1rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.85rem}th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:left;vertical-align:top}
td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}th{background:#f2f2f2}
pre{background:#f6f6f6;padding:.6rem;overflow-x:auto;font-size:.8rem;white-space:pre-wrap;word-break:break-all}
figure{margin:1rem 0}figure svg{width:100%;height:auto}figcaption{font-size:.9rem;color:#333}
@media print{body{max-width:none;margin:0}h2{page-break-after:avoid}figure,table{page-break-inside:avoid}pre{white-space:pre-wrap}}`

var xmlProlog = regexp.MustCompile(`^(<\?xml[^>]*\?>\s*)?(<!--.*?-->\s*)?`)

func renderHTML(title string, doc []block) []byte {
	var b bytes.Buffer
	e := html.EscapeString
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n", e(title), reportCSS)
	for _, bl := range doc {
		switch bl.kind {
		case "h1", "h2", "h3":
			fmt.Fprintf(&b, "<%s>%s</%s>\n", bl.kind, e(bl.text), bl.kind)
		case "p":
			fmt.Fprintf(&b, "<p>%s</p>\n", e(bl.text))
		case "list":
			b.WriteString("<ul>\n")
			for _, it := range bl.items {
				fmt.Fprintf(&b, "<li>%s</li>\n", e(it))
			}
			b.WriteString("</ul>\n")
		case "table":
			t := bl.table
			b.WriteString("<table>\n<thead><tr>")
			for i, h := range t.Header {
				fmt.Fprintf(&b, "<th%s>%s</th>", cls(t.Right[i]), e(h))
			}
			b.WriteString("</tr></thead>\n<tbody>\n")
			for _, row := range t.Rows {
				b.WriteString("<tr>")
				for i, c := range row {
					fmt.Fprintf(&b, "<td%s>%s</td>", cls(t.Right[i]), e(c))
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</tbody>\n</table>\n")
		case "code":
			fmt.Fprintf(&b, "<pre><code>%s</code></pre>\n", e(bl.text))
		case "figure":
			f := bl.fig
			svg := xmlProlog.ReplaceAll(f.svg, nil)
			fmt.Fprintf(&b, "<figure>\n%s\n<figcaption>%s</figcaption>\n<pre><code>%s</code></pre>\n</figure>\n", svg, e(f.Caption), e(f.Command))
		}
	}
	b.WriteString("</body>\n</html>\n")
	return b.Bytes()
}

func cls(right bool) string {
	if right {
		return ` class="r"`
	}
	return ""
}

// resultsCSV is every number of the report in long form: one row per
// value, in SI units.
func resultsCSV(r *reportData) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"section", "hardware", "engine", "model", "weights", "kv", "context", "batch", "metric", "value", "unit"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	row := func(section, hw, eng, m, wt, kv string, ctx, batch int, metric string, v float64, unit string) {
		if math.IsNaN(v) {
			return
		}
		w.Write([]string{section, hw, eng, m, wt, kv, strconv.Itoa(ctx), strconv.Itoa(batch), metric, f(v), unit})
	}
	for _, c := range r.Plan.Configs {
		s := "plan"
		row(s, c.Hardware, c.Engine, c.Model, c.Weights, c.KV, c.Context, c.Batch, "ttft", c.TTFT, "s")
		row(s, c.Hardware, c.Engine, c.Model, c.Weights, c.KV, c.Context, c.Batch, "tpot", c.TPOT, "s")
		row(s, c.Hardware, c.Engine, c.Model, c.Weights, c.KV, c.Context, c.Batch, "throughput", c.Throughput, "tokens/s")
		row(s, c.Hardware, c.Engine, c.Model, c.Weights, c.KV, c.Context, c.Batch, "memory", c.MemoryBytes, "B")
		row(s, c.Hardware, c.Engine, c.Model, c.Weights, c.KV, c.Context, c.Batch, "usable_memory", c.UsableBytes, "B")
		row(s, c.Hardware, c.Engine, c.Model, c.Weights, c.KV, c.Context, c.Batch, "feasible", b2f(c.Feasible), "bool")
	}
	for _, l := range r.Plan.Limits {
		for _, x := range []struct {
			m string
			v *int
		}{{"max_context_fit", l.MaxContextFit}, {"max_context_tpot", l.MaxContextTPOT}, {"max_prompt_ttft", l.MaxPromptTTFT}} {
			if x.v != nil {
				row("limits", l.Hardware, l.Engine, l.Model, l.Weights, l.KV, 0, l.Batch, x.m, float64(*x.v), "tokens")
			}
		}
		row("limits", l.Hardware, l.Engine, l.Model, l.Weights, l.KV, 0, l.Batch, "max_batch_fit", float64(l.MaxBatchFit), "sequences")
	}
	for _, p := range r.Predictions {
		x, in := p.Result, p.Result.Inputs
		ctx := in.Depth + in.Prompt + in.Output
		add := func(metric string, v float64, unit string) {
			row("predict", in.Hardware, in.Engine, in.Model, in.Weights, in.KV, ctx, in.Batch, metric, v, unit)
		}
		add("ttft", x.TTFT, "s")
		add("ttft_ideal", x.TTFTBound, "s")
		add("tpot", valueOr(x.TPOT), "s")
		add("tpot_ideal", valueOr(x.TPOTBound), "s")
		add("e2e", x.E2E, "s")
		add("decode_tokens_per_s", valueOr(x.DecodeTokensPerS), "tokens/s")
		add("memory", x.Memory.TotalBytes, "B")
		add("usable_memory", x.Memory.UsableBytes, "B")
		add("fits", b2f(x.Memory.Fits), "bool")
		add("peak", in.PeakOpsPerS, "FLOP/s")
		add("bandwidth", in.BandwidthBytesPerS, "B/s")
		add("bw_efficiency", in.Efficiency.Bandwidth, "")
		add("compute_efficiency", in.Efficiency.ComputeMax, "")
	}
	for _, m := range r.Measured {
		for _, run := range m.Runs {
			ctx := run.Depth + run.PromptTokens + run.GenTokens
			add := func(metric string, v float64, unit string) {
				row("measured "+run.Source+" "+runLabel(run), run.Hardware, run.Engine, run.Model, run.Weights, run.KV, ctx, run.Batch, metric, v, unit)
			}
			add("measured", run.MeasuredTokensPerS, "tokens/s")
			add("predicted", run.PredictedTokensPerS, "tokens/s")
			add("bound", run.BoundTokensPerS, "tokens/s")
			add("mbu", run.MBU, "")
			add("mfu", run.MFU, "")
		}
	}
	w.Flush()
	return b.Bytes()
}

func b2f(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

// withIv writes a time with its interval, "31 ms (80%: 27 ms–36 ms)".
func withIv(v float64, iv []float64, level float64) string {
	if len(iv) != 2 || level <= 0 {
		return dur(v)
	}
	return fmt.Sprintf("%s (%.0f%%: %s–%s)", dur(v), 100*level, dur(iv[0]), dur(iv[1]))
}

// sureText says how sure a configuration that meets the targets at its
// expected figures is to meet them.
func sureText(b planConfigJSON) string {
	if b.Verdict == "meets" {
		return fmt.Sprintf("meets them (%.0f%% sure%s)", 100*b.Confidence, slowEnds(b))
	}
	return fmt.Sprintf("is expected to meet them but not %.0f%% sure to (%s)", 100*b.Confidence, strings.TrimPrefix(slowEnds(b), "; "))
}

// slowEnds are the margins at the slow end of the interval.
func slowEnds(b planConfigJSON) string {
	var m []string
	for _, x := range []struct {
		name string
		lo   *float64
	}{{"TTFT", b.TTFTMarginLow}, {"TPOT", b.TPOTMarginLow}} {
		if x.lo == nil {
			continue
		}
		if *x.lo >= 0 {
			m = append(m, fmt.Sprintf("%s %.0f%% under at the slow end", x.name, 100*(1-1/(1+*x.lo))))
		} else {
			m = append(m, fmt.Sprintf("%s %.0f%% over at the slow end", x.name, 100*(1/(1+*x.lo)-1)))
		}
	}
	if len(m) == 0 {
		return ""
	}
	return "; " + strings.Join(m, ", ")
}

// withIvp is withIv for a figure that may be absent.
func withIvp(v num, iv []float64, level float64) string {
	if v == nil {
		return "—"
	}
	return withIv(*v, iv, level)
}
