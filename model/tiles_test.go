package model_test

import (
	"math"
	"testing"
)

// TileRereadBytes: the bytes a further tile of tokens reads from memory,
// by hand for Qwen2.5-7B Q8_0 (34 B per 32 weights; per layer, × 28):
// q and o 3,584 rows of 3,808 B (K = 3,584), k and v 512 rows of 3,808 B,
// gate and up 18,944 rows of 3,808 B, down 3,584 rows of 20,128 B
// (K = 18,944): 247.6 MB a layer, 6.933 GB in all. A matrix whose rows
// held at once take W = min(rows, held) × row bytes spills 1 − cache / W
// of its bytes when W > cache.
func TestTileRereadBytes(t *testing.T) {
	c := build(t, "qwen2.5-7b", "q8_0", "f16")
	mm := c.Matmuls(512, 1)
	const MiB = 1 << 20
	for _, tc := range []struct {
		name        string
		held, cache float64
		want        float64
	}{
		// Nothing on chip: every layer weight again (the head and the
		// embedding rows are not re-read).
		{"no cache", math.Inf(1), 0, 6.933119e9},
		// 48 SMs (6,144 rows), 24 MiB: gate and up hold 6,144 × 3,808 B =
		// 23.40 MB and fit; down holds 3,584 × 20,128 B = 72.14 MB and
		// spills 1 − 25.17 / 72.14 = 0.6511 of 28 × 72.14 MB: 1.315 GB.
		{"DGX Spark", 48 * 128, 24 * MiB, 1.315242e9},
		// The same 24 MiB with every row held: gate and up hold all
		// 18,944 rows, 72.14 MB each, and spill 0.6511 too: 3 × 1.315 GB.
		{"all rows held", math.Inf(1), 24 * MiB, 3 * 1.315242e9},
		// 128 SMs (16,384 rows), 72 MiB (75.50 MB): gate and up hold
		// 16,384 × 3,808 B = 62.39 MB, down 72.14 MB; all fit.
		{"RTX 4090", 128 * 128, 72 * MiB, 0},
	} {
		dense, expert := mm.TileRereadBytes(tc.held, tc.cache)
		if math.Abs(dense-tc.want) > 1e-6*max(tc.want, 1) || expert != 0 {
			t.Errorf("%s: re-read %.7g B dense, %g B experts; want %.7g B, 0", tc.name, dense, expert, tc.want)
		}
	}
	// A tensor-parallel rank of two holds half of every matrix's rows.
	if half, _ := c.Shard(2).Matmuls(512, 1).TileRereadBytes(math.Inf(1), 0); math.Abs(half-6.933119e9/2) > 1e3 {
		t.Errorf("a rank of two re-reads %.7g B, want half of 6.933119e9", half)
	}
}

// A routed expert is re-read per tile of the tokens it receives; what of
// it spills is priced on the pass's reached experts: all of them with
// nothing on chip, none when the cache holds every expert's rows.
func TestTileRereadBytesExperts(t *testing.T) {
	c := build(t, "qwen3-30b-a3b", "q8_0", "f16")
	mm := c.Matmuls(512, 1)
	if mm.ExpertBytes <= 0 {
		t.Fatal("no expert bytes")
	}
	if _, x := mm.TileRereadBytes(math.Inf(1), 0); math.Abs(x-mm.ExpertBytes) > 1e-9*mm.ExpertBytes {
		t.Errorf("no cache: experts re-read %.7g B, want the pass's %.7g B", x, mm.ExpertBytes)
	}
	if _, x := mm.TileRereadBytes(math.Inf(1), 1<<40); x != 0 {
		t.Errorf("a cache that holds every expert: experts re-read %g B, want 0", x)
	}
}

// A kernel that multiplies each routed expert's tokens in whole tiles of
// `width` columns computes ⌈X/width⌉·width columns for an expert of X
// tokens: ExpertTilePadding is their sum over the N experts against the
// Rows·k tokens routed, X ~ Binomial(Rows, k/N).
//
//	qwen3-30b-a3b (N 128, k 8), 64 tokens, width 64: p = 1/16, μ = 4,
//	  σ = √3.75 = 1.94; no expert reaches 64 (64 > μ + 8σ = 19.5), so one
//	  tile per reached expert: 1 − (15/16)^64 = 0.983925;
//	  128 × 64 × 0.983925 / (64 × 8) = 15.7428
//	gpt-oss-120b (N 128, k 4), 2,048 tokens, width 128: μ = 64,
//	  σ = √62 = 7.87, μ + 8σ = 127 < 128: every expert one tile,
//	  128 × 128 / 8,192 = 2
//	gpt-oss-20b (N 32, k 4), 2,048 tokens, width 128: μ = 256,
//	  σ = √224 = 14.97; P(X > 0) = 1, P(X > 128) = ½erfc(−127.5/21.17)
//	  = 1.000000, P(X > 256) = ½erfc(0.5/21.17) = 0.486675, 384 > μ + 8σ:
//	  2.486675 tiles, 32 × 128 × 2.486675 / 8,192 = 1.243337
//	qwen3-30b-a3b, 8,192 tokens, width 8: μ = 512 ≫ 8, padding
//	  under 1 + 8/512 (never below 1)
//	a dense model, or no width: 1
func TestExpertTilePadding(t *testing.T) {
	for _, c := range []struct {
		model, weights string
		tokens         int
		width          float64
		want, tol      float64
	}{
		{"qwen3-30b-a3b", "q8_0", 64, 64, 15.742794, 1e-6},
		{"gpt-oss-120b", "mxfp4_moe", 2048, 128, 2, 1e-9},
		{"gpt-oss-20b", "mxfp4_moe", 2048, 128, 1.243337, 1e-6},
		{"qwen3-30b-a3b", "q8_0", 8192, 8, 1, 8.0 / 512},
		{"qwen3-30b-a3b", "q8_0", 512, 0, 1, 0},
		{"llama-3.1-8b", "q4_k_m", 512, 128, 1, 0},
	} {
		mm := build(t, c.model, c.weights, "f16").Matmuls(c.tokens, 1)
		got := mm.ExpertTilePadding(c.width)
		if got < 1 || math.Abs(got-c.want) > c.tol*c.want {
			t.Errorf("%s, %d tokens, width %g: padding %.7g, want %.7g (±%g, at least 1)", c.model, c.tokens, c.width, got, c.want, c.tol)
		}
	}
}
