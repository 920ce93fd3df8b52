package sim

import (
	"fmt"

	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/runtimes"
)

// OpInfo is what an operator is, the same in every view.
type OpInfo struct {
	Name string
	// Group is the label of its layer group ("sliding 4096", "global",
	// "MoE", "layers"); "" outside the blocks and for the fixed costs.
	Group  string
	Layers int
	// Window is the tokens its layers' attention reads at most (0: the
	// whole context).
	Window int
	// Class is the class of the time model that prices it: dense,
	// experts, attention, or fixed (the per-pass or per-step and
	// per-layer costs) and host (a runtime's work on the CPU).
	Class string
	Types string // storage types of its weights
	// SharesTable is true for a head that reads the embedding table.
	SharesTable bool
}

// OpTime is one operator's share of a prefill, of a mean decode step or
// of one step: its bytes and FLOPs, and the part of the time the pass's
// classes spend on it (docs/method.md §6, "Operators").
type OpTime struct {
	*OpInfo
	// KVTokens is, for attention in one step, the tokens of each
	// sequence's cache it reads: min(context, window).
	KVTokens int

	FLOPs float64
	// Bytes read: weights, KV cache, activations, attention scores.
	WeightBytes, KVBytes, ActivationRead, ScoreRead float64
	// Bytes written: activations and attention scores.
	ActivationWritten, ScoreWritten float64

	// Time is its expected time, s: MemoryTime from the memory terms of
	// its classes (where they bound the pass), ComputeTime from the
	// compute terms, and for a fixed or host row its fixed cost.
	Time, MemoryTime, ComputeTime float64
	// IdealTime is its share of the ideal bound.
	IdealTime float64
	// Bound is what its time comes from: memory or compute (for an
	// operator whose class is bound by the other term and who has none of
	// it — the embedding's bytes in a compute-bound prefill — the class's
	// bound, its time 0: hidden under the others'), or fixed.
	Bound Bound
	// Share is Time over the view's time.
	Share float64
}

// Read is the bytes the operator reads.
func (o *OpTime) Read() float64 { return o.WeightBytes + o.KVBytes + o.ActivationRead + o.ScoreRead }

// Written is the bytes it writes.
func (o *OpTime) Written() float64 { return o.ActivationWritten + o.ScoreWritten }

// Intensity is its FLOPs per byte moved, 0 when it moves none.
func (o *OpTime) Intensity() float64 {
	if b := o.Read() + o.Written(); b > 0 {
		return o.FLOPs / b
	}
	return 0
}

// FixedBound is the bound of a fixed cost: launches, synchronisation, the
// runtime's own per-step work.
const FixedBound Bound = "fixed"

// The names of the rows that are not operators.
const (
	OpHost          = "host_ops"       // a runtime's work on the CPU beside the engine
	OpStepOverhead  = "step_overhead"  // the fixed cost of a decode step
	OpPassOverhead  = "pass_overhead"  // the fixed cost of a prefill pass
	OpLayerOverhead = "layer_overhead" // the fixed cost per layer of a step or pass
)

// OpView is a prefill, a mean decode step or one decode step, operator by
// operator; its operators' times add up to Time.
type OpView struct {
	// Phase is "prefill" (every pass: Time is TTFT), "decode" (the mean
	// step: Time is TPOT) or "step" (one decode step: Time is its ITL).
	Phase string
	// Context is the keys each query attends in a step; for prefill the
	// tokens cached at its end, for decode the last step's.
	Context int
	Batch   int
	Units   int // passes, or steps averaged
	// Time is the sim's figure (TTFT, TPOT, ITL) and IdealTime its
	// ideal bound; Σ Ops[i].Time = Time and Σ Ops[i].IdealTime =
	// IdealTime, to rounding.
	Time, IdealTime float64
	Ops             []OpTime
	// Bandwidth is the expected bandwidth the view is priced at, B/s;
	// ProductRate the rate its dense products reach at the rows of its
	// largest pass or step, AttentionRate attention's, FLOP/s: an
	// operator bound by memory sits on Bandwidth × its intensity, one
	// bound by compute at its class's rate.
	Bandwidth, ProductRate, AttentionRate float64
}

