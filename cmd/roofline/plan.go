package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/render"

	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/cmd/roofline/internal/report"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

const planUsage = `roofline plan --hardware LIST --model LIST [--weights LIST] [--context LIST] [--batch LIST] [targets]

Searches devices × engines × models × weight formats × KV formats × context
lengths × batch sizes for the configurations that fit in memory (with
--headroom kept free) and meet the targets at the end of their context:
TTFT of --prompt tokens on top of the history, and TPOT of the last step,
where the KV cache is largest. Prints, per device and model, the best feasible
configuration (highest-precision weights, then longest context, then largest
batch) with its margins, or the constraint that fails first and by how much;
the inverse limits (longest context that fits, longest context meeting TPOT,
longest prompt meeting TTFT, most sequences that fit); and the frontier of
quality (bits per weight) against decode speed.

Lists are comma-separated; --hardware takes names, globs (jetson-*) and all;
--model and --weights take all. Context lengths accept k (8k = 8192).
Exit status: 0 when a configuration is feasible, 3 when none is.

Examples:
  roofline plan --hardware jetson-orin-nano-8gb,jetson-orin-nano-super-8gb,rk3588 --model llama-3.2-3b --weights q4_k_m,q8_0,w8a8 --context 4k,8k --prompt 1000 --output 200 --ttft 1s --tpot 200ms
  roofline plan --hardware 'jetson-*' --model qwen2.5-1.5b,llama-3.2-3b --weights all --ttft 1s --tpot 200ms --format json
  roofline plan --hardware h100-sxm --model llama-3.1-70b --weights fp8,bf16 --batch 1,8,32,64 --tpot 50ms --min-throughput 500`

func planCommand() *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "search formats × context × batch × device against TTFT/TPOT targets and memory",
		UsageText: planUsage,
		Flags:     append(planFlags(), formatFlag(render.AllFormats)),
		Action:    planAction,
	}
}

// planFlags are the search-space and target flags of plan (and plot plan).
func planFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "hardware", Aliases: []string{"hw"}, Usage: "devices: `LIST` of names, globs (jetson-*) or all (required)"},
		&cli.StringFlag{Name: "engine", Usage: "engines to use (`LIST`); default: every engine of each device"},
		&cli.StringFlag{Name: "runtime", Usage: "keep to these runtimes (`LIST`, roofline list runtimes); default: the runtime the rule chooses for each engine and format"},
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "models: `LIST` of names or all (required)"},
		&cli.StringFlag{Name: "weights", Usage: "weight formats: `LIST` or all; default: each engine's default format"},
		&cli.StringFlag{Name: "kv", Usage: "KV-cache formats `LIST`; default: each engine's default, else f16"},
		&cli.StringFlag{Name: "context", Value: "1k,2k,4k,8k,16k,32k", Usage: "context lengths per sequence (`LIST`, k = 1024)"},
		&cli.StringFlag{Name: "batch", Aliases: []string{"concurrent"}, Value: "1", Usage: "concurrent sequences or chats (`LIST`; continuous batching)"},
		&cli.IntFlag{Name: "prompt", Aliases: []string{"p"}, Value: 512, Usage: "prompt tokens whose prefill TTFT measures"},
		&cli.IntFlag{Name: "output", Aliases: []string{"n"}, Value: 128, Usage: "tokens generated per request"},
		&cli.IntFlag{Name: "ubatch", Value: 512, Usage: "tokens per prefill pass"},
		&cli.StringFlag{Name: "ttft", Usage: "TTFT target (`DURATION`, e.g. 1s)"},
		&cli.StringFlag{Name: "tpot", Usage: "TPOT target at the end of the context (`DURATION`, e.g. 200ms)"},
		&cli.StringFlag{Name: "min-context", Usage: "drop context lengths below `N`"},
		&cli.IntFlag{Name: "min-batch", Value: 1, Usage: "drop batch sizes below `N`"},
		&cli.Float64Flag{Name: "min-throughput", Usage: "aggregate decode `TOKENS_PER_S` required at the end of the context"},
		&cli.StringFlag{Name: "headroom", Value: "0%", Usage: "share of usable memory to keep free (`PCT`, e.g. 10%)"},
		&cli.Float64Flag{Name: "confidence", Value: sim.DefaultConfidence, Usage: "how sure a \"meets\" must be (`P` in (0, 1)): the slow end of the prediction's interval at P must meet every target"},
		&cli.BoolFlag{Name: "no-flash-attn", Usage: "price unfused attention (KV read once per query head)"},
	}
}

