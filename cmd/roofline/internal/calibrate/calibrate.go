// Package calibrate fits one device engine's efficiency under one runtime
// to measured runs: the same efficiency model and the same fit as the
// runtime classes (package fit), starting from the runtime's class as the
// prior, so that two or three runs already give a sound profile, and
// saying how far the board sits from its class.
package calibrate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/fit"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// Options say what the runs are when the files do not.
type Options struct {
	compare.Options
	// Date labels what the calibration is valid for.
	Date string
}

// Point is one run and what the fit made of it.
type Point struct {
	Run      measured.Run
	Model    string
	Weights  string
	Measured float64 // s: per decode step, or the whole prefill test
	Fitted   float64 // s, from the calibrated efficiency
	Class    float64 // s, from the runtime's class
	Used     bool
	Reason   string // why a point was left out
}

// Result is a calibration of one engine of one device under one runtime.
type Result struct {
	Device  *hardware.Device
	Engine  *hardware.Engine // the engine with its calibration
	Runtime *runtimes.Runtime
	Class   *runtimes.Class // the prior
	Fit     *fit.Result
	Formats []FormatEfficiency
	Points  []Point
	Notes   []string
	// Folds is how many refits the held-out error took: one per run
	// (leave-one-out) up to MaxFolds runs, MaxFolds past that.
	Folds int
}

// FormatEfficiency is a bandwidth efficiency fitted for one weight format.
type FormatEfficiency struct {
	Weights        string
	Efficiency, SE float64
	Points         int
}

// ClassPrior is the prior a calibration starts from: the runtime's class,
// with spreads that let a board sit well away from its class — logit 0.7
// for shares (0.70 becomes 0.53–0.82 at one standard deviation), and a
// factor of e ≈ 2.7 for costs and half-rows — but keep two or three runs
// from pulling a parameter they say nothing about. One board's runs
// measure its achieved bandwidth directly: the class's cap per compute
// unit is folded into the bandwidth share the fit starts from (the share
// the class gives this engine) and dropped; the dequantizing factor stays
// the class's.
func ClassPrior(c *runtimes.Class, d *hardware.Device, e *hardware.Engine) fit.Prior {
	center := c.Efficiency
	if d.Bandwidth > 0 {
		center.Bandwidth = c.AchievedBandwidth(d.Bandwidth, e.Units) / d.Bandwidth
	}
	center.UnitBandwidth = 0
	// A cap on the products per compute unit and the host work, where
	// the class has them, move as costs do; where it has none they stay
	// none; so does the K-quant decode bound (kquant_gemv), a share.
	var unit, host, kq, rs float64
	if center.UnitCompute > 0 {
		unit = 1
	}
	if center.HostWork > 0 {
		host = 1
	}
	if center.KQuantGEMV > 0 {
		kq = 0.7
	}
	switch {
	case center.ReadShare > 0 && e.Kind == hardware.GPU && d.MeasuredBandwidth > 0:
		rs = 0.7
	default:
		// A share of a read the device has none of (or its engine
		// streams no decode at): it moves nothing, and a profile refuses
		// one (hardware.Device.Validate), so the calibration holds none.
		center.ReadShare = 0
	}
	return fit.Prior{Center: center, Spread: [fit.NParams]float64{0.7, 1, 1, 0.7, 1, 0.7, 1, 0, 0, unit, host, kq, rs}}
}

// MaxFolds bounds the refits of the held-out error: up to MaxFolds runs
// each is left out alone (leave-one-out); past it, run i is held out with
// the runs i ± k·MaxFolds, so the error costs MaxFolds refits however
// many runs there are, and a calibration stays linear in its runs.
const MaxFolds = 20

// pricer prices runs at the efficiency a fit asks for. A fit prices every
// point at one efficiency, then at the next: the runs that share a setup
// (one model and format) share its setup derived at that efficiency, and
// the runs of one test on it (repetitions, files of one sweep) share its
// time. Each distinct setup and test is priced once per efficiency, and a
// run finds its test by index, computed once when it is added.
type pricer struct {
	setups map[*sim.Setup]*derived
	index  map[test]int
	tests  []priced
}

// test is a setup and what of a run its predicted time depends on.
type test struct {
	setup                             *sim.Setup
	kind                              measured.Test
	prompt, gen, depth, batch, ubatch int
}

