package sim

import (
	"fmt"
	"math"
	"slices"
)

// StepPricer prices the forward passes of a serving runtime on one setup:
// the mixed passes of continuous batching, which hold chunks of the
// prompts being prefilled, each at its own cached depth, beside one
// decode token of every running sequence, each at its own context. It is
// the very code Predict sums (phases, matmulCost, rates.attend): a pass
// of one prompt chunk is a prefill pass of Predict, a pass of B decode
// tokens at one context is its decode step at batch B.
//
// A pass costs O(1) whatever it holds. Its matrix products depend only on
// the rows of the pass and the positions that get logits; attention on
// sums over the sequences. A decode token's attention terms are linear in
// its context between sliding-window cuts, so the decoding sequences
// enter as Σ min(ctx, w) for each window w of the model (Windows), sums a
// scheduler keeps as sequences join, advance and leave: a step never
// loops over its sequences to be priced.
type StepPricer struct {
	s *Setup
	p phases
	// windows are the caps of the decode sums (0: none, Σ ctx);
	// bytesPer and flopsPer the attention bytes and FLOPs one decoding
	// sequence adds per unit of each sum.
	windows            []int
	bytesPer, flopsPer []float64
	// step caches a decode-only pass's matrix products by batch.
	step []unitCost
	// prefill and decode scale the time of passes that hold prompt
	// tokens and of decode-only passes: 1, or an interval's ends.
	prefill, decode float64
	// link is what a split's links add to each pass (WithLink), and
	// linkSmall to a prefill pass too small for op offload.
	link, linkSmall PassLink
	// stages price a split whose passes run its stages one after
	// another (Split.StepPricer); nil for one device or a tensor-parallel
	// group, priced by s alone.
	stages []stagePricer
}

// MaxAttentionStages is the most stages with attention (layers and their
// KV cache) a split's pricer of serving passes holds: an offload's host
// layers and GPU layers; its embedding table, output layer and routed
// experts in host memory attend nothing. Attention keeps a second
// stage's terms in two more fields, not an array: a struct of four floats
// passes in registers, so a step on one device costs as before, and a
// step allocates nothing.
const MaxAttentionStages = 2

// stagePricer prices one stage of a split's serving passes: its share of
// the model at its engine's rates, for decode steps (dec), prefill passes
// of OpOffloadRows tokens or more (pre: a host stage's products then run
// on the GPU) and smaller ones (small).
type stagePricer struct {
	p               phases
	dec, pre, small *Stage
	// slot is the stage's place in Attention (-1: it attends nothing).
	slot               int
	bytesPer, flopsPer []float64
	step               []unitCost
}

// StepPricer is the setup's pricer of serving passes.
func (s *Setup) StepPricer() *StepPricer {
	sp := &StepPricer{s: s, p: stepPhases(s.Model, 1, s.Inputs.FlashAttention), prefill: 1, decode: 1}
	sp.windows = append(slices.Clone(s.Model.Windows()), 0)
	sp.bytesPer, sp.flopsPer = perWindow(sp.windows, sp.p.decodeAttnBytes), perWindow(sp.windows, s.Model.AttentionDecodeFLOPs)
	return sp
}

// Scaled is a copy of sp whose prefill passes (those that hold prompt
// tokens) take prefill times as long and its decode-only passes decode
// times: a step-time interval's ends.
func (sp *StepPricer) Scaled(prefill, decode float64) *StepPricer {
	o := *sp
	o.prefill, o.decode = prefill, decode
	o.step = nil
	if sp.stages != nil {
		o.stages = slices.Clone(sp.stages)
		for i := range o.stages {
			o.stages[i].step = nil
		}
	}
	return &o
}

