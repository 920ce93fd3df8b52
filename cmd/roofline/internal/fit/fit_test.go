package fit

import (
	"math"
	"testing"

	"github.com/roofline/roofline/hardware"
)

// A toy phase: a decode step streams `bytes` at the bandwidth share of a
// 100 GB/s engine and pays the fixed costs of a 10-layer model. Its time
// is exact arithmetic on the efficiency, so a fit to times it generated
// must give the efficiency back.
func toyStep(bytes float64) func(e hardware.Efficiency) float64 {
	return func(e hardware.Efficiency) float64 {
		return bytes/(e.Bandwidth*100e9) + e.DecodeOverhead(10)
	}
}

// Runs of two eras of builds: the older runs pay twice the fixed costs
// and reach a bandwidth share one logit lower. The fit must recover the
// current efficiency and the shift: log 2 on the overheads, −1 on the
// bandwidth logit.
func TestFitRecoversEraShift(t *testing.T) {
	truth := hardware.Efficiency{Bandwidth: 0.8, StepOverhead: 200e-6, LayerOverhead: 20e-6, ComputeMax: 0.5, HalfRows: 64, Attention: 0.3, PassOverhead: 100e-6, Dequant: 0.9}
	shift := Shift{Overhead: math.Log(2), Bandwidth: -1}
	var pts []Point
	for i, bytes := range []float64{1e6, 3e6, 1e7, 3e7, 1e8, 3e8, 1e9, 3e9} {
		for era := 0; era <= 1; era++ {
			e := truth
			if era == 1 {
				e = shift.Apply(truth)
			}
			p := toyStep(bytes)
			pts = append(pts, Point{Measured: p(e), Predict: p, Phase: Decode, Group: string(rune('a' + i)), Era: era})
		}
	}
	prior := WeakPrior(hardware.Efficiency{Bandwidth: 0.7, StepOverhead: 126e-6, LayerOverhead: 32e-6, ComputeMax: 0.4, HalfRows: 64, Attention: 0.25, PassOverhead: 126e-6, Dequant: 0.9})
	prior.Center.UnitBandwidth, prior.Spread[PUnitBandwidth] = 0, 0
	// Parameters decode times say nothing of stay at the prior.
	for _, i := range []int{PComputeMax, PHalfRows, PAttention, PPassOverhead, PDequant} {
		prior.Spread[i] = 0
	}
	prior.Eras = 1
	prior.Noise = 1e-3 // exact data: let it outweigh the prior
	r, err := Fit(pts, prior)
	if err != nil {
		t.Fatal(err)
	}
	near := func(name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol*math.Abs(want)+1e-12 {
			t.Errorf("%s = %.4g, want %.4g", name, got, want)
		}
	}
	near("bandwidth", r.Efficiency.Bandwidth, truth.Bandwidth, 0.01)
	// Every toy model has 10 layers: only the step's whole fixed cost,
	// 200 µs + 10 × 20 µs = 400 µs, is identified.
	near("fixed cost per step", r.Efficiency.DecodeOverhead(10), 400e-6, 0.02)
	if len(r.Shifts) != 1 {
		t.Fatalf("%d shifts, want 1", len(r.Shifts))
	}
	near("overhead shift", r.Shifts[0].Overhead, shift.Overhead, 0.05)
	near("bandwidth shift", r.Shifts[0].Bandwidth, shift.Bandwidth, 0.05)
	// The older era's efficiency is the current one, shifted.
	old := r.EfficiencyFor(1)
	near("older bandwidth", old.Bandwidth, shift.Apply(truth).Bandwidth, 0.01)
	if r.EfficiencyFor(0) != r.Efficiency {
		t.Error("era 0 is the current efficiency")
	}
	// A point of an era the prior does not have is refused.
	pts[0].Era = 2
	if _, err := Fit(pts, prior); err == nil {
		t.Error("want an error for a point of era 2 with one older era")
	}
}

// Apply moves shares in logit space, so a shifted share stays in (0, 1).
func TestShiftKeepsShares(t *testing.T) {
	e := hardware.Efficiency{Bandwidth: 0.99, Dequant: 0.5, StepOverhead: 1e-4, UnitBandwidth: 10e9}
	for _, d := range []float64{-5, 5} {
		s := Shift{Overhead: d, Bandwidth: d, Matmul: d}.Apply(e)
		if !(s.Bandwidth > 0 && s.Bandwidth < 1 && s.Dequant > 0 && s.Dequant < 1) {
			t.Errorf("shift %g: shares %g, %g out of (0, 1)", d, s.Bandwidth, s.Dequant)
		}
		// e^5 ≈ 148: costs and the unit cap scale by the log factor.
		if got, want := s.StepOverhead, 1e-4*math.Exp(d); math.Abs(got/want-1) > 1e-12 {
			t.Errorf("shift %g: step overhead %g, want %g", d, got, want)
		}
	}
	if (Shift{}).Apply(e) != e {
		t.Error("no shift must leave the efficiency as it is")
	}
}

