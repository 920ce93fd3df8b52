package sim

import (
	"math"

	"github.com/roofline/roofline/model"
)

// phases holds what the prefill and decode of one workload need, computed
// once: the matrix-product classes of a full prefill pass, of the last
// pass and of a decode step, and how each pass's attention is priced.
//
// Pricing is split by what changes with the context: a unit's matrix
// products (matmulCost) are priced once per phase and rates
// (prefillPricing, decodePricing), attention (rates.attend) per pass or
// step. A new term of the time model goes into matmulCost when it does not
// grow with the context, into attend when it does; sums and the ideal
// bound follow.
type phases struct {
	m *model.Cost
	w Workload
	// kvReads is how many times a pass reads each sequence's KV cache: 1
	// with fused (flash) attention, the GQA group without it, where the
	// score and value products read K and V once per query head.
	kvReads float64
	// unfused is true without flash attention: every score goes through
	// memory.
	unfused bool
	perSeq  int // prefill tokens per sequence per pass
	passes  int
	last    int // tokens per sequence in the last pass
	full    model.Matmuls
	lastMM  model.Matmuls
	step    model.Matmuls
	// others are sequences decoding alongside every prefill pass
	// (continuous batching, Setup.JoinTTFT), each attending otherCtx keys.
	others   int
	otherCtx int

	// group is the sequences whose prompts go through the prefill's
	// passes (a group's passes) together: the batch in lockstep; under a
	// runtime that takes whole prompts in order, as many as a pass holds
	// (one, in chunks, when a prompt outgrows it). groups alike run one
	// after another, then rest, a smaller last group (nil when none).
	group, groups int
	rest          *phases
	inOrder       bool
}

func newPhases(m *model.Cost, w Workload, flashAttention bool) phases {
	return newPhasesIn(m, w, flashAttention, false)
}

// newPhasesIn is newPhases with the batch's prompts in lockstep, or
// (inOrder) whole, one group of them after another (groupPrompts).
func newPhasesIn(m *model.Cost, w Workload, flashAttention, inOrder bool) phases {
	p := basePhases(m, w, flashAttention, inOrder)
	if inOrder && w.Prompt > 0 {
		p.groupPrompts(flashAttention)
	}
	if w.Prompt > 0 {
		p.full = prefillMatmuls(m, p.group*p.perSeq, 0)
	}
	p.setPrompt(w.Prompt)
	if w.Output > 1 {
		p.step = m.Matmuls(w.Batch, w.Batch)
	}
	return p
}

// basePhases is what every pass of w shares: how attention reads the
// cache, and the tokens per sequence a pass takes with the batch's
// prompts in lockstep.
func basePhases(m *model.Cost, w Workload, flashAttention, inOrder bool) phases {
	p := phases{m: m, w: w, kvReads: 1, unfused: !flashAttention, inOrder: inOrder, group: w.Batch, groups: 1}
	if !flashAttention {
		p.kvReads = float64(m.Spec.GQAGroup())
	}
	p.perSeq = max(1, w.UBatch/w.Batch)
	return p
}

// setPrompt sets the prompt's length: its passes and the last pass's
// products (a full pass's do not depend on it).
func (p *phases) setPrompt(prompt int) {
	p.w.Prompt = prompt
	p.passes = (prompt + p.perSeq - 1) / p.perSeq
	p.last = prompt - (p.passes-1)*p.perSeq
	p.lastMM = model.Matmuls{}
	if prompt > 0 {
		p.lastMM = prefillMatmuls(p.m, p.group*p.last, p.group)
	}
}

// setDepth moves the workload onto depth cached tokens: its own and every
// later group's of a prefill that takes whole prompts in turn, whose
// passes attend the same history.
func (p *phases) setDepth(depth int) {
	for q := p; q != nil; q = q.rest {
		q.w.Depth = depth
	}
}

// stepPhases is what a decode step of `batch` sequences needs: the
// step's matrix products and how attention reads the cache.
func stepPhases(m *model.Cost, batch int, flashAttention bool) phases {
	return decodePhases(m, Workload{Output: 2, Batch: batch, UBatch: 1}, flashAttention)
}

