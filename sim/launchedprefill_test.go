package sim_test

import (
	"math"
	"testing"
)

// A prefill pass's fixed cost is per layer only where the runtime
// launches the pass's kernels one by one from the host (llama.cpp's CUDA
// backend, its profile's launched_prefill): MLX's CUDA backend, whose
// command encoder replays its kernels as CUDA graphs, pays the pass's
// t_pass + L·t_layer (hardware.Efficiency.PrefillOverhead), as on Metal.
func TestLaunchedPrefillIsTheRuntimes(t *testing.T) {
	cat := builtin(t)
	for _, c := range []struct {
		runtime  string
		launched bool
	}{
		{"llama.cpp", true},
		{"mlx", false},
	} {
		s := builtinSetup(t, cat, "llama-3.1-8b", "h100-sxm", c.runtime, "", "")
		in := s.Inputs
		if in.LaunchedPrefill != c.launched {
			t.Errorf("%s on an H100: launched prefill %v, want %v", c.runtime, in.LaunchedPrefill, c.launched)
		}
		if c.launched {
			continue
		}
		// 32 layers: t_pass + 32·t_layer.
		if want := in.Efficiency.PrefillOverhead(32); math.Abs(in.PrefillOverhead-want) > 1e-12 {
			t.Errorf("%s on an H100: prefill pass overhead %g s, want t_pass + 32·t_layer = %g", c.runtime, in.PrefillOverhead, want)
		}
	}
}
