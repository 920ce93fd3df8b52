package sim_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// threadsSetup is Qwen2.5-0.5B Q4_K_M under llama.cpp on the engine of
// device at the given threads (0: not set).
func threadsSetup(t *testing.T, device, engine string, threads int) (*sim.Setup, error) {
	t.Helper()
	s := builtinEngineSetup(t, "qwen2.5-0.5b", device, engine, "llama.cpp", "q4_k_m", nil)
	o := sim.DefaultOptions
	o.Threads = threads
	return sim.NewSetup(s.Model, s.Device, s.Engine, s.Runtime, o)
}

// llama.cpp's -t on a Raspberry Pi 5: its profile counts four Cortex-A76
// (int8 4 × 2.4 GHz × 64 OP/clk = 614.4 GOP/s), and t threads run on t
// of them: the peak is t/4 of it, and the bandwidth is what t cores pull,
// the class's share of the datasheet's 17.1 GB/s capped by t × the cap
// per core through the smooth corner (hardware.Efficiency.
// AchievedBandwidth). With the fixed costs at zero, a share of 0.65 and
// a cap of 10 GB/s a core, one core reaches (11.115⁻⁴ + 10⁻⁴)^(−¼) =
// 8.82 GB/s and four (11.115⁻⁴ + 40⁻⁴)^(−¼) = 11.10 GB/s: a memory-bound
// decode step takes 11.10 / 8.82 = 1.259 × as long on one core. A compute-bound prefill
// takes 4 × as long: every class of its work runs at a quarter of the
// rate. Were the threads ignored, both ratios would be 1.
func TestThreadsPriceTheCoresUsed(t *testing.T) {
	eff := hardware.Efficiency{Bandwidth: 0.65, UnitBandwidth: 10e9, ComputeMax: 1, HalfRows: 0, Attention: 1, Dequant: 1}
	w := sim.Workload{Prompt: 512, Output: 16, Batch: 1}
	predict := func(threads int) (*sim.Setup, *sim.Result) {
		s, err := threadsSetup(t, "raspberry-pi-5-8gb", "cpu", threads)
		if err != nil {
			t.Fatal(err)
		}
		s = s.WithEfficiency(eff)
		r, err := s.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		return s, r
	}
	corner := func(n float64) float64 {
		x := 0.65 * 17.1e9
		return 1 / math.Sqrt(math.Sqrt(1/math.Pow(x, 4)+1/math.Pow(n*10e9, 4)))
	}
	all, rAll := predict(0)
	if all.Inputs.Units != 4 || all.Inputs.Peak != 614.4e9 || all.Inputs.Threads != 0 {
		t.Fatalf("not set: units %d, peak %g, threads %d; want every core: 4, 614.4 GOP/s, 0", all.Inputs.Units, all.Inputs.Peak, all.Inputs.Threads)
	}
	for _, c := range []struct {
		threads    int
		peak       float64
		prefill    float64 // TTFT over the four cores' TTFT
		decodeSlow float64 // TPOT over the four cores'
	}{
		{4, 614.4e9, 1, 1},
		{2, 307.2e9, 2, corner(4) / corner(2)},
		{1, 153.6e9, 4, corner(4) / corner(1)},
	} {
		s, r := predict(c.threads)
		if s.Inputs.Peak != c.peak || s.Inputs.Units != c.threads || s.Inputs.Threads != c.threads || s.Inputs.Cores != 4 {
			t.Errorf("%d threads: peak %g, units %d, threads %d of %d; want %g, %d of 4", c.threads, s.Inputs.Peak, s.Inputs.Units, s.Inputs.Threads, s.Inputs.Cores, c.peak, c.threads)
		}
		if r.Prefill.Bound != sim.ComputeBound || r.Decode.Bound != sim.MemoryBound {
			t.Fatalf("%d threads: prefill %s, decode %s; the arithmetic above wants compute and memory", c.threads, r.Prefill.Bound, r.Decode.Bound)
		}
		if got := r.TTFT / rAll.TTFT; math.Abs(got/c.prefill-1) > 1e-9 {
			t.Errorf("%d threads: TTFT × %.6f of every core's, want × %.6f", c.threads, got, c.prefill)
		}
		if got := r.TPOT / rAll.TPOT; math.Abs(got/c.decodeSlow-1) > 1e-9 {
			t.Errorf("%d threads: TPOT × %.6f of every core's, want × %.6f", c.threads, got, c.decodeSlow)
		}
		if c.threads < 4 && !strings.Contains(s.Inputs.ThreadsNote, "capped by") {
			t.Errorf("%d threads: the note does not say the cap: %q", c.threads, s.Inputs.ThreadsNote)
		}
	}
	if c := corner(4) / corner(1); math.Abs(c-1.259) > 0.001 {
		t.Errorf("hand arithmetic: 11.10 / 8.82 = 1.259, the corner gives %.4f", c)
	}
}

