package serve

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The quantiles by selection are those of a sort, nearest rank.
func TestStatsQuantiles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 10, 17, 100, 1001, 20000} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Floor(r.ExpFloat64() * 50) // ties too
		}
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		s := statsOf(slices.Clone(xs))
		for _, q := range Percentiles {
			// nearest rank: ⌈q·n⌉-th smallest
			want := sorted[int(math.Ceil(q*float64(n)))-1]
			if got := s.Quantile(q); got != want {
				t.Errorf("n=%d q=%v: %v, want %v", n, q, got, want)
			}
		}
		if s.Min != sorted[0] || s.Max != sorted[n-1] {
			t.Errorf("n=%d: min %v max %v", n, s.Min, s.Max)
		}
	}
	// Hand: 1 … 100: p50 = 50, p90 = 90, p95 = 95, p99 = 99, mean 50.5.
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(100 - i)
	}
	s := statsOf(xs)
	if s.P50 != 50 || s.P90 != 90 || s.P95 != 95 || s.P99 != 99 || s.Mean != 50.5 {
		t.Errorf("1…100: %+v", s)
	}
}

// The histogram's quantiles are within its 0.5 % buckets.
func TestHistogramQuantiles(t *testing.T) {
	h := newHistogram()
	for i := 1; i <= 1000; i++ {
		h.add(float64(i)*1e-3, 1)
	}
	s := h.stats()
	for _, c := range []struct{ got, want float64 }{{s.P50, 0.5}, {s.P90, 0.9}, {s.P99, 0.99}, {s.Mean, 0.5005}} {
		if math.Abs(c.got/c.want-1) > 0.005 {
			t.Errorf("%v, want %v", c.got, c.want)
		}
	}
}

func TestFastLog(t *testing.T) {
	for _, x := range []float64{1e-9, 3.3e-7, 1e-3, 0.0173, 0.5, 0.999, 1, 1.5, 2, 7.77, 1e3, 9e4} {
		if got, want := fastLog(x), math.Log(x); math.Abs(got-want) > 2e-5 {
			t.Errorf("fastLog(%v) = %v, ln %v", x, got, want)
		}
	}
}

// fastLog reads math.Frexp's mantissa and exponent from the bits: the
// same numbers, so every sample falls in the bucket it fell in before
// (a plan's or serve's output is byte for byte the same), over ten
// decades of step times from histFloor up, and at the edges of a
// binade.
func TestFastLogIsFrexpsSeries(t *testing.T) {
	ref := func(x float64) float64 {
		m, e := math.Frexp(x)
		z := (m - 1) / (m + 1)
		z2 := z * z
		return float64(e)*math.Ln2 + 2*z*(1+z2*(1.0/3+z2*(1.0/5+z2*(1.0/7))))
	}
	xs := []float64{histFloor, 0.5, 1, 2, math.Nextafter(1, 0), math.Nextafter(2, 0), 1e14}
	for x := histFloor; x < 1e5; x *= 1.0001731 {
		xs = append(xs, x)
	}
	for _, x := range xs {
		if got, want := fastLog(x), ref(x); got != want {
			t.Fatalf("fastLog(%v) = %v, Frexp's series %v", x, got, want)
		}
	}
}
