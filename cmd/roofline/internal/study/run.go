package study

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/safeio"
	"github.com/roofline/roofline/sim"
)

// Check checks every name and file a study refers to against the catalog
// of env, reporting all problems at once with file:line, and returns the
// environment to Run the study in: env's catalog with the study's profile
// directories and every model and device the study names by path, each
// loaded here, once — so a bad config.json fails before any work — and
// known by its name from then on (Check writes the names into st).
//
// A study is a data file: one shared with you must not make roofline open
// or fetch what it names. The measured-run files and profile directories
// it lists are what a study is made of, and are read; its devices, models,
// draft and measured hardware and model are names, unless the catalog
// allows data paths (--allow-paths): then each may be a path, relative to
// the study, or a URL, as --model and --hardware take them (a TOML
// profile, a config.json or checkpoint directory, a GGUF file). A path
// found where a name is expected is a *profiles.PathNotAllowedError at its
// line. A name that is also a file beside the study stays a name when the
// catalog knows it.
func Check(env *app.Env, st *Study) (*app.Env, error) {
	lines := st.lines // of the text Parse read: the file may be standard input
	var errs []error
	bad := func(item, format string, a ...any) {
		errs = append(errs, &profiles.FileError{File: st.File, Line: lines.Value(item), Msg: fmt.Sprintf(format, a...)})
	}
	// A name in a study is a name wherever roofline runs, never a
	// directory of that name in the working directory (the catalog's one
	// rule: a bare name is a name).
	cat := env.Catalog.Clone()
	for i, dir := range st.Profiles {
		if err := cat.AddDir(dir); err != nil {
			bad(st.ProfilesRaw[i], "profiles %q: %v", st.ProfilesRaw[i], err)
		}
	}
	st.written = map[string]string{}
	// load reads an entry (as resolved; raw as written) where a name is
	// expected and returns the name to use: the entry itself when it is a
	// name (path false), else the name of what the path holds, loaded
	// into cat.
	load := func(key, kind, entry, raw string) (name string, path bool) {
		if entry == raw && !profiles.LooksLikePath(entry) {
			return entry, false
		}
		line := lines.KeyValue(strings.TrimPrefix(key, "measured "), raw)
		bad := func(format string, a ...any) {
			errs = append(errs, &profiles.FileError{File: st.File, Line: line, Msg: fmt.Sprintf(format, a...)})
		}
		if !cat.DataPaths() {
			err := &profiles.PathNotAllowedError{Kind: kind, Name: raw, File: st.File}
			errs = append(errs, &profiles.FileError{File: st.File, Line: line, Msg: key + ": " + err.Error(), Err: err})
			return "", true
		}
		if kind == "hardware" {
			d, err := cat.Device(entry)
			if err == nil && d.File == entry {
				// Shown as the study writes it.
				cp := *d
				cp.File = raw
				d = &cp
			}
			if err == nil {
				err = cat.AddDevice(d, entry)
			}
			if err != nil {
				bad("%s: %v", key, err)
				return "", true
			}
			st.written[d.Name] = raw
			return d.Name, true
		}
		m, err := cat.Model(entry)
		if err == nil && entry != raw && strings.Contains(m.Source, entry) {
			// Its source as the study writes it, not resolved against
			// the study's directory.
			cp := *m
			cp.Source = strings.Replace(m.Source, entry, raw, 1)
			m = &cp
		}
		if err == nil {
			err = cat.AddModel(m, entry)
		}
		if err != nil {
			bad("%s: %v", key, err)
			return "", true
		}
		st.written[m.Name] = raw
		return m.Name, true
	}
	for i, d := range st.Devices {
		name, path := load("devices", "hardware", d, st.DevicesRaw[i])
		st.Devices[i] = name
		if !path {
			if _, err := cat.DevicesMatching(name); err != nil {
				bad(name, "devices: %v", err)
			}
		}
	}
	for i, m := range st.Models {
		name, path := load("models", "model", m, st.ModelsRaw[i])
		st.Models[i] = name
		if !path {
			if _, err := plan.ResolveModels(cat, []string{name}); err != nil {
				bad(name, "models: %v", err)
			}
		}
	}
	if st.Draft != "" {
		name, path := load("draft", "model", st.Draft, st.DraftRaw)
		st.Draft = name
		if !path {
			if _, err := cat.Model(name); err != nil {
				bad(name, "draft: %v", err)
			}
		}
	}
	for _, w := range st.Weights {
		if err := app.CheckWeights(w); err != nil && w != "all" {
			bad(w, "weights: %v", errors.Unwrap(err))
		}
	}
	for _, k := range st.KV {
		if err := app.CheckKV(k); err != nil {
			bad(k, "kv: %v", errors.Unwrap(err))
		}
	}
	for i, rt := range st.Runtimes {
		if !profiles.LooksLikePath(rt) {
			if _, err := cat.Runtime(rt); err != nil {
				bad(rt, "runtimes: %v", err)
			}
			continue
		}
		// A runtime profile by path: with --allow-paths, relative to the
		// study and known by its name from here on.
		if !cat.DataPaths() {
			err := &profiles.PathNotAllowedError{Kind: "runtime", Name: rt, File: st.File}
			errs = append(errs, &profiles.FileError{File: st.File, Line: lines.Value(rt), Msg: "runtimes: " + err.Error(), Err: err})
			continue
		}
		name, err := cat.AddRuntimeFile(st.resolve(rt))
		if err != nil {
			bad(rt, "runtimes: %v", err)
			continue
		}
		st.Runtimes[i] = name
	}
	for _, e := range st.Engines {
		found := false
		for _, d := range cat.Devices() {
			if _, err := d.Engine(e); err == nil {
				found = true
			}
		}
		if !found {
			bad(e, "engines: no device has an engine %q (engines are gpu, cpu, npu)", e)
		}
	}
	for i := range st.Measured {
		m := &st.Measured[i]
		if _, err := os.Stat(m.File); err != nil {
			bad(m.Raw, "measured file %q: not found (paths are relative to the study)", m.Raw)
		}
		if m.Hardware != "" {
			name, path := load("measured hardware", "hardware", m.Hardware, m.HardwareRaw)
			m.Hardware = name
			if !path {
				if _, err := cat.Device(name); err != nil {
					bad(name, "measured hardware: %v", err)
				}
			}
		}
		if m.Model != "" {
			name, path := load("measured model", "model", m.Model, m.ModelRaw)
			m.Model = name
			if !path {
				if _, err := cat.Model(name); err != nil {
					bad(name, "measured model: %v", err)
				}
			}
		}
		if m.Runtime != "" {
			if _, err := cat.Runtime(m.Runtime); err != nil {
				bad(m.Runtime, "measured runtime: %v", err)
			}
		}
	}
	if err := safeio.JoinErrors(errs...); err != nil {
		return nil, err
	}
	return &app.Env{Catalog: cat, Stdin: env.Stdin}, nil
}