// derived is a setup at the efficiency last asked for.
type derived struct {
	base *sim.Setup
	e    hardware.Efficiency
	s    *sim.Setup // nil until first asked
}

// priced is a test and its time at the efficiency last asked for.
type priced struct {
	run   measured.Run
	setup *derived
	e     hardware.Efficiency
	t     float64 // s; 0 until first asked
}

func newPricer() *pricer {
	return &pricer{setups: map[*sim.Setup]*derived{}, index: map[test]int{}}
}

// add is the index of run's test on setup s.
func (p *pricer) add(s *sim.Setup, run measured.Run) int {
	k := test{s, run.Test, run.Prompt, run.Gen, run.Depth, run.Batch, run.UBatch}
	i, ok := p.index[k]
	if !ok {
		d := p.setups[s]
		if d == nil {
			d = &derived{base: s}
			p.setups[s] = d
		}
		i = len(p.tests)
		p.index[k] = i
		p.tests = append(p.tests, priced{run: run, setup: d})
	}
	return i
}

// time is test i's phase time at efficiency e, s.
func (p *pricer) time(i int, e hardware.Efficiency) float64 {
	t := &p.tests[i]
	if t.t > 0 && t.e == e {
		return t.t
	}
	d := t.setup
	if d.s == nil || d.e != e {
		d.e, d.s = e, d.base.WithEfficiency(e)
	}
	t.e, t.t = e, compare.Phase(d.s, t.run).Time
	return t.t
}

type item struct {
	pt    int
	setup *sim.Setup
	steps int
}

