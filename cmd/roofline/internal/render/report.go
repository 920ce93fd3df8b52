package render

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/buildinfo"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/cmd/roofline/internal/plots"
	"github.com/roofline/roofline/cmd/roofline/internal/study"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// ReportJSON is everything a report shows; results.json is this.
type ReportJSON struct {
	Version     string           `json:"roofline_version"`
	Build       buildinfo.Info   `json:"roofline_build"`
	Command     string           `json:"command"`
	StudyFile   string           `json:"study_file"`
	Title       string           `json:"title"`
	Description string           `json:"description"`
	Workload    study.Workload   `json:"workload"`
	Targets     study.Targets    `json:"targets"`
	Plan        reportPlan       `json:"plan"`
	Predictions []reportPredict  `json:"predictions"`
	Measured    []reportMeasured `json:"measured"`
	// Operators are the recommended configurations operator by
	// operator (predict --ops at the workload).
	Operators []reportOps `json:"operators"`
	// Serving is the [serve] table's runs; null without one.
	Serving *reportServing `json:"serving"`
	Figures []reportFigure `json:"figures"`
	Devices []reportDevice `json:"devices"`
	Models  []reportModel  `json:"models"`
	Notes   []string       `json:"notes"`
}

// reportPlan is the plan in results.json; its configurations are written
// as the search evaluates them, the counts after them.
type reportPlan struct {
	Configs  []PlanConfigJSON `json:"configs"`
	Command  string           `json:"command"`
	Feasible int              `json:"feasible_configurations"`
	Sure     int              `json:"configurations_sure"`
	Total    int              `json:"configurations"`
	Best     []PlanChoiceJSON `json:"best"`
	Limits   []PlanLimitsJSON `json:"limits"`
	Skipped  []string         `json:"skipped"`
	Pareto   []paretoJSON     `json:"pareto"`
}

type reportPredict struct {
	Command string      `json:"command"`
	Result  PredictJSON `json:"result"`
}

// reportOps is a recommended configuration by operator: its command
// prints every operator and layer kind.
type reportOps struct {
	Command   string          `json:"command"`
	Hardware  string          `json:"hardware"`
	Engine    string          `json:"engine"`
	Model     string          `json:"model"`
	Weights   string          `json:"weights"`
	TTFT      float64         `json:"ttft_s"`
	TPOT      *float64        `json:"tpot_s"`
	Operators []reportOpShare `json:"operators"`
}

type reportOpShare struct {
	Operator     string   `json:"operator"`
	Prefill      *float64 `json:"prefill_s"`
	PrefillShare *float64 `json:"prefill_share"`
	Decode       *float64 `json:"decode_step_s"`
	DecodeShare  *float64 `json:"decode_share"`
}

type reportMeasured struct {
	File     string           `json:"file"`
	Command  string           `json:"command"`
	Runs     []ComparisonJSON `json:"runs"`
	Warnings []string         `json:"warnings"`
}

type reportFigure struct {
	Kind    string `json:"kind"`
	Caption string `json:"caption"`
	Command string `json:"command"`
	PNG     string `json:"png"`
	SVG     string `json:"svg"`
}

type reportDevice struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	PowerMode   string            `json:"power_mode,omitempty"`
	Memory      float64           `json:"memory_bytes"`
	Usable      float64           `json:"usable_bytes"`
	Bandwidth   float64           `json:"bandwidth_bytes_per_s"`
	Measured    float64           `json:"measured_bandwidth_bytes_per_s,omitempty"`
	Engines     []reportEngine    `json:"engines"`
	Sources     map[string]string `json:"sources"`
	References  []string          `json:"references"`
	File        string            `json:"file"`
}

type reportEngine struct {
	Name   string             `json:"name"`
	Peaks  map[string]float64 `json:"peak_ops_per_s"`
	PowerW float64            `json:"power_w,omitempty"`
}

type reportModel struct {
	Name       string  `json:"name"`
	Params     float64 `json:"params_total"`
	Active     float64 `json:"params_active"`
	Layers     int     `json:"layers"`
	KVPerToken float64 `json:"kv_bytes_per_token_f16"`
	MaxContext int     `json:"max_context"`
	Source     string  `json:"source"`
}

// report is a study's answers with what rendering adds: the command that
// made it, the reproducing commands, the drawn figures.
type report struct {
	*study.Report
	build   buildinfo.Info
	command string
	cmds    commands
	figures []*DocFigure
	out     Files
}