func parseDurationFlag(c *cli.Context, name string) (float64, error) {
	s := strings.TrimSpace(c.String(name))
	if s == "" {
		return 0, nil
	}
	v, err := parseDurationValue(s)
	if err != nil {
		return 0, usageErr("--%s %v", name, err)
	}
	return v, nil
}

// parseDurationValue reads a positive duration with its unit.
func parseDurationValue(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return 0, fmt.Errorf("%q: give a unit, e.g. 1s or 200ms", s)
	}
	v, err := units.Parse(s, units.DimDuration)
	if err != nil || !(v > 0) {
		return 0, fmt.Errorf("%q: want a positive duration such as 1s or 200ms", s)
	}
	return v, nil
}

func parseTokens(s string) (int, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	mult := 1
	if strings.HasSuffix(s, "k") {
		mult, s = 1024, strings.TrimSuffix(s, "k")
	}
	v, err := strconv.ParseFloat(s, 64)
	n := v * float64(mult)
	switch {
	case err != nil || !(v > 0) || math.IsInf(v, 0) || strings.ContainsAny(s, "xX_") || n != math.Trunc(n):
		return 0, fmt.Errorf("%q is not a positive token count", s)
	case n > float64(sim.MaxPlanTokens):
		return 0, fmt.Errorf("%q exceeds the limit of %s tokens (2^24)", s, strconv.Itoa(sim.MaxPlanTokens))
	}
	return int(n), nil
}

