package profiles

import (
	"strings"
	"testing"
)

// Every built-in NVIDIA GPU states its L2 cache with a source: llama.cpp's
// MMQ prefill re-reads weights per tile of tokens from it (docs/method.md
// §6), and a GPU without one is priced as if every re-read came from
// memory. Sizes by hand from the sources the profiles cite: the RTX
// 4090's 73,728 KB and the RTX 3090's 6,144 KB (the Ada and GA102
// whitepapers), the DGX Spark's 24 MB (measured: NVIDIA states none), the
// Jetson Nano's 262,144 bytes (deviceQuery).
func TestNVIDIAGPUsStateL2(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"rtx-4090": 73728 << 10, "rtx-3090": 6144 << 10, "dgx-spark": 24 << 20, "jetson-nano-4gb": 262144, "a100-80gb-sxm": 40960 << 10}
	n := 0
	for _, d := range cat.Devices() {
		if d.Family != "nvidia" && d.Family != "jetson" {
			continue
		}
		e, err := d.Engine("gpu")
		if err != nil {
			continue
		}
		n++
		src := d.Sources["engine.gpu.l2_cache"]
		if e.L2Cache <= 0 || strings.TrimSpace(src) == "" {
			t.Errorf("%s: l2_cache %g B, source %q; every NVIDIA GPU states one with its source", d.Name, e.L2Cache, src)
		}
		if w, ok := want[d.Name]; ok && e.L2Cache != w {
			t.Errorf("%s: l2_cache %g B, want %g B", d.Name, e.L2Cache, w)
		}
	}
	if n < 29 {
		t.Errorf("%d NVIDIA GPUs, want the catalog's 29 or more", n)
	}
}