// One device measured forty times, all its runs 30 % slower than the
// class (its own clocks, say), beside five devices measured once each at
// the class's speed. Fitted as independent points the forty runs set the
// bandwidth share; with their bias shared (Prior.SharedSpread) they weigh
// about as one device, and the share comes out near the truth. The steps
// of the many-run device still tell the fixed cost from the bandwidth
// (their differences weigh in full), and a zero spread is the plain fit.
func TestFitSharedBias(t *testing.T) {
	truth := hardware.Efficiency{Bandwidth: 0.8, StepOverhead: 200e-6, LayerOverhead: 20e-6}
	var pts []Point
	for i := 0; i < 40; i++ {
		p := toyStep(1e6 * math.Pow(1.2, float64(i)))
		pts = append(pts, Point{Measured: 1.3 * p(truth), Predict: p, Phase: Decode, Group: "slow", Shared: "slow"})
	}
	for i, g := range []string{"b", "c", "d", "e", "f"} {
		p := toyStep(1e8 * float64(i+1))
		pts = append(pts, Point{Measured: p(truth), Predict: p, Phase: Decode, Group: g, Shared: g})
	}
	prior := WeakPrior(hardware.Efficiency{Bandwidth: 0.7, StepOverhead: 126e-6, LayerOverhead: 32e-6, ComputeMax: 0.4, HalfRows: 64, Attention: 0.25, PassOverhead: 126e-6})
	prior.Center.UnitBandwidth, prior.Spread[PUnitBandwidth] = 0, 0
	for _, i := range []int{PComputeMax, PHalfRows, PAttention, PPassOverhead, PDequant, PUnitCompute, PHostWork, PLayerOverhead} {
		prior.Spread[i] = 0
	}
	prior.Noise = 0.05
	plain, err := Fit(pts, prior)
	if err != nil {
		t.Fatal(err)
	}
	prior.SharedSpread = 1
	shared, err := Fit(pts, prior)
	if err != nil {
		t.Fatal(err)
	}
	// Independent points: the forty slow runs pull the share towards
	// 0.8/1.3 ≈ 0.62. Shared, the slow device's mean counts as one draw
	// of a bias of spread 1 (in units of the noise) plus the noise of its
	// mean: weight 40/(1+40) ≈ 1, beside 1/(1+1) = 0.5 for each device
	// measured once, so its log bias of log 1.3 = 0.26 moves the class by
	// about 0.26·1/(1+2.5) = 0.075: a share of 0.8/e^0.075 ≈ 0.74.
	if got := plain.Efficiency.Bandwidth; got > 0.68 {
		t.Errorf("plain fit: bandwidth %.3g, expected the slow device to pull it towards 0.62", got)
	}
	if got := shared.Efficiency.Bandwidth; math.Abs(got-0.742) > 0.015 {
		t.Errorf("shared bias: bandwidth %.3g, want about 0.742", got)
	}
	// Ratios are measured over predicted per point, uncorrelated back:
	// the slow device's runs are about 1.3× the shared fit's prediction.
	if r := shared.Ratios[0]; r < 1.15 || r > 1.45 {
		t.Errorf("slow device's ratio %.3g under the shared fit, want about 1.3", r)
	}
	// A zero spread is the fit of independent points, bit for bit.
	prior.SharedSpread = 0
	again, err := Fit(pts, prior)
	if err != nil {
		t.Fatal(err)
	}
	if again.Efficiency != plain.Efficiency {
		t.Errorf("SharedSpread 0: %+v, plain %+v", again.Efficiency, plain.Efficiency)
	}
}

