// Package fit fits roofline's efficiency model (hardware.Efficiency) to
// measured phase times, by least squares on the log of predicted over
// measured time — relative error, the same weight for a 5 ms step and a 5 s
// prefill — with a normal prior on every parameter. The same fit serves
// two ends: the class of a runtime on a kind of engine, fitted to published
// measurements with a weak prior, and one user's engine (roofline
// calibrate), fitted to their runs with the class as its prior, so that two
// or three runs already give a sound profile.
//
// Parameters are fitted in unconstrained coordinates — logit for the shares
// of a peak, log for overheads and half-rows — so every estimate stays in
// range. Standard errors come from the Gauss–Newton approximation of the
// curvature, mapped back to natural units.
package fit

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/roofline/roofline/hardware"
	"gonum.org/v1/gonum/mat"
)

// NParams is the number of efficiency parameters (hardware.ParameterNames).
const NParams = 13

// Parameter indices in hardware.Efficiency.Parameters order.
const (
	PBandwidth = iota
	PStepOverhead
	PLayerOverhead
	PComputeMax
	PHalfRows
	PAttention
	PPassOverhead
	PUnitBandwidth
	PDequant
	PUnitCompute
	PHostWork
	PKQuantGEMV
	PReadShare
)

// Phase names which time a point measured.
type Phase string

// The phases.
const (
	Decode  Phase = "decode"
	Prefill Phase = "prefill"
)

// Point is one measured phase time and how to predict it.
type Point struct {
	Measured float64 // s
	// Predict prices the point's phase at efficiency e, s.
	Predict func(e hardware.Efficiency) float64
	Phase   Phase
	// Group is what leave-one-group-out leaves out together (a device).
	Group string
	// Era is the build of the runtime the point was measured on: 0 the
	// current builds, k ≥ 1 the k-th older era (Prior.Eras of them), whose
	// efficiency is the current one moved by that era's Shift.
	Era int
	// Shared names what the point shares a bias with (its device): the
	// points of one Shared and phase are fitted as draws around a common
	// bias of spread Prior.SharedSpread (see there); "" shares nothing.
	Shared string
	// Family is the family of devices the point was measured on: 0 for
	// the class's reference family (no shift), k ≥ 1 for the k-th of
	// Prior.Families, whose level (Shift.ApplyLevel) is fitted with the
	// class.
	Family int
}

// Prior is a normal prior on each parameter in fitting coordinates
// (logit of a share, log of the rest): Center in natural units, Spread the
// standard deviation in fitting coordinates. A zero Spread holds the
// parameter at its center.
type Prior struct {
	Center hardware.Efficiency
	Spread [NParams]float64
	// Noise is the scatter of one run about the model, as a log ratio:
	// residuals are divided by it, so that a prior's pull and the data's
	// are weighed on one scale. Zero means DefaultNoise.
	Noise float64
	// Eras is how many older eras of the runtime's builds the points
	// span besides the current one; each adds a Shift, held near none by
	// ShiftSpread.
	Eras int
	// SharedSpread is the spread of the bias the points of one Shared
	// group and phase have in common (a device's clocks, power limit,
	// memory), relative to Noise. With it the fit is generalized least
	// squares under that bias: the differences between a group's points
	// weigh in full, their mean as one draw of the bias plus the mean of
	// their noise, so a device measured fifty times does not outweigh
	// fifty devices measured once. Zero treats every point as
	// independent.
	SharedSpread float64
	// Spreads, when set, replace ShiftSpread for the shifts' three
	// coordinates (a level's shift: fit.LevelSpread).
	Spreads *[NShift]float64
	// ApplyShift, when set, is what a shift means (Shift.ApplyLevel for a
	// device's or family's level); nil: an era's (Shift.Apply).
	ApplyShift func(Shift, hardware.Efficiency) hardware.Efficiency
	// Families is how many families of devices besides the reference one
	// the points span; each adds a level (Shift.ApplyLevel, after the
	// era's shift) fitted with the class, held near none by
	// FamilySpreads, so that a family whose host launches kernels an
	// order of magnitude slower (a Jetson's) moves its level, not the
	// class's fixed costs.
	Families      int
	FamilySpreads [NShift]float64
}

// apply is shift s applied to e as the prior means it.
func (p *Prior) apply(s Shift, e hardware.Efficiency) hardware.Efficiency {
	if p.ApplyShift != nil {
		return p.ApplyShift(s, e)
	}
	return s.Apply(e)
}

