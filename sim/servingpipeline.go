package sim

import (
	"fmt"
	"math"
)

// Overlap is how a serving runtime's passes overlap on a split's
// pipeline stages.
type Overlap int

const (
	// NoOverlap: a pass goes through every stage before the next starts
	// (one device, a tensor-parallel group, an offload, llama.cpp's RPC
	// boards, whose backend runs no pipeline).
	NoOverlap Overlap = iota
	// UBatchOverlap: the passes of one step follow each other through
	// the stages, each stage taking the next pass as it sends the last
	// on, and the step ends when its last pass leaves the last stage
	// (llama.cpp's llama_decode over devices holding runs of layers, PR
	// #6017; its server runs one step at a time: Split.UBatchPipeline).
	UBatchOverlap
	// VirtualEngines: the running requests step in micro-batches, one
	// per stage in flight, each stepping on its own (vLLM's pipeline-
	// parallel virtual engines, V1's batch queue; Split.PipelineBatches).
	VirtualEngines
)

// Overlap is how a serving runtime's passes overlap on the split's
// pipeline stages: NoOverlap for boards on a network (llama.cpp's RPC
// backend runs no pipeline) and for a split of no pipeline,
// VirtualEngines where micro-batches are in flight
// (Split.PipelineBatches), UBatchOverlap where a step's passes flow
// through the stages (Split.UBatchPipeline).
func (sp *Split) Overlap() Overlap {
	switch {
	case sp.Kind == Network:
	case sp.PipelineBatches != nil:
		return VirtualEngines
	case sp.UBatchPipeline:
		return UBatchOverlap
	}
	return NoOverlap
}

// pipeStage prices one pipeline stage's part of a serving pass: its
// layers at its engine's rates, attending its share of the pass's
// attention, and its own link (the hop it sends the pass on and its
// layers' share of the collectives, Split.ownLinks).
type pipeStage struct {
	p        phases
	dec, pre *Stage
	// bytes and flops are the stage's share of the whole model's
	// attention bytes and FLOPs (its layers', sharded as it is).
	bytes, flops float64
	own          PassLink
	step         []unitCost
}

// pipePricer prices a pipeline's serving passes stage by stage.
type pipePricer struct {
	stages []pipeStage
	mode   Overlap
	pp     int
	// whole is the links' time of a pass through every stage (for RPC
	// boards, its requests and replies, which are no stage's own).
	whole PassLink
}

// pipelineStepPricer is Split.StepPricer for a pipeline of PP stages or
// RPC boards: the whole model's attention sums (Decodes, Chunk), each
// stage attending its share of them. A stage's share is one factor for
// bytes and one for FLOPs when its layers attend alike the model's
// (every window in the same proportion, a prompt chunk's too); a model
// whose stages hold different shares of its sliding and global layers
// is refused.
func (sp *Split) pipelineStepPricer() (*StepPricer, error) {
	s := sp.Main
	flash := s.Inputs.FlashAttention
	pr := s.StepPricer()
	pp := &pipePricer{pp: sp.PP, mode: sp.Overlap()}
	if n := len(sp.Decode); n == 0 || len(sp.Prefill) != n || sp.prefillSmall != nil {
		return nil, &FieldError{"Split", fmt.Sprintf("a serving simulation prices pipelines whose prefill and decode run the same stages, got %d decode and %d prefill stages", n, len(sp.Prefill))}
	}
	// The model's attention at a few points (a decode per window, two
	// prompt chunks), against which each stage's share is read.
	probes := func(p *phases, bytesPer, flopsPer []float64) (b, f []float64) {
		for _, c := range [][2]int{{0, 100}, {3000, 700}} {
			a := chunkOf(p, c[0], c[1])
			b, f = append(b, a.Bytes), append(f, a.FLOPs)
		}
		return append(b, bytesPer...), append(f, flopsPer...)
	}
	wb, wf := probes(&pr.p, pr.bytesPer, pr.flopsPer)
	share := func(stage, whole []float64) (float64, bool) {
		k, set := 0.0, false
		for j, v := range whole {
			if v == 0 {
				if stage[j] != 0 {
					return 0, false
				}
				continue
			}
			r := stage[j] / v
			if !set {
				k, set = r, true
			} else if math.Abs(r-k) > 1e-9*math.Max(k, 1e-300) {
				return 0, false
			}
		}
		return k, true
	}
	for i, st := range sp.Decode {
		if sp.Prefill[i].Cost != st.Cost {
			return nil, &FieldError{"Split", fmt.Sprintf("stage %d (%s) holds another part of the model in prefill than in decode", i, st.Name)}
		}
		g := pipeStage{dec: st, pre: sp.Prefill[i], p: stepPhases(st.Cost, 1, flash)}
		sb, sf := probes(&g.p, perWindow(pr.windows, g.p.decodeAttnBytes), perWindow(pr.windows, st.Cost.AttentionDecodeFLOPs))
		var okB, okF bool
		g.bytes, okB = share(sb, wb)
		g.flops, okF = share(sf, wf)
		if !okB || !okF {
			return nil, &FieldError{"Split", fmt.Sprintf("a serving simulation steps pipeline stages whose layers attend alike; %s's stage %s holds another share of its sliding-window layers than of its others", s.Model.Spec.Name, st.Name)}
		}
		pp.stages = append(pp.stages, g)
	}
	if sp.PP > 1 && sp.Kind != Network {
		n := len(pp.stages)
		own, pass, token := make([]stageSums, n), make([]float64, n), make([]float64, n)
		sp.passLinks(own, sp.Decode, sp.DecodeHops, sp.HopBytes, pass, token)
		for i := range pp.stages {
			pp.stages[i].own.DecodePass, pp.stages[i].own.DecodeToken = pass[i], token[i]
		}
		// A prefill hop carries the prefill's bytes a token.
		sp.passLinks(own, sp.Prefill, sp.PrefillHops, sp.prefillHopBytes(), pass, token)
		for i := range pp.stages {
			pp.stages[i].own.PrefillPass, pp.stages[i].own.PrefillToken = pass[i], token[i]
		}
	}
	pp.whole.PrefillPass, pp.whole.PrefillToken = sp.linkLinear(sp.PrefillHops, sp.prefillHopBytes())
	pp.whole.DecodePass, pp.whole.DecodeToken = sp.linkLinear(sp.DecodeHops, sp.HopBytes)
	pr.pipe = pp
	return pr, nil
}

