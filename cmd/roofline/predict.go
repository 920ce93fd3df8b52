package main

import (
	"fmt"
	"io"
	"math"

	"github.com/roofline/roofline/cmd/roofline/internal/render"

	"github.com/roofline/roofline/cmd/roofline/internal/report"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

const predictUsage = `roofline predict --model M --hardware H [flags]

Predicts time to first token (prefill of --prompt tokens on top of --depth
cached ones), time per output token as the KV cache grows over --output
tokens, end-to-end latency, throughput for --batch concurrent sequences,
which roofline bound applies to each phase, and whether weights, KV cache,
activations and runtime overhead fit in the device's usable memory.
Expected figures use the engine's efficiency factors and fixed overheads;
ideal figures are the physical limit at 100 % of peak.

Examples:
  roofline predict --model llama-3.2-3b --hardware jetson-orin-nano-super-8gb --weights q4_k_m --prompt 1000 --output 200
  roofline predict --model qwen2.5-1.5b --hardware rk3588 --engine npu --weights w8a8
  roofline predict --model llama-3.1-8b --hardware h100-sxm --batch 32 --prompt 2048 --format json
  roofline predict --model meta-llama/Llama-3.1-8B --hardware apple-m2-max --depth 8000 --cold
  roofline predict --model ./Qwen3-4B-Q4_K_M.gguf --hardware rk3588 --engine cpu
  roofline predict --model ~/models/Llama-3.1-8B-Instruct --hardware rtx-4090 --weights q4_k_m`

func predictCommand() *cli.Command {
	return &cli.Command{
		Name:      "predict",
		Usage:     "predict TTFT, TPOT, E2E latency, throughput and memory fit",
		UsageText: predictUsage,
		Flags: append(append(setupFlags(),
			&cli.IntFlag{Name: "prompt", Aliases: []string{"p"}, Value: sim.DefaultWorkload.Prompt, Usage: "new prompt tokens per sequence"},
			&cli.IntFlag{Name: "output", Aliases: []string{"n"}, Value: sim.DefaultWorkload.Output, Usage: "generated tokens per sequence (the first comes from the prefill)"},
			&cli.IntFlag{Name: "batch", Aliases: []string{"b"}, Value: sim.DefaultWorkload.Batch, Usage: "concurrent sequences"},
			&cli.IntFlag{Name: "depth", Aliases: []string{"d"}, Value: sim.DefaultWorkload.Depth, Usage: "tokens already in each sequence's KV cache"},
			&cli.IntFlag{Name: "ubatch", Value: sim.DefaultWorkload.UBatch, Usage: "tokens per prefill pass (llama.cpp -ub)"},
			&cli.BoolFlag{Name: "cold", Usage: "add the model load time (weights / storage bandwidth) to the first request"},
		), append(extraFlags(),
			formatFlag(render.AllFormats))...),
		Action: predictAction,
	}
}

func predictAction(c *cli.Context) error {
	fv, err := outputFormat(c, render.AllFormats)
	if err != nil {
		return err
	}
	format := fv.String()
	if err := noExtraArgs(c, 0); err != nil {
		return err
	}
	w := sim.Workload{Prompt: c.Int("prompt"), Output: c.Int("output"), Batch: c.Int("batch"), Depth: c.Int("depth"), UBatch: c.Int("ubatch")}
	if err := w.Validate(); err != nil {
		return usageErr("%v", err)
	}
	if err := checkExtraFlags(c); err != nil {
		return err
	}
	cat, err := catalog(c)
	if err != nil {
		return err
	}
	res, err := resolveFlags(c, cat, "model", c.String("weights"))
	if err != nil {
		return err
	}
	s := res.Setup
	r, err := s.Predict(w)
	if err != nil {
		return err
	}
	x, err := predictExtrasOf(c, cat, s, r)
	if err != nil {
		return err
	}
	out := c.App.Writer
	j := newPredictJSON(r, res.Choice.Why)
	for _, n := range res.Notes {
		r.Warnings = append([]sim.Warning{{Code: "choice", Message: n}}, r.Warnings...)
	}
	j.Energy, j.Speculative = x.energy, x.spec
	if format == "json" || format == "csv" {
		for _, w := range r.Warnings {
			fmt.Fprintf(c.App.ErrWriter, "roofline: warning: %s\n", w.Message)
		}
	}
	switch format {
	case "json":
		return report.JSON(out, j)
	case "csv":
		t := predictFlat(j)
		return t.WriteCSV(out)
	case "markdown":
		return writePredictMarkdown(out, r, x)
	}
	return writePredictText(out, r, res.Choice.Why, x)
}

// num is a JSON number that is null when undefined (NaN).
type num = *float64

func jnum(v float64) num {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

type memoryJSON struct {
	WeightsBytes     float64 `json:"weights_bytes"`
	KVBytes          float64 `json:"kv_bytes"`
	ActivationsBytes float64 `json:"activations_bytes"`
	OverheadBytes    float64 `json:"overhead_bytes"`
	TotalBytes       float64 `json:"total_bytes"`
	UsableBytes      float64 `json:"usable_bytes"`
	Fits             bool    `json:"fits"`
	HeadroomBytes    float64 `json:"headroom_bytes"`
	MaxContext       *int    `json:"max_context"`
	// MaxContextBound is "memory" or "model" (the model's maximum context
	// is reached before memory runs out).
	MaxContextBound string `json:"max_context_bound"`
}

type phaseJSON struct {
	Steps             int     `json:"steps"`
	TimeS             float64 `json:"time_s"`
	IdealTimeS        float64 `json:"ideal_time_s"`
	MemoryTimeS       float64 `json:"memory_time_s"`
	ComputeTimeS      float64 `json:"compute_time_s"`
	OverheadTimeS     float64 `json:"overhead_time_s"`
	Bytes             float64 `json:"bytes"`
	FLOPs             float64 `json:"flops"`
	IntensityFLOPPerB float64 `json:"intensity_flop_per_byte"`
	Bound             string  `json:"bound"`
	ComputeBoundSteps int     `json:"compute_bound_steps"`
}

type efficiencyJSON struct {
	Bandwidth      float64 `json:"bandwidth"`
	ComputeMax     float64 `json:"compute_max"`
	HalfRows       float64 `json:"half_rows"`
	Attention      float64 `json:"attention"`
	StepOverheadS  float64 `json:"step_overhead_s"`
	PassOverheadS  float64 `json:"pass_overhead_s"`
	LayerOverheadS float64 `json:"layer_overhead_s"`
}

type inputsJSON struct {
	Model              string         `json:"model"`
	Hardware           string         `json:"hardware"`
	Engine             string         `json:"engine"`
	EngineKind         string         `json:"engine_kind"`
	Runtime            string         `json:"runtime"`
	RuntimeWhy         string         `json:"runtime_why"`
	Weights            string         `json:"weights"`
	KV                 string         `json:"kv"`
	Precision          string         `json:"precision"`
	PeakOpsPerS        float64        `json:"peak_ops_per_s"`
	PeakSource         string         `json:"peak_source"`
	PeakDerived        bool           `json:"peak_derived"`
	IdealPrecision     string         `json:"ideal_precision"`
	IdealPeakOpsPerS   float64        `json:"ideal_peak_ops_per_s"`
	BandwidthBytesPerS float64        `json:"bandwidth_bytes_per_s"`
	Efficiency         efficiencyJSON `json:"efficiency"`
	EfficiencyFrom     string         `json:"efficiency_from"`
	PrefillOverheadS   float64        `json:"prefill_overhead_s"`
	DecodeOverheadS    float64        `json:"decode_overhead_s"`
	StorageBytesPerS   float64        `json:"storage_bandwidth_bytes_per_s"`
	Prompt             int            `json:"prompt"`
	Output             int            `json:"output"`
	Batch              int            `json:"batch"`
	Depth              int            `json:"depth"`
	UBatch             int            `json:"ubatch"`
	Cold               bool           `json:"cold"`
}

type warningJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type predictJSON struct {
	TTFT                 float64            `json:"ttft_s"`
	TPOT                 num                `json:"tpot_s"`
	E2E                  float64            `json:"e2e_s"`
	ITLFirst             num                `json:"itl_first_s"`
	ITLLast              num                `json:"itl_last_s"`
	PrefillTokensPerS    float64            `json:"prefill_tokens_per_s"`
	DecodeTokensPerS     num                `json:"decode_tokens_per_s"`
	ThroughputTokensPerS num                `json:"throughput_tokens_per_s"`
	TTFTBound            float64            `json:"ttft_bound_s"`
	TPOTBound            num                `json:"tpot_bound_s"`
	E2EBound             float64            `json:"e2e_bound_s"`
	PrefillBound         string             `json:"prefill_bound"`
	DecodeBound          *string            `json:"decode_bound"`
	RidgeFLOPPerByte     float64            `json:"ridge_flop_per_byte"`
	ComputeBoundBatch    *int               `json:"compute_bound_batch"`
	KVShareLastStep      num                `json:"kv_share_last_step"`
	LoadS                float64            `json:"load_s"`
	ColdTTFT             num                `json:"cold_ttft_s,omitempty"`
	TTFTInterval         []float64          `json:"ttft_interval_s,omitempty"`
	TPOTInterval         []float64          `json:"tpot_interval_s,omitempty"`
	E2EInterval          []float64          `json:"e2e_interval_s,omitempty"`
	ThroughputInterval   []float64          `json:"throughput_interval_tokens_per_s,omitempty"`
	IntervalLevel        float64            `json:"interval_level,omitempty"`
	Memory               memoryJSON         `json:"memory"`
	Prefill              phaseJSON          `json:"prefill"`
	Decode               *phaseJSON         `json:"decode"`
	Energy               *predictEnergyJSON `json:"energy,omitempty"`
	Speculative          *specJSON          `json:"speculative,omitempty"`
	Inputs               inputsJSON         `json:"inputs"`
	Warnings             []warningJSON      `json:"warnings"`
}

func newPhaseJSON(p sim.Phase) phaseJSON {
	return phaseJSON{p.Steps, p.Time, p.IdealTime, p.MemoryTime, p.ComputeTime, p.OverheadTime, p.Bytes, p.FLOPs, p.Intensity, string(p.Bound), p.ComputeBoundSteps}
}

func newPredictJSON(r *sim.Result, why string) predictJSON {
	in := r.Inputs
	e := in.Efficiency
	j := predictJSON{
		TTFT: r.TTFT, TPOT: jnum(r.TPOT), E2E: r.E2E, ITLFirst: jnum(r.ITLFirst), ITLLast: jnum(r.ITLLast),
		PrefillTokensPerS: r.PrefillTokensPerS, DecodeTokensPerS: jnum(r.DecodeTokensPerS), ThroughputTokensPerS: jnum(r.ThroughputTokensPerS),
		TTFTBound: r.TTFTBound, TPOTBound: jnum(r.TPOTBound), E2EBound: r.E2EBound,
		PrefillBound: string(r.Prefill.Bound), RidgeFLOPPerByte: r.Ridge, KVShareLastStep: jnum(r.KVShareLast),
		LoadS: r.LoadTime,
		Memory: memoryJSON{r.Memory.Weights, r.Memory.KV, r.Memory.Activations, r.Memory.Overhead, r.Memory.Total,
			r.Memory.Usable, r.Memory.Fits, r.Memory.Headroom, nil, ""},
		Prefill: newPhaseJSON(r.Prefill),
		Inputs: inputsJSON{in.Model, in.Device, in.Engine, string(in.EngineKind), in.Runtime, why, in.Weights, in.KV,
			string(in.Precision), in.Peak, in.PeakSource, in.PeakDerived, string(in.IdealPrecision), in.IdealPeak, in.Bandwidth,
			efficiencyJSON{e.Bandwidth, e.ComputeMax, e.HalfRows, e.Attention, e.StepOverhead, e.PassOverhead, e.LayerOverhead},
			in.EfficiencyFrom, in.PrefillOverhead, in.DecodeOverhead,
			in.StorageBandwidth, in.Workload.Prompt, in.Workload.Output, in.Workload.Batch, in.Workload.Depth, in.Workload.UBatch, in.Cold},
		Warnings: []warningJSON{},
	}
	if r.Decode.Steps > 0 {
		d := newPhaseJSON(r.Decode)
		j.Decode = &d
		b := string(r.Decode.Bound)
		j.DecodeBound = &b
	}
	if r.ComputeBoundBatch > 0 {
		b := r.ComputeBoundBatch
		j.ComputeBoundBatch = &b
	}
	if r.Memory.MaxContext >= 0 {
		mc := r.Memory.MaxContext
		j.Memory.MaxContext = &mc
		j.Memory.MaxContextBound = r.Memory.ContextBound
	}
	if in.Cold {
		j.ColdTTFT = jnum(r.ColdTTFT)
	}
	for _, w := range r.Warnings {
		j.Warnings = append(j.Warnings, warningJSON(w))
	}
	iv := func(i *sim.Interval) []float64 {
		if i == nil {
			return nil
		}
		j.IntervalLevel = i.Level
		return []float64{i.Lo, i.Hi}
	}
	j.TTFTInterval, j.TPOTInterval, j.E2EInterval = iv(r.TTFTInterval), iv(r.TPOTInterval), iv(r.E2EInterval)
	j.ThroughputInterval = iv(r.ThroughputInterval)
	return j
}

// predictFlat is the JSON result as one CSV row (SI units, full precision).
func predictFlat(j predictJSON) report.Table {
	t := report.Table{}
	var row []string
	add := func(k string, v any) {
		t.Header = append(t.Header, k)
		switch x := v.(type) {
		case num:
			if x == nil {
				row = append(row, "")
			} else {
				row = append(row, fmt.Sprint(*x))
			}
		default:
			row = append(row, fmt.Sprint(x))
		}
	}
	in := j.Inputs
	add("model", in.Model)
	add("hardware", in.Hardware)
	add("engine", in.Engine)
	add("weights", in.Weights)
	add("kv", in.KV)
	add("precision", in.Precision)
	add("prompt", in.Prompt)
	add("output", in.Output)
	add("batch", in.Batch)
	add("depth", in.Depth)
	add("ubatch", in.UBatch)
	add("ttft_s", j.TTFT)
	add("tpot_s", j.TPOT)
	add("e2e_s", j.E2E)
	add("itl_first_s", j.ITLFirst)
	add("itl_last_s", j.ITLLast)
	add("prefill_tokens_per_s", j.PrefillTokensPerS)
	add("decode_tokens_per_s", j.DecodeTokensPerS)
	add("throughput_tokens_per_s", j.ThroughputTokensPerS)
	add("ttft_bound_s", j.TTFTBound)
	add("tpot_bound_s", j.TPOTBound)
	add("e2e_bound_s", j.E2EBound)
	add("prefill_bound", j.PrefillBound)
	db := ""
	if j.DecodeBound != nil {
		db = *j.DecodeBound
	}
	add("decode_bound", db)
	add("load_s", j.LoadS)
	add("weights_bytes", j.Memory.WeightsBytes)
	add("kv_bytes", j.Memory.KVBytes)
	add("activations_bytes", j.Memory.ActivationsBytes)
	add("overhead_bytes", j.Memory.OverheadBytes)
	add("total_bytes", j.Memory.TotalBytes)
	add("usable_bytes", j.Memory.UsableBytes)
	add("fits", j.Memory.Fits)
	add("bw_efficiency", in.Efficiency.Bandwidth)
	add("compute_efficiency", in.Efficiency.ComputeMax)
	add("peak_ops_per_s", in.PeakOpsPerS)
	add("bandwidth_bytes_per_s", in.BandwidthBytesPerS)
	// Optional figures keep their columns, empty when absent, so rows of
	// different runs line up.
	var power, jTok, jAns, perWh, specTPOT, speedup num
	if e := j.Energy; e != nil {
		power, jTok, jAns, perWh = jnum(e.PowerW), jnum(e.JoulesPerToken), jnum(e.JoulesPerAnswer), jnum(e.TokensPerWh)
	}
	if sp := j.Speculative; sp != nil {
		specTPOT, speedup = jnum(sp.TPOT), jnum(sp.Speedup)
	}
	add("power_w", power)
	add("joules_per_token", jTok)
	add("joules_per_answer", jAns)
	add("tokens_per_wh", perWh)
	add("speculative_tpot_s", specTPOT)
	add("speculative_speedup", speedup)
	t.Rows = [][]string{row}
	return t
}

func dur(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return units.FormatDuration(v)
}

func rate(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
		return "—"
	}
	return fmt.Sprintf("%.4g %s", v, unit)
}

// resultTable is the core result table shared by text and Markdown.
func resultTable(r *sim.Result, x predictExtras) report.Table {
	t := report.Table{Header: []string{"", "EXPECTED", "IDEAL", "BOUND"}, Right: map[int]bool{1: true, 2: true}}
	withInterval := func(v float64, iv *sim.Interval) string {
		if iv == nil {
			return dur(v)
		}
		return fmt.Sprintf("%s (%.0f%%: %s–%s)", dur(v), 100*iv.Level, dur(iv.Lo), dur(iv.Hi))
	}
	pre := fmt.Sprintf("%s: %d pass(es), %sFLOP, %sB, %s FLOP/B", r.Prefill.Bound, r.Prefill.Steps,
		units.FormatCount(r.Prefill.FLOPs), units.FormatCount(r.Prefill.Bytes), intensity(r.Prefill.Intensity))
	t.Add("TTFT", withInterval(r.TTFT, r.TTFTInterval), dur(r.TTFTBound), pre)
	if r.Decode.Steps > 0 {
		dec := fmt.Sprintf("%s: %d steps, %s FLOP/B, KV %.0f%% → %.0f%% of bytes", r.Decode.Bound, r.Decode.Steps,
			intensity(r.Decode.Intensity), 100*r.KVShareFirst, 100*r.KVShareLast)
		t.Add("TPOT (mean ITL)", withInterval(r.TPOT, r.TPOTInterval), dur(r.TPOTBound), dec)
		t.Add("ITL first → last", dur(r.ITLFirst)+" → "+dur(r.ITLLast), "", "grows with the KV cache")
	} else {
		t.Add("TPOT (mean ITL)", "—", "—", "no decode step (--output 1)")
	}
	t.Add("E2E", withInterval(r.E2E, r.E2EInterval), dur(r.E2EBound), "TTFT + Σ ITL")
	t.Add("prefill", rate(r.PrefillTokensPerS, "tok/s"), "", "")
	t.Add("decode", rate(r.DecodeTokensPerS, "tok/s"), "", "per sequence")
	if r.Inputs.Workload.Batch > 1 {
		t.Add("throughput", rate(r.ThroughputTokensPerS, "tok/s"), "", fmt.Sprintf("aggregate over %d sequences", r.Inputs.Workload.Batch))
	}
	if r.Inputs.Cold {
		t.Add("cold TTFT", dur(r.ColdTTFT), "", fmt.Sprintf("load %s from storage at %s, then prefill", dur(r.LoadTime), units.FormatBandwidth(r.Inputs.StorageBandwidth)))
	}
	if e := x.energy; e != nil {
		t.Add("energy", fmt.Sprintf("%.3g J/token", e.JoulesPerToken), "", fmt.Sprintf("%.0f tokens/Wh, %.3g J per answer at %g W (%s)", e.TokensPerWh, e.JoulesPerAnswer, e.PowerW, e.Basis))
		if e.AnswersPerPct > 0 {
			t.Add("battery", fmt.Sprintf("%.1f answers", e.AnswersPerPct), "", fmt.Sprintf("per 1 %% of %g Wh", e.BatteryWh))
		}
	}
	if sp := x.spec; sp != nil {
		t.Add("speculative TPOT", dur(sp.TPOT), "", fmt.Sprintf("draft %s (%s), k %d, a %.2f: %.2f× at context %d; pays off above a = %.2f",
			sp.Draft, sp.DraftWeights, sp.K, sp.Acceptance, sp.Speedup, sp.Context, sp.BreakEven))
	}
	return t
}

func memoryTable(r *sim.Result) report.Table {
	m := r.Memory
	t := report.Table{Header: []string{"MEMORY", "BYTES", "SHARE OF USABLE"}, Right: map[int]bool{1: true, 2: true}}
	row := func(name string, b float64) {
		t.Add(name, units.FormatBytes(b, units.Binary), fmt.Sprintf("%.1f%%", 100*b/m.Usable))
	}
	row("weights", m.Weights)
	row(fmt.Sprintf("KV cache (%d × %d tokens)", r.Inputs.Workload.Batch, r.Inputs.Workload.Context()), m.KV)
	row("activations (peak)", m.Activations)
	row("runtime overhead", m.Overhead)
	row("total", m.Total)
	t.Add("usable", units.FormatBytes(m.Usable, units.Binary), "")
	return t
}

// peakKind says what kind of figure the peak is: a datasheet's dense
// peak, or one the profile derives (the reasoning is in the notes).
func peakKind(in sim.Inputs) string {
	if in.PeakDerived {
		return "dense peak, derived: see the note"
	}
	return "dense peak"
}

func writePredictText(w io.Writer, r *sim.Result, why string, x predictExtras) error {
	in := r.Inputs
	wl := in.Workload
	fmt.Fprintf(w, "%s on %s (%s engine, %s)\n\n", in.Model, in.Device, in.Engine, in.Runtime)
	tuning := in.EfficiencyFrom
	if in.FormatCalibrated {
		tuning += "; bandwidth fitted for " + in.Weights
	}
	if !in.FlashAttention {
		tuning += "; unfused attention: KV read once per query head"
	}
	pairs := [][2]string{
		{"runtime", in.Runtime + ": " + why},
		{"workload", fmt.Sprintf("prompt %d + depth %d, output %d, batch %d, ubatch %d → context %d per sequence", wl.Prompt, wl.Depth, wl.Output, wl.Batch, wl.UBatch, wl.Context())},
		{"formats", fmt.Sprintf("weights %s (%s), KV %s", in.Weights, units.FormatBytes(r.Memory.Weights, units.Binary), in.KV)},
		{"compute", fmt.Sprintf("%s at %s (%s), ridge %s FLOP/B", in.Precision, units.FormatRate(in.Peak, in.Precision.RateUnit()), peakKind(in), intensity(r.Ridge))},
		{"bandwidth", units.FormatBandwidth(in.Bandwidth) + " datasheet"},
		{"efficiency", fmt.Sprintf("bandwidth %.2f, matrix products %.2f at %s rows (%.2f at most), attention %.2f", in.Efficiency.Bandwidth,
			in.Efficiency.Matmul(float64(prefillRows(wl)), in.Peak), intensity(float64(prefillRows(wl))), in.Efficiency.ComputeMax, in.Efficiency.Attention)},
		{"from", tuning},
		{"overhead", overheadText(in)},
	}
	if err := report.KeyValues(w, pairs); err != nil {
		return err
	}
	fmt.Fprintln(w)
	t := resultTable(r, x)
	if err := t.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	mt := memoryTable(r)
	if err := mt.WriteText(w); err != nil {
		return err
	}
	fit := "fits"
	if !r.Memory.Fits {
		fit = "DOES NOT FIT"
	}
	maxCtx := "any context (every layer is windowed)"
	switch {
	case r.Memory.MaxContext == 0:
		maxCtx = "none: weights, activations and overhead alone exceed usable memory"
	case r.Memory.MaxContext > 0 && r.Memory.ContextBound == sim.BoundByModel:
		maxCtx = fmt.Sprintf("%d tokens per sequence at batch %d, the model's maximum context (memory would hold more)", r.Memory.MaxContext, wl.Batch)
	case r.Memory.MaxContext > 0:
		maxCtx = fmt.Sprintf("%d tokens per sequence at batch %d", r.Memory.MaxContext, wl.Batch)
	}
	fmt.Fprintf(w, "%s: headroom %s; largest context that fits: %s\n", fit, signedBytes(r.Memory.Headroom), maxCtx)
	if r.ComputeBoundBatch > 0 {
		fmt.Fprintf(w, "decode turns compute-bound at batch %d (at peak, context %d)\n", r.ComputeBoundBatch, wl.Depth+wl.Prompt+max(wl.Output-1, 1))
	} else {
		fmt.Fprintln(w, "decode stays memory-bound at every batch (KV reads grow with the batch as fast as FLOPs)")
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w)
		for i, wa := range r.Warnings {
			fmt.Fprintf(w, "note %d: %s\n", i+1, wa.Message)
		}
	}
	return nil
}

