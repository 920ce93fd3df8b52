package sim

import (
	"math"

	"github.com/roofline/roofline/runtimes"
)

// splitPricing is a split's prefill and decode of one request, its
// stages' passes and steps priced once: what the history before the
// prompt (the depth) does not change — every stage's matrix products,
// the links' time — is worked out here, and only attention, which grows
// with the context, is priced at each depth (setDepth). Split.predict
// prices one workload through it and SplitEvaluator every context of a
// batch, so that a plan over splits prices a configuration as a device
// alone does (Evaluator.Contexts) by the very same sums.
type splitPricing struct {
	sp *Split
	w  Workload // resolved: its passes' tokens set, its batch the one priced
	// ideal is false when only the expected figures are wanted (a plan):
	// the ideal bound is then neither priced nor set.
	ideal   bool
	prefill []*Stage
	hops    int
	hopB    float64 // the bytes a token each prefill hop carries
	passes  int     // the prefill's passes, every group's
	// Every prefill stage's phases, their pricing at the stage's expected
	// and ideal rates, and the prompts in one pass (the ideal bound's,
	// when the prefill takes more than one).
	pre              []phases
	preExp, preIdeal []prefillPricing
	one              []phases
	oneIdeal         []prefillPricing
	// A stage that crosses a link (Stage.overLink) reads its weights and
	// its cache over the link and its activations in the GPU's memory,
	// two rates: its bytes are not its ideal memory time at either.
	// preLink and oneLink count the bytes it reads over the link, preVRAM
	// and oneVRAM those in the GPU's memory (linkCount, vramCount).
	preLink, oneLink, preVRAM, oneVRAM []prefillPricing
	// The links' time over the prefill, expected and ideal; ibetween
	// and dibetween the ideal transfers' part on the link between groups
	// (Split.Between) in the prefill and the decode.
	tr, co, itr, ico    float64
	ibetween, dibetween float64
	// Every decode stage's phases of a step of dw.Batch sequences (a
	// pipeline's micro-batch), priced.
	steps, micro     int
	dw               Workload
	dec              []phases
	decExp, decIdeal []decodePricing
	// The links' time over the decode, expected and ideal.
	dtr, dco, ditr, dico float64
	// Scratch for the stages' sums at a depth.
	preSums, decSums []stageSums
	// A pipelined prefill of several passes (flows): each stage's own
	// link in a pass, its fixed part and its part a token (passLinks),
	// and scratch for the stages' free times, a pass's own times and
	// the group each stage's pricing is at.
	flowPass, flowToken, ready, own []float64
	cur                             []*prefillPricing
	group                           int
}

// resolve is workload w with its passes' tokens (0: the runtime's, as
// Setup.Predict resolves them), and where they come from.
func (sp *Split) resolve(w Workload) (Workload, string) {
	s := sp.Main
	if w.UBatch != 0 {
		return w, "given"
	}
	w.UBatch = s.Chunk(0, s.Together(w.Batch)*w.Prompt)
	return w, s.Inputs.ChunkFrom
}

// queues reports whether the split's runtime runs w's sequences in
// batches one after another (Inputs.Together: static batches, or one
// sequence at a time): each batch is priced alone, and the last waits for
// the others.
func (sp *Split) queues(w Workload) bool {
	return sp.Main.Together(w.Batch) < w.Batch
}