// Calibrate fits the engine the runs were measured on.
func Calibrate(cat *profiles.Catalog, runs []measured.Run, o Options) (*Result, error) {
	if o.Sim == (sim.Options{}) {
		o.Sim = sim.DefaultOptions
	}
	ev := compare.New(cat, o.Options)
	res := &Result{}
	var items []item
	var target *resolve.Resolved
	for _, r := range runs {
		p := Point{Run: r}
		p.Measured = r.Seconds()
		if r.Test == measured.E2E {
			p.Reason = "an end-to-end run mixes prefill and decode: calibrate fits each phase from runs of that phase"
			res.Points = append(res.Points, p)
			continue
		}
		if o.Hardware != "" && r.Hardware != "" && r.Hardware != o.Hardware {
			p.Reason = "measured on " + r.Hardware + ", not " + o.Hardware
			res.Points = append(res.Points, p)
			continue
		}
		rs, err := ev.Resolve(r)
		if err != nil {
			p.Reason = err.Error()
			res.Points = append(res.Points, p)
			continue
		}
		s := rs.Setup
		for _, w := range rs.Warnings {
			if !slices.Contains(res.Notes, w) {
				res.Notes = append(res.Notes, w)
			}
		}
		p.Model, p.Weights = s.Model.Spec.Name, s.Model.Weights.Name
		if target == nil {
			target = rs
		} else if s.Device.Name != target.Device.Name || s.Engine.Name != target.Engine.Name || s.Runtime.Name != target.Runtime.Name {
			p.Reason = fmt.Sprintf("measured on %s/%s under %s, not %s/%s under %s: calibrate one device engine and runtime at a time",
				s.Device.Name, s.Engine.Name, s.Runtime.Name, target.Device.Name, target.Engine.Name, target.Runtime.Name)
			res.Points = append(res.Points, p)
			continue
		}
		ph := compare.Phase(s, r)
		if r.Seconds() < ph.IdealTime*(1-compare.BoundTolerance) {
			p.Reason = fmt.Sprintf("faster than the physical limit (%s at 100 %% of the peaks): the device, model or format is not what ran", units.FormatDuration(ph.IdealTime))
			res.Points = append(res.Points, p)
			continue
		}
		if r.Test == measured.Decode {
			p.Measured /= float64(ph.Steps)
		}
		res.Points = append(res.Points, p)
		items = append(items, item{len(res.Points) - 1, s, ph.Steps})
	}
	if target == nil {
		return res, errors.New("no run could be resolved to a model and device (see the excluded points)")
	}
	if len(items) == 0 {
		return res, errors.New("every run is faster than the physical limit of the device: check --hardware, --model and --weights")
	}
	dev, base, rt := target.Device, target.Engine, target.Runtime
	class := rt.ClassFor(dev, base)
	res.Device, res.Runtime, res.Class = dev, rt, class
	if !class.Fitted {
		res.Notes = append(res.Notes, fmt.Sprintf("no published measurements of %s on %s engines: the fit starts from a wide prior, so more runs are needed for a tight profile", rt.Name, base.Kind))
	}

	// One point per run: its whole measured time.
	points := make([]fit.Point, len(items))
	at := newPricer()
	for i, it := range items {
		run := res.Points[it.pt].Run
		k := at.add(it.setup, run)
		per := 1.0
		if run.Test == measured.Decode {
			per = float64(it.steps)
		}
		ph := fit.Prefill
		if run.Test == measured.Decode {
			ph = fit.Decode
		}
		points[i] = fit.Point{Measured: res.Points[it.pt].Measured * per, Phase: ph, Group: fmt.Sprint(i % MaxFolds),
			Predict: func(e hardware.Efficiency) float64 { return at.time(k, e) }}
	}
	prior := ClassPrior(class, dev, base)
	weights := make([]string, len(items))
	for i, it := range items {
		weights[i] = res.Points[it.pt].Weights
	}
	m, err := fitModel(points, weights, prior)
	if err != nil {
		return res, err
	}
	f := m.joint
	res.Fit, res.Formats = f, m.formats
	res.Notes = append(res.Notes, m.notes...)
	loo, err := heldOut(points, weights, prior)
	if err != nil {
		return res, err
	}
	res.Folds = min(len(points), MaxFolds)
	cal := &hardware.Calibration{Runtime: rt.Name, Efficiency: f.Efficiency, Cov: f.Cov, FormatBandwidth: m.bandwidth,
		Device: dev.Name, PowerMode: dev.PowerMode, Engine: base.Name, Date: o.Date,
		DecodePoints: f.N[fit.Decode], PrefillPoints: f.N[fit.Prefill], Prior: rt.Name + " on " + string(base.Kind) + " engines"}
	// The scatter of a new run is the scatter of the runs about what the
	// profile predicts of them: per-format bandwidth shares included.
	ratios := make([]float64, len(points))
	for i := range points {
		ratios[i] = points[i].Measured / points[i].Predict(m.at(weights[i]))
	}
	cal.DecodeSigma, cal.DecodeDOF = m.scatter(points, ratios, fit.Decode)
	cal.PrefillSigma, cal.PrefillDOF = m.scatter(points, ratios, fit.Prefill)
	var dAPE, pAPE []float64
	var dFit, pFit []float64
	for i, it := range items {
		p := &res.Points[it.pt]
		p.Used = true
		per := 1.0
		if p.Run.Test == measured.Decode {
			per = float64(it.steps)
		}
		p.Fitted = points[i].Predict(m.at(p.Weights)) / per
		p.Class = points[i].Predict(class.Efficiency) / per
		ape := math.Abs(1/loo[i] - 1)
		if points[i].Phase == fit.Decode {
			dAPE, dFit = append(dAPE, ape), append(dFit, p.Class/p.Fitted)
		} else {
			pAPE, pFit = append(pAPE, ape), append(pFit, p.Class/p.Fitted)
		}
		cal.MaxBatch = max(cal.MaxBatch, p.Run.Batch)
		cal.Formats = appendUnique(cal.Formats, p.Weights)
	}
	cal.LOODecode, cal.LOOPrefill = fit.Quantile(dAPE, 0.5), fit.Quantile(pAPE, 0.5)
	cal.R2Decode, cal.R2Prefill = r2(points, ratios, fit.Decode), r2(points, ratios, fit.Prefill)
	cal.DecodeShift, cal.PrefillShift = geomean(dFit), geomean(pFit)
	if f.N[fit.Decode] == 0 {
		res.Notes = append(res.Notes, "no decode run: bandwidth and step overhead stay near the runtime's class")
	}
	if f.N[fit.Prefill] == 0 {
		res.Notes = append(res.Notes, "no prefill run: matrix efficiency and pass overhead stay near the runtime's class; add prompts of several lengths (llama-bench -p 64,512,2048)")
	}

	var builds, files []string
	for _, p := range res.Points {
		if p.Used {
			builds = appendUnique(builds, p.Run.Build)
			files = appendUnique(files, p.Run.File)
		}
	}
	cal.Build, cal.Files = strings.Join(builds, ", "), files
	if len(builds) > 1 {
		res.Notes = append(res.Notes, "the runs come from several builds ("+cal.Build+"): calibrations are valid for one runtime build")
	}
	e := *base
	e.Calibration = cal
	res.Engine = &e
	if err := res.calibratedDevice().Validate(); err != nil {
		return res, fmt.Errorf("the fit gives an invalid profile: %w", err)
	}
	return res, nil
}