// More threads than the cores a profile counts, a negative count, and a
// profile that counts none are refused, naming the field; an engine that
// is not a CPU takes no threads and says so.
func TestThreadsRefused(t *testing.T) {
	for _, c := range []struct {
		device, engine string
		threads        int
		has            string
	}{
		{"raspberry-pi-5-8gb", "cpu", 5, "prices 4 cores"},
		{"rk3588", "cpu", 8, "the four Cortex-A76"},
		{"raspberry-pi-5-8gb", "cpu", -1, "whole number of cores from 1"},
		{"jetson-orin-nano-8gb@7w", "cpu", 5, "prices 4 cores"}, // CORE_4 and CORE_5 offline
	} {
		_, err := threadsSetup(t, c.device, c.engine, c.threads)
		var fe *sim.FieldError
		if !errors.As(err, &fe) || fe.Field != "Threads" || !strings.Contains(err.Error(), c.has) {
			t.Errorf("%s %s, %d threads: %v, want a Threads error containing %q", c.device, c.engine, c.threads, err, c.has)
		}
	}
	bare := builtinEngineSetup(t, "qwen2.5-0.5b", "raspberry-pi-5-8gb", "cpu", "llama.cpp", "q4_k_m", func(e *hardware.Engine) { e.Units = 0 })
	o := sim.DefaultOptions
	o.Threads = 2
	if _, err := sim.NewSetup(bare.Model, bare.Device, bare.Engine, bare.Runtime, o); err == nil || !strings.Contains(err.Error(), "states no core count") {
		t.Errorf("a CPU without a core count at 2 threads: %v", err)
	}
	s, err := threadsSetup(t, "jetson-nano-4gb", "gpu", 2)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := threadsSetup(t, "jetson-nano-4gb", "gpu", 0)
	if s.Inputs.Peak != base.Inputs.Peak || !strings.Contains(s.Inputs.ThreadsNote, "is not one") {
		t.Errorf("a GPU with threads: peak %g (%g without), note %q", s.Inputs.Peak, base.Inputs.Peak, s.Inputs.ThreadsNote)
	}
	r, err := s.Predict(sim.Workload{Prompt: 16, Output: 4, Batch: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(r, "threads-not-cpu") {
		t.Errorf("no threads-not-cpu warning: %+v", r.Warnings)
	}
}

// A prediction says when its decode rests on its class's bandwidth cap
// per unit and the fit cannot pin that cap down (its standard error at
// least the cap), or, on a CPU, pins it only on cores unlike this one. A
// GPU's cap per SM scales with its clock: TensorRT-LLM's class (its cap as
// loosely fitted) binds on the AGX Orin at 15 W, whose GPU runs at a
// fraction of MAXN's clock, and not at MAXN; llama.cpp's CUDA class pins
// its cap down. llama.cpp's cpu class pins its cap too (9.87 GB/s a core,
// standard error 2.2, since the Orin Nano's six A78AEs joined its boards),
// where it binds on few cores or none: four of an M4 Pro's P cores are
// capped at 4 × 9.87 = 39.5 GB/s, and all ten at 98.7 GB/s, both far
// under the datasheet share (0.60 × 273 ≈ 164 GB/s) — an extrapolation:
// the note, counting the cores. One core of a Pi 5 is capped too (its
// own level's cap, 10.6 GB/s, through the smooth corner: 8.87 GB/s under
// the share 0.61 × 17.1 ≈ 10.5 GB/s), but all four would reach the share
// (10.48 GB/s): the class's boards run so, no note; all four: no note.
func TestUnitBandwidthNote(t *testing.T) {
	cat := builtin(t)
	for _, c := range []struct {
		device, engine, runtime string
		threads                 int
		want                    bool
	}{
		{"apple-m4-pro", "cpu", "llama.cpp", 4, true},
		{"apple-m4-pro", "cpu", "llama.cpp", 0, true},
		{"raspberry-pi-5-8gb", "cpu", "llama.cpp", 1, false},
		{"raspberry-pi-5-8gb", "cpu", "llama.cpp", 0, false},
		{"jetson-agx-orin-64gb-15w", "gpu", "tensorrt-llm", 0, true},
		{"jetson-agx-orin-64gb", "gpu", "tensorrt-llm", 0, false},
		{"jetson-agx-orin-64gb-15w", "gpu", "llama.cpp", 0, false},
	} {
		name := fmt.Sprintf("%s %s %s at %d threads", c.device, c.engine, c.runtime, c.threads)
		base := chosenSetup(t, cat, "qwen2.5-0.5b", c.device, runtimes.Request{Runtime: c.runtime, Engine: c.engine})
		o := sim.DefaultOptions
		o.Threads = c.threads
		s, err := sim.NewSetup(base.Model, base.Device, base.Engine, base.Runtime, o)
		if err != nil {
			t.Fatal(err)
		}
		cls := s.Class()
		if se := cls.SE[slices.Index(hardware.ParameterNames, "unit_bandwidth")]; c.want && se < cls.UnitBandwidth && c.engine != "cpu" {
			t.Fatalf("%s: the class's cap %g has a standard error %g, below it: this test's premise is gone", name, cls.UnitBandwidth, se)
		}
		r, err := s.Predict(sim.Workload{Prompt: 128, Output: 16, Batch: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := warningMessage(r, "unit-bandwidth-unidentified")
		if (got != "") != c.want {
			t.Errorf("%s: note %q, want one: %v", name, got, c.want)
		}
		if c.want && c.threads > 0 && !strings.Contains(got, fmt.Sprintf("(%d × ", c.threads)) {
			t.Errorf("%s: the note does not count the cores: %q", name, got)
		}
	}
}
