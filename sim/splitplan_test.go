package sim_test

import (
	"math"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/sim"
)

// BenchmarkOffloadEvaluator: configurations a plan offloads (Llama-3.1-70B
// Q4_K_M on an RTX 4090 beside a DDR5 desktop), each placed by
// llama.cpp's fitting and priced by the split's own sums.
func BenchmarkOffloadEvaluator(b *testing.B) {
	gpu := splitSetup(b, "llama-3.1-70b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	host := splitSetup(b, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	l := link(b, "pcie4-x16")
	contexts := []int{1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072}
	place := func() (func() (*model.Cost, error), *sim.Setup, *hardware.Link, error) {
		return func() (*model.Cost, error) { return gpu.Model, nil }, host, l, nil
	}
	ev := gpu.OffloadEvaluator(place, nil, 512, 128, 0, sim.Targets{TPOT: 1})
	var buf []sim.Config
	b.ResetTimer()
	for range b.N {
		var err error
		buf, err = ev.Contexts(contexts, 1, buf[:0])
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(contexts))/b.Elapsed().Seconds(), "configs/s")
}

// TestSplitEvaluatorIsPredict: a planned configuration of a split is
// Split.Predict's answer to the same request (one cost model): its TTFT
// the last request's, its TPOT the last step's ITL, its memory every
// pool's, fitting when every pool holds its part less the headroom.
func TestSplitEvaluatorIsPredict(t *testing.T) {
	pi := splitSetup(t, "llama-3.1-8b", "q4_0", "raspberry-pi-5-8gb", "cpu", "distributed-llama")
	pcpp := splitSetup(t, "llama-3.1-8b", "q4_0", "raspberry-pi-5-8gb", "cpu", "llama.cpp")
	h100 := splitSetup(t, "llama-3.1-70b", "bf16", "h100-sxm", "", "vllm")
	dllama, err := sim.NewNetworkTensor(pi, link(t, "1gbe"), 4)
	if err != nil {
		t.Fatal(err)
	}
	rpc, err := sim.NewNetwork(pcpp, link(t, "1gbe"), 4)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := sim.NewParallel(h100, link(t, "nvlink4"), sim.ParallelOptions{TP: 2, PP: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name                    string
		sp                      *sim.Split
		ctx, batch, prompt, out int
		headroom                float64
	}{
		{"4 × Pi 5, distributed-llama", dllama, 1024, 1, 512, 128, 0},
		{"4 × Pi 5, llama.cpp RPC, batch 3, 10% kept free", rpc, 4096, 3, 500, 200, 0.1},
		{"2 × H100 TP 2, batch 8", tp, 8192, 8, 1000, 100, 0},
		{"2 × H100 TP 2, one output token", tp, 2048, 1, 1000, 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			tg := sim.Targets{TTFT: 2, TPOT: 0.2, Headroom: c.headroom}
			ev := c.sp.Evaluator(c.prompt, c.out, 0, tg, 1, 1, 1, 1)
			got, err := ev.Evaluate(c.ctx, c.batch)
			if err != nil {
				t.Fatal(err)
			}
			w := sim.PlanWorkload(c.ctx, c.batch, c.prompt, c.out, 0)
			if w.Output < 2 { // as the evaluator prices the last step
				w.Output, w.Depth = 2, c.ctx-c.prompt-2
			}
			r, err := c.sp.Predict(w)
			if err != nil {
				t.Fatal(err)
			}
			if got.TTFT != r.LastTTFT || got.TPOT != r.ITLLast || got.Memory != r.Memory.Total {
				t.Errorf("plan TTFT %g TPOT %g memory %g, predict %g %g %g", got.TTFT, got.TPOT, got.Memory, r.LastTTFT, r.ITLLast, r.Memory.Total)
			}
			fits := true
			for _, p := range r.Split.Pools {
				fits = fits && p.Total <= p.Usable*(1-c.headroom)
			}
			if got.Fits != fits {
				t.Errorf("fits %v, pools say %v", got.Fits, fits)
			}
		})
	}
}

