package hardware

import (
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/units"
)

func board() *Device {
	return &Device{
		Name: "b", Family: "jetson", Segment: "edge", Memory: 8 << 30, Usable: 6 << 30, Bandwidth: 100e9, StorageBandwidth: 1e9, DefaultEngine: "gpu",
		Engines: []Engine{{Name: "gpu", Kind: GPU, Peaks: map[units.Precision]float64{units.FP16: 10e12, units.INT8: 20e12}}},
		Sources: map[string]string{"memory": "s", "bandwidth": "s", "storage_bandwidth": "s",
			"engine.gpu.peak.fp16": "s", "engine.gpu.peak.int8": "s"},
	}
}

func TestPickAndRidge(t *testing.T) {
	d := board()
	e, err := d.Engine("")
	if err != nil {
		t.Fatal(err)
	}
	// A GGUF format prefers int8, then fp16.
	if p, v, ok := e.Pick([]units.Precision{units.INT8, units.FP16}); !ok || p != units.INT8 || v != 20e12 {
		t.Errorf("Pick = %s %g %v", p, v, ok)
	}
	// bf16 is missing: fall through to fp16.
	if p, _, _ := e.Pick([]units.Precision{units.BF16, units.FP16}); p != units.FP16 {
		t.Errorf("fallback picked %s", p)
	}
	if _, _, ok := e.Pick([]units.Precision{units.FP8}); ok {
		t.Error("picked a precision the engine lacks")
	}
	// Ridge = 10 TFLOP/s / 100 GB/s = 100 FLOP/B.
	if r := d.Ridge(e, units.FP16); r != 100 {
		t.Errorf("ridge %g, want 100", r)
	}
}

func TestEfficiency(t *testing.T) {
	e := Efficiency{Bandwidth: 0.8, ComputeMax: 0.6, HalfRows: 32, Attention: 0.3, StepOverhead: 100e-6, PassOverhead: 200e-6, LayerOverhead: 10e-6}
	if err := e.Validate(); err != nil {
		t.Fatal(err)
	}
	// On a 100 TFLOP/s engine h = 32 and η(M) = 0.6 · (M + 32) / (M + 64):
	// 0.6 · 64/96 = 0.4 at M = 32, 0.6 · 544/576 at 512, half of 0.6 with
	// no rows; on a 200 TFLOP/s engine h = 64: 0.6 · 128/192 = 0.4 at 64.
	// A product's compute time per row, 1 / (P·η(M)), never grows with
	// the rows, and never exceeds twice the large-product one: a few rows
	// are a bandwidth kernel, not a tile mostly empty (the former
	// 0.6 · M / (M + h) gave 0.6 · 8/104 = 0.046 at 8 rows on a 300
	// TFLOP/s engine, 13× slower per row than at scale).
	prev := 0.0
	for m := 0.0; m < 1e5; m = 1.5*m + 1 {
		eta := e.Matmul(m, 300e12)
		if eta < prev || eta < e.ComputeMax/2 {
			t.Errorf("η(%g) = %g after %g: the compute time per row grows, or falls below half of η_max", m, eta, prev)
		}
		prev = eta
	}
	if got := (Efficiency{ComputeMax: 0.5}).Matmul(8, 100e12); got != 0.5 {
		t.Errorf("no ramp (HalfRows 0): Matmul(8) = %g, want 0.5", got)
	}
	// 100 µs + 32 layers × 10 µs = 420 µs; 200 µs + 320 µs = 520 µs.
	if d, p := e.DecodeOverhead(32), e.PrefillOverhead(32); math.Abs(d-420e-6) > 1e-12 || math.Abs(p-520e-6) > 1e-12 {
		t.Errorf("overheads %g %g", d, p)
	}
	if got := EfficiencyOf(e.Parameters()); got != e {
		t.Errorf("round trip %+v", got)
	}
	bad := e
	bad.Attention = 1.5
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "attention must be 0.0001 to 1, got 1.5") {
		t.Errorf("got %v", err)
	}
}

