package main

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/plot/vg"

	"github.com/roofline/roofline/cmd/roofline/internal/atomicfile"
	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/cmd/roofline/internal/plots"
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

const plotUsage = `roofline plot KIND [flags] -o FILE.png|.svg|.pdf

Draws one figure from the same predictions as predict, compare and plan.
--model, --hardware and --weights take comma-separated lists; every
combination becomes one series with a legend entry. Expected curves are
solid, the physical limit (100 % of peak, no overhead) dashed; targets are
red reference lines; --measured files (any format compare reads) add the
measured points, labelled with their MBU. The same inputs give
byte-identical SVG.

Kinds:
  roofline      attainable FLOP/s against arithmetic intensity with the
                operating points of prefill and of decode at batch 1 … N
  tpot-context  time per output token as the KV cache grows
  ttft-prompt   time to first token against prompt length
  batch         throughput and per-sequence TPOT against batch size
  memory        weights, KV cache, activations and overhead against usable
                memory, per configuration and --context
  compare       predicted against measured tokens/s, and MBU per run
  plan          the feasible region of a plan (plan's flags)
  chat          per-turn TTFT and cumulative latency of a conversation under
                keep-kv, prefix-cache and recompute (chat's flags)
  concurrency   per-chat TPOT and TTFT against concurrent chats sharing the
                device (continuous batching), with the memory limit
  speculative   speed-up of speculative decoding against the acceptance
                rate for several numbers of drafted tokens, with the
                break-even acceptance of each

Examples:
  roofline plot tpot-context --model llama-3.2-3b --hardware jetson-orin-nano-super-8gb,rk3588 --weights q4_k_m -o tpot.png
  roofline plot roofline --model llama-3.1-8b --hardware rtx-4090 --measured bench.json -o roofline.svg
  roofline plot plan --model llama-3.2-3b --hardware jetson-*,rk3588 --weights all --ttft 1s --tpot 200ms -o plan.pdf`

func plotFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the figure to `FILE` (.png, .svg or .pdf) (required)"},
		&cli.StringFlag{Name: "width", Value: "16cm", Usage: "figure width (`LENGTH`: cm, mm, in or pt)"},
		&cli.StringFlag{Name: "height", Usage: "figure height (`LENGTH`); default: 10cm, 14cm for the two-panel batch, compare, chat and concurrency"},
		&cli.StringFlag{Name: "title", Usage: "replace the generated title"},
		&cli.StringFlag{Name: "data", Usage: "also write every plotted number to `FILE`.csv (series, quantity, x, y with units, label)"},
	}
}

func seriesFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "models: `LIST` of names, Hugging Face ids or files (required)"},
		&cli.StringFlag{Name: "hardware", Aliases: []string{"hw"}, Usage: "devices: `LIST` of names, globs (jetson-*) or files (required)"},
		&cli.StringFlag{Name: "runtime", Usage: "inference `RUNTIME` (roofline list runtimes); default: chosen for each model, format and device"},
		&cli.StringFlag{Name: "engine", Usage: "compute engines (`LIST`: gpu, cpu, npu); default: each device's default engine, or the first that runs the weights"},
		&cli.StringFlag{Name: "weights", Usage: "weight formats `LIST`; default: each engine's default_weights, else the checkpoint"},
		&cli.StringFlag{Name: "kv", Usage: "KV-cache format `FMT`; default: the engine's default_kv, else f16"},
		&cli.IntFlag{Name: "prompt", Aliases: []string{"p"}, Value: sim.DefaultWorkload.Prompt, Usage: "prompt tokens per sequence"},
		&cli.IntFlag{Name: "output", Aliases: []string{"n"}, Value: sim.DefaultWorkload.Output, Usage: "generated tokens per sequence"},
		&cli.IntFlag{Name: "batch", Aliases: []string{"b"}, Value: sim.DefaultWorkload.Batch, Usage: "concurrent sequences"},
		&cli.IntFlag{Name: "depth", Aliases: []string{"d"}, Value: sim.DefaultWorkload.Depth, Usage: "tokens already in each sequence's KV cache"},
		&cli.IntFlag{Name: "ubatch", Value: sim.DefaultWorkload.UBatch, Usage: "tokens per prefill pass"},
		&cli.Float64Flag{Name: "bw-efficiency", Usage: "share of datasheet bandwidth achieved, in (0, 1]; default: the engine's"},
		&cli.Float64Flag{Name: "compute-efficiency", Usage: "share of peak compute achieved, in (0, 1]; default: the engine's"},
		&cli.StringFlag{Name: "overhead", Usage: "runtime memory `SIZE` beyond weights, KV and activations; default: the runtime's"},
		&cli.BoolFlag{Name: "no-flash-attn", Usage: "price unfused attention (KV read once per query head)"},
		&cli.StringFlag{Name: "ttft", Usage: "TTFT target drawn as a reference line (`DURATION`, e.g. 1s)"},
		&cli.StringFlag{Name: "tpot", Usage: "TPOT target drawn as a reference line (`DURATION`, e.g. 200ms)"},
		&cli.StringSliceFlag{Name: "measured", Usage: "measured runs to draw over the predictions (`FILE`, any format compare reads; repeatable)"},
	}
}

