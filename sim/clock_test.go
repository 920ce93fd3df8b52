package sim_test

import (
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// A power mode's GPU clock moves what the engine does per cycle and
// nothing else: the Orin Nano Super's 25W mode (918 MHz) against the
// same profile with no clock (the class as fitted), on a class with a
// per-SM cap and fixed costs chosen to make the arithmetic plain.
func TestClockScalesUnitCapsAndDecodeFixedCosts(t *testing.T) {
	m, d := setup(t, "qwen2.5-0.5b", "q4_k_m", "f16", "jetson-orin-nano-super-8gb@25w")
	e, _ := d.Engine("gpu")
	if e.Clock != 918e6 || e.Units != 8 {
		t.Fatalf("25W gpu: %g Hz, %d SMs; want 918 MHz, 8 (nvpmodel_p3767_0003_super.conf)", e.Clock, e.Units)
	}
	eff := hardware.Efficiency{Bandwidth: 0.7, ComputeMax: 0.6, HalfRows: 60, Attention: 0.3, Dequant: 1,
		StepOverhead: 1e-3, PassOverhead: 2e-3, LayerOverhead: 100e-6, UnitBandwidth: 5e9}
	rt := testRuntime()
	rt.Classes["gpu"] = &runtimes.Class{Efficiency: eff, Fitted: true, Basis: "test", Decode: runtimes.Spread{Low: 0.9, High: 1.1}, Prefill: runtimes.Spread{Low: 0.8, High: 1.25}}
	at := func(e *hardware.Engine) sim.Inputs {
		s, err := sim.NewSetup(m, d, e, rt, sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		return s.Inputs
	}
	unclocked := *e
	unclocked.Clock = 0
	in0, in1 := at(&unclocked), at(e)
	// Qwen2.5-0.5B has 24 layers. As fitted: decode 1 ms + 24 × 100 µs =
	// 3.4 ms; prefill 2 ms + 24 × 100 µs = 4.4 ms. At 918 MHz, r = 0.918,
	// with the 25W mode's CPU at 1344 MHz: decode 1 ms / 1.344 + 2.4 ms /
	// 0.918 = 0.7440 + 2.6144 = 3.3584 ms (the step's cost is the host's,
	// its layers' the GPU's); prefill unchanged (its kernels are launched
	// from the host, one by one).
	if !near(in0.DecodeOverhead, 3.4e-3, 1e-9) || !near(in1.DecodeOverhead, 1e-3/1.344+2.4e-3/0.918, 1e-9) {
		t.Errorf("decode fixed cost %g s unclocked, %g s at 918 MHz; want 3.4 ms and 3.3584 ms", in0.DecodeOverhead, in1.DecodeOverhead)
	}
	if !near(in0.PrefillOverhead, 4.4e-3, 1e-9) || in1.PrefillOverhead != in0.PrefillOverhead {
		t.Errorf("prefill fixed cost %g s unclocked, %g s at 918 MHz; want 4.4 ms both", in0.PrefillOverhead, in1.PrefillOverhead)
	}
	// The per-SM cap: 8 SMs × 5 GB/s = 40 GB/s as fitted, × 0.918 = 36.72
	// GB/s at 918 MHz; the datasheet share (0.7 × 102 GB/s) stays.
	c := in1.Clocked()
	if !near(c.UnitBandwidth, 4.59e9, 1e-12) || c.Bandwidth != 0.7 || !near(c.StepOverhead, 1e-3/1.344, 1e-12) || !near(c.LayerOverhead, 100e-6/0.918, 1e-12) || c.PassOverhead != 2e-3 {
		t.Errorf("clocked efficiency %+v", c)
	}
	if in1.ClockRatio != 0.918 || in0.ClockRatio != 1 || in1.HostClockRatio != 1.344 || in0.HostClockRatio != 0 {
		t.Errorf("clock ratios %g, %g, host %g, %g; want 0.918 (918 MHz / 1 GHz) and 1, host 1.344 (25W's 1344 MHz) and 0 (no GPU clock)", in1.ClockRatio, in0.ClockRatio, in1.HostClockRatio, in0.HostClockRatio)
	}
	// A lower clock never makes a decode step faster.
	slow := *e
	slow.Clock = 612e6
	if a, b := decodeStep(t, m, d, &slow, rt), decodeStep(t, m, d, e, rt); !(a > b) {
		t.Errorf("TPOT at 612 MHz %g s, at 918 MHz %g s", a, b)
	}
}

func decodeStep(t *testing.T, m *model.Cost, d *hardware.Device, e *hardware.Engine, rt *runtimes.Runtime) float64 {
	t.Helper()
	s, err := sim.NewSetup(m, d, e, rt, sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Predict(sim.Workload{Prompt: 128, Output: 64, Batch: 1, UBatch: 512})
	if err != nil {
		t.Fatal(err)
	}
	return r.TPOT
}

// The operator view splits a clocked decode step's fixed cost as the
// prediction prices it: on the Orin Nano Super in 25W (GPU 918 MHz, CPU
// 1344 MHz) the step's share is 1 ms / 1.344 = 0.7440 ms and the layers'
// 24 × 100 µs / 0.918 = 2.6144 ms, which add up to the 3.3584 ms of
// Inputs.DecodeOverhead.
func TestOperatorsSplitClockedFixedCosts(t *testing.T) {
	m, d := setup(t, "qwen2.5-0.5b", "q4_k_m", "f16", "jetson-orin-nano-super-8gb@25w")
	e, _ := d.Engine("gpu")
	rt := testRuntime()
	rt.Classes["gpu"] = &runtimes.Class{Efficiency: hardware.Efficiency{Bandwidth: 0.7, ComputeMax: 0.6, HalfRows: 60, Attention: 0.3, Dequant: 1,
		StepOverhead: 1e-3, PassOverhead: 2e-3, LayerOverhead: 100e-6}, Fitted: true, Basis: "test",
		Decode: runtimes.Spread{Low: 0.9, High: 1.1}, Prefill: runtimes.Spread{Low: 0.8, High: 1.25}}
	s, err := sim.NewSetup(m, d, e, rt, sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	oa, err := s.Operators()
	if err != nil {
		t.Fatal(err)
	}
	dec, err := oa.Decode(sim.Workload{Prompt: 128, Output: 64, Batch: 1, UBatch: 512})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, o := range dec.Ops {
		got[o.Name] = o.Time
	}
	if !near(got[sim.OpStepOverhead], 1e-3/1.344, 1e-9) || !near(got[sim.OpLayerOverhead], 24*100e-6/0.918, 1e-9) {
		t.Errorf("decode fixed costs: step %g s, layers %g s; want 0.7440 ms and 2.6144 ms", got[sim.OpStepOverhead], got[sim.OpLayerOverhead])
	}
}