// newSplitPricing prices the stages of workload w (Split.resolve; one
// that does not queue, Split.queues) at every depth to come; ideal adds
// the ideal bound. A pricing given in reuse (nil: none) is made over in
// place, its storage kept: a planner prices a placement of every context
// it offloads.
func (sp *Split) newSplitPricing(w Workload, ideal bool, reuse *splitPricing) *splitPricing {
	s := sp.Main
	flash := s.Inputs.FlashAttention
	inOrder := s.Inputs.PrefillOrder == runtimes.InOrder
	q := reuse
	if q == nil {
		q = new(splitPricing)
	}
	*q = splitPricing{sp: sp, w: w, ideal: ideal,
		pre: q.pre, preExp: q.preExp, preIdeal: q.preIdeal, one: q.one, oneIdeal: q.oneIdeal, preLink: q.preLink, oneLink: q.oneLink, preVRAM: q.preVRAM, oneVRAM: q.oneVRAM,
		dec: q.dec, decExp: q.decExp, decIdeal: q.decIdeal, preSums: q.preSums, decSums: q.decSums,
		flowPass: q.flowPass, flowToken: q.flowToken, ready: q.ready, own: q.own, cur: q.cur}
	q.prefill, q.hops, q.hopB = sp.prefillStages(w)
	n := len(q.prefill)
	q.pre, q.preExp, q.preSums = sized(q.pre, n), sized(q.preExp, n), sized(q.preSums, n)
	if ideal {
		q.preIdeal, q.one, q.oneIdeal = sized(q.preIdeal, n), sized(q.one, n), sized(q.oneIdeal, n)
		q.preLink, q.oneLink = sized(q.preLink, n), sized(q.oneLink, n)
		q.preVRAM, q.oneVRAM = sized(q.preVRAM, n), sized(q.oneVRAM, n)
	} else {
		q.preIdeal, q.one, q.oneIdeal = q.preIdeal[:0], q.one[:0], q.oneIdeal[:0]
		q.preLink, q.oneLink, q.preVRAM, q.oneVRAM = q.preLink[:0], q.oneLink[:0], q.preVRAM[:0], q.oneVRAM[:0]
	}
	for i, st := range q.prefill {
		q.pre[i] = newPhasesIn(st.Cost, w, flash, inOrder)
		q.passes = q.pre[i].prefillPasses()
		q.preExp[i] = q.pre[i].prefillAt(&st.r)
		if !ideal {
			continue
		}
		q.preIdeal[i] = q.pre[i].prefillAt(&st.ideal)
		if st.over != nil {
			q.preLink[i], q.preVRAM[i] = q.pre[i].prefillAt(&linkCount), q.pre[i].prefillAt(&vramCount)
		}
		if q.passes > 1 { // the ideal in one pass, as Setup.prefillPhase prices it
			one := w
			one.UBatch, one.Output = max(1, w.Batch*w.Prompt), 1
			q.one[i] = newPhases(st.Cost, one, flash)
			q.oneIdeal[i] = q.one[i].prefillAt(&st.ideal)
			if st.over != nil {
				q.oneLink[i], q.oneVRAM[i] = q.one[i].prefillAt(&linkCount), q.one[i].prefillAt(&vramCount)
			}
		}
	}
	if q.flows() {
		q.flowPass, q.flowToken = sized(q.flowPass, n), sized(q.flowToken, n)
		q.ready, q.own, q.cur = sized(q.ready, n), sized(q.own, n), sized(q.cur, n)
		sp.passLinks(q.preSums, q.prefill, q.hops, q.hopB, q.flowPass, q.flowToken)
	}
	tokens := float64(w.Batch * w.Prompt)
	q.tr, q.co, _ = sp.linkTime(q.passes, q.hops, q.hopB, tokens, false)
	q.itr, q.ico, q.ibetween = sp.linkTime(q.passes, q.hops, q.hopB, tokens, true)

	q.steps = w.Output - 1
	q.micro = 1
	switch {
	case sp.PP <= 1:
	case sp.PipelineBatches != nil:
		q.micro = max(1, min(sp.PipelineBatches(w.Batch), w.Batch))
	case sp.UBatchPipeline && w.UBatch > 0:
		q.micro = (w.Batch + w.UBatch - 1) / w.UBatch
	}
	nd := len(sp.Decode)
	q.decSums = sized(q.decSums, nd)
	q.dec, q.decExp, q.decIdeal = q.dec[:0], q.decExp[:0], q.decIdeal[:0]
	if q.steps <= 0 {
		return q
	}
	q.dw = w
	q.dw.Batch = (w.Batch + q.micro - 1) / q.micro
	q.dec, q.decExp = sized(q.dec, nd), sized(q.decExp, nd)
	if ideal {
		q.decIdeal = sized(q.decIdeal, nd)
	}
	for i, st := range sp.Decode {
		q.dec[i] = decodePhases(st.Cost, q.dw, flash)
		q.decExp[i] = q.dec[i].decodeAt(st.decodeRates(q.dw.Batch))
		if ideal {
			q.decIdeal[i] = q.dec[i].decodeAt(&st.ideal)
		}
	}
	tokens = float64(q.steps * q.dw.Batch)
	q.dtr, q.dco, _ = sp.linkTime(q.steps, sp.DecodeHops, sp.HopBytes, tokens, false)
	q.ditr, q.dico, q.dibetween = sp.linkTime(q.steps, sp.DecodeHops, sp.HopBytes, tokens, true)
	return q
}