// shiftSpread is the prior's spread of a shift's coordinate j.
func (p *Prior) shiftSpread(j int) float64 {
	if p.Spreads != nil {
		return p.Spreads[j]
	}
	if j == SRead { // an era's read share: none
		return 0
	}
	return ShiftSpread
}

// Shift is how an older era of a runtime's builds differs from the
// current one, in fitting coordinates: a log factor on every fixed cost,
// a logit shift of the bandwidth share (and a log factor on the cap per
// compute unit: the same kernels keep fewer bytes in flight), and a logit
// shift of the matrix efficiency (ComputeMax). Three numbers per era: the
// kernels of a release change launch costs, memory-bound kernels and
// matrix products, not the shape of the model.
type Shift struct {
	Overhead, Bandwidth, Matmul float64
	// Read is a level's log factor on the share of a measured read its
	// decode streams at (hardware.Shift.Read); an era's is held at none.
	Read float64
}

// NShift is the number of parameters a Shift adds to a fit.
const NShift = 4

// A shift's coordinates in a fit, in Shift's order.
const (
	SOverhead = iota
	SBandwidth
	SMatmul
	SRead
)

// ShiftSpread is the prior's standard deviation of each shift: a factor
// of e either way, loose enough for the 2× prefill changes of a kernel
// rewrite, tight enough that a handful of runs cannot run away with it.
const ShiftSpread = 1.0

// Apply is efficiency e as the era the shift describes runs it.
func (s Shift) Apply(e hardware.Efficiency) hardware.Efficiency {
	f := math.Exp(s.Overhead)
	e.StepOverhead *= f
	e.PassOverhead *= f
	e.LayerOverhead *= f
	e.Bandwidth = logitShift(e.Bandwidth, s.Bandwidth)
	e.UnitBandwidth *= math.Exp(s.Bandwidth)
	e.Dequant = logitShift(e.Dequant, s.Matmul)
	return e
}

// ApplyLevel is efficiency e as a device or a family of devices runs it
// (hardware.Efficiency.Shifted): Matmul is the compute coordinate.
func (s Shift) ApplyLevel(e hardware.Efficiency) hardware.Efficiency {
	return e.Shifted(s.Level())
}

// Level is the shift as a hardware.Shift of a level.
func (s Shift) Level() hardware.Shift {
	return hardware.Shift{Overhead: s.Overhead, Bandwidth: s.Bandwidth, Compute: s.Matmul, Read: s.Read}
}

func logitShift(p, d float64) float64 {
	if d == 0 {
		return p
	}
	p = math.Min(math.Max(p, 1e-6), 1-1e-9)
	return 1 / (1 + math.Exp(-(math.Log(p/(1-p)) + d)))
}

// DefaultNoise is the scatter assumed of one measured run about any model
// of it: about 10 % (repetitions, builds, clocks, thermal state).
const DefaultNoise = 0.10

// WeakPrior centres on c with spreads wide enough that a handful of
// points move every parameter: a factor of e² ≈ 7 either way for costs
// and half-rows, and logit 1.5 for shares. A centre without caps per
// compute unit starts them at PriorUnitBandwidth and PriorUnitCompute,
// and one without host work at PriorHostWork; one without a K-quant
// decode bound holds it at none, and the share of a measured read
// (ReadShare) likewise (the caller frees it where devices have reads).
func WeakPrior(c hardware.Efficiency) Prior {
	if c.UnitBandwidth == 0 {
		c.UnitBandwidth = PriorUnitBandwidth
	}
	if c.UnitCompute == 0 {
		c.UnitCompute = PriorUnitCompute
	}
	if c.HostWork == 0 {
		c.HostWork = PriorHostWork
	}
	p := Prior{Center: c, Spread: [NParams]float64{1.5, 2, 2, 1.5, 2, 1.5, 2, 2, 1.5, 2, 2, 1.5, 0}}
	if c.KQuantGEMV == 0 {
		// No unpacking decode bound: held at none (the caller frees it,
		// centred on PriorKQuantGEMV, where its kernels unpack them).
		p.Spread[PKQuantGEMV] = 0
	}
	return p
}

// PriorKQuantGEMV is where a fit starts the share of the peak a decode
// step's K-quant products run at where the kernels unpack each weight to
// a float (hardware.Efficiency.KQuantGEMV): 0.23, one fused multiply-add
// (the 2 FLOP a weight is counted as) in the 4.4 operations llama.cpp's
// Metal q4_K matrix-vector kernel issues per weight (docs/method.md §6);
// a class that unpacks other types (MLC's int4 groups on CUDA) starts
// there too.
const PriorKQuantGEMV = 0.23

