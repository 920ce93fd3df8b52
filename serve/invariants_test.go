package serve

import (
	"fmt"
	"math"
	"testing"

	"github.com/roofline/roofline/runtimes"
)

// heldBlocks recounts the blocks the running requests hold, one by one,
// as the engine's running total must equal between steps: a decode's
// context less its pending token, a prefill's chunks so far, the shared
// prefix once.
func heldBlocks(e *engine) int64 {
	var n int64
	for s := e.head; s >= 0; s = e.slots[s].next {
		l := &e.slots[s]
		if l.decoding && e.sch.OnFull != runtimes.Reserve {
			n += e.pool.decoding(l.base+e.k-1, l.shared)
		} else {
			n += int64(l.blocks)
		}
	}
	if e.sharedHeld {
		n += e.sharedBlocks * e.pages
	}
	return n
}

// decodeSums recounts the decoding sums one request at a time.
func decodeSums(e *engine) ([]float64, int) {
	sums := make([]float64, len(e.windows))
	n := 0
	for s := e.head; s >= 0; s = e.slots[s].next {
		l := &e.slots[s]
		if !l.decoding {
			continue
		}
		n++
		ctx := l.base + e.k
		for j, w := range e.windows {
			if w == 0 {
				sums[j] += float64(ctx)
			} else {
				sums[j] += float64(min(ctx, int64(w)))
			}
		}
	}
	return sums, n
}

