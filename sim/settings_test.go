package sim_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// RKLLM's settings price the same work slower by the fitted factors, and
// exactly so: Qwen3-4B w8a8 on the RK3588 converted for 16k on a board
// left to its governors takes exp(2·context + clocks) of the reference's
// decode time and exp(clocks) of its prefill time, the ideal bound
// unchanged, and carries the settings' own intervals.
func TestSettingsScaleTime(t *testing.T) {
	m, d := setup(t, "qwen3-4b", "w8a8", "f16", "rk3588")
	cat, _ := profiles.Builtin()
	rt, err := cat.Runtime("rkllm")
	if err != nil {
		t.Fatal(err)
	}
	f := rt.SettingFactors["npu"]
	if f == nil {
		t.Fatal("rkllm has no fitted setting factors for npu")
	}
	e, _ := d.Engine("npu")
	w := sim.Workload{Prompt: 40, Output: 300, Batch: 1}
	at := func(s runtimes.Settings) (*sim.Setup, *sim.Result) {
		o := sim.DefaultOptions
		o.Settings = s
		st, err := sim.NewSetup(m, d, e, rt, o)
		if err != nil {
			t.Fatal(err)
		}
		r, err := st.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		return st, r
	}
	_, ref := at(runtimes.Settings{})
	st, set := at(runtimes.Settings{MaxContext: 16384, Clocks: runtimes.ClocksDefault})
	// log2(16384 / 4096) = 2 doublings.
	wantD, wantP := math.Exp(2*f.ContextDecode+f.ClocksDecode), math.Exp(2*f.ContextPrefill+f.ClocksPrefill)
	if got := set.TPOT / ref.TPOT; math.Abs(got/wantD-1) > 1e-9 {
		t.Errorf("TPOT %.4g s against %.4g s: ×%.6f, want ×%.6f", set.TPOT, ref.TPOT, got, wantD)
	}
	if got := set.TTFT / ref.TTFT; math.Abs(got/wantP-1) > 1e-9 {
		t.Errorf("TTFT %.4g s against %.4g s: ×%.6f, want ×%.6f", set.TTFT, ref.TTFT, got, wantP)
	}
	if set.TPOTBound != ref.TPOTBound || set.TTFTBound != ref.TTFTBound {
		t.Errorf("ideal bounds moved: TPOT %g → %g, TTFT %g → %g", ref.TPOTBound, set.TPOTBound, ref.TTFTBound, set.TTFTBound)
	}
	if st.Inputs.DecodeFactor != wantD || !strings.Contains(st.Inputs.SettingsNote, "max context 16384, clocks default") {
		t.Errorf("inputs: decode factor %g, note %q", st.Inputs.DecodeFactor, st.Inputs.SettingsNote)
	}
	// The interval is the settings' own, from the runs set up so.
	if iv := set.TPOTInterval; f.Decode.Low > 0 && (iv == nil || math.Abs(iv.Lo/set.TPOT-f.Decode.Low) > 1e-3 || math.Abs(iv.Hi/set.TPOT-f.Decode.High) > 1e-3) {
		t.Errorf("TPOT interval %+v around %g, want the settings' %+v", iv, set.TPOT, f.Decode)
	}
	// Set up as the reference states it: the reference.
	if _, same := at(runtimes.Settings{MaxContext: 4096, Clocks: runtimes.ClocksPinned}); same.TPOT != ref.TPOT || same.TTFT != ref.TTFT {
		t.Errorf("stated reference settings: TPOT %g, TTFT %g; want %g, %g", same.TPOT, same.TTFT, ref.TPOT, ref.TTFT)
	}
}

// A runtime without settings prices as it did and says the flags do not
// apply to it; bad settings are refused as a field error.
func TestSettingsOtherRuntimes(t *testing.T) {
	m, d := setup(t, "qwen2.5-1.5b", "q4_k_m", "f16", "rk3588")
	cat, _ := profiles.Builtin()
	rt, _ := cat.Runtime("llama.cpp")
	e, _ := d.Engine("cpu")
	o := sim.DefaultOptions
	ref, err := sim.NewSetup(m, d, e, rt, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Settings = runtimes.Settings{MaxContext: 16384, Clocks: runtimes.ClocksDefault}
	s, err := sim.NewSetup(m, d, e, rt, o)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := ref.Predict(sim.Workload{Prompt: 64, Output: 16, Batch: 1})
	b, _ := s.Predict(sim.Workload{Prompt: 64, Output: 16, Batch: 1})
	if a.TPOT != b.TPOT || !strings.Contains(s.Inputs.SettingsNote, "do not apply") {
		t.Errorf("llama.cpp with settings: TPOT %g against %g, note %q", b.TPOT, a.TPOT, s.Inputs.SettingsNote)
	}
	for _, bad := range []runtimes.Settings{{MaxContext: -5}, {Clocks: "turbo"}, {MaxContext: 1 << 31}} {
		o.Settings = bad
		var fe *sim.FieldError
		if _, err := sim.NewSetup(m, d, e, rt, o); err == nil || !errors.As(err, &fe) || fe.Field != "Settings" {
			t.Errorf("%+v: error %v, want a Settings field error", bad, err)
		}
	}
}
