package serve

import (
	"fmt"
	"slices"
	"testing"

	"github.com/roofline/roofline/runtimes"
)

// TestPoolPages checks the pages of vLLM's hybrid KV cache manager by
// hand: layers grouped by kind into groups as large as the kind with
// fewest layers, a sliding group holding only the blocks its window
// reaches (⌊max(0, computed − W + 1)/16⌋ skipped), against the one block
// of every layer a runtime that frees nothing holds per 16 tokens.
func TestPoolPages(t *testing.T) {
	type call struct {
		name             string
		tokens, computed int64
		shared           int32
		want             int64
		step             int64 // perRequest when set
		wantPerReq       int64
	}
	cases := []struct {
		name, model string
		frees       bool
		width       int
		full        int64
		slid        []int64
		calls       []call
	}{
		// gpt-oss-20b: 24 layers alternating 128-token windows and full
		// attention: 12 + 12, pages of 12 layers, one group of each.
		{"gpt-oss-20b", "gpt-oss-20b", true, 12, 1, []int64{1}, []call{
			// A 2000-token request decoding its 2000th token (1999
			// computed): full ⌈2000/16⌉ = 125 blocks; sliding skips
			// ⌊(1999 − 128 + 1)/16⌋ = ⌊1872/16⌋ = 117, holds 125 − 117 = 8
			// (tokens 1872 … 1999: the window's 128 in 8 blocks).
			// 133 pages = 1596 layer-blocks, where min(125, 128/16 + 1) = 9
			// is the most a sliding group can hold at one token a step.
			{"decode at 2000", 2000, 1999, 0, 125 + 8, 0, 0},
			// Its 2001st: ⌈2001/16⌉ = 126, skip ⌊1873/16⌋ = 117: 126 + 9.
			{"decode at 2001", 2001, 2000, 0, 126 + 9, 0, 0},
			// Inside the window every group holds every block: 7 + 7.
			{"decode at 100", 100, 99, 0, 7 + 7, 0, 0},
			// A 2000-token prompt in one chunk, nothing computed yet: the
			// chunk's blocks in both groups, 125 + 125.
			{"prefill chunk", 2000, 0, 0, 250, 0, 0},
			// With a 32-block shared prefix (512 tokens) held by the pool:
			// full 125 − 32 = 93, sliding 125 − max(117, 32) = 8.
			{"past a prefix", 2000, 1999, 32, 93 + 8, 0, 0},
			// Its most at steps of 2048 tokens: sliding ⌈(127 + 2048)/16⌉
			// + 1 = 136 + 1 = 137 blocks, under 32000 tokens' 2000.
			{"most for 32000", 32000, 0, 0, 2000 + 2000, 2048, 2000 + 137},
		}},
		// The same model under a runtime that frees nothing: one group of
		// 24 layers, ⌈2000/16⌉ = 125 pages.
		{"gpt-oss-20b kept", "gpt-oss-20b", false, 24, 1, nil, []call{
			{"decode at 2000", 2000, 1999, 0, 125, 2048, 125},
		}},
		// Gemma-3-4B: 34 layers, five 1024-token sliding to one full: 29 +
		// 5, pages of 5 layers, ⌈29/5⌉ = 6 sliding groups (one padded).
		// At 8001 tokens (8000 computed): full ⌈8001/16⌉ = 501; sliding
		// skip ⌊(8000 − 1024 + 1)/16⌋ = ⌊6977/16⌋ = 436, holds 501 − 436
		// = 65 in each of 6 groups: 501 + 390 = 891 pages of 5 layers.
		{"gemma-3-4b", "gemma-3-4b", true, 5, 1, []int64{6}, []call{
			{"decode at 8001", 8001, 8000, 0, 501 + 6*65, 0, 0},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := setup(t, c.model, "bf16", "h100-sxm", "gpu", "vllm")
			p := newPool(s.Model, 16, c.frees)
			if p.width != c.width || p.full != c.full || !slices.Equal(p.slid, c.slid) {
				t.Fatalf("groups: width %d, full %d, sliding %v; want %d, %d, %v", p.width, p.full, p.slid, c.width, c.full, c.slid)
			}
			for _, k := range c.calls {
				if got := p.held(k.tokens, k.computed, k.shared); got != k.want {
					t.Errorf("%s: held %d pages, want %d", k.name, got, k.want)
				}
				if k.step > 0 {
					if got := p.perRequest(k.tokens, k.step); got != k.wantPerReq {
						t.Errorf("%s: at most %d pages, want %d", k.name, got, k.wantPerReq)
					}
				}
			}
		})
	}
}

