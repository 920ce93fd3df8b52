package accuracy

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/fit"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/runtimes"
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
	// Four modules weighing the same, three covered (6, 2 and 17 runs)
	// and one not (3 runs): exactly 3/4. Summed run by run in this order
	// (six of 1/6, three of 1/3, two of 1/2, seventeen of 1/17) the weights
	// give 2.9999999999999964 / 3.9999999999999964 = 0.7499999999999998,
	// which a guard at 75 % refused (the Jetson class's decode, 2026-11-28).
	var mods []string
	var mr []float64
	var mc []bool
	for _, m := range []struct {
		name string
		n    int
		in   bool
	}{{"agx", 6, true}, {"thor", 3, false}, {"nano", 2, true}, {"orin-nano", 17, true}} {
		for i := 0; i < m.n; i++ {
			mods, mr, mc = append(mods, m.name), append(mr, 1), append(mc, m.in)
		}
	}
	if s := SummarizeByDevice(mr, mc, mods); s.Coverage != 0.75 {
		t.Errorf("three modules of four covered: coverage %.17g, want exactly 0.75", s.Coverage)
	}
	// Equal weights reproduce fit.Quantile.
	for _, q := range []float64{0, 0.1, 0.5, 0.9, 1} {
		if a, b := weightedQuantile(r, []float64{1, 1, 1, 1, 1}, q), fit.Quantile(r, q); math.Abs(a-b) > 1e-12 {
			t.Errorf("q %g: weighted %g, fit.Quantile %g", q, a, b)
		}
	}
}

