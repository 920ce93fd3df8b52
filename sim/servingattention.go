package sim

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