// Overlap is how the pricer's passes overlap on a pipeline's stages
// (NoOverlap for one device, a tensor-parallel group or an offload).
func (sp *StepPricer) Overlap() Overlap {
	if sp.pipe == nil {
		return NoOverlap
	}
	return sp.pipe.mode
}

// Stages is the number of a pipeline's stages the pricer's passes go
// through (PipelineStage's out), 0 when it prices no pipeline.
func (sp *StepPricer) Stages() int {
	if sp.pipe == nil {
		return 0
	}
	return len(sp.pipe.stages)
}

// MicroBatches is how many micro-batches a VirtualEngines step of seqs
// requests runs as: one per stage, at most one per request.
func (sp *StepPricer) MicroBatches(seqs int) int {
	if sp.pipe == nil || sp.pipe.mode != VirtualEngines {
		return 1
	}
	return max(1, min(seqs, sp.pipe.pp))
}

// stageTime is stage g's part of a pass (its layers, without its link).
func (sp *StepPricer) stageTime(g *pipeStage, tokens, logits int, prefill bool, a *Attention) float64 {
	b, f := g.bytes*a.Bytes, g.flops*a.FLOPs
	if !prefill {
		u := cachedStepCost(&g.step, &g.p, g.dec, tokens)
		return sp.decode * u.timeWith(g.dec.decodeRates(tokens).attend(u, b, f))
	}
	return sp.prefill * prefillPassTime(g.p.m, tokens, logits, &g.pre.r, b, f)
}

// pipePass is Pass through a pipeline's stages: every stage's part and
// every link's, one after another (a pass alone takes its trip).
func (sp *StepPricer) pipePass(tokens, logits int, prefill bool, a *Attention) float64 {
	t := 0.0
	for i := range sp.pipe.stages {
		t += sp.stageTime(&sp.pipe.stages[i], tokens, logits, prefill, a)
	}
	return t + sp.pipe.whole.time(tokens, prefill)
}

// PipelineStage sets own[i] to stage i's own time in a pass of `tokens`
// rows, `logits` of them with logits, attention a: its layers plus the
// hop it sends the pass on and its layers' share of the collectives
// (Split.ownLinks). They add up to Pass. own holds Stages() values.
func (sp *StepPricer) PipelineStage(own []float64, tokens, logits int, prefill bool, a Attention) {
	for i := range sp.pipe.stages {
		g := &sp.pipe.stages[i]
		own[i] = sp.stageTime(g, tokens, logits, prefill, &a) + g.own.time(tokens, prefill)
	}
}

// Through sends a pass whose stages take own (PipelineStage) into a
// pipeline whose stage i is free from ready[i]: each stage starts it
// when the stage before has sent it on and it has sent on the pass
// before, ready is moved on, and the pass's end (when it leaves the last
// stage) is returned. From an empty pipeline k passes alike end after
// one trip (Σ own) and k − 1 slowest stages: pipelineFills, which
// Split.Predict prices a call's passes and a step's ubatches by.
func Through(ready, own []float64) float64 {
	t := 0.0
	for i, o := range own {
		t = math.Max(t, ready[i]) + o
		ready[i] = t
	}
	return t
}

// Round is a VirtualEngines step in which every one of its requests
// steps once, in m micro-batches in flight, each stage taking own (a
// mean micro-batch's stage times, PipelineStage) for each: no shorter
// than a micro-batch's trip through every stage, nor than m of the
// slowest stage's (Split.round's rule for vLLM's decode). longest is the
// trip of the micro-batch that holds the step's largest prompt chunk (a
// request is in one micro-batch), 0 for none.
func Round(own []float64, m int, longest float64) float64 {
	trip, slowest := 0.0, 0.0
	for _, o := range own {
		trip += o
		slowest = math.Max(slowest, o)
	}
	return math.Max(math.Max(trip, longest), float64(m)*slowest)
}

// Scale is a scaled by k: the mean of k equal parts' attention.
func (a Attention) Scale(k float64) Attention {
	return Attention{Bytes: a.Bytes * k, FLOPs: a.FLOPs * k, bytes2: a.bytes2 * k, flops2: a.flops2 * k}
}
