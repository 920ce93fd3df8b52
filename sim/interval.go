package sim

import (
	"fmt"
	"math"
	"strings"

	"github.com/roofline/roofline/hardware"
	"gonum.org/v1/gonum/stat/distuv"
)

// CalibratedLevel is the coverage of the intervals a calibration gives.
const CalibratedLevel = 0.90

// CalibratesPhase reports whether calibration c gives its own interval
// for prefill (TTFT) or decode (TPOT): it measured runs of the phase, more
// than the parameters they inform, so that their scatter about the fit is
// known (degrees of freedom above 0). Otherwise the phase keeps the
// runtime class's interval: a calibration never makes a prediction look
// more certain than the class it started from.
func CalibratesPhase(c *hardware.Calibration, prefill bool) bool {
	if prefill {
		return c.PrefillDOF > 0
	}
	return c.DecodeDOF > 0
}

// intervals sets r's intervals: from the engine's calibration when it has
// one for this runtime, else from the runtime class's spread of measured
// over predicted (leave-one-device-out). Flags that replace the
// efficiency leave them unset: nothing was measured under them.
func (s *Setup) intervals(r *Result) {
	in := &r.Inputs
	if in.FromFlags {
		return
	}
	decodeTime := r.E2E - r.TTFT
	switch {
	case in.Calibrated:
		if c := s.Engine.Calibration; c.MaxBatch > 0 && in.Workload.Batch > c.MaxBatch {
			r.Inputs.Extrapolated = append(r.Inputs.Extrapolated, fmt.Sprintf("batch %d is beyond the calibration's largest (%d)", in.Workload.Batch, c.MaxBatch))
		}
		s.calibratedIntervals(r)
		if len(r.Inputs.Extrapolated) > 0 {
			// Beyond what was measured the fit's scatter understates the
			// error: the intervals are doubled in width about the figure.
			widen(r.TTFTInterval, r.TTFT)
			widen(r.TPOTInterval, r.TPOT)
			widen(r.E2EInterval, r.E2E)
			r.warn("extrapolated", "the calibration is used beyond what it measured (%s): its intervals are doubled", strings.Join(r.Inputs.Extrapolated, "; "))
		}
	default:
		c := s.class
		level := 0.80
		r.TTFTInterval = r.interval(0, Interval{Lo: c.Prefill.Low * r.TTFT, Hi: c.Prefill.High * r.TTFT, Level: level})
		floorAt(r.TTFTInterval, r.TTFTBound, r.TTFT)
		decodeLo := c.Decode.Low * decodeTime
		if !math.IsNaN(r.TPOT) {
			r.TPOTInterval = r.interval(1, Interval{Lo: c.Decode.Low * r.TPOT, Hi: c.Decode.High * r.TPOT, Level: level})
			floorAt(r.TPOTInterval, r.TPOTBound, r.TPOT)
			decodeLo = r.TPOTInterval.Lo / r.TPOT * decodeTime
		}
		// Prefill and decode errors of one device lean the same way more
		// often than not: adding the bounds is the cautious sum, of the
		// ends each raised to its ideal, as a split's are (Split.intervals):
		// E2E's fast end floored at its own ideal alone was faster than
		// the TTFT's and the decode's fast ends together.
		r.E2EInterval = r.interval(2, Interval{Lo: r.TTFTInterval.Lo + decodeLo, Hi: c.Prefill.High*r.TTFT + c.Decode.High*decodeTime, Level: level})
	}
	// No run beats the ideal (dense peak, datasheet bandwidth, no
	// overhead): a spread of measured/predicted fitted on other workloads
	// can reach below it at a large batch, where the prediction sits near
	// the bound. The split path floors its intervals the same way.
	floorAt(r.TTFTInterval, r.TTFTBound, r.TTFT)
	floorAt(r.TPOTInterval, r.TPOTBound, r.TPOT)
	floorAt(r.E2EInterval, r.E2EBound, r.E2E)
	if iv := r.TPOTInterval; iv != nil && r.ThroughputTokensPerS > 0 {
		x := r.ThroughputTokensPerS * r.TPOT
		r.ThroughputInterval = r.interval(3, Interval{Lo: x / iv.Hi, Hi: x / iv.Lo, Level: iv.Level})
	}
	if s.Inputs.MoEDecodeNote != "" || s.Inputs.NPUClockNote != "" {
		r.widenedDecode()
	}
}

