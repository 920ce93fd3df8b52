// Package compare puts measured runs beside roofline's predictions: it
// resolves each run to a model, format and device, prices it with the same
// sim.Setup the predictor uses, and reports the achieved bandwidth and
// compute as MBU and MFU.
package compare

import (
	"errors"
	"fmt"
	"github.com/roofline/roofline/runtimes"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/gguf"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// Options fix what the files do not say. Empty fields defer to the file.
type Options struct {
	Hardware, Engine, Runtime, Model, Weights, KV string
	// FallbackModel and FallbackWeights stand for what a file does not say
	// (a plot of one model in one format); Model and Weights override
	// every run.
	FallbackModel, FallbackWeights string
	// FlashAttn ("on" or "off") overrides the files' setting; files that
	// do not say are priced with fused attention.
	FlashAttn string
	Sim       sim.Options
	// Strict makes a run whose recorded parameter count is not the
	// model's (Row.Mismatch) an error of the whole comparison.
	Strict bool
	// Ops attributes each test's gap to the operators (Row.Ops).
	Ops bool
}

// ParamsTolerance is how far the model a run is priced as may differ in
// parameter count from what the run records (llama-bench's
// model_n_params) before the run is taken to be another model's: a few
// per cent, beyond the spread of how files count a model (a tied head,
// biases), well short of the next size of a family (1B against 3B is
// 2.6×, 7B against 8B 1.1×).
const ParamsTolerance = 0.03

// BoundTolerance is how far above the ideal bound a measurement may be
// before it is flagged: the rounding of published figures.
const BoundTolerance = 0.01

// Row is one measured test beside its prediction.
type Row struct {
	Run      measured.Run
	Model    string
	Weights  string
	KV       string
	Hardware string
	Family   string
	Engine   string
	// Runtime is the runtime the run is priced under, RuntimeWhy why:
	// named, from the file's format (llama-bench is llama.cpp), or chosen.
	Runtime, RuntimeWhy string

	Precision units.Precision
	Peak      float64 // FLOP/s at Precision: the predictions and MFU
	// IdealPrecision and IdealPeak are what the ideal bound is computed
	// at: the fastest precision the format allows on the engine.
	IdealPrecision units.Precision
	IdealPeak      float64
	Bandwidth      float64 // datasheet B/s

	// UBatch is the tokens per prefill pass the run is priced with: its
	// own, else its runtime's default on the device.
	UBatch int

	Measured  float64 // tokens/s, aggregate
	Predicted float64 // expected tokens/s
	Bound     float64 // tokens/s at the ideal bound
	Ratio     float64 // Measured / Predicted

	AchievedBytesPerS float64
	AchievedFLOPPerS  float64
	MBU               float64 // achieved bytes/s / datasheet bandwidth
	MBUMeasured       float64 // … / measured bandwidth, when the profile has one
	MFU               float64 // achieved FLOP/s / peak at Precision
	PhaseBound        sim.Bound

	// Per decode step (zero for prefill): weights streamed, attention
	// traffic (the KV cache, and the scores when attention is unfused),
	// total.
	WeightBytesPerStep float64
	KVBytesPerStep     float64
	BytesPerStep       float64

	BeatsBound bool
	Notes      []string
	// Mismatch says, when the model the run is priced as has a parameter
	// count other than the run records (beyond ParamsTolerance), both
	// counts; "" otherwise. It is a warning, an error with --strict.
	Mismatch string
	// Elsewhere says, when the run's backend is one only another kind of
	// device has (CUDA on a Mac, Metal on an NVIDIA GPU), that it was
	// measured on other hardware than it is compared with; "" otherwise.
	Elsewhere string
	// Ops is the test's prediction operator by operator, scaled to the
	// measurement (Options.Ops): an attribution, not a measurement.
	Ops *OpAttribution
}

// Utilization is the run's MBU (decode) or MFU (prefill) in words, as
// tables and figures label a run: "MBU 45%".
func (r Row) Utilization() string {
	if r.Run.Test == measured.Prefill {
		return fmt.Sprintf("MFU %.0f%%", 100*r.MFU)
	}
	return fmt.Sprintf("MBU %.0f%%", 100*r.MBU)
}

// APE is the absolute percentage error of the prediction.
func (r Row) APE() float64 { return math.Abs(r.Predicted-r.Measured) / r.Measured }

// Evaluator resolves and prices runs, caching setups.
type Evaluator struct {
	cat    *profiles.Catalog
	opt    Options
	setups map[string]*resolve.Resolved
	// models caches resolveModel by what it reads of a run: matching by
	// parameter count builds every candidate, and a --model file or URL
	// would be read again for every run.
	models map[string]modelMatch
}

type modelMatch struct {
	spec *model.Spec
	how  string
	err  error
	// params is the model's parameter count (0 until needed).
	params float64
}

// New returns an evaluator over catalog cat.
func New(cat *profiles.Catalog, o Options) *Evaluator {
	return &Evaluator{cat: cat, opt: o, setups: map[string]*resolve.Resolved{}, models: map[string]modelMatch{}}
}

// Evaluate prices every run; runs it cannot resolve come back as errors
// naming the run's source.
func (e *Evaluator) Evaluate(runs []measured.Run) ([]Row, []error) {
	rows := make([]Row, 0, len(runs))
	var errs []error
	for _, r := range runs {
		row, err := e.row(r)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.Source(), err))
			continue
		}
		rows = append(rows, row)
	}
	return rows, errs
}