// TestFreedWindowsServeMore serves gpt-oss-20b under vLLM's scheduler
// with its sliding layers' out-of-window blocks freed and, the same
// server otherwise, priced as if every layer kept every token: with the
// cache the bound (4000-token prompts on an L4 at 60 % of its memory),
// freeing runs more requests at once and sustains a higher rate. A model
// without sliding windows runs the very same either way.
func TestFreedWindowsServeMore(t *testing.T) {
	p, _ := ParseDist("uniform:3000:5000")
	o, _ := ParseDist("uniform:100:300")
	w := Workload{Arrival: Poisson, Rate: 2, Requests: 400, Prompt: p, Output: o, Seed: 3}
	tg := Targets{TTFT: 20, TPOT: 0.2}
	serve := func(model, weights string, frees bool) (*Server, *Result, *RateSearch) {
		s := setup(t, model, weights, "l4", "gpu", "vllm")
		sch := s.Runtime.SchedulerFor(s.Device)
		if !sch.FreesWindow {
			t.Fatal("vLLM's profile does not free out-of-window blocks")
		}
		sch.FreesWindow = frees
		sv, err := New(s, sch, Options{MemoryShare: 0.6})
		if err != nil {
			t.Fatal(err)
		}
		res, err := sv.Run(w, tg)
		if err != nil {
			t.Fatal(err)
		}
		m, err := sv.MaxRate(w, tg, 12)
		if err != nil {
			t.Fatal(err)
		}
		return sv, res, m
	}
	svFree, free, mFree := serve("gpt-oss-20b", "mxfp4", true)
	svKept, kept, mKept := serve("gpt-oss-20b", "mxfp4", false)
	t.Logf("freed: pool %d tokens, %.1f running, %d preemptions, max rate %.3f/s; kept: %d tokens, %.1f running, %d preemptions, max rate %.3f/s",
		svFree.KVTokens(), free.MeanRunning, free.Preemptions, mFree.MaxRate, svKept.KVTokens(), kept.MeanRunning, kept.Preemptions, mKept.MaxRate)
	if svFree.KVTokens() != svKept.KVTokens() {
		t.Errorf("the pool's tokens of every layer differ: %d freed, %d kept", svFree.KVTokens(), svKept.KVTokens())
	}
	// The figures docs/serve.md's "Sliding windows" states (its template
	// in cmd/roofline/serve_test.go), as it rounds them.
	got := fmt.Sprintf("%.1f vs %.1f running, %.3f vs %.3f/s", free.MeanRunning, kept.MeanRunning, mFree.MaxRate, mKept.MaxRate)
	if want := "10.3 vs 5.4 running, 0.562 vs 0.434/s"; got != want {
		t.Errorf("freed vs kept: %s; docs/serve.md states %s (update its template in cmd/roofline/serve_test.go)", got, want)
	}
	_, a, ma := serve("llama-3.2-3b", "bf16", true)
	_, b, mb := serve("llama-3.2-3b", "bf16", false)
	if a.TTFT != b.TTFT || a.TPOT != b.TPOT || a.Preemptions != b.Preemptions || a.MaxKVUse != b.MaxKVUse || ma.MaxRate != mb.MaxRate {
		t.Errorf("a model without sliding windows moved: TTFT %+v / %+v, max rate %g / %g", a.TTFT, b.TTFT, ma.MaxRate, mb.MaxRate)
	}
}

// TestFreedWindowsContext checks the most tokens one request may hold
// when sliding layers free their blocks, by hand for gpt-oss-20b on an L4
// under vLLM (16-token blocks, 2048-token steps) with --kv-tokens 4096:
// ⌊4096/16⌋ = 256 blocks in each of 2 groups, 512 pages of 12 layers.
//   - freeing as it runs: a request of t tokens holds at most ⌈t/16⌉ full
//     pages and min(⌈t/16⌉, ⌈(127 + 2048)/16⌉ + 1 = 137) sliding ones;
//     512 − 137 = 375 full blocks, 375·16 = 6000 tokens;
//   - reserving a request's whole length up front holds every group's
//     blocks: 4096 tokens, so a 3000 + 100-token request is served;
//   - a context divided among 4 slots: 4096/4 = 1024 tokens (the pages
//     over the 2 groups, not 512·16/4 = 2048).
func TestFreedWindowsContext(t *testing.T) {
	cases := []struct {
		name      string
		onFull    runtimes.OnFull
		divided   int // slots, 0: not divided
		want      int
		wantBound string
	}{
		{"recompute", runtimes.Recompute, 0, 6000, "memory"},
		{"reserve", runtimes.Reserve, 0, 4096, "memory"},
		{"divided among 4", runtimes.Recompute, 4, 1024, "slot"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := setup(t, "gpt-oss-20b", "mxfp4", "l4", "gpu", "vllm")
			sch := s.Runtime.SchedulerFor(s.Device)
			sch.OnFull = c.onFull
			if c.divided > 0 {
				sch.DividedContext, sch.MaxSeqs = true, c.divided
			}
			sv, err := New(s, sch, Options{KVTokens: 4096})
			if err != nil {
				t.Fatal(err)
			}
			if sv.Blocks != 512 || sv.KVTokens() != 4096 {
				t.Fatalf("pool %d pages, %d tokens; want 512, 4096", sv.Blocks, sv.KVTokens())
			}
			if sv.Context != c.want || sv.ContextBound != c.wantBound {
				t.Errorf("a request holds at most %d tokens (%s); want %d (%s)", sv.Context, sv.ContextBound, c.want, c.wantBound)
			}
			if c.divided > 0 {
				return
			}
			w := Workload{Arrival: Poisson, Rate: 0.1, Requests: 3, Prompt: Dist{Kind: Fixed, A: 3000}, Output: Dist{Kind: Fixed, A: 100}, Seed: 1}
			res, err := sv.Run(w, Targets{TTFT: 20, TPOT: 0.2})
			if err != nil {
				t.Fatal(err)
			}
			if res.Completed != 3 || res.Failed != 0 {
				t.Errorf("3000 + 100-token requests: %d completed, %d failed; want 3, 0", res.Completed, res.Failed)
			}
		})
	}
}

