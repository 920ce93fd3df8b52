package app

import (
	"github.com/roofline/roofline/sim"
)

// PredictRequest is one request on one setup, with the optional figures:
// energy, and speculative decoding with a draft.
type PredictRequest struct {
	Setup    Selection
	Workload sim.Workload
	Power    Power
	Draft    *Draft // nil: no speculative decoding
	// Ops asks for the prediction operator by operator; nil: not.
	Ops *OpsRequest
}

// Prediction is predict's answer.
type Prediction struct {
	*sim.Result
	// Why the runtime was chosen, and what the choice did that the user
	// may not expect.
	Why   string
	Notes []string
	// Energy is nil when no draw is known, and NoEnergy then says why;
	// Speculative is nil without a draft.
	Energy      *Energy
	NoEnergy    string
	Speculative *Speculative
	// ExpectedComputeBoundBatch is the smallest batch whose last decode
	// step is compute-bound at the expected efficiencies, 0 when none is
	// (sim.Setup.ExpectedComputeBoundBatch).
	ExpectedComputeBoundBatch int
	// Ops is the prediction operator by operator, when asked for.
	Ops *Ops
}

// Speculative is speculative decoding with a draft model.
type Speculative struct {
	sim.SpeculativeResult
	Draft, DraftWeights string
	K                   int     // tokens drafted per round
	Acceptance          float64 // probability each is accepted
}

// Predict prices one request.
func (env *Env) Predict(req PredictRequest) (*Prediction, error) {
	if err := req.Workload.Validate(); err != nil {
		return nil, err
	}
	res, err := env.Resolve(req.Setup)
	if err != nil {
		return nil, err
	}
	s := res.Setup
	r, err := s.Predict(req.Workload)
	if err != nil {
		return nil, err
	}
	p := &Prediction{Result: r, Why: res.Choice.Why, Notes: res.Notes}
	if !r.Queued && req.Workload.Output > 1 {
		p.ExpectedComputeBoundBatch = s.ExpectedComputeBoundBatch(req.Workload.LastStepContext())
	}
	if p.Energy, p.NoEnergy, err = energy(s, req.Power, r.TPOT, r.E2E, r.Inputs.Workload.Batch); err != nil {
		return nil, err
	}
	if req.Ops != nil {
		if p.Ops, err = operators(s, r, *req.Ops); err != nil {
			return nil, err
		}
	}
	if req.Draft != nil {
		if p.Speculative, err = env.speculate(s, req.Setup, *req.Draft, req.Workload); err != nil {
			return nil, err
		}
		r.Warnings = append(r.Warnings, p.Speculative.Warnings...)
	}
	return p, nil
}

// speculate prices a draft for the target over workload w.
func (env *Env) speculate(target *sim.Setup, sel Selection, d Draft, w sim.Workload) (*Speculative, error) {
	if err := d.Speculation.Validate(); err != nil {
		return nil, err
	}
	draft, err := env.draftSetup(target, sel, d)
	if err != nil {
		return nil, err
	}
	sr, err := target.SpeculateOn(draft, d.Speculation, w)
	if err != nil {
		return nil, err
	}
	return &Speculative{SpeculativeResult: sr, Draft: draft.Model.Spec.Name, DraftWeights: draft.Model.Weights.Name,
		K: d.Speculation.K, Acceptance: d.Speculation.Acceptance}, nil
}
