package serve

import (
	"testing"
)

// TestKeptPagesSurvive: a preempted request's pages join vLLM's free
// queue behind the `ahead` pages free then, its last block first, and
// each page taken from the queue's head past those evicts one of them.
// A request that held 10 pages, 9 of them full blocks of computed
// tokens, preempted when 100 pages had been taken and 50 were free:
func TestKeptPagesSurvive(t *testing.T) {
	k := keptPages{at: 100, ahead: 50, held: 10, cached: 9}
	w := k
	w.whole = true
	cases := []struct {
		k      keptPages
		allocs int64
		want   int64
	}{
		{k, 100, 9}, // nothing taken since: its 9 full blocks
		{k, 150, 9}, // 50 taken: the pages ahead of it, none of its own
		{k, 151, 9}, // 51: its partial last block goes first
		{k, 155, 5}, // 55: 5 of its 10 taken from its end, 5 full blocks left
		{k, 159, 1}, // 59: 9 taken, its first block left
		{k, 170, 0}, // 70: all 10 (and more) taken
		{w, 150, 9}, // several groups: whole while none is taken
		{w, 151, 0}, // one taken: which group's is not modelled, the hit is lost
		{keptPages{at: 0, ahead: 0, held: 3, cached: 0}, 0, 0}, // nothing computed
	}
	for _, c := range cases {
		if got := c.k.survivors(c.allocs); got != c.want {
			t.Errorf("%+v after %d pages taken: %d blocks found, want %d", c.k, c.allocs, got, c.want)
		}
	}
}

// TestPreemptedFindsItsBlocks: under vLLM's prefix cache a preempted
// request, taken back in, finds the blocks it computed that no page
// taken since has evicted (kv_cache_manager.py get_computed_blocks) and
// prefills from there, its next chunk admitted only when it fits beside
// them (allocate_slots counts them: num_evictable_computed_blocks); with
// the prefix cache off it prefills again from token 0. The same load
// recomputes fewer prompt tokens with it.
func TestPreemptedFindsItsBlocks(t *testing.T) {
	recomputed := func(prefix bool) (hits, tokens int, preempted int) {
		s := setup(t, "llama-3.1-8b", "bf16", "h100-sxm", "gpu", "vllm")
		sch := s.Runtime.SchedulerFor(s.Device)
		sch.PrefixCaching = prefix
		sv, err := New(s, sch, Options{UBatch: 512, KVTokens: 20000})
		if err != nil {
			t.Fatal(err)
		}
		p, _ := ParseDist("lognormal:1500:800")
		o, _ := ParseDist("lognormal:300:200")
		src, err := newSource(Workload{Arrival: Poisson, Rate: 1, Requests: 2000, Prompt: p, Output: o, Seed: 11}, sv.Context)
		if err != nil {
			t.Fatal(err)
		}
		e := sv.newEngine(src, Targets{})
		e.check = func(e *engine) {
			for _, c := range e.chunks {
				r := &e.recs[e.slots[c.slot].id]
				if r.Preemptions == 0 {
					continue
				}
				tokens += c.n
				if c.depth > 0 && int(e.slots[c.slot].done) == c.depth+c.n && c.depth%int(e.bs) == 0 {
					hits++
				}
			}
		}
		e.run()
		return hits, tokens, e.preempted
	}
	hOn, tOn, pOn := recomputed(true)
	hOff, tOff, pOff := recomputed(false)
	t.Logf("prefix cache on: %d preemptions, %d chunks from a cached block, %d prompt tokens recomputed; off: %d, %d, %d", pOn, hOn, tOn, pOff, hOff, tOff)
	if pOn == 0 || pOff == 0 {
		t.Fatalf("the load preempts nothing (%d, %d): it tests nothing", pOn, pOff)
	}
	if hOn == 0 || hOff != 0 {
		t.Errorf("chunks from a cached block: %d with the prefix cache, %d without; want some, none", hOn, hOff)
	}
	if tOn >= tOff {
		t.Errorf("prompt tokens of preempted requests: %d with the prefix cache, %d without; want fewer", tOn, tOff)
	}
}
