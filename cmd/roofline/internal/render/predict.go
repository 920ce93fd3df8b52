package render

import (
	"fmt"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

type memoryJSON struct {
	WeightsBytes     float64 `json:"weights_bytes"`
	KVBytes          float64 `json:"kv_bytes"`
	ActivationsBytes float64 `json:"activations_bytes"`
	OverheadBytes    float64 `json:"overhead_bytes"`
	// ReserveBytes is what the runtime leaves free beside its cache
	// (TensorRT-LLM's cache takes a share of the free memory).
	ReserveBytes  float64 `json:"reserve_bytes"`
	TotalBytes    float64 `json:"total_bytes"`
	UsableBytes   float64 `json:"usable_bytes"`
	Fits          bool    `json:"fits"`
	HeadroomBytes float64 `json:"headroom_bytes"`
	MaxContext    *int    `json:"max_context"`
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
	// The peaks the times use: the expected time the runtime's kernel
	// precision, the ideal time the fastest precision the format allows
	// on the engine (and the datasheet bandwidth, inputs').
	Precision        string  `json:"precision"`
	PeakOpsPerS      float64 `json:"peak_ops_per_s"`
	IdealPrecision   string  `json:"ideal_precision"`
	IdealPeakOpsPerS float64 `json:"ideal_peak_ops_per_s"`
}

// efficiencyJSON is a hardware.Efficiency, every parameter of it: what a
// prediction was priced at, and a runtime's class.
type efficiencyJSON struct {
	Bandwidth      float64 `json:"bandwidth"`
	ComputeMax     float64 `json:"compute_max"`
	HalfRows       float64 `json:"half_rows"`
	Attention      float64 `json:"attention"`
	StepOverheadS  float64 `json:"step_overhead_s"`
	PassOverheadS  float64 `json:"pass_overhead_s"`
	LayerOverheadS float64 `json:"layer_overhead_s"`
	// UnitBandwidth is B/s per compute unit and UnitCompute FLOP/s per
	// compute unit (0: no cap); Dequant the share of the matrix efficiency
	// a dequantizing kernel keeps; HostWork FLOP per token and layer on
	// the host CPU; KQuantGEMV the share of the peak a decode step's
	// K-quant products unpack and multiply at (0: no such bound);
	// ReadShare the share of the device's measured read a GPU's decode
	// streams at (0: none).
	UnitBandwidth float64 `json:"unit_bandwidth_bytes_per_s"`
	Dequant       float64 `json:"dequant"`
	UnitCompute   float64 `json:"unit_compute_flop_per_s"`
	HostWork      float64 `json:"host_work_flop"`
	KQuantGEMV    float64 `json:"kquant_gemv"`
	ReadShare     float64 `json:"read_share"`
}

func newEfficiencyJSON(e hardware.Efficiency) efficiencyJSON {
	return efficiencyJSON{e.Bandwidth, e.ComputeMax, e.HalfRows, e.Attention, e.StepOverhead, e.PassOverhead, e.LayerOverhead,
		e.UnitBandwidth, e.Dequant, e.UnitCompute, e.HostWork, e.KQuantGEMV, e.ReadShare}
}

// InputsJSON echoes what a prediction resolved.
type InputsJSON struct {
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
	// ClassIntervals are the phases whose interval is the runtime class's
	// although the efficiency is calibrated (the runs did not measure them).
	ClassIntervals   []string `json:"class_intervals,omitempty"`
	PrefillOverheadS float64  `json:"prefill_overhead_s"`
	DecodeOverheadS  float64  `json:"decode_overhead_s"`
	StorageBytesPerS float64  `json:"storage_bandwidth_bytes_per_s"`
	Prompt           int      `json:"prompt"`
	Output           int      `json:"output"`
	Batch            int      `json:"batch"`
	Depth            int      `json:"depth"`
	UBatch           int      `json:"ubatch"`
	// UBatchFrom says where ubatch comes from: "given", or the runtime's
	// default and why; PrefillOrder how its passes take a batch's prompts.
	UBatchFrom   string `json:"ubatch_from"`
	PrefillOrder string `json:"prefill_order"`
	Cold         bool   `json:"cold"`
	// Settings are the runtime's settings the prediction is priced at
	// (RKLLM's conversion context and clocks); nil for a runtime without.
	Settings *settingsJSON `json:"settings,omitempty"`
	// Threads are the cores a CPU engine was set to run on, of the Cores
	// its profile counts (omitted when not set); ThreadsNote says what
	// they did.
	Threads     int    `json:"threads,omitempty"`
	Cores       int    `json:"cores,omitempty"`
	ThreadsNote string `json:"threads_note,omitempty"`
}

// settingsJSON is a prediction's runtime settings and the fitted factors
// on decode and prefill time they bring (1 at the runtime's reference).
type settingsJSON struct {
	MaxContext    int     `json:"max_context,omitempty"`
	Clocks        string  `json:"clocks,omitempty"`
	DecodeFactor  float64 `json:"decode_factor"`
	PrefillFactor float64 `json:"prefill_factor"`
	Note          string  `json:"note"`
}

type warningJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// PredictJSON is predict's answer in the JSON vocabulary.
type PredictJSON struct {
	TTFT                 float64  `json:"ttft_s"`
	TPOT                 *float64 `json:"tpot_s"`
	E2E                  float64  `json:"e2e_s"`
	ITLFirst             *float64 `json:"itl_first_s"`
	ITLLast              *float64 `json:"itl_last_s"`
	PrefillTokensPerS    float64  `json:"prefill_tokens_per_s"`
	DecodeTokensPerS     *float64 `json:"decode_tokens_per_s"`
	ThroughputTokensPerS *float64 `json:"throughput_tokens_per_s"`
	TTFTBound            float64  `json:"ttft_bound_s"`
	TPOTBound            *float64 `json:"tpot_bound_s"`
	E2EBound             float64  `json:"e2e_bound_s"`
	PrefillBound         string   `json:"prefill_bound"`
	DecodeBound          *string  `json:"decode_bound"`
	RidgeFLOPPerByte     float64  `json:"ridge_flop_per_byte"`
	ComputeBoundBatch    *int     `json:"compute_bound_batch"`
	// ExpectedComputeBoundBatch is where decode turns compute-bound at
	// the expected efficiencies (the decode bound and notes' basis).
	ExpectedComputeBoundBatch *int               `json:"expected_compute_bound_batch"`
	KVShareLastStep           *float64           `json:"kv_share_last_step"`
	LoadS                     float64            `json:"load_s"`
	ColdTTFT                  *float64           `json:"cold_ttft_s,omitempty"`
	TTFTInterval              []float64          `json:"ttft_interval_s,omitempty"`
	TPOTInterval              []float64          `json:"tpot_interval_s,omitempty"`
	E2EInterval               []float64          `json:"e2e_interval_s,omitempty"`
	ThroughputInterval        []float64          `json:"throughput_interval_tokens_per_s,omitempty"`
	IntervalLevel             float64            `json:"interval_level,omitempty"`
	IntervalsWidened          []string           `json:"intervals_widened,omitempty"`
	Memory                    memoryJSON         `json:"memory"`
	Prefill                   phaseJSON          `json:"prefill"`
	Decode                    *phaseJSON         `json:"decode"`
	Energy                    *PredictEnergyJSON `json:"energy,omitempty"`
	EnergyUnavailable         string             `json:"energy_unavailable,omitempty"`
	Speculative               *SpecJSON          `json:"speculative,omitempty"`
	// Split is the placement of a model spread over devices or memories.
	Split *splitJSON `json:"split,omitempty"`
	// SmallestThatFits says, for a model that does not fit, the fewest
	// devices or the host memory that would hold it.
	SmallestThatFits string        `json:"smallest_that_fits,omitempty"`
	Operators        *OpsJSON      `json:"operators,omitempty"`
	Inputs           InputsJSON    `json:"inputs"`
	Warnings         []warningJSON `json:"warnings"`
}

// PredictEnergyJSON is predict's energy estimate.
type PredictEnergyJSON struct {
	Basis string `json:"basis"`
	energyFiguresJSON
}

// SpecJSON is speculative decoding with a draft.
type SpecJSON struct {
	Draft          string  `json:"draft"`
	DraftWeights   string  `json:"draft_weights"`
	K              int     `json:"draft_tokens"`
	Acceptance     float64 `json:"acceptance"`
	Context        int     `json:"context"`
	TokensPerRound float64 `json:"tokens_per_round"`
	DraftS         float64 `json:"draft_s"`
	VerifyS        float64 `json:"verify_s"`
	TPOT           float64 `json:"tpot_s"`
	PlainTPOT      float64 `json:"plain_tpot_s"`
	Speedup        float64 `json:"speedup"`
	BreakEven      float64 `json:"break_even_acceptance"`
	ExtraMemory    float64 `json:"extra_memory_bytes"`
	Fits           bool    `json:"fits_with_draft"`
}

func newSpecJSON(s *app.Speculative) *SpecJSON {
	if s == nil {
		return nil
	}
	return &SpecJSON{s.Draft, s.DraftWeights, s.K, s.Acceptance, s.Context, s.TokensPerRound, s.DraftTime, s.VerifyTime,
		s.TPOT, s.PlainTPOT, s.Speedup, s.BreakEven, s.ExtraMemory, s.Fits}
}

func newPhaseJSON(p sim.Phase, in sim.Inputs) phaseJSON {
	return phaseJSON{p.Steps, p.Time, p.IdealTime, p.MemoryTime, p.ComputeTime, p.OverheadTime, p.Bytes, p.FLOPs, p.Intensity, string(p.Bound), p.ComputeBoundSteps,
		string(in.Precision), in.Peak, string(in.IdealPrecision), in.IdealPeak}
}

// NewInputsJSON echoes a prediction's inputs; why says why its runtime.
func NewInputsJSON(in sim.Inputs, why string) InputsJSON {
	return InputsJSON{in.Model, in.Device, in.Engine, string(in.EngineKind), in.Runtime, why, in.Weights, in.KV,
		string(in.Precision), in.Peak, in.PeakSource, in.PeakDerived, string(in.IdealPrecision), in.IdealPeak, in.Bandwidth,
		newEfficiencyJSON(in.Efficiency),
		in.EfficiencyFrom, in.ClassIntervals, in.PrefillOverhead, in.DecodeOverhead,
		in.StorageBandwidth, in.Workload.Prompt, in.Workload.Output, in.Workload.Batch, in.Workload.Depth, in.Workload.UBatch,
		in.UBatchFrom, string(in.PrefillOrder), in.Cold, newSettingsJSON(in), in.Threads, in.Cores, in.ThreadsNote}
}

func newSettingsJSON(in sim.Inputs) *settingsJSON {
	if in.SettingsNote == "" {
		return nil
	}
	return &settingsJSON{in.Settings.MaxContext, in.Settings.Clocks, in.DecodeFactor, in.PrefillFactor, in.SettingsNote}
}

// NewPredictJSON is a prediction in the JSON vocabulary.
func NewPredictJSON(p *app.Prediction) PredictJSON {
	r := p.Result
	j := PredictJSON{
		TTFT: r.TTFT, TPOT: num(r.TPOT), E2E: r.E2E, ITLFirst: num(r.ITLFirst), ITLLast: num(r.ITLLast),
		PrefillTokensPerS: r.PrefillTokensPerS, DecodeTokensPerS: num(r.DecodeTokensPerS), ThroughputTokensPerS: num(r.ThroughputTokensPerS),
		TTFTBound: r.TTFTBound, TPOTBound: num(r.TPOTBound), E2EBound: r.E2EBound,
		PrefillBound: string(r.Prefill.Bound), RidgeFLOPPerByte: r.Ridge, KVShareLastStep: num(r.KVShareLast),
		LoadS: r.LoadTime,
		Memory: memoryJSON{r.Memory.Weights, r.Memory.KV, r.Memory.Activations, r.Memory.Overhead, r.Memory.Reserve, r.Memory.Total,
			r.Memory.Usable, r.Memory.Fits, r.Memory.Headroom, nil, ""},
		Prefill:     newPhaseJSON(r.Prefill, r.Inputs),
		Inputs:      NewInputsJSON(r.Inputs, p.Why),
		Warnings:    []warningJSON{},
		Speculative: newSpecJSON(p.Speculative),
		Split:       newSplitJSON(r, p.Smallest),
		Operators:   newOpsJSON(p.Ops),
	}
	if r.Split == nil {
		j.SmallestThatFits = p.Smallest
	}
	if r.Decode.Steps > 0 {
		d := newPhaseJSON(r.Decode, r.Inputs)
		j.Decode = &d
		b := string(r.Decode.Bound)
		j.DecodeBound = &b
	}
	if r.ComputeBoundBatch > 0 {
		b := r.ComputeBoundBatch
		j.ComputeBoundBatch = &b
	}
	if p.ExpectedComputeBoundBatch > 0 {
		b := p.ExpectedComputeBoundBatch
		j.ExpectedComputeBoundBatch = &b
	}
	if r.Memory.MaxContext >= 0 {
		mc := r.Memory.MaxContext
		j.Memory.MaxContext = &mc
		j.Memory.MaxContextBound = r.Memory.ContextBound
	}
	if r.Inputs.Cold {
		j.ColdTTFT = num(r.ColdTTFT)
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
	for _, w := range []struct {
		key string
		iv  *sim.Interval
	}{{"tpot", r.TPOTInterval}, {"e2e", r.E2EInterval}, {"throughput", r.ThroughputInterval}} {
		if w.iv != nil && w.iv.Widened {
			// Joined with the held-out MoE decode runs' range: more
			// than interval_level covers.
			j.IntervalsWidened = append(j.IntervalsWidened, w.key)
		}
	}
	if e := p.Energy; e != nil {
		j.Energy = &PredictEnergyJSON{EnergyBasis(e.EnergyBasis), newEnergyFiguresJSON(e.Energy)}
	}
	j.EnergyUnavailable = p.NoEnergy
	return j
}

// optional is a CSV cell that is empty when undefined.
func optional(v float64) Cell {
	if p := num(v); p != nil {
		return D(*p)
	}
	return Cell{}
}

// predictTable is a prediction as one CSV row, SI units at full precision.
// Optional figures keep their columns, empty when absent, so rows of
// different runs line up.
func predictTable(p *app.Prediction) *Table {
	r, in := p.Result, p.Result.Inputs
	w := in.Workload
	t := &Table{}
	var row []Cell
	add := func(key string, c Cell) {
		t.Cols = append(t.Cols, Col{Key: key})
		row = append(row, c)
	}
	for _, kv := range []struct{ k, v string }{{"model", in.Model}, {"hardware", in.Device}, {"engine", in.Engine},
		{"weights", in.Weights}, {"kv", in.KV}, {"precision", string(in.Precision)}} {
		add(kv.k, C(kv.v))
	}
	for _, kv := range []struct {
		k string
		v int
	}{{"prompt", w.Prompt}, {"output", w.Output}, {"batch", w.Batch}, {"depth", w.Depth}, {"ubatch", w.UBatch}} {
		add(kv.k, D(kv.v))
	}
	add("ttft_s", D(r.TTFT))
	add("tpot_s", optional(r.TPOT))
	add("e2e_s", D(r.E2E))
	add("itl_first_s", optional(r.ITLFirst))
	add("itl_last_s", optional(r.ITLLast))
	add("prefill_tokens_per_s", D(r.PrefillTokensPerS))
	add("decode_tokens_per_s", optional(r.DecodeTokensPerS))
	add("throughput_tokens_per_s", optional(r.ThroughputTokensPerS))
	add("ttft_bound_s", D(r.TTFTBound))
	add("tpot_bound_s", optional(r.TPOTBound))
	add("e2e_bound_s", D(r.E2EBound))
	add("prefill_bound", C(string(r.Prefill.Bound)))
	db := ""
	if r.Decode.Steps > 0 {
		db = string(r.Decode.Bound)
	}
	add("decode_bound", C(db))
	add("load_s", D(r.LoadTime))
	m := r.Memory
	add("weights_bytes", D(m.Weights))
	add("kv_bytes", D(m.KV))
	add("activations_bytes", D(m.Activations))
	add("overhead_bytes", D(m.Overhead))
	add("reserve_bytes", D(m.Reserve))
	add("total_bytes", D(m.Total))
	add("usable_bytes", D(m.Usable))
	add("fits", D(m.Fits))
	add("bandwidth_efficiency", D(in.Efficiency.Bandwidth))
	add("compute_efficiency", D(in.Efficiency.ComputeMax))
	add("peak_ops_per_s", D(in.Peak))
	add("bandwidth_bytes_per_s", D(in.Bandwidth))
	var power, idle, duty, avg, jTok, jAns, perWh, answers, hours, specTPOT, speedup Cell
	if e := p.Energy; e != nil {
		power, duty, avg = optional(e.Run), optional(e.DutyCycle), optional(e.AveragePower)
		jTok, jAns, perWh = optional(e.JoulesPerToken), optional(e.JoulesPerAnswer), optional(e.TokensPerWh)
		if e.Idle > 0 {
			idle = optional(e.Idle)
		}
		if e.BatteryWh > 0 {
			answers, hours = optional(e.AnswersPerCharge), optional(e.HoursOfUse)
		}
	}
	if sp := p.Speculative; sp != nil {
		specTPOT, speedup = optional(sp.TPOT), optional(sp.Speedup)
	}
	add("power_w", power)
	add("idle_power_w", idle)
	add("duty_cycle", duty)
	add("average_power_w", avg)
	add("joules_per_token", jTok)
	add("joules_per_answer", jAns)
	add("tokens_per_wh", perWh)
	add("answers_per_charge", answers)
	add("hours_of_use", hours)
	add("speculative_tpot_s", specTPOT)
	add("speculative_speedup", speedup)
	// The share of the measured read decode streams at, and the
	// intervals, as JSON gives them (efficiency.read_share,
	// …_interval_s, interval_level, intervals_widened): after the older
	// columns, so that those keep their places.
	add("read_share", D(in.Efficiency.ReadShare))
	var level Cell
	var widened []string
	ends := func(iv *sim.Interval, key string) (lo, hi Cell) {
		if iv == nil {
			return Cell{}, Cell{}
		}
		level = D(iv.Level)
		if iv.Widened {
			widened = append(widened, key)
		}
		return optional(iv.Lo), optional(iv.Hi)
	}
	for _, w := range []struct {
		key, unit string
		iv        *sim.Interval
	}{{"ttft", "s", r.TTFTInterval}, {"tpot", "s", r.TPOTInterval}, {"e2e", "s", r.E2EInterval}, {"throughput", "tokens_per_s", r.ThroughputInterval}} {
		lo, hi := ends(w.iv, w.key)
		add(w.key+"_low_"+w.unit, lo)
		add(w.key+"_high_"+w.unit, hi)
	}
	add("interval_level", level)
	// Space-separated, as JSON's list: tpot e2e throughput.
	add("intervals_widened", C(strings.Join(widened, " ")))
	t.Rows = [][]Cell{row}
	return t
}

// predictWarnings are the choice's notes, then the result's warnings.
func predictWarnings(p *app.Prediction) []string {
	out := append([]string(nil), p.Notes...)
	for _, w := range p.Result.Warnings {
		out = append(out, w.Message+buildFlag(p.Result, w.Code))
	}
	if sp := p.Speculative; sp != nil && !sp.Fits {
		out = append(out, fmt.Sprintf("the target and the draft %s DO NOT FIT in usable memory together (the draft needs %s more); the speculative TPOT assumes they do", sp.Draft, Bytes(sp.ExtraMemory)))
	}
	return out
}

// buildFlag names the flag that prices another build of an engine whose
// KV pool and static batch its build sets (sim.Memory.Pool), after a
// warning that asks for one: "" otherwise.
func buildFlag(r *sim.Result, code string) string {
	if !r.Memory.Pool {
		return ""
	}
	switch code {
	case "queued":
		return fmt.Sprintf(" with --max-seqs %d", r.Inputs.Workload.Batch)
	case "does-not-fit":
		return " (--max-seqs N prices an engine built with N rows)"
	}
	return ""
}

// Predict is `roofline predict`.
func Predict(p *app.Prediction) Answer {
	return answer{
		doc:  func() *Doc { return predictDoc(p) },
		data: func() any { return NewPredictJSON(p) },
		table: func() *Table {
			if p.Ops != nil {
				return opsTable(p.Ops)
			}
			return predictTable(p)
		},
		warnings: predictWarnings(p),
	}
}

func withInterval(v float64, iv *sim.Interval) string {
	if iv == nil {
		return Duration(v)
	}
	return fmt.Sprintf("%s (%s: %s–%s)", Duration(v), IntervalLabel(iv), Duration(iv.Lo), Duration(iv.Hi))
}

// IntervalLabel is an interval's level ("80%"), said to be widened where
// its decode part is joined with the range of MoE decode runs held out of
// scope ("80% widened": it covers more than its level).
func IntervalLabel(iv *sim.Interval) string { return levelLabel(iv.Level, iv.Widened) }

// levelLabel is IntervalLabel of an interval at level, widened or not: the
// one label of predict's intervals, plan's slow ends and serve's ranges.
func levelLabel(level float64, widened bool) string {
	if widened {
		return fmt.Sprintf("%.0f%% widened", 100*level)
	}
	return fmt.Sprintf("%.0f%%", 100*level)
}

// resultTable is the core result table of text and Markdown.
func resultTable(p *app.Prediction, head string) *Table {
	r := p.Result
	t := NewTable(head, "EXPECTED", "IDEAL", "BOUND").Right(1, 2)
	in := r.Inputs
	ideal := "ideal at " + IdealPeakText(in)
	if s := r.Split; s != nil && elsewhere(in, s.IdealPrefill) {
		ideal = idealPartText(s.IdealPrefill, 1, r.TTFTBound)
	}
	pre := fmt.Sprintf("%s: %d pass(es), %sFLOP, %sB, %s FLOP/B; %s", r.Prefill.Bound, r.Prefill.Steps,
		Count(r.Prefill.FLOPs), Count(r.Prefill.Bytes), Intensity(r.Prefill.Intensity), ideal)
	t.Add("TTFT", withInterval(r.TTFT, r.TTFTInterval), Duration(r.TTFTBound), pre)
	if r.Decode.Steps > 0 {
		dec := fmt.Sprintf("%s: %d steps, %s FLOP/B, KV %.0f%% → %.0f%% of bytes", r.Decode.Bound, r.Decode.Steps,
			Intensity(r.Decode.Intensity), 100*r.KVShareFirst, 100*r.KVShareLast)
		if s := r.Split; s != nil && elsewhere(in, s.IdealDecode) {
			dec += "; " + idealPartText(s.IdealDecode, r.Decode.Steps, r.TPOTBound)
		}
		t.Add("TPOT (mean ITL)", withInterval(r.TPOT, r.TPOTInterval), Duration(r.TPOTBound), dec)
		t.Add("ITL first → last", Duration(r.ITLFirst)+" → "+Duration(r.ITLLast), "", "grows with the KV cache")
	} else {
		t.Add("TPOT (mean ITL)", Dash, Dash, "no decode step (--output-tokens 1)")
	}
	t.Add("E2E", withInterval(r.E2E, r.E2EInterval), Duration(r.E2EBound), "TTFT + Σ ITL")
	t.Add("prefill", Rate(r.PrefillTokensPerS, "tok/s"), "", "")
	t.Add("decode", Rate(r.DecodeTokensPerS, "tok/s"), "", "per sequence")
	if b, tg := r.Inputs.Workload.Batch, r.Together(); b > 1 && tg < b {
		t.Add("throughput", Rate(r.ThroughputTokensPerS, "tok/s"), "", fmt.Sprintf("aggregate over the %d of %d sequences decoding at once", tg, b))
	} else if b > 1 {
		t.Add("throughput", Rate(r.ThroughputTokensPerS, "tok/s"), "", fmt.Sprintf("aggregate over %d sequences", b))
	}
	if r.Inputs.Cold {
		t.Add("cold TTFT", Duration(r.ColdTTFT), "", fmt.Sprintf("load %s from storage at %s, then prefill", Duration(r.LoadTime), Bandwidth(r.Inputs.StorageBandwidth)))
	}
	energyRows(t, p.Energy, p.NoEnergy)
	if sp := p.Speculative; sp != nil {
		fits := ""
		if !sp.Fits {
			fits = "; DOES NOT FIT beside the target"
		}
		t.Add("speculative TPOT", Duration(sp.TPOT), "", fmt.Sprintf("draft %s (%s), k %d, a %.2f: %.2f× at context %d; pays off above a = %.2f%s",
			sp.Draft, sp.DraftWeights, sp.K, sp.Acceptance, sp.Speedup, sp.Context, sp.BreakEven, fits))
	}
	return t
}

func memoryTable(r *sim.Result) *Table {
	m := r.Memory
	t := NewTable("MEMORY", "BYTES", "SHARE OF USABLE").Right(1, 2)
	row := func(name string, b float64) { t.Add(name, Bytes(b), Percent1(b/m.Usable)) }
	row("weights", m.Weights)
	kv := fmt.Sprintf("KV cache (%d × %d tokens)", m.KVRows, m.KVTokens) // the sequences held at once
	if m.Pool {
		kv = fmt.Sprintf("KV cache (%d × %d tokens: the engine's)", m.KVRows, m.KVTokens)
	}
	row(kv, m.KV)
	row("activations (peak)", m.Activations)
	row("runtime overhead", m.Overhead)
	if m.Reserve > 0 {
		row(fmt.Sprintf("left free beside the cache (%s of free memory)", Percent(1-r.Inputs.CacheShare)), m.Reserve)
	}
	row("total", m.Total)
	t.Add("usable", Bytes(m.Usable), "")
	return t
}

// elsewhere reports whether the largest part of a split phase's ideal is
// spent away from the main engine's peaks (IdealPeakText): on a link, or
// on another device's engine.
func elsewhere(in sim.Inputs, p sim.IdealPart) bool {
	return p.Time > 0 && (p.Link || p.Where != in.Device+" "+in.Engine)
}

// idealPartText says where the largest part of a split phase's ideal
// goes, per unit of the phase's n (1: the whole phase; its steps: per
// step), beside the ideal it is part of.
func idealPartText(p sim.IdealPart, n int, ideal float64) string {
	k := float64(max(n, 1))
	per := ""
	if n > 1 {
		per = " a step"
	}
	what := fmt.Sprintf("%sB%s over %s at %s", Count(p.Amount/k), per, p.Where, Bandwidth(p.Rate))
	switch {
	case p.Bound == sim.ComputeBound:
		what = fmt.Sprintf("%sFLOP%s on %s at %s", Count(p.Amount/k), per, p.Where, units.FormatRate(p.Rate, "FLOP/s"))
	case !p.Link:
		what = fmt.Sprintf("%sB%s from %s's memory at %s", Count(p.Amount/k), per, p.Where, Bandwidth(p.Rate))
	}
	return fmt.Sprintf("ideal bound by %s: %s of %s", what, Duration(p.Time/k), Duration(ideal))
}

// IdealPeakText is the peaks an ideal time is computed at: the fastest
// precision the format allows on the engine, and the datasheet bandwidth.
func IdealPeakText(in sim.Inputs) string {
	return fmt.Sprintf("%s %s and %s", in.IdealPrecision, Ops(in.IdealPeak, in.IdealPrecision), Bandwidth(in.Bandwidth))
}

// computeText is the peak the expected times use, and the ideal's when it
// is another.
func computeText(in sim.Inputs, ridge float64) string {
	s := fmt.Sprintf("%s at %s (%s), ridge %s FLOP/B", in.Precision, Ops(in.Peak, in.Precision), peakKind(in), Intensity(ridge))
	if in.IdealPrecision != in.Precision {
		s += fmt.Sprintf("; IDEAL at %s %s, the fastest precision %s allows on this engine (%s runs %s)",
			in.IdealPrecision, Ops(in.IdealPeak, in.IdealPrecision), in.Weights, in.Runtime, in.Precision)
	}
	return s
}

// peakKind says what kind of figure the peak is: a datasheet's dense
// peak, or one the profile derives (the reasoning is in the notes).
func peakKind(in sim.Inputs) string {
	if in.PeakDerived {
		return "dense peak, derived: see the note"
	}
	return "dense peak"
}

// PassesText says how the prefill's passes take the prompts and where
// their size comes from: "8192 tokens per pass (tensorrt-llm's default
// max_num_tokens): 4 whole prompts per pass, 20 passes".
func PassesText(r *sim.Result) string {
	in, w := r.Inputs, r.Inputs.Workload
	from := in.UBatchFrom
	if from == "given" {
		from = "given: --ubatch"
	}
	seqs, n := r.Together(), r.Prefill.Steps
	passes := fmt.Sprintf("%d passes", n)
	var how string
	switch {
	case n <= 1 && seqs == 1:
		how = "the whole prompt in one pass"
	case n <= 1:
		how = fmt.Sprintf("all %d prompts in one pass", seqs)
	case seqs == 1:
		how = "the prompt in " + passes
	case in.PrefillOrder == runtimes.InOrder && w.Prompt <= w.UBatch:
		how = fmt.Sprintf("%d whole prompts per pass, %s", min(seqs, w.UBatch/w.Prompt), passes)
	case in.PrefillOrder == runtimes.InOrder:
		how = "each prompt alone, " + passes
	default:
		how = fmt.Sprintf("%d tokens of each of the %d sequences per pass, %s", max(1, w.UBatch/seqs), seqs, passes)
	}
	return fmt.Sprintf("%d tokens per pass (%s): %s", w.UBatch, from, how)
}

func efficiencyText(in sim.Inputs, rows float64) string {
	e := in.Efficiency
	out := fmt.Sprintf("bandwidth %.2f, matrix products %.2f at %s rows (%.2f at most), attention %.2f", e.Bandwidth,
		e.Matmul(rows, in.Peak), Intensity(rows), e.ComputeMax, e.Attention)
	if e.UnitCompute > 0 && in.Units > 0 {
		out += fmt.Sprintf("; products capped at %d units × %s", in.Units, Ops(e.UnitCompute, in.Precision))
	}
	if r := in.ReadBandwidth(); r > 0 {
		at := Bandwidth(r)
		if in.ReadCapped() {
			// No memory streams past its datasheet's peak.
			at = "capped at the datasheet's " + at
		}
		out += fmt.Sprintf("; decode streams %.3g × the measured read of %s, %s (the bandwidth share is prefill's)",
			e.ReadShare, Bandwidth(in.MeasuredBandwidth), at)
	}
	if e.KQuantGEMV > 0 && in.UnpackShare > 0 {
		// sim's unpackBound: the unpacking arithmetic beside a decode
		// step's memory time (docs/method.md "K-quants on Metal").
		prec := in.Precision
		if in.UnpackPeak != in.Peak {
			prec = units.FP32
		}
		out += fmt.Sprintf("; decode unpacks %.0f %% of the products' work weight by weight at %.3g of the %s peak (%s), beside its memory time", 100*in.UnpackShare, e.KQuantGEMV, prec, Ops(e.KQuantGEMV*in.UnpackPeak, prec))
	}
	return out
}

func overheadText(in sim.Inputs) string {
	e := in.Efficiency
	shared := ""
	if in.LayerUnits > 1 {
		shared = fmt.Sprintf(" / %d %s units", in.LayerUnits, in.EngineKind)
	}
	clock := ""
	if r := in.ClockRatio; r > 0 && r != 1 && !in.Graphless {
		// hardware.Efficiency.AtClocks: a decode step's fixed costs run
		// at the GPU's clock, its cost per step at the host CPU's where
		// the profile gives it, a prefill pass's as fitted unless it is
		// launched from the host (said below).
		ref := Clock(hardware.ReferenceClock)
		if h := in.HostClockRatio; h > 0 {
			clock = fmt.Sprintf("; a decode step's per step ÷ %.3g, the CPU's %s over %s, per layer ÷ %.3g, the GPU's %s", h, Clock(h*hardware.ReferenceClock), ref, r, Clock(r*hardware.ReferenceClock))
		} else {
			clock = fmt.Sprintf("; a decode step's ÷ %.3g, the GPU's %s over %s", r, Clock(r*hardware.ReferenceClock), ref)
		}
	}
	out := fmt.Sprintf("%s per decode step, %s per prefill pass (%s and %s + %d layers × %s%s%s)",
		Duration(in.DecodeOverhead), Duration(in.PrefillOverhead), Duration(e.StepOverhead), Duration(e.PassOverhead), in.Layers, Duration(e.LayerOverhead), shared, clock)
	if in.LaunchedPrefill {
		// sim.Inputs.launchedPrefillOverhead: per layer, the pass's cost
		// at the CPU's clock and the layer's at the GPU's.
		pass, layer := in.LaunchedPrefillLayer()
		each := Duration(layer)
		if pass > 0 {
			each = fmt.Sprintf("(%s + %s)", Duration(pass), Duration(layer))
		}
		out += fmt.Sprintf("; a prefill pass is launched kernel by kernel from the host: %d layers × %s%s", in.Layers, each, shared)
	}
	if in.Graphless {
		out += "; no decode step runs as one graph on this GPU (its compute capability is below what the runtime's graphs need): each launches its kernels from the host and costs a pass's"
	} else if g := in.GraphBatch; g > 0 {
		// sim.Setup.decodeRates: a step the runtime does not replay as
		// one graph launches its kernels as a pass does.
		seqs := "sequences"
		if g == 1 {
			seqs = "sequence"
		}
		out += fmt.Sprintf("; a decode step of more than %d %s is launched kernel by kernel, not as one graph: %s, a pass's", g, seqs, Duration(in.LaunchedDecodeOverhead))
	}
	if e.HostWork > 0 && in.HostPeak > 0 {
		out += fmt.Sprintf("; on the CPU %s per token (%d layers × %s FLOP at %s %s)",
			Duration(float64(in.Layers)*e.HostWork/in.HostPeak), in.Layers, units.Sig(e.HostWork/1e6, 3)+" M", Ops(in.HostPeak, in.HostPrecision), in.HostPrecision)
	}
	if g := in.Graphs; g.On() {
		L := float64(in.Layers)
		out += fmt.Sprintf("; CUDA graphs up to %d tokens a step: a pass holding prompt tokens adds %s (piecewise, %d layers × %s), a step beyond them %s (no graph, %d layers × %s)",
			in.GraphCapture, Duration(L*g.Piecewise), in.Layers, Duration(g.Piecewise), Duration(L*g.Eager), in.Layers, Duration(g.Eager))
	}
	return out
}

// ClassIntervalText says which intervals of a calibrated prediction are
// its runtime class's, and why; "" when none is.
func ClassIntervalText(in sim.Inputs) string {
	var phases []string
	for _, ph := range in.ClassIntervals {
		phases = append(phases, map[string]string{"prefill": "TTFT", "decode": "TPOT"}[ph])
	}
	if len(phases) == 0 {
		return ""
	}
	return fmt.Sprintf("the %s interval%s the runtime class's: the calibration has too few %s runs to measure their scatter",
		strings.Join(phases, " and "), map[bool]string{true: " is", false: "s are"}[len(phases) == 1], strings.Join(in.ClassIntervals, " or "))
}

func predictDoc(p *app.Prediction) *Doc {
	r := p.Result
	in, wl := r.Inputs, r.Inputs.Workload
	doc := &Doc{}
	if m := r.Memory; !m.Fits {
		nf := NotFitText(in.Model, in.Device, m.Total, m.Usable, wl.Context())
		if r.Split != nil {
			nf = splitNotFit(r)
		}
		doc.Raw(nf+"\n", "**"+nf+"**\n\n")
	}
	doc.Raw(fmt.Sprintf("%s on %s (%s engine, %s)\n\n", in.Model, in.Device, in.Engine, in.Runtime),
		fmt.Sprintf("### %s on %s (%s, %s weights, %s KV)\n\n", in.Model, in.Device, in.Engine, in.Weights, in.KV))
	tuning := in.EfficiencyFrom
	if in.FormatCalibrated {
		tuning += "; bandwidth fitted for " + in.Weights
	}
	if !in.FlashAttention {
		tuning += "; unfused attention: KV read once per query head"
	}
	if s := ClassIntervalText(in); s != "" {
		tuning += "; " + s
	}
	rows := float64(r.PrefillRows)
	text := &Doc{}
	pairs := [][2]string{
		{"runtime", in.Runtime + ": " + p.Why},
		{"workload", fmt.Sprintf("prompt %d + depth %d, output %d, batch %d, ubatch %d → context %d per sequence", wl.Prompt, wl.Depth, wl.Output, wl.Batch, wl.UBatch, wl.Context())},
		{"passes", PassesText(r)},
		{"formats", fmt.Sprintf("weights %s (%s), KV %s", in.Weights, Bytes(r.Memory.Weights), in.KV)},
		{"compute", computeText(in, r.Ridge)},
		{"bandwidth", Bandwidth(in.Bandwidth) + " datasheet"},
		{"efficiency", efficiencyText(in, rows)},
		{"from", tuning},
		{"overhead", overheadText(in)},
	}
	if in.SettingsNote != "" {
		pairs = append(pairs, [2]string{"settings", in.SettingsNote})
	}
	if in.ThreadsNote != "" && in.EngineKind == hardware.CPU {
		pairs = append(pairs, [2]string{"threads", in.ThreadsNote})
	}
	text.Pairs(pairs)
	text.Both("\n")
	text.Table(resultTable(p, ""))
	text.Both("\n")
	if r.Split != nil {
		parts, pools := splitTables(r)
		text.Table(parts)
		text.Both("\n")
		text.Table(pools)
		for _, l := range splitLines(r, p.Smallest) {
			text.Line("%s", l)
		}
		md := &Doc{}
		md.Table(resultTable(p, "metric"))
		md.Both("\n")
		md.Table(parts)
		md.Both("\n")
		md.Table(pools)
		for _, l := range splitLines(r, p.Smallest) {
			md.Raw("", "\n"+l+"\n")
		}
		doc.Sub(text, md)
		predictNotes(doc, p)
		return doc
	}
	text.Table(memoryTable(r))
	fit := "fits"
	if !r.Memory.Fits {
		fit = "DOES NOT FIT"
	}
	maxCtx := "any context (every layer is windowed)"
	switch {
	case r.Memory.MaxContext == 0:
		maxCtx = "none: weights, activations and overhead alone exceed usable memory"
	case r.Memory.MaxContext > 0 && r.Memory.ContextBound == sim.BoundByBuild:
		maxCtx = fmt.Sprintf("%d tokens per sequence, the context the engine was built for (--max-context; memory would hold more)", r.Memory.MaxContext)
	case r.Memory.MaxContext > 0 && r.Memory.Pool:
		maxCtx = fmt.Sprintf("%d tokens per sequence (an engine built with %s %d, whose cache of %s fits)", r.Memory.MaxContext, r.Inputs.PoolFlag, r.Memory.MaxContext, sim.Rows(r.Memory.KVRows))
	case r.Memory.MaxContext > 0 && r.Memory.ContextBound == sim.BoundByModel:
		maxCtx = fmt.Sprintf("%d tokens per sequence at batch %d, the model's maximum context (memory would hold more)", r.Memory.MaxContext, r.Together())
	case r.Memory.MaxContext > 0:
		maxCtx = fmt.Sprintf("%d tokens per sequence at batch %d", r.Memory.MaxContext, r.Together())
	}
	text.Line("%s: headroom %s; largest context that fits: %s", fit, SignedBytes(r.Memory.Headroom), maxCtx)
	if sp := p.Speculative; sp != nil && !sp.Fits {
		text.Line("with the draft %s: DOES NOT FIT: its weights and KV cache need %s more, %s beyond the headroom", sp.Draft, Bytes(sp.ExtraMemory), Bytes(sp.ExtraMemory-r.Memory.Headroom))
	}
	if r.Decode.Steps > 0 && !r.Queued {
		text.Line("%s", computeBoundLine(p.ExpectedComputeBoundBatch, r.ComputeBoundBatch, wl.LastStepContext()))
	}
	if p.Smallest != "" {
		text.Line("smallest that would hold it: %s", p.Smallest)
	}
	md := &Doc{}
	md.Raw("", "Compute: "+computeText(in, r.Ridge)+"; bandwidth "+Bandwidth(in.Bandwidth)+" datasheet.\n\n")
	if in.SettingsNote != "" {
		md.Raw("", "Settings: "+in.SettingsNote+".\n\n")
	}
	if in.ThreadsNote != "" && in.EngineKind == hardware.CPU {
		md.Raw("", "Threads: "+in.ThreadsNote+".\n\n")
	}
	md.Table(resultTable(p, "metric"))
	md.Both("\n")
	md.Table(memoryTable(r))
	doc.Sub(text, md)
	if p.Ops != nil {
		doc.Sub(opsDoc(p.Ops), opsDoc(p.Ops))
	}
	predictNotes(doc, p)
	return doc
}

// predictNotes are the notes under a prediction.
func predictNotes(doc *Doc, p *app.Prediction) {
	numberedNotes(doc, predictWarnings(p))
}

// numberedNotes writes notes under an answer: numbered in text, quoted
// in Markdown; nothing when there are none.
func numberedNotes(doc *Doc, notes []string) {
	var tn, mn string
	if len(notes) > 0 {
		tn = "\n"
	}
	for i, n := range notes {
		tn += fmt.Sprintf("note %d: %s\n", i+1, n)
		mn += fmt.Sprintf("\n> note: %s\n", n)
	}
	doc.Raw(tn, mn)
}

// computeBoundLine says at which batch decode turns compute-bound at the
// expected efficiencies — the basis of the decode bound and of the
// compute-bound note, so the three agree — and at peak.
func computeBoundLine(expected, peak, ctx int) string {
	atPeak := "never at peak (KV reads grow with the batch as fast as FLOPs)"
	if peak > 0 {
		atPeak = fmt.Sprintf("at peak from batch %d", peak)
	}
	if expected > 0 {
		return fmt.Sprintf("decode turns compute-bound at batch %d at the expected efficiencies (context %d); %s", expected, ctx, atPeak)
	}
	return fmt.Sprintf("decode stays memory-bound at every batch at the expected efficiencies (context %d); %s", ctx, atPeak)
}