// PriorUnitCompute is where a fit starts the cap on the products' rate per
// compute unit: 1 TFLOP/s, the rated int8 peak of one core of the
// smallest RKNPU (the RK3562's), above what any of them is measured at.
const PriorUnitCompute = 1e12

// PriorHostWork is where a fit starts a runtime's host work per token and
// layer: 1 MFLOP, of the order of a layer's norms, rotary embedding and
// activation (de)quantization for a 2k-wide model (a few operations per
// hidden and intermediate value).
const PriorHostWork = 1e6

// PriorUnitBandwidth is where a fit starts the bandwidth cap per compute
// unit: 30 GB/s, loose enough that no engine in the profiles is held
// back by it (an H100 SXM's 132 SMs would allow 4 TB/s).
const PriorUnitBandwidth = 30e9

// Result is a fitted efficiency.
type Result struct {
	Efficiency hardware.Efficiency
	// Shifts are the older eras' shifts (Prior.Eras of them), ShiftSE
	// their standard errors.
	Shifts  []Shift
	ShiftSE []Shift
	// SE are the standard errors in natural units, Cov the covariance
	// (row-major NParams × NParams, then the shifts); held parameters
	// have zero rows.
	SE  [NParams]float64
	Cov []float64
	// Ratios are measured / predicted per point, in input order.
	Ratios []float64
	// Sigma is the root-mean-square log residual per phase, DOF the
	// points of the phase less the parameters they pin down (Params),
	// rounded down.
	Sigma map[Phase]float64
	DOF   map[Phase]int
	N     map[Phase]int
	// Params is the effective number of parameters the points of each
	// phase spend: the sum of their leverages, the diagonal of the hat
	// matrix J(JᵀJ)⁻¹Jᵀ over the points' rows. The prior's rows take the
	// rest of the free parameters: a parameter the prior holds firmly
	// costs the points little, one they alone determine costs one. With
	// no prior pull it is the count of the parameters that inform the
	// phase.
	Params map[Phase]float64
	Iter   int
	// FamilyShifts are the families' levels (Prior.Families of them).
	FamilyShifts []Shift
	// applyShift is the prior's ApplyShift.
	applyShift func(Shift, hardware.Efficiency) hardware.Efficiency
}

// EfficiencyAt is the fitted efficiency of era k on family f (0: the
// reference family).
func (r *Result) EfficiencyAt(k, f int) hardware.Efficiency {
	e := r.EfficiencyFor(k)
	if f > 0 && f <= len(r.FamilyShifts) {
		e = r.FamilyShifts[f-1].ApplyLevel(e)
	}
	return e
}

// EfficiencyFor is the fitted efficiency of era k (0: the current builds).
func (r *Result) EfficiencyFor(k int) hardware.Efficiency {
	if k <= 0 || k > len(r.Shifts) {
		return r.Efficiency
	}
	return r.apply(r.Shifts[k-1], r.Efficiency)
}

// apply is shift s applied to e as the fit's prior means it.
func (r *Result) apply(s Shift, e hardware.Efficiency) hardware.Efficiency {
	if r.applyShift != nil {
		return r.applyShift(s, e)
	}
	return s.Apply(e)
}

// maps between natural and fitting coordinates
func isShare(i int) bool {
	return i == PBandwidth || i == PComputeMax || i == PAttention || i == PDequant || i == PKQuantGEMV
}

func toX(p []float64) []float64 {
	x := make([]float64, NParams)
	for i, v := range p {
		if isShare(i) {
			v = math.Min(math.Max(v, 1e-6), 1-1e-9)
			x[i] = math.Log(v / (1 - v))
		} else {
			x[i] = math.Log(math.Max(v, 1e-12))
		}
	}
	return x
}

func toP(x []float64) []float64 {
	p := make([]float64, NParams)
	for i, v := range x {
		if isShare(i) {
			p[i] = 1 / (1 + math.Exp(-v))
		} else {
			p[i] = math.Exp(v)
		}
	}
	return p
}

// dPdX is the derivative of a natural parameter by its fitting coordinate.
func dPdX(x []float64) []float64 {
	p := toP(x)
	d := make([]float64, NParams)
	for i := range p {
		if isShare(i) {
			d[i] = p[i] * (1 - p[i])
		} else {
			d[i] = p[i]
		}
	}
	return d
}