// linkCount and vramCount price an ideal pass at 1 B/s for what a stage
// over a link reads over it (its weights and its cache) and in the GPU's
// memory (its activations, Stage.overLink), the other free: their memory
// terms are bytes.
var (
	linkCount = rates{bw: 1, kv: 1, vram: math.Inf(1), peak: 1, ideal: true}
	vramCount = rates{bw: math.Inf(1), kv: math.Inf(1), vram: 1, peak: 1, ideal: true}
)

// sized is s with n zero elements, in s's storage when it holds them.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// setDepth moves the request onto depth cached tokens: every phase's, and
// every later group's of a prefill that takes whole prompts in turn.
func (q *splitPricing) setDepth(depth int) {
	q.w.Depth, q.dw.Depth = depth, depth
	set := func(ps []phases) {
		for i := range ps {
			ps[i].setDepth(depth)
		}
	}
	set(q.pre)
	set(q.one)
	set(q.dec)
}

// splitPhases are a split request's figures at one depth.
type splitPhases struct {
	prefill, decode Phase
	// first and last are the first and last decode steps' time summed
	// over the stages, before the links.
	first, last float64
}

// at prices the request at the depth set: the stages' sums (kept in
// preSums and decSums) and the phases they combine into.
func (q *splitPricing) at() splitPhases {
	sp := q.sp
	var out splitPhases
	for i, st := range q.prefill {
		e := q.preExp[i].sum()
		var id sums
		var bytes, over float64
		if q.ideal {
			id = q.preIdeal[i].sum()
			one := q.pre[i].prefillPasses() > 1
			if one {
				id = q.oneIdeal[i].sum()
			}
			bytes = id.memory * st.ideal.bw
			switch {
			case st.over != nil && one:
				over = q.oneLink[i].sum().memory
				bytes = over + q.oneVRAM[i].sum().memory
			case st.over != nil:
				over = q.preLink[i].sum().memory
				bytes = over + q.preVRAM[i].sum().memory
			}
		}
		q.preSums[i] = stageSums{exp: e, ideal: id, bytes: bytes, over: over, flops: id.compute * st.ideal.peak, overhead: float64(q.pre[i].passes) * st.r.overhead}
	}
	if sp.PP > 1 && sp.PipelinedPrefill {
		sp.ownLinks(q.preSums, q.prefill, q.passes, float64(q.w.Batch*q.w.Prompt), q.hopB, q.co, q.ico, q.ideal)
	}
	out.prefill = sp.combine(q.preSums, q.passes, sp.fillPasses(q.w), q.tr+q.co, q.itr+q.ico, true)
	if q.flows() {
		out.prefill.Time = q.flow()
	}
	if q.steps <= 0 {
		return out
	}
	for i, st := range sp.Decode {
		dp := &q.decExp[i]
		e := dp.sum()
		var id sums
		if q.ideal {
			id = q.decIdeal[i].sum()
		}
		q.decSums[i] = stageSums{exp: e, ideal: id, bytes: id.memory * st.ideal.bw, flops: id.compute * st.ideal.peak, overhead: float64(q.steps) * dp.r.overhead}
		out.first += dp.time(q.dec[i].firstStep())
		out.last += dp.time(q.dec[i].lastStep())
	}
	if sp.PP > 1 {
		sp.ownLinks(q.decSums, sp.Decode, q.steps, float64(q.steps*q.dw.Batch), sp.HopBytes, q.dco, q.dico, q.ideal)
	}
	out.decode = sp.combine(q.decSums, q.steps, q.micro, q.dtr+q.dco, q.ditr+q.dico, false)
	return out
}

