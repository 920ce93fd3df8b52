package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// llama.cpp's Metal decode kernels unpack K-quant weights one by one
// (the runtime's kquant_unpack rule): a Q4_K_M file's products are all
// K-quants (Q4_K and Q6_K), an F16 file's none, a Q4_0 file's its head
// alone (llama.cpp's recipe stores it Q6_K), and CUDA's kernels take no
// such bound. MLC's CUDA kernels unpack its int4 groups (unpack_types):
// every product of a q4f16_1 model, and of a q4f16_ft one, whose layers
// are stored per channel, its head alone (FTQuantize falls back to
// q4f16_1's groups for the final projection: mlc-ai/mlc-llm
// python/mlc_llm/quantization/ft_quantization.py @01ced331, is_final_fc).
// A decode step computes each token's logits, so the head's share is
// 2 × 4096 × 128256 = 1.051 GFLOP of 2 × (6.979 G layer weights + 0.525 G
// head) = 15.01 GFLOP a token: 0.0700014 (Llama-3.1-8B; layers 32 ×
// (4096 × (4096 + 1024 + 1024 + 4096) + 3 × 4096 × 14336) = 6,979,321,856
// weights, head 525,336,576). A Q8_0 file keeps its head Q8_0. MLC on
// Metal has no such rule. The arithmetic runs at the
// vector units' FP32 peak: on the Orin Nano Super, 8 SMs × 128 lanes ×
// 2 × 1020 MHz = 2.089 TFLOP/s, not its tensor cores' FP16 16.7; an
// Apple GPU's FP32 and FP16 peaks are one (M1 Max: 10.617 TFLOP/s).
func TestKQuantShare(t *testing.T) {
	for _, c := range []struct {
		runtime, device, weights string
		want, peak               float64
	}{
		{"llama.cpp", "apple-m1-max", "q4_k_m", 1, 10.617e12},
		{"llama.cpp", "apple-m1-max", "q4_0", 525336576.0 / 7504658432, 10.617e12},
		{"llama.cpp", "apple-m1-max", "q8_0", 0, 0},
		{"llama.cpp", "apple-m1-max", "f16", 0, 0}, // nothing to dequantize
		{"llama.cpp", "rtx-4090", "q4_k_m", 0, 0},  // CUDA: no kquant_unpack rule
		{"mlc", "jetson-orin-nano-super-8gb", "q4f16_1", 1, 2.089e12},
		{"mlc", "jetson-orin-nano-super-8gb", "q4f16_ft", 525336576.0 / 7504658432, 2.089e12},
		{"mlc", "apple-m1-max", "q4f16_1", 0, 0}, // Metal: no unpack_types rule
	} {
		s := chosenSetup(t, builtin(t), "llama-3.1-8b", c.device, runtimes.Request{Runtime: c.runtime, Weights: c.weights, KV: "f16"})
		if got := s.Inputs.UnpackShare; math.Abs(got-c.want) > 1e-6 {
			t.Errorf("%s %s on %s: unpacked share %.7g, want %.7g", c.runtime, c.weights, c.device, got, c.want)
		}
		if got := s.Inputs.UnpackPeak; c.peak > 0 && math.Abs(got/c.peak-1) > 1e-3 {
			t.Errorf("%s %s on %s: unpacking at %.4g FLOP/s, want %.4g", c.runtime, c.weights, c.device, got, c.peak)
		}
	}
}

