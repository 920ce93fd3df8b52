package calibrate

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
)

// Options say what the runs are when the files do not.
type Options struct {
	compare.Options
	// Runtime and Date label what the calibration is valid for.
	Runtime string
	Date    string
}

// Point is one run and what the fit made of it.
type Point struct {
	Run      measured.Run
	Model    string
	Weights  string
	Measured float64 // s: per decode step, or the whole prefill test
	Fitted   float64 // s, from the calibrated profile
	Used     bool
	Reason   string // why a point was left out
}

// Result is a calibration of one engine of one device.
type Result struct {
	Device *hardware.Device
	Engine *hardware.Engine // the engine with the fitted tuning

	BandwidthEfficiencySE, ComputeEfficiencySE float64
	FormatSE                                   []FormatEfficiency
	DecodeOverheadSE, PrefillOverheadSE        float64
	DecodeFitted, PrefillFitted                bool // the efficiency of the phase was fitted
	R2                                         float64

	Points []Point
	Notes  []string
}

// FormatEfficiency is a bandwidth efficiency fitted for one weight format.
type FormatEfficiency struct {
	Weights        string
	Efficiency, SE float64
}

// ambiguity is how close the compute term of a decode step may come to its
// memory term (at default efficiencies) before the point is left out of the
// bandwidth fit, and how clearly a prefill must be compute-bound to enter
// the compute fit.
const (
	decodeComputeShare = 0.5
	prefillMargin      = 1.5
)