// TestParamsCountThePrior: the parameters the points spend are their
// leverages, so a prior that holds a parameter leaves the points their
// degrees of freedom. Four decode points priced c / η_bw, measured at
// η_bw = 0.5 where the prior centres, with only the bandwidth share free
// (logit x): d log(pred)/dx = −(1 − η) = −0.5, a residual row of
// −0.5 / 0.10 (DefaultNoise) = −5, so JᵀJ = 4 · 25 = 100 from the points
// and 1/s² from the prior; the points spend 100 / (100 + 1/s²):
//
//	s = 0.7:  100 / (100 + 2.041) = 0.980 → 3 degrees of freedom
//	s = 0.05: 100 / (100 + 400)   = 0.200 → 3 (floor of 3.8)
//	s = 0.01: 100 / (100 + 10000) = 0.0099 → 3 (floor of 3.99)
//
// Before, a free parameter cost each phase it informs one, whatever the
// prior: 3 degrees of freedom in every case, and 8 prefill runs of a
// calibration kept 2 of them against its 6 parameters.
func TestParamsCountThePrior(t *testing.T) {
	const c = 1e-3
	var pts []Point
	for range 4 {
		pts = append(pts, Point{Measured: c / 0.5, Phase: Decode, Predict: func(e hardware.Efficiency) float64 { return c / e.Bandwidth }})
	}
	for _, tc := range []struct {
		spread, params float64
		dof            int
	}{{0.7, 100 / (100 + 1/0.49), 3}, {0.05, 0.2, 3}, {0.01, 100.0 / 10100, 3}} {
		p := Prior{Center: hardware.Efficiency{Bandwidth: 0.5, ComputeMax: 0.5, Attention: 0.5, Dequant: 0.5, HalfRows: 1, StepOverhead: 1e-6, PassOverhead: 1e-6, LayerOverhead: 1e-6}}
		p.Spread[PBandwidth] = tc.spread
		r, err := Fit(pts, p)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Params[Decode]; math.Abs(got-tc.params) > 1e-4 {
			t.Errorf("spread %g: the points spend %.5f parameters, want %.5f", tc.spread, got, tc.params)
		}
		if r.DOF[Decode] != tc.dof {
			t.Errorf("spread %g: %d degrees of freedom, want %d", tc.spread, r.DOF[Decode], tc.dof)
		}
	}
	// Two free parameters that two points alone determine spend two: no
	// degree of freedom is left.
	if got := DOF(2, 2-1e-12); got != 0 {
		t.Errorf("DOF(2, 2) = %d", got)
	}
}

// The K-quant decode bound (kquant_gemv) is held at none unless the
// prior centres it, informs decode alone, and is recovered from decode
// steps whose K-quant arithmetic binds on some engines and not others:
// 4.6 GB over 200–800 GB/s beside 15 GFLOP at 10–40 TFLOP/s × 0.08
// (18.8 ms at 10 TFLOP/s, against 23 ms of memory at 200 GB/s; 4.7 ms
// at 40 TFLOP/s, against 5.75 ms at 800 GB/s).
func TestKQuantGEMVFit(t *testing.T) {
	base := hardware.Efficiency{Bandwidth: 0.7, StepOverhead: 126e-6, LayerOverhead: 32e-6, ComputeMax: 0.4, HalfRows: 64, Attention: 0.25, PassOverhead: 126e-6, Dequant: 0.9}
	if s := WeakPrior(base).Spread[PKQuantGEMV]; s != 0 {
		t.Errorf("a prior without the bound frees it (spread %g)", s)
	}
	if !informs(PKQuantGEMV, Decode) || informs(PKQuantGEMV, Prefill) {
		t.Error("kquant_gemv must inform decode and not prefill")
	}
	truth := base
	truth.Bandwidth, truth.KQuantGEMV = 0.8, 0.08
	var pts []Point
	for i, dev := range []struct{ bw, peak float64 }{{250e9, 10e12}, {500e9, 20e12}, {1000e9, 40e12}, {250e9, 20e12}, {500e9, 10e12}} {
		for _, kq := range []float64{0, 1} { // a float file and a K-quant one
			p := func(e hardware.Efficiency) float64 {
				return e.KQuantDecode(4.6e9/(dev.bw*e.Bandwidth), kq*15e9, dev.peak)
			}
			pts = append(pts, Point{Measured: p(truth), Predict: p, Phase: Decode, Group: string(rune('a' + i))})
		}
	}
	prior := WeakPrior(base)
	for i := range prior.Spread {
		if i != PBandwidth {
			prior.Spread[i] = 0
		}
	}
	prior.Center.KQuantGEMV, prior.Spread[PKQuantGEMV] = PriorKQuantGEMV, 1.5
	prior.Noise = 1e-3
	r, err := Fit(pts, prior)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Efficiency.KQuantGEMV; math.Abs(got/0.08-1) > 0.01 {
		t.Errorf("kquant_gemv %.4g, want 0.08 (started at %g)", got, PriorKQuantGEMV)
	}
	if got := r.Efficiency.Bandwidth; math.Abs(got/0.8-1) > 0.01 {
		t.Errorf("bandwidth %.4g, want 0.8", got)
	}
}