// widenedDecode marks the intervals a decode priced on a class widened
// for its MoE decode (moeDecodeClass) takes part in: TPOT, E2E and
// throughput.
func (r *Result) widenedDecode() {
	for _, iv := range []*Interval{r.TPOTInterval, r.E2EInterval, r.ThroughputInterval} {
		if iv != nil {
			iv.Widened = true
		}
	}
}

// calibratedIntervals propagates the calibration's parameter covariance to
// TTFT, TPOT and E2E by the delta method (numerical gradients), adds the
// scatter of a new run about the fit, and scales by Student's t at the
// fit's degrees of freedom.
func (s *Setup) calibratedIntervals(r *Result) {
	c := s.Engine.Calibration
	w := r.Inputs.Workload
	w.Batch = s.Together(w.Batch) // the batch that runs (Predict's rule)
	theta := s.Inputs.Efficiency.Parameters()
	np := len(theta)
	base := s.timesWith(s.Inputs.Efficiency, w)
	var grad [][3]float64
	for i := range theta {
		h := 1e-6 * math.Max(math.Abs(theta[i]), 1e-6)
		th := append([]float64(nil), theta...)
		th[i] += h
		v := s.timesWith(hardware.EfficiencyOf(th), w)
		var g [3]float64
		for k := range v {
			g[k] = (v[k] - base[k]) / h
		}
		grad = append(grad, g)
	}
	variance := func(k int) float64 {
		if len(c.Cov) != np*np {
			return 0
		}
		v := 0.0
		for i := 0; i < np; i++ {
			for j := 0; j < np; j++ {
				v += grad[i][k] * c.Cov[i*np+j] * grad[j][k]
			}
		}
		return math.Max(v, 0)
	}
	decodeTime := base[2] - base[0]
	noise := [3]float64{
		sq(c.PrefillSigma * base[0]),
		sq(c.DecodeSigma * base[1]),
		sq(c.PrefillSigma*base[0]) + sq(c.DecodeSigma*decodeTime),
	}
	interval := func(k, dof int) *Interval {
		if dof <= 0 || math.IsNaN(base[k]) {
			return nil
		}
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dof)}.Quantile(levelConfidence(CalibratedLevel))
		half := t * math.Sqrt(variance(k)+noise[k])
		return r.interval(k, Interval{Lo: math.Max(base[k]-half, 0), Hi: base[k] + half, Level: CalibratedLevel})
	}
	// A phase the runs did not measure keeps its class's interval, at the
	// calibration's level: the class's spread of measured over predicted
	// (Spread.Bounds) about the figure.
	class := func(k int, prefill bool, figure float64) *Interval {
		if math.IsNaN(figure) {
			return nil
		}
		lo, hi := s.classSpread(prefill).Bounds(levelConfidence(CalibratedLevel))
		return r.interval(k, Interval{Lo: lo * figure, Hi: hi * figure, Level: CalibratedLevel})
	}
	pc, dc := CalibratesPhase(c, true), CalibratesPhase(c, false)
	if r.TTFTInterval = interval(0, c.PrefillDOF); !pc {
		r.TTFTInterval = class(0, true, r.TTFT)
	}
	if r.TPOTInterval = interval(1, c.DecodeDOF); !dc {
		r.TPOTInterval = class(1, false, r.TPOT)
	}
	switch {
	case pc && dc:
		r.E2EInterval = interval(2, min(c.PrefillDOF, c.DecodeDOF))
	case r.TTFTInterval != nil && r.TPOTInterval != nil:
		// One phase calibrated, the other the class's: the cautious sum
		// of the bounds, as for a class.
		tt, tp, decodeTime := r.TTFTInterval, r.TPOTInterval, r.E2E-r.TTFT
		r.E2EInterval = r.interval(2, Interval{Lo: tt.Lo + decodeTime*tp.Lo/r.TPOT, Hi: tt.Hi + decodeTime*tp.Hi/r.TPOT, Level: CalibratedLevel})
	case r.TTFTInterval != nil && math.IsNaN(r.TPOT):
		r.E2EInterval = r.interval(2, Interval{Lo: r.TTFTInterval.Lo * r.E2E / r.TTFT, Hi: r.TTFTInterval.Hi * r.E2E / r.TTFT, Level: CalibratedLevel})
	}
}

