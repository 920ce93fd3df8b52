package serve

import (
	"math"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/sim"
)

// pipelined is Llama-3.1-8B over two stages of runtime's devices joined
// by PCIe 4.0 x16 (layers 0–15 and 16–31 with the head; llama.cpp keeps
// the embedding table in host memory, a stage of its own).
func pipelined(t *testing.T, weights, device, runtime string, pp int) (*sim.Setup, *sim.Split) {
	t.Helper()
	s := setup(t, "llama-3.1-8b", weights, device, "gpu", runtime)
	link, err := hardware.LookupLink("pcie4-x16")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sim.NewParallel(s.WithMaxSeqs(s.Runtime.SchedulerFor(s.Device).MaxSeqs), &link, sim.ParallelOptions{TP: 1, PP: pp})
	if err != nil {
		t.Fatal(err)
	}
	return s, sp
}

// TestPipelineAloneIsSplitPredict: a request served alone on a pipeline
// goes through its stages and hops one pass at a time, as Split.Predict
// prices it at batch 1: a decode step of one sequence is one pass, its
// trip through every stage and hop (both llama.cpp's ubatches and vLLM's
// micro-batches are one then), and a prompt of one pass likewise.
// llama.cpp's prompt of 2 passes (1024 = 2 × 512) overlaps them on the
// stages (sim.Through: a trip and the slowest stage's own time), where
// Split.Predict prices two passes alike at their mean, the second
// attending 512 keys more: within 0.5 %.
func TestPipelineAloneIsSplitPredict(t *testing.T) {
	for _, c := range []struct {
		runtime, weights string
		prompt, output   int
		ttftTol          float64
	}{
		{"llama.cpp", "q4_k_m", 500, 100, 1e-9},
		{"llama.cpp", "q4_k_m", 1024, 20, 5e-3},
		{"vllm", "bf16", 1000, 100, 1e-9},
	} {
		s, sp := pipelined(t, c.weights, "rtx-4090", c.runtime, 2)
		sv, err := New(s, s.Runtime.SchedulerFor(s.Device), Options{Split: sp})
		if err != nil {
			t.Fatal(err)
		}
		res, err := sv.Run(Workload{Arrival: Closed, Users: 1, Requests: 1, Prompt: Dist{A: float64(c.prompt)}, Output: Dist{A: float64(c.output)}}, Targets{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := sp.Predict(sim.Workload{Prompt: c.prompt, Output: c.output, Batch: 1, UBatch: sv.PassTokens})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Records[0]
		if !near(r.TTFT(), p.TTFT, c.ttftTol) || !near(r.TPOT(), p.TPOT, 1e-9) {
			t.Errorf("%s, %d+%d tokens: TTFT %v TPOT %v; Split.Predict %v %v", c.runtime, c.prompt, c.output, r.TTFT(), r.TPOT(), p.TTFT, p.TPOT)
		}
	}
}

// TestPipelineStepsOverlapAsPredict: a closed batch of B requests decoding
// together steps as Split.Predict's decode at batch B: vLLM's 4 in 2
// micro-batches of 2, max(trip, 2 × slowest stage and hop); llama.cpp's
// step of 4 sequences in ubatches of 2 (--pass-tokens 2), a trip and one
// slowest stage and hop more. The prompts (10 tokens each) are admitted
// in one step, so every request's decode steps are the batch's.
func TestPipelineStepsOverlapAsPredict(t *testing.T) {
	for _, c := range []struct {
		runtime, weights string
		pass             int
	}{
		{"vllm", "bf16", 0},
		{"llama.cpp", "q4_k_m", 2},
	} {
		s, sp := pipelined(t, c.weights, "rtx-4090", c.runtime, 2)
		sch := s.Runtime.SchedulerFor(s.Device)
		if c.pass > 0 {
			sch.PassTokens = c.pass
		}
		sch.MaxSeqs = 4
		sch.Async = false
		sv, err := New(s, sch, Options{Split: sp})
		if err != nil {
			t.Fatal(err)
		}
		res, err := sv.Run(Workload{Arrival: Closed, Users: 4, Requests: 4, Prompt: Dist{A: 10}, Output: Dist{A: 50}}, Targets{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := sp.Predict(sim.Workload{Prompt: 10, Output: 50, Batch: 4, UBatch: c.pass})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Records {
			if !near(r.TPOT(), p.TPOT, 1e-9) {
				t.Errorf("%s: TPOT %v, Split.Predict at batch 4 %v", c.runtime, r.TPOT(), p.TPOT)
			}
		}
	}
}

// TestPipelineRefusesUnlikeStages: a model whose stages would hold unlike
// shares of its sliding and global layers is refused with a message that
// says so, not priced at the wrong share.
func TestPipelineRefusesUnlikeStages(t *testing.T) {
	s := setup(t, "gemma-2-2b", "q4_k_m", "rtx-4090", "gpu", "llama.cpp")
	link, _ := hardware.LookupLink("pcie4-x16")
	sp, err := sim.NewParallel(s, &link, sim.ParallelOptions{TP: 1, PP: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(s, s.Runtime.SchedulerFor(s.Device), Options{Split: sp}); err == nil {
		t.Error("a pipeline of unlike stages served")
	}
}

// TestPipelineFlowsALoneRequestsChunks: under vLLM a lone request's
// prompt of several chunks flows through the stages, its next chunk
// entering the first stage as the last leaves it (V1's scheduler advances
// a prefilling request's computed tokens when it schedules a chunk, and
// its engine core schedules the next batch while the last is in flight,
// up to max_concurrent_batches = PP), as Split.Predict prices a pipelined
// prefill: Llama-3.1-8B over two RTX 4090s, 20 000 tokens (review51:
// served 7.12 s, one chunk after another; predicted 3.92 s) and 3 chunks
// of 2048. Predict prices the chunks alike at their mean where serve
// steps each at its own depth, so the slower stage's last chunk, which
// attends the most keys, outlasts the mean one: within 3 % (2.4 % and
// 2.6 %; served 1.64 s and 7.12 s before, +50 % and +82 %).
func TestPipelineFlowsALoneRequestsChunks(t *testing.T) {
	s, sp := pipelined(t, "bf16", "rtx-4090", "vllm", 2)
	sv, err := New(s, s.Runtime.SchedulerFor(s.Device), Options{Split: sp})
	if err != nil {
		t.Fatal(err)
	}
	for _, prompt := range []int{3 * sv.StepTokens, 20000} {
		res, err := sv.Run(Workload{Arrival: Closed, Users: 1, Requests: 1, Prompt: Dist{A: float64(prompt)}, Output: Dist{A: 20}}, Targets{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := sp.Predict(sim.Workload{Prompt: prompt, Output: 20, Batch: 1, UBatch: sv.PassTokens})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Records[0]
		t.Logf("%d tokens in chunks of %d: TTFT %.6f s, Split.Predict %.6f s (%+.3f %%); TPOT %.6g %.6g", prompt, sv.StepTokens, r.TTFT(), p.TTFT, 100*(r.TTFT()/p.TTFT-1), r.TPOT(), p.TPOT)
		if !near(r.TTFT(), p.TTFT, 3e-2) || !near(r.TPOT(), p.TPOT, 1e-9) {
			t.Errorf("%d tokens: TTFT %v TPOT %v; Split.Predict %v %v", prompt, r.TTFT(), r.TPOT(), p.TTFT, p.TPOT)
		}
	}
}

// TestFlowStep: a lone prompt's chunks through two stages, each entering
// the first stage as the last leaves it (flowStep): a step lasts until
// its chunk leaves the first stage, the prompt's last until it leaves the
// last. Stage times (a, b) s a chunk, three chunks:
//
//	(1, 1): chunk 1 ends stage 1 at 1, stage 2 at 2: step 1 s, stage 2
//	        busy 1 s on; chunk 2 likewise: 1 s; chunk 3 leaves stage 1
//	        at 1 and stage 2 at max(1, 1) + 1 = 2: 2 s.
//	        1 + 1 + 2 = 4 s = a trip (2) and 2 slowest stages (1 each),
//	        where one chunk after another took 3 × 2 = 6 s.
//	(1, 2): 1 s (stage 2 busy 2 s on); chunk 2 into stage 2 at
//	        max(1, 2) = 2, out at 4: 1 s (3 s on); chunk 3 out at
//	        max(1, 3) + 2 = 5: 5 s. 1 + 1 + 5 = 7 s = 3 + 2 × 2.
//	(2, 1): 2 s (stage 2 busy 1 s on); 2 s (1 s on); 2 + 1 = 3 s.
//	        2 + 2 + 3 = 7 s = 3 + 2 × 2.
//
// A last chunk of half the others (0.5, 0.5) after two of (1, 1): 1 + 1
// + (stage 2 at max(0.5, 1) + 0.5 = 1.5) = 3.5 s, where three chunks at
// their mean, (5/6, 5/6), would take 5/3 + 2 × 5/6 = 10/3 s.
func TestFlowStep(t *testing.T) {
	for _, c := range []struct {
		own  [][]float64
		want float64
	}{
		{[][]float64{{1, 1}, {1, 1}, {1, 1}}, 4},
		{[][]float64{{1, 2}, {1, 2}, {1, 2}}, 7},
		{[][]float64{{2, 1}, {2, 1}, {2, 1}}, 7},
		{[][]float64{{1, 1}, {1, 1}, {0.5, 0.5}}, 3.5},
	} {
		ready := make([]float64, 2)
		got := 0.0
		for i, own := range c.own {
			got += flowStep(ready, own, i == len(c.own)-1)
		}
		if math.Abs(got-c.want) > 1e-12 || ready[0] != 0 || ready[1] != 0 {
			t.Errorf("chunks %v: %g s, left %v in flight; want %g s, none", c.own, got, ready, c.want)
		}
	}
}
