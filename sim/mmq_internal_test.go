package sim

import "testing"

// mmqWidth follows llama.cpp's mul_mat_q_case: of the tile widths 8, 16,
// … 128 (multiples of 16 from 48 on), the smallest that needs the fewest
// tiles, ⌈n / 128⌉, for a product of n tokens.
//
//	n = 1: one tile, width 8        n = 20: ⌈20/8⌉·8 = 24
//	n = 41: 48 (no width 40 < 41 fits, 48 is the next built)
//	n = 100: 112 (104 is not a multiple of 16)
//	n = 128: 128                    n = 129: two tiles, ⌈129/2⌉ = 65 → 80
//	n = 300: three tiles, 100 → 112  n = 512, 2,048: 128
func TestMMQWidth(t *testing.T) {
	for _, c := range []struct{ n, want float64 }{
		{1, 8}, {8, 8}, {20, 24}, {40, 40}, {41, 48}, {64, 64}, {100, 112},
		{128, 128}, {129, 80}, {300, 112}, {512, 128}, {2048, 128},
	} {
		if got := mmqWidth(c.n, 128); got != c.want {
			t.Errorf("mmqWidth(%g, 128) = %g, want %g", c.n, got, c.want)
		}
	}
}
