package sim

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
