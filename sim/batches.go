package sim

// Together is how many of b sequences share a step: all b under
// continuous batching, up to StaticBatch under a runtime that runs static
// batches, one under a runtime that runs one sequence at a time. The one
// rule for how a runtime without continuous batching runs a batch: the
// memory it holds (KV caches of Together(b) sequences), the steps it
// prices, the passes' tokens, the energy a token shares, the plan's
// limits.
func (in *Inputs) Together(b int) int {
	switch {
	case b < 1:
		return 1
	case in.ContinuousBatching:
		return b
	case in.StaticBatch > 1:
		return min(b, in.StaticBatch)
	}
	return 1
}

// Together is s.Inputs.Together.
func (s *Setup) Together(b int) int { return s.Inputs.Together(b) }

// batches is how the runtime runs b sequences: n batches one after
// another, each of `full` sequences in lockstep but the last, of `last`
// (= full when they divide evenly). One batch of b under continuous
// batching; b of one where requests queue.
func (in *Inputs) batches(b int) (n, full, last int) {
	full = in.Together(b)
	n = (max(b, 1) + full - 1) / full
	return n, full, max(b, 1) - (n-1)*full
}

// queuedTimes are the last sequence's times to first token and end to end
// when n batches run one after another: it waits for the n − 1 before it,
// each taking e2e (a full batch's), then takes ttft and lastE2E (its own
// batch's).
func queuedTimes(n int, e2e, ttft, lastE2E float64) (lastTTFT, lastEnd float64) {
	wait := float64(n-1) * e2e
	return wait + ttft, wait + lastE2E
}