// decodePhases is what the decode steps of workload w need, and nothing
// of its prefill: a split's decode stages price no prefill.
func decodePhases(m *model.Cost, w Workload, flashAttention bool) phases {
	p := phases{m: m, w: w, kvReads: 1, unfused: !flashAttention}
	if !flashAttention {
		p.kvReads = float64(m.Spec.GQAGroup())
	}
	if w.Output > 1 {
		p.step = m.Matmuls(w.Batch, w.Batch)
	}
	return p
}

// withOthers adds `others` decoding sequences to every prefill pass: their
// tokens join the pass's rows and need logits, their KV caches are read.
func (p *phases) withOthers(others, otherCtx int) {
	p.others, p.otherCtx = others, otherCtx
	B := p.group
	p.full = prefillMatmuls(p.m, B*p.perSeq+others, others)
	p.lastMM = prefillMatmuls(p.m, B*p.last+others, B+others)
}

// prefillMatmuls is a prefill pass's matrix products with the activations
// it moves between kernels: a pass of many tokens writes and reads them
// through memory, where a decode step's stay in cache.
func prefillMatmuls(m *model.Cost, tokens, logits int) model.Matmuls {
	mm := m.Matmuls(tokens, logits)
	mm.Activations = m.ActivationBytes(tokens)
	mm.DenseBytes += mm.Activations
	return mm
}

// prefillPassTime is the time of one prefill pass of `tokens` rows of
// model m, `logits` of them with logits, at rates r with attention of b
// bytes and f FLOPs: its products and attention as Predict prices a
// pass, before a pricer's scale (the serving pricers' one-device and
// staged passes; prefillPricing.prefillPass is a pass's attention terms).
func prefillPassTime(m *model.Cost, tokens, logits int, r *rates, b, f float64) float64 {
	mm := prefillMatmuls(m, tokens, logits)
	u := matmulCost(&mm, r)
	return u.timeWith(r.attend(&u, b, f))
}

// matmulCost prices the matrix-product classes of a pass: the dense
// products and the routed experts, each bounded by its own roofline, and
// the host work of its tokens (a runtime's operations on the CPU beside
// the engine, which the engine waits for).
func matmulCost(mm *model.Matmuls, r *rates) unitCost {
	if r.ideal {
		fm := mm.Bytes() / r.bw
		if r.vram > 0 {
			fm = (mm.Bytes()-mm.Activations)/r.bw + mm.Activations/r.vram
		}
		return unitCost{fm: fm, fc: mm.FLOPs() / r.peak}
	}
	var u unitCost
	dm, dc, em, ec := r.classTerms(mm)
	p := r.products(dm, dc) + r.products(em, ec)
	t, a := r.unpackBound(mm, p)
	u.fixed = t + r.overhead + mm.Rows*r.host + r.graph(mm.Rows)
	// The unpacking arithmetic is compute: the step is compute-bound
	// where it outlasts the memory terms.
	u.fm, u.fc = dm+em, max(dc+ec, a)
	return u
}

// unpackBound is the time t of a decode step's products whose roofline
// time is p, with the arithmetic a that unpacks their weights beside it
// (hardware.Efficiency.KQuantDecode; the K-quants on llama.cpp's Metal,
// MLC's int4 groups on CUDA): p and 0 when the engine's kernels unpack
// none of the products' types weight by weight, and in prefill. The
// unpacking is counted as the FLOPs of one row, whatever the step's rows:
// once for each weight the step reads, except that a batch's routed
// experts beyond those one token reaches are not counted. A step of one
// sequence is what the published runs measure, and a larger one is never
// priced faster than it (llama.cpp's Metal kernels for a few columns
// unpack per column, its tiled ones share the unpacking).
func (r *rates) unpackBound(mm *model.Matmuls, p float64) (t, a float64) {
	if r.unpack <= 0 || !(r.unpackPeak > 0) || r.eff.KQuantGEMV <= 0 {
		return p, 0
	}
	f := r.unpack * mm.FLOPs() / max(mm.Rows, 1)
	return r.eff.KQuantDecode(p, f, r.unpackPeak), f / (r.unpackPeak * r.eff.KQuantGEMV)
}

