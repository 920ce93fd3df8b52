package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// TestStaticBatchPredict: under TensorRT Edge-LLM (static batches of up
// to 4, its [scheduler]) predict runs a batch of B ≤ 4 as one batch in
// lockstep: exactly the price of the same setup with continuous batching
// at B (lock), which serve's static policy gives a batch too (serve's
// TestStaticBatch). A batch of B > 4 runs ⌈B/4⌉ batches one after
// another, the last of B − 4(n − 1): the result is the first batch's
// (TTFT, TPOT, E2E, memory: 4 caches resident, not B), and the last
// sequence waits for the batches before its own:
//
//	B = 6: 4 then 2: LastTTFT = E2E(4) + TTFT(2), LastE2E = E2E(4) + E2E(2)
//	B = 8: 4 then 4: LastTTFT = E2E(4) + TTFT(4), LastE2E = 2 E2E(4)
//	B = 9: 4, 4, 1: LastTTFT = 2 E2E(4) + TTFT(1), LastE2E = 2 E2E(4) + E2E(1)
//
// gpt-fast, one sequence at a time, keeps queuing: B = 3 is
// LastTTFT = 2 E2E(1) + TTFT(1), LastE2E = 3 E2E(1).
func TestStaticBatchPredict(t *testing.T) {
	edge := splitSetup(t, "qwen3-4b", "w4a16", "jetson-agx-orin-64gb", "gpu", "tensorrt-edge-llm")
	if edge.Inputs.StaticBatch != 4 || edge.Inputs.ContinuousBatching {
		t.Fatalf("tensorrt-edge-llm: static batch %d, continuous %v; want 4, false (its profile's [scheduler])", edge.Inputs.StaticBatch, edge.Inputs.ContinuousBatching)
	}
	lockSetup := *edge
	lockSetup.Inputs.ContinuousBatching = true
	fifo := splitSetup(t, "llama-3.2-1b", "bf16", "jetson-agx-orin-64gb", "gpu", "gpt-fast")
	const P, O = 200, 64
	pr := func(s *sim.Setup, B int) *sim.Result {
		t.Helper()
		r, err := s.Predict(sim.Workload{Prompt: P, Output: O, Batch: B})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	lock := func(B int) *sim.Result { return pr(&lockSetup, B) }
	one := func(B int) *sim.Result { return pr(fifo, 1) }
	cases := []struct {
		name     string
		s        *sim.Setup
		B        int
		first    func(int) *sim.Result // the first batch's price
		full     int                   // its sequences
		lastTTFT func() float64
		lastE2E  func() float64
		queued   bool
		note     string // a warning code the result carries
	}{
		{"edge 1", edge, 1, lock, 1, func() float64 { return lock(1).TTFT }, func() float64 { return lock(1).E2E }, false, ""},
		{"edge 3", edge, 3, lock, 3, func() float64 { return lock(3).TTFT }, func() float64 { return lock(3).E2E }, false, "static-batch"},
		{"edge 4", edge, 4, lock, 4, func() float64 { return lock(4).TTFT }, func() float64 { return lock(4).E2E }, false, "static-batch"},
		{"edge 6", edge, 6, lock, 4, func() float64 { return lock(4).E2E + lock(2).TTFT }, func() float64 { return lock(4).E2E + lock(2).E2E }, true, "queued"},
		{"edge 8", edge, 8, lock, 4, func() float64 { return lock(4).E2E + lock(4).TTFT }, func() float64 { return 2 * lock(4).E2E }, true, "queued"},
		{"edge 9", edge, 9, lock, 4, func() float64 { return 2*lock(4).E2E + lock(1).TTFT }, func() float64 { return 2*lock(4).E2E + lock(1).E2E }, true, "queued"},
		{"gpt-fast 3", fifo, 3, one, 1, func() float64 { return 2*one(1).E2E + one(1).TTFT }, func() float64 { return 3 * one(1).E2E }, true, "queued"},
	}
	same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, f := pr(c.s, c.B), c.first(c.full)
			if !same(r.TTFT, f.TTFT) || !same(r.TPOT, f.TPOT) || !same(r.E2E, f.E2E) || !same(r.Memory.Total, f.Memory.Total) || !same(r.ThroughputTokensPerS, f.ThroughputTokensPerS) {
				t.Errorf("TTFT %v TPOT %v E2E %v memory %v throughput %v; want the batch of %d's %v %v %v %v %v",
					r.TTFT, r.TPOT, r.E2E, r.Memory.Total, r.ThroughputTokensPerS, c.full, f.TTFT, f.TPOT, f.E2E, f.Memory.Total, f.ThroughputTokensPerS)
			}
			if !same(r.LastTTFT, c.lastTTFT()) || !same(r.LastE2E, c.lastE2E()) {
				t.Errorf("last TTFT %v E2E %v; want %v %v", r.LastTTFT, r.LastE2E, c.lastTTFT(), c.lastE2E())
			}
			if r.Queued != c.queued || r.Together() != c.full || r.Inputs.Workload.Batch != c.B {
				t.Errorf("queued %v, together %d, batch %d; want %v, %d, %d", r.Queued, r.Together(), r.Inputs.Workload.Batch, c.queued, c.full, c.B)
			}
			var codes []string
			for _, w := range r.Warnings {
				codes = append(codes, w.Code)
				if w.Code == "queued" && strings.Contains(w.Message, "slow bound") {
					t.Errorf("the queue note still calls predict's price a slow bound: %s", w.Message)
				}
			}
			has := strings.Contains(" "+strings.Join(codes, " ")+" ", " "+c.note+" ")
			if c.note != "" && !has {
				t.Errorf("warnings %v, want %s", codes, c.note)
			}
			if c.note != "static-batch" && strings.Contains(strings.Join(codes, " "), "static-batch") {
				t.Errorf("warnings %v: a static-batch note where the sequences do not run as one batch", codes)
			}
		})
	}
}

