package sim

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Verdict is how sure a configuration is to meet its targets.
type Verdict uint8

// The verdicts, worst first.
const (
	// Fails: even the fast end of the interval misses a target, or the
	// configuration does not fit.
	Fails Verdict = iota
	// Uncertain: the prediction's interval straddles a target.
	Uncertain
	// Meets: the slow end of the interval still meets every target.
	Meets
)

func (v Verdict) String() string { return [...]string{"fails", "uncertain", "meets"}[v] }

// DefaultConfidence is how sure a "meets" must be when the targets do not
// say: four times out of five.
const DefaultConfidence = 0.80

// Spread is what a setup's predictions may be off by: log(measured /
// predicted) is taken as normal with mean Mu and deviation Sigma. A
// runtime class's 80 % interval [Low, High] gives Mu = ½(ln Low + ln High)
// and Sigma = (ln High − ln Low) / (2 · 1.2816); a calibration gives its
// residual scatter.
type Spread struct {
	Mu, Sigma float64
}

// z80 is the standard normal's 90th percentile: an 80 % interval spans
// ±z80 deviations.
const z80 = 1.2815515655446004

// Spread is the setup's spread for prefill (TTFT) or decode (TPOT); zero
// when flags replaced the efficiency (nothing measured stands behind it).
func (s *Setup) Spread(prefill bool) Spread {
	in := s.Inputs
	switch {
	case in.FromFlags:
		return Spread{}
	case in.Calibrated && CalibratesPhase(s.Engine.Calibration, prefill):
		c := s.Engine.Calibration
		if prefill {
			return Spread{Sigma: c.PrefillSigma}
		}
		return Spread{Sigma: c.DecodeSigma}
	}
	return s.classSpread(prefill)
}

// classSpread is the runtime class's spread for prefill or decode: what a
// calibration starts from, and what it keeps for a phase its runs did not
// measure.
func (s *Setup) classSpread(prefill bool) Spread {
	iv := s.class.Decode
	if prefill {
		iv = s.class.Prefill
	}
	lo, hi := math.Log(iv.Low), math.Log(iv.High)
	return Spread{Mu: (lo + hi) / 2, Sigma: (hi - lo) / (2 * z80)}
}

// Bounds are the one-sided factors on a prediction at confidence c: the
// measured value is below hi·prediction (and above lo·prediction) with
// probability c each.
func (sp Spread) Bounds(c float64) (lo, hi float64) {
	if sp.Sigma == 0 {
		e := math.Exp(sp.Mu)
		return e, e
	}
	z := distuv.UnitNormal.Quantile(c)
	return math.Exp(sp.Mu - z*sp.Sigma), math.Exp(sp.Mu + z*sp.Sigma)
}

// Judgement is a prediction held against a target.
type Judgement struct {
	Verdict Verdict
	// Margin is target / prediction: above 1 the prediction meets the
	// target with room to spare. MarginLo and MarginHi are its bounds at
	// the confidence asked (MarginLo from the slow end).
	Margin, MarginLo, MarginHi float64
}

// Judge holds a predicted time against a target time (a ceiling) at
// confidence c. A zero target always meets.
func Judge(pred, target float64, sp Spread, c float64) Judgement {
	if target <= 0 {
		return JudgeWithin(pred, target, 1, 1)
	}
	lo, hi := sp.Bounds(c)
	return JudgeWithin(pred, target, lo, hi)
}

// JudgeWithin is Judge with the spread's bounds at the confidence given
// (Spread.Bounds): a planner judging many predictions of one setup
// computes them once.
func JudgeWithin(pred, target, lo, hi float64) Judgement {
	if target <= 0 {
		return Judgement{Verdict: Meets, Margin: math.Inf(1), MarginLo: math.Inf(1), MarginHi: math.Inf(1)}
	}
	j := Judgement{Margin: target / pred, MarginLo: target / (pred * hi), MarginHi: target / (pred * lo)}
	switch {
	case j.MarginLo >= 1:
		j.Verdict = Meets
	case j.MarginHi < 1:
		j.Verdict = Fails
	default:
		j.Verdict = Uncertain
	}
	return j
}

// worse is the worse of two verdicts.
func worse(a, b Verdict) Verdict { return min(a, b) }
