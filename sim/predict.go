package sim

import (
	"fmt"
	"math"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/units"
)

// Bound names the roofline limit a phase runs into.
type Bound string

// The two roofline bounds.
const (
	MemoryBound  Bound = "memory"
	ComputeBound Bound = "compute"
)

// Phase is the account of prefill or decode.
type Phase struct {
	Steps        int     // prefill passes or decode steps
	Time         float64 // expected, s
	IdealTime    float64 // at 100 % of peak with no overhead, s
	MemoryTime   float64 // Σ memory terms at the expected bandwidth, s
	ComputeTime  float64 // Σ compute terms at the expected compute rate, s
	OverheadTime float64 // Σ fixed overheads, s
	Bytes        float64 // bytes moved
	FLOPs        float64 // operations done
	Intensity    float64 // FLOPs / Bytes
	Bound        Bound   // which roofline term dominates at peak
	// ComputeBoundSteps counts steps whose compute term exceeds the memory
	// term at the expected efficiencies.
	ComputeBoundSteps int
}

// Memory is the memory-fit account, bytes.
type Memory struct {
	Weights     float64
	KV          float64
	Activations float64
	Overhead    float64
	Total       float64
	Usable      float64
	Fits        bool
	Headroom    float64 // Usable − Total; negative when it does not fit
	// MaxContext is the longest context per sequence that fits at this
	// batch, -1 when every layer is windowed and any context fits.
	MaxContext int
}

// Warning is a condition the user should know about; the result is still
// computed.
type Warning struct {
	Code    string
	Message string
}

// Inputs echoes everything a prediction resolved, so every number can be
// traced.
type Inputs struct {
	Model               string
	Device              string
	Engine              string
	EngineKind          hardware.Kind
	Weights             string
	KV                  string
	Precision           units.Precision
	Peak                float64 // FLOP/s at Precision
	Bandwidth           float64 // datasheet B/s
	BandwidthEfficiency float64
	ComputeEfficiency   float64
	StepOverhead        float64 // s per pass (default rule)
	LayerOverhead       float64 // s per layer per pass (default rule)
	Layers              int
	PrefillOverhead     float64 // s per prefill pass
	DecodeOverhead      float64 // s per decode step
	FittedOverheads     bool    // the overheads come from a calibration
	FlashAttention      bool    // fused attention: the KV cache is read once per pass
	FormatCalibrated    bool    // the bandwidth efficiency was fitted for these weights
	Calibrated          bool    // the engine's tuning was fitted to measured runs
	StorageBandwidth    float64
	Overhead            float64 // runtime memory, B
	Workload            Workload
	Cold                bool
}

// Result is one prediction.
type Result struct {
	Inputs Inputs

	TTFT     float64 // s
	TPOT     float64 // mean ITL, s; NaN when Output == 1
	E2E      float64 // TTFT + Σ ITL, s
	ITLFirst float64 // first decode step, s (NaN when Output == 1)
	ITLLast  float64 // last decode step, s

	TTFTBound float64 // ideal TTFT
	TPOTBound float64 // ideal TPOT
	E2EBound  float64 // ideal E2E

	PrefillTokensPerS    float64 // B·P / TTFT
	DecodeTokensPerS     float64 // per sequence, 1 / TPOT
	ThroughputTokensPerS float64 // aggregate decode, B / TPOT

	Prefill Phase
	Decode  Phase

	// Ridge is the engine's ridge point at Precision, FLOP per byte.
	Ridge float64
	// ComputeBoundBatch is the smallest batch whose last decode step is
	// compute-bound at peak, 0 when no batch is.
	ComputeBoundBatch int

	Memory Memory

	// Intervals are 90 % prediction intervals from the engine's
	// calibration; nil when the engine is not calibrated.
	TTFTInterval, TPOTInterval, E2EInterval *Interval

	LoadTime     float64 // weights / storage bandwidth, s
	ColdTTFT     float64 // LoadTime + TTFT when Inputs.Cold, else 0
	Warnings     []Warning
	KVShareFirst float64 // share of the KV cache in the first decode step's bytes
	KVShareLast  float64 // the same in the last step
}

