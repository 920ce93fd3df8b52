package profiles

import (
	"math"
	"strings"
	"testing"
)

// The llama.cpp CUDA class's measured bandwidths are each a GPU read
// kernel's rate, as its source quotes it, and sit below the datasheet by
// the share the sources give (docs/method.md, "The llama.cpp CUDA class
// against measured GPU reads"). Devices nobody has published a read for
// carry none: a figure appearing there without a source is a defect.
func TestCUDAClassMeasuredBandwidths(t *testing.T) {
	cat, _ := Builtin()
	for _, c := range []struct {
		device string
		want   float64 // B/s
		ratio  float64 // measured / datasheet
		quote  string  // what the source text must state
	}{
		{"rtx-4090", 954.5e9, 0.947, "954.5 GB/s"},             // 954.5 / 1008 = 0.9469
		{"rtx-3090", 894.5e9, 0.956, "894.5 GB/s"},             // 894.5 / 936 = 0.9557
		{"dgx-spark", 232.5e9, 0.852, "231–234 GB/s"},          // (231 + 234) / 2 = 232.5; / 273 = 0.8516
		{"jetson-agx-orin-64gb", 152.8e9, 0.746, "152.8 GB/s"}, // 152.8 / 204.8 = 0.7461
		{"jetson-agx-thor", 259.7e9, 0.951, "259.7 GB/s"},      // 259.7 / 273 = 0.9513
		{"jetson-orin-nano-8gb", 0, 0, ""},
		{"jetson-orin-nano-super-8gb", 0, 0, ""},
		{"jetson-orin-nx-16gb", 0, 0, ""},
		{"jetson-nano-4gb", 0, 0, ""},
	} {
		d, err := cat.Device(c.device)
		if err != nil {
			t.Fatal(err)
		}
		if d.MeasuredBandwidth != c.want {
			t.Errorf("%s: measured bandwidth %g, want %g", c.device, d.MeasuredBandwidth, c.want)
			continue
		}
		if c.want == 0 {
			continue
		}
		src := d.Sources["measured_bandwidth"]
		if !strings.Contains(src, "read") || !strings.Contains(src, c.quote) {
			t.Errorf("%s: source %q does not state a read of %s", c.device, src, c.quote)
		}
		if r := d.MeasuredBandwidth / d.Bandwidth; math.Abs(r-c.ratio) > 0.0005 {
			t.Errorf("%s: measured / datasheet %.4f, want %.3f", c.device, r, c.ratio)
		}
	}
}