// Calibrate fits the engine the runs were measured on.
func Calibrate(cat *profiles.Catalog, runs []measured.Run, o Options) (*Result, error) {
	o.Sim = sim.DefaultOptions
	ev := compare.New(cat, o.Options)
	res := &Result{}
	type item struct {
		pt    int
		setup *sim.Setup
		ph    sim.Phase
	}
	var dec, pre []item
	var target *sim.Setup
	for _, r := range runs {
		p := Point{Run: r}
		p.Measured = r.Seconds()
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
		p.Model, p.Weights = s.Model.Spec.Name, s.Model.Weights.Name
		if target == nil {
			target = s
		} else if s.Device.Name != target.Device.Name || s.Engine.Name != target.Engine.Name {
			p.Reason = fmt.Sprintf("measured on %s/%s, not %s/%s: calibrate one device engine at a time", s.Device.Name, s.Engine.Name, target.Device.Name, target.Engine.Name)
			res.Points = append(res.Points, p)
			continue
		}
		ph := compare.Phase(s, r)
		if r.Test == measured.Decode {
			p.Measured /= float64(ph.Steps)
		}
		res.Points = append(res.Points, p)
		it := item{len(res.Points) - 1, s, ph}
		if r.Test == measured.Decode {
			dec = append(dec, it)
		} else {
			pre = append(pre, it)
		}
	}
	if target == nil {
		return res, errors.New("no run could be resolved to a model and device (see the excluded points)")
	}
	dev, base := target.Device, target.Engine
	def := hardware.DefaultTuning(base.Kind)
	bw, peak := dev.Bandwidth, target.Inputs.Peak

	// Decode: step time = overhead + (bytes / bandwidth) / η_bw, with one
	// η_bw per weight format (dequantizing kernels reach different shares
	// of the bandwidth) and one shared overhead.
	var dobs []obs
	var dIdx []int
	var dDefault []float64
	var formats []string
	group := map[string]int{}
	for _, it := range dec {
		steps := float64(it.ph.Steps)
		x := it.ph.Bytes / bw / steps
		z := it.ph.FLOPs / it.setup.Inputs.Peak / steps
		if z >= decodeComputeShare*x/def.BandwidthEfficiency {
			res.Points[it.pt].Reason = "decode close to compute-bound here (large batch): it does not measure bandwidth"
			continue
		}
		f := it.setup.Model.Weights.Name
		g, ok := group[f]
		if !ok {
			g = len(formats)
			group[f] = g
			formats = append(formats, f)
		}
		dobs = append(dobs, obs{y: res.Points[it.pt].Measured, u: 1, v: x, g: g})
		dIdx = append(dIdx, it.pt)
		dDefault = append(dDefault, it.setup.Inputs.DecodeOverhead)
	}
	tuning := base.Tuning
	tuning.Fitted = true
	tuning.FormatBandwidthEfficiency = nil
	_, tuning.DecodeOverhead = base.Overheads(target.Inputs.Layers)
	tuning.PrefillOverhead = tuning.DecodeOverhead
	cal := &hardware.Calibration{Device: dev.Name, PowerMode: dev.PowerMode, Engine: base.Name, Date: o.Date}
	b := 1 / base.BandwidthEfficiency
	if len(dobs) > 0 {
		// One efficiency per format when the runs hold enough points for
		// it (two degrees of freedom left); otherwise one for all.
		var f *linearFit
		var notes []string
		var err error
		pooled := make([]obs, len(dobs))
		for i, o := range dobs {
			o.g = 0
			pooled[i] = o
		}
		fitNames, fitObs := formats, dobs
		if len(formats) > 1 {
			if len(dobs) >= len(formats)+3 {
				f, notes, err = fitPhase(dobs, formats, median(dDefault), "decode")
			}
			if f == nil {
				res.Notes = append(res.Notes, fmt.Sprintf("one bandwidth efficiency for %s: too few or inconsistent points to fit each format apart", strings.Join(formats, ", ")))
				notes, err = nil, nil
				fitNames, fitObs = []string{"all"}, pooled
			}
		}
		if f == nil {
			f, notes, err = fitPhase(fitObs, fitNames, median(dDefault), "decode")
		}
		res.Notes = append(res.Notes, notes...)
		if err != nil {
			return res, err
		}
		// The efficiency for formats without runs: every point in one
		// group, with the fitted overhead.
		pf := f
		if len(fitNames) > 1 {
			if pf, err = solve(pooled, 1, true, f.a); err != nil {
				return res, err
			}
		}
		b = pf.b[0]
		tuning.BandwidthEfficiency, tuning.DecodeOverhead = 1/b, f.a
		tuning.FormatBandwidthEfficiency = map[string]float64{}
		cal.FormatDecodeCov = map[string][3]float64{}
		if len(fitNames) > 1 {
			for g, name := range fitNames {
				tuning.FormatBandwidthEfficiency[name] = 1 / f.b[g]
				cal.FormatDecodeCov[name] = f.covOf(g)
				res.FormatSE = append(res.FormatSE, FormatEfficiency{Weights: name, Efficiency: 1 / f.b[g], SE: math.Sqrt(f.covOf(g)[2]) / (f.b[g] * f.b[g])})
			}
		}
		res.BandwidthEfficiencySE = math.Sqrt(pf.covOf(0)[2]) / (b * b)
		if !f.fixedA {
			res.DecodeOverheadSE = math.Sqrt(f.covOf(0)[0])
		}
		res.DecodeFitted = true
		pc := pf.covOf(0)
		cal.DecodePoints, cal.DecodeCov, cal.DecodeSigma, cal.DecodeDOF = len(dobs), [3]float64{f.covOf(0)[0], 0, pc[2]}, f.sigma, f.dof
		if pf == f {
			cal.DecodeCov = f.covOf(0)
		}
		cal.R2Decode = rSquared(fitObs, f.predicted)
		cal.LOODecode = looMdAPE(fitObs, fitNames, median(dDefault))
		for _, i := range dIdx {
			res.Points[i].Used = true
		}
	} else {
		res.Notes = append(res.Notes, "no usable decode run: bandwidth efficiency and decode overhead stay at the default rule")
	}

	// Prefill: test time = passes · overhead + (FLOPs / peak) / η_compute,
	// fitted on the runs that are compute-bound at the current estimate.
	c := 1 / base.ComputeEfficiency
	var pobs []obs
	var pIdx []int
	var pDefault []float64
	classify := func() {
		pobs, pIdx, pDefault = nil, nil, nil
		for _, it := range pre {
			v, mem := it.ph.FLOPs/peak, it.ph.Bytes/bw
			if c*v < prefillMargin*b*mem {
				res.Points[it.pt].Reason = "prefill memory-bound or close to it: it does not measure compute"
				continue
			}
			res.Points[it.pt].Reason = ""
			pobs = append(pobs, obs{y: res.Points[it.pt].Measured, u: float64(it.ph.Steps), v: v})
			pIdx = append(pIdx, it.pt)
			pDefault = append(pDefault, it.setup.Inputs.PrefillOverhead)
		}
	}
	// Which runs are compute-bound depends on the efficiency being fitted:
	// classify, fit, and repeat until the estimate settles.
	for iter := 0; iter < 5; iter++ {
		classify()
		if len(pobs) == 0 {
			break
		}
		f, _, err := fitPhase(pobs, []string{"all"}, median(pDefault), "prefill")
		if err != nil || math.Abs(f.b[0]-c) <= 1e-9*c {
			break
		}
		c = f.b[0]
	}
	if len(pobs) > 0 {
		f, notes, err := fitPhase(pobs, []string{"all"}, median(pDefault), "prefill")
		res.Notes = append(res.Notes, notes...)
		if err != nil {
			return res, err
		}
		cv := f.covOf(0)
		tuning.ComputeEfficiency, tuning.PrefillOverhead = 1/f.b[0], f.a
		res.ComputeEfficiencySE = math.Sqrt(cv[2]) / (f.b[0] * f.b[0])
		if !f.fixedA {
			res.PrefillOverheadSE = math.Sqrt(cv[0])
		}
		res.PrefillFitted = true
		cal.PrefillPoints, cal.PrefillCov, cal.PrefillSigma, cal.PrefillDOF = len(pobs), cv, f.sigma, f.dof
		cal.R2Prefill = rSquared(pobs, f.predicted)
		cal.LOOPrefill = looMdAPE(pobs, []string{"all"}, median(pDefault))
		for _, i := range pIdx {
			res.Points[i].Used = true
		}
	} else {
		tuning.PrefillOverhead, _ = base.Overheads(target.Inputs.Layers)
		res.Notes = append(res.Notes, "no compute-bound prefill run: compute efficiency and prefill overhead stay at the default rule; add long prompts (llama-bench -p 512,2048)")
	}

	// The calibrated engine, and what it is valid for.
	cal.Runtime, cal.Build, cal.Files = o.Runtime, "", nil
	var runtimes, builds, files []string
	for _, p := range res.Points {
		if p.Used {
			runtimes = appendUnique(runtimes, p.Run.Backend)
			builds = appendUnique(builds, p.Run.Build)
			files = appendUnique(files, p.Run.File)
		}
	}
	if cal.Runtime == "" {
		cal.Runtime = strings.Join(runtimes, ", ")
	}
	cal.Build, cal.Files = strings.Join(builds, ", "), files
	if len(builds) > 1 {
		res.Notes = append(res.Notes, "the runs come from several builds ("+cal.Build+"): calibrations are valid for one runtime build")
	}
	e := *base
	e.Tuning = tuning
	e.Defaulted = nil
	e.Calibration = cal
	e.Peaks = base.Peaks
	res.Device, res.Engine = dev, &e
	if err := res.check(); err != nil {
		return res, err
	}
	res.fitted(ev)
	return res, nil
}

// check refuses a calibrated engine that would not validate.
func (r *Result) check() error {
	d := r.calibratedDevice()
	if err := d.Validate(); err != nil {
		return fmt.Errorf("the fit gives an invalid profile: %w", err)
	}
	return nil
}

// calibratedDevice is the device with the fitted engine in place.
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
	return &d
}

// fitted prices every used point with the calibrated device, through the
// same path predictions take.
func (r *Result) fitted(ev *compare.Evaluator) {
	d := r.calibratedDevice()
	for i := range r.Points {
		p := &r.Points[i]
		if !p.Used {
			continue
		}
		rs, err := ev.Resolve(p.Run)
		if err != nil {
			continue
		}
		s, err := sim.NewSetup(rs.Setup.Model, d, sim.Options{Engine: r.Engine.Name, RuntimeOverhead: sim.DefaultRuntimeOverhead})
		if err != nil {
			continue
		}
		ph := compare.Phase(s, p.Run)
		p.Fitted = ph.Time
		if p.Run.Test == measured.Decode {
			p.Fitted /= float64(ph.Steps)
		}
	}
	r.R2 = r.Engine.Calibration.R2Decode
	if !r.DecodeFitted {
		r.R2 = r.Engine.Calibration.R2Prefill
	}
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
