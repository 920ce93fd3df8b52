package profiles

import (
	"math"
	"testing"
)

// Every built-in NVIDIA GPU that states both an int8 and an fp16 peak
// states int8 at twice fp16, within 3 % (NVIDIA's own L40S datasheet
// gives 733 TOPS against 362.05 TFLOPS, 2.025): a GeForce card's fp16 is
// its fp16-accumulate rate, a pro card's its fp32-accumulate rate at that
// full speed, and both run int8 MMA at twice it. That is why pricing
// llama.cpp's MMQ prefill at the int8 peak instead of fp16 would only
// halve the class's fitted ceiling and move nothing between devices
// (docs/method.md §6, "Power limits in CUDA prefill"). By hand from the
// cited datasheets: RTX 4090 660.6 / 330.3 = 2.000, RTX 6000 Ada
// 728.5 / 364.2 = 2.0003, H100 PCIe 1513 / 756 = 2.0013, T4 130 / 65 = 2.
func TestNVIDIAInt8TwiceFP16(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range cat.Devices() {
		if d.Family != "nvidia" && d.Family != "jetson" {
			continue
		}
		e, err := d.Engine("gpu")
		if err != nil {
			continue
		}
		i8, f16 := e.Peaks["int8"], e.Peaks["fp16"]
		if i8 == 0 || f16 == 0 {
			continue
		}
		n++
		if r := i8 / f16; math.Abs(r-2) > 0.06 {
			t.Errorf("%s: int8 %.4g OP/s over fp16 %.4g FLOP/s = %.3f, want 2 (docs/method.md §6 rests on it)", d.Name, i8, f16, r)
		}
	}
	if n < 20 {
		t.Errorf("%d NVIDIA GPUs state both peaks, want the catalog's 20 or more", n)
	}
}
