package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/roofline/roofline/hardware"
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
	IdealTime    float64 // at 100 % of the fastest peak, with no overhead, s
	MemoryTime   float64 // Σ memory terms at the expected bandwidth, s
	ComputeTime  float64 // Σ compute terms at the expected efficiencies, s
	OverheadTime float64 // Σ fixed overheads, s
	Bytes        float64 // bytes moved
	FLOPs        float64 // operations done
	Intensity    float64 // FLOPs / Bytes
	// Bound is the term that dominates the expected time: compute when the
	// compute terms outweigh the memory terms summed over the phase.
	Bound Bound
	// ComputeBoundSteps counts steps whose compute terms exceed their
	// memory terms at the expected efficiencies.
	ComputeBoundSteps int
}

// Warning is a condition the user should know about; the result is still
// computed. Code is stable; Message is for people.
type Warning struct {
	Code    string
	Message string
}

// Interval is a prediction interval around a figure: with probability
// Level the measured value lies in [Lo, Hi].
type Interval struct {
	Lo, Hi float64
	Level  float64
	// Widened is set on an interval whose decode part is the Level
	// interval joined with the full range of the MoE decode runs held out
	// of scope (moeDecodeClass): its coverage is Level's or more, not
	// Level, so it is labelled widened.
	Widened bool
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

	// PrefillRows is the rows of the prompt's largest prefill pass as
	// the runtime lays the batch out: what its products' efficiency sees.
	PrefillRows int

	PrefillTokensPerS    float64 // B·P / TTFT
	DecodeTokensPerS     float64 // per sequence, 1 / TPOT
	ThroughputTokensPerS float64 // aggregate decode: Together() / TPOT (B / TPOT when all run at once)

	// Queued is true when the runtime runs fewer sequences at once than
	// the batch (Inputs.Together): batches of Together() sequences (one
	// where requests queue one at a time) run one after another, and the
	// last sequence waits. TTFT, TPOT and E2E are then the first batch's.
	Queued bool
	// LastTTFT and LastE2E are the last queued sequence's, s (= TTFT and
	// E2E when nothing queues).
	LastTTFT, LastE2E float64

	Prefill Phase
	Decode  Phase

	// Ridge is the engine's ridge point at Precision, FLOP per byte.
	Ridge float64
	// ComputeBoundBatch is the smallest batch whose last decode step is
	// compute-bound at peak, 0 when no batch is.
	ComputeBoundBatch int

	Memory Memory
	// Split is set when the model is spread over several engines or
	// memories (Split.Predict): per-pool memory, per-stage time, links.
	Split *SplitResult

	// Intervals (80 % for a runtime's class, 90 % for a calibration); nil
	// when flags replaced the efficiency or the figure is undefined.
	TTFTInterval, TPOTInterval, E2EInterval, ThroughputInterval *Interval
	// intervals holds the four intervals above, which point into it
	// (Result.interval): apart from the result, so that a result that
	// pointed into itself need not be on the heap, and holding no
	// pointers, so that the collector does not scan it.
	intervals *[4]Interval

	LoadTime     float64 // weights / storage bandwidth, s
	ColdTTFT     float64 // LoadTime + TTFT when Inputs.Cold, else 0
	Warnings     []Warning
	KVShareFirst float64 // share of the KV cache in the first decode step's bytes
	KVShareLast  float64 // the same in the last step
}

// Then is phase p followed by phase o (an e2e request's prefill, then its
// decode): times, bytes, FLOPs and steps add; the bound is the terms that
// dominate the sum.
func (p Phase) Then(o Phase) Phase {
	q := Phase{Steps: p.Steps + o.Steps, Time: p.Time + o.Time, IdealTime: p.IdealTime + o.IdealTime,
		MemoryTime: p.MemoryTime + o.MemoryTime, ComputeTime: p.ComputeTime + o.ComputeTime, OverheadTime: p.OverheadTime + o.OverheadTime,
		Bytes: p.Bytes + o.Bytes, FLOPs: p.FLOPs + o.FLOPs, ComputeBoundSteps: p.ComputeBoundSteps + o.ComputeBoundSteps, Bound: MemoryBound}
	if q.Bytes > 0 {
		q.Intensity = q.FLOPs / q.Bytes
	}
	if q.ComputeTime > q.MemoryTime {
		q.Bound = ComputeBound
	}
	return q
}