func plotCommand() *cli.Command {
	kind := func(name, usage string, action func(*cli.Context) (*plots.Figure, error), extra ...cli.Flag) *cli.Command {
		flags := append(plotFlags(), extra...)
		if name != "plan" && name != "compare" && name != "chat" && name != "speculative" {
			flags = append(flags, seriesFlags()...)
		}
		return &cli.Command{Name: name, Usage: usage, Flags: flags, UsageText: "roofline plot " + name + " [flags] -o FILE", Action: plotAction(action)}
	}
	return &cli.Command{
		Name:      "plot",
		Usage:     "draw roofline charts, latency curves, memory, comparisons and plans (PNG, SVG, PDF)",
		UsageText: plotUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageErr("give a kind: roofline plot KIND (%s)", strings.Join(plots.Kinds, ", "))
			}
			return usageErr("unknown plot kind %q (kinds: %s)", c.Args().First(), strings.Join(plots.Kinds, ", "))
		},
		Subcommands: []*cli.Command{
			kind("roofline", "attainable FLOP/s against arithmetic intensity, with operating points", plotRoofline,
				&cli.IntFlag{Name: "max-batch", Value: 256, Usage: "largest decode batch placed on the chart (batches 1, 16, 256, …)"}),
			kind("tpot-context", "time per output token against context length", plotTPOTContext,
				&cli.StringFlag{Name: "max-context", Usage: "longest context drawn (`N`, k = 1024); default: the model's"}),
			kind("ttft-prompt", "time to first token against prompt length", plotTTFTPrompt,
				&cli.StringFlag{Name: "max-prompt", Value: "32k", Usage: "longest prompt drawn (`N`, k = 1024)"}),
			kind("batch", "throughput and per-sequence TPOT against batch size", plotBatch,
				&cli.IntFlag{Name: "max-batch", Value: 256, Usage: "largest batch drawn"}),
			kind("memory", "memory use against usable memory", plotMemory,
				&cli.StringFlag{Name: "context", Usage: "contexts per sequence (`LIST`, k = 1024); default: prompt + depth + output"}),
			kind("compare", "predicted against measured tokens/s, and MBU per run", plotCompare,
				&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `NAME` or file for every run; default: matched from the file"},
				&cli.StringFlag{Name: "hardware", Aliases: []string{"hw"}, Usage: "device `NAME` the runs were measured on (unless the file says)"},
				&cli.StringFlag{Name: "engine", Usage: "compute `ENGINE`; default: from the backend"},
				&cli.StringFlag{Name: "weights", Usage: "weight format `FMT` for every run"},
				&cli.StringFlag{Name: "kv", Usage: "KV-cache format `FMT` for every run"},
				&cli.StringSliceFlag{Name: "measured", Usage: "measured runs (`FILE`; or give files as arguments)"}),
			kind("plan", "the feasible region of a plan", plotPlan, planFlags()...),
			kind("chat", "per-turn TTFT and cumulative latency of a conversation under each history strategy", plotChat, chatPlotFlags()...),
			kind("speculative", "speculative decoding's speed-up against the acceptance rate, per number of drafted tokens", plotSpeculative, speculativePlotFlags()...),
			kind("concurrency", "per-chat TPOT and TTFT against the number of concurrent chats", plotConcurrency,
				&cli.IntFlag{Name: "max-chats", Value: 32, Usage: "largest number of concurrent chats drawn"}),
		},
	}
}

