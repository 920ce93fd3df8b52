package sim

import (
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
	// link is what a split's links add to each pass (WithLink).
	link PassLink
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
	return &o
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
type Attention struct {
	Bytes, FLOPs float64
}

// Add adds b to a.
func (a *Attention) Add(b Attention) { a.Bytes += b.Bytes; a.FLOPs += b.FLOPs }

// Chunk is the attention of n prompt tokens of one sequence on top of
// depth cached ones (Predict's prefill pass at batch 1): the sequence reads
// its KV cache once and appends, causally.
func (sp *StepPricer) Chunk(depth, n int) Attention {
	p := &sp.p
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
	var a Attention
	for j, v := range sums {
		a.Bytes += sp.bytesPer[j] * v
		a.FLOPs += sp.flopsPer[j] * v
	}
	return a
}

// Decode is the attention of one decode token attending ctx keys.
func (sp *StepPricer) Decode(ctx int) Attention {
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
	if !prefill {
		u := sp.stepCost(tokens)
		return sp.decode*u.timeWith(sp.s.decodeRates(tokens).attend(u, a.Bytes, a.FLOPs)) + sp.link.time(tokens, false)
	}
	mm := prefillMatmuls(sp.p.m, tokens, logits)
	r := &sp.s.rates.prefill
	u := matmulCost(&mm, r)
	return sp.prefill*u.timeWith(r.attend(&u, a.Bytes, a.FLOPs)) + sp.link.time(tokens, true)
}

// stepCost is a decode-only pass's matrix products at batch b, priced
// once per batch.
func (sp *StepPricer) stepCost(b int) *unitCost {
	if b >= len(sp.step) {
		if b > 1<<20 {
			mm := sp.p.m.Matmuls(b, b)
			u := matmulCost(&mm, sp.s.decodeRates(b))
			return &u
		}
		sp.step = append(sp.step, make([]unitCost, b+1-len(sp.step))...)
	}
	u := &sp.step[b]
	if u.fixed == 0 {
		mm := sp.p.m.Matmuls(b, b)
		*u = matmulCost(&mm, sp.s.decodeRates(b))
	}
	return u
}

// StepSpread is the step-time interval serving runs are repeated at: the
// factors on prefill and decode passes at the fast and slow ends of the
// setup's interval at confidence level (0.8 for an 80 % interval), both
// 1 when nothing stands behind one (flags replaced the efficiency).
func (s *Setup) StepSpread(level float64) (prefillLo, prefillHi, decodeLo, decodeHi float64) {
	c := 0.5 + level/2
	prefillLo, prefillHi = s.Spread(true).Bounds(c)
	decodeLo, decodeHi = s.Spread(false).Bounds(c)
	if math.IsNaN(prefillLo + prefillHi + decodeLo + decodeHi) {
		return 1, 1, 1, 1
	}
	return
}

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
	return sp.decode*sp.s.Decode(first, steps, 1).Time + float64(steps)*sp.link.time(1, false)
}