// phaseOf turns expected and ideal sums into a Phase.
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
	ph.Time = exp.time
	if ph.Bytes > 0 {
		ph.Intensity = ph.FLOPs / ph.Bytes
	}
	ph.Bound = MemoryBound
	if exp.compute > exp.memory {
		ph.Bound = ComputeBound
	}
	return ph
}

// Prefill prices processing `prompt` new tokens per sequence for `batch`
// sequences on top of `depth` cached tokens, in passes of `ubatch` tokens
// (0: the runtime's, Setup.Chunk) laid out as the runtime takes a batch's
// prompts. Its ideal time is the prefill in one pass: no setting of any
// runtime takes fewer.
func (s *Setup) Prefill(prompt, depth, batch, ubatch int) Phase {
	p := s.phasesFor(Workload{Prompt: prompt, Output: 1, Batch: batch, Depth: depth, UBatch: s.Chunk(ubatch, batch*prompt)})
	return s.prefillPhase(&p)
}

// prefillPhase prices p's prefill: expected time, bytes and FLOPs in p's
// passes, the ideal time in one (onePass).
func (s *Setup) prefillPhase(p *phases) Phase {
	exp, ideal := p.prefillAt(&s.rates.prefill), p.prefillAt(&s.rates.ideal)
	ph := phaseOf(p.prefillPasses(), exp.sum(), ideal.sum(), s.Inputs.PrefillOverhead, ideal.r.bw, ideal.r.peak)
	if ph.Steps > 1 { // already one pass: its ideal is the one-pass ideal
		one := s.onePass(p.w)
		op := one.prefillAt(&s.rates.ideal)
		ph.IdealTime = op.sum().time
	}
	return ph
}

// Decode prices `steps` decode steps of `batch` sequences whose queries
// attend first, first+1, … keys.
func (s *Setup) Decode(first, steps, batch int) Phase {
	if steps <= 0 {
		return Phase{}
	}
	p := newPhases(s.Model, Workload{Prompt: first - 1, Output: steps + 1, Batch: batch, UBatch: 1}, s.Inputs.FlashAttention)
	return s.decodePhase(&p)
}

func (s *Setup) decodePhase(p *phases) Phase {
	ph, _ := s.decodePhaseAt(p)
	return ph
}

// decodePhaseAt is decodePhase with the expected pricing it used, for
// pricing single steps.
func (s *Setup) decodePhaseAt(p *phases) (Phase, decodePricing) {
	exp, ideal := p.decodeAt(s.decodeRates(p.w.Batch)), p.decodeAt(&s.rates.ideal)
	return phaseOf(p.lastStep()-p.firstStep()+1, exp.sum(), ideal.sum(), s.decodeOverhead(p.w.Batch), ideal.r.bw, ideal.r.peak), exp
}

// TTFT is the expected prefill time of `prompt` tokens per sequence on top
// of `depth` cached ones for `batch` sequences in passes of `ubatch`
// tokens.
func (s *Setup) TTFT(prompt, depth, batch, ubatch int) float64 {
	p := s.phasesFor(Workload{Prompt: prompt, Output: 1, Batch: batch, Depth: depth, UBatch: s.Chunk(ubatch, batch*prompt)})
	return s.ttft(&p)
}

// ttft is the one expected time to first token: the passes' time with
// the per-pass overhead.
func (s *Setup) ttft(p *phases) float64 {
	pp := p.prefillAt(&s.rates.prefill)
	return pp.sum().time
}

// ITL is the expected time of one decode step of `batch` sequences whose
// queries attend ctx keys.
func (s *Setup) ITL(ctx, batch int) float64 {
	p := stepPhases(s.Model, batch, s.Inputs.FlashAttention)
	dp := p.decodeAt(s.decodeRates(batch))
	return dp.time(ctx)
}