// plotAction wraps a kind: it parses the size and output, builds the
// figure and saves it atomically.
func plotAction(build func(*cli.Context) (*plots.Figure, error)) cli.ActionFunc {
	return func(c *cli.Context) error {
		out := c.String("out")
		if out == "" {
			return usageErr("-o FILE is required (.png, .svg or .pdf)")
		}
		if _, err := plots.FormatOf(out); err != nil {
			return usageErr("-o %v", err)
		}
		if d := c.String("data"); d != "" && !strings.EqualFold(filepath.Ext(d), ".csv") {
			return usageErr("--data %s: want a .csv file", d)
		}
		w, err := parseLength("width", c.String("width"))
		if err != nil {
			return err
		}
		height := c.String("height")
		if height == "" {
			height = "10cm"
			if name := c.Command.Name; name == "batch" || name == "compare" || name == "chat" || name == "concurrency" {
				height = "14cm"
			}
		}
		h, err := parseLength("height", height)
		if err != nil {
			return err
		}
		if c.Command.Name != "compare" {
			if err := noExtraArgs(c, 0); err != nil {
				return err
			}
		}
		f, err := build(c)
		if err != nil {
			return err
		}
		if t := c.String("title"); t != "" {
			f.Title = t
		}
		if !c.IsSet("height") {
			h = f.Height(w, h) // room for the legend, facets and rows
		}
		format, _ := plots.FormatOf(out)
		img, err := plots.Render(f, format, w, h)
		if err != nil {
			return err
		}
		files := []atomicfile.File{{Path: out, Data: img}}
		if d := c.String("data"); d != "" {
			files = append(files, atomicfile.File{Path: d, Data: f.CSV()})
		}
		if err := atomicfile.WriteAll(files...); err != nil {
			return err
		}
		for _, f := range files {
			fmt.Fprintf(c.App.Writer, "wrote %s\n", f.Path)
		}
		return nil
	}
}

// parseLength reads 16cm, 160mm, 6in or 450pt.
func parseLength(flag, s string) (vg.Length, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	for _, u := range []struct {
		suffix string
		unit   vg.Length
	}{{"cm", vg.Centimeter}, {"mm", vg.Millimeter}, {"in", vg.Inch}, {"pt", vg.Points(1)}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || !(v > 0) || v > 1e4 {
				break
			}
			l := vg.Length(v) * u.unit
			if l < 4*vg.Centimeter || l > 200*vg.Centimeter {
				return 0, usageErr("--%s %q: want between 4 cm and 2 m", flag, s)
			}
			return l, nil
		}
	}
	return 0, usageErr("--%s %q: want a length such as 16cm, 160mm, 6in or 450pt", flag, s)
}

// series is one combination of model, device and formats.
type series struct {
	label string
	facet string // the small multiple it is drawn in (plots.Name)
	setup *sim.Setup
	spec  *model.Spec
	dev   *hardware.Device
}

type seriesSet struct {
	list     []series
	workload sim.Workload
	targets  sim.Targets
	common   string // what every series shares, for the title
	opts     sim.Options
	c        *cli.Context
}

// resolveSeries builds every combination of --model × --hardware ×
// --weights, naming each by what varies.
func resolveSeries(c *cli.Context) (*seriesSet, error) {
	for _, f := range []string{"model", "hardware"} {
		if c.String(f) == "" {
			return nil, usageErr("--%s is required", f)
		}
	}
	opts, err := simOptions(c)
	if err != nil {
		return nil, err
	}
	ss := &seriesSet{c: c, workload: sim.Workload{Prompt: c.Int("prompt"), Output: c.Int("output"), Batch: c.Int("batch"), Depth: c.Int("depth"), UBatch: c.Int("ubatch")}}
	if err := ss.workload.Validate(); err != nil {
		return nil, usageErr("%v", err)
	}
	if ss.targets.TTFT, err = parseDurationFlag(c, "ttft"); err != nil {
		return nil, err
	}
	if ss.targets.TPOT, err = parseDurationFlag(c, "tpot"); err != nil {
		return nil, err
	}
	cat, err := catalog(c)
	if err != nil {
		return nil, err
	}
	devs, derr := plan.ResolveDevices(cat, plan.ParseList(c.String("hardware")))
	models, merr := plan.ResolveModels(cat, plan.ParseList(c.String("model")))
	if derr != nil || merr != nil {
		return nil, joinErrs(derr, merr)
	}
	weights := plan.ParseList(c.String("weights"))
	if len(weights) == 0 {
		weights = []string{""}
	}
	for _, w := range weights {
		if _, err := lookupWeights(w); w != "" && err != nil {
			return nil, fmt.Errorf("--weights: %w", err)
		}
	}
	ss.opts = opts
	type key struct{ m, d, w, kv, e string }
	var keys []key
	engines := plan.ParseList(c.String("engine"))
	for _, spec := range models {
		for _, dev := range devs {
			for _, w := range weights {
				setups, err := seriesSetups(cat, dev, spec, engines, c.String("runtime"), w, c.String("kv"), ss.opts)
				if err != nil {
					return nil, err
				}
				for _, s := range setups {
					ss.list = append(ss.list, series{setup: s, spec: spec, dev: dev})
					keys = append(keys, key{spec.Name, dev.Name, s.Model.Weights.Name, s.Model.KV.Name, s.Engine.Name})
				}
			}
		}
	}
	// Label by what varies, facet past plots.MaxSeries; the rest goes in
	// the title.
	dims := []plots.Dim{{Name: "device"}, {Name: "engine", Prefix: "engine "}, {Name: "model"}, {Name: "weights", Prefix: "weights "}, {Name: "KV", Prefix: "KV "}}
	vals := make([][]string, len(keys))
	for i, k := range keys {
		vals[i] = []string{k.d, k.e, k.m, k.w, k.kv}
	}
	names, err := plots.Name(dims, vals)
	if err != nil {
		return nil, usageErr("%v; narrow --model, --hardware, --engine or --weights", err)
	}
	for i := range ss.list {
		ss.list[i].label, ss.list[i].facet = names.Labels[i], names.Facets[i]
		if ss.list[i].label == "" {
			ss.list[i].label = keys[i].m + " on " + keys[i].d
		}
	}
	ss.common = names.Common
	return ss, nil
}

