package hardware

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/units"
)

// A Raspberry Pi 5's CPU as its profile states it: four Cortex-A76 at
// 2.4 GHz, int8 4 × 2.4 GHz × 64 OP/clk = 614.4 GOP/s, fp32 × 16 FLOP/clk =
// 153.6 GFLOP/s; and a GPU beside it to refuse.
func threadsDevice() *Device {
	return &Device{Name: "pi", Sources: map[string]string{"engine.cpu.units": "[V] quad-core Cortex-A76"},
		Engines: []Engine{
			{Name: "cpu", Kind: CPU, Units: 4, Peaks: map[units.Precision]float64{units.INT8: 614.4e9, units.FP32: 153.6e9}},
			{Name: "gpu", Kind: GPU, Units: 8, Peaks: map[units.Precision]float64{units.FP16: 10e12}},
			{Name: "bare", Kind: CPU, Peaks: map[units.Precision]float64{units.FP32: 1e11}},
		}}
}

func TestWithThreads(t *testing.T) {
	d := threadsDevice()
	for _, c := range []struct {
		name        string
		engine      int
		threads     int
		units       int
		int8, fp32  float64
		same        bool   // the engine itself comes back
		errContains string // "" when accepted
	}{
		{"not set", 0, 0, 4, 614.4e9, 153.6e9, true, ""},
		{"every core", 0, 4, 4, 614.4e9, 153.6e9, true, ""},
		// 1 of 4 cores: 614.4 / 4 = 153.6 GOP/s, 153.6 / 4 = 38.4 GFLOP/s.
		{"one core", 0, 1, 1, 153.6e9, 38.4e9, false, ""},
		// 3 of 4: 614.4 × 3/4 = 460.8, 153.6 × 3/4 = 115.2.
		{"three cores", 0, 3, 3, 460.8e9, 115.2e9, false, ""},
		{"more than the cores", 0, 5, 0, 0, 0, false, "prices 4 cores ([V] quad-core Cortex-A76): at most 4 threads"},
		{"negative", 0, -2, 0, 0, 0, false, "from 1, got -2"},
		{"a GPU", 1, 2, 0, 0, 0, false, "the gpu engine of pi is a gpu"},
		{"no core count", 2, 2, 0, 0, 0, false, "states no core count"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &d.Engines[c.engine]
			got, err := d.WithThreads(e, c.threads)
			if c.errContains != "" {
				var te *ThreadsError
				if err == nil || !errors.As(err, &te) || !strings.Contains(err.Error(), c.errContains) {
					t.Fatalf("WithThreads(%d) = %v, want a *ThreadsError containing %q", c.threads, err, c.errContains)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == e) != c.same {
				t.Errorf("returned the engine itself: %v, want %v", got == e, c.same)
			}
			if got.Units != c.units {
				t.Errorf("units %d, want %d", got.Units, c.units)
			}
			for p, want := range map[units.Precision]float64{units.INT8: c.int8, units.FP32: c.fp32} {
				if math.Abs(got.Peaks[p]/want-1) > 1e-12 {
					t.Errorf("%s peak %g, want %g", p, got.Peaks[p], want)
				}
			}
		})
	}
	// The profile's engine is never changed.
	if e := d.Engines[0]; e.Units != 4 || e.Peaks[units.INT8] != 614.4e9 {
		t.Errorf("the device's engine changed: %+v", e)
	}
}

// The cap per unit is what makes fewer cores pull less: at one core of
// a class with a share of 0.65 and a cap of 10 GB/s a core, a 17.1 GB/s
// board reaches (11.115⁻⁴ + 10⁻⁴)^(−¼) = 8.82 GB/s, at four (11.115⁻⁴ +
// 40⁻⁴)^(−¼) = 11.10 GB/s.
func TestThreadsBandwidthCap(t *testing.T) {
	e := Efficiency{Bandwidth: 0.65, UnitBandwidth: 10e9}
	x := 0.65 * 17.1e9
	one := 1 / math.Sqrt(math.Sqrt(1/math.Pow(x, 4)+1/math.Pow(10e9, 4)))
	four := 1 / math.Sqrt(math.Sqrt(1/math.Pow(x, 4)+1/math.Pow(40e9, 4)))
	if got := e.AchievedBandwidth(17.1e9, 1); math.Abs(got/one-1) > 1e-12 || math.Abs(got/8.82e9-1) > 0.001 {
		t.Errorf("one core: %g B/s, want %g", got, one)
	}
	if got := e.AchievedBandwidth(17.1e9, 4); math.Abs(got/four-1) > 1e-12 || math.Abs(got/11.10e9-1) > 0.001 {
		t.Errorf("four cores: %g B/s, want %g", got, four)
	}
}