// Predict prices workload w; a workload without UBatch has the runtime's
// passes (Setup.Chunk), and the result says which (Inputs.UBatchFrom).
func (s *Setup) Predict(w Workload) (*Result, error) {
	// Small enough to be inlined: a caller that does not keep the result
	// holds it on its stack, and only its intervals are allocated.
	r := new(Result)
	if err := s.predict(r, w); err != nil {
		return nil, err
	}
	return r, nil
}

// predict is Predict into r, which it fills whole; r never points into
// itself, nor is it kept.
func (s *Setup) predict(r *Result, w Workload) error {
	if err := w.Validate(); err != nil {
		return err
	}
	if err := s.BeyondBuild(w.Context()); err != nil {
		return err
	}
	w, from := s.resolveUBatch(w)
	if s.Together(w.Batch) < w.Batch {
		return s.predictQueued(r, w, from)
	}
	r.Inputs = s.Inputs
	in := &r.Inputs
	in.Workload, in.UBatchFrom = w, from
	r.Ridge = in.Peak / in.Bandwidth
	p := s.phasesFor(w)
	r.PrefillRows = p.passRows()

	r.Prefill = s.prefillPhase(&p)
	r.TTFT = r.Prefill.Time
	r.TTFTBound = r.Prefill.IdealTime
	r.PrefillTokensPerS = float64(w.Batch*w.Prompt) / r.TTFT

	steps := w.Output - 1
	r.TPOT, r.ITLFirst, r.ITLLast, r.TPOTBound = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if steps > 0 {
		var dp decodePricing
		r.Decode, dp = s.decodePhaseAt(&p)
		r.TPOT = r.Decode.Time / float64(steps)
		r.TPOTBound = r.Decode.IdealTime / float64(steps)
		first, last := p.firstStep(), p.lastStep()
		r.ITLFirst = dp.time(first)
		r.ITLLast = dp.time(last)
		r.DecodeTokensPerS = 1 / r.TPOT
		r.ThroughputTokensPerS = float64(w.Batch) / r.TPOT
		r.KVShareFirst = p.kvShare(first)
		r.KVShareLast = p.kvShare(last)
	} else {
		r.warn("no-decode", "one output token: the prefill yields it, so TPOT and ITL are undefined")
	}
	r.E2E = r.TTFT + r.Decode.Time
	r.E2EBound = r.TTFTBound + r.Decode.IdealTime
	r.LastTTFT, r.LastE2E = r.TTFT, r.E2E
	r.ComputeBoundBatch = s.computeBoundBatch(w, &p)

	r.Memory = s.Memory(w.Context(), w.Batch, w.UBatch)
	cold := s.ColdStart(r.TTFT)
	r.LoadTime = cold.Load
	if in.Cold {
		r.ColdTTFT = cold.TTFT
	}
	r.warnings(s)
	if m := &r.Memory; m.Pool {
		built := fmt.Sprintf("an engine built with the builder's default %s %d", in.PoolFlag, m.KVTokens)
		if m.KVTokens > in.PoolCapacity {
			built = fmt.Sprintf("an engine built for the context, %s %d (the builder's default %d holds less)", in.PoolFlag, m.KVTokens, in.PoolCapacity)
		}
		if in.PoolBuilt > 0 {
			built = fmt.Sprintf("an engine built with %s %d, as the run's settings say", in.PoolFlag, in.PoolBuilt)
		}
		r.warn("kv-pool", "%s's engine allocates its KV cache at load for its %s (%s) of %d tokens whatever the request asks: %.2f GiB, as %s",
			s.Runtime.Name, Rows(m.KVRows), s.BuiltRows(), m.KVTokens, m.KV/(1<<30), built)
	}
	if in.StaticBatch > 1 && w.Batch > 1 && !in.ContinuousBatching {
		r.warn("static-batch", "%s runs the %d sequences as one static batch (up to %d): their prompts prefilled together, then decoded in lockstep until the longest reply ends",
			s.Runtime.Name, w.Batch, in.StaticBatch)
	}
	s.intervals(r)
	return nil
}