// timesWith prices workload w under efficiency e: TTFT, mean TPOT (NaN
// without decode steps) and E2E.
func (s *Setup) timesWith(e hardware.Efficiency, w Workload) [3]float64 {
	o := s.WithEfficiency(e)
	p := newPhases(o.Model, w, o.Inputs.FlashAttention)
	pp := p.prefillAt(&o.rates.prefill)
	ttft := pp.sum().time
	e2e, tpot := ttft, math.NaN()
	if steps := w.Output - 1; steps > 0 {
		dp := p.decodeAt(o.decodeRates(w.Batch))
		dec := dp.sum().time
		e2e += dec
		tpot = dec / float64(steps)
	}
	return [3]float64{ttft, tpot, e2e}
}

// interval stores iv as r's interval i (0 TTFT, 1 TPOT, 2 E2E, 3
// throughput) in the result's storage for them, made at the first.
func (r *Result) interval(i int, iv Interval) *Interval {
	if r.intervals == nil {
		r.intervals = new([4]Interval)
	}
	r.intervals[i] = iv
	return &r.intervals[i]
}

func sq(x float64) float64 { return x * x }

// floorAt raises iv's low end to the ideal bound, never past the figure.
func floorAt(iv *Interval, bound, figure float64) {
	if iv == nil {
		return
	}
	iv.Lo = IdealFloor(iv.Lo, bound, figure)
}

// IdealFloor is an interval's low end lo raised to the ideal bound, never
// past the figure: no run beats the ideal (dense peak, datasheet
// bandwidth, no overhead). The one rule of predict's intervals, a split's
// and serve's fast end (serve.Server's step factors).
func IdealFloor(lo, bound, figure float64) float64 {
	if !(bound > 0) || math.IsNaN(figure) {
		return lo
	}
	return max(lo, min(bound, figure))
}

// widen doubles an interval's width about its figure.
func widen(iv *Interval, mid float64) {
	if iv == nil {
		return
	}
	iv.Lo = math.Max(mid-2*(mid-iv.Lo), 0)
	iv.Hi = mid + 2*(iv.Hi-mid)
}

// StepSpread is the step-time interval serving runs are repeated at: the
// factors on prefill and decode passes at the fast and slow ends of the
// setup's interval at confidence level (0.8 for an 80 % interval), both
// 1 when nothing stands behind one (flags replaced the efficiency).
func (s *Setup) StepSpread(level float64) (prefillLo, prefillHi, decodeLo, decodeHi float64) {
	c := levelConfidence(level)
	prefillLo, prefillHi = s.Spread(true).Bounds(c)
	decodeLo, decodeHi = s.Spread(false).Bounds(c)
	if math.IsNaN(prefillLo + prefillHi + decodeLo + decodeHi) {
		return 1, 1, 1, 1
	}
	return
}

// StepSpread is Setup.StepSpread for an offload's steps: each stage's
// class weighted by its share of the time of request w run alone
// (Split.Bounds), as predict's interval weighs them; the main setup's
// when w cannot be priced so.
func (sp *Split) StepSpread(w Workload, level float64) (prefillLo, prefillHi, decodeLo, decodeHi float64) {
	prefillLo, prefillHi, decodeLo, decodeHi, err := sp.Bounds(w, levelConfidence(level))
	if err != nil || math.IsNaN(prefillLo+prefillHi+decodeLo+decodeHi) {
		return sp.Main.StepSpread(level)
	}
	return
}

// levelConfidence is the one-sided confidence of the ends of a two-sided
// interval at level: 0.9 for an 80 % interval.
func levelConfidence(level float64) float64 { return 0.5 + level/2 }
