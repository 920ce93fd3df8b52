package sim

import (
	"math"
	"testing"
)

// TestEnergyOfQueuedBatch: a batch shares the draw only among the
// sequences that decode together (Inputs.Together). At 450 W, a TPOT of
// 20 ms and an E2E of 3 s: four batched sequences take
// 450 × 0.020 / 4 = 2.25 J a token and 450 × 3 / 4 = 337.5 J an answer;
// four queued ones (a runtime that runs one at a time) each answer alone,
// 450 × 0.020 = 9 J a token and 1350 J an answer (it said 2.25 and 337.5:
// the batch's share of a draw no other sequence shared); six under static
// batches of 4 share a step four at a time, 9 / 4 = 2.25 and
// 1350 / 4 = 337.5; three under static batches of 4 run as one batch of
// three, 9 / 3 = 3 J and 1350 / 3 = 450 J.
func TestEnergyOfQueuedBatch(t *testing.T) {
	for _, c := range []struct {
		name              string
		batching          bool
		static, batch     int
		together          int
		perToken, perAnsw float64
	}{
		{"batched", true, 0, 4, 4, 2.25, 337.5},
		{"one at a time", false, 0, 4, 1, 9, 1350},
		{"static 6 on 4", false, 4, 6, 4, 2.25, 337.5},
		{"static 3 on 4", false, 4, 3, 3, 3, 450},
	} {
		r := &Result{TPOT: 0.020, E2E: 3, Queued: c.together < c.batch}
		r.Inputs.ContinuousBatching, r.Inputs.StaticBatch, r.Inputs.Workload.Batch = c.batching, c.static, c.batch
		if got := r.Together(); got != c.together {
			t.Errorf("%s: Together %d, want %d", c.name, got, c.together)
		}
		e, err := EnergyOf(r, Draw{Run: 450})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(e.JoulesPerToken-c.perToken) > 1e-9 || math.Abs(e.JoulesPerAnswer-c.perAnsw) > 1e-9 {
			t.Errorf("%s: %g J a token, %g J an answer; want %g and %g", c.name, e.JoulesPerToken, e.JoulesPerAnswer, c.perToken, c.perAnsw)
		}
	}
}