// OpAccount prices a setup's passes operator by operator: the model's
// operators as its runtime runs them (model.Cost.Operators), listed once
// for every view.
//
// An OpAccount reuses its scratch space from view to view: it is not for
// concurrent use.
type OpAccount struct {
	s   *Setup
	ops *model.Operators
	// Scratch: the model's pricers and each operator's, the attention
	// pricers of those that have attention, the raw shares.
	pr       []pricers
	at       []attnPricers
	raw      [][3][2]float64
	rawIdeal []float64
	// priced is what the operators' pricers hold: the workload of a
	// prefill, or of decode steps only their batch (a step's products do
	// not depend on its context), so the steps of one batch price the
	// operators once.
	priced    pricedKey
	pricedFor *rates
	// infos are what each row is: the operators', then the fixed rows'
	// (pass or step overhead, layer overhead, host work).
	infos []OpInfo
}

// pricedKey is what the operators' pricers were priced for.
type pricedKey struct {
	w       Workload
	inOrder bool
}

// Operators is s's operator account. It fails for a cost built without
// its tensor list (model.BuildSums).
func (s *Setup) Operators() (*OpAccount, error) {
	ops, err := s.Model.Operators(s.Runtime.Fusion, s.Inputs.FlashAttention)
	if err != nil {
		return nil, err
	}
	n, na := len(ops.Ops), 1
	for i := range ops.Ops {
		if ops.Ops[i].Class == model.AttentionClass {
			na++
		}
	}
	oa := &OpAccount{s: s, ops: ops, pr: make([]pricers, n+1), at: make([]attnPricers, na),
		raw: make([][3][2]float64, n), rawIdeal: make([]float64, n), infos: make([]OpInfo, n, n+4)}
	for i := range ops.Ops {
		o := &ops.Ops[i]
		in := &oa.infos[i]
		in.Name, in.Class, in.Types, in.SharesTable = o.Name, o.Class.String(), o.Types, o.SharesTable
		if o.Group >= 0 {
			g := ops.Groups[o.Group]
			in.Group, in.Layers, in.Window = g.Label, g.Layers, g.Window
		}
	}
	L := s.Inputs.Layers
	oa.infos = append(oa.infos, OpInfo{Name: OpPassOverhead, Class: "fixed"}, OpInfo{Name: OpStepOverhead, Class: "fixed"},
		OpInfo{Name: OpLayerOverhead, Class: "fixed", Layers: L}, OpInfo{Name: OpHost, Class: "host", Layers: L})
	return oa, nil
}

// List is the operators themselves, with their bytes and FLOPs.
func (oa *OpAccount) List() *model.Operators { return oa.ops }

// Prefill is the prefill of workload w operator by operator: Σ Time = the
// prediction's TTFT (a runtime that does not batch prefills one sequence,
// as Predict does).
func (oa *OpAccount) Prefill(w Workload) (*OpView, error) {
	w, err := oa.s.opsWorkload(w)
	if err != nil {
		return nil, err
	}
	return oa.prefill(w), nil
}

// prefill prices the passes of w (validated, its UBatch resolved, by the
// caller) as the setup's runtime lays out the batch's prompts: the passes
// of a group of prompts, times the groups alike, and a smaller last group.
// A prefill of several passes has the ideal of one pass (prefillPhase),
// attributed over that pass.
func (oa *OpAccount) prefill(w Workload) *OpView {
	s := oa.s
	w.Output = 1 // the passes alone: no decode step to price
	inOrder := s.Inputs.PrefillOrder == runtimes.InOrder
	a := oa.newAttribution(w, &s.rates.prefill, inOrder)
	p := &a.model.ph
	for d, ph := 0, p; ph != nil; d, ph = d+1, ph.rest {
		times := float64(ph.groups)
		var sbuf [16]int
		starts := ph.prefillRuns(sbuf[:0])
		for i, x := range starts {
			if e := runEnd(starts, i, ph.passes-2); e >= x {
				a.run(e-x+1, times, func(pr *pricers) unitTerms { return pr.prefillPass(d, x) }, func(pr *pricers) unitTerms { return pr.prefillPass(d, e) },
					func(pr *pricers) *model.Matmuls { return &pr.level(d).full })
			}
		}
		last := func(pr *pricers) unitTerms { return pr.lastPass(d) }
		a.run(1, times, last, last, func(pr *pricers) *model.Matmuls { return &pr.level(d).lastMM })
	}
	passes := p.prefillPasses()
	// The prediction's figures, from the model's own pricers.
	t, it := a.model.at.exp.sum().time, a.model.at.ideal.sum().time
	if passes > 1 {
		// The ideal of the prefill in one pass (Setup.onePass), shared by
		// that pass's bound.
		raw := append([][3][2]float64(nil), a.raw...)
		one := s.onePass(w)
		a1 := oa.newAttribution(one.w, &s.rates.prefill, false)
		last := func(pr *pricers) unitTerms { return pr.lastPass(0) }
		a1.run(1, 1, last, last, func(pr *pricers) *model.Matmuls { return &pr.ph.lastMM })
		copy(a.raw, raw)
		a.rawIdeal, a.idealTime = append([]float64(nil), a1.rawIdeal...), a1.idealTime
		it = a1.model.at.ideal.sum().time
	}
	return a.view("prefill", w.Depth+w.Prompt, passes, t, it)
}

