// Package resolve turns what a user asked for — a model and a device,
// maybe a runtime, an engine and formats — into a sim.Setup, by the one
// rule every command follows: the runtime and engine by runtimes.Choose,
// the layout by the runtime, the cost by package model, the efficiency by
// package sim. Predictions, measured-run comparison, planning, calibration,
// figures and reports all resolve here, so they cannot disagree.
package resolve

import (
	"errors"
	"fmt"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// Selection is what a user chose. Empty strings mean "choose for me".
type Selection struct {
	Model, Hardware string
	Runtime, Engine string
	Weights, KV     string
	Options         sim.Options
	// StorageBandwidth replaces the device's storage read rate when
	// positive, B/s.
	StorageBandwidth float64
	// FileBytes is the exact size of the model file when known (a
	// llama-bench model_size): the recipe's uncertain tensors absorb the
	// difference (model.Cost.FitTo).
	FileBytes float64
}

// Resolved is a selection priced, with the reasons for each choice.
type Resolved struct {
	*sim.Setup
	Choice *runtimes.Choice
	// Fit is set when the cost was matched to a file's exact size.
	Fit *model.FileFit
	// Notes say what the user may not expect, in words; Warnings what
	// makes the answer doubtful (a model whose parameter count is not the
	// one the runs record).
	Notes, Warnings []string
}

// InputError is a problem with one input of a selection; Input names it
// ("model", "hardware", "runtime", "engine", "weights", "kv") so that a
// command can name its flag and a study its key.
type InputError struct {
	Input string
	Err   error
}

func (e *InputError) Error() string { return e.Input + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Resolve resolves sel against catalog cat.
func Resolve(cat *profiles.Catalog, sel Selection) (*Resolved, error) {
	if sel.Model == "" {
		return nil, &InputError{"model", errors.New("is required")}
	}
	if sel.Hardware == "" {
		return nil, &InputError{"hardware", errors.New("is required")}
	}
	spec, err := cat.Model(sel.Model)
	if err != nil {
		return nil, &InputError{"model", err}
	}
	dev, err := cat.Device(sel.Hardware)
	if err != nil {
		return nil, &InputError{"hardware", err}
	}
	return Spec(cat, spec, dev, sel)
}

// Spec resolves sel for a model and a device already found.
func Spec(cat *profiles.Catalog, spec *model.Spec, dev *hardware.Device, sel Selection) (*Resolved, error) {
	if sel.StorageBandwidth > 0 {
		d := *dev
		d.StorageBandwidth = sel.StorageBandwidth
		dev = &d
	}
	set := cat.Runtimes()
	if sel.Runtime != "" {
		// A name, an alias or a profile's path: unknown names come back
		// with the nearest known ones, bad profiles with file and line.
		rt, err := cat.Runtime(sel.Runtime)
		if err != nil {
			return nil, &InputError{"runtime", err}
		}
		set, sel.Runtime = set.With(rt), rt.Name
	}
	ch, err := set.Choose(spec, dev, runtimes.Request{Runtime: sel.Runtime, Weights: sel.Weights, Engine: sel.Engine, KV: sel.KV})
	if err != nil {
		return nil, classify(err, sel)
	}
	cost, err := Cost(spec, ch.Weights, ch.KV, ch.Runtime)
	if err != nil {
		return nil, &InputError{"weights", err}
	}
	// How the model's file was read (a config.json read as its family, a
	// GGUF's tensors), then why the runtime and formats were chosen.
	r := &Resolved{Choice: ch, Notes: append(append([]string(nil), spec.FileNotes...), ch.Notes...)}
	if sel.FileBytes > 0 && !ch.Weights.IsFile() {
		if c, fit := cost.FitTo(sel.FileBytes); !fit.Within {
			r.Fit = &fit
			cost = c
			r.Notes = append(r.Notes, FitNote(fit, ch.Weights.Name))
		}
	}
	s, err := sim.NewSetup(cost, dev, ch.Engine, ch.Runtime, sel.Options)
	if fe := (*sim.FieldError)(nil); errors.As(err, &fe) {
		return nil, err // an option's error (--threads), not the engine's
	} else if err != nil {
		return nil, &InputError{"engine", err}
	}
	r.Setup = s
	return r, nil
}

// FitNote says in words how a cost was matched to its file
// (model.Cost.FitTo): the one text of predict's and compare's notes and of
// show model --file-size.
func FitNote(f model.FileFit, weights string) string {
	diff := 100 * (f.FileBytes/f.RecipeBytes - 1)
	file := units.FormatBytes(f.FileBytes, units.Binary)
	switch {
	case f.Within:
		return fmt.Sprintf("the file's %s is within %.1f %% of the %s recipe (%+.2f %%): priced at the recipe",
			file, 100*model.FileTolerance, weights, diff)
	case !f.Absorbed:
		return fmt.Sprintf("the file (%s) differs from the %s recipe by %+.2f %%, more than the tensors whose type the recipe cannot be sure of can explain (×%.2f): priced at the recipe; the file is probably another format",
			file, weights, diff, f.Factor)
	}
	lead, recipe := "", fmt.Sprintf("%+.2f %% from the %s recipe", diff, weights)
	if f.Untied {
		lead = "the file stores the output head apart from the embedding table, one table more than the recipe of a model that ties them: " +
			"priced untied, the head read per token and the table one row per token; "
		recipe = fmt.Sprintf("%+.2f %% from the %s recipe, %+.2f %% from it untied", diff, weights, 100*(f.FileBytes/f.UntiedBytes-1))
		if f.Tensors == 0 {
			return fmt.Sprintf("matched to the file's %s (%s): %sthe rest are priced as the recipe gives them", file, recipe, lead)
		}
	}
	var parts []string
	for _, c := range f.Changes {
		parts = append(parts, fmt.Sprintf("%s %s", c.Role, signedBytes(c.To-c.From)))
	}
	which := fmt.Sprintf("the %d tensors whose type the recipe cannot be sure of", f.Tensors)
	if f.Tensors == 1 {
		which = "the one tensor whose type the recipe cannot be sure of"
	}
	return fmt.Sprintf("matched to the file's %s (%s): %s%s, scaled ×%.3f, absorbed it (%s); the rest are priced as the recipe gives them",
		file, recipe, lead, which, f.Factor, strings.Join(parts, ", "))
}

func signedBytes(b float64) string {
	if b < 0 {
		return "−" + units.FormatBytes(-b, units.Binary)
	}
	return "+" + units.FormatBytes(b, units.Binary)
}

// Cost prices spec in weight format w and KV format kv under runtime rt's
// layout.
func Cost(spec *model.Spec, w model.WeightFormat, kv string, rt *runtimes.Runtime) (*model.Cost, error) {
	return NewCosts().Cost(spec, w, kv, rt)
}

// Costs prices models as Cost does, each model in each format and layout
// once: a plan's devices share a cost, its formats a model's tensor
// inventory.
type Costs struct {
	costs       map[costKey]*model.Cost
	inventories map[*model.Spec][]model.Tensor
	sums        bool
}

type costKey struct {
	spec    *model.Spec
	weights string
	kv      string
	layout  model.Layout
}

// NewCosts is an empty cache.
func NewCosts() *Costs {
	return &Costs{costs: map[costKey]*model.Cost{}, inventories: map[*model.Spec][]model.Tensor{}}
}

// NewSumCosts is an empty cache of costs without their list of tensors
// (model.BuildSums): a full-catalog plan holds thousands of costs and
// prices only through their sums.
func NewSumCosts() *Costs {
	c := NewCosts()
	c.sums = true
	return c
}

// Cost prices spec in weight format w and KV format kv under runtime rt's
// layout.
func (c *Costs) Cost(spec *model.Spec, w model.WeightFormat, kv string, rt *runtimes.Runtime) (*model.Cost, error) {
	l := rt.LayoutFor(spec, w.Name)
	key := costKey{spec, w.Name, kv, l}
	if cost, ok := c.costs[key]; ok {
		return cost, nil
	}
	inv, ok := c.inventories[spec]
	if !ok {
		if err := spec.Validate(); err != nil {
			return nil, fmt.Errorf("model %s: %w", spec.Name, err)
		}
		inv = spec.Tensors()
		c.inventories[spec] = inv
	}
	k, err := model.LookupKVFormat(kv)
	if err != nil {
		return nil, err
	}
	build := model.BuildFrom
	if c.sums {
		build = model.BuildSums
	}
	cost, err := build(spec, inv, w, k, l)
	if err != nil {
		return nil, err
	}
	c.costs[key] = cost
	return cost, nil
}

// classify names the input an error from runtimes.Choose is about.
func classify(err error, sel Selection) error {
	var ue *model.UnknownError
	if errors.As(err, &ue) {
		err = profiles.DidYouMean(err)
		switch ue.Kind {
		case "runtime":
			return &InputError{"runtime", err}
		case "KV format":
			return &InputError{"kv", err}
		}
		return &InputError{"weights", err}
	}
	if errors.As(err, new(*runtimes.WeightsConflictError)) {
		return &InputError{"weights", err}
	}
	var un *runtimes.UnsupportedError
	if errors.As(err, &un) {
		switch {
		case sel.KV != "" && strings.HasPrefix(un.What, "KV format "):
			return &InputError{"kv", err}
		case sel.Runtime != "":
			return &InputError{"runtime", err}
		case sel.Weights != "":
			return &InputError{"weights", err}
		}
		return &InputError{"engine", err}
	}
	if sel.Weights == "" && sel.Engine != "" {
		return &InputError{"engine", err}
	}
	return &InputError{"weights", err}
}
