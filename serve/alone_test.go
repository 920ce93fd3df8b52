package serve

import (
	"math"
	"testing"

	"github.com/roofline/roofline/runtimes"
)

// loopRun is Run through the step loop, whatever the server.
func loopRun(t *testing.T, sv *Server, w Workload, tg Targets) *Result {
	t.Helper()
	src, err := newSource(w, sv.Context)
	if err != nil {
		t.Fatal(err)
	}
	e := sv.newEngine(src, tg)
	e.run()
	return e.result()
}

// TestAloneIsTheStepLoop: a server that runs one request at a time
// answers in closed form (runAlone: each request's prefill and decode
// from sim's sums, the queue a single-server FIFO) exactly what the step
// loop answers: every request's start, first token and finish to 10⁻⁹,
// the steps, the requests in the system over time (Little's law), and
// the inter-token percentiles within the histogram's half bucket. RKLLM
// queueing at 1.5 times what it sustains, a closed loop of users, and
// llama.cpp at --parallel 1 (steps of 2048 tokens in passes of 512) on
// long prompts.
func TestAloneIsTheStepLoop(t *testing.T) {
	rk := setup(t, "qwen2.5-1.5b", "w8a8", "rk3588", "npu", "rkllm")
	lc := setup(t, "llama-3.2-3b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu", "llama.cpp")
	one := lc.Runtime.SchedulerFor(lc.Device)
	one.MaxSeqs = 1
	lcOne, err := New(lc, one, Options{})
	if err != nil {
		t.Fatal(err)
	}
	u := func(s string) Dist { d, _ := ParseDist(s); return d }
	cases := []struct {
		name string
		sv   *Server
		w    Workload
	}{
		{"rkllm poisson", server(t, rk, 512), Workload{Arrival: Poisson, Rate: 0.15, Requests: 400, Prompt: u("uniform:50:3000"), Output: u("uniform:1:300"), Seed: 3}},
		{"rkllm closed", server(t, rk, 256), Workload{Arrival: Closed, Users: 5, Think: 4, Requests: 300, Prompt: u("lognormal:400:300"), Output: u("uniform:20:150"), Seed: 5}},
		{"llama.cpp one slot", lcOne, Workload{Arrival: Gamma, CV: 3, Rate: 0.1, Requests: 200, Prompt: u("uniform:100:9000"), Output: u("uniform:2:400"), Seed: 9}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !c.sv.alone(c.w) {
				t.Fatal("not served alone")
			}
			tg := Targets{TTFT: 2, TPOT: 0.2}
			got, err := c.sv.Run(c.w, tg)
			if err != nil {
				t.Fatal(err)
			}
			want := loopRun(t, c.sv, c.w, tg)
			if got.Completed != want.Completed || got.Failed != want.Failed || got.Steps != want.Steps {
				t.Fatalf("completed %d failed %d steps %d; the loop %d %d %d", got.Completed, got.Failed, got.Steps, want.Completed, want.Failed, want.Steps)
			}
			queued := 0
			for i := range want.Records {
				g, w := got.Records[i], want.Records[i]
				same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b)+1e-9 }
				if g.Prompt != w.Prompt || g.Output != w.Output || !same(g.Start, w.Start) || !same(g.First, w.First) || !same(g.Finish, w.Finish) {
					t.Fatalf("request %d: %+v; the loop %+v", i, g, w)
				}
				if w.Queue() > 0 {
					queued++
				}
			}
			if queued < len(want.Records)/10 {
				t.Errorf("only %d of %d requests queued: the case does not test the queue", queued, len(want.Records))
			}
			for _, q := range Percentiles {
				if !near(got.ITL.Quantile(q), want.ITL.Quantile(q), histBase-1) || !near(got.TTFT.Quantile(q), want.TTFT.Quantile(q), 1e-9) {
					t.Errorf("p%.0f: ITL %v TTFT %v; the loop %v %v", 100*q, got.ITL.Quantile(q), got.TTFT.Quantile(q), want.ITL.Quantile(q), want.TTFT.Quantile(q))
				}
			}
			if !near(got.ITL.Mean, want.ITL.Mean, 1e-9) || !near(got.MeanInSystem, want.MeanInSystem, 1e-9) || !near(got.MeanRunning, want.MeanRunning, 1e-9) ||
				!near(got.Goodput, want.Goodput, 1e-12) || !near(got.Throughput, want.Throughput, 1e-12) {
				t.Errorf("ITL mean %v, in system %v, running %v, goodput %v; the loop %v %v %v %v", got.ITL.Mean, got.MeanInSystem, got.MeanRunning, got.Goodput,
					want.ITL.Mean, want.MeanInSystem, want.MeanRunning, want.Goodput)
			}
			if math.Abs(got.MaxKVUse-want.MaxKVUse) > 2/float64(c.sv.Blocks) {
				t.Errorf("KV peak %v; the loop %v", got.MaxKVUse, want.MaxKVUse)
			}
		})
	}
}

