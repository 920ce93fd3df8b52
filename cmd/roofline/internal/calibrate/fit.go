// Package calibrate fits a device engine's bandwidth and compute efficiencies
// and its fixed overheads to measured runs, by weighted least squares over
// the byte and FLOP account every prediction uses, with standard errors,
// leave-one-out error, and a calibrated profile to predict with.
package calibrate

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// obs is one point of a phase fit: y ≈ a·u + b[g]·v, where u is the
// overhead regressor (1 per decode step, or the number of prefill passes),
// v the roofline term at 100 % of the peak (s), and g the point's group
// (its weight format for decode; one group for prefill).
type obs struct {
	y    float64 // measured seconds
	u, v float64
	g    int
}

// linearFit is the result of a relative least-squares fit.
type linearFit struct {
	a         float64   // overhead, s per step or pass
	b         []float64 // 1/efficiency per group
	cov       [][]float64
	sigma     float64 // relative residual standard deviation
	dof       int
	fixedA    bool
	predicted []float64
}

// covOf is the covariance of (a, b[g]) as [var a, cov, var b].
func (f *linearFit) covOf(g int) [3]float64 {
	if f.cov == nil {
		return [3]float64{}
	}
	if f.fixedA {
		return [3]float64{0, 0, f.cov[g][g]}
	}
	return [3]float64{f.cov[0][0], f.cov[0][g+1], f.cov[g+1][g+1]}
}

// solve fits the b's (and a unless fixA) minimising Σ ((ŷ − y)/y)².
func solve(pts []obs, groups int, fixA bool, aFixed float64) (*linearFit, error) {
	p := groups
	if !fixA {
		p++
	}
	n := len(pts)
	if n < p {
		return nil, fmt.Errorf("%d points for %d unknowns", n, p)
	}
	A := mat.NewDense(n, p, nil)
	y := mat.NewVecDense(n, nil)
	for i, o := range pts {
		w := 1 / o.y
		if fixA {
			A.Set(i, o.g, o.v*w)
			y.SetVec(i, (o.y-aFixed*o.u)*w)
		} else {
			A.Set(i, 0, o.u*w)
			A.Set(i, 1+o.g, o.v*w)
			y.SetVec(i, 1)
		}
	}
	var qr mat.QR
	qr.Factorize(A)
	var x mat.VecDense
	if err := qr.SolveVecTo(&x, false, y); err != nil {
		return nil, errors.New("the points do not determine the parameters (collinear)")
	}
	f := &linearFit{fixedA: fixA, dof: n - p, a: aFixed, b: make([]float64, groups)}
	off := 0
	if !fixA {
		f.a, off = x.AtVec(0), 1
	}
	for g := range f.b {
		f.b[g] = x.AtVec(off + g)
	}
	var rss float64
	f.predicted = make([]float64, n)
	for i, o := range pts {
		f.predicted[i] = f.a*o.u + f.b[o.g]*o.v
		r := (f.predicted[i] - o.y) / o.y
		rss += r * r
	}
	if f.dof > 0 {
		s2 := rss / float64(f.dof)
		f.sigma = math.Sqrt(s2)
		var ata, inv mat.Dense
		ata.Mul(A.T(), A)
		if err := inv.Inverse(&ata); err == nil {
			f.cov = make([][]float64, p)
			for i := range f.cov {
				f.cov[i] = make([]float64, p)
				for j := range f.cov[i] {
					f.cov[i][j] = s2 * inv.At(i, j)
				}
			}
		}
	}
	return f, nil
}

