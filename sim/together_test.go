package sim

import (
	"math"
	"testing"
)

// TestEnergyOfQueuedBatch: a batch shares the draw only where its
// sequences decode together. At 450 W, a TPOT of 20 ms and an E2E of
// 3 s: four batched sequences take 450 × 0.020 / 4 = 2.25 J a token and
// 450 × 3 / 4 = 337.5 J an answer; four queued ones (a runtime that runs
// one at a time) each answer alone, 450 × 0.020 = 9 J a token and
// 1350 J an answer (it said 2.25 and 337.5: the batch's share of a draw
// no other sequence shared).
func TestEnergyOfQueuedBatch(t *testing.T) {
	for _, c := range []struct {
		queued            bool
		together          int
		perToken, perAnsw float64
	}{
		{false, 4, 2.25, 337.5},
		{true, 1, 9, 1350},
	} {
		r := &Result{TPOT: 0.020, E2E: 3, Queued: c.queued}
		r.Inputs.Workload.Batch = 4
		if got := r.Together(); got != c.together {
			t.Errorf("queued %v: Together %d, want %d", c.queued, got, c.together)
		}
		e, err := EnergyOf(r, Draw{Run: 450})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(e.JoulesPerToken-c.perToken) > 1e-9 || math.Abs(e.JoulesPerAnswer-c.perAnsw) > 1e-9 {
			t.Errorf("queued %v: %g J a token, %g J an answer; want %g and %g", c.queued, e.JoulesPerToken, e.JoulesPerAnswer, c.perToken, c.perAnsw)
		}
	}
}
