package app

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/cmd/roofline/internal/plots"
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/sim"
)

// series is one combination of model, device, engine and formats.
type series struct {
	label string
	facet string // the small multiple it is drawn in (plots.Name)
	setup *sim.Setup
	spec  *model.Spec
	dev   *hardware.Device
}

// seriesSet is every combination a series figure draws, labelled by what
// varies; what every series shares goes in the title.
type seriesSet struct {
	list     []series
	workload sim.Workload
	targets  sim.Targets
	common   string
	opts     sim.Options
	measured []MeasuredFile
	warnings []string
}

// series resolves every combination of models × devices × weights, on
// each listed engine or the one the runtime rule chooses.
func (env *Env) series(r SeriesRequest) (*seriesSet, error) {
	if err := r.Workload.Validate(); err != nil {
		return nil, err
	}
	cat := env.Catalog
	ss := &seriesSet{workload: r.Workload, targets: r.Targets, opts: r.Options, measured: r.Measured}
	devs, derr := plan.ResolveDevices(cat, r.Devices)
	models, merr := plan.ResolveModels(cat, r.Models)
	if derr != nil || merr != nil {
		return nil, errors.Join(inputError("hardware", derr), inputError("model", merr))
	}
	if len(devs) == 0 || len(models) == 0 {
		return nil, &RequestError{Msg: "nothing to draw: give at least one device and one model"}
	}
	weights := r.Weights
	switch {
	case len(weights) == 0:
		weights = []string{""}
	case len(weights) == 1 && weights[0] == "all":
		weights = plan.AllWeights()
	}
	for _, w := range weights {
		if err := CheckWeights(w); err != nil {
			return nil, err
		}
	}
	// Each combination is at least one series: past what small multiples
	// hold, say so before resolving (and holding) thousands of setups.
	if n := len(models) * len(devs) * len(weights); n > plots.MaxSeries*plots.MaxFacets {
		return nil, &RequestError{Msg: fmt.Sprintf("%d models × devices × formats cannot be drawn legibly: at most %d series, %d per panel in %d panels; narrow the models, devices or weights",
			n, plots.MaxSeries*plots.MaxFacets, plots.MaxSeries, plots.MaxFacets)}
	}
	type key struct{ m, d, w, kv, e string }
	var keys []key
	// Of several combinations, one that no runtime runs (w8a8 on a CPU)
	// is left out with a warning, as the plan leaves it out; the figure
	// fails only when none can be drawn.
	several := len(models)*len(devs)*len(weights) > 1
	var firstErr error
	for _, spec := range models {
		for _, dev := range devs {
			for _, w := range weights {
				setups, err := env.seriesSetups(dev, spec, r.Engines, Selection{Runtime: r.Runtime, Weights: w, KV: r.KV, Options: r.Options})
				if err != nil {
					if !several {
						return nil, err
					}
					firstErr = cmp.Or(firstErr, err)
					// The reason names the device and format, not the
					// model: say it once.
					if msg := "left out: " + err.Error(); !slices.Contains(ss.warnings, msg) {
						ss.warnings = append(ss.warnings, msg)
					}
					continue
				}
				for _, s := range setups {
					ss.list = append(ss.list, series{setup: s, spec: spec, dev: dev})
					keys = append(keys, key{spec.Name, dev.Name, s.Model.Weights.Name, s.Model.KV.Name, s.Engine.Name})
				}
			}
		}
	}
	if len(ss.list) == 0 {
		return nil, firstErr
	}
	// Label by what varies, facet past plots.MaxSeries; the rest goes in
	// the title.
	dims := []plots.Dim{{Name: "device"}, {Name: "engine", Prefix: "engine "}, {Name: "model"}, {Name: "weights", Prefix: "weights "}, {Name: "KV", Prefix: "KV "}}
	vals := make([][]string, len(keys))
	for i, k := range keys {
		vals[i] = []string{k.d, k.e, k.m, k.w, k.kv}
	}
	var by []int
	for _, f := range List(r.Facet) {
		d := slices.Index(FacetDims, strings.ToLower(f))
		if d < 0 {
			return nil, &RequestError{Input: "facet", Msg: fmt.Sprintf("%q: want one or two of %s", r.Facet, strings.Join(FacetDims, ", "))}
		}
		if !slices.Contains(by, d) {
			by = append(by, d)
		}
	}
	names, err := plots.NameBy(dims, vals, by)
	if err != nil {
		if len(by) > 0 {
			return nil, &RequestError{Input: "facet", Msg: err.Error()}
		}
		return nil, &RequestError{Msg: err.Error() + "; narrow the models, devices, engines or weights"}
	}
	for i := range ss.list {
		ss.list[i].label, ss.list[i].facet = names.Labels[i], names.Facets[i]
		if ss.list[i].label == "" {
			ss.list[i].label = keys[i].m + " on " + keys[i].d
		}
	}
	ss.common = names.Common
	return ss, nil
}

// seriesSetups resolves one model in one weight format on one device: on
// each listed engine the device has, or, with no list, on the engine the
// runtime rule chooses.
func (env *Env) seriesSetups(dev *hardware.Device, spec *model.Spec, engines []string, sel Selection) ([]*sim.Setup, error) {
	if len(engines) == 0 {
		engines = []string{""}
	}
	var out []*sim.Setup
	var lastErr error
	for _, en := range engines {
		if en != "" {
			if _, err := dev.Engine(en); err != nil {
				continue // a listed engine this device does not have
			}
		}
		sel.Engine = en
		r, err := resolve.Spec(env.Catalog, spec, dev, sel)
		if err != nil {
			lastErr = err
			continue
		}
		out = append(out, r.Setup)
	}
	if len(out) == 0 {
		if lastErr == nil {
			return nil, &RequestError{Input: "engine", Msg: fmt.Sprintf("%s: device %s has none of these engines (it has %s)", strings.Join(engines, ","), dev.Name, strings.Join(dev.EngineNames(), ", "))}
		}
		return nil, lastErr
	}
	return out, nil
}

