package sim

import (
	"fmt"
	"math"
)

// PassLink is the time the links add to every forward pass of a split a
// serving simulation steps: a fixed part (latencies) and a part per token
// the pass holds (the bytes of its activations), for passes that hold
// prompt tokens and for decode-only ones. Split.linkTime is linear in the
// passes and the tokens, so a step adds exactly what Split.Predict adds
// over its passes.
type PassLink struct {
	PrefillPass, PrefillToken float64 // s, s a token
	DecodePass, DecodeToken   float64 // s, s a token
}

// scaled is l with its prefill passes' times k times as long and its
// decode-only passes' d times (StepPricer.Scaled).
func (l PassLink) scaled(k, d float64) PassLink {
	return PassLink{PrefillPass: k * l.PrefillPass, PrefillToken: k * l.PrefillToken, DecodePass: d * l.DecodePass, DecodeToken: d * l.DecodeToken}
}

// time is the links' time of one pass of `tokens` tokens.
func (l PassLink) time(tokens int, prefill bool) float64 {
	if prefill {
		return l.PrefillPass + float64(tokens)*l.PrefillToken
	}
	return l.DecodePass + float64(tokens)*l.DecodeToken
}

// Serving is what a serving simulation steps for the split: the setup of
// one device of its tensor-parallel group — its shard of the model, so
// that its memory leaves the KV cache one device holds and its passes are
// one device's, at the stage's rates — and the time the links add to each
// pass (the all-reduces, distributed-llama's exchanges and transfers).
// Every device of the group runs the same pass at once, so a pass takes
// one device's time plus the links', as Split.Predict prices it.
//
// Only a split whose every pass runs one stage is served so: a tensor-
// parallel group (vLLM --tensor-parallel-size, distributed-llama). Layers
// on a host are served stage by stage (Split.StepPricer); pipeline stages
// and RPC boards are an error here.
func (sp *Split) Serving() (*Setup, PassLink, error) {
	if sp.PP > 1 || len(sp.Prefill) != 1 || len(sp.Decode) != 1 || sp.prefillSmall != nil || sp.Decode[0].Pool < 0 {
		what := "its passes run stages one after another"
		switch {
		case sp.Kind == Offload:
			what = "layers on the host run after the GPU's"
		case sp.PP > 1:
			what = fmt.Sprintf("%d pipeline stages run after one another", sp.PP)
		case sp.Kind == Network:
			what = "the boards run their layers one after another"
		}
		return nil, PassLink{}, &FieldError{"Split", fmt.Sprintf("a serving simulation steps one device or a tensor-parallel group, every device running each pass at once; here %s", what)}
	}
	pre, dec := sp.Prefill[0], sp.Decode[0]
	s := *sp.Main
	s.Model = dec.Cost
	s.Inputs.Usable = sp.Pools[dec.Pool].Usable
	s.rates.prefill, s.rates.decode, s.rates.launched, s.rates.ideal = pre.r, dec.r, dec.launched, dec.ideal
	var l PassLink
	l.PrefillPass, l.PrefillToken = sp.linkLinear(sp.PrefillHops, sp.prefillHopBytes())
	l.DecodePass, l.DecodeToken = sp.linkLinear(sp.DecodeHops, sp.HopBytes)
	return &s, l, nil
}

// linkLinear is the links' time of one pass of `hops` transfers of
// hopBytes a token each: its fixed part and its part per token.
func (sp *Split) linkLinear(hops int, hopBytes float64) (pass, token float64) {
	t0, c0, _ := sp.linkTime(1, hops, hopBytes, 0, false)
	t1, c1, _ := sp.linkTime(1, hops, hopBytes, 1, false)
	return t0 + c0, (t1 + c1) - (t0 + c0)
}

// WithLink is a copy of sp whose every pass adds the links' time l (a
// split's, Split.Serving, at the expected rates), scaled as sp's passes
// are: an interval's ends scale the links as the engine (Scaled).
func (sp *StepPricer) WithLink(l PassLink) *StepPricer {
	o := *sp
	o.link = l.scaled(sp.prefill, sp.decode)
	return &o
}

// Staged says whether sp prices a split's stages one after another
// (Split.StepPricer).
func (sp *StepPricer) Staged() bool { return sp.stages != nil || sp.pipe != nil }

// KVTokens is the KV cache in tokens of every layer that a split's
// memories leave beside passes of up to passTokens tokens: each pool
// holds the cache of the layers whose cache it keeps, so the pool that
// runs out first bounds it (the smallest over the pools of what it has
// left over its bytes a token). budget is the memory that pool leaves,
// B: negative, short by, when the weights, activations and overhead do
// not fit it; pool is its name (Split.Pools), which a message names.
func (sp *Split) KVTokens(passTokens int) (tokens, budget float64, pool string) {
	// At a context of a whole pass: Memory caps a pass at its context's
	// tokens, and a 1-token context would price a 1-token pass's buffers.
	n := max(passTokens, 1)
	pools := sp.Memory(n, 1, n)
	per := make([]float64, len(pools))
	for _, st := range sp.Decode {
		if st.KVPool >= 0 {
			per[st.KVPool] += st.Cost.KVBytesPerToken()
		}
	}
	tokens, budget = math.Inf(1), math.Inf(1)
	for i, p := range pools {
		left := p.Usable - (p.Weights + p.Activations + p.Overhead)
		if left < 0 {
			return 0, left, sp.poolName(i)
		}
		if per[i] > 0 && left/per[i] < tokens {
			tokens, budget, pool = math.Floor(left/per[i]), left, sp.poolName(i)
		}
	}
	return tokens, budget, pool
}

// WithHeadroom is sp with share h of every pool's usable memory kept free
// (Setup.WithHeadroom, pool by pool as a plan checks them): a server's KV
// pool is what the memory that fills first leaves of the rest. sp itself
// for h = 0.
func (sp *Split) WithHeadroom(h float64) *Split {
	if h == 0 {
		return sp
	}
	o := *sp
	o.Pools = make([]Pool, len(sp.Pools))
	for i, p := range sp.Pools {
		p.Usable *= 1 - h
		o.Pools[i] = p
	}
	return &o
}
