package app

import (
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/sim"
)

// Selection is a model on a device as a user chose it; empty fields are
// chosen by the one rule (resolve, runtimes.Choose).
type Selection = resolve.Selection

// Resolve prices a selection into a setup, by the one rule every request
// follows.
func (env *Env) Resolve(sel Selection) (*resolve.Resolved, error) {
	return resolve.Resolve(env.Catalog, sel)
}

// Draft is a draft model for speculative decoding.
type Draft struct {
	Model string
	// Weights is the draft's weight format; "" is DraftWeights' rule.
	Weights     string
	Speculation sim.Speculation
}

// DraftWeights is the weight format a draft runs in when none is given:
// the target's, unless the target's are a model file's own tensor types,
// which do not carry over to another model ("" lets the draft's runtime
// choose).
func DraftWeights(target *sim.Setup, given string) string {
	if given != "" || target.Model.Weights.Name == model.FileWeightsName {
		return given
	}
	return target.Model.Weights.Name
}

// draftSetup resolves the draft on the target's device and runtime choices.
func (env *Env) draftSetup(target *sim.Setup, sel Selection, d Draft) (*sim.Setup, error) {
	sel.Model, sel.Weights = d.Model, DraftWeights(target, d.Weights)
	r, err := env.Resolve(sel)
	if err != nil {
		return nil, &DraftError{err}
	}
	return r.Setup, nil
}

// DraftError is a draft model that could not be resolved.
type DraftError struct{ Err error }

func (e *DraftError) Error() string { return e.Err.Error() }
func (e *DraftError) Unwrap() error { return e.Err }