func first(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// Resolve finds the model, formats, device, runtime and engine of run r.
func (e *Evaluator) Resolve(r measured.Run) (*resolve.Resolved, error) {
	var notes []string
	if r.Spread.Any() {
		return nil, errors.New("the run spreads its model over devices or memories (its devices, tp, pp, gpu_layers … columns): compare prices runs on one device; the test of docs/accuracy.md \"Beyond one device\" prices such runs")
	}
	if e.opt.Hardware == "" && r.Hardware == "" {
		return nil, errors.New("no hardware: pass --hardware")
	}
	var dev *hardware.Device
	var err error
	if e.opt.Hardware != "" {
		dev, err = e.cat.Device(e.opt.Hardware)
	} else {
		// A name in the file is only a name, unless --allow-paths.
		dev, err = e.cat.DeviceFromData(r.Hardware, r.File)
	}
	if err != nil {
		return nil, err
	}
	mkey := strings.Join([]string{r.Model, r.File, r.ModelType, fmt.Sprint(r.ModelParams)}, "|")
	mm, cached := e.models[mkey]
	if !cached {
		mm.spec, mm.how, mm.err = e.resolveModel(r)
		e.models[mkey] = mm
	}
	spec, how, err := mm.spec, mm.how, mm.err
	if err != nil {
		return nil, err
	}
	mismatch := ""
	if r.ModelParams > 0 {
		if mm.params == 0 {
			if c, err := model.BuildNamed(spec, "", "", model.Layout{}); err == nil {
				mm.params = c.ParamsTotal
				e.models[mkey] = mm
			}
		}
		if mm.params > 0 && math.Abs(mm.params/r.ModelParams-1) > ParamsTolerance {
			given := spec.Name
			if e.opt.Model != "" && e.opt.Model != spec.Name {
				given = e.opt.Model + " (" + spec.Name + ")"
			}
			mismatch = fmt.Sprintf("%s: the runs record a model of %.3g B parameters, but %s has %.3g B: they are priced as another model than the one that ran (check --model)",
				r.File, r.ModelParams/1e9, given, mm.params/1e9)
		}
	}
	if how != "" {
		notes = append(notes, how)
	}
	rt := first(e.opt.Runtime, e.RuntimeOf(r))
	weights := first(e.opt.Weights, r.Weights)
	switch {
	case weights == "" && spec.FileWeights != nil:
	case weights == "" && e.opt.FallbackWeights != "":
		weights = e.opt.FallbackWeights
		notes = append(notes, "weight format not in the file: taken to be "+weights)
	case weights == "":
		notes = append(notes, "weight format not in the file: the runtime's default assumed (--weights)")
	}
	kv := first(e.opt.KV, r.KV)
	engine := e.opt.Engine
	if engine == "" && r.Engine != "" {
		if _, err := dev.Engine(r.Engine); err == nil {
			engine = r.Engine
		}
	}
	fa := r.FlashAttn
	if e.opt.FlashAttn != "" {
		fa = e.opt.FlashAttn
	}
	o := e.opt.Sim
	o.NoFlashAttention = fa == "off"
	// The run's own settings, else the options' (--max-context, --clocks).
	o.Settings = runtimes.Settings{MaxContext: r.MaxContext, Clocks: r.Clocks}
	if o.Settings.MaxContext == 0 {
		o.Settings.MaxContext = e.opt.Sim.Settings.MaxContext
	}
	if o.Settings.Clocks == "" {
		o.Settings.Clocks = e.opt.Sim.Settings.Clocks
	}
	// The clocks the run's board ran at, else the options'.
	if !r.BoardClocks.IsZero() {
		o.Clocks = r.BoardClocks
	}
	// The run's threads, else the options' (--threads): the cores a CPU
	// engine ran on; other engines ignore them.
	if r.Threads > 0 {
		o.Threads = r.Threads
	}
	key := strings.Join([]string{spec.Name, rt, weights, kv, dev.Name, engine, fmt.Sprint(r.ModelBytes), fa, fmt.Sprint(o.Settings.MaxContext), o.Settings.Clocks, o.Clocks.String(), fmt.Sprint(o.Threads)}, "|")
	res, ok := e.setups[key]
	if !ok {
		res, err = resolve.Spec(e.cat, spec, dev, resolve.Selection{Runtime: rt, Engine: engine, Weights: weights, KV: kv, Options: o, FileBytes: r.ModelBytes})
		// The run's column, or --threads and --clocks: named as the
		// column, not sim's field.
		var fe *sim.FieldError
		if errors.As(err, &fe) && (fe.Field == "Threads" || fe.Field == "Clocks") {
			return nil, fmt.Errorf("%s = %s", strings.ToLower(fe.Field), fe.Msg)
		}
		if err != nil {
			return nil, err
		}
		if e.opt.Runtime == "" && rt != "" {
			// Not the user's choice: the measurement says which runtime ran it.
			ch := *res.Choice
			ch.Why = "the measured runs name it (llama-bench and batched-bench runs are llama.cpp's, vLLM benchmarks vllm's)"
			if r.Runtime == "" {
				ch.Why = "the runs file names it (" + r.Backend + ")"
			}
			res.Choice = &ch
		}
		e.setups[key] = res
	}
	out := *res
	if !o.Settings.IsZero() && res.Setup.Inputs.SettingsNote != "" {
		notes = append(notes, "settings: "+res.Setup.Inputs.SettingsNote)
	}
	out.Notes = append(notes, res.Notes...)
	if mismatch != "" {
		out.Warnings = append(append([]string(nil), res.Warnings...), mismatch)
	}
	return &out, nil
}

// RuntimeOf is the runtime a run names: a format that only one runtime
// writes (llama-bench, vLLM), or the first words of a runtimes CSV's
// runtime column ("llama.cpp CUDA 4426e298" is llama.cpp). When the
// runtime's profile tells builds apart and the run says which build ran,
// the name carries it ("llama.cpp@b2824"), so the run is priced as that
// build runs.
func (e *Evaluator) RuntimeOf(r measured.Run) string {
	name := r.Runtime
	if name == "" && r.Backend != "" {
		// The longest name or alias the column starts with: "TensorRT
		// Edge-LLM 0.9.0" is tensorrt-edge-llm, though it also starts with
		// tensorrt-llm's alias "tensorrt".
		b := strings.ToLower(r.Backend)
		longest := 0
		for _, rt := range e.cat.Runtimes().All() {
			for _, n := range append([]string{rt.Name}, rt.Aliases...) {
				n = strings.ToLower(n)
				if len(n) > longest && (b == n || strings.HasPrefix(b, n+" ") || strings.HasPrefix(b, n+"(")) {
					name, longest = rt.Name, len(n)
				}
			}
		}
	}
	if name == "" {
		return ""
	}
	if rt, err := e.cat.Runtimes().Lookup(name); err == nil && len(rt.Eras) > 0 {
		if b := BuildOf(r); b != "" {
			if _, err := rt.EraOf(b); err == nil {
				return name + "@" + b
			}
		}
	}
	return name
}

var (
	buildInParens = regexp.MustCompile(`\((\d{3,6})\)`)
	buildTag      = regexp.MustCompile(`\bb(\d{3,6})\b`)
	buildDate     = regexp.MustCompile(`\b(20\d\d-[01]\d(?:-[0-3]\d)?)\b`)
)

// BuildOf is the build a run names, "" when it names none: llama-bench's
// build number, or in a runs CSV's runtime column a number in parentheses
// ("4426e298 (2824)"), a release tag ("b2824") or a date ("2024-03",
// "2024-01-10"), as "b2824" or the date.
func BuildOf(r measured.Run) string {
	for _, s := range []string{r.Build, r.Backend} {
		if m := buildInParens.FindStringSubmatch(s); m != nil {
			return "b" + m[1]
		}
		if m := buildTag.FindStringSubmatch(s); m != nil {
			return "b" + m[1]
		}
		if m := buildDate.FindStringSubmatch(s); m != nil {
			return m[1]
		}
	}
	return ""
}

// Phase prices run r's test on setup s: an e2e run's prefill and its
// Gen − 1 decode steps together.
func Phase(s *sim.Setup, r measured.Run) sim.Phase {
	switch r.Test {
	case measured.Prefill:
		return s.Prefill(r.Prompt, r.Depth, r.Batch, r.UBatch)
	case measured.E2E:
		return s.Prefill(r.Prompt, r.Depth, r.Batch, r.UBatch).Then(s.Decode(r.Depth+r.Prompt+1, r.Gen-1, r.Batch))
	}
	return s.Decode(r.Depth+1, r.Gen, r.Batch)
}

func (e *Evaluator) row(r measured.Run) (Row, error) {
	row := Row{Run: r, Measured: r.TokensPerS}
	res, err := e.Resolve(r)
	if err != nil {
		return row, err
	}
	s := res.Setup
	m, dev, spec := s.Model, s.Device, s.Model.Spec
	row.Notes = res.Notes
	if len(res.Warnings) > 0 {
		row.Mismatch = res.Warnings[len(res.Warnings)-1]
	}
	row.Elsewhere = backendElsewhere(r, s.Device)
	row.Model, row.Weights, row.KV, row.Hardware, row.Family = spec.Name, m.Weights.Name, m.KV.Name, dev.Name, dev.Family
	row.Engine, row.Precision, row.Peak, row.Bandwidth = s.Inputs.Engine, s.Inputs.Precision, s.Inputs.Peak, dev.Bandwidth
	row.IdealPrecision, row.IdealPeak = s.Inputs.IdealPrecision, s.Inputs.IdealPeak
	row.Runtime, row.RuntimeWhy = s.Runtime.Name, res.Choice.Why
	row.UBatch = s.Chunk(r.UBatch, r.Batch*r.Prompt)

	tokens := float64(r.Tokens())
	ph := Phase(s, r)
	if r.Test == measured.Decode {
		row.WeightBytesPerStep = m.StreamedBytes(r.Batch, true)
		row.BytesPerStep = ph.Bytes / float64(ph.Steps)
		row.KVBytesPerStep = row.BytesPerStep - row.WeightBytesPerStep
	}
	measuredTime := tokens / r.TokensPerS
	row.Predicted = tokens / ph.Time
	row.Bound = tokens / ph.IdealTime
	row.Ratio = row.Measured / row.Predicted
	row.AchievedBytesPerS = ph.Bytes / measuredTime
	row.AchievedFLOPPerS = ph.FLOPs / measuredTime
	row.MBU = row.AchievedBytesPerS / dev.Bandwidth
	if dev.MeasuredBandwidth > 0 {
		row.MBUMeasured = row.AchievedBytesPerS / dev.MeasuredBandwidth
	}
	row.MFU = row.AchievedFLOPPerS / s.Inputs.Peak
	row.PhaseBound = ph.Bound
	if row.Measured > row.Bound*(1+BoundTolerance) {
		row.BeatsBound = true
		row.Notes = append(row.Notes, fmt.Sprintf("faster than the physical limit (%.4g tokens/s): the profile, the model match or the measurement is wrong", row.Bound))
	}
	if ctx := r.Depth + r.Prompt + r.Gen; ctx > spec.MaxContext {
		row.Notes = append(row.Notes, fmt.Sprintf("context %d exceeds the model's %d", ctx, spec.MaxContext))
	}
	if r.Note != "" {
		row.Notes = append(row.Notes, r.Note)
	}
	if e.opt.Ops {
		if row.Ops, err = attribute(s, r, measuredTime); err != nil {
			return row, err
		}
	}
	return row, nil
}

// resolveModel finds the model: --model, then a name in the file, then the
// llama-bench architecture and parameter count.
func (e *Evaluator) resolveModel(r measured.Run) (*model.Spec, string, error) {
	if e.opt.Model != "" {
		s, err := e.cat.Model(e.opt.Model)
		return s, "", err
	}
	if r.Model != "" {
		if s, err := e.cat.ModelFromData(r.Model, r.File); err == nil {
			return s, "", nil
		}
	}
	if r.ModelParams > 0 {
		arch := measured.ArchFromModelType(r.ModelType)
		type cand struct {
			s   *model.Spec
			rel float64
		}
		var cs []cand
		for _, s := range e.cat.Models() {
			if types, ok := gguf.ModelTypes(arch); ok && !containsStr(types, s.Architecture) {
				continue
			}
			// Parameters do not depend on the format: the model's own.
			c, err := model.BuildNamed(s, "", "", model.Layout{})
			if err != nil {
				continue
			}
			if rel := math.Abs(c.ParamsTotal/r.ModelParams - 1); rel < 0.015 {
				cs = append(cs, cand{s, rel})
			}
		}
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].rel < cs[j].rel })
		if len(cs) > 0 {
			note := fmt.Sprintf("model matched by architecture %q and %.2f B parameters", arch, r.ModelParams/1e9)
			if len(cs) > 1 {
				var alt []string
				for _, c := range cs[1:] {
					alt = append(alt, c.s.Name)
				}
				note += " (also close: " + strings.Join(alt, ", ") + "; --model picks one)"
			}
			return cs[0].s, note, nil
		}
		return nil, "", fmt.Errorf("no built-in model of architecture %q has %.4g parameters: pass --model (a name or a .toml profile)", arch, r.ModelParams)
	}
	if r.Model != "" {
		_, err := e.cat.ModelFromData(r.Model, r.File)
		return nil, "", fmt.Errorf("%w: pass --model", err)
	}
	if e.opt.FallbackModel != "" {
		s, err := e.cat.Model(e.opt.FallbackModel)
		return s, "the file does not say which model ran: taken to be " + e.opt.FallbackModel, err
	}
	return nil, "", errors.New("the file does not say which model ran: pass --model")
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Summary is the accuracy of a set of rows, per test.
type Summary struct {
	Decode, Prefill, E2E Stat
}

