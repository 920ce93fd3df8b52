package sim_test

import (
	"math"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// The NPU structures of a runtime like RKLLM, each checked against the
// same setup without it: host work on the CPU, a fixed cost per layer
// shared by the NPU cores, and a cap on the products per core.
func TestHostWorkUnitsAndCap(t *testing.T) {
	m, d := setup(t, "qwen2.5-1.5b", "w8a8", "f16", "rk3588")
	e, err := d.Engine("npu")
	if err != nil {
		t.Fatal(err)
	}
	if e.Units != 3 {
		t.Fatalf("rk3588 npu units %d, want 3 (RKNPU driver core_mask 0x7)", e.Units)
	}
	base := hardware.Efficiency{Bandwidth: 0.9, ComputeMax: 0.25, HalfRows: 0, Attention: 0.25,
		StepOverhead: 100e-6, PassOverhead: 100e-6, LayerOverhead: 1e-3, Dequant: 1}
	w := sim.Workload{Prompt: 128, Output: 64, Batch: 1, UBatch: 512}
	price := func(e2 hardware.Efficiency, host []units.Precision, perUnit bool) (ttft, tpot float64, in sim.Inputs) {
		rt := testRuntime()
		rt.HostPrecisions, rt.LayerOverheadPerUnit = host, perUnit
		rt.Classes["npu"] = &runtimes.Class{Efficiency: e2, Fitted: true, Basis: "test", Decode: runtimes.Spread{Low: 0.9, High: 1.1}, Prefill: runtimes.Spread{Low: 0.8, High: 1.25}}
		s, err := sim.NewSetup(m, d, e, rt, sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		return r.TTFT, r.TPOT, s.Inputs
	}
	t0, d0, _ := price(base, nil, false)

	// Host work: 5 MFLOP per token and layer at the A76 cluster's fp16
	// peak, 4 × 2.4 GHz × 32 = 307.2 GFLOP/s: a 128-token prompt adds
	// 128 × 28 × 5e6 / 307.2e9 = 58.33 ms, a decode step 1 × 28 × 5e6 /
	// 307.2e9 = 0.4557 ms.
	hw := base
	hw.HostWork = 5e6
	t1, d1, in := price(hw, []units.Precision{units.FP16, units.FP32}, false)
	if in.HostPrecision != units.FP16 || in.HostPeak != 307.2e9 {
		t.Errorf("host %s at %g, want fp16 at 307.2 GFLOP/s", in.HostPrecision, in.HostPeak)
	}
	if !near(t1-t0, 58.33e-3, 1e-3) || !near(d1-d0, 0.4557e-3, 1e-3) {
		t.Errorf("host work adds %g s to TTFT and %g s to TPOT, want 58.33 ms and 0.4557 ms", t1-t0, d1-d0)
	}
	// No CPU precision the engine has: the work is not priced, and said.
	t2, _, in := price(hw, []units.Precision{units.INT4}, false)
	if t2 != t0 || in.HostNote == "" {
		t.Errorf("unpriceable host work: TTFT %g (want %g), note %q", t2, t0, in.HostNote)
	}

	// The fixed cost per layer shared by three cores: 28 × 1 ms becomes
	// 28 × 1 ms / 3, 18.67 ms less in every step and pass.
	t3, d3, in := price(base, nil, true)
	if in.LayerUnits != 3 || !near(t0-t3, 18.67e-3, 1e-3) || !near(d0-d3, 18.67e-3, 1e-3) {
		t.Errorf("shared layers: %d units, TTFT −%g s, TPOT −%g s, want 3 and 18.67 ms each", in.LayerUnits, t0-t3, d0-d3)
	}

	// A cap of 100 GOP/s per core: the prefill's products, 0.3359 TOP
	// (2 × 128 × 1.31 G and the head for one token), compute-bound (their
	// 1.55 GB take 51 ms), run at (1.5⁻⁴ + 0.3⁻⁴)^(−¼) = 0.29988 TOP/s
	// instead of 6 × 0.25 = 1.5 TOP/s: 1.1201 s where they took 0.2239 s.
	capped := base
	capped.UnitCompute = 100e9
	t4, _, _ := price(capped, nil, false)
	if !near(t4-t0, 0.8962, 0.01) {
		t.Errorf("capped TTFT %g s, want %g + 0.896 s", t4, t0)
	}
}

func TestAchievedCompute(t *testing.T) {
	e := hardware.Efficiency{UnitCompute: 1e12}
	corner := func(x, y float64) float64 { return math.Pow(math.Pow(x, -4)+math.Pow(y, -4), -0.25) }
	for _, c := range []struct {
		r     float64
		units int
		want  float64
	}{
		{5e12, 0, 5e12},               // no unit count: no cap
		{5e12, 3, corner(5e12, 3e12)}, // 3 units of 1 TFLOP/s: 2.86 TFLOP/s
		{1e9, 3, corner(1e9, 3e12)},   // far below the cap: the rate
	} {
		if got := e.AchievedCompute(c.r, c.units); !near(got, c.want, 1e-9) {
			t.Errorf("AchievedCompute(%g, %d) = %g, want %g", c.r, c.units, got, c.want)
		}
	}
	if got := e.AchievedCompute(5e12, 3); got > 3e12 || got < 2.8e12 {
		t.Errorf("capped rate %g, want just under 3 TFLOP/s", got)
	}
	if got := (hardware.Efficiency{}).AchievedCompute(5e12, 3); got != 5e12 {
		t.Errorf("no cap: %g, want the rate", got)
	}
}
