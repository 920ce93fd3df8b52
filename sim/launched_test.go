package sim_test

import (
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// A decode step of more sequences than the runtime replays as one graph
// (llama.cpp's CUDA graphs hold a step of one sequence) launches its
// kernels from the host, as a prefill pass does, and costs a pass's
// fixed costs; a step that fits the graph costs a step's, at the GPU's
// clock. Everything else about the step is unchanged, so the step's time
// moves by exactly the difference of the fixed costs.
func TestLaunchedDecodeStep(t *testing.T) {
	m, d := setup(t, "qwen2.5-0.5b", "q4_k_m", "f16", "jetson-orin-nano-super-8gb@25w")
	e, _ := d.Engine("gpu")
	eff := hardware.Efficiency{Bandwidth: 0.7, ComputeMax: 0.6, HalfRows: 60, Attention: 0.3, Dequant: 1,
		StepOverhead: 1e-3, PassOverhead: 2e-3, LayerOverhead: 100e-6}
	with := func(graph int) *sim.Setup {
		rt := testRuntime()
		rt.Engines[0].GraphBatch = graph
		rt.Classes["gpu"] = &runtimes.Class{Efficiency: eff, Fitted: true, Basis: "test", Decode: runtimes.Spread{Low: 0.9, High: 1.1}, Prefill: runtimes.Spread{Low: 0.8, High: 1.25}}
		s, err := sim.NewSetup(m, d, e, rt, sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	graphed, free := with(1), with(0)
	// Qwen2.5-0.5B has 24 layers; 25W runs the GPU at 918 MHz (r = 0.918)
	// and the CPU at 1344 MHz. A graph's step: 1 ms / 1.344 + 24 × 100 µs
	// / 0.918 = 0.7440 + 2.6144 = 3.3584 ms. A step launched kernel by
	// kernel: a pass's, 2 ms + 24 × 100 µs = 4.4 ms.
	const step = 1e-3/1.344 + 2.4e-3/0.918
	in := graphed.Inputs
	if in.GraphBatch != 1 || !near(in.DecodeOverhead, step, 1e-9) || !near(in.LaunchedDecodeOverhead, 4.4e-3, 1e-9) {
		t.Errorf("graph batch %d, decode fixed cost %g s, launched %g s; want 1, 3.3584 ms, 4.4 ms", in.GraphBatch, in.DecodeOverhead, in.LaunchedDecodeOverhead)
	}
	if free.Inputs.GraphBatch != 0 || free.Inputs.LaunchedDecodeOverhead != 0 {
		t.Errorf("a runtime without graph_batch: %d, %g", free.Inputs.GraphBatch, free.Inputs.LaunchedDecodeOverhead)
	}
	const ctx = 1000
	for _, c := range []struct {
		batch int
		diff  float64 // graphed − free, s
	}{
		{1, 0},             // one sequence: the graph
		{2, 4.4e-3 - step}, // 4.4 − 3.3584 = 1.0416 ms more
		{32, 4.4e-3 - step},
	} {
		got := graphed.ITL(ctx, c.batch) - free.ITL(ctx, c.batch)
		if !near(got, c.diff, 1e-9) {
			t.Errorf("batch %d: ITL moves by %.6g s, want %.6g s", c.batch, got, c.diff)
		}
		// Predict prices the same steps, and its fixed costs say which.
		w := sim.Workload{Prompt: 100, Output: 11, Batch: c.batch, UBatch: 512}
		pg, err := graphed.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := free.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		if got := (pg.Decode.Time - pf.Decode.Time) / 10; !near(got, c.diff, 1e-9) {
			t.Errorf("batch %d: Predict's decode moves by %.6g s a step, want %.6g s", c.batch, got, c.diff)
		}
		want := 10 * in.DecodeOverhead
		if c.batch > 1 {
			want = 10 * in.LaunchedDecodeOverhead
		}
		if !near(pg.Decode.OverheadTime, want, 1e-9) {
			t.Errorf("batch %d: fixed costs %g s over 10 steps, want %g s", c.batch, pg.Decode.OverheadTime, want)
		}
	}
}

// On a GPU below the compute capability a runtime's graphs need, no
// decode step runs as a graph: one sequence's step costs a pass's fixed
// costs too, and the clock rule does not touch it.
func TestGraphlessEngine(t *testing.T) {
	m, d := setup(t, "qwen2.5-0.5b", "q4_k_m", "f16", "jetson-nano-4gb")
	e, _ := d.Engine("gpu")
	if e.ComputeCapability != 5.3 || e.Clock != 921e6 {
		t.Fatalf("jetson-nano-4gb gpu: compute capability %g, clock %g Hz; want 5.3, 921 MHz", e.ComputeCapability, e.Clock)
	}
	eff := hardware.Efficiency{Bandwidth: 0.7, ComputeMax: 0.6, HalfRows: 60, Attention: 0.3, Dequant: 1,
		StepOverhead: 1e-3, PassOverhead: 2e-3, LayerOverhead: 100e-6}
	with := func(minCC float64) sim.Inputs {
		rt := testRuntime()
		rt.Engines[0].GraphBatch, rt.Engines[0].GraphMinCC = 1, minCC
		rt.Classes["gpu"] = &runtimes.Class{Efficiency: eff, Fitted: true, Basis: "test", Decode: runtimes.Spread{Low: 0.9, High: 1.1}, Prefill: runtimes.Spread{Low: 0.8, High: 1.25}}
		s, err := sim.NewSetup(m, d, e, rt, sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		return s.Inputs
	}
	// 24 layers. Graphs from 7.0 up: the Nano's 5.3 has none, so a step
	// of one sequence costs 2 ms + 24 × 100 µs = 4.4 ms. Graphs from 5.0
	// up: 1 ms / 1.43 (its Cortex-A57s' clock) + 24 × 100 µs / 0.921 =
	// 0.6993 + 2.6059 = 3.3052 ms.
	for _, c := range []struct {
		minCC     float64
		graphless bool
		decode    float64
	}{
		{7.0, true, 4.4e-3},
		{5.0, false, 1e-3/1.43 + 2.4e-3/0.921},
		{0, false, 1e-3/1.43 + 2.4e-3/0.921},
	} {
		in := with(c.minCC)
		if in.Graphless != c.graphless || !near(in.DecodeOverhead, c.decode, 1e-9) || !near(in.LaunchedDecodeOverhead, 4.4e-3, 1e-9) {
			t.Errorf("graphs from %g: graphless %v, decode fixed cost %g s, launched %g s; want %v, %g s, 4.4 ms", c.minCC, in.Graphless, in.DecodeOverhead, in.LaunchedDecodeOverhead, c.graphless, c.decode)
		}
	}
}

// llama.cpp's CUDA builds before pull request #19645 (to b7815) launch a
// step of two or more sequences kernel by kernel; later and current
// builds replay it as a graph. The DGX Spark's llama-batched-bench runs
// (b6918) are priced the first way, a prediction for the current build
// the second: one sequence's step is the same in both.
func TestLaunchedDecodeStepByBuild(t *testing.T) {
	cat := builtin(t)
	old := builtinSetup(t, cat, "gemma-3-4b", "dgx-spark", "llama.cpp@b6918", "q4_0", "")
	cur := builtinSetup(t, cat, "gemma-3-4b", "dgx-spark", "llama.cpp", "q4_0", "")
	if old.Inputs.GraphBatch != 1 || cur.Inputs.GraphBatch != 0 {
		t.Fatalf("graph batch at b6918 %d, current %d; want 1, 0", old.Inputs.GraphBatch, cur.Inputs.GraphBatch)
	}
	if d := old.ITL(1000, 1) - cur.ITL(1000, 1); d != 0 {
		t.Errorf("one sequence's step differs by %g s between builds, want 0", d)
	}
	in := old.Inputs
	want := in.LaunchedDecodeOverhead - in.DecodeOverhead
	if d := old.ITL(1000, 2) - cur.ITL(1000, 2); !near(d, want, 1e-9) || !(want > 0) {
		t.Errorf("two sequences' step at b6918 is %g s longer, want the launched fixed cost's excess %g s", d, want)
	}
}

// A runtime whose decode kernels load their weights and then multiply
// them (llama.cpp's CUDA MMQ tiles: load, synchronize, multiply) prices a
// decode step's products at memory time plus compute time, not the
// larger: with the products memory-bound and a one-token context (no
// attention to speak of), the step grows by its compute time and nothing
// else; the prefill is unchanged.
func TestSerialDecodeProducts(t *testing.T) {
	m, d := setup(t, "qwen2.5-0.5b", "q4_k_m", "f16", "rtx-4090")
	e, _ := d.Engine("gpu")
	with := func(serial bool) *sim.Setup {
		rt := testRuntime()
		rt.Engines[0].SerialDecode = serial
		s, err := sim.NewSetup(m, d, e, rt, sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	serial, overlapped := with(true), with(false)
	if !serial.Inputs.SerialDecode || overlapped.Inputs.SerialDecode {
		t.Fatalf("SerialDecode %v, %v; want true, false", serial.Inputs.SerialDecode, overlapped.Inputs.SerialDecode)
	}
	for _, batch := range []int{1, 16} {
		w := sim.Workload{Prompt: 1, Output: 2, Batch: batch, UBatch: 512}
		rs, err := serial.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		ro, err := overlapped.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		if rs.TTFT != ro.TTFT {
			t.Errorf("batch %d: TTFT %g s serial, %g s overlapped; want the same", batch, rs.TTFT, ro.TTFT)
		}
		if ro.Decode.ComputeTime >= ro.Decode.MemoryTime {
			t.Fatalf("batch %d: the step is not memory-bound (%g s compute, %g s memory)", batch, ro.Decode.ComputeTime, ro.Decode.MemoryTime)
		}
		if got := rs.Decode.Time - ro.Decode.Time; !near(got, ro.Decode.ComputeTime, 1e-3) || !(got > 0) {
			t.Errorf("batch %d: the step grows by %g s, want its compute time %g s", batch, got, ro.Decode.ComputeTime)
		}
	}
}
