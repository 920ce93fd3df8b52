package sim

import (
	"math"
	"testing"

	"github.com/roofline/roofline/hardware"
)

// A GPU's decode streams s_R × its device's measured read, under no cap
// but the datasheet's bandwidth (no memory streams faster than its
// peak, the IDEAL bound), where the device has a read and the class fits
// s_R; else the datasheet's bandwidth through the share and the units'
// cap (docs/method.md §6).
func TestDecodeBandwidth(t *testing.T) {
	for _, c := range []struct {
		name     string
		read, sR float64
		units    int
		unitBW   float64
		want     float64
	}{
		// 0.9 × 100 GB/s = 90 GB/s.
		{"read", 100e9, 0.9, 0, 0, 90e9},
		// 1.02 × 100 GB/s = 102 GB/s: above the read, under the
		// datasheet's 102.4 GB/s.
		{"above the read", 100e9, 1.02, 0, 0, 102e9},
		// 1.1 × 100 GB/s = 110 GB/s is past the datasheet's 102.4 GB/s:
		// 102.4 GB/s.
		{"above the datasheet", 100e9, 1.1, 0, 0, 102.4e9},
		// The units' cap, 4 × 10 GB/s = 40 GB/s, does not apply to it.
		{"units' cap ignored", 100e9, 0.9, 4, 10e9, 90e9},
		// No read: 0.8 × 102.4 GB/s = 81.92 GB/s.
		{"no read", 0, 0.9, 0, 0, 81.92e9},
		// A read, but the class fits no s_R: 81.92 GB/s.
		{"no share", 100e9, 0, 0, 0, 81.92e9},
		// No read, the units' cap: (81.92⁻⁴ + 40⁻⁴)^(−¼) GB/s
		// = 40 / (1 + (40/81.92)⁴)^¼ = 40 / 1.0139 = 39.45 GB/s.
		{"no read, capped", 0, 0.9, 4, 10e9, 40e9 / math.Pow(1+math.Pow(40/81.92, 4), 0.25)},
	} {
		in := Inputs{EngineKind: hardware.GPU, Bandwidth: 102.4e9, MeasuredBandwidth: c.read, Units: c.units,
			Efficiency: hardware.Efficiency{Bandwidth: 0.8, UnitBandwidth: c.unitBW, ReadShare: c.sR}}
		if got := in.decodeBandwidth(in.Clocked()); math.Abs(got-c.want) > 1e-6*c.want {
			t.Errorf("%s: decode bandwidth %g B/s, want %g", c.name, got, c.want)
		}
	}
}

// llama.cpp's CUDA prefill launches its kernels from the host: a pass
// costs L·t_layer/r_gpu, plus L·t_pass/r_host over quantized weights, r_host
// the CPU's clock ratio, the GPU's where no CPU clock is given.
func TestLaunchedPrefillOverhead(t *testing.T) {
	const layers = 32
	for _, c := range []struct {
		name      string
		quant     bool
		gpu, host float64
		want      float64
	}{
		// Float weights: 32 × 10 µs / 0.5 = 640 µs; the host's clock
		// does not enter.
		{"float", false, 0.5, 2, 640e-6},
		// Quantized: 32 × (10 µs / 0.5 + 20 µs / 2) = 32 × 30 µs = 960 µs.
		{"quantized", true, 0.5, 2, 960e-6},
		// No CPU clock: the GPU's, 32 × (20 + 20 / 0.5) µs = 32 × 60 µs
		// = 1920 µs.
		{"no host clock", true, 0.5, 0, 1920e-6},
		// At the reference clocks: 32 × (10 + 20) µs = 960 µs.
		{"reference clocks", true, 1, 1, 960e-6},
		// At the reference clock, float: 32 × 10 µs = 320 µs.
		{"reference, float", false, 1, 0, 320e-6},
	} {
		in := Inputs{EngineKind: hardware.GPU, Dequantizing: c.quant, ClockRatio: c.gpu, HostClockRatio: c.host,
			Efficiency: hardware.Efficiency{LayerOverhead: 10e-6, PassOverhead: 20e-6}}
		if got := in.launchedPrefillOverhead(layers); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: prefill overhead %g s, want %g", c.name, got, c.want)
		}
	}
}

// A stage of a split pays its layers' fixed costs as the whole pass does:
// per layer where the host launches the kernels, else L·t_layer with
// t_pass on the first stage alone.
func TestStagePrefillOverhead(t *testing.T) {
	for _, c := range []struct {
		name            string
		launched, first bool
		want            float64
	}{
		// 20 × 10 µs + 20 µs = 220 µs.
		{"first stage", false, true, 220e-6},
		// 20 × 10 µs = 200 µs.
		{"later stage", false, false, 200e-6},
		// Launched, quantized, reference clocks: 20 × (10 + 20) µs =
		// 600 µs, first or not.
		{"launched, first", true, true, 600e-6},
		{"launched, later", true, false, 600e-6},
	} {
		in := Inputs{EngineKind: hardware.GPU, Dequantizing: true, ClockRatio: 1, LaunchedPrefill: c.launched,
			Efficiency: hardware.Efficiency{LayerOverhead: 10e-6, PassOverhead: 20e-6}}
		if got := in.stagePrefillOverhead(20, c.first); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: stage overhead %g s, want %g", c.name, got, c.want)
		}
	}
}