func overheadText(in sim.Inputs) string {
	e := in.Efficiency
	return fmt.Sprintf("%s per decode step, %s per prefill pass (%s and %s + %d layers × %s)",
		dur(in.DecodeOverhead), dur(in.PrefillOverhead), dur(e.StepOverhead), dur(e.PassOverhead), in.Layers, dur(e.LayerOverhead))
}

// prefillRows is the number of tokens in a full prefill pass.
func prefillRows(w sim.Workload) int { return max(w.Batch*max(1, w.UBatch/w.Batch), w.Batch) }

// intensity prints a FLOP-per-byte figure without an exponent.
func intensity(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

func signedBytes(b float64) string {
	if b < 0 {
		return "−" + units.FormatBytes(-b, units.Binary)
	}
	return units.FormatBytes(b, units.Binary)
}

func writePredictMarkdown(w io.Writer, r *sim.Result, x predictExtras) error {
	in := r.Inputs
	fmt.Fprintf(w, "### %s on %s (%s, %s weights, %s KV)\n\n", in.Model, in.Device, in.Engine, in.Weights, in.KV)
	t := resultTable(r, x)
	t.Header[0] = "metric"
	if err := t.WriteMarkdown(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	mt := memoryTable(r)
	if err := mt.WriteMarkdown(w); err != nil {
		return err
	}
	for _, wa := range r.Warnings {
		fmt.Fprintf(w, "\n> note: %s\n", wa.Message)
	}
	return nil
}

// predictExtras are predict's optional figures: energy when a power is
// known, speculative decoding with --draft.
type predictExtras struct {
	energy *predictEnergyJSON
	spec   *specJSON
}

type predictEnergyJSON struct {
	Basis           string  `json:"basis"`
	PowerW          float64 `json:"power_w"`
	JoulesPerToken  float64 `json:"joules_per_token"`
	JoulesPerAnswer float64 `json:"joules_per_answer"`
	TokensPerWh     float64 `json:"tokens_per_wh"`
	BatteryWh       float64 `json:"battery_wh,omitempty"`
	AnswersPerPct   float64 `json:"answers_per_battery_percent,omitempty"`
}

func predictExtrasOf(c *cli.Context, cat *profiles.Catalog, s *sim.Setup, r *sim.Result) (predictExtras, error) {
	var x predictExtras
	power, basis, err := enginePower(c, s.Engine)
	if err != nil {
		return x, err
	}
	if power > 0 {
		e, err := sim.EnergyOf(r, power, c.Float64("battery-wh"))
		if err != nil {
			return x, err
		}
		x.energy = &predictEnergyJSON{"estimate from " + basis, power, e.JoulesPerToken, e.JoulesPerAnswer, e.TokensPerWh, c.Float64("battery-wh"), e.AnswersPerBatteryPercent}
	} else if c.IsSet("battery-wh") {
		return x, usageErr("--battery-wh: the %s engine of %s has no rated power in its profile; give --power", s.Engine.Name, s.Device.Name)
	}
	if c.String("draft") == "" {
		return x, nil
	}
	dw := c.String("draft-weights")
	if dw == "" && s.Model.Weights.Name != model.FileWeightsName {
		dw = s.Model.Weights.Name
	}
	draft, err := resolveSetup(c, cat, "draft", dw)
	if err != nil {
		return x, fmt.Errorf("--draft: %w", err)
	}
	sp := sim.Speculation{K: c.Int("draft-tokens"), Acceptance: c.Float64("acceptance")}
	if err := sp.Validate(); err != nil {
		return x, usageErr("%v", err)
	}
	if dv, tv := draft.Model.Spec.Vocab, s.Model.Spec.Vocab; dv != tv {
		r.Warnings = append(r.Warnings, sim.Warning{Code: "draft-vocab",
			Message: fmt.Sprintf("the draft's vocabulary (%d) differs from the target's (%d): speculative decoding needs the same tokenizer", dv, tv)})
	}
	w := r.Inputs.Workload
	ctx := w.Depth + w.Prompt + max(w.Output/2, 1)
	sr, err := s.Speculate(draft, sp, ctx, w.Batch)
	if err != nil {
		return x, err
	}
	x.spec = &specJSON{draft.Model.Spec.Name, draft.Model.Weights.Name, sp.K, sp.Acceptance, ctx, sr.TokensPerRound, sr.DraftTime, sr.VerifyTime,
		sr.TPOT, sr.PlainTPOT, sr.Speedup, sr.BreakEven, sr.ExtraMemory, r.Memory.Total+sr.ExtraMemory <= r.Memory.Usable}
	return x, nil
}
