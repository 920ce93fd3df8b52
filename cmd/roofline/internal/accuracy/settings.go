package accuracy

import (
	"fmt"
	"math"
	"sort"

	"github.com/roofline/roofline/cmd/roofline/internal/fit"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
)

// A runtime's settings (runtimes.Settings: RKLLM's conversion context and
// clocks) are fitted beside a device's level: a run set up away from the
// runtime's reference takes log factors on its phase's time, one per
// doubling of the context above the reference's and one for default
// clocks, each held near none by a prior (partial pooling, as a level's
// shift). Level and factors are fitted in turn (backfitting) until they
// settle; each model held out is predicted by both fitted without it.

// SettingSpread is the prior's spread of a setting's log factor: about a
// factor of e (2.7) either way, far wider than any the runs show.
const SettingSpread = 1.0

// settingRounds is how many times level and factors are refitted in turn:
// enough for the factors to move less than 0.1 % (checked by
// TestFitSettingsRecovers).
const settingRounds = 6

// covariates are a case's settings against its runtime's reference: the
// doublings of its context and whether its clocks differ.
func covariates(cs Case) [2]float64 {
	rt := cs.Setup.Runtime
	s := runtimes.Settings{MaxContext: cs.Run.MaxContext, Clocks: cs.Run.Clocks}
	var x [2]float64
	x[0] = runtimes.ContextDoublings(rt.SettingReference, s)
	if runtimes.ClocksOff(rt.SettingReference, s) {
		x[1] = 1
	}
	return x
}

// offReference reports whether case i was set up away from its runtime's
// reference.
func (c *Class) offReference(i int) bool {
	x := covariates(c.Cases[i])
	return x[0] != 0 || x[1] != 0
}

// factors is [phase][covariate] log factors.
type factors [2][2]float64

func phaseIndex(p fit.Phase) int {
	if p == fit.Prefill {
		return 1
	}
	return 0
}

// mult is a point's multiplier under factors f.
func (f factors) mult(p fit.Point, x [2]float64) float64 {
	k := phaseIndex(p.Phase)
	return math.Exp(f[k][0]*x[0] + f[k][1]*x[1])
}

// withFactors is points whose predictions carry factors f.
func withFactors(pts []fit.Point, xs [][2]float64, f factors) []fit.Point {
	out := append([]fit.Point(nil), pts...)
	for i := range out {
		m, pred := f.mult(out[i], xs[i]), out[i].Predict
		if m != 1 {
			out[i].Predict = func(e hardware.Efficiency) float64 { return m * pred(e) }
		}
	}
	return out
}

// fitSettings fits a device level and the settings' factors to points
// (their covariates xs) from efficiency e; without any off-reference
// point it is fitLevel with no factors.
func fitSettings(pts []fit.Point, xs [][2]float64, e hardware.Efficiency, spreads [fit.NShift]float64) (fit.Shift, factors, error) {
	var f factors
	any := false
	for _, x := range xs {
		any = any || x[0] != 0 || x[1] != 0
	}
	sh, err := fitLevel(pts, e, spreads)
	if err != nil || !any {
		return sh, f, err
	}
	for round := 0; round < settingRounds; round++ {
		f = regressSettings(pts, xs, sh.ApplyLevel(e))
		if sh, err = fitLevel(withFactors(pts, xs, f), e, spreads); err != nil {
			return sh, f, err
		}
	}
	return sh, f, nil
}

