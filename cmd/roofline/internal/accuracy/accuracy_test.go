package accuracy

import (
	"math"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/fit"
)

// With one run per device the device-weighted summary is the plain one;
// a device run many times weighs as one: here device a's nine runs at
// 1.5 against b, c and d at 1.0 each — plain, the median error is 50 %;
// by device, a's weight is a quarter and the median error 0.
func TestSummarizeByDevice(t *testing.T) {
	r := []float64{1.1, 0.8, 1.3, 0.95, 1.02}
	cov := []bool{true, false, true, true, false}
	plain, byDev := Summarize(r, cov), SummarizeByDevice(r, cov, []string{"a", "b", "c", "d", "e"})
	if math.Abs(plain.MdAPE-byDev.MdAPE) > 1e-12 || math.Abs(plain.P90-byDev.P90) > 1e-12 || plain.Coverage != byDev.Coverage {
		t.Errorf("one run per device: plain %+v, by device %+v", plain, byDev)
	}
	var many []float64
	var devs []string
	var c []bool
	for i := 0; i < 9; i++ {
		many, devs, c = append(many, 1.5), append(devs, "a"), append(c, false)
	}
	many, devs, c = append(many, 1, 1, 1), append(devs, "b", "c", "d"), append(c, true, true, true)
	if s := Summarize(many, c); math.Abs(s.MdAPE-0.5) > 1e-12 {
		t.Errorf("plain MdAPE %g, want 0.5", s.MdAPE)
	}
	s := SummarizeByDevice(many, c, devs)
	if s.MdAPE > 1e-12 || math.Abs(s.Coverage-0.75) > 1e-12 {
		t.Errorf("by device: MdAPE %g (want 0), coverage %g (want 0.75)", s.MdAPE, s.Coverage)
	}
	// Equal weights reproduce fit.Quantile.
	for _, q := range []float64{0, 0.1, 0.5, 0.9, 1} {
		if a, b := weightedQuantile(r, []float64{1, 1, 1, 1, 1}, q), fit.Quantile(r, q); math.Abs(a-b) > 1e-12 {
			t.Errorf("q %g: weighted %g, fit.Quantile %g", q, a, b)
		}
	}
}

// A class's interval weighs each device the same: a device whose sources
// published fifty runs sets it about as much as when they published one.
// Four devices near the prediction and one (a) 1.9× slow, as the DGX
// Spark's prefill is: its runs repeated fifty times leave the interval
// about as it is, where counted per run they would be the whole of its upper half.
func TestSpreadWeighsDevices(t *testing.T) {
	build := func(copies int) ([]float64, []fit.Point) {
		var r []float64
		var pts []fit.Point
		for i := 0; i < copies; i++ {
			r, pts = append(r, 1.9), append(pts, fit.Point{Phase: fit.Prefill, Group: "a"})
		}
		for i, v := range []float64{0.9, 1.0, 1.05, 1.1} {
			r, pts = append(r, v), append(pts, fit.Point{Phase: fit.Prefill, Group: string(rune('b' + i))})
		}
		return r, pts
	}
	r1, p1 := build(1)
	r50, p50 := build(50)
	once, many := spread(r1, p1, fit.Prefill, ""), spread(r50, p50, fit.Prefill, "")
	// Not exactly the same: a device's runs share its weight, spread
	// across its place in the order, so the quantiles interpolate a
	// little differently (0.87–1.71 once, 0.85–2.12 fifty times).
	if math.Abs(math.Log(many.Low/once.Low)) > 0.05 || math.Abs(math.Log(many.High/once.High)) > 0.25 {
		t.Errorf("interval with a's run once %+v, fifty times %+v: want about the same", once, many)
	}
	// Per run, fifty of fifty-four ratios at 1.9 would put the 10th
	// percentile above 1; by device it stays below.
	if !(many.Low < 1) {
		t.Errorf("interval %+v: the devices near the prediction should keep its low end below 1", many)
	}
}
