package sim

// PrefillAlone is the time of a prompt of `prompt` tokens prefilled with
// nothing else running, in passes of ubatch tokens: Setup.TTFT at batch 1,
// in closed form (a run of alike passes is summed from its ends), scaled
// as sp's prefill passes are. A one-at-a-time server (RKLLM) spends it on
// each request before its first token.
func (sp *StepPricer) PrefillAlone(prompt, ubatch int) float64 {
	return sp.PrefillBatch(prompt, 1, ubatch)
}

// PrefillBatch is the time of `batch` prompts of `prompt` tokens each
// prefilled together with nothing else running, in passes of ubatch
// tokens: Setup.TTFT at that batch, scaled as sp's prefill passes are. A
// static batch (TensorRT Edge-LLM) pads its prompts to the longest and
// spends it before any first token.
func (sp *StepPricer) PrefillBatch(prompt, batch, ubatch int) float64 {
	if prompt <= 0 || batch <= 0 {
		return 0
	}
	whole := batch * prompt
	if sp.stages != nil {
		// Pass by pass: a split's server does not run requests alone
		// in closed form (serve steps it). The batch's rows advance
		// together, each pass the same share of every prompt.
		u := max(sp.s.Chunk(ubatch, whole)/batch, 1)
		t := 0.0
		for done := 0; done < prompt; done += u {
			n := min(u, prompt-done)
			logits := 0
			if done+n == prompt {
				logits = batch
			}
			var a Attention
			c := sp.Chunk(done, n)
			for range batch {
				a.Add(c)
			}
			t += sp.Pass(batch*n, logits, true, a)
		}
		return t
	}
	t := sp.prefill * sp.s.TTFT(prompt, 0, batch, ubatch)
	if l := sp.link; l != (PassLink{}) {
		u := max(sp.s.Chunk(ubatch, whole), 1)
		passes := (whole + u - 1) / u
		t += float64(passes)*l.PrefillPass + float64(whole)*l.PrefillToken
	}
	return t
}

// DecodeAlone is the time of `steps` decode steps of one sequence whose
// queries attend first, first+1, … keys: Setup.Decode at batch 1, in
// closed form, scaled as sp's decode passes are. Summed step by step,
// Pass(1, 1, false, Decode(ctx)) gives the same to rounding.
func (sp *StepPricer) DecodeAlone(first, steps int) float64 {
	return sp.DecodeBatch(first, steps, 1)
}

// DecodeBatch is the time of `steps` decode steps of `batch` sequences
// in lockstep, each query attending first, first+1, … keys: Setup.Decode
// at that batch, in closed form, scaled as sp's decode passes are.
func (sp *StepPricer) DecodeBatch(first, steps, batch int) float64 {
	if steps <= 0 || batch <= 0 {
		return 0
	}
	if sp.stages != nil {
		t := 0.0
		for i := range steps {
			var a Attention
			d := sp.Decode(first + i)
			for range batch {
				a.Add(d)
			}
			t += sp.Pass(batch, batch, false, a)
		}
		return t
	}
	return sp.decode*sp.s.Decode(first, steps, batch).Time + float64(steps)*sp.link.time(batch, false)
}
