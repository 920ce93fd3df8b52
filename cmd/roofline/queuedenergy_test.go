package main

import (
	"math"
	"testing"
)

// A runtime that runs one sequence at a time (gpt-fast) queues a --batch: each sequence answers alone at the same
// TPOT, so a token costs the draw times the TPOT whatever the batch (at
// --batch 4 it said a quarter of that, 2.46 J against 9.83 J on an
// RTX 4090 at 450 W, as if the four shared each step).
func TestQueuedBatchEnergy(t *testing.T) {
	args := []string{"--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--runtime", "gpt-fast"}
	one := predictOut(t, append(args, "--batch", "1")...)
	four := predictOut(t, append(args, "--batch", "4")...)
	for _, k := range []string{"joules_per_token", "joules_per_answer", "tokens_per_wh"} {
		a := one["energy"].(map[string]any)[k].(float64)
		b := four["energy"].(map[string]any)[k].(float64)
		if math.Abs(b/a-1) > 1e-9 {
			t.Errorf("%s: %g at --batch 4, want %g as at --batch 1 (the sequences queue)", k, b, a)
		}
	}
	// 450 W × TPOT.
	tpot := four["tpot_s"].(float64)
	if jt := four["energy"].(map[string]any)["joules_per_token"].(float64); math.Abs(jt/(450*tpot)-1) > 1e-9 {
		t.Errorf("joules_per_token %g, want 450 W × %g s = %g", jt, tpot, 450*tpot)
	}
}