// seriesSetups resolves one model in one weight format on one device: on
// each listed engine the device has, or, with no list, on the engine the
// runtime rule chooses.
func seriesSetups(cat *profiles.Catalog, dev *hardware.Device, spec *model.Spec, engines []string, rt, w, kvFlag string, o sim.Options) ([]*sim.Setup, error) {
	if len(engines) == 0 {
		engines = []string{""}
	}
	var out []*sim.Setup
	var lastErr error
	for _, en := range engines {
		if en != "" {
			if _, err := dev.Engine(en); err != nil {
				continue // a listed engine this device does not have
			}
		}
		r, err := resolve.Spec(cat, spec, dev, resolve.Selection{Runtime: rt, Engine: en, Weights: w, KV: kvFlag, Options: o})
		if err != nil {
			lastErr = err
			continue
		}
		out = append(out, r.Setup)
	}
	if len(out) == 0 {
		if lastErr == nil {
			return nil, usageErr("--engine %s: device %s has none of these engines (it has %s)", strings.Join(engines, ","), dev.Name, strings.Join(dev.EngineNames(), ", "))
		}
		return nil, lastErr
	}
	return out, nil
}

func joinErrs(errs ...error) error {
	var msgs []string
	for _, e := range errs {
		if e != nil {
			msgs = append(msgs, e.Error())
		}
	}
	return fmt.Errorf("%s", strings.Join(msgs, "\n"))
}

// efficiencies says what the expected curves assume.
func (ss *seriesSet) efficiencies() string {
	var parts []string
	seen := map[string]bool{}
	for _, s := range ss.list {
		in := s.setup.Inputs
		p := fmt.Sprintf("%s: η_bw %.2f, η_max %.2f", in.Runtime, in.Efficiency.Bandwidth, in.Efficiency.ComputeMax)
		if in.Calibrated {
			p += " (calibrated)"
		}
		if !seen[p] {
			seen[p] = true
			parts = append(parts, p)
		}
	}
	if len(parts) > 2 {
		return "each engine's efficiencies"
	}
	return strings.Join(parts, " / ")
}

func (ss *seriesSet) title(what, workload string) string {
	t := what
	if ss.common != "" {
		t += ": " + ss.common
	}
	eff := "expected at " + ss.efficiencies()
	if len(workload)+len(eff) > 80 {
		return t + "\n" + workload + "\n" + eff
	}
	return t + "\n" + workload + "; " + eff
}

