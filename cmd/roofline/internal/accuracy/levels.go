package accuracy

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/fit"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
)

// A class's levels: how a family of devices, and a device, with published
// runs differ from the class (hardware.Shift), fitted to their own runs
// with the class held and each shift held near none by a prior
// (partial pooling): a family measured on a few runs moves a little, one
// measured on hundreds as far as its runs say. A prediction for a device
// uses the class moved by its family's level and its own
// (runtimes.Runtime.ClassFor); an unmeasured device of a measured family,
// its family's; any other device, the class.

// FamilyLevelSpread is the prior's spread of a family's shift, per
// coordinate (fit.Shift: a log factor on the fixed costs, logit shifts of
// the bandwidth share and of the matrix efficiency): a factor of e^1.5 ≈
// 4.5 on the fixed costs — a Jetson's Cortex-A78AE host and 1 GHz GPU
// against a desktop's — and about a factor of two on the shares.
var FamilyLevelSpread = [fit.NShift]float64{3, 0.7, 0.7, 0}

// DeviceLevelSpread is the prior's spread of a device's shift from its
// family's level: half the family's, as the devices of a family share
// their host, memory technology and kernels' tuning; widened in a class
// whose devices lie far from it (DeviceScatterRef).
var DeviceLevelSpread = [fit.NShift]float64{0.75, 0.35, 0.35, 0.35}

// ModelSpread is the scatter of what the runs of one model from one
// source share on a device beyond the device's level (the model's shapes
// and file, the source's build and setup), relative to the scatter of one
// run. A device's level is fitted with them as draws around a common bias
// of that spread (fit.Prior.SharedSpread), per profile and phase: twenty
// configurations of one model from one source weigh about as much as two
// models in the level, and in full in how they differ from each other, so
// that the level is what the device's models share, which is what a model
// it was not measured on gets. Chosen (before llama.cpp's CPU products
// were priced per tensor type, which moved the Pi 5's prefill) among 0
// (every run a draw of its own, as before), 0.5, 0.75, 1 and 2 with
// DeviceScatterRef at 0.2 (then also scaling the spreads down) by the
// measured devices' error with each model held out (docs/accuracy.md,
// "Measured devices": decode 11.2, 10.5, 9.8, 9.9 and 11.8 %, prefill
// 12.9, 11.9, 11.0, 11.4 and 14.4 %): 1, the scatter of one run as for a
// class's devices (DeviceSpread), against 0.75 for the released rows of
// issue 24 (decode 7.2 % against 8.0 %).
var ModelSpread = 1.0

// DeviceScatterRef is the scatter of a class's devices about it
// (Class.DeviceScatter, a log ratio) up to which a device's level keeps
// the prior's spreads DeviceLevelSpread; a class whose devices lie further
// from it lets a device's level move further, by their ratio up to 4
// times (empirical Bayes: RKLLM's boards, 0.63 from their class, get 3.1
// times the spreads; CUDA's, 0.22, 1.09 times). A class that predicts its
// devices closely does not hold their levels tighter than the prior: its
// scatter rests on three to a dozen devices, and a device unlike them (the
// M1 Max's K-quant decode in the Metal class, 0.08) would be held to
// them. Chosen (as ModelSpread, before the CPU products were priced per
// tensor type) among 0.07, 0.1, 0.15, 0.2 and 0.3 with ModelSpread at 1
// by the measured devices' error with each model held out (then also
// scaling down to 0.25 times: decode 11.2, 10.3, 10.0, 9.9 and 9.4 %,
// prefill 12.1, 12.2, 11.9, 11.4 and 11.5 %): 0.2, against 0.3 for the
// released rows (decode 7.2 % against 8.1 %). Scaling down as well would
// bring the prefill figure from 12.3 to 11.4 %, but hold vLLM's device
// levels, fitted on one to four runs, so near the class that the serving
// medians (docs/accuracy.md, "Serving") would go from 14.3 to 15.2 %.
var DeviceScatterRef = 0.2