// resolveUBatch is w with its passes' tokens: as given, or (UBatch 0) the
// runtime's (Setup.Chunk), and where they come from.
func (s *Setup) resolveUBatch(w Workload) (Workload, string) {
	if w.UBatch != 0 {
		return w, "given"
	}
	// The prompts of the sequences that run together: a pass never takes
	// those of a batch still to come.
	w.UBatch = s.Chunk(0, s.Together(w.Batch)*w.Prompt)
	return w, s.Inputs.ChunkFrom
}

// Together is how many sequences decode at once (Inputs.Together): the
// batch, a static batch's rows, or one where they queue one at a time.
// What the batch's energy per token is shared by.
func (r *Result) Together() int {
	return r.Inputs.Together(r.Inputs.Workload.Batch)
}

// predictQueued prices a batch larger than the runtime runs at once
// (Together): batches of Together sequences in lockstep (a static batch;
// one sequence where the runtime runs one at a time), one after another.
// The result is the first batch's, its memory the sequences held at once;
// the last sequence waits for the batches before its own.
func (s *Setup) predictQueued(r *Result, w Workload, from string) error {
	n, full, last := s.Inputs.batches(w.Batch)
	one := w
	one.Batch = full
	if err := s.predict(r, one); err != nil {
		return err
	}
	ttft, e2e := r.TTFT, r.E2E
	if last != full {
		var rl Result
		one.Batch = last
		if err := s.predict(&rl, one); err != nil {
			return err
		}
		ttft, e2e = rl.TTFT, rl.E2E
	}
	r.Inputs.Workload, r.Inputs.UBatchFrom = w, from
	r.Queued = true
	r.LastTTFT, r.LastE2E = queuedTimes(n, r.E2E, ttft, e2e)
	r.Warnings = slices.DeleteFunc(r.Warnings, func(w Warning) bool { return w.Code == "static-batch" })
	if full > 1 {
		sizes := fmt.Sprintf("%d batches of %d", n, full)
		switch {
		case last != full && n == 2:
			sizes = fmt.Sprintf("a batch of %d and one of %d", full, last)
		case last != full:
			sizes = fmt.Sprintf("%d batches of %d and one of %d", n-1, full, last)
		}
		r.warn("queued", "%s runs static batches of up to %d sequences%s: the %d sequences run as %s, one after another, each prefilled together and decoded in lockstep; the last waits %s for its first token%s",
			s.Runtime.Name, full, s.builtFor(), w.Batch, sizes, units.FormatDuration(r.LastTTFT), s.rebuildHint(w.Batch))
		return nil
	}
	r.warn("queued", "%s runs one sequence at a time%s: the %d sequences queue, and the last waits %s for its first token%s",
		s.Runtime.Name, s.builtFor(), w.Batch, units.FormatDuration(r.LastTTFT), s.rebuildHint(w.Batch))
	return nil
}

// Rows is "1 row" or "n rows".
func Rows(n int) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

// BuiltRows says the rows of an engine's KV pool and static batch
// (Inputs.PoolSeqs) and where they come from: the build the run states
// (Inputs.MaxSeqs) or the builder's default ("--maxBatchSize 4, the
// builder's default"). "" without a pool.
func (s *Setup) BuiltRows() string {
	in := &s.Inputs
	if in.PoolSeqs == 0 {
		return ""
	}
	flag := s.Runtime.KVPool.BatchFlag
	if in.MaxSeqs > 0 {
		return fmt.Sprintf("an engine built with %s %d, as the run states", flag, in.PoolSeqs)
	}
	return fmt.Sprintf("an engine built with %s %d, the builder's default", flag, in.PoolSeqs)
}