// TestPoolArithmetic checks the pool's other answers by hand for
// gpt-oss-20b (one full and one 128-token sliding group of 12 layers,
// 16-token blocks; KV 2 (K,V) · 8 heads · 64 · 2 B = 2048 B a layer and
// token), without pool.held.
func TestPoolArithmetic(t *testing.T) {
	s := setup(t, "gpt-oss-20b", "mxfp4", "h100-sxm", "gpu", "vllm")
	free, kept := newPool(s.Model, 16, true), newPool(s.Model, 16, false)

	// pagesOf: a page is 2048 B · 12 layers · 16 tokens = 393216 B freed,
	// of 24 layers 786432 B kept: 1 GiB = 1073741824 B holds
	// ⌊2730.67⌋ = 2730 and ⌊1365.33⌋ = 1365; 100 pages less a byte, 99.
	per := s.Model.KVPerLayerToken()
	for _, c := range []struct {
		name  string
		p     pool
		bytes float64
		want  float64
	}{
		{"freed, 1 GiB", free, 1 << 30, 2730},
		{"kept, 1 GiB", kept, 1 << 30, 1365},
		{"freed, a byte short of 100", free, 100*393216 - 1, 99},
	} {
		if got := c.p.pagesOf(c.bytes, per); got != c.want {
			t.Errorf("pagesOf %s: %v, want %v", c.name, got, c.want)
		}
	}

	// maxTokens at 2048-token steps: freed, a request of t tokens holds
	// ⌈t/16⌉ + min(⌈t/16⌉, ⌈(127 + 2048)/16⌉ + 1 = 137) pages.
	for _, c := range []struct {
		name              string
		p                 pool
		pages, step, asks int64
		want              int64
	}{
		// 512 − 137 = 375 full blocks: 6000 tokens.
		{"freed, 512 pages", free, 512, 2048, 131072, 6000},
		// 3000 tokens: 188 + 137 = 325 ≤ 512, the most asked.
		{"freed, asks 3000", free, 512, 2048, 3000, 3000},
		// Under the window's reach both groups hold every block: 2·68 =
		// 136 ≤ 137 < 2·69, 68 blocks, 1088 tokens.
		{"freed, 137 pages", free, 137, 2048, 131072, 1088},
		// Steps of 8192: ⌈(127 + 8192)/16⌉ + 1 = 520 + 1 = 521; 2521 −
		// 521 = 2000 blocks, 32000 tokens.
		{"freed, 2521 pages, steps of 8192", free, 2521, 8192, 131072, 32000},
		// Kept: one page a block, 512·16 = 8192.
		{"kept, 512 pages", kept, 512, 2048, 131072, 8192},
	} {
		if got := c.p.maxTokens(c.pages, c.step, c.asks); got != c.want {
			t.Errorf("maxTokens %s: %d, want %d", c.name, got, c.want)
		}
	}

	// past: a decoding step at context ctx skips ⌊(ctx − 1 − 128 + 1)/16⌋
	// blocks, one more than the shared prefix's from ctx = 128 + 16·(1 +
	// shared): 144 alone, 128 + 16·33 = 656 past a 32-block prefix.
	if got := free.past(0, 0); got != 144 {
		t.Errorf("past without a prefix: %d, want 144", got)
	}
	if got := free.past(0, 32); got != 656 {
		t.Errorf("past a 32-block prefix: %d, want 656", got)
	}

	// stepPages: decoders counted by their base context modulo 16 (ctx =
	// base + k): one enters a block at ctx ≡ 1, taking a page of each of
	// the 2 groups; one past its window frees a sliding page at ctx ≡ 128
	// ≡ 0. A (base 0) is past the window, B (base 5) is not.
	e := &engine{bs: 16, pool: &free, pages: free.groups(), cross: make([]int32, 16), pastBy: [][]int32{make([]int32, 16)}}
	e.cross[0], e.cross[5], e.pastBy[0][0] = 1, 1, 1
	for _, c := range []struct {
		k, want int64
	}{
		{144, -1}, // A at 144 frees; B at 149
		{145, 2},  // A at 145 enters a block
		{139, 0},  // B at 144 is not past its window: frees nothing
		{156, 2},  // B at 161 enters a block
		{150, 0},  // A at 150, B at 155
	} {
		if got := e.stepPages(c.k); got != c.want {
			t.Errorf("stepPages at step %d: %d, want %d", c.k, got, c.want)
		}
	}
}