// Setup is a model resolved on a device: the engine, the precision its
// kernels run at, and the efficiencies and overheads that apply. Predict,
// measured-run comparison and calibration all price phases through it.
type Setup struct {
	Model  *model.Cost
	Device *hardware.Device
	Engine *hardware.Engine
	Inputs Inputs // Workload is left empty
}

// NewSetup resolves engine and precision for m on d.
func NewSetup(m *model.Cost, d *hardware.Device, o Options) (*Setup, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	e, err := d.Engine(o.Engine)
	if err != nil {
		return nil, err
	}
	prec, peak, ok := e.Pick(m.Weights.Compute)
	if !ok {
		return nil, fmt.Errorf("engine %s of %s has no peak for %s (weights %s); it has %s: choose another --weights or --engine",
			e.Name, d.Name, joinPrecisions(m.Weights.Compute), m.Weights.Name, joinPrecisions(e.Precisions()))
	}
	in := Inputs{
		Model: m.Spec.Name, Device: d.Name, Engine: e.Name, EngineKind: e.Kind, Weights: m.Weights.Name, KV: m.KV.Name,
		Precision: prec, Peak: peak, Bandwidth: d.Bandwidth,
		BandwidthEfficiency: e.BandwidthEfficiency, ComputeEfficiency: e.ComputeEfficiency,
		StepOverhead: e.StepOverhead, LayerOverhead: e.LayerOverhead,
		StorageBandwidth: d.StorageBandwidth, Cold: o.Cold, Layers: m.Spec.Layers, Overhead: o.RuntimeOverhead,
	}
	if eta, ok := e.FormatBandwidthEfficiency[m.Weights.Name]; ok {
		in.BandwidthEfficiency, in.FormatCalibrated = eta, true
	}
	if o.BandwidthEfficiency > 0 {
		in.BandwidthEfficiency, in.FormatCalibrated = o.BandwidthEfficiency, false
	}
	if o.ComputeEfficiency > 0 {
		in.ComputeEfficiency = o.ComputeEfficiency
	}
	in.FlashAttention = !o.NoFlashAttention
	in.PrefillOverhead, in.DecodeOverhead = e.Overheads(in.Layers)
	in.FittedOverheads = e.Fitted
	in.Calibrated = e.Calibration != nil && o.BandwidthEfficiency == 0 && o.ComputeEfficiency == 0
	return &Setup{Model: m, Device: d, Engine: e, Inputs: in}, nil
}

func (s *Setup) rates() (bw, peak float64) {
	return s.Device.Bandwidth * s.Inputs.BandwidthEfficiency, s.Inputs.Peak * s.Inputs.ComputeEfficiency
}

// Prefill prices processing `prompt` new tokens per sequence for `batch`
// sequences on top of `depth` cached tokens, in passes of `ubatch` tokens.
func (s *Setup) Prefill(prompt, depth, batch, ubatch int) Phase {
	p := newPhases(s.Model, Workload{Prompt: prompt, Output: 1, Batch: batch, Depth: depth, UBatch: ubatch}, s.Inputs.FlashAttention)
	bw, pk := s.rates()
	return phaseOf(p.passes, p.prefill(bw, pk), p.prefill(s.Device.Bandwidth, s.Inputs.Peak), s.Inputs.PrefillOverhead, s.Device.Bandwidth, s.Inputs.Peak)
}

// Decode prices `steps` decode steps of `batch` sequences whose queries
// attend first, first+1, … keys.
func (s *Setup) Decode(first, steps, batch int) Phase {
	if steps <= 0 {
		return Phase{}
	}
	p := newPhases(s.Model, Workload{Prompt: first - 1, Output: steps + 1, Batch: batch, UBatch: 1}, s.Inputs.FlashAttention)
	bw, pk := s.rates()
	return phaseOf(steps, p.decode(bw, pk), p.decode(s.Device.Bandwidth, s.Inputs.Peak), s.Inputs.DecodeOverhead, s.Device.Bandwidth, s.Inputs.Peak)
}