// TestServingInvariants runs loads that fill the KV cache under each
// scheduler's rule (vLLM preempting, llama.cpp failing, TensorRT-LLM
// reserving) and checks after every step that the blocks held never
// exceed the pool and equal a recount, and that the decoding sums equal
// a recount; at the end, that every request finished exactly once, in
// order of its own events, and that Little's law holds: the time average
// of requests in the system equals the arrival rate times the mean E2E
// within 2 %.
func TestServingInvariants(t *testing.T) {
	cases := []struct {
		name, model, weights, device, engine, runtime string
		kvTokens                                      int
		rate                                          float64
		prompt, output                                string
		prefix                                        int
		wantPreempt, wantFail                         bool
		fe                                            FrontEnd
	}{
		{"vllm preempts", "llama-3.1-8b", "bf16", "h100-sxm", "gpu", "vllm", 20000, 1, "lognormal:1500:800", "lognormal:300:200", 0, true, false, FrontEnd{}},
		{"vllm prefix cache", "llama-3.1-8b", "bf16", "h100-sxm", "gpu", "vllm", 0, 5, "uniform:600:2000", "uniform:50:400", 512, false, false, FrontEnd{}},
		{"llama.cpp fails when full", "llama-3.2-3b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu", "llama.cpp", 6000, 0.1, "uniform:200:2500", "uniform:100:600", 100, false, true, FrontEnd{}},
		{"tensorrt-llm reserves", "llama-3.1-8b", "bf16", "h100-sxm", "gpu", "tensorrt-llm", 20000, 2, "uniform:200:2000", "uniform:50:600", 0, false, false, FrontEnd{}},
		{"gemma windows", "gemma-2-9b", "bf16", "h100-sxm", "gpu", "vllm", 0, 0.2, "uniform:1000:7000", "uniform:100:2000", 0, false, false, FrontEnd{}},
		// gpt-oss-20b's 12 sliding layers free the blocks their 128-token
		// window leaves, in a pool small enough to preempt: the decodes'
		// pages per step are blocks entered less blocks left.
		{"vllm frees windows", "gpt-oss-20b", "mxfp4", "h100-sxm", "gpu", "vllm", 30000, 4, "uniform:100:3000", "uniform:20:1500", 0, true, false, FrontEnd{}},
		{"vllm frees windows past a prefix", "gpt-oss-20b", "mxfp4", "h100-sxm", "gpu", "vllm", 30000, 4, "uniform:300:3000", "uniform:20:1500", 256, true, false, FrontEnd{}},
		{"rkllm queue", "qwen2.5-1.5b", "w8a8", "rk3588", "npu", "rkllm", 0, 0.03, "uniform:50:400", "uniform:20:150", 0, false, false, FrontEnd{}},
		// A front end busy 5 ms a request and 0.1 ms a token at 90
		// requests/s of 40 tokens on average: 0.45 + 0.36 of its time
		// asked, so its queue holds requests and tokens.
		{"vllm front end", "qwen2.5-0.5b", "bf16", "h100-sxm", "gpu", "vllm", 0, 90, "uniform:100:600", "uniform:20:60", 0, false, false, FrontEnd{Latency: 0.02, Request: 0.005, Token: 0.0001}},
		// The same front end taking up to 32 requests in together.
		{"vllm front end in batches", "qwen2.5-0.5b", "bf16", "h100-sxm", "gpu", "vllm", 0, 90, "uniform:100:600", "uniform:20:60", 0, false, false, FrontEnd{Latency: 0.02, Request: 0.005, Token: 0.0001, Batch: 32}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := setup(t, c.model, c.weights, c.device, c.engine, c.runtime)
			sv, err := New(s, s.Runtime.SchedulerFor(s.Device), Options{UBatch: 512, KVTokens: c.kvTokens, FrontEnd: c.fe})
			if err != nil {
				t.Fatal(err)
			}
			p, _ := ParseDist(c.prompt)
			o, _ := ParseDist(c.output)
			w := Workload{Arrival: Poisson, Rate: c.rate, Requests: 6000, Prompt: p, Output: o, SharedPrefix: c.prefix, Seed: 11}
			src, err := newSource(w, sv.Context)
			if err != nil {
				t.Fatal(err)
			}
			e := sv.newEngine(src, Targets{})
			steps := 0
			e.check = func(e *engine) {
				steps++
				if e.used > e.total || e.used < 0 {
					t.Fatalf("step %d: %d of %d blocks held", steps, e.used, e.total)
				}
				// A drift in the running totals persists: recount every
				// step at first, then every 16th (the race detector makes
				// the recount of hundreds of requests slow).
				if steps > 4096 && steps%16 != 0 {
					return
				}
				if got := heldBlocks(e); got != e.used {
					t.Fatalf("step %d: the running total holds %d blocks, a recount %d", steps, e.used, got)
				}
				sums, n := decodeSums(e)
				if n != e.nDec {
					t.Fatalf("step %d: %d decoding, a recount %d", steps, e.nDec, n)
				}
				for j := range sums {
					if sums[j] != e.sums[j] {
						t.Fatalf("step %d: sums %v, a recount %v", steps, e.sums, sums)
					}
				}
			}
			e.run()
			res := e.result()
			if res.Requests != w.Requests || res.Completed+res.Failed != res.Requests {
				t.Fatalf("%d sent, %d completed, %d failed", res.Requests, res.Completed, res.Failed)
			}
			if e.used != heldBlocks(e) || e.running != 0 || e.inSystem != 0 || e.nDec != 0 {
				t.Errorf("at the end: %d blocks held, %d running, %d in the system, %d decoding", e.used, e.running, e.inSystem, e.nDec)
			}
			for i, r := range res.Records {
				switch {
				case r.Failed && r.Finish < r.Arrival:
					t.Fatalf("request %d failed before it arrived", i)
				case !r.Failed && !(r.Arrival <= r.Start && r.Start < r.First && r.First <= r.Finish && r.Generated == r.Output):
					t.Fatalf("request %d: %+v", i, r)
				}
			}
			if (res.Preemptions > 0) != c.wantPreempt || (res.Failed > 0) != c.wantFail {
				t.Errorf("%d preemptions, %d failed; want preemptions %v, failures %v", res.Preemptions, res.Failed, c.wantPreempt, c.wantFail)
			}
			if res.MaxKVUse > 1 {
				t.Errorf("KV use peaked at %v", res.MaxKVUse)
			}
			// Little's law: L = λ·W with the rate asked and the mean E2E;
			// exactly, the integral of the requests in the system is the sum
			// of their times in it.
			sum := 0.0
			for _, r := range res.Records {
				sum += r.E2E()
			}
			if !near(e.area, sum, 1e-9) {
				t.Errorf("∫ requests in the system dt = %v, Σ E2E = %v", e.area, sum)
			}
			if L, lw := res.MeanInSystem, c.rate*sum/float64(res.Requests); math.Abs(L/lw-1) > 0.02 {
				t.Errorf("mean in system %.4g, rate × mean E2E %.4g (%+.1f %%)", L, lw, 100*(L/lw-1))
			}
			t.Logf("%s", fmt.Sprintf("%d steps, %d preemptions, %d failed, KV peak %.2f, p99 TTFT %.3g s", res.Steps, res.Preemptions, res.Failed, res.MaxKVUse, res.TTFT.P99))
		})
	}
}