// Report is everything a study's report shows, as typed answers: the
// report renders it and computes nothing.
type Report struct {
	Study      *Study
	AllowPaths bool // data files may name models and devices by path
	Plan       *app.Plan
	// Predictions are one per device engine, model and format of the
	// plan, at the study's workload.
	Predictions []Prediction
	// Ops are the recommended configurations' predictions at the
	// workload, operator by operator: one per device and model, each kept
	// as its operators' shares (a large study has a thousand).
	Ops      []OpsSummary
	Measured []MeasuredAnswer
	Figures  []Figure
	// Skipped are default figures that could not be drawn, with why.
	Skipped []SkippedFigure
	Devices []*hardware.Device
	Models  []*model.Cost // in their own format, KV f16
	Notes   []string
}

// Prediction is one prediction of the report and what it asked.
type Prediction struct {
	Request app.PredictRequest
	*app.Prediction
}

// OpsSummary is one prediction operator by operator, by name.
type OpsSummary struct {
	Request    app.PredictRequest
	Inputs     sim.Inputs
	TTFT, TPOT float64 // s; TPOT NaN with one output token
	Ops        []app.OpShare
}

// MeasuredAnswer is one measured file of the study beside its predictions.
type MeasuredAnswer struct {
	Measured
	*app.Comparison
}