// TestSummarizeByGroup: one board (group 1) against three GPUs (group 0),
// each half weighing the same. The board's two tests weigh 1/2 × 1/2 =
// 0.25 each, every GPU's 1/2 × 1/3. Coverage: the board's tests are
// outside, the GPUs' inside: 0.5 (by device it would be 3/4). The
// errors 0.5, 0.5 (board) and 0, 0, 0 (GPUs) put half the weight on 0
// and half on 0.5: the median interpolates between the last GPU's
// position and the first board test's.
func TestSummarizeByGroup(t *testing.T) {
	r := []float64{1.5, 1.5, 1, 1, 1}
	cov := []bool{false, false, true, true, true}
	dev := []string{"pi", "pi", "a100", "h100", "l40s"}
	group := func(d string) int {
		if d == "pi" {
			return 1
		}
		return 0
	}
	s := SummarizeByGroup(r, cov, dev, group)
	if math.Abs(s.Coverage-0.5) > 1e-12 {
		t.Errorf("coverage %g, want 0.5", s.Coverage)
	}
	// Weights sorted by error: 1/6, 1/6, 1/6 (0), 1/4, 1/4 (0.5); total 1,
	// span 1 − 1/12 − 1/8 = 19/24. Positions: the last GPU at
	// (1/2 − 1/12 − 1/12)/(19/24) = 8/19, the first board test at
	// (3/4 − 1/8 − 1/12)/(19/24) = 13/19; the median, at 1/2 = 9.5/19,
	// is 1.5/5 of the way: 0.5 × 0.3 = 0.15.
	if math.Abs(s.MdAPE-0.15) > 1e-12 {
		t.Errorf("MdAPE %g, want 0.15", s.MdAPE)
	}
	if d := SummarizeByDevice(r, cov, dev); math.Abs(d.Coverage-0.75) > 1e-12 {
		t.Errorf("by device coverage %g, want 0.75", d.Coverage)
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

// TestExcludedCitesEachSourceOnce: docs/accuracy.md repeated one
// citation for every excluded test, 108 times on one 5.3 k-character line
// ("LCPP-BENCHES dgx-spark.md @4c7e9893 (prefill); … (decode); …"). Each
// source is now cited once per reason with its places and the tests
// counted; a run without a citation is its file:line.
func TestExcludedCitesEachSourceOnce(t *testing.T) {
	run := func(cited string, test measured.Test, exclude string) measured.Run {
		return measured.Run{File: "runs.csv", Line: 7, Origin: cited, Test: test, Exclude: exclude}
	}
	const moe, flagged = "MoE under llama-batched-bench", "flagged"
	var runs []measured.Run
	for range 54 {
		runs = append(runs, run("LCPP-BENCHES dgx-spark.md @4c7e9893", measured.Prefill, moe), run("LCPP-BENCHES dgx-spark.md @4c7e9893", measured.Decode, moe))
	}
	runs = append(runs, run("XD-GPUBENCH row 133", measured.Prefill, flagged), run("XD-GPUBENCH row 133", measured.Decode, flagged),
		run("XD-GPUBENCH row 134", measured.Prefill, flagged), run("", measured.Decode, flagged), run("", measured.Decode, ""))
	ex, excluded, scored := Excluded(runs)
	if excluded != 112 || scored != 1 || len(ex) != 2 {
		t.Fatalf("%d excluded, %d scored, %d reasons", excluded, scored, len(ex))
	}
	var got []string
	for _, e := range ex {
		for _, s := range e.Sources {
			got = append(got, e.Reason+": "+s.String())
		}
	}
	want := []string{
		"MoE under llama-batched-bench: LCPP-BENCHES dgx-spark.md @4c7e9893 (108 tests: 54 prefill, 54 decode)",
		"flagged: XD-GPUBENCH rows 133, 134 (3 tests: 2 prefill, 1 decode)",
		"flagged: runs.csv:7 (1 decode test)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCoverageExactShare: the interval's coverage, each device weighing
// the same, is the exact share of devices in, so the widening is not
// asked for where the intervals already cover IntervalLevel. Five
// devices of 1, 1, 1, 3 and 7 runs, the 3-run device's runs outside
// their intervals (ratio 2 against [0.8, 1.25]) and every other run
// inside (ratio 1): 4/5 = 0.80 exactly; summed run by run the 1/n
// weights read 0.7999999999999995, which calibrateWidth widened.
func TestCoverageExactShare(t *testing.T) {
	var pts []fit.Point
	var held []float64
	var iv []runtimes.Spread
	for _, d := range []struct {
		name string
		n    int
		in   bool
	}{{"a", 1, true}, {"b", 1, true}, {"c", 1, true}, {"d", 3, false}, {"e", 7, true}} {
		for i := 0; i < d.n; i++ {
			pts = append(pts, fit.Point{Group: d.name})
			held = append(held, map[bool]float64{true: 1, false: 2}[d.in])
			iv = append(iv, runtimes.Spread{Low: 0.8, High: 1.25})
		}
	}
	if c := coverage(held, iv, pts, 1); c != runtimes.IntervalLevel {
		t.Errorf("four devices of five covered: coverage %.17g, want exactly %g", c, runtimes.IntervalLevel)
	}
	if k := calibrateWidth(held, iv, pts); k != 1 {
		t.Errorf("intervals covering %g already: widened %g, want 1", runtimes.IntervalLevel, k)
	}
}

// TestCalibratePhases: each phase is widened to cover IntervalLevel on its
// own held-out ratios, and a phase measured on too few devices takes the
// pooled factor as its floor. Every interval is [0.8, 1.25], centred on 0
// in log with half-width ln 1.25 = 0.2231. Decode on five devices, a, b
// and c at ratio 1 (in), d and e at 1.5 (out): 3/5 = 60 % as computed; the
// next share up, 4/5, needs one of d and e in, and both sit at 1.5, so
// decode is widened until exp(k·0.2231) ≥ 1.5, k ≥ ln 1.5 / ln 1.25 =
// 0.4055 / 0.2231 = 1.817 (bisected to 0.005, rounded up to 0.01: 1.82
// or 1.83). Pooled, a and b (both phases in), c in, d and e out: 3/5
// again, the same factor.
//   - Prefill on three devices, five tests (a 2, b 2, c 1), all at 1:
//     100 % as computed, enough to stand alone (MinCalibrationGroups 3,
//     MinSpreadPoints 5): not widened, k = 1, where the pooled factor
//     would widen it 1.82×.
//   - Prefill on two devices (a, b, one test each), both at 1: its own
//     factor is 1, but two devices are too few to say it covers; the
//     floor gives it the pooled 1.82 (remove the floor and it gets 1).
func TestCalibratePhases(t *testing.T) {
	iv := runtimes.Spread{Low: 0.8, High: 1.25}
	build := func(prefill map[string]int) ([]float64, []runtimes.Spread, []fit.Point) {
		var held []float64
		var ivs []runtimes.Spread
		var pts []fit.Point
		for _, d := range []struct {
			g string
			r float64
		}{{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1.5}, {"e", 1.5}} {
			held, ivs, pts = append(held, d.r), append(ivs, iv), append(pts, fit.Point{Phase: fit.Decode, Group: d.g})
		}
		for _, g := range []string{"a", "b", "c"} {
			for i := 0; i < prefill[g]; i++ {
				held, ivs, pts = append(held, 1), append(ivs, iv), append(pts, fit.Point{Phase: fit.Prefill, Group: g})
			}
		}
		return held, ivs, pts
	}
	const kLow, kHigh = 1.817, 1.83
	for _, tc := range []struct {
		name          string
		prefill       map[string]int
		wantPrefillK1 bool // prefill stands alone: k = 1
	}{
		{"prefill on three devices, five tests", map[string]int{"a": 2, "b": 2, "c": 1}, true},
		{"prefill on two devices (floor)", map[string]int{"a": 1, "b": 1}, false},
	} {
		held, ivs, pts := build(tc.prefill)
		raw, k := calibratePhases(held, ivs, pts)
		d, p := PhaseIndex(fit.Decode), PhaseIndex(fit.Prefill)
		if raw[d] != 0.6 || raw[p] != 1 {
			t.Errorf("%s: coverage as computed %v (decode, prefill), want 0.6 and 1", tc.name, raw)
		}
		if k[d] < kLow || k[d] > kHigh {
			t.Errorf("%s: decode widened %g, want %g–%g", tc.name, k[d], kLow, kHigh)
		}
		if tc.wantPrefillK1 && k[p] != 1 {
			t.Errorf("%s: prefill widened %g, want 1 (it covers on its own)", tc.name, k[p])
		}
		if !tc.wantPrefillK1 && (k[p] < kLow || k[p] > kHigh) {
			t.Errorf("%s: prefill widened %g, want the pooled factor's floor %g–%g", tc.name, k[p], kLow, kHigh)
		}
	}
}