// levelSpreads is the prior's spreads of a device's level in a class whose
// devices lie scatter from it: DeviceLevelSpread, widened by
// scatter / DeviceScatterRef where that is above 1, at most 4 times.
func levelSpreads(scatter float64) [fit.NShift]float64 {
	k := math.Min(math.Max(scatter/DeviceScatterRef, 1), 4)
	var out [fit.NShift]float64
	for j, sp := range DeviceLevelSpread {
		out[j] = k * sp
	}
	return out
}

// Level is a family's or a device's fitted shift and what it rests on.
type Level struct {
	Family string
	Device string // the module (a base device's name); "" for a family's level
	Shift  fit.Shift
	// Cases are the class's cases the level was fitted on (its current
	// builds' scored runs), by index.
	Cases []int
	// Held are measured/predicted per case of Cases, each predicted
	// without its group: a family's by a fit without the device's module,
	// a device's by a fit of its level without the case's model.
	Held []float64
	// Groups counts the groups Held left out (modules, or models).
	Groups int
	// Decode and Prefill are the level's 80 % intervals from Held, zero
	// where too few (the class's apply).
	Decode, Prefill runtimes.Spread
}

// module is the physical device a profile describes (hardware.Device.
// Module): a held-out device takes its power modes with it.
func module(d *hardware.Device) string { return d.Module() }

// fitLevel fits the shift of points from efficiency e, under spreads;
// the points of one Shared group (deviceLevel: a model from one source on
// one profile) share a bias of spread ModelSpread.
func fitLevel(points []fit.Point, e hardware.Efficiency, spreads [fit.NShift]float64) (fit.Shift, error) {
	if len(points) == 0 {
		return fit.Shift{}, nil
	}
	pts := append([]fit.Point(nil), points...)
	for i := range pts {
		pts[i].Era, pts[i].Family = 1, 0
	}
	prior := fit.Prior{Center: e, Eras: 1, Spreads: &spreads, ApplyShift: fit.Shift.ApplyLevel, SharedSpread: ModelSpread}
	r, err := fit.Fit(pts, prior)
	if err != nil {
		return fit.Shift{}, err
	}
	return r.Shifts[0], nil
}

// modelSource names the runs that share a bias in a device's level: one
// model from one source (the citation's first word) on one module. The
// bias is the model's file and the source's build and setup, which a
// module's power modes and configurations share: SMOLBENCH-ORIN-NANO's
// Qwen2.5-0.5B in four modes of the Orin Nano is one model in its level,
// not four (the modes' sourced clocks and bandwidths tell them apart).
func modelSource(cs Case) string {
	return module(cs.Setup.Device) + "|" + cs.Setup.Model.Spec.Name + "|" + strings.SplitN(cs.Run.Cited(), " ", 2)[0]
}

// levelCases groups the indices of a class's current-build cases by key.
func (c *Class) levelCases(key func(Case) string) (map[string][]int, []string) {
	by := map[string][]int{}
	var keys []string
	for i, cs := range c.Cases {
		if c.eras[i] != 0 || (c.Scored != nil && !c.Scored[i]) {
			continue
		}
		k := key(cs)
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], i)
	}
	sort.Strings(keys)
	return by, keys
}

func pick(pts []fit.Point, idx []int) []fit.Point {
	out := make([]fit.Point, len(idx))
	for j, i := range idx {
		out[j] = pts[i]
	}
	return out
}

// assignFamilies gives each case its family's index in the fit: the
// family measured on the most modules is the class's reference (no
// shift), every other family a level fitted with the class
// (fit.Prior.Families); a class measured on fewer than MinDevices
// modules has none.
func (c *Class) assignFamilies(prior *fit.Prior) {
	c.family = make([]int, len(c.Cases))
	c.families, c.reference = nil, ""
	if !c.familyLevels {
		return
	}
	mods := map[string]map[string]bool{}
	for _, cs := range c.Cases {
		f := cs.Setup.Device.Family
		if mods[f] == nil {
			mods[f] = map[string]bool{}
		}
		mods[f][module(cs.Setup.Device)] = true
	}
	names := make([]string, 0, len(mods))
	for f := range mods {
		names = append(names, f)
	}
	sort.Slice(names, func(a, b int) bool {
		if len(mods[names[a]]) != len(mods[names[b]]) {
			return len(mods[names[a]]) > len(mods[names[b]])
		}
		return names[a] < names[b]
	})
	c.reference, c.families = names[0], names[1:]
	index := map[string]int{}
	for k, f := range c.families {
		index[f] = k + 1
	}
	for i, cs := range c.Cases {
		c.family[i] = index[cs.Setup.Device.Family]
	}
	prior.Families, prior.FamilySpreads = len(c.families), FamilyLevelSpread
}

