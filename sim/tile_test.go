package sim_test

import (
	"math"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// A runtime whose quantized products take at most PrefillTile tokens a
// tile (llama.cpp's MMQ: 128 columns, each SM's block 128 rows of
// weights) reads each SM's rows of weights again for every further tile
// of a prefill pass's tokens. Those re-reads come from the GPU's L2 for
// what the rows all SMs hold at once leave room for, and from memory for
// the rest: a pass of n tokens' memory time grows by (⌈n/128⌉ − 1) × the
// bytes that spill over the bandwidth. Nothing else moves: the head and
// the embedding rows are read once, the FLOPs are the same, and decode
// steps (128 sequences or fewer) are untouched.
//
// Qwen2.5-7B Q8_0 on the DGX Spark (48 SMs: 48 × 128 = 6,144 rows held).
// Q8_0 is 34 B per 32 weights: a row over K = 3,584 takes 3,808 B, over
// K = 18,944 20,128 B. Per layer (× 28), the rows held at once W =
// min(rows, 6,144) × row bytes:
//
//	q, o        3,584 rows × 3,808 B: W = 13.65 MB, 2 × 13.65 MB
//	k, v          512 rows × 3,808 B: W =  1.95 MB, 2 ×  1.95 MB
//	gate, up   18,944 rows × 3,808 B: W = 23.40 MB, 2 × 72.14 MB
//	down        3,584 rows × 20,128 B: W = 72.14 MB,     72.14 MB
//
// Each shape spills its bytes × (1 − L2 / W) when W > L2:
//
//	no L2 stated: all 28 × 247.6 MB = 6.933 GB
//	16 MiB (16.78 MB): gate, up 28 × 144.3 MB × 0.2829 = 1.143 GB;
//	                   down 28 × 72.14 MB × 0.7674 = 1.550 GB; 2.693 GB
//	24 MiB (25.17 MB, GB10's): down alone, 28 × 72.14 MB × 0.6511 = 1.315 GB
//	72 MiB (an RTX 4090's): nothing spills
//
// At a bandwidth share of 0.5 (136.5 GB/s), 2,048 tokens (15 re-reads)
// at 24 MiB add 15 × 1.315 GB / 136.5 GB/s = 0.1445 s.
func TestPrefillTileRereadsWeights(t *testing.T) {
	m, d := setup(t, "qwen2.5-7b", "q8_0", "f16", "dgx-spark")
	base, _ := d.Engine("gpu")
	eff := hardware.Efficiency{Bandwidth: 0.5, ComputeMax: 0.6, HalfRows: 60, Attention: 0.3, Dequant: 0.75,
		StepOverhead: 50e-6, PassOverhead: 2e-3, LayerOverhead: 10e-6}
	with := func(tile int, l2 float64) *sim.Setup {
		rt := testRuntime()
		rt.Engines[0].PrefillTile, rt.Engines[0].TileRows = tile, 128
		rt.Kernels = []runtimes.Kernel{{Formats: []string{"gguf-quant"}, Kind: hardware.GPU, Compute: []units.Precision{units.FP16}}}
		rt.Classes["gpu"] = &runtimes.Class{Efficiency: eff, Fitted: true, Basis: "test", Decode: runtimes.Spread{Low: 0.9, High: 1.1}, Prefill: runtimes.Spread{Low: 0.8, High: 1.25}}
		e := *base
		e.L2Cache = l2
		s, err := sim.NewSetup(m, d, &e, rt, sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	whole := with(0, 0)
	if whole.Inputs.PrefillTile != 0 {
		t.Fatalf("PrefillTile %d without a tile; want 0", whole.Inputs.PrefillTile)
	}
	const MiB = 1 << 20
	bw := 0.5 * 273e9
	for _, c := range []struct {
		name  string
		l2    float64
		spill float64 // bytes each further tile reads from memory, above
	}{
		{"no L2 stated", 0, 6.933119e9},
		{"16 MiB", 16 * MiB, 2.693027e9},
		{"GB10's 24 MiB", 24 * MiB, 1.315242e9},
		{"an RTX 4090's 72 MiB", 72 * MiB, 0},
	} {
		tiled := with(128, c.l2)
		if tiled.Inputs.PrefillTile != 128 || tiled.Inputs.TileRows != 48*128 || tiled.Inputs.L2Cache != c.l2 {
			t.Fatalf("%s: tile %d, rows %g, L2 %g; want 128, 6144, %g", c.name, tiled.Inputs.PrefillTile, tiled.Inputs.TileRows, tiled.Inputs.L2Cache, c.l2)
		}
		for _, n := range []struct {
			tokens int
			reads  float64 // ⌈tokens / 128⌉
		}{
			{64, 1}, {128, 1}, {129, 2}, {512, 4}, {2048, 16},
		} {
			w := sim.Workload{Prompt: n.tokens, Output: 2, Batch: 1, UBatch: n.tokens}
			rt, err := tiled.Predict(w)
			if err != nil {
				t.Fatal(err)
			}
			rw, err := whole.Predict(w)
			if err != nil {
				t.Fatal(err)
			}
			want := (n.reads - 1) * c.spill / bw
			if got := rt.Prefill.MemoryTime - rw.Prefill.MemoryTime; math.Abs(got-want) > 1e-6*max(want, 1e-3) {
				t.Errorf("%s, %d tokens: prefill memory time grows by %.6g s, want %.6g s (%g reads)", c.name, n.tokens, got, want, n.reads)
			}
			if rt.Prefill.ComputeTime != rw.Prefill.ComputeTime || rt.Decode.Time != rw.Decode.Time {
				t.Errorf("%s, %d tokens: compute %g s against %g s, decode %g s against %g s; want the same", c.name, n.tokens,
					rt.Prefill.ComputeTime, rw.Prefill.ComputeTime, rt.Decode.Time, rw.Decode.Time)
			}
		}
	}
}

// Under a prefill tile (llama.cpp's MMQ) the routed experts' products run
// as one kernel over every expert, with one tile width chosen from the
// pass's tokens (mul_mat_q_case's ncols_max is the pass's tokens, not an
// expert's), and each expert's few tokens padded to whole tiles: the
// experts' compute term grows by model.Matmuls.ExpertTilePadding. With
// the matrix efficiency flat (HalfRows 0: every product at ComputeMax)
// the rate R = peak × dequant × ComputeMax is the same with and without
// the tile, so the prefill's compute time grows by (padding − 1) ×
// ExpertFLOPs / R, and nothing else moves:
//
//	gpt-oss-120b, 2,048 tokens: width 128, 64 tokens an expert: padding 2
//	gpt-oss-20b, 2,048 tokens: width 128, 256 an expert: padding 1.243337
//	gpt-oss-120b, 512 tokens: width 128, 16 an expert: padding 8
//	  (μ = 16, σ = 3.94: no expert reaches 128; 128 × 128 / 2,048)
//
// On the DGX Spark (fp16 124 TFLOP/s) at dequant 0.75 and ComputeMax 0.6,
// R = 55.8 TFLOP/s. A dense model's prefill does not move.
func TestPrefillTilePadsExperts(t *testing.T) {
	eff := hardware.Efficiency{Bandwidth: 0.5, ComputeMax: 0.6, Attention: 0.3, Dequant: 0.75,
		StepOverhead: 50e-6, PassOverhead: 2e-3, LayerOverhead: 10e-6}
	for _, c := range []struct {
		model, weights string
		tokens         int
		padding        float64
	}{
		{"gpt-oss-120b", "mxfp4_moe", 2048, 2},
		{"gpt-oss-20b", "mxfp4_moe", 2048, 1.243337},
		{"gpt-oss-120b", "mxfp4_moe", 512, 8},
		{"qwen2.5-7b", "q8_0", 2048, 1},
	} {
		m, d := setup(t, c.model, c.weights, "f16", "dgx-spark")
		base, _ := d.Engine("gpu")
		with := func(tile int) *sim.Setup {
			rt := testRuntime()
			rt.Engines[0].PrefillTile, rt.Engines[0].TileRows = tile, 128
			rt.Kernels = []runtimes.Kernel{{Formats: []string{"gguf-quant"}, Kind: hardware.GPU, Compute: []units.Precision{units.FP16}}}
			rt.Classes["gpu"] = &runtimes.Class{Efficiency: eff, Fitted: true, Basis: "test", Decode: runtimes.Spread{Low: 0.9, High: 1.1}, Prefill: runtimes.Spread{Low: 0.8, High: 1.25}}
			e := *base
			e.L2Cache = 1 << 40 // every re-read from L2: only the padding moves
			s, err := sim.NewSetup(m, d, &e, rt, sim.DefaultOptions)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		tiled, whole := with(128), with(0)
		w := sim.Workload{Prompt: c.tokens, Output: 2, Batch: 1, UBatch: c.tokens}
		pt, err := tiled.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		pw, err := whole.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		R := tiled.Inputs.Peak * 0.75 * 0.6
		want := (c.padding - 1) * m.Matmuls(c.tokens, 1).ExpertFLOPs / R
		if got := pt.Prefill.ComputeTime - pw.Prefill.ComputeTime; math.Abs(got-want) > 1e-5*max(want, 1e-3) {
			t.Errorf("%s, %d tokens: prefill compute time grows by %.6g s, want %.6g s (padding %g)", c.model, c.tokens, got, want, c.padding)
		}
		if pt.Prefill.MemoryTime != pw.Prefill.MemoryTime || pt.Decode.Time != pw.Decode.Time {
			t.Errorf("%s: memory %g s against %g s, decode %g s against %g s; want the same", c.model,
				pt.Prefill.MemoryTime, pw.Prefill.MemoryTime, pt.Decode.Time, pw.Decode.Time)
		}
	}
}
