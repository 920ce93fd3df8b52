package calibrate

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/fit"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
)

// manyRuns measures n tests on the truth board with 3 % noise, over six
// models: decode steps at any depth up to 8k and prompts of 64 to 2111
// tokens, nearly every test distinct (so no test shares a time).
func manyRuns(tb testing.TB, n int) []measured.Run {
	tb.Helper()
	cat := truthCatalog(tb)
	rng := rand.New(rand.NewSource(1))
	models := []string{"qwen2.5-0.5b", "llama-3.2-1b", "qwen2.5-1.5b", "llama-3.2-3b", "qwen3-4b", "llama-3.1-8b"}
	setups := map[string]*sim.Setup{}
	for _, m := range models {
		r, err := resolve.Resolve(cat, resolve.Selection{Model: m, Hardware: board, Weights: "q4_k_m", Options: sim.DefaultOptions})
		if err != nil {
			tb.Fatal(err)
		}
		setups[m] = r.Setup
	}
	runs := make([]measured.Run, 0, n)
	for i := 0; i < n; i++ {
		m := models[i%len(models)]
		run := measured.Run{Test: measured.Decode, Gen: 128, Depth: rng.Intn(8192)}
		if i%2 == 1 {
			run = measured.Run{Test: measured.Prefill, Prompt: 64 + rng.Intn(2048)}
		}
		run.File, run.Line, run.Model, run.Weights, run.KV, run.Batch, run.UBatch, run.Runtime = "synthetic", i+1, m, "q4_k_m", "f16", 1, 512, "llama.cpp"
		secs := compare.Phase(setups[m], run).Time * math.Exp(0.03*rng.NormFloat64())
		run.TokensPerS = float64(run.Tokens()) / secs
		runs = append(runs, run)
	}
	return runs
}

// BenchmarkCalibrate times a calibration as its runs grow: the joint fit
// and MaxFolds refits for the held-out error, each linear in the runs.
func BenchmarkCalibrate(b *testing.B) {
	cat, _ := profiles.Builtin()
	for _, n := range []int{1000, 8000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			runs := manyRuns(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Calibrate(cat, runs, Options{Options: compare.Options{Hardware: board}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Up to MaxFolds runs the held-out error is leave-one-out: each run
// predicted by a fit without it, exactly as fit.LeaveGroupOut with one
// group per run gives it. Past MaxFolds runs it takes MaxFolds refits.
func TestFolds(t *testing.T) {
	cat, _ := profiles.Builtin()
	for _, n := range []int{12, MaxFolds, 3 * MaxFolds} {
		res, err := Calibrate(cat, manyRuns(t, n), Options{Options: compare.Options{Hardware: board}})
		if err != nil {
			t.Fatal(err)
		}
		if want := min(n, MaxFolds); res.Folds != want {
			t.Errorf("%d runs: %d folds, want %d", n, res.Folds, want)
		}
		if n > MaxFolds {
			continue
		}
		// The same error by explicit leave-one-out, each run alone.
		ev := compare.New(cat, compare.Options{Hardware: board})
		var points []fit.Point
		var dec []float64
		for i, p := range res.Points {
			rs, err := ev.Resolve(p.Run)
			if err != nil {
				t.Fatal(err)
			}
			run, ph := p.Run, fit.Prefill
			if run.Test == measured.Decode {
				ph = fit.Decode
			}
			points = append(points, fit.Point{Measured: run.Seconds(), Phase: ph, Group: fmt.Sprint(i),
				Predict: func(e hardware.Efficiency) float64 { return compare.Phase(rs.Setup.WithEfficiency(e), run).Time }})
		}
		loo, err := fit.LeaveGroupOut(points, ClassPrior(res.Class, res.Device, res.Engine))
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range points {
			if p.Phase == fit.Decode {
				dec = append(dec, math.Abs(1/loo.Ratios[i]-1))
			}
		}
		if got, want := res.Engine.Calibration.LOODecode, fit.Quantile(dec, 0.5); got != want {
			t.Errorf("%d runs: held-out decode MdAPE %.9g, leave-one-out %.9g", n, got, want)
		}
	}
}

// A fit prices every point at one efficiency before the next: the runs of
// one setup share its derived setup, made again only for a new efficiency,
// and repeated tests share their time; every time is the one the setup
// derived by WithEfficiency prices.
func TestPricerPricesOncePerEfficiency(t *testing.T) {
	cat := truthCatalog(t)
	var bases [2]*sim.Setup
	for i, m := range []string{"llama-3.2-1b", "qwen3-4b"} {
		r, err := resolve.Resolve(cat, resolve.Selection{Model: m, Hardware: board, Weights: "q4_k_m", Options: sim.DefaultOptions})
		if err != nil {
			t.Fatal(err)
		}
		bases[i] = r.Setup
	}
	e1, e2 := truth, truth
	e2.Bandwidth = 0.5
	runs := []measured.Run{
		{Test: measured.Decode, Gen: 128, Depth: 512, Batch: 1, UBatch: 512},
		{Test: measured.Decode, Gen: 128, Depth: 512, Batch: 1, UBatch: 512, Line: 7}, // a repetition
		{Test: measured.Prefill, Prompt: 2048, Batch: 1, UBatch: 512},
	}
	at := newPricer()
	var idx [2][]int
	for j, base := range bases {
		for _, run := range runs {
			idx[j] = append(idx[j], at.add(base, run))
		}
	}
	if len(at.tests) != 4 || idx[0][0] != idx[0][1] {
		t.Errorf("%d tests for 2 setups × 2 distinct tests, indices %v", len(at.tests), idx)
	}
	for _, e := range []hardware.Efficiency{e1, e2} {
		for j, base := range bases {
			for r, run := range runs {
				if got, want := at.time(idx[j][r], e), compare.Phase(base.WithEfficiency(e), run).Time; got != want {
					t.Errorf("%s %s at bandwidth %.2f: %g s, WithEfficiency prices %g s", base.Model.Spec.Name, run.TestName(), e.Bandwidth, got, want)
				}
			}
			if d := at.setups[base]; d.e != e || d.s.Inputs.Efficiency != e {
				t.Errorf("%s: derived at %+v, want %+v", base.Model.Spec.Name, d.e, e)
			}
		}
	}
	if at.setups[bases[0]].s == at.setups[bases[1]].s {
		t.Error("two setups share one derivation")
	}
}