// holdOut predicts each group's points by a fit that never saw it: the
// class and its families' levels without the group (a family whose
// every module is left out is predicted at the class), each point at its
// era and family.
func holdOut(pts []fit.Point, prior fit.Prior) ([]float64, error) {
	groups := map[string][]int{}
	var names []string
	for i, p := range pts {
		if _, ok := groups[p.Group]; !ok {
			names = append(names, p.Group)
		}
		groups[p.Group] = append(groups[p.Group], i)
	}
	sort.Strings(names)
	held := make([]float64, len(pts))
	for _, g := range names {
		var train []fit.Point
		for _, p := range pts {
			if p.Group != g {
				train = append(train, p)
			}
		}
		fitted := &fit.Result{Efficiency: prior.Center}
		if len(train) > 0 {
			r, err := fit.Fit(train, prior)
			if err != nil {
				return nil, fmt.Errorf("without %s: %w", g, err)
			}
			fitted = r
		}
		for _, i := range groups[g] {
			held[i] = pts[i].Measured / pts[i].Predict(fitted.EfficiencyAt(pts[i].Era, pts[i].Family))
		}
	}
	return held, nil
}

// fitLevels files the class's family levels (fitted with the class:
// assignFamilies) with their held-out ratios and intervals, and fits a
// level for every module with current-build runs on top of its family's.
func (c *Class) fitLevels(pts []fit.Point) error {
	c.Families, c.DeviceLevels = map[string]*Level{}, map[string]*Level{}
	byFam, _ := c.levelCases(func(cs Case) string { return cs.Setup.Device.Family })
	for k, fam := range c.families {
		idx := byFam[fam]
		lv := &Level{Family: fam, Shift: c.Fit.FamilyShifts[k], Cases: idx}
		// Held out: each module by the class and its family without it.
		mods := map[string]bool{}
		for _, i := range idx {
			lv.Held = append(lv.Held, c.Held[i])
			mods[module(c.Cases[i].Setup.Device)] = true
		}
		lv.Groups = len(mods)
		lv.Decode, lv.Prefill = c.levelSpread(lv, pts, func(i int) string { return module(c.Cases[i].Setup.Device) })
		c.Families[fam] = lv
	}
	c.deviceSpreads = levelSpreads(c.DeviceScatter())
	// A device's level is its module's: its power modes and smaller
	// configurations share it, and differ by their sourced figures.
	byDev, devs := c.levelCases(func(cs Case) string { return module(cs.Setup.Device) })
	c.Settings = nil
	for _, dev := range devs {
		lv, st, err := c.deviceLevel(dev, byDev[dev], pts, true)
		if err != nil {
			return err
		}
		c.DeviceLevels[dev] = lv
		if st != nil {
			if c.Settings != nil {
				return fmt.Errorf("runs of %s and %s are set up away from the reference: settings are fitted beside one device's level", c.Settings.Device, dev)
			}
			c.Settings = st
		}
	}
	return nil
}

