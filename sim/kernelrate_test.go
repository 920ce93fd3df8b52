package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// llama.cpp's int8 products on a core without SDOT run at 2/3 of the
// core's int8 peak, on the expected side only: the Cortex-A57's peak
// counts one SMULL per cycle (16 OP/clk, 2 cycles per 16 multiply-adds),
// while ggml_vdotq_s32's fallback issues SMULL, SMULL2, 2 SADDLP and 2 ADD
// on the two ASIMD pipes: 6 / 2 = 3 cycles, 2/3 of the peak (10.7 OP/clk,
// 4 × 1.43 GHz × 10.67 = 61.0 GOP/s). Cores with SDOT, and a GPU, keep
// their peak.
func TestNoDotKernelRate(t *testing.T) {
	const smullCycles, uops, pipes = 2.0, 6.0, 2.0
	want := smullCycles / (uops / pipes) // 0.6667
	cases := []struct {
		device, engine string
		factor         float64
	}{
		{"jetson-nano-4gb", "cpu", want},
		{"jetson-nano-4gb", "gpu", 1},    // fp16 products: no int8 dot needed
		{"raspberry-pi-5-8gb", "cpu", 1}, // Cortex-A76: SDOT
		{"rk3588", "cpu", 1},             // Cortex-A76: SDOT
	}
	for _, c := range cases {
		s := builtinEngineSetup(t, "tinyllama-1.1b", c.device, c.engine, "llama.cpp", "q4_k_m", nil)
		if got := s.Inputs.KernelFactor; math.Abs(got-c.factor) > 1e-4 {
			t.Errorf("%s %s: kernel factor %.4f, want %.4f", c.device, c.engine, got, c.factor)
		}
	}

	// The factor slows the products, not the bound: with the fixed costs
	// at zero, a compute-bound decode step and prefill of the Nano's CPU
	// take 1.5× (1 / 0.6667) as long as at the whole peak, less what
	// attention and the memory-bound parts add, and the ideal stays.
	with := builtinEngineSetup(t, "tinyllama-1.1b", "jetson-nano-4gb", "cpu", "llama.cpp", "q4_k_m", nil)
	without := builtinEngineSetup(t, "tinyllama-1.1b", "jetson-nano-4gb", "cpu", "llama.cpp", "q4_k_m", func(k *hardware.Engine) { k.NoInt8Dot = false })
	if f := without.Inputs.KernelFactor; f != 1 {
		t.Fatalf("an engine with int8 dot products: factor %g", f)
	}
	eff := with.Inputs.Efficiency
	eff.StepOverhead, eff.PassOverhead, eff.LayerOverhead = 0, 0, 0
	w := sim.Workload{Prompt: 512, Output: 32, Batch: 1}
	a, err := with.WithEfficiency(eff).Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	b, err := without.WithEfficiency(eff).Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		name     string
		got      float64
		low, top float64
	}{
		{"TTFT", a.TTFT / b.TTFT, 1.4, 1.5 + 1e-9},
		{"TPOT", a.TPOT / b.TPOT, 1.4, 1.5 + 1e-9},
		{"ideal TTFT", a.TTFTBound / b.TTFTBound, 1, 1},
		{"ideal TPOT", a.TPOTBound / b.TPOTBound, 1, 1},
	} {
		if r.got < r.low-1e-12 || r.got > r.top+1e-12 {
			t.Errorf("%s with/without the factor = %.4f, want %.2f–%.2f", r.name, r.got, r.low, r.top)
		}
	}
}