// TestStaticBatchMemoryAndPlan: the memory a static runtime holds is the
// caches of the sequences that run together: a batch of 8 under batches
// of 4 holds what a batch of 4 does (4 caches), one at a time 1; plan's
// largest batch that fits is at most 4, and its evaluation of 8 prices
// the last request's TTFT after the first batch: with output 2 the first
// batch takes its prefill and one step, E = TTFT(4) + TPOT(4), and the
// last waits E, then its own batch's prefill: E + TTFT(4).
func TestStaticBatchMemoryAndPlan(t *testing.T) {
	edge := splitSetup(t, "qwen3-4b", "w4a16", "jetson-agx-orin-64gb", "gpu", "tensorrt-edge-llm")
	if a, b := edge.MemoryNeed(4096, 8, 0), edge.MemoryNeed(4096, 4, 0); a != b {
		t.Errorf("memory of 8 sequences %v, want 4's %v: four wait, holding no cache", a, b)
	}
	if a, b := edge.MemoryNeed(4096, 3, 0), edge.MemoryNeed(4096, 4, 0); a >= b {
		t.Errorf("memory of 3 sequences %v, want less than 4's %v", a, b)
	}
	tg := sim.Targets{}
	l := edge.MaxConcurrent(4096, 200, 64, 0, tg)
	if l.Fit != 4 {
		t.Errorf("plan fits %d sequences at once, want 4 (the static batch)", l.Fit)
	}
	if l.Meeting < sim.MaxQueued {
		t.Errorf("without targets %d meet; want the queue's bound %d: the others wait", l.Meeting, sim.MaxQueued)
	}
	c8, c4 := edge.Evaluate(4096, 8, 200, 2, 0, tg), edge.Evaluate(4096, 4, 200, 2, 0, tg)
	if want := c4.TTFT + c4.TPOT + c4.TTFT; math.Abs(c8.TTFT-want) > 1e-9*want || c8.TPOT != c4.TPOT || c8.Memory != c4.Memory || c8.Throughput != c4.Throughput {
		t.Errorf("plan at 8: TTFT %v TPOT %v memory %v throughput %v; want %v %v %v %v", c8.TTFT, c8.TPOT, c8.Memory, c8.Throughput, want, c4.TPOT, c4.Memory, c4.Throughput)
	}
}

