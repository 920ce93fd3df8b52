package sim

import (
	"math"
	"testing"
)

// A serving step's passes through a pipeline (Through) are
// pipelineFills's rule pass by pass, and a virtual engines' round
// (Round) Split.round's for vLLM. Stages of own times 1.25, 1.25 and
// 1 s (the stages and hops of TestPipelinedPrefillCountsOwnHops):
//
//	4 passes alike through an empty pipeline: 3.5 + 3 × 1.25 = 7.25 s,
//	  the first leaving at 3.5 s, the second at 4.75 s;
//	a round of 3 micro-batches: max(3.5, 3 × 1.25) = 3.75 s; of 2:
//	  max(3.5, 2.5) = 3.5 s; with a micro-batch whose chunk takes a
//	  5 s trip: 5 s.
func TestPipelineThroughAndRound(t *testing.T) {
	own := []float64{1.25, 1.25, 1}
	ready := make([]float64, 3)
	var ends []float64
	for range 4 {
		ends = append(ends, Through(ready, own))
	}
	if want := []float64{3.5, 4.75, 6, 7.25}; !slicesNear(ends, want) {
		t.Errorf("passes end at %v, want %v", ends, want)
	}
	if got := pipelineFills(3.5, 1.25, 4, 0); math.Abs(got-ends[3]) > 1e-12 {
		t.Errorf("pipelineFills %g, Through %g", got, ends[3])
	}
	for _, c := range []struct {
		m             int
		longest, want float64
	}{{3, 0, 3.75}, {2, 0, 3.5}, {2, 5, 5}, {1, 0, 3.5}} {
		if got := Round(own, c.m, c.longest); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("round of %d micro-batches (longest %g s): %g s, want %g", c.m, c.longest, got, c.want)
		}
	}
}

func slicesNear(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}
