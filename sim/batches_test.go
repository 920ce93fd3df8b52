package sim

import "testing"

// TestBatches: how a runtime runs b sequences (Inputs.Together,
// Inputs.batches), worked by hand. Continuous batching runs them all at
// once; one at a time, b batches of one; static batches of 4: 3 → one
// batch of 3; 4 → one of 4; 6 → ⌈6/4⌉ = 2 batches, 4 then 6 − 4 = 2;
// 8 → 2 of 4; 9 → 3 batches, 4, 4, then 9 − 8 = 1. A zero batch is one.
func TestBatches(t *testing.T) {
	for _, c := range []struct {
		batching      bool
		static, b     int
		together      int
		n, full, last int
	}{
		{true, 0, 6, 6, 1, 6, 6},
		{true, 4, 6, 6, 1, 6, 6}, // continuous batching wins over a stated static batch
		{false, 0, 1, 1, 1, 1, 1},
		{false, 0, 5, 1, 5, 1, 1},
		{false, 4, 1, 1, 1, 1, 1},
		{false, 4, 3, 3, 1, 3, 3},
		{false, 4, 4, 4, 1, 4, 4},
		{false, 4, 6, 4, 2, 4, 2},
		{false, 4, 8, 4, 2, 4, 4},
		{false, 4, 9, 4, 3, 4, 1},
		{false, 4, 0, 1, 1, 1, 1},
		{false, 1, 3, 1, 3, 1, 1}, // a static batch of one is one at a time
	} {
		in := Inputs{ContinuousBatching: c.batching, StaticBatch: c.static}
		if got := in.Together(c.b); got != c.together {
			t.Errorf("continuous %v, static %d: Together(%d) = %d, want %d", c.batching, c.static, c.b, got, c.together)
		}
		if n, full, last := in.batches(c.b); n != c.n || full != c.full || last != c.last {
			t.Errorf("continuous %v, static %d: batches(%d) = %d, %d, %d; want %d, %d, %d", c.batching, c.static, c.b, n, full, last, c.n, c.full, c.last)
		}
	}
}

// TestQueuedTimes: the last of n batches waits for the n − 1 before it.
// Three batches of E2E 5 s, the last's own TTFT 1 s and E2E 4 s: it
// starts at 2 × 5 = 10 s, first token at 11 s, last at 14 s.
func TestQueuedTimes(t *testing.T) {
	if ttft, e2e := queuedTimes(3, 5, 1, 4); ttft != 11 || e2e != 14 {
		t.Errorf("queuedTimes(3, 5, 1, 4) = %v, %v; want 11, 14", ttft, e2e)
	}
	if ttft, e2e := queuedTimes(1, 5, 1, 4); ttft != 1 || e2e != 4 {
		t.Errorf("queuedTimes(1, 5, 1, 4) = %v, %v; want 1, 4", ttft, e2e)
	}
}