func parseIntList(flag, s string) ([]int, error) {
	var out []int
	for _, it := range plan.ParseList(s) {
		v, err := parseTokens(it)
		if err != nil {
			return nil, usageErr("--%s: %v", flag, err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, usageErr("--%s: empty list", flag)
	}
	sort.Ints(out)
	return out, nil
}

func planAction(c *cli.Context) error {
	fv, err := outputFormat(c, render.AllFormats)
	if err != nil {
		return err
	}
	format := fv.String()
	if err := noExtraArgs(c, 0); err != nil {
		return err
	}
	for _, f := range []string{"hardware", "model"} {
		if c.String(f) == "" {
			return usageErr("--%s is required", f)
		}
	}
	sp, t, err := planSpace(c)
	if err != nil {
		return err
	}
	if n := quantizedVNote(sp.Options.NoFlashAttention, "", sp.KV...); n != "" {
		fmt.Fprintf(c.App.ErrWriter, "roofline: warning: %s\n", n)
	}
	res, err := plan.Run(sp, t)
	if err != nil {
		return err
	}
	choices := res.Best()
	if err := writePlan(c.App.Writer, format, res, choices, sp, t); err != nil {
		return err
	}
	for _, ch := range choices {
		if ch.Feasible {
			return nil
		}
	}
	return nothingFeasible{}
}

type planConfigJSON struct {
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

type planLimitsJSON struct {
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

func newPlanConfigJSON(g *plan.Group, c sim.Config, t sim.Targets) planConfigJSON {
	j := planConfigJSON{Hardware: g.Device, Engine: g.Engine, Runtime: g.Runtime, Model: g.Model, Weights: g.Weights, KV: g.KV, BitsPerWt: g.BPW,
		Context: c.Context, Batch: c.Batch, Prompt: g.Prompt, Output: g.Output, Depth: c.Depth(g.Prompt, g.Output), TTFT: c.TTFT, TPOT: c.TPOT,
		Throughput: c.Throughput, MemoryBytes: c.Memory, UsableBytes: g.Usable, Fits: c.Fits, Feasible: c.Feasible, Limit: c.Limit.String(),
		MemoryMargin: g.Usable/c.Memory - 1}
	if c.Limit != sim.LimitNone {
		e := c.Excess
		j.Excess = &e
	}
	j.Verdict, j.Confidence = c.Verdict.String(), t.ConfidenceLevel()
	margins := func(pred, target float64, sp sim.Spread) (m, lo, hi *float64) {
		if target <= 0 {
			return nil, nil, nil
		}
		jd := sim.Judge(pred, target, sp, t.ConfidenceLevel())
		a, b, c := jd.Margin-1, jd.MarginLo-1, jd.MarginHi-1
		return &a, &b, &c
	}
	j.TTFTMargin, j.TTFTMarginLow, j.TTFTMarginHigh = margins(c.TTFT, t.TTFT, g.TTFTSpread)
	j.TPOTMargin, j.TPOTMarginLow, j.TPOTMarginHigh = margins(c.TPOT, t.TPOT, g.TPOTSpread)
	return j
}

func intOrNil(v int) *int {
	if v < 0 {
		return nil
	}
	return &v
}

func writePlan(w io.Writer, format string, res *plan.Result, choices []plan.Choice, sp plan.Space, t sim.Targets) error {
	switch format {
	case "json":
		var out struct {
			Configs []planConfigJSON `json:"configs"`
			Best    []planConfigJSON `json:"best"`
			Limits  []planLimitsJSON `json:"limits"`
			Pareto  []map[string]any `json:"pareto"`
			Skipped []string         `json:"skipped"`
		}
		out.Configs, out.Best, out.Limits, out.Pareto, out.Skipped = []planConfigJSON{}, []planConfigJSON{}, []planLimitsJSON{}, []map[string]any{}, res.Skipped
		for gi := range res.Groups {
			g := &res.Groups[gi]
			for _, c := range g.Configs {
				out.Configs = append(out.Configs, newPlanConfigJSON(g, c, t))
			}
			l := g.Limits
			out.Limits = append(out.Limits, planLimitsJSON{g.Device, g.Engine, g.Runtime, g.Model, g.Weights, g.KV, l.Batch,
				intOrNil(l.MaxContextFit), intOrNil(l.MaxContextTPOT), intOrNil(l.MaxPromptTTFT), l.MaxBatchFit, g.BPW})
		}
		for _, ch := range choices {
			if ch.Group != nil {
				out.Best = append(out.Best, newPlanConfigJSON(ch.Group, ch.Config, t))
			}
		}
		for _, p := range res.Pareto() {
			out.Pareto = append(out.Pareto, map[string]any{"hardware": p.Device, "engine": p.Engine, "model": p.Model, "weights": p.Weights,
				"bits_per_weight": p.BPW, "decode_tokens_per_s": p.TokensPerS})
		}
		if out.Skipped == nil {
			out.Skipped = []string{}
		}
		return report.JSON(w, out)
	case "csv":
		t2 := report.Table{Header: []string{"hardware", "engine", "model", "weights", "kv", "bits_per_weight", "context", "batch", "prompt", "output",
			"ttft_s", "tpot_s", "throughput_tokens_per_s", "memory_bytes", "usable_bytes", "fits", "feasible", "limit"}}
		for gi := range res.Groups {
			g := &res.Groups[gi]
			for _, c := range g.Configs {
				t2.Add(g.Device, g.Engine, g.Model, g.Weights, g.KV, fmt.Sprint(g.BPW), fmt.Sprint(c.Context), fmt.Sprint(c.Batch), fmt.Sprint(g.Prompt),
					fmt.Sprint(g.Output), fmt.Sprint(c.TTFT), fmt.Sprint(c.TPOT), fmt.Sprint(c.Throughput), fmt.Sprint(c.Memory),
					fmt.Sprint(g.Usable), fmt.Sprint(c.Fits), fmt.Sprint(c.Feasible), c.Limit.String())
			}
		}
		return t2.WriteCSV(w)
	}
	d := docWriter{w, format == "markdown"}
	write := d.table
	heading := func(s string) { d.heading(s, false) }
	var tg []string
	if t.TTFT > 0 {
		tg = append(tg, fmt.Sprintf("TTFT ≤ %s for a %d-token prompt", dur(t.TTFT), sp.Prompt))
	}
	if t.TPOT > 0 {
		tg = append(tg, fmt.Sprintf("TPOT ≤ %s at the end of the context", dur(t.TPOT)))
	}
	if t.MinThroughput > 0 {
		tg = append(tg, fmt.Sprintf("≥ %.4g tokens/s aggregate", t.MinThroughput))
	}
	tg = append(tg, fmt.Sprintf("fits with %.0f%% of usable memory kept free", 100*t.Headroom))
	fmt.Fprintf(w, "targets: %s; %d tokens generated per request\n", strings.Join(tg, ", "), sp.Output)

	heading("best configuration per device and model (highest-precision weights, then longest context, then largest batch)")
	bt := report.Table{Header: []string{"DEVICE", "MODEL", "ENGINE", "WEIGHTS", "KV", "CONTEXT", "BATCH", "TTFT", "TPOT", "MEMORY", "VERDICT"},
		Right: map[int]bool{5: true, 6: true, 7: true, 8: true, 9: true}}
	for _, ch := range choices {
		if ch.Group == nil {
			bt.Add(ch.Device, ch.Model, "—", "—", "—", "", "", "", "", "", "no engine of this device runs the formats asked for")
			continue
		}
		g, cfg := ch.Group, ch.Config
		bt.Add(g.Device, g.Model, g.Engine, g.Weights, g.KV, fmt.Sprint(cfg.Context), fmt.Sprint(cfg.Batch), dur(cfg.TTFT), dur(cfg.TPOT),
			fmt.Sprintf("%s / %s", units.FormatBytes(cfg.Memory, units.Binary), units.FormatBytes(g.Usable, units.Binary)), verdict(g, cfg, t))
	}
	if err := write(bt); err != nil {
		return err
	}
	heading(fmt.Sprintf("inverse limits (batch %d)", sp.Batches[0]))
	lt := report.Table{Header: []string{"DEVICE", "ENGINE", "MODEL", "WEIGHTS", "BPW", "MAX CONTEXT (MEMORY)", "MAX CONTEXT (TPOT)", "MAX PROMPT (TTFT)", "MAX BATCH"},
		Right: map[int]bool{4: true, 5: true, 6: true, 7: true, 8: true}}
	for _, g := range res.Groups {
		l := g.Limits
		lim := func(v int, unlimited string) string {
			switch {
			case v < 0:
				return unlimited
			case v >= sim.MaxPlanTokens:
				return "≥ " + fmt.Sprint(sim.MaxPlanTokens)
			}
			return fmt.Sprint(v)
		}
		lt.Add(g.Device, g.Engine, g.Model, g.Weights, fmt.Sprintf("%.2f", g.BPW), lim(l.MaxContextFit, "any"), lim(l.MaxContextTPOT, "—"),
			lim(l.MaxPromptTTFT, "—"), fmt.Sprint(l.MaxBatchFit))
	}
	if err := write(lt); err != nil {
		return err
	}
	if pts := res.Pareto(); len(pts) > 0 {
		heading(fmt.Sprintf("quality against speed: formats no other beats on both (decode at context %d, batch %d)", res.Groups[0].Configs[0].Context, res.Groups[0].Configs[0].Batch))
		pt := report.Table{Header: []string{"DEVICE", "MODEL", "ENGINE", "WEIGHTS", "BITS/WEIGHT", "DECODE"}, Right: map[int]bool{4: true, 5: true}}
		for _, p := range pts {
			pt.Add(p.Device, p.Model, p.Engine, p.Weights, fmt.Sprintf("%.2f", p.BPW), fmt.Sprintf("%.4g tok/s", p.TokensPerS))
		}
		if err := write(pt); err != nil {
			return err
		}
	}
	if len(res.Skipped) > 0 {
		fmt.Fprintf(w, "\nskipped: %s\n", strings.Join(res.Skipped, "; "))
	}
	if !d.md {
		fmt.Fprintf(w, "\n%d configurations in %d groups evaluated\n", res.Evaluated, len(res.Groups))
	}
	return nil
}

// verdict says how a configuration meets or misses the targets, and how
// sure that is: "meets" when even the slow end of the predictions'
// interval at the targets' confidence meets every target, "uncertain"
// when the interval straddles one, else the first constraint it fails.
// Each latency margin is given with the slow end's.
func verdict(g *plan.Group, c sim.Config, t sim.Targets) string {
	if c.Verdict != sim.Fails {
		conf := t.ConfidenceLevel()
		var m []string
		margin := func(name string, pred, target float64, sp sim.Spread) {
			if target <= 0 {
				return
			}
			j := sim.Judge(pred, target, sp, conf)
			m = append(m, fmt.Sprintf("%s %s (slow end %s)", name, underOver(j.Margin), underOver(j.MarginLo)))
		}
		margin("TTFT", c.TTFT, t.TTFT, g.TTFTSpread)
		margin("TPOT", c.TPOT, t.TPOT, g.TPOTSpread)
		m = append(m, fmt.Sprintf("%.0f%% memory free", 100*(1-c.Memory/g.Usable)))
		word := fmt.Sprintf("meets (%.0f%% sure)", 100*conf)
		if c.Verdict == sim.Uncertain {
			word = fmt.Sprintf("uncertain (not %.0f%% sure)", 100*conf)
		}
		return word + ": " + strings.Join(m, ", ")
	}
	switch c.Limit {
	case sim.LimitMemory:
		return fmt.Sprintf("FAILS memory: needs %s of %s (%.2f×)", units.FormatBytes(c.Memory, units.Binary), units.FormatBytes(g.Usable, units.Binary), c.Excess)
	case sim.LimitTTFT:
		return fmt.Sprintf("FAILS TTFT: %s > %s at prompt %d: needs %.2f× faster prefill", dur(c.TTFT), dur(t.TTFT), g.Prompt, c.Excess)
	case sim.LimitTPOT:
		return fmt.Sprintf("FAILS TPOT: %s > %s at context %d: needs %.2f× faster decode", dur(c.TPOT), dur(t.TPOT), c.Context, c.Excess)
	case sim.LimitThroughput:
		return fmt.Sprintf("FAILS throughput: %.4g < %.4g tokens/s: needs %.2f×", c.Throughput, t.MinThroughput, c.Excess)
	}
	return ""
}

// planSpace reads the search space and targets from plan's flags,
// reporting every unknown name at once.
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

func planSpace(c *cli.Context) (plan.Space, sim.Targets, error) {
	var err error
	var t sim.Targets
	if t.TTFT, err = parseDurationFlag(c, "ttft"); err != nil {
		return plan.Space{}, sim.Targets{}, err
	}
	if t.TPOT, err = parseDurationFlag(c, "tpot"); err != nil {
		return plan.Space{}, sim.Targets{}, err
	}
	t.MinThroughput = c.Float64("min-throughput")
	if t.MinThroughput < 0 || t.MinThroughput != t.MinThroughput {
		return plan.Space{}, sim.Targets{}, usageErr("--min-throughput must be a positive rate")
	}
	if p := c.Float64("confidence"); !(p > 0 && p < 1) {
		return plan.Space{}, sim.Targets{}, usageErr("--confidence %g: want a probability between 0 and 1, e.g. 0.8", p)
	} else {
		t.Confidence = p
	}
	hs := strings.TrimSpace(c.String("headroom"))
	h, herr := strconv.ParseFloat(strings.TrimSuffix(hs, "%"), 64)
	if strings.HasSuffix(hs, "%") {
		h /= 100
	}
	if herr != nil || !(h >= 0 && h < 1) || (!strings.HasSuffix(hs, "%") && h > 0) {
		return plan.Space{}, sim.Targets{}, usageErr("--headroom %q: want a percentage below 100%%, e.g. 10%%", hs)
	}
	t.Headroom = h
	contexts, err := parseIntList("context", c.String("context"))
	if err != nil {
		return plan.Space{}, sim.Targets{}, err
	}
	batches, err := parseIntList("batch", c.String("batch"))
	if err != nil {
		return plan.Space{}, sim.Targets{}, err
	}
	minCtx := 0
	if s := c.String("min-context"); s != "" {
		if minCtx, err = parseTokens(s); err != nil {
			return plan.Space{}, sim.Targets{}, usageErr("--min-context: %v", err)
		}
	}
	sp := plan.Space{Contexts: contexts, Batches: batches, Prompt: c.Int("prompt"), Output: c.Int("output"), UBatch: c.Int("ubatch"),
		MinContext: minCtx, MinBatch: c.Int("min-batch"), Options: sim.DefaultOptions, Engines: plan.ParseList(c.String("engine"))}
	sp.Options.NoFlashAttention = c.Bool("no-flash-attn")
	if sp.Prompt < 1 || sp.Output < 1 || sp.UBatch < 1 {
		return plan.Space{}, sim.Targets{}, usageErr("--prompt, --output and --ubatch must be at least 1")
	}
	cat, err := catalog(c)
	if err != nil {
		return plan.Space{}, sim.Targets{}, err
	}
	sp.RuntimeSet = cat.Runtimes()
	// Every unknown name in every list, reported at once.
	var errs []error
	for _, r := range plan.ParseList(c.String("runtime")) {
		if _, err := cat.Runtime(r); err != nil {
			errs = append(errs, fmt.Errorf("--runtime: %w", err))
			continue
		}
		sp.Runtimes = append(sp.Runtimes, r)
	}
	sp.Devices, err = plan.ResolveDevices(cat, plan.ParseList(c.String("hardware")))
	errs = append(errs, err)
	sp.Models, err = plan.ResolveModels(cat, plan.ParseList(c.String("model")))
	errs = append(errs, err)
	if ws := plan.ParseList(c.String("weights")); len(ws) == 1 && ws[0] == "all" {
		sp.Weights = plan.AllWeights()
	} else {
		for _, w := range ws {
			if _, err := lookupWeights(w); err != nil {
				errs = append(errs, err)
			}
		}
		sp.Weights = ws
	}
	for _, k := range plan.ParseList(c.String("kv")) {
		if _, err := lookupKV(k); err != nil {
			errs = append(errs, err)
		}
		sp.KV = append(sp.KV, k)
	}
	if err := errors.Join(errs...); err != nil {
		return plan.Space{}, sim.Targets{}, err
	}
	return sp, t, nil
}