// Files is where a report goes: a directory being built
// (atomicfile.Dir).
type Files interface {
	WriteFile(rel string, data []byte) error
	WriteWith(rel string, write func(io.Writer) error) error
	Create(rel string) (io.WriteCloser, error)
}

// ReportWriter writes a study's report into a directory being built. Its
// results go out as the answer comes: the plan's configurations, as many
// as the product of the study's lists, while the search evaluates them
// (Group), and everything else once the study is answered (Write), so
// memory stays flat however large the study.
type ReportWriter struct {
	out       Files
	st        *study.Study
	build     buildinfo.Info
	command   string
	files     []io.WriteCloser
	json      *jsonStream
	top, plan *jsonObject
	configs   *jsonArray
	csv       *csv.Writer
	csvBuf    *bufio.Writer
	csvTerm   *TerminalWriter
}

// NewReport starts the report of study st in out: build and command say
// what makes it. Close it when done.
func NewReport(out Files, st *study.Study, build buildinfo.Info, command string) (*ReportWriter, error) {
	w := &ReportWriter{out: out, st: st, build: build, command: command}
	jf, err := out.Create("results.json")
	if err != nil {
		return nil, err
	}
	w.files = append(w.files, jf)
	cf, err := out.Create("results.csv")
	if err != nil {
		w.Close()
		return nil, err
	}
	w.files = append(w.files, cf)
	w.json = newJSONStream(jf)
	w.top = w.json.object("")
	w.top.fields(w.head(), "", "plan")
	w.top.key("plan")
	w.plan = w.json.object(w.top.inner())
	w.plan.key("configs")
	w.configs = w.json.array(w.plan.inner())
	w.csvTerm = Terminal(cf)
	w.csvBuf = bufio.NewWriterSize(w.csvTerm, 1<<16)
	w.csv = csv.NewWriter(w.csvBuf)
	w.csv.Write([]string{"section", "hardware", "engine", "model", "weights", "kv", "context", "batch", "metric", "value", "unit"})
	return w, nil
}

// head is what results.json says before the plan.
func (w *ReportWriter) head() *ReportJSON {
	st := w.st
	return &ReportJSON{Version: w.build.String(), Build: w.build, Command: w.command, StudyFile: st.File, Title: st.Title, Description: st.Description,
		Workload: st.Workload, Targets: st.Targets}
}

// Group writes one evaluated group of the plan's configurations into the
// results; the search hands each on (app.Plan.Run) and forgets it.
func (w *ReportWriter) Group(g *plan.Group) error {
	t := w.st.Targets.Read
	for _, c := range g.Configs {
		if err := w.configs.elem(newPlanConfigJSON(g, c, t)); err != nil {
			return err
		}
		for _, x := range []struct {
			m    string
			v    float64
			unit string
		}{{"ttft", c.TTFT, "s"}, {"tpot", c.TPOT, "s"}, {"throughput", c.Throughput, "tokens/s"}, {"memory", c.Memory, "B"},
			{"usable_memory", g.UsableFor(c), "B"}, {"feasible", b2f(c.Feasible), "bool"}} {
			w.row("plan", g.Device, g.Engine, g.Model, g.Weights, g.KV, c.Context, c.Batch, x.m, x.v, x.unit)
		}
	}
	return w.csv.Error()
}

// row is one value of results.csv, in SI units; NaN is left out.
func (w *ReportWriter) row(section, hw, eng, m, wt, kv string, ctx, batch int, metric string, v float64, unit string) {
	if !math.IsNaN(v) {
		w.csv.Write([]string{section, hw, eng, m, wt, kv, strconv.Itoa(ctx), strconv.Itoa(batch), metric, strconv.FormatFloat(v, 'g', 10, 64), unit})
	}
}

