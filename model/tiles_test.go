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
	if got := mm.LayerMatrixBytes(); math.Abs(got-6.933119e9) > 1e3 {
		t.Errorf("layer matrix bytes %.7g, want 6.933119e9", got)
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