// Decode is the mean decode step of workload w operator by operator:
// Σ Time = the prediction's TPOT. Nil when w generates one token.
func (oa *OpAccount) Decode(w Workload) (*OpView, error) {
	w, err := oa.s.opsWorkload(w)
	if err != nil || w.Output < 2 {
		return nil, err
	}
	return oa.decode(w), nil
}

// PrefillPhase is Setup.Prefill operator by operator (a measured prefill
// test, priced as compare prices it): Σ Time = its Time.
func (oa *OpAccount) PrefillPhase(prompt, depth, batch, ubatch int) (*OpView, error) {
	w := Workload{Prompt: prompt, Output: 1, Batch: batch, Depth: depth, UBatch: ubatch}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	w.UBatch = oa.s.Chunk(ubatch, batch*prompt)
	return oa.prefill(w), nil
}

// DecodePhase is Setup.Decode's mean step operator by operator (a measured
// decode test): Σ Time = its Time / steps.
func (oa *OpAccount) DecodePhase(first, steps, batch int) (*OpView, error) {
	w := Workload{Prompt: first - 1, Output: steps + 1, Batch: batch, UBatch: 1}
	if first < 1 || steps < 1 {
		return nil, &FieldError{"Output", "a decode phase needs a step attending at least one key"}
	}
	if err := (Workload{Prompt: max(w.Prompt, 1), Output: w.Output, Batch: batch, UBatch: 1}).Validate(); err != nil {
		return nil, err
	}
	return oa.decode(w), nil
}

// decode prices the steps of w (validated by the caller).
func (oa *OpAccount) decode(w Workload) *OpView {
	s := oa.s
	a := oa.newAttribution(w, s.decodeRates(w.Batch), false)
	p := &a.model.ph
	first, last := p.firstStep(), p.lastStep()
	var sbuf [16]int
	starts := p.decodeRuns(sbuf[:0])
	for i, x := range starts {
		if e := runEnd(starts, i, last); e >= x {
			a.run(e-x+1, 1, func(pr *pricers) unitTerms { return pr.step(x) }, func(pr *pricers) unitTerms { return pr.step(e) }, func(pr *pricers) *model.Matmuls { return &pr.ph.step })
		}
	}
	steps := last - first + 1
	v := a.view("decode", last, steps, a.model.at.dexp.sum().time, a.model.at.dideal.sum().time)
	v.scale(1 / float64(steps))
	return v
}

// Step is one decode step of the sequences of `batch` that run together
// (Inputs.Together: all of them under continuous batching, a static
// batch's rows, one where they queue one at a time), whose queries attend
// ctx keys, operator by operator: Σ Time = ITL(ctx, Together(batch)), its
// Batch the sequences that step.
func (oa *OpAccount) Step(ctx, batch int) (*OpView, error) {
	s := oa.s
	if ctx < 1 || ctx > MaxTokens {
		return nil, &FieldError{"Context", fmt.Sprintf("must be between 1 and %d keys, got %d", MaxTokens, ctx)}
	}
	w := Workload{Prompt: max(ctx-1, 1), Output: 2, Batch: batch, UBatch: 1}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	w.Batch = s.Together(w.Batch)
	a := oa.newAttribution(w, s.decodeRates(w.Batch), false)
	at := func(pr *pricers) unitTerms { return pr.step(ctx) }
	a.run(1, 1, at, at, func(pr *pricers) *model.Matmuls { return &pr.ph.step })
	for i := range oa.ops.Ops {
		if row := &a.rows[i]; oa.ops.Ops[i].Class == model.AttentionClass {
			row.KVTokens = ctx
			if row.Window > 0 {
				row.KVTokens = min(ctx, row.Window)
			}
		}
	}
	// ITL(ctx, Together(batch)) and its ideal, from the model's own
	// pricers.
	return a.view("step", ctx, 1, a.model.at.dexp.time(ctx), a.model.at.dideal.time(ctx)), nil
}

