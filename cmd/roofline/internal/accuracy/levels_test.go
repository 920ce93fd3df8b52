package accuracy

import (
	"fmt"
	"math"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/fit"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/sim"
)

// A device's level widens with its class's scatter above DeviceScatterRef
// (0.2) and never narrows: Metal's devices, 0.08 from their class, keep
// DeviceLevelSpread (fixed costs 0.75; bandwidth, compute and the read
// coordinate 0.35 each); RKLLM's, 0.63, get 0.63 / 0.2 = 3.15 times it
// (0.75 → 2.3625, 0.35 → 1.1025); 2.0 would be 10 times, held at 4.
func TestLevelSpreads(t *testing.T) {
	for _, tc := range []struct {
		scatter float64
		want    [fit.NShift]float64
	}{
		{0, [fit.NShift]float64{0.75, 0.35, 0.35, 0.35}},
		{0.08, [fit.NShift]float64{0.75, 0.35, 0.35, 0.35}},
		{0.2, [fit.NShift]float64{0.75, 0.35, 0.35, 0.35}},
		{0.63, [fit.NShift]float64{2.3625, 1.1025, 1.1025, 1.1025}},
		{2.0, [fit.NShift]float64{3, 1.4, 1.4, 1.4}},
	} {
		got := levelSpreads(tc.scatter)
		for j := range got {
			if math.Abs(got[j]-tc.want[j]) > 1e-12 {
				t.Errorf("scatter %g: spreads %v, want %v", tc.scatter, got, tc.want)
				break
			}
		}
	}
}

// A device measured on model A in twenty configurations, each 1.3 times
// slower than its class predicts, and on models B and C once each at the
// class's time: with every run a draw of its own, the level follows A
// (twenty of 22 runs); with A's runs sharing one bias of ModelSpread (one
// run's scatter), A weighs about as much as two models (its mean's
// variance (1/20 + 1)·σ² against B's and C's 2σ²), and the level — what a
// fourth model gets — lies near (2·1.3 + 1 + 1) / 4 = 1.15, a little
// toward the class (1.11 when written): well below the unpooled level
// (1.26).
func TestDeviceLevelPoolsAModel(t *testing.T) {
	e := hardware.Efficiency{Bandwidth: 0.6, ComputeMax: 0.5, HalfRows: 16, Attention: 0.5, Dequant: 1}
	point := func(ratio float64, shared string) fit.Point {
		return fit.Point{Measured: 0.010 / e.Bandwidth * ratio, Phase: fit.Decode, Shared: shared,
			Predict: func(e hardware.Efficiency) float64 { return 0.010 / e.Bandwidth }}
	}
	factor := func(pooled bool) float64 {
		var pts []fit.Point
		for i := 0; i < 20; i++ {
			s := "A"
			if !pooled {
				s = fmt.Sprintf("A%d", i)
			}
			pts = append(pts, point(1.3, s))
		}
		pts = append(pts, point(1, "B"), point(1, "C"))
		sh, err := fitLevel(pts, e, DeviceLevelSpread)
		if err != nil {
			t.Fatal(err)
		}
		return e.Bandwidth / sh.ApplyLevel(e).Bandwidth // the level's factor on a memory-bound time
	}
	alone, pooled := factor(false), factor(true)
	if !(alone > 1.2) {
		t.Errorf("every run its own draw: the level's factor %.3f, want it near A's 1.3", alone)
	}
	if !(pooled > 1.05 && pooled < 1.15) {
		t.Errorf("A's runs pooled: the level's factor %.3f, want 1.05–1.15 (A weighing as two models of four), well below %.3f", pooled, alone)
	}
}

// One model from one source shares its bias across a module's power
// modes and configurations (its file and the source's build), and not
// across sources or modules.
func TestModelSourceSpansModes(t *testing.T) {
	nano := &hardware.Device{Name: "jetson-orin-nano-8gb"}
	super25 := &hardware.Device{Name: "jetson-orin-nano-super-8gb-25w", VariantOf: "jetson-orin-nano-8gb"}
	agx := &hardware.Device{Name: "jetson-agx-orin-64gb"}
	qwen := &model.Cost{Spec: &model.Spec{Name: "qwen2.5-0.5b"}}
	cs := func(d *hardware.Device, origin string) Case {
		return Case{Run: measured.Run{Origin: origin}, Setup: &sim.Setup{Device: d, Model: qwen}, Device: d.Name}
	}
	a := modelSource(cs(nano, "SMOLBENCH-ORIN-NANO row 3"))
	if b := modelSource(cs(super25, "SMOLBENCH-ORIN-NANO row 9")); a != b {
		t.Errorf("one source's model in two modes of a module: %q and %q, want one group", a, b)
	}
	if b := modelSource(cs(super25, "JLB-NANO row 1")); a == b {
		t.Errorf("two sources share the group %q", a)
	}
	if b := modelSource(cs(agx, "SMOLBENCH-ORIN-NANO row 12")); a == b {
		t.Errorf("two modules share the group %q", a)
	}
}

// A module nobody measured carries its family's interval, here computed
// from the other modules' held-out ratios: modules A (five decode runs
// at 1.0) and B (five at 1.1) give C's the 10th–90th percentiles 1.0 and
// 1.1, widened for two modules (Student's t at 1 degree of freedom, 3.078
// / 1.2816 × √1.5 = 2.94 times about the centre in log: 0.91–1.21),
// which misses C's 2.0; B and C give A's 1.1–2.0 widened to 0.62–3.56,
// which holds A's 1.0. With one other module measured there is no
// family interval, and the class's (Covered) stands.
func TestFamilyHeldOut(t *testing.T) {
	build := func(ratios map[string]float64, covered bool) *Class {
		c := &Class{Families: map[string]*Level{"jetson": {Family: "jetson"}}}
		for _, mod := range []string{"a", "b", "c"} {
			r, ok := ratios[mod]
			if !ok {
				continue
			}
			d := &hardware.Device{Name: mod, Family: "jetson"}
			for i := 0; i < 5; i++ {
				c.Cases = append(c.Cases, Case{Run: measured.Run{Test: measured.Decode}, Setup: &sim.Setup{Device: d}, Device: mod, Measured: 1})
				c.Held, c.Covered, c.Scored = append(c.Held, r), append(c.Covered, covered), append(c.Scored, true)
			}
		}
		c.eras, c.family = make([]int, len(c.Cases)), make([]int, len(c.Cases))
		return c
	}
	c := build(map[string]float64{"a": 1.0, "b": 1.1, "c": 2.0}, true)
	idx, cov := c.FamilyHeldOut("jetson")
	if len(idx) != 15 {
		t.Fatalf("%d cases, want 15", len(idx))
	}
	for j, i := range idx {
		want := c.Cases[i].Device != "c"
		if cov[j] != want {
			t.Errorf("%s (held-out ratio %.2f): covered %v, want %v", c.Cases[i].Device, c.Held[i], cov[j], want)
		}
	}
	// Two modules: each has one other, no family interval: the class's
	// coverage (false here) comes back.
	c = build(map[string]float64{"a": 1.0, "b": 1.1}, false)
	if _, cov := c.FamilyHeldOut("jetson"); len(cov) != 10 || cov[0] || cov[9] {
		t.Errorf("two modules: covered %v, want the class's (false) for all 10", cov)
	}
	if idx, _ := c.FamilyHeldOut("nvidia"); idx != nil {
		t.Errorf("a family without a level: %v, want none", idx)
	}
}