// TestAloneOnlyWhenNothingCouples: a shared prefix a one-slot server
// caches, or a step that is not whole passes, couples requests (the
// cache a request finds depends on the ones before it; a step's passes
// on where the last one ended): those runs take the step loop.
func TestAloneOnlyWhenNothingCouples(t *testing.T) {
	lc := setup(t, "llama-3.2-3b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu", "llama.cpp")
	sch := lc.Runtime.SchedulerFor(lc.Device)
	sch.MaxSeqs = 1
	w := Workload{Arrival: Poisson, Rate: 1, Requests: 10, Prompt: Dist{A: 300}, Output: Dist{A: 10}}
	for _, c := range []struct {
		name  string
		edit  func(*runtimes.Scheduler, *Workload)
		alone bool
	}{
		{"one slot", func(*runtimes.Scheduler, *Workload) {}, true},
		{"shared prefix cached", func(s *runtimes.Scheduler, w *Workload) { s.PrefixCaching, w.SharedPrefix = true, 100 }, false},
		{"shared prefix not cached", func(s *runtimes.Scheduler, w *Workload) { s.PrefixCaching, w.SharedPrefix = false, 100 }, true},
		{"step of 1000 in passes of 512", func(s *runtimes.Scheduler, w *Workload) { s.MaxTokens = 1000 }, false},
		{"two slots", func(s *runtimes.Scheduler, w *Workload) { s.MaxSeqs = 2 }, false},
	} {
		s, wl := sch, w
		c.edit(&s, &wl)
		sv, err := New(lc, s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := sv.alone(wl); got != c.alone {
			t.Errorf("%s: alone %v, want %v", c.name, got, c.alone)
		}
	}
}

// TestKVPeakHoldsTheLastChunk checks the KV cache's peak by hand, alone
// and in the step loop, for gpt-oss-20b on an L4 under vLLM at
// --max-seqs 1 (pages of 12 layers, one full and one 128-token sliding
// group, steps of 2048 tokens): a 4000-token prompt's last chunk (2048
// computed) holds ⌈4000/16⌉ = 250 full blocks and 250 − ⌊(2048 − 128 +
// 1)/16⌋ = 250 − 120 = 130 sliding ones, 380 pages; its decode steps at
// most ⌈4009/16⌉ = 251 and 251 − ⌊(4008 − 127)/16⌋ = 251 − 242 = 9,
// 260. Reserving its whole length holds 2·⌈4010/16⌉ = 2·251 = 502.
func TestKVPeakHoldsTheLastChunk(t *testing.T) {
	s := setup(t, "gpt-oss-20b", "mxfp4", "l4", "gpu", "vllm")
	w := Workload{Arrival: Poisson, Rate: 0.05, Requests: 5, Prompt: Dist{Kind: Fixed, A: 4000}, Output: Dist{Kind: Fixed, A: 10}, Seed: 1}
	tg := Targets{TTFT: 20, TPOT: 0.2}
	for _, c := range []struct {
		name   string
		onFull runtimes.OnFull
		pages  int
	}{
		{"recompute", runtimes.Recompute, 380},
		{"reserve", runtimes.Reserve, 502},
	} {
		t.Run(c.name, func(t *testing.T) {
			sch := s.Runtime.SchedulerFor(s.Device)
			sch.MaxSeqs, sch.OnFull = 1, c.onFull
			sv, err := New(s, sch, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !sv.alone(w) {
				t.Fatal("not served alone")
			}
			want := float64(c.pages) / float64(sv.Blocks)
			got, err := sv.Run(w, tg)
			if err != nil {
				t.Fatal(err)
			}
			loop := loopRun(t, sv, w, tg)
			if got.MaxKVUse != want || loop.MaxKVUse != want {
				t.Errorf("KV peak %v alone, %v in the step loop; want %d/%d = %v", got.MaxKVUse, loop.MaxKVUse, c.pages, sv.Blocks, want)
			}
		})
	}
}
