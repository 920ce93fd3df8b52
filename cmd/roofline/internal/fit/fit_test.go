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