// Predict prices workload w of model m on device d.
func Predict(m *model.Cost, d *hardware.Device, w Workload, o Options) (*Result, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	s, err := NewSetup(m, d, o)
	if err != nil {
		return nil, err
	}
	return s.Predict(w)
}

// Predict prices workload w.
func (s *Setup) Predict(w Workload) (*Result, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	m, d, e := s.Model, s.Device, s.Engine
	in := s.Inputs
	in.Workload = w
	r := &Result{Inputs: in, Ridge: in.Peak / d.Bandwidth}
	p := newPhases(m, w, in.FlashAttention)
	bw, pk := s.rates()
	peak := in.Peak

	// Prefill.
	r.Prefill = phaseOf(p.passes, p.prefill(bw, pk), p.prefill(d.Bandwidth, peak), in.PrefillOverhead, d.Bandwidth, peak)
	r.TTFT = r.Prefill.Time
	r.TTFTBound = r.Prefill.IdealTime
	r.PrefillTokensPerS = float64(w.Batch*w.Prompt) / r.TTFT

	// Decode.
	steps := w.Output - 1
	r.TPOT, r.ITLFirst, r.ITLLast, r.TPOTBound = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if steps > 0 {
		r.Decode = phaseOf(steps, p.decode(bw, pk), p.decode(d.Bandwidth, peak), in.DecodeOverhead, d.Bandwidth, peak)
		r.TPOT = r.Decode.Time / float64(steps)
		r.TPOTBound = r.Decode.IdealTime / float64(steps)
		first, last := p.firstStep(), p.lastStep()
		r.ITLFirst = p.stepTime(first, bw, pk) + in.DecodeOverhead
		r.ITLLast = p.stepTime(last, bw, pk) + in.DecodeOverhead
		r.DecodeTokensPerS = 1 / r.TPOT
		r.ThroughputTokensPerS = float64(w.Batch) / r.TPOT
		r.KVShareFirst = p.kvShare(first)
		r.KVShareLast = p.kvShare(last)
	} else {
		r.warn("no-decode", "--output 1: the prefill yields the only token, so TPOT and ITL are undefined")
	}
	r.E2E = r.TTFT + r.Decode.Time
	r.E2EBound = r.TTFTBound + r.Decode.IdealTime
	r.ComputeBoundBatch = computeBoundBatch(m, w, p.kvReads, d.Bandwidth, peak)

	r.Memory = memoryFit(m, d, w, p.perSeq, in.Overhead)
	r.LoadTime = m.WeightBytes / d.StorageBandwidth
	if in.Cold {
		r.ColdTTFT = r.LoadTime + r.TTFT
	}
	r.warnings(m, d, e)
	if in.Calibrated {
		s.intervals(r, w)
	}
	return r, nil
}

func joinPrecisions(ps []units.Precision) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

func phaseOf(steps int, exp, ideal sums, overhead, bw, peak float64) Phase {
	ph := Phase{
		Steps:             steps,
		OverheadTime:      float64(steps) * overhead,
		MemoryTime:        exp.memory,
		ComputeTime:       exp.compute,
		IdealTime:         ideal.time,
		Bytes:             ideal.memory * bw,
		FLOPs:             ideal.compute * peak,
		ComputeBoundSteps: exp.computeBound,
	}
	ph.Time = exp.time + ph.OverheadTime
	ph.Intensity = ph.FLOPs / ph.Bytes
	ph.Bound = MemoryBound
	if ideal.compute > ideal.memory {
		ph.Bound = ComputeBound
	}
	return ph
}

// phases holds what both phases need, computed once.
type phases struct {
	m *model.Cost
	w Workload
	// kvReads is how many times a pass reads each sequence's KV cache: 1
	// with fused (flash) attention, the GQA group without it, where the
	// score and value products read K and V once per query head.
	kvReads float64
	perSeq  int // prefill tokens per sequence per pass
	passes  int
	last    int // tokens per sequence in the last pass
	// weight and activation bytes of a full prefill pass, the last pass,
	// and a decode step
	fullW, lastW, stepW float64
	// passBytes and passFLOPs are added to every prefill pass: the decode
	// tokens of other sequences batched with it (Setup.JoinTTFT).
	passBytes, passFLOPs float64
}

