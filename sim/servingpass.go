package sim

import (
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
	// pipe prices a pipeline's passes stage by stage (PP stages or RPC
	// boards, Split.StepPricer); nil otherwise.
	pipe *pipePricer
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
// times: a step-time interval's ends. The links' time scales with the
// engines' (a split's step factors, Split.StepSpread, weigh the links'
// class with the stages', as predict's interval for the split takes the
// links at the first device's factors and scales them): a lone request
// then ends where predict's interval does.
func (sp *StepPricer) Scaled(prefill, decode float64) *StepPricer {
	o := *sp
	o.prefill, o.decode = prefill, decode
	// The links of sp are at sp's factors: rescale them from those.
	kp, kd := prefill/sp.prefill, decode/sp.decode
	o.link, o.linkSmall = sp.link.scaled(kp, kd), sp.linkSmall.scaled(kp, kd)
	o.step = nil
	if sp.stages != nil {
		o.stages = slices.Clone(sp.stages)
		for i := range o.stages {
			o.stages[i].step = nil
		}
	}
	if sp.pipe != nil {
		p := *sp.pipe
		p.stages = slices.Clone(p.stages)
		for i := range p.stages {
			p.stages[i].step = nil
			p.stages[i].own = p.stages[i].own.scaled(kp, kd)
		}
		p.whole = p.whole.scaled(kp, kd)
		o.pipe = &p
	}
	return &o
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
	if sp.pipe != nil {
		return sp.pipePass(tokens, logits, prefill, &a)
	}
	if !prefill {
		u := sp.stepCost(tokens)
		return sp.decode*u.timeWith(sp.s.decodeRates(tokens).attend(u, a.Bytes, a.FLOPs)) + sp.link.time(tokens, false)
	}
	return sp.prefill*prefillPassTime(sp.p.m, tokens, logits, &sp.s.rates.prefill, a.Bytes, a.FLOPs) + sp.link.time(tokens, true)
}

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