// measuredRows reads --measured files and compares each run, keeping the
// rows that belong to series i (same device and model, and weights when
// the series differ by weights).
func (ss *seriesSet) measuredRows() ([][]compare.Row, error) {
	files := ss.c.StringSlice("measured")
	out := make([][]compare.Row, len(ss.list))
	if len(files) == 0 {
		return out, nil
	}
	runs, err := readRuns(ss.c, files)
	if err != nil {
		return nil, err
	}
	cat, err := catalog(ss.c)
	if err != nil {
		return nil, err
	}
	hw := ""
	if len(ss.list) > 0 && sameDevice(ss.list) {
		hw = ss.list[0].dev.Name
	}
	fallback := ""
	if len(ss.list) > 0 && sameModel(ss.list) {
		fallback = ss.list[0].spec.Name
	}
	fallbackWeights := ""
	if len(ss.list) > 0 && !weightsVary(ss.list) {
		fallbackWeights = ss.list[0].setup.Model.Weights.Name
	}
	ev := compare.New(cat, compare.Options{Hardware: hw, FallbackModel: fallback, FallbackWeights: fallbackWeights, Sim: ss.opts})
	rows, errs := ev.Evaluate(runs)
	for _, e := range errs {
		fmt.Fprintf(ss.c.App.ErrWriter, "roofline: warning: %v\n", e)
	}
	placed := 0
	for _, r := range rows {
		for i, s := range ss.list {
			if r.Hardware == s.dev.Name && r.Model == s.spec.Name && (len(ss.list) == 1 || r.Weights == s.setup.Model.Weights.Name || !weightsVary(ss.list)) {
				out[i] = append(out[i], r)
				placed++
				break
			}
		}
	}
	if placed < len(rows) {
		fmt.Fprintf(ss.c.App.ErrWriter, "roofline: warning: %d of %d measured runs match no plotted series (device, model and weights must match)\n", len(rows)-placed, len(rows))
	}
	return out, nil
}

func sameModel(l []series) bool {
	for _, s := range l {
		if s.spec != l[0].spec {
			return false
		}
	}
	return true
}

func sameDevice(l []series) bool {
	for _, s := range l {
		if s.dev != l[0].dev {
			return false
		}
	}
	return true
}

func weightsVary(l []series) bool {
	for _, s := range l {
		if s.setup.Model.Weights.Name != l[0].setup.Model.Weights.Name {
			return true
		}
	}
	return false
}

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

func mbuLabel(r compare.Row) string {
	if r.Run.Test == measured.Prefill {
		return fmt.Sprintf("MFU %.0f%%", 100*r.MFU)
	}
	return fmt.Sprintf("MBU %.0f%%", 100*r.MBU)
}

func plotTPOTContext(c *cli.Context) (*plots.Figure, error) {
	ss, err := resolveSeries(c)
	if err != nil {
		return nil, err
	}
	maxCtx := 0
	if s := c.String("max-context"); s != "" {
		if maxCtx, err = parseTokens(s); err != nil {
			return nil, usageErr("--max-context: %v", err)
		}
	}
	rows, err := ss.measuredRows()
	if err != nil {
		return nil, err
	}
	b := ss.workload.Batch
	var curves []plots.Curve
	for i, s := range ss.list {
		hi := maxCtx
		if hi == 0 {
			hi = s.spec.MaxContext
		}
		if hi < 256 {
			return nil, usageErr("--max-context %d: want at least 256", hi)
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
			pts = append(pts, plots.Point{X: float64(x), Y: float64(r.Run.Batch) / r.Measured * 1e3, Label: mbuLabel(r)})
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
	return plots.Latency(title, "context (tokens attended by the step)", "TPOT (ms)", curves, ss.targets.TPOT*1e3,
		"TPOT target "+units.FormatDuration(ss.targets.TPOT), false)
}

func plotTTFTPrompt(c *cli.Context) (*plots.Figure, error) {
	ss, err := resolveSeries(c)
	if err != nil {
		return nil, err
	}
	maxP, err := parseTokens(c.String("max-prompt"))
	if err != nil || maxP < 64 {
		return nil, usageErr("--max-prompt %q: want a token count of at least 64", c.String("max-prompt"))
	}
	rows, err := ss.measuredRows()
	if err != nil {
		return nil, err
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
			cv.Measured = append(cv.Measured, plots.Point{X: float64(r.Run.Prompt), Y: float64(r.Run.Prompt*r.Run.Batch) / r.Measured, Label: mbuLabel(r)})
		}
		curves = append(curves, cv)
	}
	title := ss.title("Time to first token against prompt length", fmt.Sprintf("batch %d, depth %d, ubatch %d", w.Batch, w.Depth, w.UBatch))
	return plots.Latency(title, "prompt (tokens)", "TTFT (s)", curves, ss.targets.TTFT,
		"TTFT target "+units.FormatDuration(ss.targets.TTFT), true)
}

func plotBatch(c *cli.Context) (*plots.Figure, error) {
	ss, err := resolveSeries(c)
	if err != nil {
		return nil, err
	}
	maxB := c.Int("max-batch")
	if maxB < 2 || maxB > 1<<16 {
		return nil, usageErr("--max-batch %d: want 2 … 65536", maxB)
	}
	w := ss.workload
	rows, err := ss.measuredRows()
	if err != nil {
		return nil, err
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
				return nil, err
			}
			if w.Output < 2 {
				return nil, usageErr("--output must be at least 2 for a batch plot (TPOT needs a decode step)")
			}
			a.Expected = append(a.Expected, r.ThroughputTokensPerS)
			a.Ideal = append(a.Ideal, float64(b)/r.TPOTBound)
			t.Expected = append(t.Expected, r.TPOT*1e3)
			t.Ideal = append(t.Ideal, r.TPOTBound*1e3)
			if a.Switch == 0 && r.ComputeBoundBatch > 0 && r.ComputeBoundBatch <= maxB {
				a.Switch, t.Switch = float64(r.ComputeBoundBatch), float64(r.ComputeBoundBatch)
			}
		}
		l := s.setup.PlanLimits(1, w.Depth+w.Prompt+w.Output, w.Prompt, w.Output, w.UBatch, sim.Targets{})
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
			a.Measured = append(a.Measured, plots.Point{X: b, Y: r.Measured, Label: mbuLabel(r)})
			t.Measured = append(t.Measured, plots.Point{X: b, Y: b / r.Measured * 1e3})
		}
		tput, tpot = append(tput, a), append(tpot, t)
	}
	title := ss.title("Batching: aggregate throughput and per-sequence TPOT", fmt.Sprintf("prompt %d + depth %d, output %d", w.Prompt, w.Depth, w.Output))
	return plots.Batch(title, tput, tpot, ss.targets.TPOT*1e3)
}