func newPhases(m *model.Cost, w Workload, flashAttention bool) phases {
	p := phases{m: m, w: w, kvReads: 1}
	if !flashAttention {
		p.kvReads = float64(m.Spec.GQAGroup())
	}
	p.perSeq = max(1, w.UBatch/w.Batch)
	p.passes = (w.Prompt + p.perSeq - 1) / p.perSeq
	p.last = w.Prompt - (p.passes-1)*p.perSeq
	B := w.Batch
	if w.Prompt > 0 {
		p.fullW = m.StreamedBytes(B*p.perSeq, false) + m.ActivationBytes(B*p.perSeq)
		p.lastW = m.StreamedBytes(B*p.last, true) + m.ActivationBytes(B*p.last)
	}
	if w.Output > 1 {
		p.stepW = m.StreamedBytes(B, true)
	}
	return p
}

// prefillPass is full pass k (0 ≤ k < passes−1): every sequence processes
// perSeq tokens after D + k·perSeq, reads its KV cache once and appends.
func (p *phases) prefillPass(k int) (bytes, flops float64) {
	B, s := float64(p.w.Batch), p.w.Depth+k*p.perSeq
	bytes = p.fullW + B*p.kvReads*p.m.KVBytes(s+p.perSeq) + p.passBytes
	flops = B*p.m.PrefillFLOPs(s, p.perSeq, 0) + p.passFLOPs
	return bytes, flops
}

func (p *phases) prefill(bw, peak float64) sums {
	full := p.passes - 1
	// Between these cuts the attention span and the KV read of a pass are
	// linear in k: a pass ending inside a window, the (at most one) pass
	// straddling it, passes starting past it.
	var buf [8]int
	cuts := buf[:0]
	for _, win := range p.m.Windows() {
		u, D := p.perSeq, p.w.Depth
		ka := floorDiv(win-D-u, u) // last pass ending at or before the window
		kb := ceilDiv(win-D, u)    // first pass starting at or after it
		cuts = append(cuts, ka+1, kb)
	}
	s := p.sumMax(false, 0, full-1, cuts, bw, peak)
	// The last pass is shorter and computes the logits.
	B, st := float64(p.w.Batch), p.w.Depth+full*p.perSeq
	b := p.lastW + B*p.kvReads*p.m.KVBytes(st+p.last) + p.passBytes
	f := B*p.m.PrefillFLOPs(st, p.last, 1) + p.passFLOPs
	s.add(point(b/bw, f/peak))
	return s
}

// decodeStep is the step whose queries attend ctx keys.
func (p *phases) decodeStep(ctx int) (bytes, flops float64) {
	B := float64(p.w.Batch)
	return p.stepW + B*p.kvReads*p.m.KVBytes(ctx), B * p.m.DecodeFLOPs(ctx)
}

func (p *phases) firstStep() int { return p.w.Depth + p.w.Prompt + 1 }
func (p *phases) lastStep() int  { return p.w.Depth + p.w.Prompt + p.w.Output - 1 }

func (p *phases) decode(bw, peak float64) sums {
	var buf [8]int
	cuts := buf[:0]
	for _, win := range p.m.Windows() {
		cuts = append(cuts, win+1)
	}
	return p.sumMax(true, p.firstStep(), p.lastStep(), cuts, bw, peak)
}

func (p *phases) stepTime(ctx int, bw, peak float64) float64 {
	b, f := p.decodeStep(ctx)
	return math.Max(b/bw, f/peak)
}

func (p *phases) kvShare(ctx int) float64 {
	b, _ := p.decodeStep(ctx)
	return float64(p.w.Batch) * p.kvReads * p.m.KVBytes(ctx) / b
}