// Fit fits the points under the prior.
func Fit(points []Point, prior Prior) (*Result, error) {
	if len(points) == 0 {
		return nil, errors.New("no points to fit")
	}
	for i, pt := range points {
		if !(pt.Measured > 0) || math.IsInf(pt.Measured, 0) {
			return nil, fmt.Errorf("point %d: measured time %g must be positive", i, pt.Measured)
		}
		if pt.Era < 0 || pt.Era > prior.Eras {
			return nil, fmt.Errorf("point %d: era %d, but the prior has %d older eras", i, pt.Era, prior.Eras)
		}
		if pt.Family < 0 || pt.Family > prior.Families {
			return nil, fmt.Errorf("point %d: family %d, but the prior has %d", i, pt.Family, prior.Families)
		}
	}
	// The parameter vector: the current efficiency in fitting coordinates
	// (NParams), then NShift per older era, centred on no shift.
	nEra := NShift * prior.Eras
	np := NParams + nEra + NShift*prior.Families
	center := append(toX(prior.Center.Parameters()), make([]float64, np-NParams)...)
	spread := func(i int) float64 {
		switch {
		case i < NParams:
			return prior.Spread[i]
		case i < NParams+nEra:
			return prior.shiftSpread((i - NParams) % NShift)
		}
		return prior.FamilySpreads[(i-NParams-nEra)%NShift]
	}
	var free []int
	for i := 0; i < np; i++ {
		if spread(i) > 0 {
			free = append(free, i)
		}
	}
	x := append([]float64(nil), center...)
	n, k := len(points), len(free)
	shared := sharedGroups(points, prior.SharedSpread)
	noise := prior.Noise
	if noise <= 0 {
		noise = DefaultNoise
	}
	rows := n + k

	// natural maps fitting coordinates back; held parameters are exactly
	// their centre, even where the map cannot reach it (a cap of 0).
	centerP := prior.Center.Parameters()
	natural := func(x []float64) []float64 {
		p := toP(x[:NParams])
		for i, s := range prior.Spread {
			if s == 0 {
				p[i] = centerP[i]
			}
		}
		return p
	}
	shifts := func(x []float64) []Shift {
		out := make([]Shift, prior.Eras)
		for e := range out {
			o := NParams + NShift*e
			out[e] = Shift{Overhead: x[o], Bandwidth: x[o+1], Matmul: x[o+2], Read: x[o+3]}
		}
		return out
	}
	famShift := func(x []float64, f int) Shift {
		o := NParams + nEra + NShift*(f-1)
		return Shift{Overhead: x[o], Bandwidth: x[o+1], Matmul: x[o+2], Read: x[o+3]}
	}
	// residuals: log(pred/meas) per point, then the prior's pulls.
	resid := func(x []float64) ([]float64, bool) {
		base := hardware.EfficiencyOf(natural(x))
		effs := []hardware.Efficiency{base}
		for _, sh := range shifts(x) {
			effs = append(effs, prior.apply(sh, base))
		}
		var famEffs map[[2]int]hardware.Efficiency
		if prior.Families > 0 {
			famEffs = map[[2]int]hardware.Efficiency{}
		}
		r := make([]float64, rows)
		for i, pt := range points {
			e := effs[pt.Era]
			if pt.Family > 0 {
				k := [2]int{pt.Era, pt.Family}
				fe, ok := famEffs[k]
				if !ok {
					fe = famShift(x, pt.Family).ApplyLevel(e)
					famEffs[k] = fe
				}
				e = fe
			}
			v := pt.Predict(e)
			if !(v > 0) || math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, false
			}
			r[i] = math.Log(v/pt.Measured) / noise
		}
		shared.whiten(r)
		for j, i := range free {
			r[n+j] = (x[i] - center[i]) / spread(i)
		}
		return r, true
	}
	cost := func(r []float64) float64 {
		s := 0.0
		for _, v := range r {
			s += v * v
		}
		return s
	}
	jacobian := func(x, r0 []float64) *mat.Dense {
		J := mat.NewDense(rows, k, nil)
		for j, i := range free {
			h := 1e-5
			xh := append([]float64(nil), x...)
			xh[i] += h
			r1, ok := resid(xh)
			if !ok {
				xh[i] -= 2 * h
				r1, _ = resid(xh)
				h = -h
			}
			for row := 0; row < rows; row++ {
				J.Set(row, j, (r1[row]-r0[row])/h)
			}
		}
		return J
	}

	r, ok := resid(x)
	if !ok {
		return nil, errors.New("the prior's centre prices a point at a non-positive time")
	}
	c := cost(r)
	lambda := 1e-3
	iter := 0
	if k > 0 {
	outer:
		for iter = 0; iter < 200; iter++ {
			J := jacobian(x, r)
			var JtJ mat.Dense
			JtJ.Mul(J.T(), J)
			var g mat.VecDense
			g.MulVec(J.T(), mat.NewVecDense(rows, r))
			improved, converged := false, false
			for tries := 0; tries < 30; tries++ {
				A := mat.DenseCopyOf(&JtJ)
				for d := 0; d < k; d++ {
					A.Set(d, d, A.At(d, d)*(1+lambda)+1e-12)
				}
				var step mat.VecDense
				if err := step.SolveVec(A, &g); err != nil {
					lambda *= 10
					continue
				}
				xn := append([]float64(nil), x...)
				for j, i := range free {
					xn[i] -= step.AtVec(j)
				}
				rn, ok := resid(xn)
				if ok {
					if cn := cost(rn); cn < c {
						converged = c-cn < 1e-10*(1+c)
						x, r, c = xn, rn, cn
						lambda = math.Max(lambda/3, 1e-9)
						improved = true
						break
					}
				}
				lambda *= 4
			}
			if !improved || converged {
				break outer
			}
		}
	}
	res := &Result{Efficiency: hardware.EfficiencyOf(natural(x)), Shifts: shifts(x), ShiftSE: make([]Shift, prior.Eras), Iter: iter, applyShift: prior.ApplyShift,
		FamilyShifts: make([]Shift, prior.Families),
		Sigma:        map[Phase]float64{}, DOF: map[Phase]int{}, N: map[Phase]int{}, Params: map[Phase]float64{}}
	for f := range res.FamilyShifts {
		res.FamilyShifts[f] = famShift(x, f+1)
	}
	ss := map[Phase]float64{}
	raw := append([]float64(nil), r[:n]...)
	shared.color(raw)
	for i, pt := range points {
		lr := raw[i] * noise // back to a log ratio
		res.Ratios = append(res.Ratios, math.Exp(-lr))
		ss[pt.Phase] += lr * lr
		res.N[pt.Phase]++
	}
	var J *mat.Dense
	var inv mat.Dense
	inverted := false
	if k > 0 {
		J = jacobian(x, r)
		var JtJ mat.Dense
		JtJ.Mul(J.T(), J)
		inverted = inv.Inverse(&JtJ) == nil
	}
	for ph := range res.N {
		if inverted {
			res.Params[ph] = 0
			continue
		}
		for _, i := range free {
			if informs(i, ph) {
				res.Params[ph]++
			}
		}
	}
	if inverted {
		// The points' leverages: h_i = J_i (JᵀJ)⁻¹ J_iᵀ.
		var h mat.VecDense
		for i, pt := range points {
			h.MulVec(&inv, J.RowView(i))
			res.Params[pt.Phase] += mat.Dot(J.RowView(i), &h)
		}
	}
	for ph, nn := range res.N {
		res.DOF[ph] = DOF(nn, res.Params[ph])
		res.Sigma[ph] = math.Sqrt(ss[ph] / float64(max(res.DOF[ph], 1)))
	}
	// Covariance: (JᵀJ)⁻¹ scaled by the residual variance of the points,
	// mapped to natural units (the shifts stay in their own coordinates).
	res.Cov = make([]float64, np*np)
	if k > 0 {
		if inverted {
			// The curvature is in units of the assumed noise; rescale by the
			// scatter the points actually show (at least a tenth of it).
			s2 := 0.0
			for i := 0; i < n; i++ {
				s2 += r[i] * r[i]
			}
			s2 /= float64(max(n-k, 1))
			s2 = math.Max(s2, 0.01)
			d := append(dPdX(x[:NParams]), make([]float64, np-NParams)...)
			for i := NParams; i < np; i++ {
				d[i] = 1
			}
			for a, i := range free {
				for b, j := range free {
					res.Cov[i*np+j] = inv.At(a, b) * s2 * d[i] * d[j]
				}
			}
			se := func(i int) float64 { return math.Sqrt(math.Max(res.Cov[i*np+i], 0)) }
			for _, i := range free {
				if i < NParams {
					res.SE[i] = se(i)
				}
			}
			for e := range res.ShiftSE {
				o := NParams + NShift*e
				res.ShiftSE[e] = Shift{Overhead: se(o), Bandwidth: se(o + 1), Matmul: se(o + 2), Read: se(o + 3)}
			}
		}
	}
	return res, nil
}