// Figure is one figure of the report with the request that drew it.
type Figure struct {
	Kind    *app.FigureKind
	Request *app.FigureRequest
	*app.Figure
}

// planRequest is the study's plan.
func (st *Study) planRequest() app.PlanRequest {
	w := st.Workload
	req := app.PlanRequest{Devices: st.Devices, Engines: st.Engines, Runtimes: st.Runtimes, Models: st.Models, Weights: st.Weights, KV: st.KV,
		Contexts: w.ContextTokens, Batches: w.Batches, Prompt: w.Prompt, Output: w.Output, UBatch: w.UBatch, MinBatch: 1,
		Options: sim.DefaultOptions, Targets: st.Targets.Read}
	if len(req.Contexts) == 0 {
		req.Contexts = []int{w.Depth + w.Prompt + w.Output}
	}
	if len(req.Batches) == 0 {
		req.Batches = []int{w.Batch}
	}
	return req
}

func (st *Study) workload() sim.Workload {
	w := st.Workload
	return sim.Workload{Prompt: w.Prompt, Output: w.Output, Batch: w.Batch, Depth: w.Depth, UBatch: w.UBatch}
}

// Run answers the study in env, the environment Check returned: the plan,
// a prediction per planned group, the measured runs beside their
// predictions, the figures, and the devices and models with their
// sources. The plan hands each group, with its configurations, to emit as
// the search evaluates it, then forgets the configurations: a study's
// results may be far larger than memory. progress hears of each step.
func Run(env *app.Env, st *Study, progress func(step string), emit func(*plan.Group) error) (*Report, error) {
	var err error
	r := &Report{Study: st, AllowPaths: env.Catalog.DataPaths(), Notes: []string{}}

	// 1. The plan: every configuration against the targets.
	progress("plan")
	r.Plan, err = env.PlanSearch(st.planRequest())
	if err == nil {
		err = r.Plan.Within(limits.ReportConfigs) // each is written out: a smaller limit
	}
	if err != nil {
		var tl *plan.TooLargeError
		if errors.As(err, &tl) {
			return nil, &profiles.FileError{File: st.File, Line: st.lines.Key("workload", "contexts"), Msg: "workload: " + tl.Error()}
		}
		return nil, fmt.Errorf("plan: %w", err)
	}
	if err := r.Plan.Run(emit); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	for _, s := range r.Plan.Skipped {
		r.Notes = append(r.Notes, "skipped: "+s)
	}

	// 2. Predictions at the workload, one per device engine, model and format.
	for _, g := range r.Plan.Groups {
		req := app.PredictRequest{Workload: st.workload(), Setup: app.Selection{Model: g.Model, Hardware: g.Device, Engine: g.Engine,
			Runtime: g.Runtime, Weights: g.Weights, KV: g.KV, Options: sim.DefaultOptions}}
		progress(fmt.Sprintf("predict %s %s %s %s", g.Device, g.Engine, g.Model, g.Weights))
		p, err := env.Predict(req)
		if err != nil {
			return nil, fmt.Errorf("predict %s on %s: %w", g.Model, g.Device, err)
		}
		r.Predictions = append(r.Predictions, Prediction{Request: req, Prediction: p})
	}

	// 2b. Where the time goes in the recommended configuration of each
	// device and model, at the workload.
	for _, ch := range r.Plan.Best {
		g := ch.Group
		if g == nil {
			continue
		}
		req := app.PredictRequest{Workload: st.workload(), Setup: app.Selection{Model: g.Model, Hardware: g.Device, Engine: g.Engine,
			Runtime: g.Runtime, Weights: g.Weights, KV: g.KV, Options: sim.DefaultOptions}, Ops: &app.OpsRequest{}}
		progress(fmt.Sprintf("operators %s %s %s %s", g.Device, g.Engine, g.Model, g.Weights))
		p, err := env.Predict(req)
		if err != nil {
			return nil, fmt.Errorf("operators of %s on %s: %w", g.Model, g.Device, err)
		}
		if p.Ops == nil {
			continue // spread over devices or memories: no operator view of a split yet
		}
		r.Ops = append(r.Ops, OpsSummary{Request: req, Inputs: p.Inputs, TTFT: p.TTFT, TPOT: p.TPOT, Ops: p.Ops.ByName()})
	}

	// 3. Measured runs.
	for _, m := range st.Measured {
		progress("compare " + m.Raw)
		c, err := env.Compare(m.compareRequest())
		if err != nil {
			return nil, fmt.Errorf("compare %s: %w", m.Raw, err)
		}
		r.Measured = append(r.Measured, MeasuredAnswer{Measured: m, Comparison: c})
	}

	// 4. Figures.
	if err := r.figures(env, progress); err != nil {
		return nil, err
	}

	// 5. Assumptions: every device and model used, with sources.
	seenD, seenM := map[string]bool{}, map[string]bool{}
	for _, g := range r.Plan.Groups {
		if !seenD[g.Device] {
			seenD[g.Device] = true
			d, err := env.Catalog.Device(g.Device)
			if err != nil {
				return nil, err
			}
			r.Devices = append(r.Devices, d)
		}
		if !seenM[g.Model] {
			seenM[g.Model] = true
			c, err := env.ShowModel(g.Model, "", "f16")
			if err != nil {
				return nil, err
			}
			r.Models = append(r.Models, c)
		}
	}
	return r, nil
}

