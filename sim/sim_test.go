package sim_test

import (
	"errors"
	"math"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

func setup(t testing.TB, modelName, weights, kv, device string) (*model.Cost, *hardware.Device) {
	t.Helper()
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	s, err := cat.Model(modelName)
	if err != nil {
		t.Fatal(err)
	}
	w, err := model.LookupWeightFormat(weights)
	if err != nil {
		t.Fatal(err)
	}
	k, err := model.LookupKVFormat(kv)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Build(s, w, k, model.Layout{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := cat.Device(device)
	if err != nil {
		t.Fatal(err)
	}
	return m, d
}

func predict(t testing.TB, m *model.Cost, d *hardware.Device, w sim.Workload, engine string) *sim.Result {
	t.Helper()
	r, err := predictWith(m, d, w, engine, sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// legacy is the efficiency of the former one-rule defaults, with a flat
// matrix efficiency: the hand arithmetic below is written against it.
var legacy = hardware.Efficiency{Bandwidth: 0.70, ComputeMax: 0.40, HalfRows: 0, Attention: 0.40,
	StepOverhead: 126e-6, PassOverhead: 126e-6, LayerOverhead: 32e-6}

// testRuntime runs everything everywhere at the legacy efficiency (0.60
// bandwidth on CPUs), with a 256 MiB memory overhead and every window
// honoured.
func testRuntime() *runtimes.Runtime {
	var weights []string
	for _, f := range model.WeightFormats {
		weights = append(weights, f.Name)
	}
	var kv []string
	for _, f := range model.KVFormats {
		kv = append(kv, f.Name)
	}
	cpu := legacy
	cpu.Bandwidth = 0.60
	class := func(e hardware.Efficiency) *runtimes.Class {
		return &runtimes.Class{Efficiency: e, Fitted: true, Basis: "test", Decode: runtimes.Spread{Low: 0.9, High: 1.1}, Prefill: runtimes.Spread{Low: 0.8, High: 1.25}}
	}
	return &runtimes.Runtime{Name: "test", Weights: append(weights, runtimes.GGUF), KV: kv, DefaultWeights: runtimes.Native, DefaultKV: "f16",
		Engines:             []runtimes.Support{{Kind: hardware.GPU}, {Kind: hardware.CPU}, {Kind: hardware.NPU}},
		WindowArchitectures: []string{runtimes.AllArchitectures}, ContinuousBatching: true, MemoryOverhead: 256 << 20, MemoryShare: 1,
		Classes: map[string]*runtimes.Class{"gpu": class(legacy), "npu": class(legacy), "cpu": class(cpu)}}
}

// predictWith prices w on engine (the default for "") under the test runtime.
func predictWith(m *model.Cost, d *hardware.Device, w sim.Workload, engine string, o sim.Options) (*sim.Result, error) {
	s, err := setupOn(m, d, engine, o)
	if err != nil {
		return nil, err
	}
	return s.Predict(w)
}

func setupOn(m *model.Cost, d *hardware.Device, engine string, o sim.Options) (*sim.Setup, error) {
	e, err := d.Engine(engine)
	if err != nil {
		return nil, err
	}
	return sim.NewSetup(m, d, e, testRuntime(), o)
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// Hand-computed cases, arithmetic in the comments.
func TestHandComputed(t *testing.T) {
	t.Run("llama-2-7b q4_0 on apple-m2-ultra, decode memory-bound", func(t *testing.T) {
		m, d := setup(t, "llama-2-7b", "q4_0", "f16", "apple-m2-ultra")
		r := predict(t, m, d, sim.Workload{Prompt: 512, Output: 128, Batch: 1, UBatch: 512}, "")
		// Streamed per step: 32 layers × (4·4096² + 3·4096·11008 = 202,375,168
		// weights × 4.5/8 B = 113,836,032 B) = 3,642,753,024 B; norms 65·4096·4 B
		// = 1,064,960 B; output head q6_k 131,072,000 × 6.5625/8 = 107,520,000 B;
		// one q4_0 embedding row 4096 × 4.5/8 = 2,304 B. Total 3,751,340,288 B.
		const streamed = 3751340288.0
		if got := m.StreamedBytesPerToken(); got != streamed {
			t.Fatalf("streamed = %.0f, want %.0f", got, streamed)
		}
		// Steps attend 513 … 639 keys (127 steps), mean 576: mean KV read
		// 576 × 524,288 B = 301,989,888 B. Ideal TPOT = (3,751,340,288 +
		// 301,989,888) B / 800 GB/s = 5.06666 ms.
		want := (streamed + 576*524288) / 800e9
		if !near(r.TPOTBound, want, 0.001) {
			t.Errorf("tpot_bound = %.6g s, want %.6g s", r.TPOTBound, want)
		}
		if r.Decode.Bound != sim.MemoryBound {
			t.Errorf("decode bound %s, want memory", r.Decode.Bound)
		}
		// Apple GPUs have no int8 peak: q4_0 runs at fp16 (27.2 TFLOP/s).
		if r.Inputs.Precision != "fp16" || r.Inputs.Peak != 27.2e12 {
			t.Errorf("precision %s at %g", r.Inputs.Precision, r.Inputs.Peak)
		}
		// Expected TPOT: memory term at 0.70 × 800 GB/s plus the default
		// 126 µs + 32 × 32 µs = 1.15 ms per step.
		if exp := want/0.7 + 126e-6 + 32*32e-6; !near(r.TPOT, exp, 0.001) {
			t.Errorf("tpot = %.6g s, want %.6g s", r.TPOT, exp)
		}
	})
	t.Run("llama-3.1-8b f16 prefill 4096 on h100-sxm, compute-bound", func(t *testing.T) {
		m, d := setup(t, "llama-3.1-8b", "f16", "f16", "h100-sxm")
		r := predict(t, m, d, sim.Workload{Prompt: 4096, Output: 2, Batch: 1, UBatch: 512}, "")
		// Linear: 2 × 32 × 218,103,808 matrix weights = 13,958,643,712 FLOP per
		// token × 4096 = 57,174,604,644,352; logits of the last token
		// 2·128256·4096 = 1,050,673,152; causal attention 4·32 heads·32
		// layers·128·(4096·4097/2) = 4,399,120,252,928. Total
		// 61,574,775,570,432 FLOP / 989.4 TFLOP/s = 62.234 ms.
		const flops = 61574775570432.0
		if !near(r.Prefill.FLOPs, flops, 1e-9) {
			t.Fatalf("prefill FLOPs %.6g, want %.6g", r.Prefill.FLOPs, flops)
		}
		// Each 512-token pass needs ≥ 7.1 TFLOP (7.2 ms at peak) against
		// 16 GB of weights (4.8 ms at 3.35 TB/s): every pass is compute-bound.
		if !near(r.TTFTBound, flops/989.4e12, 0.001) {
			t.Errorf("ttft_bound = %.6g s, want %.6g s", r.TTFTBound, flops/989.4e12)
		}
		if r.Prefill.Bound != sim.ComputeBound || r.Prefill.Steps != 8 {
			t.Errorf("prefill bound %s in %d passes, want compute in 8", r.Prefill.Bound, r.Prefill.Steps)
		}
		// Expected: compute at 0.40 of peak plus 8 passes × (126 + 32·32) µs.
		if exp := flops/(0.4*989.4e12) + 8*(126e-6+32*32e-6); !near(r.TTFT, exp, 0.001) {
			t.Errorf("ttft = %.6g s, want %.6g s", r.TTFT, exp)
		}
	})
	t.Run("qwen2.5-1.5b w8a8 on the rk3588 npu", func(t *testing.T) {
		m, d := setup(t, "qwen2.5-1.5b", "w8a8", "f16", "rk3588")
		r := predict(t, m, d, sim.Workload{Prompt: 512, Output: 128, Batch: 1, UBatch: 512}, "npu")
		// w8a8: int8 weights + an fp16 scale per output row. Per layer
		// q 1536·1536 + 2·1536, k and v 1536·256 + 2·256 each, o as q,
		// gate and up 1536·8960 + 2·8960 each, down 8960·1536 + 2·1536:
		// 46,838,784 B; biases (1536 + 256 + 256)·2 B = 4,096; norms
		// 2·1536·2 B = 6,144. 28 layers: 1,311,772,672 B. The tied f16 table
		// is read as the head: 151936·1536·2 = 466,747,392 B; final norm
		// 3,072 B. Streamed 1,778,523,136 B per step.
		const streamed = 1778523136.0
		if got := m.StreamedBytesPerToken(); got != streamed {
			t.Fatalf("streamed = %.0f, want %.0f", got, streamed)
		}
		// KV 2·28·2·128·2 B = 28,672 B per token; mean context 576:
		// ideal TPOT = (1,778,523,136 + 576·28,672) / 33.8 GB/s = 53.108 ms.
		want := (streamed + 576*28672) / 33.8e9
		if !near(r.TPOTBound, want, 0.001) {
			t.Errorf("tpot_bound = %.6g, want %.6g", r.TPOTBound, want)
		}
		if r.Inputs.Precision != "int8" || r.Inputs.Peak != 6e12 || r.Decode.Bound != sim.MemoryBound {
			t.Errorf("npu: %s at %g, decode %s", r.Inputs.Precision, r.Inputs.Peak, r.Decode.Bound)
		}
		// Prefill of 512 tokens: ≈ 2·512·1.31e9 FLOP ≈ 1.4 TOP, 0.23 s at
		// the 6 TOP/s peak against 1.8 GB / 33.8 GB/s = 53 ms: compute-bound.
		if r.Prefill.Bound != sim.ComputeBound {
			t.Errorf("prefill bound %s, want compute", r.Prefill.Bound)
		}
	})
}

// loopPredict is the definition the closed form must reproduce: every
// prefill pass and decode step priced one by one, each operation class
// (dense products, routed experts, attention) bounded by its own roofline
// and the classes added, at the efficiency e (the zero efficiency prices
// the ideal bound: all bytes and FLOPs of a pass at 100 % of peak).
func loopPredict(m *model.Cost, d *hardware.Device, w sim.Workload, e hardware.Efficiency, peak float64, ideal bool) (ttft, e2e float64) {
	return loopPredictOrder(m, d, w, e, peak, ideal, false)
}

// loopPredictOrder is loopPredict with the prefill's prompts in lockstep,
// or (inOrder) whole, as many as a pass of UBatch tokens holds, one group
// after another, a prompt longer than the pass alone in passes of UBatch
// tokens.
func loopPredictOrder(m *model.Cost, d *hardware.Device, w sim.Workload, e hardware.Efficiency, peak float64, ideal, inOrder bool) (ttft, e2e float64) {
	bw := d.Bandwidth * e.Bandwidth
	if ideal {
		bw = d.Bandwidth
	}
	B := float64(w.Batch)
	eta := func(rows float64) float64 {
		if rows <= 1 {
			return e.ComputeMax
		}
		return e.Matmul(rows, peak)
	}
	unit := func(mm model.Matmuls, attnBytes, attnFLOPs, ovh float64) float64 {
		if ideal {
			return math.Max((mm.Bytes()+attnBytes)/bw, (mm.FLOPs()+attnFLOPs)/peak)
		}
		t := math.Max(mm.DenseBytes/bw, mm.DenseFLOPs/(peak*eta(mm.Rows))) + math.Max(attnBytes/bw, attnFLOPs/(peak*e.Attention)) + ovh
		if mm.ExpertFLOPs > 0 {
			t += math.Max(mm.ExpertBytes/bw, mm.ExpertFLOPs/(peak*eta(mm.ExpertRows)))
		}
		return t
	}
	// groups are the sequences whose prompts share passes.
	groups := []int{w.Batch}
	u := max(1, w.UBatch/w.Batch)
	switch {
	case ideal:
		u = w.Prompt // the ideal prefill is one pass: no setting takes fewer
	case inOrder:
		g := min(w.Batch, max(1, w.UBatch/w.Prompt))
		groups = nil
		for left := w.Batch; left > 0; left -= g {
			groups = append(groups, min(g, left))
		}
		u = min(w.Prompt, w.UBatch)
	}
	for _, g := range groups {
		G := float64(g)
		for done := 0; done < w.Prompt; done += u {
			n := min(u, w.Prompt-done)
			last := done+n == w.Prompt
			s := w.Depth + done
			logits := 0
			if last {
				logits = g
			}
			mm := m.Matmuls(g*n, logits)
			mm.DenseBytes += m.ActivationBytes(g * n)
			ttft += unit(mm, G*m.KVBytes(s+n), G*m.AttentionPrefillFLOPs(s, n), e.PrefillOverhead(float64(m.Spec.Layers)))
		}
	}
	e2e = ttft
	// A decode step's fixed costs run at the engine's clock, its cost per
	// step at the host CPU's where the device gives both (a Jetson's GPU
	// and Cortex-A78AE: hardware.Efficiency.AtClocks).
	eng, _ := d.Engine("")
	host := 0.0
	if cpu, err := d.Engine("cpu"); err == nil && eng.Kind == hardware.GPU && eng.Clock > 0 && cpu.Clock > 0 {
		host = cpu.Clock / hardware.ReferenceClock
	}
	step := e.AtClocks(eng.ClockRatio(), host).DecodeOverhead(float64(m.Spec.Layers))
	for i := 1; i < w.Output; i++ {
		c := w.Depth + w.Prompt + i
		e2e += unit(m.Matmuls(w.Batch, w.Batch), B*m.KVBytes(c), B*m.AttentionDecodeFLOPs(c), step)
	}
	return ttft, e2e
}

// fitted is an efficiency with a rising matrix efficiency and every cost
// set, for the closed form to follow.
var fitted = hardware.Efficiency{Bandwidth: 0.8, ComputeMax: 0.67, HalfRows: 180, Attention: 0.29, StepOverhead: 52e-6, PassOverhead: 92e-6, LayerOverhead: 87e-6}

func TestClosedFormMatchesLoop(t *testing.T) {
	cases := []struct {
		model, weights, device string
		w                      sim.Workload
	}{
		{"llama-3.1-8b", "q4_k_m", "rtx-4090", sim.Workload{Prompt: 3000, Output: 700, Batch: 1, UBatch: 512}},
		{"llama-3.1-8b", "f16", "h100-sxm", sim.Workload{Prompt: 700, Output: 3000, Batch: 64, Depth: 100, UBatch: 2048}},
		{"gemma-2-2b", "q4_k_m", "jetson-orin-nano-super-8gb", sim.Workload{Prompt: 5000, Output: 4000, Batch: 3, Depth: 1000, UBatch: 512}},
		{"gemma-3-4b", "q4_0", "apple-m4-pro", sim.Workload{Prompt: 2100, Output: 900, Batch: 2, Depth: 333, UBatch: 256}},
		{"gpt-oss-20b", "mxfp4", "h100-sxm", sim.Workload{Prompt: 1000, Output: 1000, Batch: 16, UBatch: 512}},
		{"mistral-7b", "q8_0", "rtx-3090", sim.Workload{Prompt: 4500, Output: 500, Batch: 8, Depth: 3900, UBatch: 1024}},
		{"deepseek-v3", "fp8", "b200", sim.Workload{Prompt: 300, Output: 300, Batch: 256, UBatch: 8192}},
		{"qwen2.5-0.5b", "q8_0", "raspberry-pi-5-8gb", sim.Workload{Prompt: 77, Output: 1, Batch: 1, UBatch: 32}},
	}
	for _, c := range cases {
		m, d := setup(t, c.model, c.weights, "f16", c.device)
		r := predict(t, m, d, c.w, "")
		in := r.Inputs
		for _, e := range []hardware.Efficiency{in.Efficiency, fitted} {
			s, err := setupOn(m, d, "", sim.DefaultOptions)
			if err != nil {
				t.Fatal(err)
			}
			rr, err := s.WithEfficiency(e).Predict(c.w)
			if err != nil {
				t.Fatal(err)
			}
			ttft, e2e := loopPredict(m, d, c.w, e, in.Peak, false)
			if !near(rr.TTFT, ttft, 1e-9) || !near(rr.E2E, e2e, 1e-9) {
				t.Errorf("%s %v: closed form TTFT %.9g E2E %.9g, loop %.9g %.9g", c.model, c.w, rr.TTFT, rr.E2E, ttft, e2e)
			}
		}
		ittft, ie2e := loopPredict(m, d, c.w, hardware.Efficiency{}, in.IdealPeak, true)
		if !near(r.TTFTBound, ittft, 1e-9) || !near(r.E2EBound, ie2e, 1e-9) {
			t.Errorf("%s %v: ideal TTFT %.9g E2E %.9g, loop %.9g %.9g", c.model, c.w, r.TTFTBound, r.E2EBound, ittft, ie2e)
		}
	}
}

func TestProperties(t *testing.T) {
	m, d := setup(t, "llama-3.2-3b", "q4_k_m", "f16", "jetson-orin-nano-super-8gb")
	base := sim.Workload{Prompt: 1000, Output: 200, Batch: 1, UBatch: 512}

	t.Run("TPOT grows with depth", func(t *testing.T) {
		prev := 0.0
		for _, depth := range []int{0, 1000, 4000, 16000} {
			w := base
			w.Depth = depth
			r := predict(t, m, d, w, "")
			if r.TPOT <= prev {
				t.Errorf("depth %d: TPOT %.4g not above %.4g", depth, r.TPOT, prev)
			}
			prev = r.TPOT
		}
	})
	t.Run("ideal never above expected", func(t *testing.T) {
		for _, w := range []sim.Workload{base, {Prompt: 8, Output: 2, Batch: 1, UBatch: 512}, {Prompt: 8000, Output: 1000, Batch: 4, Depth: 500, UBatch: 256}} {
			r := predict(t, m, d, w, "")
			if r.TTFTBound > r.TTFT || r.TPOTBound > r.TPOT || r.E2EBound > r.E2E {
				t.Errorf("%v: ideal above expected: %g/%g %g/%g %g/%g", w, r.TTFTBound, r.TTFT, r.TPOTBound, r.TPOT, r.E2EBound, r.E2E)
			}
		}
	})
	t.Run("doubling bandwidth halves memory-bound time", func(t *testing.T) {
		fast := *d
		fast.Bandwidth *= 2
		r1 := predict(t, m, d, base, "")
		r2 := predict(t, m, &fast, base, "")
		if r1.Decode.Bound != sim.MemoryBound || !near(r2.TPOTBound, r1.TPOTBound/2, 1e-9) {
			t.Errorf("TPOT bound %g → %g with 2× bandwidth", r1.TPOTBound, r2.TPOTBound)
		}
	})
	t.Run("batch raises throughput and per-sequence TPOT", func(t *testing.T) {
		var prevTP, prevTPOT float64
		for _, b := range []int{1, 2, 4, 8} {
			w := base
			w.Batch = b
			r := predict(t, m, d, w, "")
			if r.ThroughputTokensPerS <= prevTP || r.TPOT <= prevTPOT {
				t.Errorf("batch %d: throughput %.4g, TPOT %.4g", b, r.ThroughputTokensPerS, r.TPOT)
			}
			prevTP, prevTPOT = r.ThroughputTokensPerS, r.TPOT
		}
	})
	t.Run("sliding-window KV stops growing", func(t *testing.T) {
		mm, dd := setup(t, "mistral-7b", "q4_k_m", "f16", "rtx-4090")
		r := predict(t, mm, dd, sim.Workload{Prompt: 100, Output: 2000, Batch: 1, Depth: 5000, UBatch: 512}, "")
		// Every Mistral-7B v0.1 layer is windowed at 4096: past it each step
		// reads the same KV, so the first and last ITL are equal.
		if !near(r.ITLFirst, r.ITLLast, 1e-12) {
			t.Errorf("ITL %g → %g past the window", r.ITLFirst, r.ITLLast)
		}
		// Memory would hold any context; the model's own maximum (32768,
		// max_position_embeddings) bounds it.
		if r.Memory.MaxContext != 32768 || r.Memory.ContextBound != sim.BoundByModel {
			t.Errorf("max context %d (%s), want the model's 32768", r.Memory.MaxContext, r.Memory.ContextBound)
		}
	})
	t.Run("MoE streams less than its weights at batch 1", func(t *testing.T) {
		mm, dd := setup(t, "qwen3-30b-a3b", "q4_k_m", "f16", "apple-m4-max")
		r := predict(t, mm, dd, sim.Workload{Prompt: 100, Output: 2, Batch: 1, UBatch: 512}, "")
		if r.Decode.Bytes >= 0.2*mm.WeightBytes {
			t.Errorf("decode step moved %.3g B of %.3g B weights", r.Decode.Bytes, mm.WeightBytes)
		}
	})
	t.Run("short prompts memory-bound, long compute-bound", func(t *testing.T) {
		short := predict(t, m, d, sim.Workload{Prompt: 16, Output: 2, Batch: 1, UBatch: 512}, "")
		long := predict(t, m, d, sim.Workload{Prompt: 4096, Output: 2, Batch: 1, UBatch: 512}, "")
		if short.Prefill.Bound != sim.MemoryBound || long.Prefill.Bound != sim.ComputeBound {
			t.Errorf("prefill bounds: 16 tokens %s, 4096 tokens %s", short.Prefill.Bound, long.Prefill.Bound)
		}
	})
}

func TestMemoryFit(t *testing.T) {
	m, d := setup(t, "llama-3.1-8b", "q4_k_m", "f16", "jetson-orin-nano-8gb")
	r := predict(t, m, d, sim.Workload{Prompt: 512, Output: 128, Batch: 1, UBatch: 512}, "")
	mem := r.Memory
	// Weights 4.58 GiB + KV 640 tokens × 128 KiB = 80 MiB + activations
	// 4 B·512·(128256 + 4096 + 14336) = 286.5 MiB + 256 MiB overhead ≈
	// 5.2 GiB against 8 GiB − 1117 MiB = 6.91 GiB usable: fits.
	if mem.KV != 640*131072 || mem.Activations != 4*512*(128256+4096+14336) || !mem.Fits {
		t.Errorf("memory %+v", mem)
	}
	// The largest context fills the headroom exactly.
	budget := mem.Usable - mem.Weights - mem.Activations - mem.Overhead
	if n := mem.MaxContext; m.KVBytes(n) > budget || m.KVBytes(n+1) <= budget {
		t.Errorf("max context %d does not fill %g B", n, budget)
	}
	big, dd := setup(t, "llama-3.1-70b", "q4_k_m", "f16", "jetson-orin-nano-8gb")
	r2 := predict(t, big, dd, sim.Workload{Prompt: 512, Output: 128, Batch: 1, UBatch: 512}, "")
	if r2.Memory.Fits || len(r2.Warnings) == 0 || r2.Warnings[0].Code != "does-not-fit" {
		t.Errorf("70B on an 8 GB board: fits=%v warnings %v", r2.Memory.Fits, r2.Warnings)
	}
}

func TestErrors(t *testing.T) {
	m, d := setup(t, "llama-3.1-8b", "q4_k_m", "f16", "jetson-orin-nano-8gb")
	bad := []struct {
		w     sim.Workload
		field string
	}{
		{sim.Workload{Prompt: 0, Output: 1, Batch: 1, UBatch: 512}, "Prompt"},
		{sim.Workload{Prompt: 1, Output: 0, Batch: 1, UBatch: 512}, "Output"},
		{sim.Workload{Prompt: 1, Output: 1, Batch: 0, UBatch: 512}, "Batch"},
		{sim.Workload{Prompt: 1, Output: 1, Batch: 1, Depth: -1, UBatch: 512}, "Depth"},
		{sim.Workload{Prompt: 1, Output: 1, Batch: 1, UBatch: -1}, "UBatch"},
		{sim.Workload{Prompt: sim.MaxTokens + 1, Output: 1, Batch: 1, UBatch: 1}, "Prompt"},
	}
	for _, c := range bad {
		_, err := predictWith(m, d, c.w, "", sim.DefaultOptions)
		var fe *sim.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%+v: %v, want a FieldError on %s", c.w, err, c.field)
		}
	}
	// GGUF kernels and bf16 need fp16/bf16/fp32 units, which the int8-only
	// RK3588 NPU lacks; w8a8 runs there.
	_, rk := setup(t, "llama-3.1-8b", "w8a8", "f16", "rk3588")
	for _, w := range []string{"bf16", "q4_k_m"} {
		mm, _ := setup(t, "llama-3.1-8b", w, "f16", "rk3588")
		if _, err := predictWith(mm, rk, sim.DefaultWorkload, "npu", sim.DefaultOptions); err == nil {
			t.Errorf("%s on an int8-only NPU accepted", w)
		}
	}
	for _, eff := range []float64{math.NaN(), -0.5, 1.5, math.Inf(1)} {
		o := sim.DefaultOptions
		o.BandwidthEfficiency = eff
		_, err := predictWith(m, d, sim.DefaultWorkload, "", o)
		var fe *sim.FieldError
		if !errors.As(err, &fe) || fe.Field != "BandwidthEfficiency" {
			t.Errorf("efficiency %v: %v", eff, err)
		}
	}
	if _, err := predictWith(m, d, sim.DefaultWorkload, "tpu", sim.DefaultOptions); err == nil {
		t.Error("unknown engine accepted")
	}
	// Output 1 is allowed with a warning: TPOT is undefined.
	r, err := predictWith(m, d, sim.Workload{Prompt: 10, Output: 1, Batch: 1, UBatch: 512}, "", sim.DefaultOptions)
	if err != nil || !math.IsNaN(r.TPOT) || !hasWarning(r, "no-decode") {
		t.Errorf("output 1: %v %v", err, r)
	}
}

func hasWarning(r *sim.Result, code string) bool {
	for _, w := range r.Warnings {
		if w.Code == code {
			return true
		}
	}
	return false
}

// warningMessage is the message of r's last warning of the code, or "".
func warningMessage(r *sim.Result, code string) string {
	msg := ""
	for _, w := range r.Warnings {
		if w.Code == code {
			msg = w.Message
		}
	}
	return msg
}

func BenchmarkPredict(b *testing.B) {
	for _, out := range []int{128, 4096, 100000} {
		m, d := setup(b, "llama-3.1-8b", "q4_k_m", "f16", "h200")
		w := sim.Workload{Prompt: 4096, Output: out, Batch: 8, UBatch: 512}
		s, err := setupOn(m, d, "", sim.DefaultOptions)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("output="+itoa(out), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := s.Predict(w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func itoa(n int) string {
	s := ""
	for n > 0 {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}