// builtFor is ", as an engine built with --maxBatchSize N" for a runtime
// whose static batch is its engine's build (BuiltRows), else "".
func (s *Setup) builtFor() string {
	if b := s.BuiltRows(); b != "" {
		return " (" + b + ")"
	}
	return ""
}

// rebuildHint says how to run a batch of b together on an engine whose
// build bounds its static batch: build it with more rows and price that
// build. "" for a runtime whose batch no build sets.
func (s *Setup) rebuildHint(b int) string {
	if s.Inputs.PoolSeqs == 0 {
		return ""
	}
	flag := s.Runtime.KVPool.BatchFlag
	return fmt.Sprintf("; to run all %d together, on an engine whose KV pool holds %d rows, build it with %s %d and price that build", b, b, flag, b)
}

// ExpectedComputeBoundBatch is the smallest batch whose decode step at
// ctx keys is compute-bound at the expected efficiencies (its compute
// terms exceed its memory terms, as Phase.ComputeBoundSteps counts them),
// 0 when none up to 2²⁰ is: past it decode throughput stops rising. The step's compute terms less its memory terms are concave in
// the batch (the products' compute time per row never grows,
// hardware.Efficiency.Matmul; the memory terms are the weights plus a KV
// read per sequence), so they cross zero at most once on the way up:
// doubling finds a compute-bound batch, bisection the first.
func (s *Setup) ExpectedComputeBoundBatch(ctx int) int {
	bound := func(b int) bool {
		p := stepPhases(s.Model, b, s.Inputs.FlashAttention)
		dp := p.decodeAt(s.decodeRates(b))
		sm := dp.stepCost.sumsWith(dp.attn(ctx))
		return sm.computeBound == 1
	}
	const limit = 1 << 20
	if bound(1) {
		return 1
	}
	lo, hi := 1, 2
	for !bound(hi) {
		if hi >= limit {
			return 0
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 { // !bound(lo), bound(hi)
		mid := lo + (hi-lo)/2
		if bound(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// computeBoundBatch is the smallest batch whose last decode step is
// compute-bound at peak: B·F(c)/peak ≥ (W(B) + B·KV(c))/bw. The difference
// is convex in B (W grows at most linearly), so it crosses zero once.
func (s *Setup) computeBoundBatch(w Workload, p *phases) int {
	m, bw, peak := s.Model, s.Inputs.Bandwidth, s.Inputs.IdealPeak
	c := w.LastStepContext()
	kv, flops := p.kvRead(c), m.DecodeFLOPs(c)
	f := func(B int) float64 {
		fb := float64(B)
		return fb*flops/peak - (m.StreamedBytes(B, true)+fb*kv)/bw
	}
	if f(1) >= 0 {
		return 1
	}
	const limit = 1 << 24
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
	return 1 + largest(limit, func(b int) bool { return f(b) < 0 })
}

func (r *Result) warn(code, format string, a ...any) {
	r.Warnings = append(r.Warnings, Warning{Code: code, Message: fmt.Sprintf(format, a...)})
}

func (r *Result) warnings(s *Setup) {
	m, e, in := s.Model, s.Engine, &r.Inputs
	if !r.Memory.Fits {
		need := fmt.Sprintf("does not fit: needs %s of %s usable (%s short)",
			units.FormatBytes(r.Memory.Total, units.Binary), units.FormatBytes(r.Memory.Usable, units.Binary),
			units.FormatBytes(-r.Memory.Headroom, units.Binary))
		if r.Memory.MaxContext == 0 {
			r.warn("does-not-fit", "%s; the weights alone take %s: choose a smaller format or a larger device", need, units.FormatBytes(r.Memory.Weights, units.Binary))
		} else if r.Memory.Pool {
			r.warn("does-not-fit", "%s; the engine's KV cache of %s (%s) fits up to %s %d, contexts of %d tokens at most: for %d, build it with fewer rows (%s) and price that build, or choose a smaller KV format",
				need, Rows(r.Memory.KVRows), s.BuiltRows(), in.PoolFlag, r.Memory.MaxContext, r.Memory.MaxContext, r.Memory.KVTokens, s.Runtime.KVPool.BatchFlag)
		} else {
			r.warn("does-not-fit", "%s; the largest context that fits at batch %d is %d tokens", need, in.Workload.Batch, r.Memory.MaxContext)
		}
	}
	if ctx := in.Workload.Context(); ctx > m.Spec.MaxContext {
		r.warn("context-beyond-model", "context %d tokens exceeds the model's maximum of %d (max_position_embeddings)", ctx, m.Spec.MaxContext)
	}
	if want := s.kernelPrecision; want != "" && in.Precision != want {
		r.warn("precision-fallback", "engine %s has no %s peak; %s runs at %s", e.Name, want, m.Weights.Name, in.Precision)
	}
	if r.Decode.Steps > 0 && r.Decode.ComputeBoundSteps > 0 {
		r.warn("decode-compute-bound", "%d of %d decode steps are compute-bound at the expected efficiencies", r.Decode.ComputeBoundSteps, r.Decode.Steps)
	}
	if b := in.Workload.Batch; b > 1 && m.Spec.MoE != nil && !r.Queued {
		r.warn("moe-batch", "MoE at batch %d reads %.1f of %d experts per layer per step (uniform routing assumed)", b, m.DistinctExperts(b), m.Spec.MoE.Experts)
	}
	if in.PeakDerived {
		r.warn("derived-peak", "the %s engine's %s peak (%s) is derived, not a datasheet figure: %s",
			e.Name, in.Precision, units.FormatRate(in.Peak, in.Precision.RateUnit()), hardware.DerivedReason(in.PeakSource))
	}
	if f := in.KernelFactor; f > 0 && f < 1 && e.NoInt8Dot {
		r.warn("kernel-rate", "the %s engine has no %s dot-product instruction: %s's products reach %.3g of its %s peak (%s): %s",
			e.Name, in.Precision, in.Runtime, f, in.Precision, units.FormatRate(f*in.Peak, in.Precision.RateUnit()), in.KernelNote)
	} else if f > 0 && f != 1 {
		r.warn("kernel-rate", "%s multiplies %s on the %s engine with other kernels than its class was fitted on: %s products at %.3g × the class's matrix efficiency: %s",
			in.Runtime, m.Weights.Name, e.Name, in.Precision, f, in.KernelNote)
	}
	if m.Layout.IgnoreWindows {
		r.warn("window-ignored", "%s does not implement %s's %d-token sliding window: every layer attends the whole context", in.Runtime, m.Spec.Name, m.Spec.SlidingWindow)
	}
	if !in.FlashAttention && m.KV.Storage.BlockSize > 1 {
		r.warn("quantized-v-needs-fa", "a quantized KV cache (%s) needs flash attention in llama.cpp; without it the V cache cannot be quantized", m.KV.Name)
	}
	if in.UnpackNote != "" && in.UnpackShare > 0 && in.Efficiency.KQuantGEMV > 0 {
		r.warn("unpack-peak-fallback", "%s", in.UnpackNote)
	}
	if in.HostNote != "" && in.Efficiency.HostWork > 0 {
		r.warn("host-unpriced", "%s", in.HostNote)
	}
	if in.Threads > 0 && in.EngineKind != hardware.CPU {
		r.warn("threads-not-cpu", "%s", in.ThreadsNote)
	}
	if in.MoEDecodeNote != "" && !math.IsNaN(r.TPOT) {
		r.warn("moe-decode-unmodelled", "%s", in.MoEDecodeNote)
	}
	if in.NPUClockNote != "" && !math.IsNaN(r.TPOT) {
		r.warn("npu-clock-unmodelled", "%s", in.NPUClockNote)
	}
	if in.UnitBandwidthNote != "" {
		r.warn("unit-bandwidth-unidentified", "%s", in.UnitBandwidthNote)
	}
	if !in.Fitted && !in.FromFlags {
		r.warn("prior", "no published measurements of %s on %s engines: the efficiency is a wide prior, and so is the interval", in.Runtime, in.EngineKind)
	}
}