// TestStaticBatchStep: --ops' single step of a batch prices the sequences
// that run together, as Predict does: 8 sequences under TensorRT
// Edge-LLM's static batches of up to 4 step as 4 (Σ Time = ITL(ctx, 4),
// not ITL(ctx, 8)), 3 under gpt-fast, one at a time, as 1; under
// continuous batching 8 step as 8. The view's Batch says which.
func TestStaticBatchStep(t *testing.T) {
	edge := splitSetup(t, "qwen3-4b", "w4a16", "jetson-agx-orin-64gb", "gpu", "tensorrt-edge-llm")
	lock := *edge
	lock.Inputs.ContinuousBatching = true
	fifo := splitSetup(t, "llama-3.2-1b", "bf16", "jetson-agx-orin-64gb", "gpu", "gpt-fast")
	const ctx = 300
	for _, c := range []struct {
		name      string
		s         *sim.Setup
		batch, at int
	}{{"edge 8", edge, 8, 4}, {"edge 3", edge, 3, 3}, {"continuous 8", &lock, 8, 8}, {"gpt-fast 3", fifo, 3, 1}} {
		oa, err := c.s.Operators()
		if err != nil {
			t.Fatal(err)
		}
		v, err := oa.Step(ctx, c.batch)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, o := range v.Ops {
			sum += o.Time
		}
		want := c.s.ITL(ctx, c.at)
		if math.Abs(sum-want) > 1e-9*want || math.Abs(v.Time-want) > 1e-9*want || v.Batch != c.at {
			t.Errorf("%s: step of batch %d sums to %v (view %v, batch %d); want ITL(%d, %d) = %v", c.name, c.batch, sum, v.Time, v.Batch, ctx, c.at, want)
		}
		if other := c.s.ITL(ctx, c.batch); c.at != c.batch && math.Abs(other-want) <= 1e-9*want {
			t.Errorf("%s: ITL(%d, %d) = ITL(%d, %d): the case cannot tell the batches apart", c.name, ctx, c.batch, ctx, c.at)
		}
	}
}

// TestBoardClocksNoteOnOtherRuntimes: clocks the board is pinned at
// (Options.Clocks, which make the runtime setting "pinned") apply to a
// runtime without RKLLM's settings too, so its note says the clocks and
// not that they do not apply: llama.cpp on the rk3588's CPU at ddr=1560MHz
// runs on 33.8 GB/s × 1560 / 2112 = 25 GB/s. A conversion's context
// stated beside them is what does not apply; pinned alone, the clocks.
func TestBoardClocksNoteOnOtherRuntimes(t *testing.T) {
	board := hardware.Clocks{Memory: 1560e6}
	pinned := runtimes.Settings{Clocks: runtimes.ClocksPinned}
	const clocks = "board clocks ddr=1560MHz, pinned: memory at 1560 MHz, 25 GB/s (the bus at that step's data rate)"
	for _, c := range []struct {
		clk  hardware.Clocks
		set  runtimes.Settings
		want string
	}{
		{board, pinned, clocks},
		{board, runtimes.Settings{Clocks: runtimes.ClocksPinned, MaxContext: 2048}, "llama.cpp has no setting of a conversion's context: it does not apply to it; " + clocks},
		{hardware.Clocks{}, pinned, "llama.cpp has no settings of a conversion's context or clocks: they do not apply to it"},
	} {
		o := sim.DefaultOptions
		o.Clocks, o.Settings = c.clk, c.set
		s := splitSetupWith(t, "qwen2.5-1.5b", "q4_k_m", "rk3588", "cpu", "llama.cpp", o)
		if s.Inputs.SettingsNote != c.want {
			t.Errorf("%+v %+v: note %q, want %q", c.clk, c.set, s.Inputs.SettingsNote, c.want)
		}
	}
}
