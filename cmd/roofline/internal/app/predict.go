package app

import (
	"fmt"

	"github.com/roofline/roofline/sim"
)

// PredictRequest is one request on one setup, with the optional figures:
// energy, and speculative decoding with a draft.
type PredictRequest struct {
	Setup    Selection
	Workload sim.Workload
	Power    Power
	Draft    *Draft // nil: no speculative decoding
}

// Power is what energy figures are priced at.
type Power struct {
	// Watts is the draw; 0 takes the engine's rated power.
	Watts float64
	// BatteryWh adds answers per battery percent; 0 for none.
	BatteryWh float64
}

// Prediction is predict's answer.
type Prediction struct {
	*sim.Result
	// Why the runtime was chosen, and what the choice did that the user
	// may not expect.
	Why   string
	Notes []string
	// Energy is nil when no power is known; Speculative without a draft.
	Energy      *Energy
	Speculative *Speculative
}

// Energy is an estimate from a power draw, not a measurement.
type Energy struct {
	sim.Energy
	// Given is true when the user gave the draw; else it is the engine's
	// rated power from the profile.
	Given     bool
	Engine    string
	BatteryWh float64
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
	if p.Energy, err = energy(s, req.Power, r.TPOT, r.E2E, r.Inputs.Workload.Batch); err != nil {
		return nil, err
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

// energy prices requests of batch sequences at the given power, or the
// engine's rated power; nil when neither is known.
func energy(s *sim.Setup, p Power, tpot, e2e float64, batch int) (*Energy, error) {
	watts, given := p.Watts, p.Watts > 0
	if !given {
		run, _, _, _, err := s.Device.PowerDraw(s.Engine.Name)
		if err != nil {
			if p.BatteryWh > 0 {
				return nil, &sim.FieldError{Field: "BatteryWh", Msg: fmt.Sprintf("needs a power draw: the %s engine of %s has no rated power in its profile", s.Engine.Name, s.Device.Name)}
			}
			return nil, nil
		}
		watts = run
	}
	e, err := sim.EnergyFor(watts, tpot, e2e, batch, p.BatteryWh)
	if err != nil {
		return nil, err
	}
	return &Energy{Energy: e, Given: given, Engine: s.Engine.Name, BatteryWh: p.BatteryWh}, nil
}