// deviceLevel fits device dev's level to its cases idx (and, with
// settings, the settings' factors of its runs set up away from the
// reference), each model held out by a level fitted without it.
func (c *Class) deviceLevel(dev string, idx []int, pts []fit.Point, settings bool) (*Level, *Settings, error) {
	fam := c.Cases[idx[0]].Setup.Device.Family
	e := c.Fit.EfficiencyAt(0, c.family[idx[0]])
	devPts := pick(pts, idx)
	for j, i := range idx {
		devPts[j].Shared = modelSource(c.Cases[i])
	}
	xs := make([][2]float64, len(idx))
	off := false
	for j, i := range idx {
		if settings {
			xs[j] = covariates(c.Cases[i])
		}
		off = off || xs[j] != [2]float64{}
	}
	sh, f, err := fitSettings(devPts, xs, e, c.deviceSpreads)
	if err != nil {
		return nil, nil, fmt.Errorf("device %s: %w", dev, err)
	}
	lv := &Level{Family: fam, Device: dev, Shift: sh, Cases: idx, Held: make([]float64, len(idx))}
	var st *Settings
	if off {
		st = &Settings{Device: dev, f: f}
	}
	// Held out: each model by the device's level (and settings) fitted
	// without it.
	models := map[string][]int{}
	for j, i := range idx {
		m := c.Cases[i].Setup.Model.Spec.Name
		models[m] = append(models[m], j)
	}
	lv.Groups = len(models)
	offModels := map[string]bool{}
	for _, m := range sortedKeys(models) {
		js := models[m]
		var train []fit.Point
		var tx [][2]float64
		in := map[int]bool{}
		for _, j := range js {
			in[j] = true
		}
		for j, p := range devPts {
			if !in[j] {
				train, tx = append(train, p), append(tx, xs[j])
			}
		}
		without, fw, err := fitSettings(train, tx, e, c.deviceSpreads)
		if err != nil {
			return nil, nil, fmt.Errorf("device %s: %w", dev, err)
		}
		for _, j := range js {
			lv.Held[j] = devPts[j].Measured / (devPts[j].Predict(without.ApplyLevel(e)) * fw.mult(devPts[j], xs[j]))
			if st != nil && xs[j] != [2]float64{} {
				st.Cases, st.Held = append(st.Cases, idx[j]), append(st.Held, lv.Held[j])
				st.MeasuredContext = max(st.MeasuredContext, c.Cases[idx[j]].Run.MaxContext)
				offModels[m] = true
			}
		}
	}
	lv.Decode, lv.Prefill = c.levelSpread(lv, pts, func(i int) string { return c.Cases[i].Setup.Model.Spec.Name })
	if st != nil {
		st.Groups = len(offModels)
		st.Decode, st.Prefill = c.settingsSpread(st, pts, fit.Decode), c.settingsSpread(st, pts, fit.Prefill)
	}
	return lv, st, nil
}

// LevelWithoutSettings is device dev's level fitted as if every run were
// set up at the reference (what it was before settings were priced), each
// model held out: the comparison that shows what the settings gain.
func (c *Class) LevelWithoutSettings(dev string) (*Level, error) {
	lv := c.DeviceLevels[dev]
	if lv == nil {
		return nil, fmt.Errorf("no level of %s", dev)
	}
	without, _, err := c.deviceLevel(dev, lv.Cases, c.points(), false)
	return without, err
}

// levelSpread is a level's 80 % intervals from its held-out ratios,
// grouped by group (module or model); zero for a phase with fewer than
// MinSpreadPoints ratios on two groups.
func (c *Class) levelSpread(lv *Level, pts []fit.Point, group func(i int) string) (runtimes.Spread, runtimes.Spread) {
	var lp []fit.Point
	for _, i := range lv.Cases {
		p := pts[i]
		p.Group = group(i)
		lp = append(lp, p)
	}
	one := func(ph fit.Phase) runtimes.Spread {
		n, groups := 0, map[string]bool{}
		for _, p := range lp {
			if p.Phase == ph {
				n++
				groups[p.Group] = true
			}
		}
		if n < MinSpreadPoints || len(groups) < 2 {
			return runtimes.Spread{}
		}
		return spread(lv.Held, lp, ph, "")
	}
	return one(fit.Decode), one(fit.Prefill)
}

