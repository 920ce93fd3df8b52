package sim

import (
	"math"
	"sync"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
)

// Bounds are the one-sided factors (Spread.Bounds) at confidence c of a
// split's prediction of workload w, prefill then decode: each stage's
// factors weighted by its share of the phase's time, the links' at the
// first device's (as the split's intervals weigh their classes). One
// stage on one device gives that device's own factors.
func (sp *Split) Bounds(w Workload, c float64) (pLo, pHi, dLo, dHi float64, err error) {
	_, parts, err := sp.predict(w, false)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	pLo, pHi = sp.weighted(parts.prefill, parts.pre, parts.preLink, true, c)
	dLo, dHi = sp.weighted(sp.Decode, parts.dec, parts.link, false, c)
	return pLo, pHi, dLo, dHi, nil
}

// weighted is the time-weighted mean of the stages' and the link's
// factors at confidence c.
func (sp *Split) weighted(st []*Stage, ss []stageSums, link float64, prefill bool, c float64) (lo, hi float64) {
	total := 0.0
	for i, s := range st {
		l, h := s.setup.Spread(prefill).Bounds(c)
		t := ss[i].exp.time
		lo, hi, total = lo+l*t, hi+h*t, total+t
	}
	l, h := sp.Main.Spread(prefill).Bounds(c)
	lo, hi, total = lo+l*link, hi+h*link, total+link
	if !(total > 0) {
		return l, h
	}
	return lo / total, hi / total
}

// SplitEvaluator checks configurations of a split for one request
// against targets, as Evaluator checks one device's: each is priced by
// Split.Predict's own sums (the planner and predict share one account),
// its memory checked pool by pool with the targets' headroom kept free in
// each, and judged at the factors given (Split.Bounds).
type SplitEvaluator struct {
	sp                     *Split
	t                      Targets
	prompt, output, ubatch int
	pLo, pHi, dLo, dHi     float64
}

// Evaluator resolves an evaluator of the split for the request and
// targets, judging at the factors given.
func (sp *Split) Evaluator(prompt, output, ubatch int, t Targets, pLo, pHi, dLo, dHi float64) *SplitEvaluator {
	return &SplitEvaluator{sp: sp, t: t, prompt: prompt, output: output, ubatch: ubatch, pLo: pLo, pHi: pHi, dLo: dLo, dHi: dHi}
}

// Workload is the request of a planned configuration of ctx tokens at the
// end: its history before the prompt and the reply.
func PlanWorkload(ctx, batch, prompt, output, ubatch int) Workload {
	return Workload{Prompt: prompt, Output: output, Batch: batch, Depth: max(0, ctx-prompt-output), UBatch: ubatch}
}

