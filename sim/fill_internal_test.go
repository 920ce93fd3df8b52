package sim

import (
	"math"
	"testing"
)

// A prompt's passes go through a pipeline's stages one after another;
// where the runtime hands them over `fill` at a time (llama.cpp's n_batch
// over n_ubatch), each fill starts with the pipeline empty.
func TestPipelinedPrefillFills(t *testing.T) {
	sp := &Split{PP: 2, PipelinedPrefill: true}
	// Two stages of 1 s a pass each, 8 passes: each stage's sums are 8 s.
	st := []stageSums{{exp: sums{time: 8}, ideal: sums{time: 8}}, {exp: sums{time: 8}, ideal: sums{time: 8}}}
	for _, c := range []struct {
		name       string
		fill       int
		want, idea float64
	}{
		// One fill: the first pass takes both stages, each next one a
		// stage later, 2 + 7 × 1 = 9 s.
		{"one fill", 0, 9, 9},
		{"fill of all 8", 8, 9, 9},
		// Fills of 4 passes: 2 × (2 + 3 × 1) = 10 s; the ideal bound
		// fills it once, 9 s.
		{"fills of 4", 4, 10, 9},
		// Fills of 1: every pass alone through both stages, 8 × 2 = 16 s.
		{"fills of 1", 1, 16, 9},
	} {
		ph := sp.combine(st, 8, c.fill, 0, 0, true)
		if math.Abs(ph.Time-c.want) > 1e-12 || math.Abs(ph.IdealTime-c.idea) > 1e-12 {
			t.Errorf("%s: %g s (ideal %g s), want %g s (%g s)", c.name, ph.Time, ph.IdealTime, c.want, c.idea)
		}
	}
}

// A prompt's call of passes and a decode step's ubatches are one rule
// (pipelineFills, llama.cpp PR #6017): with the same stages, four passes
// of a call cost what four ubatches of a step do.
func TestPrefillFillIsDecodeUBatchRule(t *testing.T) {
	sp := &Split{PP: 2, PipelinedPrefill: true, UBatchPipeline: true}
	// Two stages of 1 s a pass, no links. Decode: a step of 4 ubatches,
	// each stage's sums one ubatch's (1 s), the trip 2 s: 2 + 3 × 1 = 5 s.
	dec := []stageSums{{exp: sums{time: 1}}, {exp: sums{time: 1}}}
	if got := sp.round(dec, 4, 2, false); math.Abs(got-5) > 1e-12 {
		t.Errorf("decode step of 4 ubatches: %g s, want 5 s", got)
	}
	// Prefill: 4 passes, one call of 4, each stage's sums over the 4
	// passes (4 s): (8 + 3 × 4)/4 = 5 s.
	pre := []stageSums{{exp: sums{time: 4}, ideal: sums{time: 4}}, {exp: sums{time: 4}, ideal: sums{time: 4}}}
	if got := sp.combine(pre, 4, 4, 0, 0, true).Time; math.Abs(got-5) > 1e-12 {
		t.Errorf("prefill call of 4 passes: %g s, want 5 s", got)
	}
}