func plotMemory(c *cli.Context) (*plots.Figure, error) {
	ss, err := resolveSeries(c)
	if err != nil {
		return nil, err
	}
	w := ss.workload
	contexts := []int{w.Depth + w.Prompt + w.Output}
	if s := c.String("context"); s != "" {
		if contexts, err = parseIntList("context", s); err != nil {
			return nil, err
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
				return nil, err
			}
			label := s.label
			if len(contexts) > 1 {
				label = strings.TrimPrefix(label+" · ", s.spec.Name+" on "+s.dev.Name+" · ") + contextLabel(ctx)
				if len(ss.list) == 1 {
					label = contextLabel(ctx)
				}
			}
			m := r.Memory
			bars = append(bars, plots.MemoryBar{Label: label, Facet: s.facet, Weights: m.Weights, KV: m.KV, Activations: m.Activations, Overhead: m.Overhead, Usable: m.Usable})
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
	title := ss.title("Memory against usable memory", fmt.Sprintf("batch %d, ubatch %d%s%s", w.Batch, w.UBatch, over, strings.Repeat(" ", 80)))
	title = strings.TrimRight(strings.SplitN(title, "\nexpected at", 2)[0], " ")
	return plots.Memory(title, bars)
}

func contextLabel(ctx int) string {
	if ctx%1024 == 0 {
		return fmt.Sprintf("%dk ctx", ctx/1024)
	}
	return fmt.Sprintf("%d ctx", ctx)
}

func plotRoofline(c *cli.Context) (*plots.Figure, error) {
	ss, err := resolveSeries(c)
	if err != nil {
		return nil, err
	}
	maxB := c.Int("max-batch")
	if maxB < 1 || maxB > 1<<16 {
		return nil, usageErr("--max-batch %d: want 1 … 65536", maxB)
	}
	rows, err := ss.measuredRows()
	if err != nil {
		return nil, err
	}
	w := ss.workload
	var roofs []plots.Roof
	roofOf := map[string]int{}
	var points []plots.OpPoint
	roofKey := func(s series) string {
		return fmt.Sprintf("%s %s %s", s.dev.Name, s.setup.Inputs.Engine, s.setup.Inputs.Precision)
	}
	shared := map[string]int{}
	for _, s := range ss.list {
		shared[s.facet+"|"+roofKey(s)]++
	}
	for i, s := range ss.list {
		in := s.setup.Inputs
		key := roofKey(s)
		ri, ok := roofOf[s.facet+"|"+key]
		if !ok {
			ri = len(roofs)
			roofOf[s.facet+"|"+key] = ri
			roofs = append(roofs, plots.Roof{Label: key, Peak: in.Peak, Bandwidth: s.dev.Bandwidth, Facet: s.facet})
		}
		// Name the points only when several series share a roof.
		tag := ""
		if shared[s.facet+"|"+key] > 1 {
			tag = s.label
		}
		pre := s.setup.Prefill(w.Prompt, w.Depth, w.Batch, w.UBatch)
		points = append(points, plots.OpPoint{Roof: ri, Intensity: pre.Intensity, FLOPPerS: pre.FLOPs / pre.Time, Label: fmt.Sprintf("pp%d", w.Prompt), Series: tag})
		ctx := w.Depth + w.Prompt + w.Output/2
		for b := 1; b <= maxB; b *= 16 {
			d := s.setup.Decode(ctx, 1, b)
			points = append(points, plots.OpPoint{Roof: ri, Intensity: d.Intensity, FLOPPerS: d.FLOPs / d.Time, Label: fmt.Sprintf("b%d", b), Series: tag})
		}
		for _, r := range rows[i] {
			if r.AchievedBytesPerS > 0 && r.AchievedFLOPPerS > 0 {
				points = append(points, plots.OpPoint{Roof: ri, Intensity: r.AchievedFLOPPerS / r.AchievedBytesPerS, FLOPPerS: r.AchievedFLOPPerS, Label: mbuLabel(r), Measured: true})
			}
		}
	}
	title := ss.title("Roofline", fmt.Sprintf("pp%d: prefill of %d tokens; bN: decode at batch N, context %d", w.Prompt, w.Prompt, w.Depth+w.Prompt+w.Output/2))
	return plots.Roofline(title, roofs, points)
}

func plotCompare(c *cli.Context) (*plots.Figure, error) {
	files := append(c.StringSlice("measured"), c.Args().Slice()...)
	if len(files) == 0 {
		return nil, usageErr("give measured-run files as arguments or with --measured")
	}
	cat, err := catalog(c)
	if err != nil {
		return nil, err
	}
	runs, err := readRuns(c, files)
	if err != nil {
		return nil, err
	}
	ev := compare.New(cat, compare.Options{Hardware: c.String("hardware"), Engine: c.String("engine"), Model: c.String("model"),
		Weights: c.String("weights"), KV: c.String("kv"), Sim: sim.DefaultOptions})
	rows, errs := ev.Evaluate(runs)
	for _, e := range errs {
		fmt.Fprintf(c.App.ErrWriter, "roofline: warning: %v\n", e)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no run could be compared (%d skipped; see the warnings above)", len(errs))
	}
	var groups []string
	gi := map[string]int{}
	var cmp []plots.Comparison
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
		label := testName(r.Run)
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
		cmp = append(cmp, pc)
	}
	s := compare.Summarize(rows)
	title := fmt.Sprintf("Predicted against measured: %d runs\ndecode MdAPE %.1f%% (n=%d), prefill MdAPE %.1f%% (n=%d); default efficiencies unless calibrated",
		len(rows), 100*s.Decode.MdAPE, s.Decode.N, 100*s.Prefill.MdAPE, s.Prefill.N)
	return plots.Compare(title, groups, cmp)
}

