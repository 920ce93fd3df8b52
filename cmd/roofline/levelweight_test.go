package main

import (
	"math"
	"testing"
)

// TestLevelWeighting checks the measured devices' two weightings against
// shares worked by hand. Device a holds two levels (cpu and gpu), device
// b one (cpu).
//
// Decode, within 5 %: a/cpu 1.02 (in); a/gpu 1.10, 0.90, 1.20 (none);
// b/cpu 0.97 (in), 1.30. Each device the same: a 1 of 4 = 1/4, b 1 of
// 2 = 1/2, (1/4 + 1/2) / 2 = 0.375. Each level the same: a/cpu 1,
// a/gpu 0, b/cpu 1/2, (1 + 0 + 1/2) / 3 = 0.5. Each test the same
// would be 2/6.
//
// Prefill, within 10 %: a/cpu 1.05 (in); a/gpu 1.20; b/cpu 1.30, 0.95,
// 1.00 (two in). Each device: a 1/2, b 2/3, (1/2 + 2/3) / 2 = 7/12.
// Each level: (1 + 0 + 2/3) / 3 = 5/9.
//
// Interval coverage weighs alike: decode held by a/gpu's three and
// nothing else, each device (3/4 + 0) / 2 = 0.375, each level
// (0 + 1 + 0) / 3 = 1/3.
func TestLevelWeighting(t *testing.T) {
	l := levelRatios{
		r: [2][]float64{
			{1.02, 1.10, 0.90, 1.20, 0.97, 1.30},
			{1.05, 1.20, 1.30, 0.95, 1.00},
		},
		cov: [2][]bool{
			{false, true, true, true, false, false},
			{true, true, true, true, true},
		},
		dev: [2][]string{
			{"a", "a", "a", "a", "b", "b"},
			{"a", "a", "b", "b", "b"},
		},
		lvl: [2][]string{
			{"cpu / a", "gpu / a", "gpu / a", "gpu / a", "cpu / b", "cpu / b"},
			{"cpu / a", "gpu / a", "cpu / b", "cpu / b", "cpu / b"},
		},
	}
	aims := [2]float64{0.05, 0.10}
	for _, tc := range []struct {
		name     string
		w        levelWeight
		within   [2]float64
		coverage float64
	}{
		{"each device", byDeviceName, [2]float64{0.375, 7.0 / 12}, 0.375},
		{"each level", byLevel, [2]float64{0.5, 5.0 / 9}, 1.0 / 3},
	} {
		in := l.within(aims, tc.w)
		for k := range in {
			if math.Abs(in[k]-tc.within[k]) > 1e-12 {
				t.Errorf("%s: phase %d within its aim %.4f, want %.4f", tc.name, k, in[k], tc.within[k])
			}
		}
		if d, _ := l.stats(tc.w); math.Abs(d.Coverage-tc.coverage) > 1e-12 {
			t.Errorf("%s: decode coverage %.4f, want %.4f", tc.name, d.Coverage, tc.coverage)
		}
	}
	if got, want := l.shared(), "a's cpu and gpu"; got != want {
		t.Errorf("shared: %q, want %q", got, want)
	}
	if got, want := weightingVerdict([2]float64{0.507, 0.555}, [2]float64{0.466, 0.514}), "the decode aim is met by device and not met by level; the prefill aim is met either way."; got != want {
		t.Errorf("verdict: %q, want %q", got, want)
	}
}