// classTerms are the memory and compute terms of the dense products (dm,
// dc) and of the routed experts (em, ec) at the expected rates r.
func (r *rates) classTerms(mm *model.Matmuls) (dm, dc, em, ec float64) {
	dense := r.matmul(mm.Rows)
	return r.classTermsAt(mm, dense, r.expertRate(mm, dense))
}

// expertRate is the rate, FLOP/s of routed FLOPs, the routed experts of
// a pass reach when the dense products of its tokens reach `dense` (0
// without expert FLOPs). Without a tile it is the rate of a product of
// the tokens each reached expert receives. Under a tile (rates.tile:
// llama.cpp's MMQ) the kernel multiplies every expert in whole tiles of
// one width chosen from the pass's tokens (mmqWidth), its stream-k grid
// busy over all of them as a dense product of the pass's tokens is, so
// the experts run at the dense rate over the padded columns
// (model.Matmuls.ExpertTilePadding).
func (r *rates) expertRate(mm *model.Matmuls, dense float64) float64 {
	switch {
	case mm.ExpertFLOPs <= 0:
		return 0
	case r.tile > 0:
		return dense / mm.ExpertTilePadding(mmqWidth(mm.Rows, r.tile))
	}
	return r.matmul(mm.ExpertRows)
}

// mmqWidth is the tile width, in tokens, llama.cpp's MMQ takes for a
// product of n tokens with tiles of at most maxWidth: of the widths 8,
// 16, … maxWidth that its tensor-core kernels build (a multiple of 16
// from 48 on, of 8 below), the smallest that needs the fewest tiles,
// ⌈n / maxWidth⌉ (ggml-org/llama.cpp @00cd2085
// ggml/src/ggml-cuda/mmq.cuh, mul_mat_q_case and
// mmq_get_granularity_host). For routed experts n is every token of the
// pass (mmq.cu, ggml_cuda_mul_mat_q: ncols_max = ne12), not the tokens
// an expert receives.
func mmqWidth(n, maxWidth float64) float64 {
	n = max(1, math.Ceil(n))
	w := math.Ceil(n / math.Ceil(n/maxWidth))
	if w <= 40 {
		w = 8 * math.Ceil(w/8)
	} else {
		w = 16 * math.Ceil(w/16)
	}
	return min(w, maxWidth)
}

// classTermsAt is classTerms with the products' rates given: the dense
// products' and the experts' (unused without expert FLOPs). Under a tile
// (rates.tile) the layers' weights are read once per tile of the pass's
// tokens, each reached expert's once per tile of the tokens it receives;
// the re-reads the engine's cache holds cost no memory time.
func (r *rates) classTermsAt(mm *model.Matmuls, dense, expert float64) (dm, dc, em, ec float64) {
	dm, dc = r.denseMemory(mm), mm.DenseFLOPs/dense
	em = mm.ExpertBytes / r.bw
	rd, re := r.rereads(mm)
	dm, em = dm+rd, em+re
	if mm.ExpertFLOPs > 0 {
		ec = mm.ExpertFLOPs / expert
	}
	return dm, dc, em, ec
}

// denseMemory is the memory time of the dense products' bytes: all at
// bw, or, for a stage whose weights cross a link (rates.vram), the
// weights at bw and the activations in the GPU's memory.
func (r *rates) denseMemory(mm *model.Matmuls) float64 {
	if r.vram <= 0 {
		return mm.DenseBytes / r.bw
	}
	return (mm.DenseBytes-mm.Activations)/r.bw + mm.Activations/r.vram
}

