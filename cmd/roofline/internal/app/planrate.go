package app

import (
	"errors"

	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/serve"
	"github.com/roofline/roofline/sim"
)

// PlanRate is the largest Poisson arrival rate of the plan's requests
// (its prompt and output lengths) at which a configuration's server keeps
// p99 TTFT and p99 TPOT within the targets: what roofline serve
// --max-rate answers on the configuration's device, model, formats and
// runtime, in a bounded search.
type PlanRate struct {
	// Searched is false for a configuration the plan did not search (not
	// recommended, without --detail) or one without a latency target.
	Searched bool
	// MaxRate is requests/s; 0 when even the lowest rate tried misses.
	MaxRate float64
	// Bound is what the next faster rate misses ("ttft", "tpot",
	// "failures"); NoCache is true when the server has no room for a KV
	// cache at all.
	Bound   []string
	NoCache bool
}

// The plan's bounded max-rate search: so many requests a rate, so many
// rates (the search bisects to serve.SearchPrecision within them).
const (
	PlanRateRequests = 1000
	PlanRateRuns     = 14
)

// Sustains reports whether the rate was searched and reaches r.
func (pr PlanRate) Sustains(r float64) bool { return pr.Searched && pr.MaxRate >= r }

// maxRates searches the rate of the recommended configurations (every
// shown one with --detail) when the request asks for a rate or detail.
func (p *Plan) maxRates(res *plan.Result) error {
	req := p.Request
	if req.Rate <= 0 && !req.Detail {
		return nil
	}
	p.Rates = make([]PlanRate, len(p.Shown.Choices))
	if p.Targets.TTFT <= 0 && p.Targets.TPOT <= 0 {
		return nil // nothing to hold a rate to
	}
	return onTwoWorkers(len(p.Rates), func(i int) (err error) {
		ch := p.Shown.Choices[i]
		// serve steps one device, a tensor-parallel group or an offload;
		// plan searches the first two: an offloaded configuration's rate,
		// or one whose devices run stages in turn, is not searched.
		if ch.Group == nil || (ch.Place != 1 && !req.Detail) || ch.Config.Offloaded() {
			return nil
		}
		p.Rates[i], err = planMaxRate(res, ch.Group, p.Space.UBatch, p.Targets, req.FrontEnd)
		return err
	})
}

// planMaxRate runs serve's search on a configuration's server.
func planMaxRate(res *plan.Result, g *plan.Group, ubatch int, t sim.Targets, fe *serve.FrontEnd) (PlanRate, error) {
	s, err := res.Setup(g)
	if err != nil {
		return PlanRate{}, err
	}
	f, _ := RuntimeFrontEnd(s.Runtime)
	if fe != nil {
		f = *fe
	}
	split := res.Split(g)
	if split != nil {
		if _, _, err := split.Serving(); err != nil {
			return PlanRate{}, nil // stages in turn: serve does not step them
		}
	}
	sv, err := serve.New(s, s.Runtime.SchedulerFor(s.Device), serve.Options{UBatch: ubatch, FrontEnd: f, Split: split})
	var nf *serve.NotFitError
	if errors.As(err, &nf) {
		return PlanRate{Searched: true, NoCache: true}, nil
	} else if err != nil {
		return PlanRate{}, err
	}
	w := serve.Workload{Arrival: serve.Poisson, Rate: 1, Requests: PlanRateRequests, Prompt: serve.Dist{Kind: serve.Fixed, A: float64(g.Prompt)}, Output: serve.Dist{Kind: serve.Fixed, A: float64(g.Output)}, Seed: 1}
	rs, err := sv.MaxRate(w, serve.Targets{TTFT: t.TTFT, TPOT: t.TPOT}, PlanRateRuns)
	if err != nil {
		return PlanRate{}, err
	}
	return PlanRate{Searched: true, MaxRate: rs.MaxRate, Bound: rs.Bound}, nil
}