func b2f(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

// Close closes the results files (Write does; an error path must).
func (w *ReportWriter) Close() error {
	var errs []error
	for _, f := range w.files {
		errs = append(errs, f.Close())
	}
	w.files = nil
	return errors.Join(errs...)
}

// DrawnFigure is a figure written into a report.
type DrawnFigure struct {
	Kind   string
	Panels int
}

// Write finishes the report of r, the study's answers (whose plan handed
// its groups to Group): the rest of the results, report.md, report.html
// and every figure as plots/KIND.svg and .png. A figure that cannot be
// drawn is an error only when the study asked for it; a default one is
// added to r.Skipped. It returns the figures written.
func (w *ReportWriter) Write(r *study.Report) ([]DrawnFigure, error) {
	defer w.Close()
	rep := &report{Report: r, build: w.build, command: w.command, cmds: commands{st: r.Study, allowPaths: r.AllowPaths}, out: w.out}
	var drawn []DrawnFigure
	for _, f := range r.Figures {
		if err := rep.draw(f); err != nil {
			if r.Study.Figures == nil {
				r.Skip(f.Kind.Name, err.Error())
				continue
			}
			return nil, err
		}
		drawn = append(drawn, DrawnFigure{f.Kind.Name, len(f.Panels())})
	}
	data := rep.data()
	// The rest of results.json and results.csv.
	w.configs.close()
	w.plan.fields(&data.Plan, "command", "")
	w.plan.close()
	w.top.key("predictions")
	preds := w.json.array(w.top.inner())
	for _, p := range r.Predictions {
		preds.elem(reportPredict{Command: rep.cmds.predict(p.Request), Result: NewPredictJSON(p.Prediction)})
	}
	preds.close()
	w.top.fields(data, "measured", "")
	w.top.close()
	if err := w.json.flush(); err != nil {
		return nil, err
	}
	rep.writeResultsCSV(w, data)
	w.csv.Flush()
	if err := errors.Join(w.csv.Error(), w.csvBuf.Flush(), w.csvTerm.Flush(), w.Close()); err != nil {
		return nil, err
	}
	doc := rep.doc(data)
	if err := w.out.WriteWith("report.md", doc.WriteMarkdownDocument); err != nil {
		return nil, err
	}
	if err := w.out.WriteWith("report.html", func(o io.Writer) error { return doc.WriteHTMLDocument(o, r.Study.Title) }); err != nil {
		return nil, err
	}
	return drawn, nil
}

// figureSize is a figure's size in a report: the plot command's default.
func figureSize(k *app.FigureKind) (vg.Length, vg.Length) {
	if k.Tall {
		return 16 * vg.Centimeter, 14 * vg.Centimeter
	}
	return 16 * vg.Centimeter, 10 * vg.Centimeter
}

// draw renders a figure as SVG and PNG, in memory.
func (rep *report) draw(f study.Figure) error {
	w, h := figureSize(f.Kind)
	h = f.Height(w, h)
	var svg []byte
	for _, format := range []string{"svg", "png"} {
		img, err := plots.Render(f.Figure.Figure, format, w, h)
		if err != nil {
			return err
		}
		if format == "svg" {
			svg = img
		}
		if err := rep.out.WriteFile("plots/"+f.Kind.Name+"."+format, img); err != nil {
			return err
		}
	}
	k := f.Kind.Name
	command := ""
	if f.Request == nil {
		// Drawn from the serving runs: their commands give its numbers.
		command = strings.Join(rep.servingCommands(), "\n")
	} else {
		command = rep.cmds.figure(f.Kind, f.Request) + " -o " + k + ".png"
	}
	rep.figures = append(rep.figures, &DocFigure{Kind: k, Caption: f.Kind.Caption, Command: command,
		PNG: "plots/" + k + ".png", SVG: "plots/" + k + ".svg", Inline: svg})
	return nil
}

func (rep *report) data() *ReportJSON {
	st := rep.Study
	r := &ReportJSON{Version: rep.build.String(), Build: rep.build, Command: rep.command, StudyFile: st.File, Title: st.Title, Description: st.Description,
		Workload: st.Workload, Targets: st.Targets, Notes: rep.Notes}
	p := rep.Plan
	sum := newPlanSummaryJSON(p, true)
	r.Plan = reportPlan{Command: rep.cmds.plan(), Feasible: p.Meeting, Sure: p.Sure, Total: p.Evaluated, Best: sum.Best, Limits: sum.Limits, Skipped: sum.Skipped, Pareto: sum.Pareto}
	// Predictions, one per planned group, are written to results.json one
	// at a time (predictionsJSON), never all at once.
	r.Operators = []reportOps{}
	for _, o := range rep.Ops {
		in := o.Inputs
		ro := reportOps{rep.cmds.predict(o.Request), in.Device, in.Engine, in.Model, in.Weights, o.TTFT, num(o.TPOT), []reportOpShare{}}
		for _, x := range o.Ops {
			row := reportOpShare{Operator: x.Name}
			if x.InPrefill {
				row.Prefill, row.PrefillShare = num(x.Prefill), num(x.PrefillShare)
			}
			if x.InDecode {
				row.Decode, row.DecodeShare = num(x.Decode), num(x.DecodeShare)
			}
			ro.Operators = append(ro.Operators, row)
		}
		r.Operators = append(r.Operators, ro)
	}
	r.Serving = rep.servingJSON()
	for _, m := range rep.Measured {
		rm := reportMeasured{File: m.Raw, Command: rep.cmds.compare(m.Measured), Warnings: []string{}}
		for _, w := range m.Warnings {
			rm.Warnings = append(rm.Warnings, strings.ReplaceAll(w, m.File, m.Raw))
		}
		for _, row := range m.Rows {
			j := newComparisonJSON(row)
			j.Source = strings.Replace(j.Source, m.File, m.Raw, 1)
			rm.Runs = append(rm.Runs, j)
		}
		r.Measured = append(r.Measured, rm)
	}
	for _, f := range rep.figures {
		r.Figures = append(r.Figures, reportFigure{f.Kind, f.Caption, f.Command, f.PNG, f.SVG})
	}
	for _, d := range rep.Devices {
		r.Devices = append(r.Devices, newReportDevice(d))
	}
	for _, c := range rep.Models {
		r.Models = append(r.Models, newReportModel(c))
	}
	return r
}

func newReportDevice(d *hardware.Device) reportDevice {
	rd := reportDevice{Name: d.Name, Description: d.Description, PowerMode: d.PowerMode, Memory: d.Memory, Usable: d.Usable,
		Bandwidth: d.Bandwidth, Measured: d.MeasuredBandwidth, Sources: d.Sources, References: d.References, File: d.File}
	for _, e := range d.Engines {
		re := reportEngine{Name: e.Name, Peaks: map[string]float64{}, PowerW: e.Power}
		for p, v := range e.Peaks {
			re.Peaks[string(p)] = v
		}
		rd.Engines = append(rd.Engines, re)
	}
	if rd.References == nil {
		rd.References = []string{}
	}
	return rd
}

func newReportModel(c *model.Cost) reportModel {
	s := c.Spec
	return reportModel{Name: s.Name, Params: c.ParamsTotal, Active: c.ParamsActive, Layers: s.Layers, KVPerToken: c.KVBytesPerToken(),
		MaxContext: s.MaxContext, Source: s.Source}
}

// targetText says in words what the study's targets are; "" when none.
func (rep *report) targetText() string {
	t := rep.Study.Targets.Read
	tg := PlanTargets(t, rep.Study.Workload.Prompt)
	if len(tg) == 0 {
		return ""
	}
	return strings.Join(tg, ", ") + fmt.Sprintf(", fitting with %.0f%% of memory free", 100*t.Headroom)
}

func (rep *report) doc(r *ReportJSON) *Doc {
	st := rep.Study
	doc := &Doc{Spaced: true}
	w := st.Workload
	doc.Heading(1, st.Title)
	for _, para := range strings.Split(st.Description, "\n\n") {
		if p := strings.Join(strings.Fields(para), " "); p != "" {
			doc.Para(p)
		}
	}
	passes := "prefill passes as each runtime takes them (its default tokens per pass)"
	if w.UBatch > 0 {
		passes = fmt.Sprintf("prefill passes of %d tokens", w.UBatch)
	}
	doc.Para(fmt.Sprintf("Workload: prompt %d tokens on top of %d cached, %d generated, batch %d, %s.",
		w.Prompt, w.Depth, w.Output, w.Batch, passes))

	// The answer first.
	rep.answer(doc, r)

	if len(r.Plan.Limits) > 0 {
		doc.Heading(3, "Limits per device and model")
		doc.Para("The longest context that fits in memory and that meets the TPOT target, the longest prompt that meets the TTFT target (at the smallest batch planned), and the most sequences that fit at the context given.")
		t := NewTable("device", "engine", "model", "weights", "max context (memory)", "max context (TPOT)", "max prompt (TTFT)", "max batch").Right(4, 5, 6, 7)
		lim := func(v *int) int {
			if v == nil {
				return -1
			}
			return *v
		}
		for _, l := range r.Plan.Limits {
			fit := lim(l.MaxContextFit)
			batch := planLimit(l.MaxBatchFit, fit, "any")
			if l.MaxBatchFit > 0 && l.BatchContext > 0 {
				batch = fmt.Sprintf("%d at %d", l.MaxBatchFit, l.BatchContext)
			}
			fitText := planLimit(fit, fit, "any")
			if l.ContextBound == sim.BoundByModel {
				fitText += " (model max)"
			}
			t.Add(l.Hardware, l.Engine, l.Model, l.Weights, fitText, planLimit(lim(l.MaxContextTPOT), fit, "no target"),
				planLimit(lim(l.MaxPromptTTFT), fit, "no target"), batch)
		}
		doc.Table(t)
	}

	doc.Heading(2, "Predictions at the workload")
	doc.Para("Expected figures at each engine's efficiencies; ideal figures are the physical limit (datasheet bandwidth and dense peak, no overhead).")
	var devices []string
	byDevice := map[string][]study.Prediction{}
	for _, pr := range rep.Predictions {
		d := pr.Result.Inputs.Device
		if _, ok := byDevice[d]; !ok {
			devices = append(devices, d)
		}
		byDevice[d] = append(byDevice[d], pr)
	}
	for _, d := range devices {
		doc.Heading(3, d)
		t := NewTable("engine", "model", "weights", "KV", "TTFT", "ideal TTFT", "TPOT", "ideal TPOT", "E2E", "decode tok/s", "memory", "fits").Right(4, 5, 6, 7, 8, 9, 10)
		for _, pr := range byDevice[d] {
			x, in := pr.Result, pr.Result.Inputs
			t.Add(in.Engine, in.Model, in.Weights, in.KV, withInterval(x.TTFT, x.TTFTInterval), Duration(x.TTFTBound),
				withInterval(x.TPOT, x.TPOTInterval), Duration(x.TPOTBound), withInterval(x.E2E, x.E2EInterval),
				Tokens(x.DecodeTokensPerS), memoryText(x.Memory.Total, x.Memory.Usable), Fits(x.Memory.Fits))
		}
		doc.Table(t)
	}

	rep.opsSection(doc)
	rep.servingSection(doc)

	if len(r.Measured) > 0 {
		doc.Heading(2, "Measured runs")
		doc.Para("MBU is the share of the datasheet bandwidth a run achieved, MFU the share of the dense peak, both from the same byte and FLOP account as the predictions; the bound is the physical limit.")
		for _, m := range r.Measured {
			doc.Heading(3, m.File)
			t := NewTable("run", "test", "device", "model", "weights", "measured tok/s", "predicted", "bound", "measured / predicted", "MBU", "MFU").Right(5, 6, 7, 8, 9, 10)
			for _, run := range m.Runs {
				t.Add(run.Source, runLabel(run), run.Hardware, run.Model, run.Weights, Tokens(run.MeasuredTokensPerS),
					Tokens(run.PredictedTokensPerS), Tokens(run.BoundTokensPerS), Fixed(run.Ratio, 2), Percent(run.MBU), Percent(run.MFU))
			}
			doc.Table(t)
			doc.List(m.Warnings)
		}
	}

	if len(rep.figures) > 0 {
		doc.Heading(2, "Figures")
		for _, f := range rep.figures {
			doc.Figure(f)
		}
	}

	doc.Heading(2, "Assumptions")
	overheads := map[string]string{}
	var runtimes []string
	var inputs []sim.Inputs
	for _, pr := range rep.Predictions {
		in := pr.Result.Inputs
		inputs = append(inputs, in)
		if _, ok := overheads[in.Runtime]; !ok {
			runtimes = append(runtimes, in.Runtime)
		}
		overheads[in.Runtime] = Bytes(pr.Result.Memory.Overhead)
	}
	doc.List(assumptions(inputs))
	var over []string
	for _, rt := range runtimes {
		over = append(over, rt+" "+overheads[rt])
	}
	doc.Para(fmt.Sprintf("Memory: weights + KV cache + peak activations + the runtime's overhead (%s) against usable memory. Method and equations: docs/method.md.", strings.Join(over, ", ")))
	doc.Heading(3, "Devices")
	for _, d := range r.Devices {
		items := []string{fmt.Sprintf("%s (%s)", d.Description, d.File)}
		for _, k := range slices.Sorted(maps.Keys(d.Sources)) {
			items = append(items, k+": "+d.Sources[k])
		}
		items = append(items, d.References...)
		doc.Para(d.Name)
		doc.List(items)
	}
	doc.Heading(3, "Models")
	mt := NewTable("model", "parameters", "active", "layers", "KV per token (f16)", "max context", "source").Right(1, 2, 3, 4, 5)
	for _, m := range r.Models {
		mt.Add(m.Name, Count(m.Params), Count(m.Active), fmt.Sprint(m.Layers), Bytes(m.KVPerToken), fmt.Sprint(m.MaxContext), m.Source)
	}
	doc.Table(mt)

	doc.Heading(2, "Reproduce")
	doc.Para(fmt.Sprintf("Generated by %s from %s with:", buildText(rep.build), r.StudyFile))
	doc.Code(r.Command)
	doc.Para("The same numbers from the individual commands (run from the study's directory):")
	cmds := []string{r.Plan.Command}
	for _, p := range rep.Predictions {
		cmds = append(cmds, rep.cmds.predict(p.Request))
	}
	cmds = append(cmds, rep.servingCommands()...)
	for _, m := range r.Measured {
		cmds = append(cmds, m.Command)
	}
	for _, f := range r.Figures {
		if st.Serve != nil && strings.HasPrefix(f.Kind, "serve-") {
			continue // drawn from the serving runs, listed above
		}
		cmds = append(cmds, f.Command)
	}
	doc.Code(strings.Join(cmds, "\n"))
	if len(r.Notes) > 0 {
		doc.Heading(2, "Notes")
		doc.List(r.Notes)
	}
	return doc
}

// assumptions are the report's lines of what the predictions assume, one
// per device engine and runtime: each precision's dense peak with the
// formats that run at it, the bandwidth, the efficiencies and where they
// come from, and the fixed overheads, which depend on the model's layers:
// per model, those of several models that share them named together.
// (One line per prediction repeated a device's line with 830 µs and
// 1.02 ms per prefill pass and did not say for which model.)
func assumptions(inputs []sim.Inputs) []string {
	type group struct {
		head       string
		precisions []string
		formats    map[string][]string // precision → formats
		peaks      map[string]float64
		overheads  []string
		models     map[string][]string // overheads → models
		tail       string
	}
	var order []string
	groups := map[string]*group{}
	for _, in := range inputs {
		key := fmt.Sprintf("%s|%s|%s|%.4f|%g|%.4f|%s", in.Device, in.Engine, in.Runtime, in.Efficiency.ComputeMax, in.Bandwidth, in.Efficiency.Bandwidth, in.EfficiencyFrom)
		g, ok := groups[key]
		if !ok {
			g = &group{head: fmt.Sprintf("%s %s under %s", in.Device, in.Engine, in.Runtime),
				formats: map[string][]string{}, peaks: map[string]float64{}, models: map[string][]string{},
				tail: fmt.Sprintf("matrix products up to %.2f of it; %s datasheet bandwidth, η_bw %.2f", in.Efficiency.ComputeMax, Bandwidth(in.Bandwidth), in.Efficiency.Bandwidth)}
			g.tail += "; OVERHEADS; efficiency from " + in.EfficiencyFrom + "."
			groups[key] = g
			order = append(order, key)
		}
		prec := string(in.Precision)
		if _, ok := g.peaks[prec]; !ok {
			g.precisions = append(g.precisions, prec)
			g.peaks[prec] = in.Peak
		}
		if !slices.Contains(g.formats[prec], in.Weights) {
			g.formats[prec] = append(g.formats[prec], in.Weights)
		}
		o := Duration(in.PrefillOverhead) + "\x00" + Duration(in.DecodeOverhead)
		if _, ok := g.models[o]; !ok {
			g.overheads = append(g.overheads, o)
		}
		if !slices.Contains(g.models[o], in.Model) {
			g.models[o] = append(g.models[o], in.Model)
		}
	}
	var out []string
	for _, key := range order {
		g := groups[key]
		var peaks []string
		for _, p := range g.precisions {
			s := p + " at " + Ops(g.peaks[p], units.Precision(p))
			if len(g.precisions) > 1 {
				s += " (" + strings.Join(g.formats[p], ", ") + ")"
			}
			peaks = append(peaks, s)
		}
		pass, step, _ := strings.Cut(g.overheads[0], "\x00")
		over := fmt.Sprintf("overheads %s per prefill pass, %s per decode step", pass, step)
		if len(g.overheads) > 1 {
			var per []string
			for _, o := range g.overheads {
				pass, step, _ := strings.Cut(o, "\x00")
				per = append(per, fmt.Sprintf("%s and %s (%s)", pass, step, strings.Join(g.models[o], ", ")))
			}
			over = "overheads per prefill pass and decode step, by the model's layers: " + strings.Join(per, ", ")
		}
		out = append(out, fmt.Sprintf("%s: %s dense peak, %s", g.head, strings.Join(peaks, " and "), strings.Replace(g.tail, "OVERHEADS", over, 1)))
	}
	return out
}

// buildText says which roofline made the report: its version, the commit
// it was built from and whether that tree was modified (results.json adds
// the toolchain and platform).
func buildText(b buildinfo.Info) string {
	s := "roofline " + b.Version
	if b.Revision != "" {
		s += " (commit " + b.Revision
		if b.Time != "" {
			s += " of " + b.Time
		}
		if b.Modified {
			s += ", with uncommitted changes"
		}
		s += ")"
	} else {
		s += " (a build that recorded no commit: go test, go run or -buildvcs=false)"
	}
	return s
}

// runLabel names a compared run as compare does (pp512, tg128 @ d4096 ×4).
func runLabel(run ComparisonJSON) string {
	return measured.Run{Test: measured.Test(run.Test), Prompt: run.PromptTokens, Gen: run.GenTokens, Depth: run.Depth, Batch: run.Batch}.TestName()
}

// writeResultsCSV writes the rows of results.csv after the plan's: the
// limits, predictions and measured runs.
func (rep *report) writeResultsCSV(w *ReportWriter, r *ReportJSON) {
	for _, l := range r.Plan.Limits {
		for _, x := range []struct {
			m string
			v *int
		}{{"max_context_fit", l.MaxContextFit}, {"max_context_tpot", l.MaxContextTPOT}, {"max_prompt_ttft", l.MaxPromptTTFT}} {
			if x.v != nil {
				w.row("limits", l.Hardware, l.Engine, l.Model, l.Weights, l.KV, 0, l.Batch, x.m, float64(*x.v), "tokens")
			}
		}
		w.row("limits", l.Hardware, l.Engine, l.Model, l.Weights, l.KV, 0, l.Batch, "max_batch_fit", float64(l.MaxBatchFit), "sequences")
	}
	for _, p := range rep.Predictions {
		x, in := p.Result, p.Result.Inputs
		wl := in.Workload
		for _, v := range []struct {
			m    string
			v    float64
			unit string
		}{{"ttft", x.TTFT, "s"}, {"ttft_ideal", x.TTFTBound, "s"}, {"tpot", x.TPOT, "s"}, {"tpot_ideal", x.TPOTBound, "s"}, {"e2e", x.E2E, "s"},
			{"decode_tokens_per_s", x.DecodeTokensPerS, "tokens/s"}, {"memory", x.Memory.Total, "B"}, {"usable_memory", x.Memory.Usable, "B"},
			{"fits", b2f(x.Memory.Fits), "bool"}, {"peak", in.Peak, "FLOP/s"}, {"bandwidth", in.Bandwidth, "B/s"},
			{"bandwidth_efficiency", in.Efficiency.Bandwidth, ""}, {"compute_efficiency", in.Efficiency.ComputeMax, ""}} {
			w.row("predict", in.Device, in.Engine, in.Model, in.Weights, in.KV, wl.Context(), wl.Batch, v.m, v.v, v.unit)
		}
	}
	rep.servingCSV(w)
	for _, m := range r.Measured {
		for _, run := range m.Runs {
			ctx := run.Depth + run.PromptTokens + run.GenTokens
			for _, v := range []struct {
				m    string
				v    float64
				unit string
			}{{"measured", run.MeasuredTokensPerS, "tokens/s"}, {"predicted", run.PredictedTokensPerS, "tokens/s"}, {"bound", run.BoundTokensPerS, "tokens/s"},
				{"mbu", run.MBU, ""}, {"mfu", run.MFU, ""}} {
				w.row("measured "+run.Source+" "+runLabel(run), run.Hardware, run.Engine, run.Model, run.Weights, run.KV, ctx, run.Batch, v.m, v.v, v.unit)
			}
		}
	}
}