// Contexts checks the configurations of one batch size at each context,
// appending to out. The batch's stages are priced once and moved from
// context to context (splitPricing), as Evaluator.Contexts prices a
// device's: only attention is priced again.
func (e *SplitEvaluator) Contexts(contexts []int, batch int, out []Config) ([]Config, error) {
	var b splitBatch
	for _, ctx := range contexts {
		c, err := e.evaluate(&b, ctx, batch)
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Evaluate checks one configuration: ctx tokens per sequence at the end,
// batch sequences. TTFT is the last request's (Result.LastTTFT: a runtime
// that does not batch queues the others), TPOT the last step's ITL, the
// throughput the resident sequences over it, the memory every pool's.
func (e *SplitEvaluator) Evaluate(ctx, batch int) (Config, error) {
	var b splitBatch
	return e.evaluate(&b, ctx, batch)
}

// splitBatch is the pricing a run of evaluations shares: made for the
// first configuration of a split, request and batch, moved to the depth
// of each next one alike, made again when the split or the request
// changes.
type splitBatch struct {
	sp    *Split
	q     *splitPricing
	pools []PoolUse
}

// pricing is b's pricing moved to resolved workload w on sp (one that
// does not queue), made anew when b has none for sp and w's request.
func (b *splitBatch) pricing(sp *Split, w Workload) *splitPricing {
	if b.q != nil && b.sp == sp {
		had := b.q.w
		had.Depth = w.Depth
		if had == w {
			b.q.setDepth(w.Depth)
			return b.q
		}
	}
	b.sp, b.q = sp, sp.newSplitPricing(w, false, b.q)
	return b.q
}

// evaluate is Evaluate through b's pricing: the figures Split.predict
// gives the same request (TTFT the last request's, TPOT the last step's
// ITL, the memory every pool's), by the same sums.
func (e *SplitEvaluator) evaluate(b *splitBatch, ctx, batch int) (Config, error) {
	sp, t := e.sp, e.t
	w := PlanWorkload(ctx, batch, e.prompt, e.output, e.ubatch)
	if w.Output < 2 {
		// The last step of a reply of one token is the prefill's: price a
		// step after it, as Evaluator prices one beside the prefill.
		w.Output, w.Depth = 2, max(0, ctx-e.prompt-2)
	}
	if err := w.Validate(); err != nil {
		return Config{}, err
	}
	w, _ = sp.resolve(w)
	queued := sp.queues(w)
	n, size, last := sp.Main.Inputs.batches(w.Batch)
	if queued {
		w.Batch = size // each batch alone; the last waits for the others
	}
	q := b.pricing(sp, w)
	ph := q.at()
	ttft, e2e, itl := ph.prefill.Time, ph.prefill.Time, math.NaN()
	if q.steps > 0 {
		e2e = ttft + ph.decode.Time
		_, itl = q.itl(&ph)
	}
	if queued {
		lastTTFT := ttft
		if last != size {
			// A smaller last batch (static batches that do not divide
			// the sequences): its own prefill, as Split.predict prices it.
			wl := w
			wl.Batch = last
			lp := sp.newSplitPricing(wl, false, nil).at()
			lastTTFT = lp.prefill.Time
		}
		ttft, _ = queuedTimes(n, e2e, lastTTFT, 0)
	}
	b.pools = sp.memoryInto(b.pools, w.Context(), w.Batch, w.UBatch)
	mem := sp.memoryTotal(b.pools, w.Batch, w.UBatch, false)
	c := Config{Context: ctx, Batch: batch, TTFT: ttft, TPOT: itl, Memory: mem.Total, Fits: true}
	seqs := sp.Main.resident(batch)
	c.Throughput = float64(seqs) / c.TPOT
	worst := 0.0
	for _, p := range b.pools {
		usable := p.Usable * (1 - t.Headroom)
		worst = math.Max(worst, p.Total/usable)
		c.Fits = c.Fits && p.Total <= usable
	}
	judge(&c, t, worst, seqs, e.pLo, e.pHi, e.dLo, e.dHi)
	return c, nil
}

// judge sets a priced configuration's limits, feasibility and verdict:
// memory (needed / usable at its worst, above 1 when it does not fit),
// then TTFT, TPOT and throughput against the targets, judged at the
// factors given. Evaluator and SplitEvaluator judge alike.
func judge(c *Config, t Targets, memExcess float64, seqs int, pLo, pHi, dLo, dHi float64) {
	fail := func(limit Limit, excess float64) {
		c.Misses |= 1 << limit
		if c.Limit == LimitNone {
			c.Limit, c.Excess = limit, excess
		}
	}
	if !c.Fits {
		fail(LimitMemory, memExcess)
	}
	if t.TTFT > 0 && c.TTFT > t.TTFT {
		fail(LimitTTFT, c.TTFT/t.TTFT)
	}
	if t.TPOT > 0 && c.TPOT > t.TPOT {
		fail(LimitTPOT, c.TPOT/t.TPOT)
	}
	if t.MinThroughput > 0 && c.Throughput < t.MinThroughput {
		fail(LimitThroughput, t.MinThroughput/c.Throughput)
	}
	c.Feasible = c.Limit == LimitNone
	c.Verdict = Meets
	if !c.Fits {
		c.Verdict = Fails
	}
	c.Verdict = worse(c.Verdict, JudgeWithin(c.TTFT, t.TTFT, pLo, pHi).Verdict)
	c.Verdict = worse(c.Verdict, JudgeWithin(c.TPOT, t.TPOT, dLo, dHi).Verdict)
	if t.MinThroughput > 0 {
		// Throughput is a floor: B / TPOT must stay above it.
		c.Verdict = worse(c.Verdict, JudgeWithin(c.TPOT, float64(seqs)/t.MinThroughput, dLo, dHi).Verdict)
	}
}

// Limits are the inverse answers of the split at one batch, by bisection
// over its own evaluation (each bound monotone in what it searches):
// the longest context every pool holds, the longest meeting TPOT, the
// longest prompt meeting TTFT, the most sequences that fit.
func (e *SplitEvaluator) Limits(batch, minContext int) (Limits, error) {
	l := Limits{Batch: batch, MaxContextTPOT: -1, MaxPromptTTFT: -1}
	var err error
	var sb splitBatch // the searches over contexts share one pricing
	eval := func(ctx, b int) Config {
		c, e2 := e.evaluate(&sb, ctx, b)
		if e2 != nil && err == nil {
			err = e2
		}
		return c
	}
	hi := MaxPlanTokens
	if lim := e.sp.Main.Model.Spec.MaxContext; lim > 0 {
		hi = lim + 1
	}
	least := e.prompt + max(e.output, 2)
	fitsAt := func(c int) bool { return eval(max(c, least), batch).Fits }
	l.MaxContextFit, l.ContextBound = e.sp.Main.modelBound(largest(hi, fitsAt))
	upper := l.MaxContextFit
	if upper < 0 {
		upper = MaxPlanTokens
	}
	if e.t.TPOT > 0 {
		l.MaxContextTPOT = largest(upper, func(c int) bool { return eval(max(c, least), batch).TPOT <= e.t.TPOT })
	}
	if e.t.TTFT > 0 {
		one := *e
		l.MaxPromptTTFT = largest(upper, func(n int) bool {
			one.prompt = n
			c, e2 := one.evaluate(&sb, n+max(e.output, 2), batch)
			if e2 != nil && err == nil {
				err = e2
			}
			return c.TTFT <= e.t.TTFT
		})
	}
	l.BatchContext = max(minContext, e.prompt+e.output)
	bhi := MaxPlanTokens
	bhi = e.sp.Main.Together(bhi) // the most that run at once
	l.MaxBatchFit = largest(min(bhi, 4096), func(b int) bool { return eval(l.BatchContext, b).Fits })
	return l, err
}

// OffloadEvaluator is Evaluator for a device whose runtime offloads to
// its host: a configuration the device does not hold alone is priced as
// predict prices it, placed by llama.cpp's automatic fitting
// (NewOffload with AutoLayers: as many layers as fit on the GPU) and
// evaluated on that split. Offloaded configurations are judged at the
// factors of the first of them (Factors).
type OffloadEvaluator struct {
	*Evaluator
	// place resolves, at the first configuration the device does not
	// hold, the model's cost with its tensor list (a placement is cut
	// from it, when its parts are not kept yet), the host's CPU setup and
	// the link to it (nil for unified memory); a nil host offloads
	// nothing.
	place    func() (full func() (*model.Cost, error), host *Setup, link *hardware.Link, err error)
	full     func() (*model.Cost, error)
	placed   bool
	host     *Setup
	link     *hardware.Link
	pLo, pHi float64
	dLo, dHi float64
	factored bool
	slices   *Slices
	// splits are the placements tried so far: the fitting's bisection
	// tries the same few for every configuration, and a split does not
	// depend on the workload.
	splits map[offloadPlace]*Split
	// last is the placement of the last configuration offloaded, at
	// lastCtx tokens and lastBatch sequences.
	last               *Split
	lastCtx, lastBatch int
	// pools is the storage the last placement's memory is checked in.
	pools []PoolUse
}

// fit places workload w as NewOffload's automatic fitting does, from the
// placements built so far; nil when the device holds w alone.
func (e *OffloadEvaluator) fit(w Workload) (*Split, error) {
	// Setup.Memory's Fits, without the longest context it also finds.
	if e.s.MemoryNeed(w.Context(), w.Batch, w.UBatch) <= e.s.Usable() {
		return nil, nil
	}
	ctx := w.Context()
	if e.last != nil && w.Batch == e.lastBatch && ctx >= e.lastCtx {
		// The last placement was the largest that fitted a smaller
		// workload: a larger one did not fit it and fits this one no
		// better, so if it still fits, the fitting would choose it again
		// (its family too: a placement holding every dense tensor fits
		// only where every dense tensor does).
		e.pools = e.last.memoryInto(e.pools, ctx, w.Batch, w.UBatch)
		if u := e.pools[0]; u.Total <= u.Usable-u.Margin {
			e.lastCtx = ctx
			return e.last, nil
		}
	}
	if e.splits == nil {
		e.splits = map[offloadPlace]*Split{}
	}
	sp, _, err := fitOffload(e.s, w, func(pl offloadPlace) (*Split, error) {
		if sp, ok := e.splits[pl]; ok {
			return sp, nil
		}
		sp, err := offloadSplit(e.s, e.host, e.link, pl, func(p model.Part) (*model.Cost, error) {
			return e.slices.Slice(e.s.Model, p, e.full)
		})
		if err == nil {
			e.splits[pl] = sp
		}
		return sp, err
	})
	if err != nil {
		return nil, err
	}
	if u := sp.Memory(ctx, w.Batch, w.UBatch)[0]; u.Total <= u.Usable-u.Margin {
		e.last, e.lastCtx, e.lastBatch = sp, ctx, w.Batch
	} else {
		e.last = nil // nothing fits: the fitting's fallback, no hint
	}
	return sp, nil
}

// OffloadEvaluator resolves an evaluator of s offloading, where s does not
// hold a configuration, as place says, its placements cut from slices
// (nil: its own).
func (s *Setup) OffloadEvaluator(place func() (full func() (*model.Cost, error), host *Setup, link *hardware.Link, err error), slices *Slices, prompt, output, ubatch int, t Targets) *OffloadEvaluator {
	if slices == nil {
		slices = NewSlices()
	}
	return &OffloadEvaluator{Evaluator: s.Evaluator(prompt, output, ubatch, t), place: place, slices: slices}
}

// Slices keeps the parts of models a search cuts by their sums
// (model.Cost.SliceSums), for placements tried again and again: a plan
// places one model on many devices alike. A part is keyed by its model,
// formats, layout and weight bytes, not by the cost it was cut from, so
// that the cost and its tensor list need not stay: a part holds no list,
// a few hundred bytes. Safe for concurrent use.
type Slices struct {
	mu sync.Mutex
	m  map[sliceKey]*model.Cost
}

type sliceKey struct {
	spec        *model.Spec
	weights, kv string
	layout      model.Layout
	weightBytes float64
	p           model.Part
}

// NewSlices is an empty store of parts.
func NewSlices() *Slices { return &Slices{m: map[sliceKey]*model.Cost{}} }

// Slice is part p of the model c prices, cut from full (c with its tensor
// list, built only when the part is not kept yet) by SliceSums.
func (s *Slices) Slice(c *model.Cost, p model.Part, full func() (*model.Cost, error)) (*model.Cost, error) {
	k := sliceKey{c.Spec, c.Weights.Name, c.KV.Name, c.Layout, c.WeightBytes, p}
	s.mu.Lock()
	got, ok := s.m[k]
	s.mu.Unlock()
	if ok {
		return got, nil
	}
	f, err := full()
	if err != nil {
		return nil, err
	}
	if got, err = f.SliceSums(p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.m[k] = got
	s.mu.Unlock()
	return got, nil
}

// Contexts checks the configurations of one batch size at each context,
// appending to out: on the device alone where it holds the model, else
// offloaded.
func (e *OffloadEvaluator) Contexts(contexts []int, batch int, out []Config) ([]Config, error) {
	n := len(out)
	out = e.Evaluator.Contexts(contexts, batch, out)
	// Offloaded configurations of one placement share its pricing.
	var sb splitBatch
	for i := n; i < len(out); i++ {
		c := &out[i]
		if c.Fits {
			continue
		}
		if !e.placed {
			var err error
			if e.full, e.host, e.link, err = e.place(); err != nil {
				return out, err
			}
			e.placed = true
		}
		if e.host == nil {
			return out, nil
		}
		w := PlanWorkload(c.Context, batch, e.prompt, e.output, e.ubatch)
		sp, err := e.fit(w)
		if err != nil {
			return out, err
		}
		if sp == nil {
			continue // it fits alone: the headroom is what it misses
		}
		if !e.factored {
			e.pLo, e.pHi, e.dLo, e.dHi, err = sp.Bounds(w, e.t.confidence())
			if err != nil {
				return out, err
			}
			e.factored = true
		}
		se := SplitEvaluator{sp: sp, t: e.t, prompt: e.prompt, output: e.output, ubatch: e.ubatch, pLo: e.pLo, pHi: e.pHi, dLo: e.dLo, dHi: e.dHi}
		oc, err := se.evaluate(&sb, c.Context, batch)
		if err != nil {
			return out, err
		}
		oc.offload, oc.hostExperts = uint16(sp.GPULayers+1), uint8(min(sp.ExpertLayers, 255))
		*c = oc
	}
	return out, nil
}

// Factors are the one-sided factors offloaded configurations are judged
// at, and the host's usable memory; ok is false until one has been.
func (e *OffloadEvaluator) Factors() (pLo, pHi, dLo, dHi float64, ok bool) {
	return e.pLo, e.pHi, e.dLo, e.dHi, e.factored
}

// Host is the host's setup once a configuration has been offloaded (nil
// before, or when the device has none).
func (e *OffloadEvaluator) Host() *Setup { return e.host }
