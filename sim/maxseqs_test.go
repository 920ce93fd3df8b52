package sim_test

import (
	"testing"

	"github.com/roofline/roofline/sim"
)

// TestEngineBatchBuild: the rows TensorRT Edge-LLM's engine was built
// with (--maxBatchSize, stated as Options.MaxSeqs; llm_build's default 4,
// the profile's scheduler.max_seqs) size both its KV pool and its static
// batch: one number. Qwen3-4B in w4a16 on an Orin Nano 8GB (6.91 GiB
// usable, 2.48 GiB of weights), context 7000 + 1192 = 8192, an engine
// built for it, 147 456 B of f16 KV a token:
//
//	--maxBatchSize 1, batch 1: 1 × 8192 × 147 456 = 1 207 959 552 B (1.125 GiB):
//	                           2.48 + 1.125 GiB + activations < 6.91 GiB, fits
//	default 4, batch 1:        4 × 8192 × 147 456 = 4 831 838 208 B (4.50 GiB):
//	                           2.48 + 4.50 = 6.98 GiB > 6.91 before any activations, does not fit
//	--maxBatchSize 1, batch 4: 1 row, one sequence at a time, the 4 queue
//	--maxBatchSize 2, batch 4: 2 rows, 2 static batches of 2: 2 × 8192 × 147 456 = 2 415 919 104 B
//
// The times of a sequence that runs alone do not depend on the rows: a
// batch-1 prediction prices the same TTFT and TPOT at 1 row as at 4.
func TestEngineBatchBuild(t *testing.T) {
	const perToken = 36 * 8 * 128 * 2 * 2 // 147 456 B
	rows := func(n int) *sim.Setup {
		o := sim.DefaultOptions
		o.MaxSeqs = n
		return splitSetupWith(t, "qwen3-4b", "w4a16", "jetson-orin-nano-8gb", "gpu", "tensorrt-edge-llm", o)
	}
	w := sim.Workload{Prompt: 7000, Output: 1192, Batch: 1}
	for _, c := range []struct {
		name             string
		n, batch         int
		rows, together   int
		kv               float64
		fits, queued     bool
		staticBatchLimit int
	}{
		{"--maxBatchSize 1, batch 1", 1, 1, 1, 1, 1207959552, true, false, 0},
		{"default 4, batch 1", 0, 1, 4, 1, 4831838208, false, false, 4},
		{"--maxBatchSize 1, batch 4", 1, 4, 1, 1, 1207959552, true, true, 0},
		{"--maxBatchSize 2, batch 4", 2, 4, 2, 2, 2415919104, true, true, 2},
	} {
		s := rows(c.n)
		if s.Inputs.PoolSeqs != c.rows || s.Inputs.StaticBatch != c.staticBatchLimit {
			t.Errorf("%s: pool of %d rows, static batch %d; want %d, %d", c.name, s.Inputs.PoolSeqs, s.Inputs.StaticBatch, c.rows, c.staticBatchLimit)
		}
		w := w
		w.Batch = c.batch
		r, err := s.Predict(w)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		m := r.Memory
		if m.KVRows != c.rows || m.KVTokens != 8192 || m.KV != c.kv || float64(m.KV) != float64(c.rows*8192*perToken) {
			t.Errorf("%s: KV %d × %d tokens, %g B; want %d × 8192, %g B", c.name, m.KVRows, m.KVTokens, m.KV, c.rows, c.kv)
		}
		if fits := m.Headroom >= 0; fits != c.fits {
			t.Errorf("%s: fits %v (headroom %g B), want %v", c.name, fits, m.Headroom, c.fits)
		}
		if r.Together() != c.together || r.Queued != c.queued {
			t.Errorf("%s: %d together, queued %v; want %d, %v", c.name, r.Together(), r.Queued, c.together, c.queued)
		}
	}
	one, err := rows(1).Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	four, err := rows(0).Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	if one.TTFT != four.TTFT || one.TPOT != four.TPOT {
		t.Errorf("batch 1: TTFT %g s, TPOT %g s at 1 row; %g s, %g s at 4: the rows moved the times", one.TTFT, one.TPOT, four.TTFT, four.TPOT)
	}
	// A server's scheduler of 1 (serve --max-seqs 1, a study's max_seqs)
	// shrinks the same two: WithMaxSeqs.
	sv := rows(0).WithMaxSeqs(1)
	if sv.Inputs.PoolSeqs != 1 || sv.Inputs.StaticBatch != 0 || sv.Together(4) != 1 {
		t.Errorf("WithMaxSeqs(1): pool %d rows, static batch %d, %d of 4 together; want 1, 0, 1", sv.Inputs.PoolSeqs, sv.Inputs.StaticBatch, sv.Together(4))
	}
	if sch := rows(2).Scheduler(); sch.MaxSeqs != 2 {
		t.Errorf("the scheduler of an engine built for 2 rows runs %d", sch.MaxSeqs)
	}
	// A runtime that batches continuously takes no rows: it runs the
	// batch as asked, and says so.
	o := sim.DefaultOptions
	o.MaxSeqs = 2
	ll := splitSetupWith(t, "qwen3-4b", "q4_k_m", "jetson-orin-nano-8gb", "gpu", "llama.cpp", o)
	if ll.Inputs.MaxSeqs != 0 || ll.Together(4) != 4 || ll.Inputs.SettingsNote == "" {
		t.Errorf("llama.cpp with 2 rows stated: MaxSeqs %d, %d of 4 together, note %q; want 0, 4, a note", ll.Inputs.MaxSeqs, ll.Together(4), ll.Inputs.SettingsNote)
	}
}