// opsWorkload is the workload the views price: w at the sequences that
// run together (Together, Predict's rule).
func (s *Setup) opsWorkload(w Workload) (Workload, error) {
	if err := w.Validate(); err != nil {
		return w, err
	}
	w, _ = s.resolveUBatch(w)
	w.Batch = s.Together(w.Batch)
	return w, nil
}

// countRates price a unit at 1 B/s and 1 FLOP/s, ideal: its bytes and
// FLOPs, its matrix products' and its attention's.
var countRates = rates{bw: 1, peak: 1, ideal: true}

// pricers price one account (the model's, or one operator's) at the
// expected and ideal rates, and count its bytes, FLOPs and KV reads,
// through the functions a prediction prices with.
type pricers struct {
	ph phases
	// at prices attention; nil for an account with none, whose matrix
	// products are all a view asks of it.
	at *attnPricers
}

type attnPricers struct {
	kvOnly     phases
	exp, ideal prefillPricing
	cnt, kv    prefillPricing
	dexp       decodePricing
	dideal     decodePricing
	dcnt, dkv  decodePricing
}

// init prices account m for workload w, its prompts laid out in order or
// in lockstep; at, when not nil, holds the pricers of its attention.
func (pr *pricers) init(m *model.Cost, w Workload, flash, inOrder bool, r, ideal *rates, decode bool, at *attnPricers) {
	if decode {
		pr.ph = stepPhasesFor(m, w, flash)
	} else {
		pr.ph = newPhasesIn(m, w, flash, inOrder)
	}
	pr.at = at
	if at == nil {
		return
	}
	at.kvOnly = kvOnly(pr.ph)
	if decode {
		at.dexp, at.dideal = pr.ph.decodeAt(r), pr.ph.decodeAt(ideal)
		at.dcnt, at.dkv = pr.ph.decodeAt(&countRates), at.kvOnly.decodeAt(&countRates)
		return
	}
	at.exp, at.ideal = pr.ph.prefillAt(r), pr.ph.prefillAt(ideal)
	at.cnt, at.kv = pr.ph.prefillAt(&countRates), at.kvOnly.prefillAt(&countRates)
}

// kvOnly is p with its scores kept on chip: its attention moves the KV
// cache alone (as many reads of it as p's).
func kvOnly(p phases) phases {
	p.unfused = false
	if p.rest != nil {
		r := kvOnly(*p.rest)
		p.rest = &r
	}
	return p
}

// level is the phases of group level d: 0 the prefill's groups, 1 its
// smaller last group.
func (pr *pricers) level(d int) *phases {
	p := &pr.ph
	for ; d > 0; d-- {
		p = p.rest
	}
	return p
}

// restAt is pp's pricing of group level d.
func restAt(pp *prefillPricing, d int) *prefillPricing {
	for ; d > 0; d-- {
		pp = pp.rest
	}
	return pp
}

// stepPhasesFor is the decode of w: its steps' products and how attention
// reads the cache.
func stepPhasesFor(m *model.Cost, w Workload, flash bool) phases {
	p := stepPhases(m, w.Batch, flash)
	p.w = w
	return p
}

// unitTerms is a unit's attention at the expected and ideal rates, and the
// unit's bytes and FLOPs (cnt: its products' and its attention's) and its
// bytes with the KV cache alone (kv).
type unitTerms struct {
	exp, ideal, cnt attnTerms
	kv              float64
}

// prefillPass is full pass k of group level d.
func (pr *pricers) prefillPass(d, k int) unitTerms {
	at := pr.at
	return unitTerms{restAt(&at.exp, d).prefillPass(k), restAt(&at.ideal, d).prefillPass(k), restAt(&at.cnt, d).prefillPass(k), restAt(&at.kv, d).prefillPass(k).am}
}