// DOF is the degrees of freedom of n points that spend params effective
// parameters, rounded down: never more than the points know.
func DOF(n int, params float64) int {
	return max(int(math.Floor(float64(n)-params+1e-9)), 0)
}

// informs reports whether parameter i shapes times of phase ph.
func informs(i int, ph Phase) bool {
	if i >= NParams { // a shift: overhead and bandwidth shape both phases
		switch (i - NParams) % NShift {
		case SMatmul:
			return ph == Prefill
		case SRead:
			return ph == Decode
		}
		return true
	}
	switch i {
	case PBandwidth, PLayerOverhead, PUnitBandwidth, PHostWork:
		return true
	case PStepOverhead, PKQuantGEMV, PReadShare:
		return ph == Decode
	}
	return ph == Prefill
}

// Holdout is the leave-one-group-out error of a fit: each group's points
// predicted by a fit without them.
type Holdout struct {
	// Ratios are measured / predicted per point, in input order, each
	// from the fit that left the point's group out.
	Ratios []float64
}

// LeaveGroupOut refits without each group in turn. Groups with every
// point of a phase are left out whole; a group alone in the data is
// predicted by the prior.
func LeaveGroupOut(points []Point, prior Prior) (*Holdout, error) {
	groups := map[string][]int{}
	var names []string
	for i, p := range points {
		if _, ok := groups[p.Group]; !ok {
			names = append(names, p.Group)
		}
		groups[p.Group] = append(groups[p.Group], i)
	}
	sort.Strings(names)
	h := &Holdout{Ratios: make([]float64, len(points))}
	for _, g := range names {
		var train []Point
		for i, p := range points {
			if p.Group != g {
				train = append(train, points[i])
			}
		}
		fitted := &Result{Efficiency: prior.Center}
		if len(train) > 0 {
			r, err := Fit(train, prior)
			if err != nil {
				return nil, fmt.Errorf("without %s: %w", g, err)
			}
			fitted = r
		}
		for _, i := range groups[g] {
			h.Ratios[i] = points[i].Measured / points[i].Predict(fitted.EfficiencyFor(points[i].Era))
		}
	}
	return h, nil
}

