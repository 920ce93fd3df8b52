package accuracy

import (
	"fmt"
	"math"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/roofline/roofline/cmd/roofline/internal/fit"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
)

func expCases(t *testing.T) (Key, []Case) {
	b, err := os.ReadFile("../../testdata/public/runs.csv")
	if err != nil {
		t.Fatal(err)
	}
	res, err := measured.Read("runs.csv", b)
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := profiles.Builtin()
	cases, _ := Load(cat, res.Runs)
	var out []Case
	var k Key
	for _, c := range cases {
		if c.Class.Runtime == "llama.cpp" && c.Class.Kind == hardware.GPU && c.Class.Backend == "cuda" {
			out = append(out, c)
			k = c.Class
		}
	}
	return k, out
}

func med(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	w := append([]float64(nil), v...)
	sort.Float64s(w)
	return w[len(w)/2]
}

func report(t *testing.T, name string, c *Class) {
	e := c.Fit.Efficiency
	t.Logf("%s: cost %.3f iter %d bw %.3f cmax %.3f half %.2f att %.3f step %.0fus pass %.0fus layer %.2fus dq %.3f ubw %.3g host %.3g kq %.3f fam %+v",
		name, c.Fit.Cost, c.Fit.Iter, e.Bandwidth, e.ComputeMax, e.HalfRows, e.Attention, e.StepOverhead*1e6, e.PassOverhead*1e6, e.LayerOverhead*1e6, e.Dequant, e.UnitBandwidth, e.HostWork, e.KQuantGEMV, c.Fit.FamilyShifts)
	t.Logf("  sigma %v N %v SE bw %.3f layer %.2gus step %.2gus", c.Fit.Sigma, c.Fit.N, c.Fit.SE[fit.PBandwidth], c.Fit.SE[fit.PLayerOverhead]*1e6, c.Fit.SE[fit.PStepOverhead]*1e6)
	// per-test class MdAPE held
	var d, p []float64
	dev := map[string][2][]float64{}
	for i, cs := range c.Cases {
		a := math.Abs(1/c.Held[i] - 1)
		k := 1
		if cs.Run.Test == measured.Decode {
			k = 0
			d = append(d, a)
		} else {
			p = append(p, a)
		}
		x := dev[cs.Device]
		x[k] = append(x[k], a)
		dev[cs.Device] = x
	}
	t.Logf("  class held per test decode %.1f%% (n %d) prefill %.1f%% (n %d)", 100*med(d), len(d), 100*med(p), len(p))
	var names []string
	for n := range dev {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("    %-28s decode %5.1f%% (%3d) prefill %5.1f%% (%3d)", n, 100*med(dev[n][0]), len(dev[n][0]), 100*med(dev[n][1]), len(dev[n][1]))
	}
	idx, cov := c.FamilyHeldOut("jetson")
	var r [2][]float64
	var in [2][]bool
	var mod [2][]string
	for j, i := range idx {
		cs := c.Cases[i]
		k := 0
		if cs.Run.Test == measured.Prefill {
			k = 1
		}
		r[k], in[k], mod[k] = append(r[k], c.Held[i]), append(in[k], cov[j]), append(mod[k], cs.Setup.Device.Module())
	}
	for k := range r {
		s := SummarizeByDevice(r[k], in[k], mod[k])
		t.Logf("  jetson by module phase %d: MdAPE %.1f%% cov %.1f%%", k, 100*s.MdAPE, 100*s.Coverage)
	}
}

func runVariant(t *testing.T, name string, k Key, cases []Case, serial bool, start *fit.Result) *Class {
	sim.SerialPrefillExp = serial
	defer func() { sim.SerialPrefillExp = false; fit.StartExp = nil; fit.StartShiftsExp = nil }()
	if start != nil {
		e := start.Efficiency
		fit.StartExp = &e
		fit.StartShiftsExp = start.X[fit.NParams:]
	}
	t0 := time.Now()
	c, err := fitClass(k, cases, true)
	if err != nil {
		t.Fatal(err)
	}
	fit.StartExp, fit.StartShiftsExp = nil, nil
	c.Scored = make([]bool, len(c.Cases))
	for i := range c.Scored {
		c.Scored[i] = true
	}
	if err := c.fitLevels(c.points()); err != nil {
		t.Fatal(err)
	}
	report(t, fmt.Sprintf("%s (%.0fs)", name, time.Since(t0).Seconds()), c)
	return c
}

// TestZZExp: EXPERIMENT (branch ub-serial, reverted): the llama.cpp CUDA
// class refitted under the serial prefill rule and the fit designs of
// docs/method.md's paragraph on it. Run with -v.
func TestZZExp(t *testing.T) {
	k, cases := expCases(t)
	t.Logf("%s: %d cases", k, len(cases))
	a := runVariant(t, "main rule", k, cases, false, nil)
	b := runVariant(t, "serial, prior start", k, cases, true, nil)
	runVariant(t, "serial, start at main optimum", k, cases, true, a.Fit)
	runVariant(t, "main rule, start at serial optimum", k, cases, false, b.Fit)
	for i, cs := range a.Cases {
		if cs.Device == "dgx-spark" && cs.Run.Test == measured.Decode {
			t.Logf("SPARK %-28s B%-3d main %.3f serial %.3f (x%.3f)", cs.Setup.Model.Spec.Name, cs.Run.Batch, a.Held[i], b.Held[i], b.Held[i]/a.Held[i])
		}
	}
	var sub []Case
	for _, cs := range cases {
		rows := cs.Run.Prompt
		if u := cs.Run.UBatch; u > 0 && u < rows {
			rows = u
		}
		if cs.Run.Test == measured.Decode || rows > 128 {
			sub = append(sub, cs)
		} else {
			t.Logf("SMALL %s %s rows %d", cs.Device, cs.Setup.Model.Spec.Name, rows)
		}
	}
	runVariant(t, fmt.Sprintf("main rule, prefill > 128 rows only (%d cases)", len(sub)), k, sub, false, nil)
	runVariant(t, fmt.Sprintf("serial, prefill > 128 rows only (%d cases)", len(sub)), k, sub, true, nil)
	sim.DecodeFlatExp = true
	runVariant(t, "decode without half_rows, main rule", k, cases, false, nil)
	runVariant(t, "decode without half_rows, serial", k, cases, true, nil)
	sim.DecodeFlatExp = false
	fit.StagedExp = true
	runVariant(t, "staged, main rule", k, cases, false, nil)
	runVariant(t, "staged, serial", k, cases, true, nil)
	fit.StagedExp = false
}