// lastPass is the last pass of group level d.
func (pr *pricers) lastPass(d int) unitTerms {
	at := pr.at
	return unitTerms{restAt(&at.exp, d).lastPass(), restAt(&at.ideal, d).lastPass(), restAt(&at.cnt, d).lastPass(), restAt(&at.kv, d).lastPass().am}
}

func (pr *pricers) step(ctx int) unitTerms {
	at := pr.at
	return unitTerms{at.dexp.attn(ctx), at.dideal.attn(ctx), at.dcnt.attn(ctx), at.dkv.attn(ctx).am}
}

// attribution accumulates the operators' shares of a phase.
type attribution struct {
	s     *Setup
	r     *rates
	ops   *model.Operators
	model *pricers
	each  []pricers
	rows  []OpTime
	// Per operator and class (dense, experts, attention), the memory and
	// compute time it would take were it alone in its class; per class,
	// the class's time: the operators' are scaled to it at the end.
	raw       [][3][2]float64
	classTime [3]float64
	rawIdeal  []float64
	idealTime float64
	prefill   bool
	// launched is true for a decode step whose kernels are launched one
	// by one (Setup.decodeRates): its fixed costs are a pass's.
	launched   bool
	fixedStart int     // rows from here are fixed costs
	maxRows    float64 // the rows of the largest pass or step
}

func (oa *OpAccount) newAttribution(w Workload, r *rates, inOrder bool) *attribution {
	s, ops := oa.s, oa.ops
	launched := r == &s.rates.launched
	decode := r == &s.rates.decode || launched
	flash := s.Inputs.FlashAttention
	a := &attribution{s: s, r: r, ops: ops, prefill: !decode, launched: launched}
	a.model, a.each = &oa.pr[0], oa.pr[1:]
	at := oa.at
	next := func(attention bool) *attnPricers {
		if !attention {
			return nil
		}
		p := &at[0]
		at = at[1:]
		return p
	}
	a.model.init(s.Model, w, flash, inOrder, r, &s.rates.ideal, decode, next(true))
	key := pricedKey{w, inOrder}
	if decode {
		key = pricedKey{w: Workload{Batch: w.Batch}}
	}
	reuse := oa.pricedFor == r && oa.priced == key
	oa.priced, oa.pricedFor = key, r
	n := len(ops.Ops)
	a.rows = make([]OpTime, n+3)
	for i := range ops.Ops {
		at := next(ops.Ops[i].Class == model.AttentionClass)
		if !reuse {
			a.each[i].init(ops.Ops[i].Account, w, flash, inOrder, r, &s.rates.ideal, decode, at)
		}
		a.rows[i].OpInfo = &oa.infos[i]
	}
	// The fixed rows; their times are added run by run.
	a.fixedStart = n
	a.rows[n].OpInfo = &oa.infos[n] // pass overhead
	if decode {
		a.rows[n].OpInfo = &oa.infos[n+1]
	}
	a.rows[n+1].OpInfo, a.rows[n+2].OpInfo = &oa.infos[n+2], &oa.infos[n+3]
	a.raw, a.rawIdeal = oa.raw, oa.rawIdeal
	clear(a.raw)
	clear(a.rawIdeal)
	return a
}

