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
// intervals' slow ends take the clocks' factor: [0.8, 1.2] becomes
// [0.8, 1.2·exp(0.1)] = [0.8, 1.3262] in decode, [0.7, 1.5·exp(0.5)] =
// [0.7, 2.4731] in prefill. Set up away from the reference, the runs'
// own intervals apply.
func TestWithSettings(t *testing.T) {
	rt := rkllmLike()
	rt.SettingFactors["npu"].Decode = Spread{Low: 0.85, High: 1.3}
	c := &Class{Decode: Spread{Low: 0.8, High: 1.2}, Prefill: Spread{Low: 0.7, High: 1.5}}
	for _, tc := range []struct {
		s               Settings
		decode, prefill Spread
	}{
		{Settings{}, Spread{0.8, 1.2 * math.Exp(0.1)}, Spread{0.7, 1.5 * math.Exp(0.5)}},
		{Settings{Clocks: ClocksPinned}, Spread{0.8, 1.2}, Spread{0.7, 1.5}},
		{Settings{MaxContext: 16384, Clocks: ClocksDefault}, Spread{0.85, 1.3}, Spread{0.7, 1.5}},
	} {
		got := rt.WithSettings("npu", c, tc.s)
		if math.Abs(got.Decode.Low-tc.decode.Low) > 1e-12 || math.Abs(got.Decode.High-tc.decode.High) > 1e-12 ||
			math.Abs(got.Prefill.Low-tc.prefill.Low) > 1e-12 || math.Abs(got.Prefill.High-tc.prefill.High) > 1e-12 {
			t.Errorf("%+v: decode %+v prefill %+v, want %+v %+v", tc.s, got.Decode, got.Prefill, tc.decode, tc.prefill)
		}
	}
	if c.Decode.High != 1.2 {
		t.Errorf("the class itself changed: %+v", c.Decode)
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
	for _, c := range []struct {
		s    Settings
		want []string
	}{
		// Clocks unstated: priced pinned, the slow ends allowing exp(0.1)
		// = 1.11 and exp(0.5) = 1.65 for a board left to its governors.
		{Settings{}, []string{"max context 4096, clocks not stated: priced pinned", "decode 1.11×, prefill 1.65×"}},
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