// Levels are the class's levels as a runtime profile files them, by
// runtimes.LevelKey, with the words each prediction quotes.
func (c *Class) Levels(data string) map[string]*runtimes.Level {
	out := map[string]*runtimes.Level{}
	name := c.Key.Name()
	for fam, lv := range c.Families {
		basis := fmt.Sprintf("the %s devices' level: fitted on %d published tests on %d of them (%s), shrunk toward %s", fam, len(lv.Cases), lv.Groups, data, c.Key)
		if lv.Decode.Low == 0 && lv.Prefill.Low == 0 {
			basis += "; too few of them for an interval of its own: the class's applies"
		}
		out[runtimes.LevelKey(name, fam, "")] = &runtimes.Level{Shift: lv.Shift.Level(), Decode: lv.Decode, Prefill: lv.Prefill, Basis: basis}
	}
	for dev, lv := range c.DeviceLevels {
		toward := c.Key.String()
		if _, ok := c.Families[lv.Family]; ok {
			toward = "the " + lv.Family + " devices' level of " + toward
		}
		basis := fmt.Sprintf("fitted on %d published tests of %s (%d model", len(lv.Cases), dev, lv.Groups)
		if lv.Groups != 1 {
			basis += "s"
		}
		basis += fmt.Sprintf(", %s), shrunk toward %s", data, toward)
		if lv.Decode.Low == 0 && lv.Prefill.Low == 0 {
			basis += "; too few models for an interval of its own"
		}
		out[runtimes.LevelKey(name, lv.Family, dev)] = &runtimes.Level{Shift: lv.Shift.Level(), Decode: lv.Decode, Prefill: lv.Prefill, Basis: basis}
	}
	return out
}

// DeviceScatter is how far the class's modules lie from it, held out as
// the class is (Held: each module by a fit without it, or each model where
// the class was measured on fewer than MinDevices modules): the root mean
// square over modules, each weighing the same, of each phase's median log
// held-out ratio.
func (c *Class) DeviceScatter() float64 {
	type key struct {
		module  string
		prefill bool
	}
	by := map[key][]float64{}
	for i, cs := range c.Cases {
		if c.Scored != nil && !c.Scored[i] {
			continue
		}
		k := key{module(cs.Setup.Device), cs.Run.Test == "prefill"}
		by[k] = append(by[k], math.Log(c.Held[i]))
	}
	phases := map[string][]float64{}
	for k, v := range by {
		phases[k.module] = append(phases[k.module], fit.Quantile(v, 0.5))
	}
	ss := 0.0
	for _, v := range phases {
		for _, x := range v {
			ss += x * x / float64(len(v))
		}
	}
	if len(phases) == 0 {
		return 0
	}
	return math.Sqrt(ss / float64(len(phases)))
}

// FamilyHeldOut is how a module of family fam nobody has measured is
// predicted, over the family's scored runs in the class (a user asking
// about such a module gets the class moved by the family's level, with the
// family's interval): the cases (by index) and, per case, whether the
// interval that module would carry holds its held-out ratio (Held: the
// class and the family's level fitted without the case's module). That
// interval is the family's, computed from the other modules' held-out
// ratios as the shipped one is from all of them, where those are enough
// for one (MinSpreadPoints on two modules); else the class's without the
// module (Covered). Nil when the class has no level for fam.
func (c *Class) FamilyHeldOut(fam string) (idx []int, covered []bool) {
	if c.Families[fam] == nil {
		return nil, nil
	}
	pts := c.points()
	var lp []fit.Point
	var held []float64
	for i, cs := range c.Cases {
		if c.Scored[i] && cs.Setup.Device.Family == fam {
			p := pts[i]
			p.Group = module(cs.Setup.Device)
			idx, lp, held = append(idx, i), append(lp, p), append(held, c.Held[i])
		}
	}
	for j, i := range idx {
		p := lp[j]
		n, groups := 0, map[string]bool{}
		for _, q := range lp {
			if q.Phase == p.Phase && q.Group != p.Group {
				n++
				groups[q.Group] = true
			}
		}
		in := c.Covered[i]
		if n >= MinSpreadPoints && len(groups) >= 2 {
			s := spread(held, lp, p.Phase, p.Group)
			in = c.Held[i] >= s.Low && c.Held[i] <= s.High
		}
		covered = append(covered, in)
	}
	return idx, covered
}
