package runtimes

import (
	"math"
	"strings"
	"testing"
)

// rkllmLike has RKLLM's reference (4096 tokens, pinned) and factors of
// round values: per doubling of the context 0.2 on decode, clocks
// default 0.1 on decode and 0.5 on prefill.
func rkllmLike() *Runtime {
	return &Runtime{Name: "rkllm", SettingReference: SettingReference{MaxContext: 4096, Clocks: ClocksPinned},
		SettingFactors: map[string]*SettingFactors{"npu": {ContextDecode: 0.2, ClocksDecode: 0.1, ClocksPrefill: 0.5, MeasuredContext: 16384, Basis: "test"}}}
}

func TestFactors(t *testing.T) {
	rt := rkllmLike()
	for _, c := range []struct {
		name            string
		s               Settings
		decode, prefill float64
	}{
		{"reference", Settings{}, 1, 1},
		{"stated reference", Settings{MaxContext: 4096, Clocks: ClocksPinned}, 1, 1},
		// log2(16384/4096) = 2 doublings: exp(2·0.2) = 1.4918.
		{"16k pinned", Settings{MaxContext: 16384}, math.Exp(0.4), 1},
		// 8k: one doubling, exp(0.2) = 1.2214.
		{"8k", Settings{MaxContext: 8192, Clocks: ClocksPinned}, math.Exp(0.2), 1},
		// Below the reference: not measured, no factor.
		{"2k", Settings{MaxContext: 2048}, 1, 1},
		// Clocks default: exp(0.1) = 1.1052 and exp(0.5) = 1.6487.
		{"default clocks", Settings{Clocks: ClocksDefault}, math.Exp(0.1), math.Exp(0.5)},
		// 16k and default: exp(0.4 + 0.1) = 1.6487, prefill exp(0.5).
		{"16k default", Settings{MaxContext: 16384, Clocks: ClocksDefault}, math.Exp(0.5), math.Exp(0.5)},
	} {
		d, p := rt.Factors("npu", c.s)
		if math.Abs(d-c.decode) > 1e-12 || math.Abs(p-c.prefill) > 1e-12 {
			t.Errorf("%s: factors %.6f, %.6f, want %.6f, %.6f", c.name, d, p, c.decode, c.prefill)
		}
	}
	// Another class, or a runtime without factors: none.
	if d, p := rt.Factors("gpu", Settings{MaxContext: 16384, Clocks: ClocksDefault}); d != 1 || p != 1 {
		t.Errorf("a class without factors: %g, %g", d, p)
	}
}

// With the clocks unstated the prediction is the reference's and its
// intervals' slow ends reach a board left to its governors: in decode,
// where the runs measured so spread to 1.3, the larger of the class's
// 1.2 and exp(0.1)·1.3 = 1.4367; in prefill, where no runs' interval was
// fitted, the class's own 1.5·exp(0.5) = 2.4731. A class whose own slow
// end is further (1.6 > 1.4367) keeps it. Set up away from the
// reference, the runs' own intervals apply; a 16k conversion with the
// clocks unstated takes the runs' [0.85, 1.3], its slow end 1.3·exp(0.1)
// = 1.4367. On a board no run measured (the class's own intervals, which
// say how far boards land from it) the 16k conversion spans both: decode
// [min(0.5, 0.85), max(2.0, 1.3)] = [0.5, 2.0], where the runs' [0.85,
// 1.3] alone would say nothing of another board; with the clocks unstated
// its slow end max(2.0, 1.3·exp(0.1) = 1.4367) = 2.0.
func TestWithSettings(t *testing.T) {
	rt := rkllmLike()
	rt.SettingFactors["npu"].Decode = Spread{Low: 0.85, High: 1.3}
	c := &Class{Decode: Spread{Low: 0.8, High: 1.2}, Prefill: Spread{Low: 0.7, High: 1.5}, OwnDevice: true}
	wide := &Class{Decode: Spread{Low: 0.8, High: 1.6}, Prefill: Spread{Low: 0.7, High: 1.5}, OwnDevice: true}
	unmeasured := &Class{Decode: Spread{Low: 0.5, High: 2.0}, Prefill: Spread{Low: 0.6, High: 1.8}}
	for _, tc := range []struct {
		c               *Class
		s               Settings
		decode, prefill Spread
	}{
		{c, Settings{}, Spread{0.8, 1.3 * math.Exp(0.1)}, Spread{0.7, 1.5 * math.Exp(0.5)}},
		{wide, Settings{}, Spread{0.8, 1.6}, Spread{0.7, 1.5 * math.Exp(0.5)}},
		{c, Settings{Clocks: ClocksPinned}, Spread{0.8, 1.2}, Spread{0.7, 1.5}},
		{c, Settings{MaxContext: 16384, Clocks: ClocksDefault}, Spread{0.85, 1.3}, Spread{0.7, 1.5}},
		{c, Settings{MaxContext: 16384}, Spread{0.85, 1.3 * math.Exp(0.1)}, Spread{0.7, 1.5 * math.Exp(0.5)}},
		{unmeasured, Settings{MaxContext: 16384, Clocks: ClocksDefault}, Spread{0.5, 2.0}, Spread{0.6, 1.8}},
		{unmeasured, Settings{MaxContext: 16384}, Spread{0.5, 2.0}, Spread{0.6, 1.8 * math.Exp(0.5)}},
	} {
		got := rt.WithSettings("npu", tc.c, tc.s)
		if math.Abs(got.Decode.Low-tc.decode.Low) > 1e-12 || math.Abs(got.Decode.High-tc.decode.High) > 1e-12 ||
			math.Abs(got.Prefill.Low-tc.prefill.Low) > 1e-12 || math.Abs(got.Prefill.High-tc.prefill.High) > 1e-12 {
			t.Errorf("%+v: decode %+v prefill %+v, want %+v %+v", tc.s, got.Decode, got.Prefill, tc.decode, tc.prefill)
		}
	}
	if c.Decode.High != 1.2 {
		t.Errorf("the class itself changed: %+v", c.Decode)
	}
}

