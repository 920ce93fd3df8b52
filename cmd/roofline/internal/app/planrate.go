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
		if ch.Group == nil || (ch.Place != 1 && !req.Detail) {
			return nil
		}
		p.Rates[i], err = p.env.planMaxRate(p.ServeRequest(ch.Group, ch.Config))
		return err
	})
}

// ServeRequest is the serve request of a plan's configuration: serve
// --max-rate on its device, engine, runtime, model and formats, spread
// over its devices (the plan's link) or offloaded as the plan places it
// (--gpu-layers and --n-cpu-moe of its placement, the plan's host),
// with Poisson arrivals of the plan's requests, PlanRateRequests of them
// at each of at most PlanRateRuns rates, the plan's --headroom of every
// memory kept free (serve.Options.Headroom). Its answer is the
// configuration's PlanRate.
func (p *Plan) ServeRequest(g *plan.Group, c sim.Config) ServeRequest {
	req := p.Request
	sp := p.placed(Spread{Host: req.Spread.Host, Link: req.Spread.Link, LinkRate: req.Spread.LinkRate, LinkLatency: req.Spread.LinkLatency}, g, c)
	return ServeRequest{
		Setup:      Selection{Model: g.Model, Hardware: g.Device, Engine: g.Engine, Runtime: g.Runtime, Weights: g.Weights, KV: g.KV, Options: req.Options},
		Workload:   serve.Workload{Arrival: serve.Poisson, Rate: 1, Requests: PlanRateRequests, Prompt: serve.Dist{Kind: serve.Fixed, A: float64(g.Prompt)}, Output: serve.Dist{Kind: serve.Fixed, A: float64(g.Output)}, Seed: 1},
		UBatch:     p.Space.UBatch,
		Targets:    serve.Targets{TTFT: p.Targets.TTFT, TPOT: p.Targets.TPOT},
		Headroom:   p.Targets.Headroom,
		SearchRuns: PlanRateRuns,
		FrontEnd:   req.FrontEnd,
		Spread:     sp,
	}
}

// planMaxRate runs serve's search on the server serve builds for req
// (Env.server): one device, a tensor-parallel group, an offload to the
// host, pipeline stages or RPC boards, each stepped as serve steps it
// (a pipeline stage by stage, sim.Split.StepPricer). The plan's requests
// are of fixed lengths: a configuration whose lone request misses a
// target sustains no rate, said without the search's runs.
func (env *Env) planMaxRate(req ServeRequest) (PlanRate, error) {
	a, err := env.server(req)
	var nf *serve.NotFitError
	switch {
	case errors.As(err, &nf):
		return PlanRate{Searched: true, NoCache: true}, nil
	case errors.Is(err, ErrNotStepped):
		return PlanRate{}, nil // stages in turn: serve does not step them
	case err != nil:
		return PlanRate{}, err
	}
	// A lone request that misses a target: no rate meets it, and the
	// search would run its every rate to say so (serve.AloneMisses).
	if misses, err := a.Server.AloneMisses(int(req.Workload.Prompt.A), int(req.Workload.Output.A), req.Targets); err != nil || len(misses) > 0 {
		return PlanRate{Searched: err == nil, Bound: misses}, err
	}
	rs, err := a.Server.MaxRate(req.Workload, req.Targets, req.SearchRuns)
	if err != nil {
		return PlanRate{}, err
	}
	return PlanRate{Searched: true, MaxRate: rs.MaxRate, Bound: rs.Bound}, nil
}

// placed is spread sp with configuration c of group g as the search
// placed it: over g's devices, or offloaded with c's layers and experts
// over the plan's link as the card's bus runs it, or the card's own bus
// where the link cannot be it (Spread.busOf). The detail rows and the
// rate search both price it.
func (p *Plan) placed(sp Spread, g *plan.Group, c sim.Config) Spread {
	if g.Devices > 1 {
		sp.Devices = g.Devices
	}
	if layers, experts, ok := c.Offload(); ok {
		sp.GPULayers, sp.GPULayersSet, sp.NCPUMoE = layers, true, experts
		if d, err := p.env.Catalog.Device(g.Device); err == nil {
			sp = sp.busOf(d)
		}
	}
	return sp
}