// StepPricer is the pricer of serving passes of a split whose passes run
// its stages one after another, each at its engine's rates: an offload
// (llama.cpp -ngl, --n-cpu-moe), where a pass goes through the host's
// layers and the GPU's in turn. A pass costs the sum of its stages plus
// the links' hops (Split.linkTime, linear in the passes and tokens), as
// Split.Predict adds them; a prefill pass of OpOffloadRows rows or more
// runs host-resident products on the GPU, their weights over the link,
// as Split.Predict's do. A tensor-parallel group is served by
// Split.Serving's shard; a pipeline of PP stages, whose micro-batches
// overlap, is an error.
func (sp *Split) StepPricer() (*StepPricer, error) {
	if sp.PP > 1 || sp.Kind == Network {
		return nil, &FieldError{"Split", fmt.Sprintf("a serving simulation runs a split's stages one pass after another; %s overlap their micro-batches, which it does not simulate", map[bool]string{true: fmt.Sprintf("%d pipeline stages", sp.PP), false: "boards on a network"}[sp.PP > 1])}
	}
	n := len(sp.Decode)
	if n == 0 || len(sp.Prefill) != n || (sp.prefillSmall != nil && len(sp.prefillSmall) != n) {
		return nil, &FieldError{"Split", fmt.Sprintf("a serving simulation prices splits whose prefill and decode run the same stages, got %d decode and %d prefill stages", n, len(sp.Prefill))}
	}
	s := sp.Main
	pr := &StepPricer{s: s, prefill: 1, decode: 1, stages: make([]stagePricer, n)}
	pr.p = stepPhases(s.Model, 1, s.Inputs.FlashAttention)
	pr.windows = append(slices.Clone(s.Model.Windows()), 0)
	slots := 0
	for i, st := range sp.Decode {
		small := sp.Prefill[i]
		if sp.prefillSmall != nil {
			small = sp.prefillSmall[i]
		}
		if sp.Prefill[i].Cost != st.Cost || small.Cost != st.Cost {
			return nil, &FieldError{"Split", fmt.Sprintf("stage %d (%s) holds another part of the model in prefill than in decode", i, st.Name)}
		}
		g := &pr.stages[i]
		g.dec, g.pre, g.small = st, sp.Prefill[i], small
		g.p = stepPhases(st.Cost, 1, s.Inputs.FlashAttention)
		g.bytesPer, g.flopsPer = perWindow(pr.windows, g.p.decodeAttnBytes), perWindow(pr.windows, st.Cost.AttentionDecodeFLOPs)
		g.slot = -1
		if c := chunkOf(&g.p, 1000, 1000); c.Bytes > 0 || c.FLOPs > 0 || st.Cost.KVBytesPerToken() > 0 {
			if slots == MaxAttentionStages {
				return nil, &FieldError{"Split", fmt.Sprintf("a serving simulation prices splits of at most %d stages with attention (%s is another)", MaxAttentionStages, st.Name)}
			}
			g.slot, slots = slots, slots+1
		}
	}
	pr.link.PrefillPass, pr.link.PrefillToken = sp.linkLinear(sp.PrefillHops)
	pr.link.DecodePass, pr.link.DecodeToken = sp.linkLinear(sp.DecodeHops)
	pr.linkSmall = pr.link
	if sp.prefillSmall != nil {
		pr.linkSmall.PrefillPass, pr.linkSmall.PrefillToken = sp.linkLinear(sp.smallHops)
	}
	return pr, nil
}

// perWindow splits f(ctx) = Σ_j a_j · min(ctx, w_j) (w = 0: no cap) into
// its coefficients a_j, for windows ascending with the uncapped 0 last.
// f is the model's own per-token function; its slope between cuts is
// read off it, so the one byte and FLOP account stays in model.
func perWindow(windows []int, f func(int) float64) []float64 {
	a := make([]float64, len(windows))
	// Slope on the segment ending at window j: Σ_{l ≥ j} a_l.
	slope := func(j int) float64 {
		if w := windows[j]; w > 0 {
			return f(w) - f(w-1)
		}
		last := 1
		if n := len(windows); n > 1 {
			last = windows[n-2] + 1
		}
		return f(last+1) - f(last)
	}
	next := 0.0
	for j := len(windows) - 1; j >= 0; j-- {
		s := slope(j)
		a[j] = s - next
		next = s
	}
	return a
}

// Windows are the caps at which a scheduler keeps the decode sums: for
// each w, Σ over the decoding sequences of min(ctx, w); w = 0 is no cap,
// Σ ctx. The slice is shared: do not modify it.
func (sp *StepPricer) Windows() []int { return sp.windows }

// Attention is the attention work of a pass: bytes read (KV caches and,
// unfused, scores) and FLOPs.
// A split's stages with attention each keep their own (Bytes and FLOPs
// the first one's): a stage reads the cache of its own layers.
type Attention struct {
	Bytes, FLOPs   float64
	bytes2, flops2 float64
}

// Add adds b to a.
func (a *Attention) Add(b Attention) {
	a.Bytes += b.Bytes
	a.FLOPs += b.FLOPs
	a.bytes2 += b.bytes2
	a.flops2 += b.flops2
}

// slot is the bytes and FLOPs of a split's stage with attention slot
// (-1: none).
func (a *Attention) slot(i int) (bytes, flops float64) {
	switch i {
	case 0:
		return a.Bytes, a.FLOPs
	case 1:
		return a.bytes2, a.flops2
	}
	return 0, 0
}

// setSlot sets slot i's bytes and FLOPs (-1: none).
func (a *Attention) setSlot(i int, bytes, flops float64) {
	switch i {
	case 0:
		a.Bytes, a.FLOPs = bytes, flops
	case 1:
		a.bytes2, a.flops2 = bytes, flops
	}
}

