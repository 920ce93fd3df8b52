package sim

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a prediction interval, s.
type Interval struct {
	Lo, Hi float64
	Level  float64 // e.g. 0.90
}

// IntervalLevel is the coverage of the intervals Predict reports.
const IntervalLevel = 0.90

// times prices workload w under the tuning in `in`: TTFT, mean TPOT (NaN
// without decode steps) and E2E.
func (s *Setup) times(in Inputs, w Workload) (ttft, tpot, e2e float64) {
	p := newPhases(s.Model, w, in.FlashAttention)
	bw, pk := s.Device.Bandwidth*in.BandwidthEfficiency, in.Peak*in.ComputeEfficiency
	ttft = p.prefill(bw, pk).time + float64(p.passes)*in.PrefillOverhead
	e2e, tpot = ttft, math.NaN()
	if steps := w.Output - 1; steps > 0 {
		dec := p.decode(bw, pk).time + float64(steps)*in.DecodeOverhead
		e2e += dec
		tpot = dec / float64(steps)
	}
	return ttft, tpot, e2e
}

// intervals propagates the calibration's parameter covariance to TTFT,
// TPOT and E2E by the delta method (numerical gradients over decode
// overhead, 1/η_bw, prefill overhead and 1/η_compute), adds the scatter of a
// new run (the fit's relative residual), and scales by Student's t at the
// fit's degrees of freedom.
func (s *Setup) intervals(r *Result, w Workload) {
	c := s.Engine.Calibration
	in := s.Inputs
	theta := []float64{in.DecodeOverhead, 1 / in.BandwidthEfficiency, in.PrefillOverhead, 1 / in.ComputeEfficiency}
	with := func(th []float64) Inputs {
		o := in
		o.DecodeOverhead, o.BandwidthEfficiency, o.PrefillOverhead, o.ComputeEfficiency = th[0], 1/th[1], th[2], 1/th[3]
		return o
	}
	base := [3]float64{}
	base[0], base[1], base[2] = s.times(in, w)
	var grad [4][3]float64
	for i := range theta {
		h := 1e-6 * math.Max(math.Abs(theta[i]), 1e-6)
		th := append([]float64(nil), theta...)
		th[i] += h
		var v [3]float64
		v[0], v[1], v[2] = s.times(with(th), w)
		for k := range v {
			grad[i][k] = (v[k] - base[k]) / h
		}
	}
	// Block-diagonal covariance: decode (θ0, θ1), prefill (θ2, θ3).
	cov := [4][4]float64{}
	dc := c.DecodeCov
	if in.FormatCalibrated {
		dc = c.FormatDecodeCov[in.Weights]
	}
	cov[0][0], cov[0][1], cov[1][0], cov[1][1] = dc[0], dc[1], dc[1], dc[2]
	cov[2][2], cov[2][3], cov[3][2], cov[3][3] = c.PrefillCov[0], c.PrefillCov[1], c.PrefillCov[1], c.PrefillCov[2]
	variance := func(k int) float64 {
		v := 0.0
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				v += grad[i][k] * cov[i][j] * grad[j][k]
			}
		}
		return v
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
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dof)}.Quantile(0.5 + IntervalLevel/2)
		half := t * math.Sqrt(variance(k)+noise[k])
		return &Interval{Lo: math.Max(base[k]-half, 0), Hi: base[k] + half, Level: IntervalLevel}
	}
	r.TTFTInterval = interval(0, c.PrefillDOF)
	r.TPOTInterval = interval(1, c.DecodeDOF)
	if c.PrefillDOF > 0 && c.DecodeDOF > 0 {
		r.E2EInterval = interval(2, min(c.PrefillDOF, c.DecodeDOF))
	}
}

func sq(x float64) float64 { return x * x }