func plotPlan(c *cli.Context) (*plots.Figure, error) {
	sp, t, err := planSpace(c)
	if err != nil {
		return nil, err
	}
	res, err := plan.Run(sp, t)
	if err != nil {
		return nil, err
	}
	var rows []string
	var cells []plots.PlanCell
	batches := map[int]bool{}
	for _, g := range res.Groups {
		for _, cf := range g.Configs {
			batches[cf.Batch] = true
		}
	}
	var bl []int
	for b := range batches {
		bl = append(bl, b)
	}
	sort.Ints(bl)
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
				cells = append(cells, plots.PlanCell{Row: row, Context: cf.Context, Limit: cf.Limit.String()})
			}
		}
	}
	if len(rows) > 40 {
		return nil, usageErr("the plan has %d rows (device · model · format): plot at most 40; narrow --hardware, --model or --weights", len(rows))
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
	title := fmt.Sprintf("Plan: %s\n%s; prompt %d, output %d; first failing constraint per configuration", strings.Join(tg, ", "), strings.Join(common, ", "), sp.Prompt, sp.Output)
	return plots.Plan(title, rows, cells)
}

func chatPlotFlags() []cli.Flag {
	return append(setupFlags(),
		&cli.IntFlag{Name: "turns", Value: 20, Usage: "turns in the conversation"},
		&cli.IntFlag{Name: "system-tokens", Value: 500, Usage: "system prompt tokens"},
		&cli.IntFlag{Name: "user-tokens", Value: 50, Usage: "tokens of each user message"},
		&cli.IntFlag{Name: "reply-tokens", Value: 150, Usage: "tokens of each reply"},
		&cli.IntFlag{Name: "ubatch", Value: sim.DefaultWorkload.UBatch, Usage: "tokens per prefill pass"},
		&cli.StringFlag{Name: "ttft", Value: "1s", Usage: "TTFT target drawn as a reference line (`DURATION`)"},
	)
}