// builtinEngineSetup resolves a built-in model on one engine of a built-in device,
// the engine changed by edit (nil: as built in).
func builtinEngineSetup(t *testing.T, modelName, device, engine, runtime, weights string, edit func(*hardware.Engine)) *sim.Setup {
	t.Helper()
	s := chosenSetup(t, builtin(t), modelName, device, runtimes.Request{Runtime: runtime, Weights: weights, Engine: engine, KV: "f16"})
	if edit == nil {
		return s
	}
	e := *s.Engine
	edit(&e)
	s, err := sim.NewSetup(s.Model, s.Device, &e, s.Runtime, sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// llama.cpp repacks Q4_0 and IQ4_NL on a core with int8 dot products into
// GEMM kernels that reach more of the peak than the vec_dot kernel of
// Q4_K its class was fitted on (profiles/runtimes/llama.cpp.toml, [L24]):
// per 32 weights of one row, ggml_gemm_q4_0_4x4_q8_0 issues 207 / 64 =
// 3.23 ASIMD instructions, 1.62 cycles on the A76's two pipes, 64 OP /
// 1.62 = 39.6 OP/clk, against q4_K's 6 instructions, 3 cycles, 21.3 OP/clk:
// 39.6 / 21.3 = 1.855; ggml_gemm_iq4_nl_4x4_q8_0 issues 66 / 16 = 4.13,
// 2.06 cycles, 31.0 OP/clk: 1.455. The A57 has no SDOT and gets no repacked
// kernel: the 2/3 share of every quantized type. Q8_0 and Q4_K_M keep the
// class. Each product is priced by its tensor's type, the whole at the
// work-weighted harmonic mean: TinyLlama's IQ4_NL file keeps attn_v (22 ×
// 2048·256) and two ffn_down (2 × 2048·5632) in q5_k, 34603008 of its
// 968884224 product weights (22 layers of 2·2048² + 2·2048·256 +
// 3·2048·5632); Qwen2.5-0.5B's Q4_K_M runs 503709696 of its 715653120
// FLOP a token in Q5_0 (model.TestProductTypes), whose vec_dot kernel
// takes 7 cycles per 32 weights on the A76's two load/store pipes: 64 / 7
// = 9.14 OP/clk, 0.429 × q4_K's.
func TestRepackedKernelRate(t *testing.T) {
	const peakPerCore = 64.0 // A76 int8 OP/clk: 2 pipes × SDOT's 32 OP
	q4kVecDot := peakPerCore / (6.0 / 2)
	q40 := 2 * 32.0 / (207.0 / 64 / 2)  // 39.6 OP/clk
	iq4nl := 2 * 32.0 / (66.0 / 16 / 2) // 31.0 OP/clk
	const tinyDense, tinyQ5K = 968884224.0, 22*2048*256.0 + 2*2048*5632.0
	const qwenDense, qwenQ50 = 715653120.0, 503709696.0
	q50 := 2 * 32.0 / 7 // 9.14 OP/clk
	cases := []struct {
		model, device, weights string
		factor                 float64
	}{
		{"tinyllama-1.1b", "rk3588", "q4_0", q40 / q4kVecDot},                                                             // 1.855
		{"tinyllama-1.1b", "raspberry-pi-5-8gb", "q4_0", q40 / q4kVecDot},                                                 // 1.855
		{"tinyllama-1.1b", "raspberry-pi-5-8gb", "iq4_nl", tinyDense / ((tinyDense-tinyQ5K)/(iq4nl/q4kVecDot) + tinyQ5K)}, // 1.431
		{"tinyllama-1.1b", "rk3588", "q8_0", 1},
		{"tinyllama-1.1b", "rk3588", "q4_k_m", 1},
		{"tinyllama-1.1b", "jetson-nano-4gb", "q4_0", 2.0 / 3},                                                        // no SDOT, no repack
		{"qwen2.5-0.5b", "raspberry-pi-5-8gb", "q4_k_m", qwenDense / (qwenQ50/(q50/q4kVecDot) + qwenDense - qwenQ50)}, // 0.516
		{"qwen2.5-0.5b", "jetson-nano-4gb", "q4_k_m", 2.0 / 3},                                                        // every type's 2/3
	}
	for _, c := range cases {
		s := builtinEngineSetup(t, c.model, c.device, "cpu", "llama.cpp", c.weights, nil)
		if got := s.Inputs.KernelFactor; math.Abs(got-c.factor) > 5e-4 {
			t.Errorf("%s %s %s: kernel factor %.4f, want %.4f", c.model, c.device, c.weights, got, c.factor)
		}
	}

	// The factor speeds the compute-bound prefill of the A76 boards, up to
	// 1.855× with the fixed costs at zero (less where attention and the
	// memory-bound parts hold it), and leaves the ideal bound alone.
	base := builtinEngineSetup(t, "tinyllama-1.1b", "rk3588", "cpu", "llama.cpp", "q4_0", nil)
	eff := base.Inputs.Efficiency
	eff.StepOverhead, eff.PassOverhead, eff.LayerOverhead = 0, 0, 0
	fast := base.WithEfficiency(eff)
	plain := *base
	plain.Inputs.KernelFactor = 1
	slow := plain.WithEfficiency(eff)
	w := sim.Workload{Prompt: 512, Output: 8, Batch: 1}
	a, err := slow.Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fast.Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	if r := a.TTFT / b.TTFT; r < 1.5 || r > 1.855+1e-9 {
		t.Errorf("TTFT without/with the repacked factor = %.3f, want 1.5–1.855", r)
	}
	if a.TTFTBound != b.TTFTBound {
		t.Errorf("ideal TTFT moved: %g against %g", a.TTFTBound, b.TTFTBound)
	}
}

// A factor below 1 on a core with int8 dot products is a slower kernel,
// not a missing instruction: predict says which, and names the types.
func TestKernelRateNote(t *testing.T) {
	cases := []struct {
		device, want, not string
	}{
		{"raspberry-pi-5-8gb", "with other kernels than its class was fitted on", "no int8 dot-product"},
		{"jetson-nano-4gb", "has no int8 dot-product instruction", "other kernels"},
	}
	for _, c := range cases {
		s := builtinEngineSetup(t, "qwen2.5-0.5b", c.device, "cpu", "llama.cpp", "q4_k_m", nil)
		r, err := s.Predict(sim.Workload{Prompt: 512, Output: 8, Batch: 1})
		if err != nil {
			t.Fatal(err)
		}
		msg := warningMessage(r, "kernel-rate")
		if !strings.Contains(msg, c.want) || strings.Contains(msg, c.not) {
			t.Errorf("%s: kernel-rate note %q, want %q and not %q", c.device, msg, c.want, c.not)
		}
	}
	s := builtinEngineSetup(t, "qwen2.5-0.5b", "raspberry-pi-5-8gb", "cpu", "llama.cpp", "q4_k_m", nil)
	if n := s.Inputs.KernelNote; !strings.Contains(n, "q5_0 70 % × 0.429") || !strings.Contains(n, "q8_0 <1 % × 1") {
		t.Errorf("note %q: want each type's share and factor", n)
	}
}

// RKLLM's w4a16 products run on the RKNPU's own int4 × fp16 matrix type
// (rknn_matmul_api.h, RKNN_FLOAT16_MM_INT4_TO_FLOAT16): no kernel unpacks
// the weights, so the class's dequantizing factor does not slow them, as
// it does MLC's q4f16_1 (dequantize, then an fp16 product) and llama.cpp's
// K-quants on a GPU. With the factor set to 0.5 and every fixed cost at
// zero, a 512-token prefill of Qwen2-0.5B w4a16 on the RK3576 (fp16 at
// its int8 rate, 6 TFLOP/s) takes the time it takes at a factor of 1.
func TestNativeKernelSkipsDequant(t *testing.T) {
	for _, c := range []struct {
		model, device, runtime, weights string
		want                            bool
	}{
		{"qwen2-0.5b", "rk3576-lpddr4x", "rkllm", "w4a16", false},
		{"qwen2-0.5b", "rk3576-lpddr4x", "rkllm", "w8a8", false}, // int8 products: nothing to dequantize
		{"llama-3.2-3b", "jetson-orin-nano-8gb", "mlc", "q4f16_1", true},
		{"llama-3.2-3b", "jetson-orin-nano-8gb", "llama.cpp", "q4_k_m", true},
	} {
		s := chosenSetup(t, builtin(t), c.model, c.device, runtimes.Request{Runtime: c.runtime, Weights: c.weights, KV: "f16"})
		if s.Inputs.Dequantizing != c.want {
			t.Errorf("%s %s on %s: dequantizing %v, want %v", c.runtime, c.weights, c.device, s.Inputs.Dequantizing, c.want)
		}
	}
	s := chosenSetup(t, builtin(t), "qwen2-0.5b", "rk3576-lpddr4x", runtimes.Request{Runtime: "rkllm", Weights: "w4a16", KV: "f16"})
	w := sim.Workload{Prompt: 512, Output: 1, Batch: 1}
	at := func(dq float64) float64 {
		e := s.Inputs.Efficiency
		e.StepOverhead, e.PassOverhead, e.LayerOverhead, e.HostWork, e.Dequant = 0, 0, 0, 0, dq
		p, err := s.WithEfficiency(e).Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		return p.TTFT
	}
	if a, b := at(0.5), at(1); a != b {
		t.Errorf("w4a16 prefill at a dequantizing factor of 0.5: %.6g s, at 1: %.6g s, want the same", a, b)
	}
}