// TestOffloadEvaluatorIsNewOffload: a plan's configuration that does not
// fit the GPU is placed as predict's default --gpu-layers places it
// (NewOffload, AutoLayers) and priced on that split; one that fits is the
// plain evaluation. Llama-3.1-70B Q4_K_M (39.6 GiB of weights) on an RTX
// 4090 (22.5 GiB usable) never fits alone; Llama-3.1-8B Q4_K_M (4.6 GiB)
// does at 8k and does not at 128k × 8 sequences (128 KiB of f16 KV a
// token × 2^20 tokens = 128 GiB); gpt-oss-120b (MoE) and Qwen3-30B-A3B
// are placed by the fitting's expert steps. The contexts of a batch are
// evaluated in one call, as a plan does, so that a placement the
// evaluator carries from one to the next is checked against a fresh one.
func TestOffloadEvaluatorIsNewOffload(t *testing.T) {
	for _, c := range []struct {
		model, weights, device string
		contexts               []int
		batch                  int
		offloaded              []bool
	}{
		{"llama-3.1-70b", "q4_k_m", "rtx-4090", []int{2048, 8192, 32768, 131072}, 1, []bool{true, true, true, true}},
		{"llama-3.1-8b", "q4_k_m", "rtx-4090", []int{8192, 131072}, 8, []bool{false, true}},
		{"gpt-oss-120b", "mxfp4_moe", "rtx-4090", []int{4096, 65536, 131072}, 2, []bool{true, true, true}},
		{"qwen3-30b-a3b", "q4_k_m", "rtx-3060", []int{1024, 16384, 40960}, 4, []bool{true, true, true}},
	} {
		gpu := splitSetup(t, c.model, c.weights, c.device, "", "llama.cpp")
		host := splitSetup(t, c.model, c.weights, "desktop-ddr5", "cpu", "llama.cpp")
		l := link(t, "pcie4-x16")
		tg := sim.Targets{TPOT: 0.5}
		place := func() (func() (*model.Cost, error), *sim.Setup, *hardware.Link, error) {
			return func() (*model.Cost, error) { return gpu.Model, nil }, host, l, nil
		}
		got, err := gpu.OffloadEvaluator(place, nil, 512, 128, 0, tg).Contexts(c.contexts, c.batch, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, ctx := range c.contexts {
			g := got[i]
			if g.Offloaded() != c.offloaded[i] {
				t.Fatalf("%s at %d × %d: offloaded %v, want %v", c.model, ctx, c.batch, g.Offloaded(), c.offloaded[i])
			}
			w := sim.PlanWorkload(ctx, c.batch, 512, 128, 0)
			if !g.Offloaded() {
				if plain := gpu.Evaluate(ctx, c.batch, 512, 128, 0, tg); g != plain {
					t.Errorf("%s: %+v, the plain evaluation %+v", c.model, g, plain)
				}
				continue
			}
			sp, err := sim.NewOffload(gpu, host, l, sim.OffloadOptions{GPULayers: sim.AutoLayers}, w)
			if err != nil {
				t.Fatal(err)
			}
			r, err := sp.Predict(w)
			if err != nil {
				t.Fatal(err)
			}
			if n, experts, _ := g.Offload(); n != sp.GPULayers || experts != sp.ExpertLayers || g.TTFT != r.LastTTFT || g.TPOT != r.ITLLast || g.Memory != r.Memory.Total || g.Fits != r.Memory.Fits {
				t.Errorf("%s at %d × %d: plan %+v, TTFT %g, TPOT %g, %g B, fits %v; predict %d, %g, %g, %g B, %v", c.model, ctx, c.batch,
					g, g.TTFT, g.TPOT, g.Memory, g.Fits, sp.GPULayers, r.LastTTFT, r.ITLLast, r.Memory.Total, r.Memory.Fits)
			}
		}
	}
}

// TestSplitBoundsOfOneDevice: a split of one stage on one device is
// judged at that device's own factors (Spread.Bounds), and a split's
// factors lie between its stages' (a weighted mean).
func TestSplitBoundsOfOneDevice(t *testing.T) {
	s := splitSetup(t, "llama-3.1-70b", "bf16", "h100-sxm", "", "vllm")
	one, err := sim.NewParallel(s, link(t, "nvlink4"), sim.ParallelOptions{TP: 1, PP: 1})
	if err != nil {
		t.Fatal(err)
	}
	pLo, pHi, dLo, dHi, err := one.Bounds(sim.DefaultWorkload, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	wpLo, wpHi := s.Spread(true).Bounds(0.8)
	wdLo, wdHi := s.Spread(false).Bounds(0.8)
	for _, x := range [][2]float64{{pLo, wpLo}, {pHi, wpHi}, {dLo, wdLo}, {dHi, wdHi}} {
		if math.Abs(x[0]-x[1]) > 1e-12*x[1] {
			t.Errorf("one device's factors %g, the setup's %g", x[0], x[1])
		}
	}
	// Offloaded: between the GPU's factors and the host CPU's.
	gpu := splitSetup(t, "llama-3.1-70b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	host := splitSetup(t, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	sp, err := sim.NewOffload(gpu, host, link(t, "pcie4-x16"), sim.OffloadOptions{GPULayers: 40}, sim.DefaultWorkload)
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, dHi, err = sp.Bounds(sim.DefaultWorkload, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	_, gHi := gpu.Spread(false).Bounds(0.8)
	_, hHi := host.Spread(false).Bounds(0.8)
	if dHi < math.Min(gHi, hHi) || dHi > math.Max(gHi, hHi) {
		t.Errorf("offloaded decode's slow-end factor %g outside the GPU's %g and the host's %g", dHi, gHi, hHi)
	}
}

// TestSplitContextsArePredict: the one-pass evaluation of a split (a
// batch's stages priced once, moved from context to context) gives every
// configuration Split.Predict's figures for the same request, to the bit:
// TTFT the last request's, TPOT the last step's ITL, the memory every
// pool's. The table covers an offload (Llama-3.1-70B Q4_K_M, 40 layers of
// 81 on an RTX 4090 beside a DDR5 desktop; at 4 sequences × 512 tokens a
// pass runs the host's products on the GPU, at 1 × 16 it does not), a
// MoE offload with its experts in host memory, layers over two GPUs
// (llama.cpp, and vLLM's pipeline with micro-batches), tensor parallel
// (vLLM TP 2 and 4 × 2), four Pi 5 boards (llama.cpp RPC, and
// distributed-llama, whose runtime queues a batch's sequences), with
// histories from none to 100k tokens and a reply of one token.
func TestSplitContextsArePredict(t *testing.T) {
	gpu := splitSetup(t, "llama-3.1-70b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	host := splitSetup(t, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	moeGPU := splitSetup(t, "qwen3-30b-a3b", "q4_k_m", "rtx-3060", "", "llama.cpp")
	moeHost := splitSetup(t, "qwen3-30b-a3b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	l8b := splitSetup(t, "llama-3.1-8b", "q4_k_m", "rtx-3060", "", "llama.cpp")
	h100 := splitSetup(t, "llama-3.1-70b", "bf16", "h100-sxm", "", "vllm")
	pi := splitSetup(t, "llama-3.1-8b", "q4_0", "raspberry-pi-5-8gb", "cpu", "distributed-llama")
	pcpp := splitSetup(t, "llama-3.1-8b", "q4_0", "raspberry-pi-5-8gb", "cpu", "llama.cpp")
	pcie, nv, gbe := link(t, "pcie4-x16"), link(t, "nvlink4"), link(t, "1gbe")
	must := func(sp *sim.Split, err error) *sim.Split {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	cases := []struct {
		name    string
		sp      *sim.Split
		prompt  int
		out     int
		ubatch  int
		batches []int
	}{
		{"offload 40/81", must(sim.NewOffload(gpu, host, pcie, sim.OffloadOptions{GPULayers: 40}, sim.DefaultWorkload)), 512, 128, 0, []int{1, 4}},
		{"offload 40/81, passes of 16", must(sim.NewOffload(gpu, host, pcie, sim.OffloadOptions{GPULayers: 40}, sim.DefaultWorkload)), 512, 64, 16, []int{1}},
		{"MoE offload, experts in host", must(sim.NewOffload(moeGPU, moeHost, pcie, sim.OffloadOptions{GPULayers: 49, CPUMoE: true}, sim.DefaultWorkload)), 1000, 100, 0, []int{1, 3, 8}},
		{"llama.cpp layers over 2 GPUs", must(sim.NewParallel(l8b, pcie, sim.ParallelOptions{TP: 1, PP: 2})), 512, 128, 0, []int{1, 2, 8}},
		{"vLLM TP 2", must(sim.NewParallel(h100, nv, sim.ParallelOptions{TP: 2, PP: 1})), 1000, 100, 0, []int{1, 8, 64}},
		{"vLLM TP 4 × PP 2", must(sim.NewParallel(h100, nv, sim.ParallelOptions{TP: 4, PP: 2})), 2000, 200, 0, []int{1, 5, 32}},
		{"vLLM TP 2, one output token", must(sim.NewParallel(h100, nv, sim.ParallelOptions{TP: 2, PP: 1})), 1000, 1, 0, []int{1, 4}},
		{"4 × Pi 5, llama.cpp RPC", must(sim.NewNetwork(pcpp, gbe, 4)), 500, 200, 0, []int{1, 3}},
		{"4 × Pi 5, distributed-llama (queued)", must(sim.NewNetworkTensor(pi, gbe, 4)), 512, 128, 0, []int{1, 2, 5}},
	}
	contexts := []int{1100, 2048, 4096, 8192, 16384, 32768, 65536, 100000, 131072}
	checked := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg := sim.Targets{TTFT: 2, TPOT: 0.2, Headroom: 0.1}
			ev := c.sp.Evaluator(c.prompt, c.out, c.ubatch, tg, 0.9, 1.2, 0.8, 1.3)
			for _, b := range c.batches {
				got, err := ev.Contexts(contexts, b, nil)
				if err != nil {
					t.Fatal(err)
				}
				for i, ctx := range contexts {
					g := got[i]
					w := sim.PlanWorkload(ctx, b, c.prompt, c.out, c.ubatch)
					if w.Output < 2 { // as the evaluator prices the last step
						w.Output, w.Depth = 2, ctx-c.prompt-2
					}
					r, err := c.sp.Predict(w)
					if err != nil {
						t.Fatal(err)
					}
					fits := true
					for _, p := range r.Split.Pools {
						fits = fits && p.Total <= p.Usable*(1-tg.Headroom)
					}
					if g.TTFT != r.LastTTFT || g.TPOT != r.ITLLast || g.Memory != r.Memory.Total || g.Fits != fits {
						t.Errorf("%d × %d: one pass TTFT %v TPOT %v memory %v fits %v; predict %v %v %v %v",
							ctx, b, g.TTFT, g.TPOT, g.Memory, g.Fits, r.LastTTFT, r.ITLLast, r.Memory.Total, fits)
					}
					if one, err := ev.Evaluate(ctx, b); err != nil || one != g {
						t.Errorf("%d × %d: one pass %+v, alone %+v (%v)", ctx, b, g, one, err)
					}
					checked++
				}
			}
		})
	}
	if checked < 150 {
		t.Errorf("checked %d configurations, want every one of the table's", checked)
	}
}

// BenchmarkSplitEvaluator: a plan's configurations of a split, a batch's
// contexts in one call (4 × Pi 5 under distributed-llama, 2 × H100 TP 2
// under vLLM), 16 contexts × 8 batches as the whole-catalog plan.
func BenchmarkSplitEvaluator(b *testing.B) {
	pi := splitSetup(b, "llama-3.1-8b", "q4_0", "raspberry-pi-5-8gb", "cpu", "distributed-llama")
	h100 := splitSetup(b, "llama-3.1-70b", "bf16", "h100-sxm", "", "vllm")
	dllama, err := sim.NewNetworkTensor(pi, link(b, "1gbe"), 4)
	if err != nil {
		b.Fatal(err)
	}
	tp, err := sim.NewParallel(h100, link(b, "nvlink4"), sim.ParallelOptions{TP: 2, PP: 1})
	if err != nil {
		b.Fatal(err)
	}
	contexts := []int{1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536, 98304, 131072, 163840, 196608}
	batches := []int{1, 2, 4, 8, 16, 32, 64, 128}
	for _, c := range []struct {
		name string
		sp   *sim.Split
	}{{"pi5x4", dllama}, {"h100-tp2", tp}} {
		b.Run(c.name, func(b *testing.B) {
			ev := c.sp.Evaluator(512, 128, 0, sim.Targets{TTFT: 1, TPOT: 0.2}, 1, 1, 1, 1)
			var buf []sim.Config
			b.ResetTimer()
			for range b.N {
				for _, batch := range batches {
					if buf, err = ev.Contexts(contexts, batch, buf[:0]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N*len(contexts)*len(batches))/b.Elapsed().Seconds(), "configs/s")
		})
	}
}