// Chunk is the attention of n prompt tokens of one sequence on top of
// depth cached ones (Predict's prefill pass at batch 1): the sequence reads
// its KV cache once and appends, causally.
func (sp *StepPricer) Chunk(depth, n int) Attention {
	if sp.stages != nil {
		var a Attention
		for i := range sp.stages {
			c := chunkOf(&sp.stages[i].p, depth, n)
			a.setSlot(sp.stages[i].slot, c.Bytes, c.FLOPs)
		}
		return a
	}
	return chunkOf(&sp.p, depth, n)
}

func chunkOf(p *phases, depth, n int) Attention {
	a := Attention{Bytes: p.kvRead(depth + n), FLOPs: p.m.AttentionPrefillFLOPs(depth, n)}
	if p.unfused {
		a.Bytes += p.m.ScoreBytesPrefill(depth, n)
	}
	return a
}

// Decodes is the attention of the decoding sequences whose sums, in the
// order of Windows, are sums: sums[j] = Σ min(ctx, Windows()[j]), each
// ctx the keys a sequence's token attends (the context after it).
func (sp *StepPricer) Decodes(sums []float64) Attention {
	if sp.stages != nil {
		return sp.stagedDecodes(sums)
	}
	var a Attention
	for j, v := range sums {
		a.Bytes += sp.bytesPer[j] * v
		a.FLOPs += sp.flopsPer[j] * v
	}
	return a
}

// stagedDecodes is Decodes for a split's stages: each its own layers'.
func (sp *StepPricer) stagedDecodes(sums []float64) Attention {
	var a Attention
	for i := range sp.stages {
		g := &sp.stages[i]
		var b, f float64
		for j, v := range sums {
			b += g.bytesPer[j] * v
			f += g.flopsPer[j] * v
		}
		a.setSlot(g.slot, b, f)
	}
	return a
}

// Decode is the attention of one decode token attending ctx keys.
func (sp *StepPricer) Decode(ctx int) Attention {
	if sp.stages != nil {
		var a Attention
		for i := range sp.stages {
			p := &sp.stages[i].p
			a.setSlot(sp.stages[i].slot, p.decodeAttnBytes(ctx), p.m.AttentionDecodeFLOPs(ctx))
		}
		return a
	}
	return Attention{Bytes: sp.p.decodeAttnBytes(ctx), FLOPs: sp.p.m.AttentionDecodeFLOPs(ctx)}
}

// Pass is the time of one forward pass of `tokens` rows of which `logits`
// get logits, with attention a. prefill says the pass holds prompt tokens:
// it is then priced as Predict prices a prefill pass (its activations
// through memory, the fixed cost of a pass), else as a decode step, whose
// rows are its decode tokens, each with logits.
func (sp *StepPricer) Pass(tokens, logits int, prefill bool, a Attention) float64 {
	if tokens <= 0 {
		return 0
	}
	if sp.stages != nil {
		return sp.stagedPass(tokens, logits, prefill, &a)
	}
	if !prefill {
		u := sp.stepCost(tokens)
		return sp.decode*u.timeWith(sp.s.decodeRates(tokens).attend(u, a.Bytes, a.FLOPs)) + sp.link.time(tokens, false)
	}
	return sp.prefill*prefillPassTime(sp.p.m, tokens, logits, &sp.s.rates.prefill, a.Bytes, a.FLOPs) + sp.link.time(tokens, true)
}

// stagedPass is Pass through a split's stages, one after another.
func (sp *StepPricer) stagedPass(tokens, logits int, prefill bool, a *Attention) float64 {
	t := 0.0
	if !prefill {
		for i := range sp.stages {
			g := &sp.stages[i]
			u := g.stepCost(tokens)
			b, f := a.slot(g.slot)
			t += u.timeWith(g.dec.decodeRates(tokens).attend(u, b, f))
		}
		return sp.decode*t + sp.link.time(tokens, false)
	}
	// llama.cpp runs a host-resident product on the GPU from
	// OpOffloadRows rows (ggml-cuda's offload_op): the pass's own rows.
	large := tokens >= OpOffloadRows
	for i := range sp.stages {
		g := &sp.stages[i]
		st := g.small
		if large {
			st = g.pre
		}
		b, f := a.slot(g.slot)
		t += prefillPassTime(g.p.m, tokens, logits, &st.r, b, f)
	}
	l := sp.linkSmall
	if large {
		l = sp.link
	}
	return sp.prefill*t + l.time(tokens, true)
}

// stepCost is a stage's decode-only pass's matrix products at batch b,
// priced once per batch.
func (g *stagePricer) stepCost(b int) *unitCost { return cachedStepCost(&g.step, &g.p, g.dec, b) }

// stepCost is a decode-only pass's matrix products at batch b, priced
// once per batch.
func (sp *StepPricer) stepCost(b int) *unitCost { return cachedStepCost(&sp.step, &sp.p, sp.s, b) }