// model is what a calibration predicts a run with, and what the written
// profile predicts: the joint efficiency, and per weight format the
// bandwidth share fitted for it (hardware.Calibration.BandwidthFor). The
// fitted times, R², the scatter and the held-out error are all computed
// from it, so that the figures calibrate prints are the profile's.
type model struct {
	joint     *fit.Result
	bandwidth map[string]float64 // nil: one share for every format
	formats   []FormatEfficiency
	// params is the effective parameters the per-format shares spend
	// (their fits' leverages), beside the joint fit's.
	params float64
	notes  []string
}

// at is the efficiency the model predicts weights w with.
func (m *model) at(w string) hardware.Efficiency {
	e := m.joint.Efficiency
	if b, ok := m.bandwidth[w]; ok {
		e.Bandwidth = b
	}
	return e
}

// fitModel fits the joint efficiency, then a bandwidth share per weight
// format when the decode runs hold at least two points of each of
// several formats, every other parameter held at the joint fit. A GPU
// that decodes at a share of its measured read (ClassPrior frees
// read_share) gets none: the bandwidth share moves no decode there.
func fitModel(points []fit.Point, weights []string, prior fit.Prior) (*model, error) {
	f, err := fit.Fit(points, prior)
	if err != nil {
		return nil, err
	}
	m := &model{joint: f}
	if prior.Spread[fit.PReadShare] > 0 {
		m.notes = append(m.notes, "one read share for every format: decode streams the fitted read share of the device's measured read, which a bandwidth share per format would not move")
		return m, nil
	}
	byFormat := map[string][]fit.Point{}
	for i, p := range points {
		if p.Phase == fit.Decode {
			byFormat[weights[i]] = append(byFormat[weights[i]], p)
		}
	}
	if len(byFormat) < 2 {
		return m, nil
	}
	var names []string
	for w, pts := range byFormat {
		if len(pts) >= 2 {
			names = append(names, w)
		}
	}
	sort.Strings(names)
	if len(names) < 2 {
		m.notes = append(m.notes, "one bandwidth efficiency for every format: fewer than two decode runs per format")
		return m, nil
	}
	per := fit.Prior{Center: f.Efficiency}
	per.Spread[fit.PBandwidth] = 0.7
	m.bandwidth = map[string]float64{}
	for _, w := range names {
		ff, err := fit.Fit(byFormat[w], per)
		if err != nil {
			continue
		}
		m.bandwidth[w] = ff.Efficiency.Bandwidth
		m.params += ff.Params[fit.Decode]
		m.formats = append(m.formats, FormatEfficiency{Weights: w, Efficiency: ff.Efficiency.Bandwidth, SE: ff.SE[fit.PBandwidth], Points: len(byFormat[w])})
	}
	return m, nil
}

// scatter is the relative scatter of the points of one phase about the
// model (the root mean square of their log ratios over the degrees of
// freedom) and those degrees of freedom: the points less the parameters
// they spend, the prior's pull counted (fit.Result.Params), and the
// per-format shares for decode.
func (m *model) scatter(points []fit.Point, ratios []float64, ph fit.Phase) (float64, int) {
	ss := 0.0
	for i, p := range points {
		if p.Phase == ph {
			ss += math.Log(ratios[i]) * math.Log(ratios[i])
		}
	}
	params := m.joint.Params[ph]
	if ph == fit.Decode {
		params += m.params
	}
	dof := fit.DOF(m.joint.N[ph], params)
	if m.joint.N[ph] == 0 {
		return 0, 0
	}
	return math.Sqrt(ss / float64(max(dof, 1))), dof
}

