package serve

import (
	"errors"
	"math"
	"testing"

	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// TestStaticBatch: TensorRT Edge-LLM's static batches (runtimes.Static)
// worked by hand from Predict on a Jetson AGX Orin, Qwen3-4B in w4a16.
// pr(P, O, B) is Predict at prompt P, output O, batch B ≤ 4: one static
// batch in lockstep (sim.Inputs.Together), its B prompts in one pass. A batch of rows
// padded to prompt L prefills in pr(L, ·, rows).TTFT and decodes every
// row in lockstep from context L + 1, so a row of output o has its last
// token at pr(L, o, rows).E2E after the batch starts (its TPOT
// pr(L, o, rows).TPOT), and the batch ends at its longest row's; the next
// batch starts then, not when a shorter row ends (its row stays in the
// batch). Steps: one prefill pass and long − 1 decode steps a batch.
func TestStaticBatch(t *testing.T) {
	s := setup(t, "qwen3-4b", "w4a16", "jetson-agx-orin-64gb", "gpu", "tensorrt-edge-llm")
	pr := func(P, O, B int) *sim.Result {
		r, err := s.Predict(sim.Workload{Prompt: P, Output: O, Batch: B})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	type want struct{ start, first, finish, tpot float64 }
	cases := []struct {
		name    string
		maxSeqs int
		rows    []Row
		steps   int
		want    func() []want
	}{
		// Both at t = 0: one batch padded to 100 tokens; the 10-token
		// row ends after 9 steps at batch 2, the 30-token one after 29.
		// Steps 1 + 29 = 30.
		{"two together", 4, []Row{{At: 0, Prompt: 100, Output: 10}, {At: 0, Prompt: 60, Output: 30}}, 30, func() []want {
			a, b := pr(100, 10, 2), pr(100, 30, 2)
			return []want{{0, a.TTFT, a.E2E, a.TPOT}, {0, b.TTFT, b.E2E, b.TPOT}}
		}},
		// The second arrives 1 ms after the first's batch started: it
		// waits for the first alone, E = pr(100, 10, 1).E2E, then runs
		// alone at its own 60 tokens. Steps (1 + 9) + (1 + 29) = 40.
		{"two apart", 4, []Row{{At: 0, Prompt: 100, Output: 10}, {At: 0.001, Prompt: 60, Output: 30}}, 40, func() []want {
			a, b := pr(100, 10, 1), pr(60, 30, 1)
			E := a.E2E
			return []want{{0, a.TTFT, a.E2E, a.TPOT}, {E, E + b.TTFT, E + b.E2E, b.TPOT}}
		}},
		// Three at t = 0 on two rows: the first two as "two together";
		// the third starts when the 30-token row ends,
		// E = pr(100, 30, 2).E2E, not when the 10-token one does, and
		// runs alone. Steps 30 + (1 + 4) = 35.
		{"three on two rows", 2, []Row{{At: 0, Prompt: 100, Output: 10}, {At: 0, Prompt: 60, Output: 30}, {At: 0, Prompt: 80, Output: 5}}, 35, func() []want {
			a, b, c := pr(100, 10, 2), pr(100, 30, 2), pr(80, 5, 1)
			E := b.E2E
			return []want{{0, a.TTFT, a.E2E, a.TPOT}, {0, b.TTFT, b.E2E, b.TPOT}, {E, E + c.TTFT, E + c.E2E, c.TPOT}}
		}},
		// A third arriving 10 ms in, while the batch runs with rows to
		// spare, does not join it: it waits for E = pr(100, 30, 2).E2E.
		{"late arrival waits", 4, []Row{{At: 0, Prompt: 100, Output: 10}, {At: 0, Prompt: 60, Output: 30}, {At: 0.01, Prompt: 50, Output: 4}}, 34, func() []want {
			a, b, c := pr(100, 10, 2), pr(100, 30, 2), pr(50, 4, 1)
			E := b.E2E
			return []want{{0, a.TTFT, a.E2E, a.TPOT}, {0, b.TTFT, b.E2E, b.TPOT}, {E, E + c.TTFT, E + c.E2E, c.TPOT}}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sch := s.Runtime.SchedulerFor(s.Device)
			if sch.Policy != runtimes.Static || sch.MaxSeqs != 4 {
				t.Fatalf("the profile's scheduler %+v, want static batches of 4", sch)
			}
			sch.MaxSeqs = c.maxSeqs
			sv, err := New(s, sch, Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := sv.Run(Workload{Arrival: Trace, Rows: c.rows}, Targets{})
			if err != nil {
				t.Fatal(err)
			}
			w := c.want()
			if len(res.Records) != len(w) || res.Completed != len(w) || res.Steps != c.steps {
				t.Fatalf("%d records, %d completed, %d steps; want %d, %d, %d", len(res.Records), res.Completed, res.Steps, len(w), len(w), c.steps)
			}
			same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b)+1e-12 }
			for i, r := range res.Records {
				if !same(r.Start, w[i].start) || !same(r.First, w[i].first) || !same(r.Finish, w[i].finish) || !same(r.TPOT(), w[i].tpot) {
					t.Errorf("request %d: start %v first %v finish %v TPOT %v; want %v %v %v %v", i, r.Start, r.First, r.Finish, r.TPOT(), w[i].start, w[i].first, w[i].finish, w[i].tpot)
				}
			}
		})
	}
}

// TestStaticBatchRefused: a static batch is priced on one device (or a
// tensor-parallel group) without a front end; a front end is refused
// naming the policy, as is a static batch prefilled in chunks.
func TestStaticBatchRefused(t *testing.T) {
	s := setup(t, "qwen3-4b", "w4a16", "jetson-agx-orin-64gb", "gpu", "tensorrt-edge-llm")
	sch := s.Runtime.SchedulerFor(s.Device)
	var se *runtimes.SchedulerError
	if _, err := New(s, sch, Options{FrontEnd: FrontEnd{Request: 0.001}}); !errors.As(err, &se) || se.Knob != "policy" {
		t.Errorf("a front end: %v, want a policy error", err)
	}
	sch.Chunked = true
	if _, err := New(s, sch, Options{}); !errors.As(err, &se) || se.Knob != "chunked_prefill" {
		t.Errorf("chunked: %v, want a chunked_prefill error", err)
	}
}

// TestStaticBatchUnderLoad: 2,000 Poisson requests at 1.2 times what
// batches of 4 sustain. Requests sharing a start are one batch: at most 4
// of them, taken in arrival order, every one arrived by the start, each
// batch starting no sooner than the last row of the one before ends, and
// most batches full (the queue never empties); the series' samples show
// at most 4 running, 4 in most of them.
func TestStaticBatchUnderLoad(t *testing.T) {
	s := setup(t, "qwen3-4b", "w4a16", "jetson-agx-orin-64gb", "gpu", "tensorrt-edge-llm")
	sv, err := New(s, s.Runtime.SchedulerFor(s.Device), Options{})
	if err != nil {
		t.Fatal(err)
	}
	u := func(x string) Dist { d, _ := ParseDist(x); return d }
	// A batch of 4 at ~250 + 175 tokens takes about 0.1 s + 299 steps of
	// ~18 ms ≈ 5.5 s: 0.73 requests/s; 1.2 × that ≈ 0.9/s.
	res, err := sv.Run(Workload{Arrival: Poisson, Rate: 0.9, Requests: 2000, Prompt: u("uniform:100:400"), Output: u("uniform:50:300"), Seed: 7}, Targets{})
	if err != nil {
		t.Fatal(err)
	}
	recs := res.Records
	if res.Completed != len(recs) {
		t.Fatalf("%d of %d completed", res.Completed, len(recs))
	}
	batches, full, prevEnd, i := 0, 0, 0.0, 0
	for i < len(recs) {
		j, end := i, 0.0
		for j < len(recs) && recs[j].Start == recs[i].Start {
			r := &recs[j]
			if r.Arrival > r.Start || r.First < r.Start || r.Finish < r.First || r.First != recs[i].First {
				t.Fatalf("request %d: %+v", j, *r)
			}
			if j > 0 && r.Arrival < recs[j-1].Arrival {
				t.Fatalf("request %d taken out of arrival order", j)
			}
			end = math.Max(end, r.Finish)
			j++
		}
		if n := j - i; n > 4 {
			t.Fatalf("a batch of %d rows at %v", n, recs[i].Start)
		} else if n == 4 {
			full++
		}
		if recs[i].Start < prevEnd {
			t.Fatalf("batch at %v starts before the last ends at %v", recs[i].Start, prevEnd)
		}
		batches++
		prevEnd, i = end, j
	}
	if full < batches*3/4 {
		t.Errorf("%d of %d batches full under overload", full, batches)
	}
	four := 0
	for _, p := range res.Series {
		if p.Running > 4 || p.Waiting < 0 || p.KVUse > 1 {
			t.Fatalf("sample %+v", p)
		}
		if p.Running == 4 {
			four++
		}
	}
	if four < len(res.Series)/2 {
		t.Errorf("4 rows running in %d of %d samples under overload", four, len(res.Series))
	}
}

// TestStaticBatchAgreesWithPredict: a lone batch of B equal requests at
// t = 0 on a static-batch server is what predict --batch B prices under
// the same runtime (sim.Setup.Predict, Inputs.Together): for B ≤ 4 every
// row's first token at predict's TTFT and its last at its E2E; for B = 6
// the first four as predict's batch, the last two after them, the last
// row's first token at predict's LastTTFT and its last at LastE2E; for
// B = 9 batches of 4, 4 and 1 likewise. The same numbers to 1e-9.
func TestStaticBatchAgreesWithPredict(t *testing.T) {
	s := setup(t, "qwen3-4b", "w4a16", "jetson-agx-orin-64gb", "gpu", "tensorrt-edge-llm")
	const P, O = 300, 40
	for _, B := range []int{1, 2, 4, 6, 9} {
		r, err := s.Predict(sim.Workload{Prompt: P, Output: O, Batch: B})
		if err != nil {
			t.Fatal(err)
		}
		sv, err := New(s, s.Runtime.SchedulerFor(s.Device), Options{})
		if err != nil {
			t.Fatal(err)
		}
		rows := make([]Row, B)
		for i := range rows {
			rows[i] = Row{At: 0, Prompt: P, Output: O}
		}
		res, err := sv.Run(Workload{Arrival: Trace, Rows: rows}, Targets{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Completed != B {
			t.Fatalf("batch %d: %d completed", B, res.Completed)
		}
		same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
		first, last := res.Records[0], res.Records[B-1]
		if !same(first.First, r.TTFT) || !same(first.Finish, r.E2E) || !same(first.TPOT(), r.TPOT) {
			t.Errorf("batch %d: serve's first row first %v finish %v TPOT %v; predict's TTFT %v E2E %v TPOT %v", B, first.First, first.Finish, first.TPOT(), r.TTFT, r.E2E, r.TPOT)
		}
		if !same(last.First, r.LastTTFT) || !same(last.Finish, r.LastE2E) {
			t.Errorf("batch %d: serve's last row first %v finish %v; predict's last TTFT %v E2E %v", B, last.First, last.Finish, r.LastTTFT, r.LastE2E)
		}
	}
}