func TestValidate(t *testing.T) {
	if err := board().Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		mutate func(*Device)
		want   string
	}{
		{func(d *Device) { d.Usable = d.Memory * 2 }, "usable_memory"},
		{func(d *Device) { d.Bandwidth = 0 }, "bandwidth must be 1 kB/s to 100 TB/s, got 0 B/s"},
		{func(d *Device) { d.MeasuredBandwidth = 2 * d.Bandwidth }, "measured_bandwidth"},
		{func(d *Device) { d.Engines[0].Peaks[units.FP16] = -1 }, "engine.gpu.peak.fp16 must be 1 MFLOP/s to 10 EFLOP/s, got -1 FLOP/s"},
		{func(d *Device) {
			d.Engines[0].Calibration = &Calibration{Efficiency: Efficiency{Bandwidth: 1.2, ComputeMax: 0.5, Attention: 0.5}}
		}, "engine.gpu.calibration.bandwidth must be 0.0001 to 1, got 1.2"},
		// Issue 29 I: figures far outside any device.
		{func(d *Device) { d.Bandwidth = 1e-300 }, "bandwidth must be 1 kB/s to 100 TB/s, got 1e-300 B/s"},
		{func(d *Device) { d.Engines[0].Power = 1e300 }, "engine.gpu.power must be 1 mW to 1 MW, got 1e+300 W"},
		{func(d *Device) {
			d.Engines[0].Calibration = &Calibration{Efficiency: Efficiency{Bandwidth: 0.5, ComputeMax: 0.5, Attention: 0.5, HalfRows: 1e300}}
		}, "engine.gpu.calibration.half_rows must be 0 (none) or 0.001 to 1e+06, got 1e+300"},
		{func(d *Device) { d.Segment = "phone" }, "segment must be"},
		{func(d *Device) { d.Family = "test" }, "family must be one of"},
		{func(d *Device) { d.DefaultEngine = "npu" }, "default_engine"},
		{func(d *Device) { delete(d.Sources, "bandwidth") }, "bandwidth has no source"},
		{func(d *Device) { d.Engines[0].Kind = "fpga" }, "kind must be gpu, cpu or npu"},
	}
	for _, c := range cases {
		d := board()
		c.mutate(d)
		err := d.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want error containing %q, got %v", c.want, err)
		}
	}
}

func TestStorageMedia(t *testing.T) {
	// Hand: 208e6 × 4 / 8 = 104e6; 8e9 × 128/130 × 4 / 8 = 3.938e9.
	for name, want := range map[string]float64{"sd": 104e6, "SD": 104e6, "nvme-gen3x4": 8e9 * 128 / 130 * 4 / 8} {
		s, err := LookupStorage(name)
		if err != nil || math.Abs(s.Bandwidth-want) > 0.01*want {
			t.Errorf("%s: %v B/s, %v; want %v", name, s.Bandwidth, err, want)
		}
	}
	if _, err := LookupStorage("floppy"); err == nil || !strings.Contains(err.Error(), "90MB/s") {
		t.Errorf("unknown medium: %v", err)
	}
}

