package profiles

import (
	"math"
	"testing"

	"github.com/roofline/roofline/units"
)

// The CPU engines' peaks, by hand from the figures their profiles cite.
// Apple M4 Pro: 10 P cores (8 on the 16-core-GPU part) at 4,512 MHz
// (The Eclectic Light Company), four 128-bit pipes per P core (one core
// measures 118.4 GFLOP/s FP32 with cpufp: 26.2 FLOP/clk, more than three
// pipes' 24), so per core 4 × 4 lanes × 2 = 32 FP32 FLOP/clk, 64 FP16,
// and SDOT's 16 products × 2 × 4 pipes = 128 INT8 OP/clk:
//
//	fp32 10 × 4.512e9 × 32  = 1.44384e12   (8 cores: 1.155072e12)
//	fp16 10 × 4.512e9 × 64  = 2.88768e12   (8 cores: 2.310144e12)
//	int8 10 × 4.512e9 × 128 = 5.77536e12   (8 cores: 4.620288e12)
//
// Raspberry Pi 5: 4 Cortex-A76 × 2.4 GHz × 16 / 32 / 64 = 153.6 GFLOP/s,
// 307.2 GFLOP/s, 614.4 GOP/s.
func TestCPUEnginePeaks(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		device           string
		units            int
		clock            float64
		fp32, fp16, int8 float64
	}{
		{"apple-m4-pro", 10, 4.512e9, 1.44384e12, 2.88768e12, 5.77536e12},
		{"apple-m4-pro-16c", 8, 4.512e9, 1.155072e12, 2.310144e12, 4.620288e12},
		{"raspberry-pi-5-8gb", 4, 0, 153.6e9, 307.2e9, 614.4e9},
	} {
		d, err := cat.Device(c.device)
		if err != nil {
			t.Fatal(err)
		}
		e, err := d.Engine("cpu")
		if err != nil {
			t.Fatalf("%s: %v", c.device, err)
		}
		if e.Units != c.units || e.Clock != c.clock {
			t.Errorf("%s: %d cores at %g Hz, want %d at %g", c.device, e.Units, e.Clock, c.units, c.clock)
		}
		// The profiles state peaks to four significant figures.
		for p, want := range map[units.Precision]float64{units.FP32: c.fp32, units.FP16: c.fp16, units.INT8: c.int8} {
			if got := e.Peaks[p]; math.Abs(got/want-1) > 5e-4 {
				t.Errorf("%s %s peak %g, want %g", c.device, p, got, want)
			}
		}
	}
}