// heldOut is measured / predicted per point, each predicted by the model
// fitted without its group (Point.Group: the run alone up to MaxFolds
// runs, every MaxFolds-th run past that), per-format shares included. A
// group alone in the data is predicted by the prior.
func heldOut(points []fit.Point, weights []string, prior fit.Prior) ([]float64, error) {
	groups := map[string][]int{}
	var names []string
	for i, p := range points {
		if _, ok := groups[p.Group]; !ok {
			names = append(names, p.Group)
		}
		groups[p.Group] = append(groups[p.Group], i)
	}
	sort.Strings(names)
	out := make([]float64, len(points))
	for _, g := range names {
		var train []fit.Point
		var tw []string
		for i, p := range points {
			if p.Group != g {
				train, tw = append(train, p), append(tw, weights[i])
			}
		}
		m := &model{joint: &fit.Result{Efficiency: prior.Center}}
		if len(train) > 0 {
			var err error
			if m, err = fitModel(train, tw, prior); err != nil {
				return nil, fmt.Errorf("without %s: %w", g, err)
			}
		}
		for _, i := range groups[g] {
			out[i] = points[i].Measured / points[i].Predict(m.at(weights[i]))
		}
	}
	return out, nil
}

// calibratedDevice is the device with the calibrated engine in place.
func (r *Result) calibratedDevice() *hardware.Device {
	d := *r.Device
	d.Engines = append([]hardware.Engine(nil), r.Device.Engines...)
	for i := range d.Engines {
		if d.Engines[i].Name == r.Engine.Name {
			d.Engines[i] = *r.Engine
		}
	}
	d.Sources = map[string]string{}
	for k, v := range r.Device.Sources {
		d.Sources[k] = v
	}
	d.Sources["engine."+r.Engine.Name+".calibration"] = fmt.Sprintf("roofline calibrate %s from %d decode and %d prefill runs (%s)",
		r.Engine.Calibration.Date, r.Engine.Calibration.DecodePoints, r.Engine.Calibration.PrefillPoints, strings.Join(r.Engine.Calibration.Files, ", "))
	return &d
}

// Profile is the calibrated device as a hardware profile named name.
func (r *Result) Profile(name string) []byte {
	d := r.calibratedDevice()
	d.Name, d.Aliases, d.VariantOf = name, nil, ""
	d.Description += " — calibrated to measured runs"
	d.DefaultEngine = r.Engine.Name
	cal := r.Engine.Calibration
	return profiles.EncodeDevice(d,
		fmt.Sprintf("Calibrated by roofline calibrate from %s.", strings.Join(cal.Files, ", ")),
		fmt.Sprintf("Valid for %s (%s), engine %s, runtime %s, build %s. Schema: docs/profiles.md.", cal.Device, orDash(cal.PowerMode), cal.Engine, cal.Runtime, orDash(cal.Build)))
}

// minR2Spread is the least spread of a phase's measured log times (1 %,
// as a standard deviation) over which R² means anything: a batch sweep
// whose step times are all alike leaves nothing for the fit to explain,
// and R² = 1 − SSres/SStot divides by rounding noise (one 9-point sweep
// printed R² = −2.9·10³⁰). It is then undefined (NaN), and the median
// error says how close the fit is.
const minR2Spread = 0.01

// r2 is the coefficient of determination of the log times of one phase;
// NaN when it is undefined (fewer than two points, or times that do not
// vary by minR2Spread).
func r2(points []fit.Point, ratios []float64, ph fit.Phase) float64 {
	var ys, res []float64
	for i, p := range points {
		if p.Phase == ph {
			ys = append(ys, math.Log(p.Measured))
			res = append(res, math.Log(ratios[i]))
		}
	}
	if len(ys) < 2 {
		return math.NaN()
	}
	mean := 0.0
	for _, y := range ys {
		mean += y
	}
	mean /= float64(len(ys))
	var ssTot, ssRes float64
	for i, y := range ys {
		ssTot += (y - mean) * (y - mean)
		ssRes += res[i] * res[i]
	}
	if !(math.Sqrt(ssTot/float64(len(ys))) >= minR2Spread) {
		return math.NaN()
	}
	return 1 - ssRes/ssTot
}

func geomean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

func appendUnique(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	list = append(list, s)
	sort.Strings(list)
	return list
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