// run adds a run of n alike units, attention linear from first to last,
// whose products are mm, taken `times` times (groups of prompts alike).
func (a *attribution) run(n int, times float64, first, last func(*pricers) unitTerms, mm func(*pricers) *model.Matmuls) {
	r, N := a.r, float64(n)*times
	whole := mm(a.model)
	a.maxRows = max(a.maxRows, whole.Rows)
	// Every operator's products run at its class's rates: the pass's.
	dense := r.matmul(whole.Rows)
	expert := r.expertRate(whole, dense)
	dm, dc, em, ec := r.classTermsAt(whole, dense, expert)
	denseMem, expertMem := dm >= dc, em >= ec
	p0, p1 := r.products(dm, dc), r.products(em, ec)
	if k, _ := r.unpackBound(whole, p0+p1); k > p0+p1 {
		// The K-quant unpacking bound stretches both classes alike.
		p0, p1 = p0*k/(p0+p1), p1*k/(p0+p1)
	}
	a.classTime[0] += N * p0
	a.classTime[1] += N * p1
	m0, m1 := first(a.model), last(a.model)
	a.classTime[2] += times * sumMaxLinear(n, m0.exp.am, m1.exp.am, m0.exp.ac, m1.exp.ac)
	a.idealTime += times * sumMaxLinear(n, m0.ideal.am, m1.ideal.am, m0.ideal.ac, m1.ideal.ac)
	expSplit := splitRun(n, m0.exp.am, m1.exp.am, m0.exp.ac, m1.exp.ac)
	idealSplit := splitRun(n, m0.ideal.am, m1.ideal.am, m0.ideal.ac, m1.ideal.ac)

	fixed := a.rows[a.fixedStart:]
	stepPart := min(a.stepOverhead(), r.overhead)
	fixed[0].Time += N * stepPart
	fixed[1].Time += N * (r.overhead - stepPart + r.graph(whole.Rows))
	fixed[2].Time += N * whole.Rows * r.host

	for i := range a.each {
		pr := &a.each[i]
		row, raw := &a.rows[i], &a.raw[i]
		om := mm(pr)
		odm, odc, oem, oec := r.classTermsAt(om, dense, expert)
		side(raw[0][:], denseMem, N*odm, N*odc)
		side(raw[1][:], expertMem, N*oem, N*oec)
		// The operator's own bytes and FLOPs.
		act, actRead := 0.0, 0.0
		if a.prefill {
			act, actRead = pr.ph.m.ActivationBytes(int(om.Rows)), pr.ph.m.ActivationReadBytes(int(om.Rows))
		}
		mb, mf := om.Bytes(), om.FLOPs()
		row.FLOPs += N * mf
		row.WeightBytes += N * (mb - act)
		row.ActivationRead += N * actRead
		row.ActivationWritten += N * (act - actRead)
		if pr.at == nil {
			// Its ideal unit time is its matrix terms alone: a whole
			// unit bound by memory takes its bytes, by compute its FLOPs.
			ib, ic := mb/a.s.rates.ideal.bw, mf/a.s.rates.ideal.peak
			a.rawIdeal[i] += times * idealSplit.sum(ib, ib, ic, ic)
			continue
		}
		o0, o1 := first(pr), last(pr)
		mem, comp := expSplit.parts(o0.exp.am, o1.exp.am, o0.exp.ac, o1.exp.ac)
		raw[2][0] += times * mem
		raw[2][1] += times * comp
		a.rawIdeal[i] += times * idealSplit.sum(o0.ideal.am, o1.ideal.am, o0.ideal.ac, o1.ideal.ac)
		// Counted at 1 B/s and 1 FLOP/s, a unit is its products' bytes
		// and FLOPs and its attention's.
		row.FLOPs += N*(o0.cnt.ac+o1.cnt.ac)/2 - N*mf
		kv := N*(o0.kv+o1.kv)/2 - N*mb
		scores := N * ((o0.cnt.am+o1.cnt.am)/2 - (o0.kv+o1.kv)/2)
		row.KVBytes += kv
		w := a.ops.Ops[i].ScoreWrites
		row.ScoreWritten += w * scores
		row.ScoreRead += (1 - w) * scores
	}
}

// stepOverhead is the fixed cost of a pass, or of a decode step at the
// engine's clock (Inputs.Clocked), as the prediction prices them.
func (a *attribution) stepOverhead() float64 {
	if a.prefill || a.launched {
		return a.s.Inputs.Efficiency.PassOverhead
	}
	return a.s.Inputs.Clocked().StepOverhead
}

// side adds a term pair to the side that bounds its class.
func side(acc []float64, memory bool, m, c float64) {
	if memory {
		acc[0] += m
	} else {
		acc[1] += c
	}
}

