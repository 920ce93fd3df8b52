package accuracy

import (
	"math"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/fit"
	"github.com/roofline/roofline/hardware"
)

// settingsPoints are a device's runs of four models, a memory-bound
// phase whose time is 10 ms / bandwidth share per model size: each model
// measured at the reference and, for two of them, also with a 16k
// context (two doublings) and default clocks, slower by exp(2·0.3 + 0.2)
// = 2.2255 in decode and exp(0.5) = 1.6487 in prefill (the context's
// factor is decode's alone). Each model's runs share a bias, as
// deviceLevel groups them (modelSource).
func settingsPoints(share float64) ([]fit.Point, [][2]float64) {
	var pts []fit.Point
	var xs [][2]float64
	for m, size := range []float64{1, 2, 3, 5} {
		for _, ph := range []fit.Phase{fit.Decode, fit.Prefill} {
			base := 0.010 * size / share
			pred := func(s float64) func(e hardware.Efficiency) float64 {
				return func(e hardware.Efficiency) float64 { return 0.010 * s / e.Bandwidth }
			}(size)
			pts, xs = append(pts, fit.Point{Measured: base, Predict: pred, Phase: ph, Group: string(rune('a' + m)), Shared: string(rune('a' + m))}), append(xs, [2]float64{})
			if m < 2 {
				f := math.Exp(2*0.3 + 0.2)
				if ph == fit.Prefill {
					f = math.Exp(0.5)
				}
				pts, xs = append(pts, fit.Point{Measured: base * f, Predict: pred, Phase: ph, Group: string(rune('a' + m)), Shared: string(rune('a' + m))}), append(xs, [2]float64{2, 1})
			}
		}
	}
	return pts, xs
}

// The backfit recovers the factors the runs were made with, within the
// priors' pull, and has settled: one more round moves them less than
// 0.1 %. The pull: each model's runs are one draw of its bias
// (ModelSpread), so four models against the level's spread of 0.35 hold
// its logit shift about 8 % short (0.587 for a share of 0.6, 2.2 % of the
// time), which the factors, measured from the level, carry (0.778 for
// 0.8); the factors' own prior (a spread of 1 against runs that agree to
// 0.1) about 1 % more.
func TestFitSettingsRecovers(t *testing.T) {
	pts, xs := settingsPoints(0.6)
	e := hardware.Efficiency{Bandwidth: 0.5, ComputeMax: 0.5, HalfRows: 16, Attention: 0.5, Dequant: 1}
	sh, f, err := fitSettings(pts, xs, e, DeviceLevelSpread)
	if err != nil {
		t.Fatal(err)
	}
	// Two doublings and the clocks together give the decode ratio;
	// they are told apart only by the prior (both covariates move
	// together in these runs), so check what the runs pin: the sums.
	if got := 2*f[0][0] + f[0][1]; math.Abs(got-0.8) > 0.035 {
		t.Errorf("decode: 2·context + clocks = %.4f, want 0.8 (exp 2.2255)", got)
	}
	if f[1][0] != 0 {
		t.Errorf("prefill context factor %.4f: the context's factor is decode's alone", f[1][0])
	}
	if math.Abs(f[1][1]-0.5) > 0.035 {
		t.Errorf("prefill clocks %.4f, want 0.5 (exp 1.6487)", f[1][1])
	}
	// The level takes the reference runs' share (0.6 against the
	// class's 0.5), less the pull: the settings leave it there.
	if got := sh.ApplyLevel(e).Bandwidth; math.Abs(got-0.6) > 0.02 {
		t.Errorf("level's bandwidth share %.4f, want 0.6", got)
	}
	again := regressSettings(withFactors(pts, xs, factors{}), xs, sh.ApplyLevel(e))
	for k := range again {
		for u := range again[k] {
			if math.Abs(again[k][u]-f[k][u]) > 1e-3 {
				t.Errorf("factor [%d][%d] %.5f moves to %.5f in one more round: not settled", k, u, f[k][u], again[k][u])
			}
		}
	}
}

// Without runs set up otherwise the fit is the level alone, no factors.
func TestFitSettingsWithoutSettings(t *testing.T) {
	pts, xs := settingsPoints(0.6)
	var rp []fit.Point
	var rx [][2]float64
	for i, x := range xs {
		if x == [2]float64{} {
			rp, rx = append(rp, pts[i]), append(rx, x)
		}
	}
	e := hardware.Efficiency{Bandwidth: 0.5, ComputeMax: 0.5, HalfRows: 16, Attention: 0.5, Dequant: 1}
	_, f, err := fitSettings(rp, rx, e, DeviceLevelSpread)
	if err != nil {
		t.Fatal(err)
	}
	if f != (factors{}) {
		t.Errorf("factors %v without runs set up otherwise", f)
	}
}