// rereads is the memory time of the re-reads a tiled kernel takes from
// memory beyond what the engine's cache holds, for the dense products
// (rd) and the routed experts (re): none without a tile (rates.tile).
func (r *rates) rereads(mm *model.Matmuls) (rd, re float64) {
	if r.tile <= 0 {
		return 0, 0
	}
	d, x := mm.TileRereadBytes(r.tileRows, r.l2)
	v := r.vramRate()
	return (math.Ceil(mm.Rows/r.tile) - 1) * d / v, (math.Ceil(mm.ExpertRows/r.tile) - 1) * x / v
}

// matmul is the rate, FLOP/s, a product of `rows` rows reaches: its share
// of the peak (Efficiency.Matmul), capped by what the engine's units reach
// (UnitCompute).
func (r *rates) matmul(rows float64) float64 {
	return r.eff.AchievedCompute(r.peak*r.dequant*r.eff.Matmul(rows, r.peak), r.units)
}

// attend is attention's terms in a unit whose matrix products cost mm,
// for attention's bytes and FLOPs. The ideal bound prices the whole unit
// at once: max(all bytes / bandwidth, all FLOPs / peak), which no overlap
// of classes can beat, so its matrix terms move into attention's (base).
func (r *rates) attend(mm *unitCost, bytes, flops float64) attnTerms {
	return r.attendIn(mm, bytes, 0, flops)
}

// attendIn is attend for attention that reads bytes of cache where the
// cache is (rates.kv) and local bytes in the engine's own memory
// (rates.vram).
func (r *rates) attendIn(mm *unitCost, bytes, local, flops float64) attnTerms {
	am := bytes / r.kvRate()
	if local != 0 {
		am += local / r.vramRate()
	}
	if r.ideal {
		return attnTerms{am: mm.fm + am, ac: mm.fc + flops/r.peak}
	}
	return attnTerms{am: am, ac: flops / r.attention}
}

// base is the matrix-product terms a unit keeps beside attention's
// (attend): mm's, or none under the ideal bound.
func (r *rates) base(mm *unitCost) *unitCost {
	if r.ideal {
		return &noTerms
	}
	return mm
}

// noTerms is the base of a unit under the ideal bound; never written.
var noTerms unitCost

// attention is the whole unit of matrix products mm with attention's
// bytes and FLOPs.
func attention(mm unitCost, bytes, flops float64, r *rates) unitCost {
	return r.base(&mm).with(r.attend(&mm, bytes, flops))
}

// prefillPricing is a workload's prefill at one set of rates. The matrix
// products of a full pass, and those of the last pass, cost the same at
// every depth, so each is priced once here and only attention, which
// grows with the context, is priced per pass: the planner prices
// millions of prefills of one setup and batch at different depths.
type prefillPricing struct {
	*phases
	r *rates
	// The matrix products of a full pass and of the last.
	fullCost, lastCost unitCost
	// rest prices the phases' smaller last group (nil when none).
	rest *prefillPricing
}

// prefillAt prices the prefill at rates r; withOthers must come first.
// The groups are priced in a loop, not by recursion: a recursive call
// made escape analysis move every caller's phases to the heap, which
// doubled what Predict allocates.
func (p *phases) prefillAt(r *rates) prefillPricing {
	pp := p.groupAt(r)
	tail := &pp
	for q := p.rest; q != nil; q = q.rest {
		rp := new(prefillPricing)
		*rp = q.groupAt(r)
		tail.rest, tail = rp, rp
	}
	return pp
}

// groupAt prices the prefill of p's own group at rates r, without its
// rest.
func (p *phases) groupAt(r *rates) prefillPricing {
	pp := prefillPricing{phases: p, r: r, fullCost: matmulCost(&p.full, r)}
	pp.priceLast()
	return pp
}

// setPrompt prices a prompt of another length: only its last pass's
// products need pricing again, unless whole prompts share passes, whose
// groups the length decides.
func (pp *prefillPricing) setPrompt(prompt int) {
	if pp.inOrder {
		w := pp.w
		w.Prompt = prompt
		p := newPhasesIn(pp.m, w, !pp.unfused, true)
		*pp = p.prefillAt(pp.r)
		return
	}
	pp.phases.setPrompt(prompt)
	pp.priceLast()
}