func plotChat(c *cli.Context) (*plots.Figure, error) {
	conv := sim.Conversation{Turns: c.Int("turns"), System: c.Int("system-tokens"), User: c.Int("user-tokens"), Reply: c.Int("reply-tokens"), UBatch: c.Int("ubatch")}
	if err := conv.Validate(); err != nil {
		return nil, usageErr("%v", err)
	}
	if conv.Turns < 2 {
		return nil, usageErr("--turns %d: a conversation plot needs at least 2 turns", conv.Turns)
	}
	target, err := parseDurationFlag(c, "ttft")
	if err != nil {
		return nil, err
	}
	cat, err := catalog(c)
	if err != nil {
		return nil, err
	}
	s, err := resolveSetup(c, cat, "model", c.String("weights"))
	if err != nil {
		return nil, err
	}
	var ttft, cum []plots.Curve
	var limit int
	for _, st := range sim.Strategies {
		res, err := s.Chat(conv, st)
		if err != nil {
			return nil, err
		}
		limit = res.Limit
		a := plots.Curve{Label: string(st)}
		b := plots.Curve{Label: string(st)}
		for _, t := range res.Turns {
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
	return plots.Stacked(title, "turn", false,
		plots.Panel{YLabel: "TTFT (s)", Curves: ttft, Target: target, TargetLabel: "TTFT target " + units.FormatDuration(target), LogY: true},
		plots.Panel{YLabel: "Σ E2E (s)", Curves: cum})
}

func plotConcurrency(c *cli.Context) (*plots.Figure, error) {
	ss, err := resolveSeries(c)
	if err != nil {
		return nil, err
	}
	maxN := c.Int("max-chats")
	if maxN < 2 || maxN > 4096 {
		return nil, usageErr("--max-chats %d: want 2 … 4096", maxN)
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
	return plots.Stacked(title, "concurrent chats", true,
		plots.Panel{YLabel: "TPOT per chat (ms)", Curves: tpot, Target: ss.targets.TPOT * 1e3, TargetLabel: "TPOT target " + units.FormatDuration(ss.targets.TPOT), LogY: true},
		plots.Panel{YLabel: "TTFT (s)", Curves: ttft, Target: ss.targets.TTFT, TargetLabel: "TTFT target " + units.FormatDuration(ss.targets.TTFT), LogY: true})
}

func speculativePlotFlags() []cli.Flag {
	return append(setupFlags(),
		&cli.StringFlag{Name: "draft", Usage: "draft `MODEL` (required)"},
		&cli.StringFlag{Name: "draft-weights", Usage: "weight format `FMT` of the draft; default: the target's"},
		&cli.StringFlag{Name: "draft-tokens", Value: "1,2,4,8", Usage: "drafted tokens per round, one curve each (`LIST`)"},
		&cli.IntFlag{Name: "context", Value: 1024, Usage: "tokens the step attends (the KV cache)"},
		&cli.IntFlag{Name: "batch", Aliases: []string{"b"}, Value: 1, Usage: "concurrent sequences"},
	)
}

func plotSpeculative(c *cli.Context) (*plots.Figure, error) {
	if c.String("draft") == "" {
		return nil, usageErr("--draft MODEL is required")
	}
	ks, err := parseIntList("draft-tokens", c.String("draft-tokens"))
	if err != nil {
		return nil, err
	}
	for _, k := range ks {
		if err := (sim.Speculation{K: k}).Validate(); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	ctx, batch := c.Int("context"), c.Int("batch")
	if ctx < 1 || batch < 1 {
		return nil, usageErr("--context and --batch must be at least 1")
	}
	cat, err := catalog(c)
	if err != nil {
		return nil, err
	}
	s, err := resolveSetup(c, cat, "model", c.String("weights"))
	if err != nil {
		return nil, err
	}
	dw := c.String("draft-weights")
	if dw == "" && s.Model.Weights.Name != model.FileWeightsName {
		dw = s.Model.Weights.Name
	}
	draft, err := resolveSetup(c, cat, "draft", dw)
	if err != nil {
		return nil, fmt.Errorf("--draft: %w", err)
	}
	var curves []plots.Curve
	for _, k := range ks {
		cv := plots.Curve{Label: fmt.Sprintf("k = %d drafted tokens", k), SwitchLabel: "break-even acceptance"}
		for i := 0; i <= 38; i++ {
			a := 0.025 * float64(i)
			r, err := s.Speculate(draft, sim.Speculation{K: k, Acceptance: a}, ctx, batch)
			if err != nil {
				return nil, err
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
	return plots.Stacked(title, "acceptance rate a (share of drafted tokens accepted)", false,
		plots.Panel{YLabel: "speed-up over plain decoding (×)", Curves: curves, Target: 1, TargetLabel: "no speed-up (1×)"})
}