// view scales the operators' raw shares to their classes' times and
// finishes the rows.
func (a *attribution) view(phase string, ctx, units int, t, ideal float64) *OpView {
	var sum [3]float64
	var idealSum float64
	for i := range a.ops.Ops {
		for c := range 3 {
			sum[c] += a.raw[i][c][0] + a.raw[i][c][1]
		}
		idealSum += a.rawIdeal[i]
	}
	var classMem, classComp [3]float64
	for i := range a.ops.Ops {
		row := &a.rows[i]
		for c := range 3 {
			k := 0.0
			if sum[c] > 0 {
				k = a.classTime[c] / sum[c]
			}
			m, cp := k*a.raw[i][c][0], k*a.raw[i][c][1]
			row.MemoryTime += m
			row.ComputeTime += cp
			classMem[c] += m
			classComp[c] += cp
		}
		row.Time = row.MemoryTime + row.ComputeTime
		if idealSum > 0 {
			row.IdealTime = a.idealTime * a.rawIdeal[i] / idealSum
		}
	}
	for i := range a.ops.Ops {
		row, c := &a.rows[i], a.ops.Ops[i].Class
		switch {
		case row.ComputeTime > row.MemoryTime, row.Time == 0 && classComp[c] > classMem[c]:
			row.Bound = ComputeBound
		default:
			row.Bound = MemoryBound
		}
	}
	rows := a.rows[:a.fixedStart]
	for _, f := range a.rows[a.fixedStart:] {
		if f.Time > 0 {
			f.Bound = FixedBound
			rows = append(rows, f)
		}
	}
	v := &OpView{Phase: phase, Context: ctx, Batch: a.model.ph.w.Batch, Units: units, Time: t, IdealTime: ideal, Ops: rows,
		Bandwidth: a.r.bw, ProductRate: a.r.matmul(a.maxRows), AttentionRate: a.r.attention}
	var total float64
	for i := range v.Ops {
		total += v.Ops[i].Time
	}
	for i := range v.Ops {
		if total > 0 {
			v.Ops[i].Share = v.Ops[i].Time / total
		}
	}
	return v
}

// scale divides a view's figures by the units it sums (a mean step).
func (v *OpView) scale(k float64) {
	v.Time *= k
	v.IdealTime *= k
	for i := range v.Ops {
		o := &v.Ops[i]
		for _, f := range []*float64{&o.FLOPs, &o.WeightBytes, &o.KVBytes, &o.ActivationRead, &o.ScoreRead,
			&o.ActivationWritten, &o.ScoreWritten, &o.Time, &o.MemoryTime, &o.ComputeTime, &o.IdealTime} {
			*f *= k
		}
	}
}

// runSplit is where a run of n units changes bound: units 0 … k are on
// the first side (memory when first is true), k+1 … n−1 on the other, as
// sumMaxLinear splits them.
type runSplit struct {
	n, k  int
	first bool
}

// splitRun splits a run whose memory terms go linearly from f0 to f1 and
// compute terms from g0 to g1.
func splitRun(n int, f0, f1, g0, g1 float64) runSplit {
	d0, d1 := f0-g0, f1-g1
	switch {
	case n <= 1:
		return runSplit{n: n, k: n - 1, first: d0 >= 0}
	case d0 >= 0 && d1 >= 0:
		return runSplit{n: n, k: n - 1, first: true}
	case d0 <= 0 && d1 <= 0:
		return runSplit{n: n, k: n - 1, first: false}
	}
	k := int(float64(n-1) * d0 / (d0 - d1))
	return runSplit{n: n, k: min(max(k, 0), n-2), first: d0 >= 0}
}

// parts sums a linear memory term (f0 → f1) over the units bound by
// memory and a linear compute term (g0 → g1) over those bound by compute.
func (sp runSplit) parts(f0, f1, g0, g1 float64) (mem, comp float64) {
	a, b := sumLinear(sp.n, 0, sp.k, f0, f1), sumLinear(sp.n, sp.k+1, sp.n-1, g0, g1)
	if !sp.first {
		a, b = sumLinear(sp.n, sp.k+1, sp.n-1, f0, f1), sumLinear(sp.n, 0, sp.k, g0, g1)
	}
	return a, b
}

// sum is parts' total.
func (sp runSplit) sum(f0, f1, g0, g1 float64) float64 {
	m, c := sp.parts(f0, f1, g0, g1)
	return m + c
}

// sumLinear is Σ v(i) for i = i0 … i1 where v goes linearly from v0 at 0
// to v1 at n−1.
func sumLinear(n, i0, i1 int, v0, v1 float64) float64 {
	if i1 < i0 {
		return 0
	}
	at := func(i int) float64 {
		if n <= 1 {
			return v0
		}
		return v0 + (v1-v0)*float64(i)/float64(n-1)
	}
	return float64(i1-i0+1) * (at(i0) + at(i1)) / 2
}