// efficiencies says what the expected curves assume, naming the device
// engines of each set of efficiencies when they differ ("llama.cpp:
// η_bw 0.94, η_max 0.56 / … 0.60" did not say which device had which).
func (ss *seriesSet) efficiencies() string {
	var parts []string
	who := map[string][]string{}
	for _, s := range ss.list {
		in := s.setup.Inputs
		p := fmt.Sprintf("η_bw %.2f, η_max %.2f", in.Efficiency.Bandwidth, in.Efficiency.ComputeMax)
		if in.Calibrated {
			p += " (calibrated)"
		}
		p = in.Runtime + " " + p
		if _, ok := who[p]; !ok {
			parts = append(parts, p)
		}
		if d := s.dev.Name + " " + s.setup.Engine.Name; !slices.Contains(who[p], d) {
			who[p] = append(who[p], d)
		}
	}
	switch {
	case len(parts) > 3:
		return "expected at each engine's efficiencies"
	case len(parts) == 1:
		rt, eff, _ := strings.Cut(parts[0], " ")
		return "expected at " + rt + ": " + eff
	}
	for i, p := range parts {
		rt, eff, _ := strings.Cut(p, " ")
		parts[i] = strings.Join(who[p], ", ") + " (" + rt + ") " + eff
	}
	return "expected on " + strings.Join(parts, "; ")
}

func (ss *seriesSet) title(what, workload string) string {
	t := ss.heading(what)
	eff := ss.efficiencies()
	if len(workload)+len(eff) > 80 {
		return t + "\n" + workload + "\n" + eff
	}
	return t + "\n" + workload + "; " + eff
}

// heading is a figure's first title line: what it shows and what its
// series share.
func (ss *seriesSet) heading(what string) string {
	if ss.common != "" {
		return what + ": " + ss.common
	}
	return what
}

// measuredRows reads the measured files and compares each run, keeping
// the rows that belong to series i: the same device and model, the same
// weights when the series differ by weights, and the same engine when
// one of them runs on it. A file is priced on the device it names or is
// given; one that names none while several devices are plotted is left
// out with one warning saying how to give it.
func (env *Env) measuredRows(ss *seriesSet) ([][]compare.Row, error) {
	out := make([][]compare.Row, len(ss.list))
	if len(ss.measured) == 0 {
		return out, nil
	}
	base := compare.Options{Sim: ss.opts}
	first := ss.list[0]
	oneDevice := same(ss.list, func(s series) any { return s.dev })
	if oneDevice {
		base.Hardware = first.dev.Name
	}
	if same(ss.list, func(s series) any { return s.spec }) {
		base.FallbackModel = first.spec.Name
	}
	if !weightsVary(ss.list) {
		base.FallbackWeights = first.setup.Model.Weights.Name
	}
	var rows []compare.Row
	got := &Comparison{}
	for _, m := range ss.measured {
		r, err := env.compareFile(m, base, got, func(list []measured.Run, o compare.Options) []measured.Run {
			if o.Hardware != "" {
				return list
			}
			// Runs that name their device (a runs CSV) are priced on it;
			// the others cannot be placed on any of the devices drawn.
			var named []measured.Run
			for _, r := range list {
				if r.Hardware != "" {
					named = append(named, r)
				}
			}
			if n := len(list) - len(named); n > 0 {
				got.Warnings = append(got.Warnings, fmt.Sprintf("%s: %d %s no device and the figure draws %d: give it as --measured %s@DEVICE (hardware = \"DEVICE\" under [[measured]] in a study)",
					m.File, n, plural(n, "run names", "runs name"), len(devicesOf(ss.list)), m.File))
			}
			return named
		})
		ss.warnings = append(ss.warnings, got.Warnings...)
		got.Warnings = nil
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	placed := 0
	for _, r := range rows {
		best := -1
		for i, s := range ss.list {
			if r.Hardware == s.dev.Name && r.Model == s.spec.Name && (len(ss.list) == 1 || r.Weights == s.setup.Model.Weights.Name || !weightsVary(ss.list)) {
				if best < 0 || r.Engine == s.setup.Engine.Name && r.Engine != ss.list[best].setup.Engine.Name {
					best = i
				}
			}
		}
		if best >= 0 {
			out[best] = append(out[best], r)
			placed++
		}
	}
	if placed < len(rows) {
		ss.warnings = append(ss.warnings, fmt.Sprintf("%d of %d measured runs match no plotted series (device, model and weights must match)", len(rows)-placed, len(rows)))
	}
	return out, nil
}

// devicesOf lists the devices of the series, once each.
func devicesOf(l []series) []string {
	var out []string
	for _, s := range l {
		if !slices.Contains(out, s.dev.Name) {
			out = append(out, s.dev.Name)
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func same(l []series, get func(series) any) bool {
	for _, s := range l {
		if get(s) != get(l[0]) {
			return false
		}
	}
	return true
}

func weightsVary(l []series) bool {
	return !same(l, func(s series) any { return s.setup.Model.Weights.Name })
}