// computeBoundBatch is the smallest batch whose last decode step is
// compute-bound at peak: B·F(c)/peak ≥ (W(B) + B·KV(c))/bw. The difference
// is convex in B (W grows at most linearly), so it crosses zero once.
func computeBoundBatch(m *model.Cost, w Workload, kvReads, bw, peak float64) int {
	c := w.Depth + w.Prompt + max(w.Output-1, 1)
	f := func(B int) float64 {
		fb := float64(B)
		return fb*m.DecodeFLOPs(c)/peak - (m.StreamedBytes(B, true)+fb*kvReads*m.KVBytes(c))/bw
	}
	const limit = 1 << 24
	if f(1) >= 0 {
		return 1
	}
	if m.Spec.MoE == nil {
		// Dense: W(B) = W(1) + (B−1)·row, so f is linear in B.
		slope := f(2) - f(1)
		if slope <= 0 {
			return 0
		}
		B := 1 + int(math.Ceil(-f(1)/slope))
		for B > 1 && f(B-1) >= 0 {
			B--
		}
		for f(B) < 0 {
			B++
		}
		return B
	}
	if f(limit) < 0 {
		return 0
	}
	lo, hi := 1, limit
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if f(mid) >= 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

func memoryFit(m *model.Cost, d *hardware.Device, w Workload, perSeq int, overhead float64) Memory {
	mem := Memory{
		Weights:     m.WeightBytes,
		KV:          float64(w.Batch) * m.KVBytes(w.Context()),
		Activations: m.ActivationPeakBytes(max(w.Batch*perSeq, w.Batch)),
		Overhead:    overhead,
		Usable:      d.Usable,
	}
	mem.Total = mem.Weights + mem.KV + mem.Activations + mem.Overhead
	mem.Fits = mem.Total <= mem.Usable
	mem.Headroom = mem.Usable - mem.Total
	budget := (mem.Usable - mem.Weights - mem.Activations - mem.Overhead) / float64(w.Batch)
	mem.MaxContext = m.MaxContext(budget)
	return mem
}

func (r *Result) warn(code, format string, a ...any) {
	r.Warnings = append(r.Warnings, Warning{Code: code, Message: fmt.Sprintf(format, a...)})
}

func (r *Result) warnings(m *model.Cost, d *hardware.Device, e *hardware.Engine) {
	in := r.Inputs
	if !r.Memory.Fits {
		need := fmt.Sprintf("does not fit: needs %s of %s usable (%s short)",
			units.FormatBytes(r.Memory.Total, units.Binary), units.FormatBytes(r.Memory.Usable, units.Binary),
			units.FormatBytes(-r.Memory.Headroom, units.Binary))
		if r.Memory.MaxContext == 0 {
			r.warn("does-not-fit", "%s; the weights alone take %s: choose a smaller format or a larger device", need, units.FormatBytes(r.Memory.Weights, units.Binary))
		} else {
			r.warn("does-not-fit", "%s; the largest context that fits at batch %d is %d tokens", need, in.Workload.Batch, r.Memory.MaxContext)
		}
	}
	if ctx := in.Workload.Context(); ctx > m.Spec.MaxContext {
		r.warn("context-beyond-model", "context %d tokens exceeds the model's maximum of %d (max_position_embeddings)", ctx, m.Spec.MaxContext)
	}
	if in.Precision != m.Weights.Compute[0] {
		r.warn("precision-fallback", "engine %s has no %s peak; %s runs at %s", e.Name, m.Weights.Compute[0], m.Weights.Name, in.Precision)
	}
	if r.Decode.Steps > 0 && r.Decode.ComputeBoundSteps > 0 {
		r.warn("decode-compute-bound", "%d of %d decode steps are compute-bound at the expected efficiencies", r.Decode.ComputeBoundSteps, r.Decode.Steps)
	}
	if in.Workload.Batch > 1 && m.Spec.MoE != nil {
		r.warn("moe-batch", "MoE at batch %d reads %.1f of %d experts per layer per step (uniform routing assumed)",
			in.Workload.Batch, m.DistinctExperts(in.Workload.Batch), m.Spec.MoE.Experts)
	}
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int) int { return -floorDiv(-a, b) }