// file is the measured file with what the study says of it.
func (m Measured) file() app.MeasuredFile {
	return app.MeasuredFile{File: m.File, Hardware: m.Hardware, Engine: m.Engine, Runtime: m.Runtime, Model: m.Model, Weights: m.Weights, KV: m.KV}
}

func (m Measured) compareRequest() app.CompareRequest {
	return app.CompareRequest{Files: []string{m.File}, Options: compare.Options{Hardware: m.Hardware, Engine: m.Engine, Runtime: m.Runtime,
		Model: m.Model, Weights: m.Weights, KV: m.KV, Sim: sim.DefaultOptions}}
}

// maxPlanRows bounds the plan figure drawn by default: one row per device
// engine, model and format.
const maxPlanRows = 40

// SkippedFigure is a default figure the report could not draw, and why.
type SkippedFigure struct {
	Kind, Reason string
}

// Skip records a default figure not drawn, in the answer and its notes.
func (r *Report) Skip(kind, reason string) {
	r.Skipped = append(r.Skipped, SkippedFigure{kind, reason})
	r.Notes = append(r.Notes, fmt.Sprintf("no %s figure: %s", kind, reason))
}

// figures draws the study's figures, or the default set: more series than
// share a panel legibly become small multiples (plots.Name); a default
// figure that cannot be drawn is skipped with the reason, one asked for is
// an error.
func (r *Report) figures(env *app.Env, progress func(string)) error {
	st := r.Study
	kinds := st.Figures
	explicit := kinds != nil
	if !explicit {
		kinds = st.DefaultFigures()
	}
	for _, name := range kinds {
		k, err := app.FigureKindOf(name)
		if err != nil {
			return err
		}
		switch {
		case k.Inputs == app.PlanInputs && !explicit && len(r.Plan.Groups) > maxPlanRows:
			r.Skip(k.Name, fmt.Sprintf("%d device engine × model × format rows, at most %d are legible; list the plan figure in figures to draw it anyway, or plan fewer", len(r.Plan.Groups), maxPlanRows))
			continue
		case k.Inputs == app.RunsInputs && len(st.Measured) == 0:
			return fmt.Errorf("%s: figures asks for %s but the study has no [[measured]] files", st.File, k.Name)
		case k.Inputs == app.SetupInputs && (len(st.Models) > 1 || len(st.Devices) > 1):
			r.Notes = append(r.Notes, fmt.Sprintf("the %s figure shows the first model on the first device", k.Name))
		}
		req := st.figureRequest(k)
		progress("plot " + k.Name)
		f, err := env.Figure(req)
		if err != nil {
			if !explicit {
				r.Skip(k.Name, err.Error())
				continue
			}
			return st.figureError(k.Name, err)
		}
		r.Figures = append(r.Figures, Figure{Kind: k, Request: req, Figure: f})
		for _, w := range f.Warnings {
			if n := "figures: " + w; !slices.Contains(r.Notes, n) {
				r.Notes = append(r.Notes, n)
			}
		}
	}
	return nil
}