// priceLast prices the last pass's products.
func (pp *prefillPricing) priceLast() { pp.lastCost = matmulCost(&pp.lastMM, pp.r) }

// prefillPass is attention in full pass k (0 ≤ k < passes−1): every
// sequence processes perSeq tokens after D + k·perSeq, reads its KV cache
// once and appends.
func (pp *prefillPricing) prefillPass(k int) attnTerms {
	return pp.pass(pp.w.Depth+k*pp.perSeq, pp.perSeq, &pp.fullCost)
}

// lastPass is attention in the shorter last pass, which computes the
// logits.
func (pp *prefillPricing) lastPass() attnTerms {
	return pp.pass(pp.w.Depth+(pp.passes-1)*pp.perSeq, pp.last, &pp.lastCost)
}

// pass is attention in a prefill pass of n tokens per sequence after s
// cached ones, whose matrix products cost mm: each sequence reads its KV
// cache (and, unfused, writes and reads its scores), plus the sequences
// decoding alongside.
func (pp *prefillPricing) pass(s, n int, mm *unitCost) attnTerms {
	p := pp.phases
	B := float64(p.group)
	if pp.r.vram > 0 {
		return pp.passOverLink(s, n, mm)
	}
	bytes := B * p.kvRead(s+n)
	if p.unfused {
		bytes += B * p.m.ScoreBytesPrefill(s, n)
	}
	flops := B * p.m.AttentionPrefillFLOPs(s, n)
	if p.others != 0 {
		bytes, flops = p.addOthers(bytes, flops)
	}
	return pp.r.attend(mm, bytes, flops)
}

// passOverLink is pass for a stage whose cache crosses a link to the
// engine (rates.vram, Stage.overLink): each sequence's cache crosses once
// (ggml copies the cache's view up as a split's input), at the cache's
// rate; unfused attention's further reads of it (once per query head of
// a KV head) and its scores are in the engine's own memory.
func (pp *prefillPricing) passOverLink(s, n int, mm *unitCost) attnTerms {
	p := pp.phases
	B := float64(p.group)
	cache := B * p.m.KVBytes(s+n)
	local := (p.kvReads - 1) * cache
	if p.unfused {
		local += B * p.m.ScoreBytesPrefill(s, n)
	}
	flops := B * p.m.AttentionPrefillFLOPs(s, n)
	if p.others != 0 {
		o := float64(p.others)
		c := o * p.m.KVBytes(p.otherCtx)
		cache, local = cache+c, local+o*p.decodeAttnBytes(p.otherCtx)-c
		flops += o * p.m.AttentionDecodeFLOPs(p.otherCtx)
	}
	return pp.r.attendIn(mm, cache, local, flops)
}

// kvRead is the bytes one sequence's pass reads of a KV cache of ctx
// tokens: once with fused attention, once per query head without.
func (p *phases) kvRead(ctx int) float64 { return p.kvReads * p.m.KVBytes(ctx) }

// addOthers adds the attention of the sequences decoding alongside a
// prefill pass (withOthers).
func (p *phases) addOthers(bytes, flops float64) (float64, float64) {
	o := float64(p.others)
	return bytes + o*p.decodeAttnBytes(p.otherCtx), flops + o*p.m.AttentionDecodeFLOPs(p.otherCtx)
}

// decodePricing is a workload's decode at one set of rates: the matrix
// products of a step cost the same at every context, so they are priced
// once and only attention is priced per step.
type decodePricing struct {
	*phases
	r        *rates
	stepCost unitCost // the matrix products of a step
}

// decodeAt prices the decode steps at rates r.
func (p *phases) decodeAt(r *rates) decodePricing {
	return decodePricing{phases: p, r: r, stepCost: matmulCost(&p.step, r)}
}

// attn is attention in the step whose queries attend ctx keys.
func (dp *decodePricing) attn(ctx int) attnTerms {
	p := dp.phases
	B := float64(p.w.Batch)
	return dp.r.attend(&dp.stepCost, B*p.decodeAttnBytes(ctx), B*p.m.AttentionDecodeFLOPs(ctx))
}