// GovernorsSlowEnd, worked by hand: the larger of the pinned slow end and
// exp(k)·runs; a negative factor counts as none; without runs the pinned
// slow end stands for them.
func TestGovernorsSlowEnd(t *testing.T) {
	for _, c := range []struct{ high, runs, k, want float64 }{
		{1.2, 1.3, 0.1, 1.3 * math.Exp(0.1)}, // 1.4367 > 1.2
		{1.6, 1.3, 0.1, 1.6},                 // 1.6 > 1.4367
		{1.2, 0, 0.1, 1.2 * math.Exp(0.1)},   // 1.3262: no runs' interval
		{1.2, 1.3, -0.2, 1.3},                // a faster default is not priced: exp(0)·1.3
		{1.2, 1.1, -0.2, 1.2},                // nor does it narrow the pinned end
	} {
		if got := GovernorsSlowEnd(c.high, c.runs, c.k); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("GovernorsSlowEnd(%g, %g, %g) = %.6f, want %.6f", c.high, c.runs, c.k, got, c.want)
		}
	}
}

func TestSettingsValidate(t *testing.T) {
	for _, s := range []Settings{{MaxContext: -1}, {Clocks: "fast"}, {Clocks: "Pinned"}} {
		if s.Validate() == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	for _, s := range []Settings{{}, {MaxContext: 16384, Clocks: ClocksDefault}, {Clocks: ClocksPinned}} {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

func TestDescribeSettings(t *testing.T) {
	rt := rkllmLike()
	rt.SettingFactors["npu"].Decode = Spread{Low: 0.85, High: 1.3}
	for _, c := range []struct {
		s    Settings
		want []string
	}{
		// Clocks unstated: priced pinned, the slow ends reaching a board
		// left to its governors: in decode exp(0.1)·1.3 = 1.4367 of the
		// time priced (1.11 for the clocks, the runs' slow end 1.30), in
		// prefill, no runs' interval fitted, exp(0.5) = 1.65 the slow end.
		{Settings{}, []string{"max context 4096, clocks not stated: priced pinned",
			"decode 1.44× the time priced (1.11× for the clocks, × 1.30 where the runs measured so end)",
			"prefill 1.65× the pinned slow end"}},
		{Settings{Clocks: ClocksPinned}, []string{"max context 4096, clocks pinned: as rkllm's class was measured"}},
		{Settings{MaxContext: 16384, Clocks: ClocksDefault}, []string{"max context 16384, clocks default", "decode 1.65×, prefill 1.65×", "at 4096 and pinned"}},
		{Settings{MaxContext: 32768}, []string{"decode 1.82×", "beyond the largest context measured (16384): extrapolated"}},
	} {
		got := rt.DescribeSettings("npu", c.s)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%+v: %q lacks %q", c.s, got, w)
			}
		}
	}
	if got := (&Runtime{Name: "llama.cpp"}).DescribeSettings("cuda", Settings{Clocks: ClocksDefault}); got != "" {
		t.Errorf("a runtime without settings says %q", got)
	}
}