// figureRequest is the request of figure kind k for the study.
func (st *Study) figureRequest(k *app.FigureKind) *app.FigureRequest {
	w := st.Workload
	req := &app.FigureRequest{Kind: k.Name, Params: map[string]string{}}
	switch k.Inputs {
	case app.PlanInputs:
		req.Plan = st.planRequest()
	case app.RunsInputs:
		req.Runs.Options.Sim = sim.DefaultOptions
		for _, m := range st.Measured {
			req.Runs.PerFile = append(req.Runs.PerFile, m.file())
		}
	case app.SetupInputs:
		req.Setup = app.Selection{Model: st.Models[0], Hardware: st.Devices[0], Options: sim.DefaultOptions}
		if len(st.Weights) > 0 {
			req.Setup.Weights = st.Weights[0]
		}
		if st.Draft != "" {
			req.Params["draft"] = st.Draft
		}
		if k.Name == "ops" {
			// The study's prefill, and its last decode step.
			for p, v := range map[string]int{"prompt": w.Prompt, "batch": w.Batch, "ubatch": w.UBatch, "context": w.Depth + w.Prompt + max(w.Output-1, 1)} {
				if v > 0 {
					req.Params[p] = strconv.Itoa(v)
				}
			}
		}
	case app.SeriesInputs:
		req.Series = app.SeriesRequest{Models: st.Models, Devices: st.Devices, Engines: st.Engines, Weights: st.Weights,
			Workload: st.workload(), Options: sim.DefaultOptions, Targets: sim.Targets{TTFT: st.Targets.Read.TTFT, TPOT: st.Targets.Read.TPOT}}
		if len(st.KV) > 0 {
			req.Series.KV = st.KV[0]
		}
		if k.Name == "roofline" || k.Name == "tpot-context" || k.Name == "ttft-prompt" {
			for _, m := range st.Measured {
				req.Series.Measured = append(req.Series.Measured, m.file())
			}
		}
		if k.Name == "tpot-context" && len(w.ContextTokens) > 0 {
			// Up to the longest context the study plans for.
			req.Params["max-context"] = strconv.Itoa(max(w.ContextTokens[len(w.ContextTokens)-1], 256))
		}
	}
	// The study's [figure.KIND] table has the last word.
	if o, ok := st.FigureOptions[k.Name]; ok {
		req.Series.Facet = o.Facet
		for p, v := range o.Params {
			req.Params[p] = v
		}
	}
	return req
}

// figureError words an error of a figure the study asked for as an error
// of the study, at the line of the setting it is about: a setting of
// [figure.KIND] is no command-line flag (exit 1, not a usage error).
func (st *Study) figureError(kind string, err error) error {
	var re *app.RequestError
	if !errors.As(err, &re) {
		return fmt.Errorf("figure %s: %w", kind, err)
	}
	key, msg := []string{"figures"}, fmt.Sprintf("figures: %s: %s", kind, re.Msg)
	if re.Input != "" {
		if _, set := st.FigureOptions[kind].Params[re.Input]; set {
			key = []string{"figure", kind, re.Input}
		}
		msg = fmt.Sprintf("[figure.%s] %s %s", kind, re.Input, re.Msg)
	}
	return &profiles.FileError{File: st.File, Line: st.lines.Key(key...), Msg: msg}
}
