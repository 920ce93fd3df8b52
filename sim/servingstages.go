package sim

import (
	"fmt"
	"slices"
)

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

// StepPricer is the pricer of serving passes of a split whose passes run
// its stages one after another, each at its engine's rates: an offload
// (llama.cpp -ngl, --n-cpu-moe), where a pass goes through the host's
// layers and the GPU's in turn. A pass costs the sum of its stages plus
// the links' hops (Split.linkTime, linear in the passes and tokens), as
// Split.Predict adds them; a prefill pass of OpOffloadRows rows or more
// runs the host layers on the GPU, their weights and cache over the link,
// as Split.Predict's do. A tensor-parallel group is served by
// Split.Serving's shard. A pipeline of PP stages or of RPC boards is
// priced stage by stage (its Overlap says how a runtime overlaps its
// passes on them, PipelineStage each stage's own part of one).
func (sp *Split) StepPricer() (*StepPricer, error) {
	if sp.PP > 1 || sp.Kind == Network {
		return sp.pipelineStepPricer()
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
	pr.link.PrefillPass, pr.link.PrefillToken = sp.linkLinear(sp.PrefillHops, sp.prefillHopBytes())
	pr.link.DecodePass, pr.link.DecodeToken = sp.linkLinear(sp.DecodeHops, sp.HopBytes)
	pr.linkSmall = pr.link
	if sp.prefillSmall != nil {
		pr.linkSmall.PrefillPass, pr.linkSmall.PrefillToken = sp.linkLinear(sp.smallHops, sp.HopBytes)
	}
	return pr, nil
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