// time is the step's time at ctx keys.
func (dp *decodePricing) time(ctx int) float64 {
	return dp.r.base(&dp.stepCost).timeWith(dp.attn(ctx))
}

// decodeAttnBytes is one decode token's attention traffic: its KV cache,
// and its scores when attention is unfused.
func (p *phases) decodeAttnBytes(ctx int) float64 {
	b := p.kvRead(ctx)
	if p.unfused {
		b += p.m.ScoreBytesDecode(ctx)
	}
	return b
}

func (p *phases) firstStep() int { return p.w.Depth + p.w.Prompt + 1 }
func (p *phases) lastStep() int  { return p.w.Depth + p.w.Prompt + p.w.Output - 1 }

// sum is the prefill's passes: a group's, times the groups alike, and
// the smaller last group's.
func (pp *prefillPricing) sum() sums {
	s := pp.fullPasses()
	s.add(pp.r.base(&pp.lastCost).sumsWith(pp.lastPass()))
	s.scale(pp.groups)
	if pp.rest != nil {
		s.add(pp.rest.sum())
	}
	return s
}

// fullPasses sums the full passes: between window cuts a pass's attention
// span and KV read are linear in the pass index — a pass ending inside a
// window, the (at most one) pass straddling it, passes starting past it.
func (pp *prefillPricing) fullPasses() sums {
	var s sums
	full := pp.passes - 1
	if full <= 0 {
		return s
	}
	if len(pp.m.Windows()) == 0 { // nothing cuts the passes: one run
		s.addRun(full, pp.r.base(&pp.fullCost), pp.prefillPass(0), pp.prefillPass(full-1))
		return s
	}
	var sbuf [16]int
	starts := pp.prefillRuns(sbuf[:0])
	for i, k := range starts {
		if e := runEnd(starts, i, full-1); e >= k {
			s.addRun(e-k+1, pp.r.base(&pp.fullCost), pp.prefillPass(k), pp.prefillPass(e))
		}
	}
	return s
}

// prefillRuns splits the full passes 0 … passes−2 into runs over which
// every term is linear in the pass index (runStarts): a window cuts them
// at the last pass ending inside it and the first starting past it.
func (p *phases) prefillRuns(buf []int) []int {
	var cbuf [8]int
	cuts := cbuf[:0]
	for _, win := range p.m.Windows() {
		u, D := p.perSeq, p.w.Depth
		cuts = append(cuts, floorDiv(win-D-u, u)+1, ceilDiv(win-D, u))
	}
	return runStarts(0, p.passes-2, cuts, buf)
}

// sum is the decode's steps; their cost is linear in the context between
// sliding-window boundaries.
func (dp *decodePricing) sum() sums {
	var s sums
	first, last := dp.firstStep(), dp.lastStep()
	if last < first {
		return s
	}
	if len(dp.m.Windows()) == 0 { // nothing cuts the steps: one run
		s.addRun(last-first+1, dp.r.base(&dp.stepCost), dp.attn(first), dp.attn(last))
		return s
	}
	var sbuf [16]int
	starts := dp.decodeRuns(sbuf[:0])
	for i, x := range starts {
		if e := runEnd(starts, i, last); e >= x {
			s.addRun(e-x+1, dp.r.base(&dp.stepCost), dp.attn(x), dp.attn(e))
		}
	}
	return s
}

// decodeRuns splits the steps into runs over which every term is linear
// in the context (runStarts): a window cuts them at the first step that
// attends past it.
func (p *phases) decodeRuns(buf []int) []int {
	var cbuf [8]int
	cuts := cbuf[:0]
	for _, win := range p.m.Windows() {
		cuts = append(cuts, win+1)
	}
	return runStarts(p.firstStep(), p.lastStep(), cuts, buf)
}

// kvShare is the share of the KV cache in a decode step's bytes.
func (p *phases) kvShare(ctx int) float64 {
	kv := float64(p.w.Batch) * p.decodeAttnBytes(ctx)
	return kv / (p.step.Bytes() + kv)
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int) int { return -floorDiv(-a, b) }
