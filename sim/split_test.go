package sim_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
)

// builtinSetup is a model on a device's engine under a built-in runtime,
// laid out as the runtime lays it out.
func splitSetup(t testing.TB, modelName, weights, device, engine, runtime string) *sim.Setup {
	t.Helper()
	return splitSetupWith(t, modelName, weights, device, engine, runtime, sim.DefaultOptions)
}

// splitSetupWith is splitSetup under options o.
func splitSetupWith(t testing.TB, modelName, weights, device, engine, runtime string, o sim.Options) *sim.Setup {
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
	w, err := model.LookupWeightFormat(weights)
	if err != nil {
		t.Fatal(err)
	}
	kv, _ := model.LookupKVFormat(rt.DefaultKV)
	m, err := model.Build(spec, w, kv, rt.LayoutFor(spec, w.Name))
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
	s, err := sim.NewSetup(m, d, e, rt, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func link(t testing.TB, name string) *hardware.Link {
	t.Helper()
	l, err := hardware.LookupLink(name)
	if err != nil {
		t.Fatal(err)
	}
	return &l
}

// TestOneDeviceSplitIsThePlainPrediction: a "split" over one device — one
// stage holding every layer, the embedding table and the head — is priced
// as the device alone: the stage's slice is the whole model, its fixed
// cost the step's, nothing crosses a link.
func TestOneDeviceSplitIsThePlainPrediction(t *testing.T) {
	for _, c := range []struct{ model, weights, device, runtime string }{
		{"llama-3.1-70b", "bf16", "h100-sxm", "vllm"},
		{"qwen3-30b-a3b", "q4_k_m", "rtx-4090", "llama.cpp"},
		{"gemma-2-9b", "q8_0", "apple-m2-max", "llama.cpp"},
	} {
		s := splitSetup(t, c.model, c.weights, c.device, "", c.runtime)
		sp, err := sim.NewParallel(s, link(t, "nvlink4"), sim.ParallelOptions{TP: 1, PP: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []sim.Workload{sim.DefaultWorkload, {Prompt: 3000, Output: 300, Batch: 4, Depth: 1000, UBatch: 512}} {
			// The memory is the plain answer's where no table stays in
			// host memory.
			if plain, _ := s.Predict(w); !s.Model.Layout.HostEmbedding || s.Device.Unified {
				if split, _ := sp.Predict(w); math.Abs(split.Memory.Total-plain.Memory.Total) > 1e-9*plain.Memory.Total {
					t.Errorf("%s on %s: memory %.0f as one stage, %.0f plain", c.model, c.device, split.Memory.Total, plain.Memory.Total)
				}
			}
			plain, err := s.Predict(w)
			if err != nil {
				t.Fatal(err)
			}
			split, err := sp.Predict(w)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []struct {
				what      string
				got, want float64
			}{
				{"TTFT", split.TTFT, plain.TTFT}, {"TPOT", split.TPOT, plain.TPOT}, {"E2E", split.E2E, plain.E2E},
				{"ideal TTFT", split.TTFTBound, plain.TTFTBound}, {"ideal TPOT", split.TPOTBound, plain.TPOTBound},
				{"ITL last", split.ITLLast, plain.ITLLast},
				// The rows the products' efficiency is read at, which
				// predict's efficiency line reports ("at 0 rows" before).
				{"prefill rows", float64(split.PrefillRows), float64(plain.PrefillRows)},
			} {
				tol := 1e-9
				if s.Model.Layout.HostEmbedding && !s.Device.Unified && !s.Model.Spec.TiedEmbeddings {
					// The table's rows, read in host memory, are a roofline
					// term of their own rather than hidden under the pass's
					// compute: 1 µs in 35 ms, 14 µs in the one-pass ideal
					// of 12,000 tokens.
					tol = 2e-4
				}
				if math.Abs(x.got-x.want) > tol*math.Abs(x.want) {
					t.Errorf("%s on %s (%+v): %s %.12g as one stage, %.12g plain", c.model, c.device, w, x.what, x.got, x.want)
				}
			}
		}
	}
}

// TestOffloadPlacement: -ngl N puts the output layer and the last N-1
// layers on the GPU, as llama.cpp's load_tensors has since
// ggml-org/llama.cpp#18148 (December 2025): i_gpu_start =
// max(n_layer + 1 - ngl, 0), layers i_gpu_start … n_layer on the GPU, the
// output layer counted as layer n_layer (before it, i_gpu_start was
// n_layer - ngl and the output layer went to the GPU only at n_layer + 1).
// For Llama-3.1-70B (80 layers) that is:
//
//	-ngl 0   i_gpu_start 80: nothing on the GPU
//	-ngl 1   i_gpu_start 80: the output layer alone
//	-ngl 2   i_gpu_start 79: layer 79 and the output layer
//	-ngl 46  i_gpu_start 35: layers 35–79 and the output layer
//	-ngl 81  i_gpu_start 0:  everything but the embedding table
//
// The GPU's weights in Q4_K_M (hidden 8192, 8 KV heads of 128, FFN 28672,
// vocab 128256; Q4_K 144 B per 256 values, Q5_K 176, Q6_K 210): a layer
// holds q and o (2 × 8192² = 134,217,728 values, Q4_K: 75,497,472 B), k
// (8,388,608, Q4_K: 4,718,592 B), v (8,388,608: Q5_K on a 70B,
// 5,767,168 B, or Q6_K, 6,881,280 B), gate and up (2 × 234,881,024, Q4_K:
// 264,241,152 B), down (234,881,024: Q4_K 132,120,576 B or Q6_K
// 192,675,840 B) and two f32 norms (65,536 B): 482,410,496 B, or
// 544,079,872 B for the layers llama.cpp's use_more_bits gives Q6_K (i <
// 10, i ≥ 70, (i-10) % 3 == 2). The output layer is 8192 × 128256 in Q6_K
// and its f32 norm: 861,880,320 + 32,768 = 861,913,088 B. Layers 35–79
// hold 22 of the larger (36, 39, …, 69 and 70–79) and 23 of the smaller.
func TestOffloadPlacement(t *testing.T) {
	gpu := splitSetup(t, "llama-3.1-70b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	host := splitSetup(t, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	pcie := link(t, "pcie4-x16")
	const (
		small  = 482410496.0
		large  = 544079872.0
		output = 861913088.0
	)
	for _, c := range []struct {
		ngl     int
		onGPU   string  // the stage on the GPU, "" for none
		onHost  string  // the layers left on the CPU, "" for none
		weights float64 // in GPU memory, B
	}{
		{0, "", "layers 0–79", 0},
		{1, "output layer", "layers 0–79", output},
		{2, "layer 79 and output layer", "layers 0–78", output + large},
		{46, "layers 35–79 and output layer", "layers 0–34", output + 22*large + 23*small},
		{80, "layers 1–79 and output layer", "layer 0", output + 39*large + 40*small},
		{81, "layers 0–79 and output layer", "", output + 40*large + 40*small},
	} {
		sp, err := sim.NewOffload(gpu, host, pcie, sim.OffloadOptions{GPULayers: c.ngl}, sim.DefaultWorkload)
		if err != nil {
			t.Fatal(err)
		}
		var onGPU, onHost []string
		for _, st := range sp.Decode {
			switch {
			case st.Engine == "rtx-4090 gpu":
				onGPU = append(onGPU, st.Name)
			case strings.HasPrefix(st.Name, "layer"):
				onHost = append(onHost, st.Name)
			}
		}
		if got := strings.Join(onGPU, "; "); got != c.onGPU {
			t.Errorf("-ngl %d: %q on the GPU, want %q", c.ngl, got, c.onGPU)
		}
		if got := strings.Join(onHost, "; "); got != c.onHost {
			t.Errorf("-ngl %d: %q on the host's CPU, want %q", c.ngl, got, c.onHost)
		}
		pools := sp.Memory(sim.DefaultWorkload.Context(), 1, sim.DefaultWorkload.UBatch)
		if got := pools[0].Weights; math.Abs(got-c.weights) > 1e-9*c.weights+1 {
			t.Errorf("-ngl %d: %.0f B of weights on the GPU, want %.0f", c.ngl, got, c.weights)
		}
	}
}

// TestOffload70BOn4090: Llama-3.1-70B in Q4_K_M (39.6 GiB) does not fit
// an RTX 4090's 24 GiB. llama.cpp's --fit keeps 1024 MiB free and fills
// the GPU back to front, the output layer first (-ngl N: the output layer
// and the last N-1 layers; TestOffloadPlacement has the bytes): at -ngl 46
// the GPU holds the output layer and layers 35–79, 22.28 GiB of weights,
// their KV cache, 322.5 MiB of compute buffer and 256 MiB of runtime,
// 22.96 GiB of the 23.0 GiB --fit allows; -ngl 47 adds layer 34 and makes
// 23.41. The other 35 layers stream from two channels of DDR5 on the CPU,
// so decode runs at a few tokens per second, each token reading ~18 GB
// from host memory at 0.6 × 89.6 GB/s ≈ 0.33 s. Every -ngl from 0 to 81 is
// a valid placement and the time falls as layers move to the GPU.
func TestOffload70BOn4090(t *testing.T) {
	gpu := splitSetup(t, "llama-3.1-70b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	host := splitSetup(t, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	pcie := link(t, "pcie4-x16")
	w := sim.DefaultWorkload
	sp, err := sim.NewOffload(gpu, host, pcie, sim.OffloadOptions{GPULayers: sim.AutoLayers}, w)
	if err != nil || sp == nil {
		t.Fatalf("no offload: %v", err)
	}
	if sp.GPULayers != 46 {
		t.Errorf("--fit put %d of 81 layers on the GPU, want 46", sp.GPULayers)
	}
	r, err := sp.Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Memory.Fits {
		t.Errorf("the fitted placement does not fit: %+v", r.Split.Pools)
	}
	gpuPool := r.Split.Pools[0]
	if gpuPool.Total > gpuPool.Usable-sim.FitMargin {
		t.Errorf("GPU holds %.2f GiB of %.2f usable, less than --fit's 1 GiB margin free", gpuPool.Total/(1<<30), gpuPool.Usable/(1<<30))
	}
	if tps := r.DecodeTokensPerS; tps < 1.5 || tps > 5 {
		t.Errorf("decode at %.2f tokens/s, want a few", tps)
	}
	prev := math.Inf(1)
	for n := 0; n <= 81; n++ {
		sp, err := sim.NewOffload(gpu, host, pcie, sim.OffloadOptions{GPULayers: n}, w)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sp.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		if r.TPOT > prev*(1+1e-9) {
			t.Errorf("TPOT rises from %.1f ms to %.1f ms at -ngl %d", 1e3*prev, 1e3*r.TPOT, n)
		}
		prev = r.TPOT
	}
	for _, bad := range []int{-2, -100} {
		_, err := sim.NewOffload(gpu, host, pcie, sim.OffloadOptions{GPULayers: bad}, w)
		var fe *sim.FieldError
		if !errors.As(err, &fe) || fe.Field != "GPULayers" {
			t.Errorf("-ngl %d: %v, want a GPULayers error", bad, err)
		}
	}
}

// TestFitKeepsTheMargin: --fit's placement leaves FitMargin free in the
// pools Predict shows, with the compute buffer of the pass Predict prices
// (llama.cpp's n_ubatch, 512, when the workload gives none), and one more
// layer would not. With the output layer on the GPU its 512 rows of f32
// logits, 512 × 128256 × 4 B = 250.5 MiB, are in the GPU's compute buffer;
// fitted with a one-token pass (the workload's ubatch 0 taken as given)
// the buffer was 0.6 MiB, and at an 8192-token context -ngl 44 passed
// --fit's check at 22.92 GiB while Predict showed 23.24 GiB of the 23.0
// allowed. Llama-3.1-70B Q4_K_M on an RTX 4090: -ngl 46 at 640 tokens
// (TestOffload70BOn4090), -ngl 43 at 8192, whose KV cache is 32 MiB a
// layer (8192 × 2 × 1024 × 2 B).
func TestFitKeepsTheMargin(t *testing.T) {
	gpu := splitSetup(t, "llama-3.1-70b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	host := splitSetup(t, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	pcie := link(t, "pcie4-x16")
	for _, c := range []struct {
		depth, ngl int
	}{{0, 46}, {7552, 43}} {
		w := sim.DefaultWorkload
		w.Depth = c.depth
		sp, err := sim.NewOffload(gpu, host, pcie, sim.OffloadOptions{GPULayers: sim.AutoLayers}, w)
		if err != nil || sp == nil {
			t.Fatalf("depth %d: no offload: %v", c.depth, err)
		}
		if sp.GPULayers != c.ngl {
			t.Errorf("depth %d: --fit placed -ngl %d, want %d", c.depth, sp.GPULayers, c.ngl)
		}
		for _, n := range []int{sp.GPULayers, sp.GPULayers + 1} {
			one, err := sim.NewOffload(gpu, host, pcie, sim.OffloadOptions{GPULayers: n}, w)
			if err != nil {
				t.Fatal(err)
			}
			r, err := one.Predict(w)
			if err != nil {
				t.Fatal(err)
			}
			p := r.Split.Pools[0]
			if within := p.Total <= p.Usable-sim.FitMargin; within != (n == sp.GPULayers) {
				t.Errorf("depth %d, -ngl %d: the GPU holds %.3f GiB of %.3f less the margin (within: %v)", c.depth, n, p.Total/(1<<30), (p.Usable-sim.FitMargin)/(1<<30), within)
			}
		}
	}
}

// TestTensorParallel: Llama-3.1-70B in bf16 (131 GiB) over two H100s:
// each holds half the weights and KV, streams half per step and adds two
// all-reduces per layer over NVLink; one H100 does not hold it.
// --tp 3 does not divide the 64 heads.
func TestTensorParallel(t *testing.T) {
	s := splitSetup(t, "llama-3.1-70b", "bf16", "h100-sxm", "", "vllm")
	nv := link(t, "nvlink4")
	sp, err := sim.NewParallel(s, nv, sim.ParallelOptions{TP: 2, PP: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sp.Predict(sim.DefaultWorkload)
	if err != nil {
		t.Fatal(err)
	}
	one, _ := s.Predict(sim.DefaultWorkload)
	if one.Memory.Fits || !r.Memory.Fits {
		t.Errorf("one H100 fits: %v; two: %v", one.Memory.Fits, r.Memory.Fits)
	}
	if p := r.Split.Pools[0]; math.Abs(p.Weights/(s.Model.WeightBytes/2)-1) > 1e-9 {
		t.Errorf("each device holds %.2f GiB of weights, want half of %.2f", p.Weights/(1<<30), s.Model.WeightBytes/(1<<30))
	}
	// 160 all-reduces of 8192 × 2 B per step: 160 × (2·1/2 × 16384 B /
	// 370 GB/s + 2 × 3 µs) = 160 × 6.04 µs = 0.967 ms.
	want := 160 * (16384.0/370e9 + 2*3e-6)
	if math.Abs(r.Split.CollectiveTPOT/want-1) > 1e-9 {
		t.Errorf("collectives %.4g s per step, want %.4g", r.Split.CollectiveTPOT, want)
	}
	if ratio := r.TPOT / one.TPOT; ratio < 0.45 || ratio > 0.7 {
		t.Errorf("TP 2 TPOT is %.2f of one device's, want a little over half", ratio)
	}
	for _, c := range []struct {
		o     sim.ParallelOptions
		field string
	}{{sim.ParallelOptions{TP: 3, PP: 1}, "TP"}, {sim.ParallelOptions{TP: 1, PP: 81}, "PP"}, {sim.ParallelOptions{TP: 2, PP: 1, EP: true}, "EP"}} {
		_, err := sim.NewParallel(s, nv, c.o)
		var fe *sim.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%+v: %v, want a %s error", c.o, err, c.field)
		}
	}
	zero := *nv
	zero.Bandwidth = 0
	if _, err := sim.NewParallel(s, &zero, sim.ParallelOptions{TP: 2, PP: 1}); err == nil {
		t.Error("a link of 0 B/s was accepted")
	}
}

// BenchmarkOffloadFit: llama.cpp's --fit for Llama-3.1-70B on an RTX 4090
// (a bisection over -ngl, each placement sliced and its memory checked)
// and the prediction of the placement it finds.
func BenchmarkOffloadFit(b *testing.B) {
	gpu := splitSetup(b, "llama-3.1-70b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	host := splitSetup(b, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	pcie := link(b, "pcie4-x16")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sp, err := sim.NewOffload(gpu, host, pcie, sim.OffloadOptions{GPULayers: sim.AutoLayers}, sim.DefaultWorkload)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := sp.Predict(sim.DefaultWorkload); err != nil {
			b.Fatal(err)
		}
	}
}

// distributed-llama over Pi 5s on gigabit Ethernet: each of the 32
// layers exchanges its 4096-wide partial output twice a token, each Pi
// sending its q80 slice (4096 × 34/32 = 4352 B) to every other, one
// latency each: on 2 Pis 64 × (0.25 ms + 4352 B / 117.5 MB/s) =
// 64 × 0.28704 ms = 18.37 ms a token; the root sends the f32 input to the
// worker (4096 × 4 = 16384 B) and gathers half the f32 logits
// (128256 / 2 × 4 = 256512 B): 2 × 0.25 ms + 272896 B / 117.5 MB/s =
// 2.822 ms. On 4 Pis the exchange sends 3 slices: 64 × (0.25 ms + 3 ×
// 4352 / 117.5e6 s) = 23.11 ms. Each Pi streams a quarter of every layer.
// A count that is no power of two, or more machines than KV heads, is
// refused as the runtime refuses it.
func TestNetworkTensor(t *testing.T) {
	s := splitSetup(t, "llama-3.1-8b", "q4_0", "raspberry-pi-5-8gb", "cpu", "distributed-llama")
	w := sim.Workload{Prompt: 8, Output: 91, Batch: 1}
	for _, c := range []struct {
		n                    int
		collective, transfer float64
	}{
		{2, 64 * (0.25e-3 + 4352/117.5e6), 2*0.25e-3 + (16384+256512)/117.5e6},
		{4, 64 * (0.25e-3 + 3*4352/117.5e6), 2*0.25e-3 + (3*16384+0.75*4*128256)/117.5e6},
	} {
		sp, err := sim.NewNetworkTensor(s, link(t, "1gbe"), c.n)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sp.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Split.CollectiveTPOT; math.Abs(got/c.collective-1) > 1e-9 {
			t.Errorf("%d Pis: exchanges %.6g s a token, want %.6g", c.n, got, c.collective)
		}
		if got := r.Split.TransferTPOT; math.Abs(got/c.transfer-1) > 1e-9 {
			t.Errorf("%d Pis: input and logits %.6g s a token, want %.6g", c.n, got, c.transfer)
		}
		if got, want := r.Split.Pools[0].Weights, s.Model.WeightBytes/float64(c.n); math.Abs(got/want-1) > 0.01 {
			t.Errorf("%d Pis: %.4g B of weights on each, want about 1/%d of %.4g", c.n, got, c.n, s.Model.WeightBytes)
		}
		if r.Split.Kind != sim.Network || r.Split.TP != c.n {
			t.Errorf("%d Pis: kind %s, TP %d", c.n, r.Split.Kind, r.Split.TP)
		}
	}
	for _, n := range []int{3, 16} {
		var fe *sim.FieldError
		if _, err := sim.NewNetworkTensor(s, link(t, "1gbe"), n); !errors.As(err, &fe) || fe.Field != "Devices" {
			t.Errorf("%d Pis: err %v, want a Devices field error", n, err)
		}
	}
	// llama.cpp does not split layers over machines: RPC gives each a run.
	ll := splitSetup(t, "llama-3.1-8b", "q4_0", "raspberry-pi-5-8gb", "cpu", "llama.cpp")
	if _, err := sim.NewNetworkTensor(ll, link(t, "1gbe"), 2); err == nil {
		t.Error("llama.cpp split every layer over machines")
	}
}

// TestOffloadIdealNamesTheLink: Llama-3.1-70B Q4_K_M on an RTX 4090 at
// -ngl 46 (TestOffload70BOn4090's --fit) keeps layers 0–34 in host memory:
// 18 of them with Q6_K ffn_down and attn_v (544,079,872 B), 17 without
// (482,410,496 B; TestOffloadPlacement), 17,994,416,128 B = 18.0 GB. A
// 512-token prefill pass runs them on the GPU, their weights crossing
// PCIe 4.0 x16 at its 31.5 GB/s datasheet rate in the ideal: at least
// 18.0 / 31.5 = 571 ms of the ~0.64 s ideal TTFT, while the GPU's
// own layers (22.3 GiB at 1.008 TB/s, 24 ms; ~41 TFLOP at 661 TOP/s,
// ~63 ms) take far less. So the ideal's largest part is the link, not the
// GPU's peaks. Decode runs layers 0–34 on the host's CPU, reading their
// 18.0 GB a step from two channels of DDR5-5600 at 89.6 GB/s: 201 ms of
// the ~226 ms ideal step.
func TestOffloadIdealNamesTheLink(t *testing.T) {
	gpu := splitSetup(t, "llama-3.1-70b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	host := splitSetup(t, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	pcie := link(t, "pcie4-x16")
	w := sim.DefaultWorkload
	sp, err := sim.NewOffload(gpu, host, pcie, sim.OffloadOptions{GPULayers: 46}, w)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sp.Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	const weights float64 = 18*544079872 + 17*482410496 // layers 0–34's weights, B
	pre := r.Split.IdealPrefill
	switch {
	case pre.Where != "pcie4-x16" || !pre.Link || pre.Bound != sim.MemoryBound:
		t.Errorf("ideal TTFT's largest part is %+v, want the pcie4-x16 link", pre)
	case pre.Rate != pcie.Bandwidth:
		t.Errorf("link at %.4g B/s in the ideal, want its datasheet %.4g", pre.Rate, pcie.Bandwidth)
	case pre.Amount < weights || pre.Time < weights/pcie.Bandwidth:
		t.Errorf("%.3g B over the link in %.3g s, want at least layers 0–34's %.3g B, %.3g s", pre.Amount, pre.Time, weights, weights/pcie.Bandwidth)
	case math.Abs(pre.Amount/pre.Rate/pre.Time-1) > 1e-6:
		t.Errorf("%.4g B at %.4g B/s is %.4g s, not the part's %.4g s", pre.Amount, pre.Rate, pre.Amount/pre.Rate, pre.Time)
	case pre.Time > r.TTFTBound || pre.Time < r.TTFTBound/2:
		t.Errorf("the link takes %.3g s of the %.3g s ideal TTFT, want most of it", pre.Time, r.TTFTBound)
	}
	dec := r.Split.IdealDecode
	switch {
	case dec.Where != "desktop-ddr5 cpu" || dec.Link || dec.Bound != sim.MemoryBound || dec.Rate != 89.6e9:
		t.Errorf("ideal TPOT's largest part is %+v, want desktop-ddr5 cpu's memory at 89.6 GB/s", dec)
	case dec.Amount/float64(r.Decode.Steps) < weights:
		t.Errorf("%.3g B a step from host memory, want at least layers 0–34's %.3g B", dec.Amount/float64(r.Decode.Steps), weights)
	case dec.Time > r.Decode.IdealTime || dec.Time < r.Decode.IdealTime/2:
		t.Errorf("host memory takes %.3g s of the %.3g s ideal decode, want most of it", dec.Time, r.Decode.IdealTime)
	}
}

// TestOffloadPrefillBytesAreCounts: the bytes an offloaded prefill moves
// are counts, not the link's rate times a time. At -ngl 30 the host's
// layers run on the GPU, their weights and cache crossing the link while
// their activations stay in the GPU's memory; the ideal memory time is
// (weights + cache) / link + activations / the GPU's bandwidth, so
// pricing bytes as that time × the link's rate grew them with the link
// (1e30 GB/s gave 1.19e21 PB, when the cache was read in host memory). A
// link ten times faster moves the same bytes.
func TestOffloadPrefillBytesAreCounts(t *testing.T) {
	gpu := splitSetup(t, "llama-3.1-70b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	host := splitSetup(t, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	w := sim.DefaultWorkload
	w.Prompt = 4096
	bytes := func(l *hardware.Link) float64 {
		sp, err := sim.NewOffload(gpu, host, l, sim.OffloadOptions{GPULayers: 30}, w)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sp.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		return r.Prefill.Bytes
	}
	pcie := link(t, "pcie4-x16")
	fast := *pcie
	fast.Bandwidth *= 10
	fast.Measured *= 10
	a, b := bytes(pcie), bytes(&fast)
	if !(a > 0) || math.Abs(a-b) > 1e-9*a {
		t.Errorf("prefill bytes %.6g over pcie4-x16, %.6g over a link 10× faster: want the same", a, b)
	}
}

// TestOffloadPrefillByteCounts: the bytes of an offloaded prefill against
// a hand count. Llama-3.1-70B Q4_K_M on an RTX 4090 at -ngl 46
// (TestOffloadPlacement's tensors): layers 0–34 in host memory, run on
// the GPU over pcie4-x16 (a pass of 512 rows, at least 32: ggml's op
// offload takes the products there and its scheduler the layers' other
// operations, attention included), their weights and their KV cache
// crossing the link, their activations staying in the GPU's memory; the
// GPU holds the output layer and layers 35–79; the embedding table stays
// on the CPU. Per token and layer the products move 2 B × (in + out) of
// activations: q 8192+8192, k 8192+1024, v 8192+1024, o 8192+8192, gate
// and up 8192+28672 each, down 28672+8192 = 161,792 values, 323,584 B; a
// token's KV cache is 2 × 8 heads × 128 × 2 B = 4,096 B a layer; the
// head adds 2 B × (8192 + 128,256) = 272,896 B a token of logits (every
// token of the pass, as model.Cost.ActivationBytes counts it); a row of
// the embedding is Q4_K, 8192 × 144/256 = 4,608 B. For P tokens in one
// pass:
//
//	over the link  weights 18 × 544,079,872 + 17 × 482,410,496 = 17,994,416,128
//	               + the cache attention reads, P × 35 × 4,096
//	GPU memory     the host layers' activations P × 35 × 323,584
//	GPU            weights 861,913,088 + 22 × 544,079,872 + 23 × 482,410,496 = 23,927,111,680
//	               + P × (45 × (323,584 + 4,096) + 272,896)
//	CPU            embedding rows P × 4,608
//
// P = 512: 17,994,416,128 + 73,400,320 = 18,067,816,448 over the link,
// plus the new K and V rows each host layer sends down to the CPU, which
// writes them into its cache: f32, 2 × 1024 × 4 = 8,192 B a token and
// layer, 512 × 35 × 8,192 = 146,800,640 (the hops: 70 a pass, two a host
// layer, of 4,096 B a token each), so the ideal's link part is
// 18,214,617,088 B at 31.5 GB/s; at the link's measured 25 GB/s and 43 µs
// a transfer the hops take 70 × 43 µs + 146,800,640 / 25e9 = 8.882 ms.
// In all 5,798,625,280 B of activations in the GPU's memory,
// 31,616,581,632 on the GPU, 2,359,296 on the CPU: 55,485,382,656 B (the
// same bytes as when the activations were priced over the link and the
// cache in host memory, before this count: only where they are read
// moved). P = 4096 runs eight passes of 512, whose ideal is one pass of
// 4096 (as a single device's): the counts above at P = 4096,
// 150,432,366,592 B, 19,756,023,808 B over the link in the ideal, and
// the hops 8 × 70 × 43 µs + 4096 × 35 × 8,192 / 25e9 = 71.06 ms.
func TestOffloadPrefillByteCounts(t *testing.T) {
	gpu := splitSetup(t, "llama-3.1-70b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	host := splitSetup(t, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	pcie := link(t, "pcie4-x16")
	const (
		hostWeights = 18*544079872 + 17*482410496
		gpuWeights  = 861913088 + 22*544079872 + 23*482410496
		act, kv     = 323584, 4096 // B a token and layer
		head, row   = 272896, 4608 // B a token
		rows        = 2 * 1024 * 4 // B a token and host layer: its K and V rows, f32
	)
	for _, P := range []float64{512, 4096} {
		over := hostWeights + P*35*kv
		want := over + P*35*act + gpuWeights + P*(45*(act+kv)+head) + P*row
		w := sim.DefaultWorkload
		w.Prompt = int(P)
		sp, err := sim.NewOffload(gpu, host, pcie, sim.OffloadOptions{GPULayers: 46}, w)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sp.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Prefill.Bytes; math.Abs(got-want) > 1e-9*want {
			t.Errorf("P = %.0f: prefill moves %.0f B, want %.0f", P, got, want)
		}
		pre := r.Split.IdealPrefill
		if link := over + P*35*rows; !pre.Link || math.Abs(pre.Amount-link) > 1e-9*link || math.Abs(pre.Time-link/pcie.Bandwidth) > 1e-9*pre.Time {
			t.Errorf("P = %.0f: ideal part %+v, want %.0f B over pcie4-x16 in %.4g s", P, pre, link, link/pcie.Bandwidth)
		}
		passes := math.Ceil(P / 512)
		if hops := passes*70*pcie.Latency + P*35*rows/pcie.Rate(); math.Abs(r.Split.TransferTTFT-hops) > 1e-9*hops {
			t.Errorf("P = %.0f: the hops take %.6g s, want %.6g", P, r.Split.TransferTTFT, hops)
		}
		for _, v := range []float64{r.TTFT, r.TTFTBound, r.Prefill.Bytes, r.Prefill.FLOPs, r.Prefill.Intensity, pre.Time} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("P = %.0f: a figure is %v", P, v)
			}
		}
	}
}

// TestOffloadPrefillRunsOnTheGPU: an op-offloaded prefill runs the host
// layers on the GPU at the GPU's rates, attention included (ggml's
// scheduler assigns a layer's operations between its offloaded products
// to the GPU; only the cache writes run on the CPU), so over a link that
// moves nothing in time it costs what the model alone on the GPU costs.
// Llama-3.1-8B Q4_K_M on an RTX 4090 at -ngl 17: layers 0–15 in host
// memory, a 4096-token prompt in eight passes of 512 whose attention
// reads up to 4096 tokens of cache. Over a link of 1e18 B/s without
// latency the time of the split is the device's within 0.2 % (1.00045:
// the embedding rows the CPU reads; a pass pays the per-layer overhead of
// every layer on the GPU in either case). Priced with the host layers'
// attention on the CPU, as before this test, the split took 30.5 times
// the device's time.
func TestOffloadPrefillRunsOnTheGPU(t *testing.T) {
	gpu := splitSetup(t, "llama-3.1-8b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	host := splitSetup(t, "llama-3.1-8b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	fast := &hardware.Link{Name: "instant", Kind: hardware.Custom, Bandwidth: 1e18}
	w := sim.DefaultWorkload
	w.Prompt, w.Output = 4096, 1
	alone, err := gpu.Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sim.NewOffload(gpu, host, fast, sim.OffloadOptions{GPULayers: 17}, w)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sp.Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	if ratio := r.TTFT / alone.TTFT; math.Abs(ratio-1) > 0.002 {
		t.Errorf("TTFT %.4g s over an instant link at -ngl 17, %.4g s on the GPU alone: ratio %.4f, want 1 within 0.2 %%", r.TTFT, alone.TTFT, ratio)
	}
}

// TestPipelineHopsOnTheirOwnLinks: a pipeline whose stages fill more than
// one group of an NVLink prices each stage boundary on its own link, the
// hops one after another in a step. Four RTX 3090s in pairs on their
// NVLink bridges (llama.cpp, pp 4): boundaries 1→2 and 3→4 stay on a
// bridge, 2→3 leaves a pair for the host's PCIe 4.0 x16. Llama-3.1-8B's
// hop carries 4096 × 2 B = 8,192 B a token; a decode step of one
// sequence:
//
//	bridge hop  3 µs + 8192 / 46.25 GB/s (56.25 × 370/450) = 3.177 µs
//	PCIe hop   43 µs + 8192 / 25 GB/s                     = 43.328 µs
//	step        2 × 3.177 + 43.328                        = 49.68 µs
//
// where every hop on the bridge (as it was priced) is 3 × 3.177 = 9.53
// µs.
func TestPipelineHopsOnTheirOwnLinks(t *testing.T) {
	s := splitSetup(t, "llama-3.1-8b", "q4_k_m", "rtx-3090", "gpu", "llama.cpp")
	bridge, bus := link(t, "nvlink3-bridge-x4"), link(t, "pcie4-x16")
	w := sim.Workload{Prompt: 128, Output: 65, Batch: 1}
	tpot := func(o sim.ParallelOptions) (*sim.Split, *sim.Result) {
		sp, err := sim.NewParallel(s, bridge, o)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sp.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		return sp, r
	}
	sp, apart := tpot(sim.ParallelOptions{TP: 1, PP: 4, Between: bus})
	_, one := tpot(sim.ParallelOptions{TP: 1, PP: 4})
	hop := func(lat, rate float64) float64 { return lat + 8192/rate }
	nv, pcie := hop(3e-6, 56.25e9*370/450), hop(43e-6, 25e9)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"apart", apart.Split.TransferTPOT, 2*nv + pcie},
		{"one bridge", one.Split.TransferTPOT, 3 * nv},
		{"TPOT moves by the PCIe hop", apart.TPOT - one.TPOT, pcie - nv},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s: %.4g µs, want %.4g", c.name, c.got*1e6, c.want*1e6)
		}
	}
	if sp.GroupStages != 2 || apart.Split.Between != "pcie4-x16" || apart.Split.BetweenHops != 1 {
		t.Errorf("groups of %d stages, %d hops over %q; want 2, 1 over pcie4-x16", sp.GroupStages, apart.Split.BetweenHops, apart.Split.Between)
	}
	// Stages of tp 2 fill a pair each: the one boundary leaves it.
	v := splitSetup(t, "llama-3.1-8b", "awq-int4", "rtx-3090", "gpu", "vllm")
	if sp2, err := sim.NewParallel(v, bridge, sim.ParallelOptions{TP: 2, PP: 2, Between: bus}); err != nil || sp2.GroupStages != 1 {
		t.Errorf("tp 2 × pp 2: %v, %+v; want groups of 1 stage", err, sp2)
	}
	// A link between groups of a link that joins every device is refused.
	if _, err := sim.NewParallel(s, bus, sim.ParallelOptions{TP: 1, PP: 4, Between: bus}); err == nil {
		t.Error("a link between the groups of PCIe accepted")
	}
}

// TestOffloadUnfusedAttentionRereadsInVRAM: without flash attention
// (--no-flash-attn) a host layer's attention on the GPU reads its copied
// cache once per query head of a KV head (Llama-3.1-70B: 64 / 8 = 8
// times) and writes and reads its scores; the cache crosses the link
// once (ggml copies the view up as a split's input), the re-reads and the
// scores are in the GPU's memory. So the ideal's link part is the fused
// one's, worked in TestOffloadPrefillByteCounts: at -ngl 46 and P = 512,
// 17,994,416,128 (weights) + 512 × 35 × 4,096 (the cache) + 512 × 35 ×
// 8,192 (the K and V rows down) = 18,214,617,088 B; unfused it counted
// the seven re-reads and the scores over the link too.
func TestOffloadUnfusedAttentionRereadsInVRAM(t *testing.T) {
	o := sim.DefaultOptions
	o.NoFlashAttention = true
	pcie := link(t, "pcie4-x16")
	w := sim.DefaultWorkload
	w.Prompt = 512
	const want = 17994416128 + 512*35*4096 + 512*35*8192
	for _, opts := range []sim.Options{sim.DefaultOptions, o} {
		gpu := splitSetupWith(t, "llama-3.1-70b", "q4_k_m", "rtx-4090", "", "llama.cpp", opts)
		host := splitSetupWith(t, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp", opts)
		sp, err := sim.NewOffload(gpu, host, pcie, sim.OffloadOptions{GPULayers: 46}, w)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sp.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		if pre := r.Split.IdealPrefill; !pre.Link || math.Abs(pre.Amount-want) > 1e-9*want {
			t.Errorf("flash attention off %v: the ideal's link part %.0f B, want %d", opts.NoFlashAttention, pre.Amount, want)
		}
	}
}

// TestPipelineDecodeRunsAtItsSlowestStage: with micro-batches in flight,
// a pipeline's decode passes one micro-batch per slowest stage plus its
// own hop, not per stage on average, and a token waits at least a trip
// through every stage and hop. Three stages of Llama 3.1 8B on bridged
// RTX 3090s (pairs on the bridge, the pairs over PCIe 4.0 x16): layers
// 0–9, 10–20 and 21–31 with the head, so the stages differ; the hop
// after stage 1 leaves its pair (over PCIe), the one after stage 0 stays
// on the bridge, stage 2 sends none. A hop of b sequences carries
// b × 8192 B (4096 × 2 B), at 370/450 of the bridge's 56.25 GB/s after
// 3 µs, or at PCIe's 25 GB/s after 43 µs.
//
//	vLLM, batch 6: 3 micro-batches of 2, each stepping on its own:
//	  step = max(trip, 3 × max(t0 + bridge, t1 + pcie, t2))
//	llama.cpp, batch 8 in ubatches of 4: 2 passes of 4 in each step:
//	  step = trip + 1 × max(table, t0 + bridge, t1 + pcie, t2)
//
// trip = Σ stages + bridge + pcie. The stage times are the prediction's
// own (Split.Stages); what is checked is how they combine.
func TestPipelineDecodeRunsAtItsSlowestStage(t *testing.T) {
	bridge, bus := link(t, "nvlink3-bridge-x4"), link(t, "pcie4-x16")
	hop := func(b int) (nv, pcie float64) {
		bytes := float64(b) * 8192
		return 3e-6 + bytes/(56.25e9*370/450), 43e-6 + bytes/25e9
	}
	for _, c := range []struct {
		name, weights, runtime string
		w                      sim.Workload
		micro, per             int
		ubatches               bool
	}{
		{"vllm", "awq-int4", "vllm", sim.Workload{Prompt: 128, Output: 65, Batch: 6}, 3, 2, false},
		{"llama.cpp", "q4_k_m", "llama.cpp", sim.Workload{Prompt: 128, Output: 65, Batch: 8, UBatch: 4}, 2, 4, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := splitSetup(t, "llama-3.1-8b", c.weights, "rtx-3090", "gpu", c.runtime)
			sp, err := sim.NewParallel(s, bridge, sim.ParallelOptions{TP: 1, PP: 3, Between: bus})
			if err != nil {
				t.Fatal(err)
			}
			r, err := sp.Predict(c.w)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			var times []float64
			for _, st := range r.Split.Stages {
				names, times = append(names, st.Name), append(times, st.Decode)
			}
			layers := times[len(times)-3:]
			if got := names[len(names)-3:]; got[0] != "layers 0–9" || got[1] != "layers 10–20" || got[2] != "layers 21–31" {
				t.Fatalf("stages %q, want layers 0–9, 10–20, 21–31", names)
			}
			nv, pcie := hop(c.per)
			trip := nv + pcie
			slowest := 0.0
			for _, v := range times {
				trip += v
				slowest = max(slowest, v)
			}
			slowest = max(slowest, layers[0]+nv, layers[1]+pcie)
			want := max(trip, float64(c.micro)*slowest)
			if c.ubatches {
				want = trip + float64(c.micro-1)*slowest
			}
			if math.Abs(r.TPOT-want) > 1e-9*want {
				t.Errorf("TPOT %.6g ms, want %.6g (trip %.6g, slowest stage and hop %.6g, stages %.6g ms)", r.TPOT*1e3, want*1e3, trip*1e3, slowest*1e3, times)
			}
			if got := r.Split.TransferTPOT; math.Abs(got-(nv+pcie)) > 1e-12 {
				t.Errorf("transfers a step %.4g µs, want one micro-batch's %.4g", got*1e6, (nv+pcie)*1e6)
			}
			if b := r.Split.BubbleTPOT; !(b >= 0 && b < 1) {
				t.Errorf("bubble %g, want a share in [0, 1)", b)
			}
		})
	}
}

// TestPipelinePrefillCountsEachHopOnce: a prompt's passes through a
// pipeline cost as a decode step's ubatches do, each stage busy with its
// layers and its own hop, every hop once in a pass's trip. The three
// stages of TestPipelineDecodeRunsAtItsSlowestStage under llama.cpp, a
// prompt of 4096 tokens in passes of 512 (8 passes, n_batch 2048: two
// fills of 4). A pass's hop carries 512 × 8192 B over the bridge (3 µs,
// 56.25 GB/s × 370/450) after stage 0 and over PCIe (43 µs, 25 GB/s)
// after stage 1. Each pass j of a fill has its stages' own times
//
//	o(j) = (table, t0(j) + bridge, t1(j) + pcie, t2(j))   (t: the layers')
//
// and leaves stage i at e_i(j) = max(e_i−1(j), e_i(j−1)) + o_i(j); a fill
// ends when its last pass leaves the last stage, the next starting
// empty. The layers' times of each pass, at its own depth, are the
// prediction's (PipelinedPrefillPasses; over the passes they add up to
// Split.Stages), the hops worked here. Passes alike at their mean give
// 2 × (trip + 3 × slowest) = 484.051 ms (predict's price until session
// 52; its passes at their own depth 484.292 ms), and adding the hops
// whole 2 × (Σ/8 + 3 × max t) + 8 × (bridge + pcie) = 484.625 ms.
func TestPipelinePrefillCountsEachHopOnce(t *testing.T) {
	s := splitSetup(t, "llama-3.1-8b", "q4_k_m", "rtx-3090", "gpu", "llama.cpp")
	sp, err := sim.NewParallel(s, link(t, "nvlink3-bridge-x4"), sim.ParallelOptions{TP: 1, PP: 3, Between: link(t, "pcie4-x16")})
	if err != nil {
		t.Fatal(err)
	}
	w := sim.Workload{Prompt: 4096, Output: 1, Batch: 1, UBatch: 512}
	r, err := sp.Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	bytes := 512 * 8192.0
	nv, pcie := 3e-6+bytes/(56.25e9*370/450), 43e-6+bytes/25e9
	var names []string
	for _, st := range r.Split.Stages {
		names = append(names, st.Name)
	}
	if got := names[len(names)-3:]; len(names) != 4 || got[0] != "layers 0–9" || got[1] != "layers 10–20" || got[2] != "layers 21–31" {
		t.Fatalf("stages %q, want the host's embedding table and layers 0–9, 10–20, 21–31", names)
	}
	passes := sim.PipelinedPrefillPasses(sp, w)
	if len(passes) != 8 {
		t.Fatalf("%d passes, want 8", len(passes))
	}
	sum := make([]float64, 4)
	want, ready := 0.0, make([]float64, 4)
	for j, o := range passes {
		if j == 4 { // the second fill starts empty
			want += ready[3]
			clear(ready)
		}
		own := []float64{o[0], o[1] + nv, o[2] + pcie, o[3]}
		e := 0.0
		for i, v := range own {
			sum[i] += o[i]
			e = max(e, ready[i]) + v
			ready[i] = e
		}
	}
	want += ready[3]
	for i, st := range r.Split.Stages {
		if math.Abs(sum[i]-st.Prefill) > 1e-9*st.Prefill {
			t.Errorf("stage %s: passes add up to %.6g ms, Split.Stages %.6g", st.Name, sum[i]*1e3, st.Prefill*1e3)
		}
	}
	if math.Abs(r.TTFT-want) > 1e-9*want {
		t.Errorf("TTFT %.6g ms, want %.6g (passes %.6g s)", r.TTFT*1e3, want*1e3, passes)
	}
	if got := r.Split.TransferTTFT; math.Abs(got-8*(nv+pcie)) > 1e-12 {
		t.Errorf("transfers over the prefill %.4g µs, want 8 passes' %.4g", got*1e6, 8*(nv+pcie)*1e6)
	}
}