// Quantile is the q-quantile of v by linear interpolation (v unsorted).
func Quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	w := append([]float64(nil), v...)
	sort.Float64s(w)
	pos := q * float64(len(w)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(w)-1)
	return w[lo] + (w[hi]-w[lo])*(pos-float64(lo))
}

// sharedSet is the groups of points that share a bias (Point.Shared, per
// phase), with each group's shrink factor.
type sharedSet struct {
	groups [][]int
	shrink []float64
}

// sharedGroups groups the points by Shared and phase. Under a common bias
// of spread s (relative to the noise) the n points of a group have
// covariance I + s²·11ᵀ; its inverse square root takes c = 1 − 1/√(1+n·s²)
// of the group's mean off each residual: the differences stay, the mean
// is scaled by 1/√(1+n·s²).
func sharedGroups(points []Point, s float64) sharedSet {
	var set sharedSet
	if !(s > 0) {
		return set
	}
	type key struct {
		g  string
		ph Phase
	}
	idx := map[key]int{}
	for i, p := range points {
		if p.Shared == "" {
			continue
		}
		k := key{p.Shared, p.Phase}
		j, ok := idx[k]
		if !ok {
			j = len(set.groups)
			idx[k] = j
			set.groups = append(set.groups, nil)
		}
		set.groups[j] = append(set.groups[j], i)
	}
	for _, g := range set.groups {
		set.shrink = append(set.shrink, 1-1/math.Sqrt(1+float64(len(g))*s*s))
	}
	return set
}

// whiten turns the points' residuals into independent ones (the first
// len(points) entries of r).
func (set sharedSet) whiten(r []float64) {
	for j, g := range set.groups {
		set.shift(r, g, -set.shrink[j])
	}
}

// color undoes whiten.
func (set sharedSet) color(r []float64) {
	for j, g := range set.groups {
		set.shift(r, g, set.shrink[j]/(1-set.shrink[j]))
	}
}

// shift adds f times the group's mean to each of its residuals.
func (set sharedSet) shift(r []float64, g []int, f float64) {
	m := 0.0
	for _, i := range g {
		m += r[i]
	}
	m /= float64(len(g))
	for _, i := range g {
		r[i] += f * m
	}
}