// decodeRater is what a decode pass's rates come from: a setup, or one
// stage of a split.
type decodeRater interface{ decodeRates(batch int) *rates }

// cachedStepCost is the matrix products of a decode-only pass of phases p
// at batch b, priced at r's rates once per batch in cache (a batch past
// 2^20 is priced each time, not cached).
func cachedStepCost(cache *[]unitCost, p *phases, r decodeRater, b int) *unitCost {
	if b >= len(*cache) {
		if b > 1<<20 {
			mm := p.m.Matmuls(b, b)
			u := matmulCost(&mm, r.decodeRates(b))
			return &u
		}
		*cache = append(*cache, make([]unitCost, b+1-len(*cache))...)
	}
	u := &(*cache)[b]
	if u.fixed == 0 {
		mm := p.m.Matmuls(b, b)
		*u = matmulCost(&mm, r.decodeRates(b))
	}
	return u
}

// StepSpread is the step-time interval serving runs are repeated at: the
// factors on prefill and decode passes at the fast and slow ends of the
// setup's interval at confidence level (0.8 for an 80 % interval), both
// 1 when nothing stands behind one (flags replaced the efficiency).
func (s *Setup) StepSpread(level float64) (prefillLo, prefillHi, decodeLo, decodeHi float64) {
	c := levelConfidence(level)
	prefillLo, prefillHi = s.Spread(true).Bounds(c)
	decodeLo, decodeHi = s.Spread(false).Bounds(c)
	if math.IsNaN(prefillLo + prefillHi + decodeLo + decodeHi) {
		return 1, 1, 1, 1
	}
	return
}

// StepSpread is Setup.StepSpread for an offload's steps: each stage's
// class weighted by its share of the time of request w run alone
// (Split.Bounds), as predict's interval weighs them; the main setup's
// when w cannot be priced so.
func (sp *Split) StepSpread(w Workload, level float64) (prefillLo, prefillHi, decodeLo, decodeHi float64) {
	prefillLo, prefillHi, decodeLo, decodeHi, err := sp.Bounds(w, levelConfidence(level))
	if err != nil || math.IsNaN(prefillLo+prefillHi+decodeLo+decodeHi) {
		return sp.Main.StepSpread(level)
	}
	return
}

// levelConfidence is the one-sided confidence of the ends of a two-sided
// interval at level: 0.9 for an 80 % interval.
func levelConfidence(level float64) float64 { return 0.5 + level/2 }

// KVBudget is the memory left for the KV cache by a runtime whose passes
// hold up to passTokens tokens: usable memory less the resident weights,
// the activations of such a pass and the runtime's overhead (the one
// memory rule, Setup.Memory, with no cache). Negative when even those do
// not fit.
func (s *Setup) KVBudget(passTokens int) float64 {
	f := s.fixed(1, max(passTokens, 1))
	return s.Usable() - f.totalWith(0)
}

// PrefillAlone is the time of a prompt of `prompt` tokens prefilled with
// nothing else running, in passes of ubatch tokens: Setup.TTFT at batch 1,
// in closed form (a run of alike passes is summed from its ends), scaled
// as sp's prefill passes are. A one-at-a-time server (RKLLM) spends it on
// each request before its first token.
func (sp *StepPricer) PrefillAlone(prompt, ubatch int) float64 {
	if prompt <= 0 {
		return 0
	}
	if sp.stages != nil {
		// Pass by pass: a split's server does not run requests alone
		// in closed form (serve steps it).
		u := max(sp.s.Chunk(ubatch, prompt), 1)
		t := 0.0
		for done := 0; done < prompt; done += u {
			n := min(u, prompt-done)
			logits := 0
			if done+n == prompt {
				logits = 1
			}
			t += sp.Pass(n, logits, true, sp.Chunk(done, n))
		}
		return t
	}
	t := sp.prefill * sp.s.TTFT(prompt, 0, 1, ubatch)
	if l := sp.link; l != (PassLink{}) {
		u := max(sp.s.Chunk(ubatch, prompt), 1)
		passes := (prompt + u - 1) / u
		t += float64(passes)*l.PrefillPass + float64(prompt)*l.PrefillToken
	}
	return t
}

// DecodeAlone is the time of `steps` decode steps of one sequence whose
// queries attend first, first+1, … keys: Setup.Decode at batch 1, in
// closed form, scaled as sp's decode passes are. Summed step by step,
// Pass(1, 1, false, Decode(ctx)) gives the same to rounding.
func (sp *StepPricer) DecodeAlone(first, steps int) float64 {
	if steps <= 0 {
		return 0
	}
	if sp.stages != nil {
		t := 0.0
		for i := range steps {
			t += sp.Pass(1, 1, false, sp.Decode(first+i))
		}
		return t
	}
	return sp.decode*sp.s.Decode(first, steps, 1).Time + float64(steps)*sp.link.time(1, false)
}