// regressSettings fits each phase's factors to the log ratios of points
// at efficiency e: least squares with a normal prior of spread
// SettingSpread around none, the residual spread estimated from the
// reference points (a factor is shrunk as a level's shift is).
func regressSettings(pts []fit.Point, xs [][2]float64, e hardware.Efficiency) factors {
	var f factors
	for k, ph := range []fit.Phase{fit.Decode, fit.Prefill} {
		var a [2][2]float64
		var b [2]float64
		var ss float64
		n := 0
		for i, p := range pts {
			if p.Phase != ph {
				continue
			}
			r := math.Log(p.Measured / p.Predict(e))
			x := xs[i]
			if x[0] == 0 && x[1] == 0 {
				ss += r * r
				n++
				continue
			}
			for u := 0; u < 2; u++ {
				b[u] += x[u] * r
				for v := 0; v < 2; v++ {
					a[u][v] += x[u] * x[v]
				}
			}
		}
		// Residual variance of the reference runs (at least 0.1², the
		// spread of runs that state their settings no better).
		s2 := 0.01
		if n > 1 {
			s2 = math.Max(s2, ss/float64(n-1))
		}
		lambda := s2 / (SettingSpread * SettingSpread)
		a[0][0] += lambda
		a[1][1] += lambda
		if ph == fit.Prefill {
			// The context's factor is decode's alone: the runs that
			// state a context with their prefill come from one server
			// whose 16k and 4k conversions are different models, so
			// the context's effect on a pass cannot be told from the
			// model's (docs/method.md §6, "Runtime settings").
			a[0][1], a[1][0], b[0] = 0, 0, 0
		}
		det := a[0][0]*a[1][1] - a[0][1]*a[1][0]
		if det == 0 {
			continue
		}
		f[k][0] = (b[0]*a[1][1] - b[1]*a[0][1]) / det
		f[k][1] = (a[0][0]*b[1] - a[1][0]*b[0]) / det
	}
	return f
}

// Settings is a class's fitted settings: the factors fitted with the
// level of the device whose runs state them, and the held-out intervals
// of those runs; nil when no run of the class is set up away from its
// runtime's reference.
type Settings struct {
	Device string
	f      factors
	// Cases are the off-reference cases, Held their measured/predicted
	// each predicted by level and factors fitted without its model.
	Cases  []int
	Held   []float64
	Groups int
	// MeasuredContext is the largest context the runs state.
	MeasuredContext int
	Decode, Prefill runtimes.Spread
}

// Factors is the fit as a runtime profile files it.
func (s *Settings) Factors(data string) *runtimes.SettingFactors {
	basis := fmt.Sprintf("factors fitted beside %s's level on its %d published tests set up otherwise (%d models, %s), each shrunk toward no effect (1×)", s.Device, len(s.Cases), s.Groups, data)
	if s.Decode.Low == 0 && s.Prefill.Low == 0 {
		basis += "; too few models for an interval of its own"
	}
	return &runtimes.SettingFactors{ContextDecode: s.f[0][0], ContextPrefill: s.f[1][0], ClocksDecode: s.f[0][1], ClocksPrefill: s.f[1][1],
		Decode: s.Decode, Prefill: s.Prefill, MeasuredContext: s.MeasuredContext, Basis: basis}
}

// Logs are the fitted log factors: [decode, prefill] × [per context
// doubling, default clocks].
func (s *Settings) Logs() [2][2]float64 { return s.f }

// settingsSpread is the 80 % interval of the off-reference runs' held-out
// ratios, each model a group, for one phase.
func (c *Class) settingsSpread(st *Settings, pts []fit.Point, ph fit.Phase) runtimes.Spread {
	var lp []fit.Point
	var held []float64
	groups := map[string]bool{}
	for j, i := range st.Cases {
		p := pts[i]
		if p.Phase != ph {
			continue
		}
		p.Group = c.Cases[i].Setup.Model.Spec.Name
		groups[p.Group] = true
		lp, held = append(lp, p), append(held, st.Held[j])
	}
	if len(lp) < MinSpreadPoints || len(groups) < 2 {
		return runtimes.Spread{}
	}
	return spread(held, lp, ph, "")
}

// SpreadFor is the 80 % interval a prediction of case i carries with the
// device's level: the settings' where the case is set up away from the
// reference and they have one, else the level's, else the class's.
func (c *Class) SpreadFor(lv *Level, i int) runtimes.Spread {
	prefill := c.Cases[i].Run.Test == "prefill"
	pick := func(d, p runtimes.Spread) runtimes.Spread {
		if prefill {
			return p
		}
		return d
	}
	if st := c.Settings; st != nil && c.offReference(i) {
		if sp := pick(st.Decode, st.Prefill); sp.Low > 0 {
			return sp
		}
	}
	if lv != nil {
		if sp := pick(lv.Decode, lv.Prefill); sp.Low > 0 {
			return sp
		}
	}
	return pick(c.Spread, c.PrefillSpread)
}

// sortedKeys is m's keys in order.
func sortedKeys(m map[string][]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
