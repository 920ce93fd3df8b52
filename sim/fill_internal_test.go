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

// A prompt whose passes do not fill its last call: that call holds only
// the remaining passes and fills the pipeline once on its own (llama.cpp's
// llama_decode takes the prompt n_batch tokens a call and splits each
// call into n_ubatch passes, PR #6017: a call of r passes takes a trip and
// r − 1 slowest stages). Two stages of 1 s a pass, calls of 4 passes:
//
//	5 passes = a call of 4 + a call of 1:
//	  (2 + 3 × 1) + (2 + 0 × 1)           = 7 s
//	  (as a share of a whole call, 5/4 × 5 = 6.25 s before session 51)
//	6 passes = 4 + 2: (2 + 3) + (2 + 1)    = 8 s   (6/4 × 5 = 7.5 s)
//	9 passes = 4 + 4 + 1: 5 + 5 + 2        = 12 s  (9/4 × 5 = 11.25 s)
//	8 passes = 4 + 4: 5 + 5                = 10 s  (whole calls: unchanged)
//	3 passes in calls of 4: one call, 2 + 2 = 4 s  (unchanged)
//
// The ideal bound fills the pipeline once: n passes take 2 + (n − 1) s.
func TestPipelinedPrefillPartialLastCall(t *testing.T) {
	sp := &Split{PP: 2, PipelinedPrefill: true}
	for _, c := range []struct {
		passes     int
		want, idea float64
	}{
		{5, 7, 6},
		{6, 8, 7},
		{9, 12, 10},
		{8, 10, 9},
		{3, 4, 4},
	} {
		// Each stage's sums are over all the passes: 1 s each.
		n := float64(c.passes)
		st := []stageSums{{exp: sums{time: n}, ideal: sums{time: n}}, {exp: sums{time: n}, ideal: sums{time: n}}}
		ph := sp.combine(st, c.passes, 4, 0, 0, true)
		if math.Abs(ph.Time-c.want) > 1e-12 || math.Abs(ph.IdealTime-c.idea) > 1e-12 {
			t.Errorf("%d passes in calls of 4: %g s (ideal %g s), want %g s (%g s)", c.passes, ph.Time, ph.IdealTime, c.want, c.idea)
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

// A prompt's passes in a pipeline count the hops as a decode step's
// micro-batches do (Split.ownLinks): a stage is busy with a pass for its
// layers and the hop it sends the pass on, so a pass's trip holds every
// hop once and each next pass leaves one slowest such stage later.
// Three stages of 1 s a pass, the first two sending a hop of 0.25 s,
// 8 passes in fills of 4 (each stage's sums over the 8 passes: 8 s of
// layers, 2 s of hop):
//
//	trip    = 1 + 0.25 + 1 + 0.25 + 1 = 3.5 s
//	slowest = max(1.25, 1.25, 1)      = 1.25 s
//	a fill  = 3.5 + 3 × 1.25          = 7.25 s, two fills 14.5 s
//
// Stage by stage, a fill: stage 0 sends its passes at 1.25, 2.5, 3.75
// and 5 s; stage 1 takes each as it comes and sends it 1.25 s later
// (2.5, 3.75, 5, 6.25 s); stage 2 ends them at 3.5, 4.75, 6 and 7.25 s.
// Adding every pass's hops whole (before session 50) priced
// 2 × (3 + 3 × 1) + 8 × 0.5 = 16 s: each next pass a stage and both hops
// later. The ideal bound fills once with hops of 0.125 s (8 × 0.125 = 1 s
// a stage): (3.25 + 7 × 1.125) = 11.125 s. A last stage slower than
// the others with their hops sets the pace alone: stages of 1, 1 and
// 1.5 s give 4 + 3 × 1.5 = 8.5 s a fill, 17 s.
func TestPipelinedPrefillCountsOwnHops(t *testing.T) {
	sp := &Split{PP: 3, PipelinedPrefill: true}
	stage := func(layers, hop, idealHop float64) stageSums {
		return stageSums{exp: sums{time: layers}, ideal: sums{time: layers}, link: hop, idealLink: idealHop}
	}
	for _, c := range []struct {
		name       string
		last       float64
		want, idea float64
	}{
		{"even stages", 8, 14.5, 11.125},
		// trip 1 + 0.25 + 1 + 0.25 + 1.5 = 4 s, slowest 1.5 s;
		// ideal: 3.75 + 7 × 1.5 = 14.25 s.
		{"last stage slowest", 12, 17, 14.25},
	} {
		st := []stageSums{stage(8, 2, 1), stage(8, 2, 1), stage(c.last, 0, 0)}
		ph := sp.combine(st, 8, 4, 4, 2, true)
		if math.Abs(ph.Time-c.want) > 1e-12 || math.Abs(ph.IdealTime-c.idea) > 1e-12 {
			t.Errorf("%s: %g s (ideal %g s), want %g s (%g s)", c.name, ph.Time, ph.IdealTime, c.want, c.idea)
		}
	}
}
