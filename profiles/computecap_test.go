package profiles

import (
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
)

// Every NVIDIA GPU engine in the catalog (the nvidia and jetson
// families, their variants included) states its CUDA compute capability
// with a [V] or [S] source, so a runtime's min_compute_capability,
// graph_min_compute_capability and prefill_tile bounds can refuse it: an
// engine that states none is taken to meet any bound, and a new profile
// that forgets the key fails here. A few values as NVIDIA's table
// (developer.nvidia.com/cuda-gpus) gives them, one per architecture.
func TestNVIDIAGPUsStateComputeCapability(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	nvidia := map[string]bool{"nvidia": true, "jetson": true}
	n := 0
	for _, d := range cat.Devices() {
		if !nvidia[d.Family] {
			continue
		}
		for _, e := range d.Engines {
			if e.Kind != hardware.GPU {
				continue
			}
			n++
			src := d.Sources["engine."+e.Name+".compute_capability"]
			switch {
			case e.ComputeCapability == 0:
				t.Errorf("%s: the NVIDIA %s engine states no compute_capability: a runtime's min_compute_capability cannot refuse it (cite NVIDIA's table, https://developer.nvidia.com/cuda-gpus)", d.Name, e.Name)
			case !strings.Contains(src, "[V]") && !strings.Contains(src, "[S]"):
				t.Errorf("%s: compute_capability %g cites no [V] or [S] source: %q", d.Name, e.ComputeCapability, src)
			}
		}
	}
	// 24 nvidia profiles and 6 jetson ones, one GPU engine each, at the
	// time of writing: the loop above saw them.
	if n < 30 {
		t.Errorf("saw %d NVIDIA GPU engines, want at least 30", n)
	}
	for _, c := range []struct {
		device string
		want   float64
	}{
		{"jetson-nano-4gb", 5.3},          // Maxwell (Tegra X1)
		{"t4", 7.5},                       // Turing
		{"a100-40gb", 8.0},                // Ampere GA100
		{"a10g", 8.6},                     // Ampere GA102
		{"rtx-3060", 8.6},                 // Ampere GA106
		{"jetson-orin-nano-8gb", 8.7},     // Ampere GA10B
		{"jetson-agx-orin-64gb-15w", 8.7}, // a variant inherits its base's
		{"l4", 8.9},                       // Ada
		{"h200", 9.0},                     // Hopper
		{"b200", 10.0},                    // Blackwell (data center)
		{"jetson-agx-thor", 11.0},         // Blackwell (Thor)
		{"rtx-5090", 12.0},                // Blackwell (GeForce)
		{"dgx-spark", 12.1},               // Blackwell (GB10)
	} {
		d, err := cat.Device(c.device)
		if err != nil {
			t.Fatal(err)
		}
		e, err := d.Engine("gpu")
		if err != nil {
			t.Fatal(err)
		}
		if e.ComputeCapability != c.want {
			t.Errorf("%s: compute capability %g, want %g", c.device, e.ComputeCapability, c.want)
		}
	}
}

// TensorRT Edge-LLM (min_compute_capability 8.0, Jetson families) runs
// on the catalog's Orin and Thor modules and on none of the others. The
// T4 is refused for its family; its stated 7.5 refuses it as well: the
// same engine in the jetson family (as a Turing Jetson would be) is
// still refused, where before it stated a capability it was taken to
// meet 8.0 and ran.
func TestEdgeLLMComputeCapability(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	r, err := cat.Runtime("tensorrt-edge-llm")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		device string
		runs   bool
	}{
		{"jetson-nano-4gb", false},           // 5.3 < 8.0
		{"jetson-orin-nano-4gb", true},       // 8.7
		{"jetson-orin-nano-8gb", true},       // 8.7
		{"jetson-orin-nx-16gb", true},        // 8.7
		{"jetson-agx-orin-64gb", true},       // 8.7
		{"jetson-agx-thor", true},            // 11.0
		{"t4", false},                        // 7.5, and not a Jetson
		{"h100-sxm", false},                  // 9.0, not a Jetson
		{"apple-m4-max", false},              // no CUDA
		{"jetson-orin-nano-super-8gb", true}, // a variant: 8.7
	} {
		d, err := cat.Device(c.device)
		if err != nil {
			t.Fatal(err)
		}
		e, err := d.Engine("gpu")
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Runs(d, e); got != c.runs {
			t.Errorf("%s (compute capability %g): runs %v, want %v", c.device, e.ComputeCapability, got, c.runs)
		}
	}
	t4, err := cat.Device("t4")
	if err != nil {
		t.Fatal(err)
	}
	asJetson := *t4
	asJetson.Family = "jetson"
	asJetson.Engines = append([]hardware.Engine(nil), t4.Engines...)
	e := &asJetson.Engines[0]
	if e.Kind != hardware.GPU || e.ComputeCapability != 7.5 {
		t.Fatalf("t4 engine 0: kind %v, compute capability %g; want its gpu, 7.5", e.Kind, e.ComputeCapability)
	}
	if r.Runs(&asJetson, e) {
		t.Errorf("tensorrt-edge-llm runs a jetson-family T4 (compute capability 7.5), want refused below 8.0")
	}
	e.ComputeCapability = 0
	if !r.Runs(&asJetson, e) {
		t.Errorf("tensorrt-edge-llm refuses a jetson-family T4 stating no compute capability: the refusal above is not the capability's")
	}
}
