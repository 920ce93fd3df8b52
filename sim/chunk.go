package sim

import "github.com/roofline/roofline/runtimes"

// groupPrompts lays a batch's prompts out as a runtime that takes whole
// prompts in order does (TensorRT-LLM's scheduler, vLLM's): as many
// whole prompts as a pass of UBatch tokens holds go through together in
// one pass, group after group; a prompt longer than the pass goes alone,
// in passes of UBatch tokens. The groups' passes read each sequence's KV
// cache once per pass it takes part in, as lockstep passes do.
func (p *phases) groupPrompts(flashAttention bool) {
	w := p.w
	g := min(w.Batch, max(1, w.UBatch/w.Prompt))
	p.group, p.groups = g, w.Batch/g
	p.perSeq = min(w.Prompt, max(w.UBatch, 1))
	if r := w.Batch % g; r > 0 {
		rw := w
		rw.Batch, rw.Output = r, 1
		rest := newPhasesIn(p.m, rw, flashAttention, true)
		p.rest = &rest
	}
}

// prefillPasses is the passes of the whole prefill: every group's.
func (p *phases) prefillPasses() int {
	n := p.groups * p.passes
	if p.rest != nil {
		n += p.rest.prefillPasses()
	}
	return n
}

// passRows is the rows of the prefill's largest pass: its group's full
// pass, or the whole prompts when they take one pass.
func (p *phases) passRows() int {
	if p.passes > 1 {
		return p.group * p.perSeq
	}
	return p.group * p.last
}

// phasesFor is the prefill and decode of workload w (its UBatch resolved,
// Setup.Chunk) as the setup's runtime lays a batch's prompts out.
func (s *Setup) phasesFor(w Workload) phases {
	return newPhasesIn(s.Model, w, s.Inputs.FlashAttention, s.Inputs.PrefillOrder == runtimes.InOrder)
}

// onePass is the prefill of w in the fewest passes any setting of any
// runtime allows: every prompt of the batch in one pass. The ideal bound
// prices it, so that no run, whatever its passes, beats the bound.
func (s *Setup) onePass(w Workload) phases {
	w.UBatch = max(1, w.Batch*w.Prompt)
	w.Output = 1
	// Each prompt takes one pass (perSeq = Prompt): the pass is the last,
	// and the products of a full pass, which it has none of, are not
	// priced.
	p := basePhases(s.Model, w, s.Inputs.FlashAttention, false)
	p.setPrompt(w.Prompt)
	return p
}

// Chunk is the tokens per prefill pass of a request that gives u (0: the
// runtime's default on the device, Inputs.Chunk) whose prompts hold
// `whole` tokens in all: a runtime that runs each prompt in one pass
// takes all of them.
func (s *Setup) Chunk(u, whole int) int {
	switch {
	case u > 0:
		return u
	case s.Inputs.Chunk > 0:
		return s.Inputs.Chunk
	}
	return max(whole, 1)
}