// A power mode's clock scales the per-unit caps and a decode step's
// fixed costs of a class, never the shares of the datasheet or a
// prefill pass's fixed cost; no clock, 1 GHz, or a CPU's clock leaves
// the class as fitted.
func TestEfficiencyAtClock(t *testing.T) {
	e := Efficiency{Bandwidth: 0.7, ComputeMax: 0.6, Attention: 0.3, StepOverhead: 1e-3, PassOverhead: 2e-3, LayerOverhead: 1e-4,
		UnitBandwidth: 9e9, UnitCompute: 1e12}
	// 612 MHz: r = 0.612. 9 GB/s × 0.612 = 5.508 GB/s per unit; 1 TFLOP/s
	// × 0.612; 1 ms / 0.612 = 1.634 ms; 100 µs / 0.612 = 163.4 µs.
	g := e.AtClock((&Engine{Kind: GPU, Clock: 612e6}).ClockRatio())
	want := Efficiency{Bandwidth: 0.7, ComputeMax: 0.6, Attention: 0.3, StepOverhead: 1e-3 / 0.612, PassOverhead: 2e-3, LayerOverhead: 1e-4 / 0.612,
		UnitBandwidth: 9e9 * 0.612, UnitCompute: 1e12 * 0.612}
	gp, wp := g.Parameters(), want.Parameters()
	for i := range gp {
		if d := gp[i] - wp[i]; d > 1e-12*wp[i] || d < -1e-12*wp[i] {
			t.Errorf("%s at 612 MHz = %g, want %g", ParameterNames[i], gp[i], wp[i])
		}
	}
	for _, eng := range []Engine{{Kind: GPU}, {Kind: GPU, Clock: 1e9}, {Kind: CPU, Clock: 1.5e9}, {Kind: NPU, Clock: 1e9}} {
		if got := e.AtClock(eng.ClockRatio()); got != e {
			t.Errorf("%s clock %g Hz changed the class: %+v", eng.Kind, eng.Clock, got)
		}
	}
}

// On a device whose host CPU's clock is stated (a Jetson), a decode
// step's cost per step follows the CPU's clock and everything else the
// GPU's; without it, AtClocks is AtClock.
func TestEfficiencyAtClocks(t *testing.T) {
	e := Efficiency{Bandwidth: 0.7, ComputeMax: 0.6, Attention: 0.3, StepOverhead: 1e-3, PassOverhead: 2e-3, LayerOverhead: 1e-4,
		UnitBandwidth: 9e9, UnitCompute: 1e12}
	cases := []struct {
		name       string
		gpu, host  float64
		step, unit float64 // StepOverhead; the per-unit caps' factor
		layer      float64
	}{
		// Orin Nano Super 15W: GPU 612 MHz, CPU 1497.6 MHz. 1 ms / 1.4976
		// = 667.7 µs; 100 µs / 0.612 = 163.4 µs; caps × 0.612.
		{"15W", 0.612, 1.4976, 1e-3 / 1.4976, 0.612, 1e-4 / 0.612},
		// 25W: GPU 918 MHz, CPU 1344 MHz: 1 ms / 1.344 = 744 µs.
		{"25W", 0.918, 1.344, 1e-3 / 1.344, 0.918, 1e-4 / 0.918},
		// No host clock: the step at the GPU's, as AtClock.
		{"no host", 0.612, 0, 1e-3 / 0.612, 0.612, 1e-4 / 0.612},
		// A CPU at 1 GHz beside a GPU at 1 GHz: unchanged.
		{"reference", 1, 1, 1e-3, 1, 1e-4},
		// A host clock and no GPU clock (r = 1): only the step moves.
		{"host only", 1, 2, 5e-4, 1, 1e-4},
	}
	for _, c := range cases {
		g := e.AtClocks(c.gpu, c.host)
		want := Efficiency{Bandwidth: 0.7, ComputeMax: 0.6, Attention: 0.3, StepOverhead: c.step, PassOverhead: 2e-3, LayerOverhead: c.layer,
			UnitBandwidth: 9e9 * c.unit, UnitCompute: 1e12 * c.unit}
		gp, wp := g.Parameters(), want.Parameters()
		for i := range gp {
			if d := gp[i] - wp[i]; d > 1e-12*wp[i] || d < -1e-12*wp[i] {
				t.Errorf("%s: %s = %g, want %g", c.name, ParameterNames[i], gp[i], wp[i])
			}
		}
	}
	if got := e.AtClocks(0.612, 0); got != e.AtClock(0.612) {
		t.Errorf("AtClocks without a host clock = %+v, want AtClock's %+v", got, e.AtClock(0.612))
	}
}