// Stat is a median absolute percentage error over N rows.
type Stat struct {
	N     int
	MdAPE float64
	// Bias is the median of measured / predicted.
	Bias float64
}

// Summarize computes MdAPE and the median ratio per phase.
func Summarize(rows []Row) Summary {
	var s Summary
	var dec, pre, e2e, decR, preR, e2eR []float64
	for _, r := range rows {
		switch r.Run.Test {
		case measured.Decode:
			dec, decR = append(dec, r.APE()), append(decR, r.Ratio)
		case measured.E2E:
			e2e, e2eR = append(e2e, r.APE()), append(e2eR, r.Ratio)
		default:
			pre, preR = append(pre, r.APE()), append(preR, r.Ratio)
		}
	}
	s.Decode = Stat{len(dec), median(dec), median(decR)}
	s.Prefill = Stat{len(pre), median(pre), median(preR)}
	s.E2E = Stat{len(e2e), median(e2e), median(e2eR)}
	return s
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	w := append([]float64(nil), v...)
	sort.Float64s(w)
	n := len(w)
	if n%2 == 1 {
		return w[n/2]
	}
	return (w[n/2-1] + w[n/2]) / 2
}

// backendFamilies are the device families that have each backend llama.cpp
// names (llama-bench's backends, a runs CSV's runtime column): CUDA runs on
// NVIDIA's GPUs and Jetsons, Metal on Apple's chips, ROCm/HIP on AMD's.
var backendFamilies = map[string][]string{
	"cuda":  {"nvidia", "jetson"},
	"metal": {"apple"},
	"rocm":  {"amd"},
	"hip":   {"amd"},
}

// backendElsewhere is a warning when run r's backend is one no device of
// dev's family has; "" when it fits, names no such backend, or dev is a
// generic CPU device (family cpu), which a GPU build's host can be.
func backendElsewhere(r measured.Run, dev *hardware.Device) string {
	if dev.Family == "cpu" {
		return ""
	}
	words := strings.FieldsFunc(strings.ToLower(r.Backend), func(c rune) bool {
		return !unicode.IsLetter(c) && !unicode.IsDigit(c)
	})
	for _, w := range words {
		if fams, ok := backendFamilies[w]; ok && !slices.Contains(fams, dev.Family) {
			return fmt.Sprintf("%s: the runs were measured with the %s backend, which only %s devices have, but are compared with %s (family %s): check --hardware",
				r.File, strings.ToUpper(w), strings.Join(fams, " and "), dev.Name, dev.Family)
		}
	}
	return ""
}