// flows says whether the prefill's passes follow each other through a
// pipeline's stages (Split.PipelinedPrefill), priced pass by pass (flow).
func (q *splitPricing) flows() bool {
	return q.sp.PP > 1 && q.sp.PipelinedPrefill && q.passes > 1
}

// flow is the expected time of a pipelined prefill's passes, pass by
// pass, as a serving simulation steps them: each stage takes a pass for
// its own time at the pass's depth (its layers, prefillPricing's pass at
// the stage's rates, and its own link, passLinks, for the pass's
// tokens), each pass follows the one before through the stages
// (Through), and each call of the runtime's (Split.fillPasses: llama.cpp's
// n_batch over n_ubatch, 0 for all) fills the pipeline anew, the next
// call starting when the last's last pass leaves the last stage. Passes
// alike give pipelineFills: a trip, and a slowest stage for each next
// pass of a call. serve steps a lone request's chunks by the same
// Through (engine.flowChunk, llama.cpp's ubatches in engine.price), so
// the two agree to rounding.
func (q *splitPricing) flow() float64 {
	per := q.sp.fillPasses(q.w)
	clear(q.ready)
	total, end, j := 0.0, 0.0, 0
	for k := q.firstPass(); k >= 0; k = q.nextPass(k) {
		if per > 0 && j > 0 && j%per == 0 {
			total += end
			clear(q.ready)
		}
		q.passTimes(k, true)
		end = Through(q.ready, q.own)
		j++
	}
	return total + end
}

// firstPass starts a walk over the prefill's passes in the order they
// run (nextPass): each stage's pricing at the first group (q.cur), pass 0.
func (q *splitPricing) firstPass() int {
	for i := range q.prefill {
		q.cur[i] = &q.preExp[i]
	}
	q.group = 0
	return 0
}

// nextPass is the index, in its group's passes, of the pass after pass k
// (q.cur moved on to the next group, or to the smaller last one, when k
// ends a group), -1 after the last.
func (q *splitPricing) nextPass(k int) int {
	g := q.cur[0]
	if k+1 < g.passes {
		return k + 1
	}
	if q.group++; q.group < g.groups {
		return 0
	}
	q.group = 0
	for i := range q.cur {
		q.cur[i] = q.cur[i].rest
	}
	if q.cur[0] == nil {
		return -1
	}
	return 0
}

// passTimes sets q.own[i] to stage i's time in pass k of the group the
// walk is at (firstPass): its layers at the pass's depth and rates
// (prefillPricing's pass), and, with links, its own link for the pass's
// rows (passLinks).
func (q *splitPricing) passTimes(k int, links bool) {
	for i, pp := range q.cur {
		var t float64
		var rows int
		if k < pp.passes-1 {
			t = pp.r.base(&pp.fullCost).timeWith(pp.prefillPass(k))
			rows = pp.group * pp.perSeq
		} else {
			t = pp.r.base(&pp.lastCost).timeWith(pp.lastPass())
			rows = pp.group * pp.last
		}
		if links {
			t += q.flowPass[i] + float64(rows)*q.flowToken[i]
		}
		q.own[i] = t
	}
}

// itl is the first and last decode steps' time with the links' share of
// a step, scaled as the stages combine (a pipeline's steps are not the
// sum of its stages').
func (q *splitPricing) itl(ph *splitPhases) (first, last float64) {
	steps := float64(q.steps)
	step := (q.dtr + q.dco) / steps
	scale := ph.decode.Time / math.Max(sumTimes(q.decSums)+q.dtr+q.dco, 1e-300)
	return (ph.first + step) * scale, (ph.last + step) * scale
}

// fillPasses is how many of w's prefill passes one fill of a pipeline
// holds: the runtime's call of Inputs.PrefillFill tokens over passes of
// w.UBatch (llama.cpp: n_batch 2048 over n_ubatch 512, 4); 0 when a
// prompt's passes all fill it once.
func (sp *Split) fillPasses(w Workload) int {
	f := sp.Main.Inputs.PrefillFill
	if f <= 0 || w.UBatch <= 0 {
		return 0
	}
	return max(1, f/w.UBatch)
}