// The bound prices a decode step's products as (t⁴ + a⁴)^¼, t their
// roofline time and a = F_K / (P·KQuantGEMV). Llama-3.1-8B Q4_K_M on an
// M1 Max (fp16 10.617 TFLOP/s), every fixed cost at zero and the
// bandwidth share at 0.5 (200 GB/s, no cap per core): its products are
// 32 layers × (4096 × (4096 + 1024 + 1024 + 4096) + 3 × 4096 × 14336)
// = 6.98 G weights and a 4096 × 128256 head (0.525 G), 15.01 GFLOP a
// token, all over K-quants; at KQuantGEMV = 0.1 their arithmetic takes
// a = 15.01e9 / (10.617e12 × 0.1) = 14.14 ms, beside a memory time of
// about 4.62 GB / 200 GB/s = 23.1 ms: (23.1⁴ + 14.14⁴)^¼ = 23.9 ms, 3.4 %
// longer. The first decode step attends one token, so the step is its
// products to well within 0.1 %. The prefill does not move. A Q4_0
// file's step unpacks its Q6_K head alone: at KQuantGEMV = 0.001 its
// arithmetic takes 1.051e9 / (10.617e12 × 0.001) = 99.0 ms, and the step
// (t⁴ + a⁴)^¼.
func TestKQuantDecodeBound(t *testing.T) {
	w := sim.Workload{Prompt: 1, Output: 2, Batch: 1}
	step := func(weights string, k float64) (tpot, ttft float64) {
		s := chosenSetup(t, builtin(t), "llama-3.1-8b", "apple-m1-max", runtimes.Request{Runtime: "llama.cpp", Weights: weights, KV: "f16"})
		e := s.Inputs.Efficiency
		e.StepOverhead, e.PassOverhead, e.LayerOverhead, e.HostWork = 0, 0, 0, 0
		e.Bandwidth, e.UnitBandwidth, e.KQuantGEMV = 0.5, 0, k
		p, err := s.WithEfficiency(e).Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		return p.TPOT, p.TTFT
	}
	t0, p0 := step("q4_k_m", 0)
	t1, p1 := step("q4_k_m", 0.1)
	if t0 < 22.5e-3 || t0 > 23.7e-3 {
		t.Fatalf("Q4_K_M step without the bound %.4g s, want about 23.1 ms", t0)
	}
	a := 15.01e9 / (10.617e12 * 0.1)
	if want := math.Pow(math.Pow(t0, 4)+math.Pow(a, 4), 0.25); math.Abs(t1/want-1) > 1e-3 {
		t.Errorf("Q4_K_M step at KQuantGEMV 0.1: %.5g s, want (t⁴ + a⁴)^¼ = %.5g s (t %.5g, a %.5g)", t1, want, t0, a)
	}
	if p1 != p0 {
		t.Errorf("prefill moved with the decode bound: %.6g s against %.6g s", p1, p0)
	}
	// A step of 4 sequences unpacks each weight once, as a step of one
	// does (the FLOPs of one row, not four): at KQuantGEMV = 0.01 the
	// arithmetic, 10 a = 141 ms, outlasts the memory time, and the step
	// of 4 takes (t₄⁴ + (10 a)⁴)^¼, not the 565 ms four rows would.
	w.Batch = 4
	b0, _ := step("q4_k_m", 0)
	b1, _ := step("q4_k_m", 0.01)
	if want := math.Pow(math.Pow(b0, 4)+math.Pow(10*a, 4), 0.25); math.Abs(b1/want-1) > 1e-3 {
		t.Errorf("a step of 4 sequences at KQuantGEMV 0.01: %.5g s, want (t⁴ + (10 a)⁴)^¼ = %.5g s (t %.5g)", b1, want, b0)
	}
	w.Batch = 1
	q0, _ := step("q4_0", 0)
	q1, _ := step("q4_0", 0.001)
	if a := 2 * 4096 * 128256 / (10.617e12 * 0.001); q0 <= 0 || math.Abs(q1/math.Pow(math.Pow(q0, 4)+math.Pow(a, 4), 0.25)-1) > 1e-3 {
		t.Errorf("Q4_0 step at KQuantGEMV 0.001: %.5g s, want (t⁴ + a⁴)^¼ of t %.5g s and its head's a = %.5g s", q1, q0, a)
	}
}

// Where an engine that unpacks states no FP32 peak, the unpacking bound
// falls back to the products' peak, and the prediction says so in a
// warning rather than silently. The A10G has no vendor figure for its
// CUDA cores (NVIDIA publishes no A10G datasheet; AWS's G5 page states
// memory only), so MLC's q4f16_1 decode there unpacks at its 70 TFLOP/s
// tensor peak [S] and is flagged; the Orin Nano Super states its FP32
// peak (8 SMs × 128 × 2 × 1020 MHz = 2.089 TFLOP/s) and an M1 Max its
// (FP32 = FP16 = 10.617 TFLOP/s), so neither is; a file MLC does not
// unpack (q4f16_ft) is not flagged on the A10G either.
func TestUnpackPeakFallbackWarns(t *testing.T) {
	for _, c := range []struct {
		runtime, device, weights string
		peak                     float64 // the unpacking peak, FLOP/s
		warn                     bool
	}{
		{"mlc", "a10g", "q4f16_1", 70e12, true},
		// q4f16_ft's layers run FasterTransformer's GEMV, but its head is
		// q4f16_1's groups (mlc-llm @01ced331 ft_quantization.py): the
		// head is unpacked, and priced at the tensor peak too.
		{"mlc", "a10g", "q4f16_ft", 70e12, true},
		{"mlc", "jetson-orin-nano-super-8gb", "q4f16_1", 2.089e12, false},
		{"llama.cpp", "apple-m1-max", "q4_k_m", 10.617e12, false},
	} {
		s := chosenSetup(t, builtin(t), "llama-3.1-8b", c.device, runtimes.Request{Runtime: c.runtime, Weights: c.weights, KV: "f16"})
		if got := s.Inputs.UnpackPeak; c.peak > 0 && math.Abs(got/c.peak-1) > 1e-3 {
			t.Errorf("%s %s on %s: unpacking at %.4g FLOP/s, want %.4g", c.runtime, c.weights, c.device, got, c.peak)
		}
		if c.warn && s.Inputs.Efficiency.KQuantGEMV <= 0 {
			t.Fatalf("%s on %s: the class has no KQuantGEMV, the case tests nothing", c.runtime, c.device)
		}
		p, err := s.Predict(sim.Workload{Prompt: 128, Output: 16, Batch: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, w := range p.Warnings {
			if w.Code == "unpack-peak-fallback" {
				got = w.Message
			}
		}
		if (got != "") != c.warn {
			t.Errorf("%s %s on %s: unpack-peak-fallback warning %q, want one: %v", c.runtime, c.weights, c.device, got, c.warn)
		}
		if c.warn && !strings.Contains(got, "FP32") {
			t.Errorf("%s %s on %s: the warning %q does not name the missing FP32 peak", c.runtime, c.weights, c.device, got)
		}
	}
}
