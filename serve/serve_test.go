package serve

import (
	"fmt"
	"math"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
)

// setup resolves a model on a device's engine under a built-in runtime.
func setup(t testing.TB, modelName, weights, device, engine, runtime string) *sim.Setup {
	t.Helper()
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := cat.Model(modelName)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cat.Runtime(runtime)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.BuildNamed(spec, weights, rt.DefaultKV, rt.LayoutFor(spec, weights))
	if err != nil {
		t.Fatal(err)
	}
	d, err := cat.Device(device)
	if err != nil {
		t.Fatal(err)
	}
	e, err := d.Engine(engine)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.NewSetup(m, d, e, rt, sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func server(t testing.TB, s *sim.Setup, ubatch int) *Server {
	t.Helper()
	sv, err := New(s, s.Runtime.SchedulerFor(s.Device), Options{UBatch: ubatch})
	if err != nil {
		t.Fatal(err)
	}
	return sv
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// The three worked examples of docs/md: an RK3588 under RKLLM (one
// request at a time), a Jetson under llama.cpp's server (4 slots, steps
// of 2048 tokens in passes of 512) and an H100 under vLLM (continuous
// batching in steps of 8192 tokens).
var examples = []struct {
	name, model, weights, device, engine, runtime string
}{
	{"rkllm", "qwen2.5-1.5b", "w8a8", "rk3588", "npu", "rkllm"},
	{"llama.cpp", "llama-3.2-3b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu", "llama.cpp"},
	{"vllm", "llama-3.1-8b", "bf16", "h100-sxm", "gpu", "vllm"},
}

// TestVanishingRateIsPredict: requests so far apart that none meets
// another are each served alone, so every request's TTFT, TPOT and E2E
// are Predict's for its lengths, with the prefill in the server's chunks
// (its step budget, or the prediction's micro-batch for RKLLM). With a
// front end the engine's part is still Predict's: TTFT and E2E gain the
// front end's light-load time (20 ms + 4 ms + 0.05 ms = 24.05 ms), TPOT
// nothing, and the request waits its 24 ms before the engine. A front
// end that takes requests in batches of 32 takes a lone request alone:
// the same.
func TestVanishingRateIsPredict(t *testing.T) {
	fe := FrontEnd{Latency: 0.020, Request: 0.004, Token: 0.00005}
	batched := fe
	batched.Batch = 32
	for _, c := range examples {
		for _, f := range []FrontEnd{{}, fe, batched} {
			t.Run(fmt.Sprintf("%s front end %v batch %d", c.name, f.On(), f.Batch), func(t *testing.T) {
				vanishing(t, c.model, c.weights, c.device, c.engine, c.runtime, f)
			})
		}
	}
}

func vanishing(t *testing.T, model, weights, device, engine, runtime string, f FrontEnd) {
	s := setup(t, model, weights, device, engine, runtime)
	sv, err := New(s, s.Runtime.SchedulerFor(s.Device), Options{UBatch: 512, FrontEnd: f})
	if err != nil {
		t.Fatal(err)
	}
	vanishingOn(t, sv, f, 1e-4)
}

// vanishingOn checks that server sv serves requests so far apart that
// none meets another, arriving at `rate`, as its Predict prices each
// alone.
func vanishingOn(t *testing.T, sv *Server, f FrontEnd, rate float64) {
	t.Helper()
	light := f.Latency + f.Request + f.Token
	prompt, _ := ParseDist("uniform:100:3000")
	output, _ := ParseDist("uniform:1:200")
	res, err := sv.Run(Workload{Arrival: Poisson, Rate: rate, Requests: 40, Prompt: prompt, Output: output, Seed: 7}, Targets{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed != 40 || res.Preemptions != 0 {
		t.Fatalf("%d completed, %d preemptions", res.Completed, res.Preemptions)
	}
	for i, r := range res.Records {
		if i > 0 && r.Arrival < res.Records[i-1].Finish {
			t.Fatalf("request %d arrived while %d ran: the rate is not vanishing", i, i-1)
		}
		p, err := sv.Predict(sim.Workload{Prompt: int(r.Prompt), Output: int(r.Output), Batch: 1, UBatch: sv.PassTokens})
		if err != nil {
			t.Fatal(err)
		}
		// Times are differences of clock readings near r.Finish: equal
		// to 1e-9 and a few of the clock's last digits.
		same := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*want+1e-15*r.Finish }
		if !same(r.Queue(), f.Latency+f.Request) || !same(r.TTFT(), p.TTFT+light) || !same(r.E2E(), p.E2E+light) || r.Output > 1 && !near(r.TPOT(), p.TPOT, 1e-9) {
			t.Errorf("request %d (%d+%d tokens): TTFT %v TPOT %v E2E %v; predict %v %v %v, front end %v", i, r.Prompt, r.Output, r.TTFT(), r.TPOT(), r.E2E(), p.TTFT, p.TPOT, p.E2E, light)
		}
	}
}

// TestVanishingRateOnATensorParallelGroup: on a tensor-parallel group
// each pass is one device's shard plus the links' all-reduces, so a
// request served alone takes what Split.Predict gives: vLLM's Llama-3.1-70B
// over 4 H100s on NVLink 4 (continuous batching), and distributed-llama's
// Llama-3.1-8B over 4 Raspberry Pi 5s on gigabit Ethernet (one request at a
// time: the closed forms of the lone path). The links are a real share of
// each (a test that dropped them would fail): 4 × 80 all-reduces of 8 KiB
// at 3 µs a step on NVLink, 2 × 32 exchanges a token on Ethernet.
func TestVanishingRateOnATensorParallelGroup(t *testing.T) {
	for _, c := range []struct {
		model, weights, device, engine, runtime, link string
		n                                             int
		rate                                          float64 // requests/s: far apart for the slowest
	}{
		{"llama-3.1-70b", "bf16", "h100-sxm", "gpu", "vllm", "nvlink4", 4, 1e-4},
		{"llama-3.1-8b", "q4_0", "raspberry-pi-5-8gb", "cpu", "distributed-llama", "1gbe", 4, 2e-5},
	} {
		t.Run(c.runtime, func(t *testing.T) {
			s := setup(t, c.model, c.weights, c.device, c.engine, c.runtime)
			link, err := hardware.LookupLink(c.link)
			if err != nil {
				t.Fatal(err)
			}
			var split *sim.Split
			if c.runtime == "vllm" {
				split, err = sim.NewParallel(s.WithMaxSeqs(s.Runtime.SchedulerFor(s.Device).MaxSeqs), &link, sim.ParallelOptions{TP: c.n, PP: 1})
			} else {
				split, err = sim.NewNetworkTensor(s, &link, c.n)
			}
			if err != nil {
				t.Fatal(err)
			}
			sv, err := New(s, s.Runtime.SchedulerFor(s.Device), Options{UBatch: 512, Split: split})
			if err != nil {
				t.Fatal(err)
			}
			p, err := sv.Predict(sim.Workload{Prompt: 1000, Output: 100, Batch: 1, UBatch: 512})
			if err != nil {
				t.Fatal(err)
			}
			if link := p.Split.CollectiveTPOT + p.Split.TransferTPOT; !(link > 0.02*p.TPOT) {
				t.Fatalf("the links take %v of a %v token: too little to test", link, p.TPOT)
			}
			vanishingOn(t, sv, FrontEnd{}, c.rate)
			if !s.Inputs.ContinuousBatching {
				return
			}
			// Each H100 holds a quarter of the weights (141.1 GB / 4 =
			// 35.28 GB) and a quarter of each token's cache (80 layers × 8
			// KV heads × 128 × 2 × 2 B / 4 = 81,920 B) in vLLM's 0.9 of its
			// usable memory; an 8192-token pass's activations and the
			// runtime's own memory take under 1 GiB more.
			free := 0.9*sv.Setup.Device.Usable - 35.28e9
			if got := float64(sv.KVTokens()) * 81920; got > free || got < free-(1<<30) {
				t.Errorf("KV pool %d tokens (%.4g B on each device); want %.4g B less under 1 GiB", sv.KVTokens(), got, free)
			}
			// B equal requests together decode in lockstep: the split's
			// prediction at batch B.
			const B, P, G = 4, 120, 64
			res, err := sv.Run(Workload{Arrival: Closed, Users: B, Requests: B, Prompt: Dist{A: P}, Output: Dist{A: G}}, Targets{})
			if err != nil {
				t.Fatal(err)
			}
			pb, err := sv.Predict(sim.Workload{Prompt: P, Output: G, Batch: B, UBatch: max(sv.PassTokens, B*P)})
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res.Records {
				if !near(r.TTFT(), pb.TTFT, 1e-9) || !near(r.TPOT(), pb.TPOT, 1e-9) || !near(r.E2E(), pb.E2E, 1e-9) {
					t.Errorf("request %d: TTFT %v TPOT %v E2E %v; the split at batch %d %v %v %v", i, r.TTFT(), r.TPOT(), r.E2E(), B, pb.TTFT, pb.TPOT, pb.E2E)
				}
			}
		})
	}
}

// TestClosedBatchIsPredictBatch: B equal requests arriving together whose
// prompts fit one step are prefilled in one pass and decode in lockstep:
// Predict at batch B (a batching runtime), or B requests one after another
// (RKLLM: the last waits B − 1 answers).
func TestClosedBatchIsPredictBatch(t *testing.T) {
	for _, c := range examples {
		for _, B := range []int{1, 3, 4} {
			s := setup(t, c.model, c.weights, c.device, c.engine, c.runtime)
			sv := server(t, s, 2048)
			const P, G = 120, 64 // B·P within one pass of every server
			res, err := sv.Run(Workload{Arrival: Closed, Users: B, Requests: B, Prompt: Dist{A: P}, Output: Dist{A: G}}, Targets{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := s.Predict(sim.Workload{Prompt: P, Output: G, Batch: B, UBatch: max(sv.PassTokens, B*P)})
			if err != nil {
				t.Fatal(err)
			}
			last := res.Records[B-1]
			if !s.Inputs.ContinuousBatching {
				if !near(last.First, p.LastTTFT, 1e-9) || !near(last.Finish, p.LastE2E, 1e-9) {
					t.Errorf("%s B=%d: the last request's TTFT %v E2E %v; predict's last %v %v", c.name, B, last.First, last.Finish, p.LastTTFT, p.LastE2E)
				}
				continue
			}
			for i, r := range res.Records {
				if !near(r.TTFT(), p.TTFT, 1e-9) || !near(r.TPOT(), p.TPOT, 1e-9) || !near(r.E2E(), p.E2E, 1e-9) {
					t.Errorf("%s B=%d request %d: TTFT %v TPOT %v E2E %v; predict --batch %d %v %v %v", c.name, B, i, r.TTFT(), r.TPOT(), r.E2E(), B, p.TTFT, p.TPOT, p.E2E)
				}
			}
		}
	}
}

// TestMemoryShareSizesThePool: vLLM at --gpu-memory-utilization 0.5 on an
// H100 SXM keeps 0.4 of the device's usable memory less for its KV cache
// than at its default 0.9: 0.4 × 79.6 GiB (the profile's usable memory)
// / 131,072 B a token of Llama-3.1-8B's bf16 cache (32 layers × 8 KV
// heads × 128 × 2 × 2 B) ≈ 261,000 tokens, 16,300 blocks of 16; a share
// outside (0, 1] is refused.
func TestMemoryShareSizesThePool(t *testing.T) {
	s := setup(t, "llama-3.1-8b", "bf16", "h100-sxm", "gpu", "vllm")
	sch := s.Runtime.SchedulerFor(s.Device)
	def, err := New(s, sch, Options{})
	if err != nil {
		t.Fatal(err)
	}
	half, err := New(s, sch, Options{MemoryShare: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	want := (0.9 - 0.5) * s.Device.Usable / 131072 / 16
	if got := float64(def.Blocks - half.Blocks); math.Abs(got-want) > 1 {
		t.Errorf("the pool shrinks by %v blocks, want %.0f", got, want)
	}
	if s.Runtime.MemoryShare != 0.9 {
		t.Errorf("vLLM's share %v, the worked figure assumes 0.9", s.Runtime.MemoryShare)
	}
	for _, bad := range []float64{-0.1, 1.01, math.NaN()} {
		if _, err := New(s, sch, Options{MemoryShare: bad}); err == nil {
			t.Errorf("share %v accepted", bad)
		}
	}
}

// TestMaxSeqsMovesGraphs: vLLM captures CUDA graphs for steps of up to
// min(2 × max_num_seqs, 512) tokens, so at --max-seqs 8 a lone 256-token
// prompt of Llama-3.1-8B (32 layers) runs without a graph where at the
// default it replays piecewise ones: its TTFT is Predict's under 8
// sequences, 32 × (339 − 15) µs = 10.368 ms above Predict's default.
func TestMaxSeqsMovesGraphs(t *testing.T) {
	s := setup(t, "llama-3.1-8b", "bf16", "h100-sxm", "gpu", "vllm")
	sch := s.Runtime.SchedulerFor(s.Device)
	sch.MaxSeqs = 8
	sv, err := New(s, sch, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := sv.Setup.Inputs.GraphCapture; got != 16 {
		t.Fatalf("capture %d tokens at 8 sequences, want 16", got)
	}
	prompt, _ := ParseDist("256")
	output, _ := ParseDist("4")
	res, err := sv.Run(Workload{Arrival: Poisson, Rate: 1e-4, Requests: 3, Prompt: prompt, Output: output, Seed: 1}, Targets{})
	if err != nil {
		t.Fatal(err)
	}
	w := sim.Workload{Prompt: 256, Output: 4, Batch: 1, UBatch: sv.PassTokens}
	at8, err := s.WithMaxSeqs(8).Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	def, err := s.Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Records {
		if !near(r.TTFT(), at8.TTFT, 1e-9) {
			t.Errorf("request %d: TTFT %v, predict at 8 sequences %v", i, r.TTFT(), at8.TTFT)
		}
	}
	if d := at8.TTFT - def.TTFT; !near(d, 32*(339e-6-15e-6), 1e-9) {
		t.Errorf("8 sequences add %v s to a 256-token prompt, want 10.368 ms", d)
	}
}

// TestFrontEndBatch: 70 requests sent at once to a front end of 1 ms a
// request (no latency, no token work) that takes up to 32 in together
// reach the engine in three groups, at 32 ms (the first 32: 32 × 1 ms),
// 64 ms (the next 32) and 70 ms (the last 6); one at a time, request i
// reaches it at (i + 1) ms. The group's requests start together.
func TestFrontEndBatch(t *testing.T) {
	s := setup(t, "qwen2.5-0.5b", "bf16", "h100-sxm", "gpu", "vllm")
	for _, c := range []struct {
		batch int
		start func(i int) float64
	}{
		{32, func(i int) float64 { return []float64{0.032, 0.064, 0.070}[i/32] }},
		{1, func(i int) float64 { return float64(i+1) * 0.001 }},
	} {
		sv, err := New(s, s.Runtime.SchedulerFor(s.Device), Options{UBatch: 512, FrontEnd: FrontEnd{Request: 0.001, Batch: c.batch}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := sv.Run(Workload{Arrival: Constant, Rate: MaxRate, Requests: 70, Prompt: Dist{Kind: Fixed, A: 16}, Output: Dist{Kind: Fixed, A: 4}, Seed: 1}, Targets{})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res.Records {
			// The engine admits a request at its first step at or after
			// it reaches it: within one step of 16-token prompts (< 10 ms).
			if want := c.start(i); r.Start < want-1e-9 || r.Start > want+0.010 {
				t.Errorf("batch %d: request %d started at %.4f s, reached the engine at %.4f s", c.batch, i, r.Start, want)
			}
		}
	}
}

// TestAsyncScheduling: request A (64 + 2 tokens) arrives at an idle vLLM
// server and is scheduled at once; B arrives 1 µs later, while A's
// prefill step runs. Scheduled after each step ends, B joins the next
// step (it starts when A's first token comes, A.First). Under async
// scheduling the next step was scheduled when A's prefill step began, so
// B joins the one after: it starts when A's second step ends, which is
// A's finish (its second and last token).
func TestAsyncScheduling(t *testing.T) {
	s := setup(t, "qwen2.5-0.5b", "bf16", "h100-sxm", "gpu", "vllm")
	for _, async := range []bool{false, true} {
		sch := s.Runtime.SchedulerFor(s.Device)
		sch.Async = async
		sv, err := New(s, sch, Options{UBatch: 512})
		if err != nil {
			t.Fatal(err)
		}
		w := Workload{Arrival: Trace, Rows: []Row{{At: 0, Prompt: 64, Output: 2}, {At: 1e-6, Prompt: 64, Output: 2}}, Prompt: Dist{Kind: Fixed, A: 64}, Output: Dist{Kind: Fixed, A: 2}, Seed: 1}
		res, err := sv.Run(w, Targets{})
		if err != nil {
			t.Fatal(err)
		}
		a, b := res.Records[0], res.Records[1]
		want := a.First
		if async {
			want = a.Finish
		}
		if a.Start != 0 || math.Abs(b.Start-want) > 1e-12 || !(a.Finish > a.First) {
			t.Errorf("async %v: A started %v, first token %v, finished %v; B started %v, want %v", async, a.Start, a.First, a.Finish, b.Start, want)
		}
	}
}

// TestHeadroomKeepsMemoryFree: a server keeping share h of its usable
// memory free (plan --headroom) has h of it less for its KV cache. vLLM
// on an H100 SXM with Llama-3.1-8B bf16 (131,072 B a token, blocks of
// 16): 10 % of its 0.9 × 79.6 GiB is 0.1 × 0.9 × usable / 131,072 / 16
// ≈ 3,670 blocks fewer; under --memory-share 0.5, 10 % of 0.5 × usable
// ≈ 2,040 fewer. A share outside [0, 1) is refused.
func TestHeadroomKeepsMemoryFree(t *testing.T) {
	s := setup(t, "llama-3.1-8b", "bf16", "h100-sxm", "gpu", "vllm")
	sch := s.Runtime.SchedulerFor(s.Device)
	for _, c := range []struct {
		share, used float64
	}{{0, 0.9}, {0.5, 0.5}} {
		all, err := New(s, sch, Options{MemoryShare: c.share})
		if err != nil {
			t.Fatal(err)
		}
		kept, err := New(s, sch, Options{MemoryShare: c.share, Headroom: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		want := 0.1 * c.used * s.Device.Usable / 131072 / 16
		if got := float64(all.Blocks - kept.Blocks); math.Abs(got-want) > 1 {
			t.Errorf("share %v: 10%% kept free shrinks the pool by %v blocks, want %.0f", c.share, got, want)
		}
	}
	for _, bad := range []float64{-0.1, 1, math.NaN()} {
		if _, err := New(s, sch, Options{Headroom: bad}); err == nil {
			t.Errorf("headroom %v accepted", bad)
		}
	}
}
