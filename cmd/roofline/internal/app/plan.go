package app

import (
	"errors"

	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/sim"
)

// PlanRequest is a search space by name, with the targets.
type PlanRequest struct {
	// Devices take names, globs (jetson-*) and all; Models names and all;
	// Weights names and all.
	Devices, Engines, Runtimes, Models, Weights, KV []string
	Contexts, Batches                               []int
	Prompt, Output, UBatch                          int
	// MinContext and MinBatch drop smaller values from the lists.
	MinContext, MinBatch int
	Options              sim.Options
	Targets              sim.Targets
}

// Plan is plan's answer: every configuration, the best per device and
// model, the inverse limits and the quality–speed frontier.
type Plan struct {
	*plan.Result
	Space   plan.Space
	Targets sim.Targets
	Best    []plan.Choice
	Pareto  []plan.ParetoPoint
}

// Feasible reports whether any device and model has a configuration that
// meets the targets.
func (p *Plan) Feasible() bool {
	for _, ch := range p.Best {
		if ch.Feasible {
			return true
		}
	}
	return false
}

// Space resolves a request's names into a search space, reporting every
// unknown name at once (each a *resolve.InputError).
func (env *Env) Space(req PlanRequest) (plan.Space, error) {
	cat := env.Catalog
	sp := plan.Space{Contexts: req.Contexts, Batches: req.Batches, Prompt: req.Prompt, Output: req.Output, UBatch: req.UBatch,
		MinContext: req.MinContext, MinBatch: req.MinBatch, Options: req.Options, Engines: req.Engines, RuntimeSet: cat.Runtimes()}
	if w := (sim.Workload{Prompt: req.Prompt, Output: req.Output, Batch: 1, UBatch: req.UBatch}); w.Validate() != nil {
		return sp, w.Validate()
	}
	var errs []error
	for _, r := range req.Runtimes {
		if _, err := cat.Runtime(r); err != nil {
			errs = append(errs, &resolve.InputError{Input: "runtime", Err: err})
			continue
		}
		sp.Runtimes = append(sp.Runtimes, r)
	}
	var err error
	sp.Devices, err = plan.ResolveDevices(cat, req.Devices)
	errs = append(errs, err)
	sp.Models, err = plan.ResolveModels(cat, req.Models)
	errs = append(errs, err)
	if len(req.Weights) == 1 && req.Weights[0] == "all" {
		sp.Weights = plan.AllWeights()
	} else {
		for _, w := range req.Weights {
			errs = append(errs, CheckWeights(w))
		}
		sp.Weights = req.Weights
	}
	for _, k := range req.KV {
		errs = append(errs, CheckKV(k))
	}
	sp.KV = req.KV
	return sp, errors.Join(errs...)
}

// Plan searches the space against the targets.
func (env *Env) Plan(req PlanRequest) (*Plan, error) {
	sp, err := env.Space(req)
	if err != nil {
		return nil, err
	}
	res, err := plan.Run(sp, req.Targets)
	if err != nil {
		return nil, err
	}
	return &Plan{Result: res, Space: sp, Targets: req.Targets, Best: res.Best(), Pareto: res.Pareto()}, nil
}
