package app

import (
	"fmt"
	"slices"

	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/sim"
)

// PredictRequest is one request on one setup, with the optional figures:
// energy, and speculative decoding with a draft.
type PredictRequest struct {
	Setup    Selection
	Workload sim.Workload
	Power    Power
	Draft    *Draft // nil: no speculative decoding
	// Spread spreads the model over more than one device or memory.
	Spread Spread
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
	// Placement are the notes of Notes that say how the model was placed
	// (spread over devices, offloaded to a host, the links): what a plan
	// says of its recommended configurations.
	Placement []string
	// Energy is nil when no draw is known, and NoEnergy then says why;
	// Speculative is nil without a draft.
	Energy      *Energy
	NoEnergy    string
	Speculative *Speculative
	// ExpectedComputeBoundBatch is the smallest batch whose last decode
	// step is compute-bound at the expected efficiencies, 0 when none is
	// (sim.Setup.ExpectedComputeBoundBatch).
	ExpectedComputeBoundBatch int
	// Smallest says, for a model that does not fit, the fewest devices
	// or the host memory that would hold it ("" when none is known).
	Smallest string
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
	sel, spread := req.Setup, req.Spread
	sysNote, _ := spread.system(&sel)
	res, err := env.Resolve(sel)
	if err != nil {
		return nil, err
	}
	s := res.Setup
	notes := res.Notes
	if sysNote != "" {
		notes = append(notes, sysNote)
	}
	before := len(notes)
	split, notes, err := env.split(res, sel, spread, req.Workload, notes)
	if err != nil {
		return nil, err
	}
	placement := slices.Clone(notes[before:])
	if split != nil {
		if req.Ops != nil {
			notes = append(notes, "the operator view is of a model on one device: a model spread over devices or memories has none yet")
		}
		p, err := env.predictSplit(s, split, req, spread, res.Choice.Why, notes)
		if p != nil {
			p.Placement = append(placement, split.Notes...)
		}
		return p, err
	}
	r, err := s.Predict(req.Workload)
	if err != nil {
		return nil, err
	}
	p := &Prediction{Result: r, Why: res.Choice.Why, Notes: notes, Placement: placement}
	if !r.Queued && req.Workload.Output > 1 {
		p.ExpectedComputeBoundBatch = s.ExpectedComputeBoundBatch(req.Workload.LastStepContext())
	}
	if !r.Memory.Fits {
		if n, flags, _ := env.smallestFit(s, spread, req.Workload); n > 0 {
			p.Smallest = fmt.Sprintf("%d devices like it would hold it (%s)", n, flags)
		} else if why := peerless(s.Device, spread); why != "" {
			p.Smallest = "no count of devices like it over that link: " + why
		} else if why := machineBound(s, spread); why != "" {
			p.Smallest = "no count of devices like it in one machine holds it: " + why
		}
	}
	if p.Energy, p.NoEnergy, err = energy(s, req.Power, r.TPOT, r.E2E, r.Together()); err != nil {
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

// predictSplit prices a request on a split model.
func (env *Env) predictSplit(s *sim.Setup, split *sim.Split, req PredictRequest, spread Spread, why string, notes []string) (*Prediction, error) {
	if req.Draft != nil {
		return nil, &RequestError{Input: "draft", Msg: "speculative decoding is not priced on a model spread over devices or memories"}
	}
	r, err := split.Predict(req.Workload)
	if err != nil {
		return nil, err
	}
	p := &Prediction{Result: r, Why: why, Notes: append(notes, split.Notes...),
		NoEnergy: "energy is not estimated for a model spread over several devices or memories"}
	if !r.Memory.Fits {
		if hostNeed(r) > 0 {
			p.Smallest = spread.offloadAdvice(r)
		} else if a := spread.offloadAdvice(r); a != "" {
			// The GPU's memory short under the flags given: as serve
			// hints it.
			p.Notes = append(p.Notes, a)
		} else if split.Kind != sim.Offload {
			if n, flags, _ := env.smallestFit(s, spread, req.Workload); n > 0 {
				p.Smallest = fmt.Sprintf("%d devices would hold it (%s)", n, flags)
			} else if why := machineBound(s, spread); why != "" {
				p.Smallest = "no count of devices like it in one machine holds it: " + why
			} else {
				p.Smallest = fmt.Sprintf("no count up to %d devices like it holds it", limits.Devices)
			}
		}
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