// fitPhase fits one phase with the checks that keep nonsense out: the
// overhead needs points whose work per step differs within a group (else it
// stays at defaultA and a note says so); a fitted efficiency must lie in
// (0, 1]. names labels the groups in messages.
func fitPhase(pts []obs, names []string, defaultA float64, what string) (*linearFit, []string, error) {
	var notes []string
	if len(pts) == 0 {
		return nil, nil, fmt.Errorf("no %s points", what)
	}
	groups := len(names)
	spread := false
	lo := make([]float64, groups)
	hi := make([]float64, groups)
	for g := range lo {
		lo[g], hi[g] = math.Inf(1), math.Inf(-1)
	}
	for _, o := range pts {
		r := o.v / o.u
		lo[o.g], hi[o.g] = math.Min(lo[o.g], r), math.Max(hi[o.g], r)
	}
	for g := range lo {
		if hi[g] >= 1.05*lo[g] {
			spread = true
		}
	}
	fixA := false
	switch {
	case len(pts) < groups+2:
		fixA = true
		notes = append(notes, fmt.Sprintf("%s overhead not determined (%d point(s) for %d efficiencies): kept at the default %.3g ms; add runs of other model sizes or depths", what, len(pts), groups, defaultA*1e3))
	case !spread:
		fixA = true
		notes = append(notes, fmt.Sprintf("%s overhead not determined: the points of each format move about the same bytes (or FLOPs) per step; kept at the default %.3g ms — vary the model size or the depth", what, defaultA*1e3))
	}
	f, err := solve(pts, groups, fixA, defaultA)
	if err != nil {
		return nil, notes, fmt.Errorf("%s: %w", what, err)
	}
	if !fixA && f.a < 0 {
		notes = append(notes, fmt.Sprintf("%s overhead fitted negative (%.3g ms): fixed at 0 and refitted", what, f.a*1e3))
		if f, err = solve(pts, groups, true, 0); err != nil {
			return nil, notes, err
		}
	}
	for g, b := range f.b {
		label := what
		if groups > 1 {
			label = what + " (" + names[g] + ")"
		}
		switch {
		case b <= 0:
			return nil, notes, fmt.Errorf("%s: the points take less time for more work (fitted 1/efficiency %.3g): they are inconsistent — check that they come from one device, runtime and power mode", label, b)
		case b < 1:
			return nil, notes, fmt.Errorf("%s: fitted efficiency %.3g is above 1, faster than the profile's peak: check the profile's %s, the model match, or the measurements", label, 1/b, map[string]string{"decode": "bandwidth", "prefill": "compute peak"}[what])
		}
	}
	return f, notes, nil
}

// looMdAPE is the median error of predicting each point from a fit of the
// others, NaN with fewer than 3 points.
func looMdAPE(pts []obs, names []string, defaultA float64) float64 {
	if len(pts) < 3 {
		return math.NaN()
	}
	var apes []float64
	for i := range pts {
		rest := append(append([]obs(nil), pts[:i]...), pts[i+1:]...)
		// A group left without points cannot predict its held-out point.
		have := false
		for _, o := range rest {
			if o.g == pts[i].g {
				have = true
			}
		}
		if !have {
			apes = append(apes, math.Inf(1))
			continue
		}
		f, _, err := fitPhase(rest, names, defaultA, "loo")
		if err != nil {
			apes = append(apes, math.Inf(1))
			continue
		}
		pred := f.a*pts[i].u + f.b[pts[i].g]*pts[i].v
		apes = append(apes, math.Abs(pred-pts[i].y)/pts[i].y)
	}
	return median(apes)
}

func rSquared(pts []obs, pred []float64) float64 {
	var mean float64
	for _, o := range pts {
		mean += o.y
	}
	mean /= float64(len(pts))
	var ssr, sst float64
	for i, o := range pts {
		ssr += (o.y - pred[i]) * (o.y - pred[i])
		sst += (o.y - mean) * (o.y - mean)
	}
	if sst == 0 {
		return math.NaN()
	}
	return 1 - ssr/sst
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	w := append([]float64(nil), v...)
	sort.Float64s(w)
	if n := len(w); n%2 == 1 {
		return w[n/2]
	}
	n := len(w)
	return (w[n/2-1] + w[n/2]) / 2
}
