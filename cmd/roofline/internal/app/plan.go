package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/serve"
	"github.com/roofline/roofline/sim"
)

// PlanRequest is a search space by name, with the targets.
type PlanRequest struct {
	// Devices take names, globs (jetson-*) and all; Models names and all;
	// Weights names and all.
	Devices, Engines, Runtimes, Models, Weights, KV []string
	Contexts, Batches                               []int
	Prompt, Output, UBatch                          int
	// FrontEnd, when set, replaces each runtime's front end in the rate
	// search (the zero FrontEnd: none; ServeRequest.FrontEnd).
	FrontEnd *serve.FrontEnd
	// MinContext and MinBatch drop smaller values from the lists.
	MinContext, MinBatch int
	Options              sim.Options
	Targets              sim.Targets
	// Rank orders the answer; Tolerance is the quality loss within which
	// formats count as equal (plan.DefaultTolerance when 0).
	Rank      plan.Rank
	Tolerance float64
	// Show says what the answer shows: the top configurations per device
	// and model, CPU engines, only pairs that meet the targets. Detail
	// adds the inverse limits, the frontier and what was skipped.
	Show   plan.Options
	Detail bool
	// Counts are the device counts to spread each model over (--devices
	// LIST; empty: one device, offloading what it does not hold as
	// predict does); Spread gives the link between them and the host of
	// an offload (its Link, LinkRate, LinkLatency and Host).
	Counts []int
	Spread Spread
	// Rate is a request-rate target, requests/s (0: none): the
	// recommended configurations' largest rate meeting the latency
	// targets is searched (PlanRate), with --detail every shown one's.
	Rate float64
}

// Plan is plan's answer: every configuration (or a search that streams
// them), the ranked configurations per device and model, the inverse
// limits and the quality–speed frontier.
type Plan struct {
	// Result is nil until the search has run (Run).
	*plan.Result
	Space   plan.Space
	Targets sim.Targets
	Request PlanRequest
	// Best is the recommended configuration per device and model (the
	// report's answer); Shown is what the plan command shows, with
	// Chats, per shown configuration, the concurrent sequences of its
	// context that meet the targets.
	Best  []plan.Choice
	Shown plan.Answer
	Chats []sim.ConcurrencyLimit
	// Rates is, per shown configuration, the largest Poisson rate its
	// server sustains within the latency targets; nil unless the request
	// gives a rate or asks for detail.
	Rates  []PlanRate
	Pareto []plan.ParetoPoint
	// Smallest is, per shown configuration that is recommended and does
	// not fit, what would hold it as predict says it (Prediction.Smallest:
	// the fewest devices like it, or the host memory an offload needs);
	// "" for the others.
	Smallest []string
	// Pools is, per shown configuration that is recommended and spread
	// over memory pools (offloaded to the host, split over devices), what
	// each pool holds as predict says it; nil for the others.
	Pools [][]sim.PoolUse
	// Notes say what the plan decided that its table does not show: how
	// the recommended configurations are placed (the links, the host),
	// a --link or --host it did not use, the counts it left out.
	Notes  []string
	notes  *planNotes
	search *plan.Search
	env    *Env
}

// AnySure reports whether any configuration meets the targets at their
// confidence (its verdict is meets: the slow end of its interval meets
// every target), which is what plan's exit status 0 says. Meeting them
// as predicted is not enough: a figure at the middle of its interval
// misses as often as it meets.
func (p *Plan) AnySure() bool {
	return p.Result != nil && p.Result.Sure > 0 && (p.Request.Rate <= 0 || p.RateMet() > 0)
}

// RateMet counts the shown configurations whose server sustains the
// request's rate target.
func (p *Plan) RateMet() int {
	n := 0
	for _, r := range p.Rates {
		if r.Sustains(p.Request.Rate) {
			n++
		}
	}
	return n
}

// Run evaluates the search, handing each group to emit (nil: none) with
// its configurations, which the plan then forgets: memory stays flat
// however many configurations are written.
func (p *Plan) Run(emit func(*plan.Group) error) error {
	if p.Result != nil {
		return nil
	}
	res, err := p.search.Run(emit, false)
	if err != nil {
		return err
	}
	return p.finish(res)
}

// onTwoWorkers calls f for 0 ≤ i < n on two goroutines (the machines
// roofline targets have two cores or more), each taking every other i and
// stopping at its first error; it returns the errors joined.
func onTwoWorkers(n int, f func(i int) error) error {
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n && errs[w] == nil; i += len(errs) {
				errs[w] = f(i)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// finish ranks a run search into the answer.
func (p *Plan) finish(res *plan.Result) error {
	p.Result, p.Best, p.Shown, p.Pareto = res, res.Best(), res.Answer(p.Request.Show), res.Pareto()
	// Each count bisects the setup's evaluation: on two cores, two halves.
	p.Chats = make([]sim.ConcurrencyLimit, len(p.Shown.Choices))
	err := onTwoWorkers(len(p.Chats), func(i int) (err error) {
		if ch := p.Shown.Choices[i]; ch.Group != nil {
			p.Chats[i], err = res.Concurrency(ch.Group, ch.Config)
		}
		return err
	})
	if err != nil {
		return err
	}
	if err := p.smallest(); err != nil {
		return err
	}
	p.moeDecodeNotes()
	p.unused()
	p.Notes = append(p.Notes, p.notes.notes()...)
	return p.maxRates(res)
}

// smallest says, for each recommended configuration that does not fit,
// what would hold it, and for each that is spread over memory pools what
// each pool holds: predict's answer to the same request.
func (p *Plan) smallest() error {
	p.Smallest = make([]string, len(p.Shown.Choices))
	p.Pools = make([][]sim.PoolUse, len(p.Shown.Choices))
	req := p.Request
	for i, ch := range p.Shown.Choices {
		g, c := ch.Group, ch.Config
		if g == nil || ch.Place != 1 {
			continue
		}
		_, _, offloaded := c.Offload()
		if c.Fits && g.Devices <= 1 && !offloaded {
			continue
		}
		spread := p.placed(req.Spread, g, c)
		pr, err := p.env.Predict(PredictRequest{
			Setup:    Selection{Model: g.Model, Hardware: g.Device, Engine: g.Engine, Runtime: g.Runtime, Weights: g.Weights, KV: g.KV, Options: req.Options},
			Workload: sim.PlanWorkload(c.Context, c.Batch, req.Prompt, req.Output, req.UBatch),
			Spread:   spread,
		})
		if err != nil {
			return err
		}
		if !c.Fits {
			p.Smallest[i] = pr.Smallest
		}
		p.placementNote(g.Device, pr.Placement...)
		if spread.notBus != "" {
			p.placementNote(g.Device, fmt.Sprintf("%s: its offload crosses %s's own bus, %s", spread.notBus, g.Device, busName(p.env, g.Device)))
		}
		if sp := pr.Result.Split; sp != nil {
			p.Pools[i] = sp.Pools
		}
	}
	return nil
}

// Space resolves a request's names into a search space, reporting every
// unknown name at once (each a *resolve.InputError).
func (env *Env) Space(req PlanRequest) (plan.Space, error) { return env.space(req, nil) }

// space is Space, keeping in pn (nil: nowhere) what the plan's notes say.
func (env *Env) space(req PlanRequest, pn *planNotes) (plan.Space, error) {
	cat := env.Catalog
	sp := plan.Space{Contexts: req.Contexts, Batches: req.Batches, Prompt: req.Prompt, Output: req.Output, UBatch: req.UBatch,
		MinContext: req.MinContext, MinBatch: req.MinBatch, Options: req.Options, Engines: req.Engines, RuntimeSet: cat.Runtimes(),
		Rank: req.Rank, Tolerance: req.Tolerance}
	if w := (sim.Workload{Prompt: req.Prompt, Output: req.Output, Batch: 1, UBatch: req.UBatch}); w.Validate() != nil {
		return sp, w.Validate()
	}
	if req.Spread.offload() || req.Spread.parallel() {
		return sp, &RequestError{Input: "devices", Msg: "plan spreads a model by --devices LIST with --link (and --host): --gpu-layers, --cpu-moe, --n-cpu-moe, --tp, --pp and --ep are predict's"}
	}
	if req.Spread.Link != "" || req.Spread.LinkRate > 0 {
		if _, err := req.Spread.link(""); err != nil {
			return sp, err
		}
	}
	sp.Counts = req.Counts
	sp.Spread = env.planSpread(req.Spread, pn)
	sp.Host = env.planHost(Selection{Options: req.Options}, req.Spread)
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
	errs = append(errs, inputError("hardware", err), engineOnSomeDevice(sp.Devices, req.Engines))
	errs = append(errs, linkOnSomeDevice(sp.Devices, req.Spread, req.Counts))
	sp.Models, err = plan.ResolveModels(cat, req.Models)
	errs = append(errs, inputError("model", err))
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
	errs = append(errs, countsWithinLayers(req.Counts, sp.Models))
	return sp, errors.Join(errs...)
}

// linkOnSomeDevice refuses an NVLink given with --link that no device
// searched has, when the plan spreads over several devices: a bad value
// of --link (exit 2), not a plan that spreads nothing. A device without
// it plans no count above one (planSpread).
func linkOnSomeDevice(devices []*hardware.Device, sp Spread, counts []int) error {
	if sp.Link == "" || len(devices) == 0 || slices.Max(append([]int{1}, counts...)) < 2 {
		return nil
	}
	l, err := sp.link("")
	if err != nil || l == nil || l.Kind != hardware.NVLink {
		return err
	}
	for _, d := range devices {
		if d.NVLink == l.Name {
			return nil
		}
	}
	return peerLink(devices[0], l, sp, 2, 1)
}

// engineOnSomeDevice refuses an engine no device searched has: a bad
// value of --engine (exit 2), not a plan that finds nothing.
func engineOnSomeDevice(devices []*hardware.Device, engines []string) error {
	if len(devices) == 0 {
		return nil // the devices' own error says why
	}
	var have []string
	for _, en := range engines {
		found := false
		for _, d := range devices {
			if _, err := d.Engine(en); err == nil {
				found = true
				break
			}
		}
		if found {
			continue
		}
		if have == nil {
			for _, d := range devices {
				for _, n := range d.EngineNames() {
					if !slices.Contains(have, n) {
						have = append(have, n)
					}
				}
			}
		}
		return &RequestError{Input: "engine", Msg: fmt.Sprintf("%q: no device searched has that engine (engines: %s)", en, strings.Join(have, ", "))}
	}
	return nil
}

// Plan searches the space against the targets, keeping every
// configuration (the figures read them): at most limits.PlanKept.
func (env *Env) Plan(req PlanRequest) (*Plan, error) {
	p, err := env.PlanSearch(req)
	if err != nil {
		return nil, err
	}
	return p, p.runKept()
}

// Within is a *plan.TooLargeError when the search evaluates more than
// max configurations.
func (p *Plan) Within(max int64) error { return p.search.Within(max) }

// runKept runs the search keeping every configuration, refused beyond
// limits.PlanKept before any is evaluated.
func (p *Plan) runKept() error {
	if n := p.search.Configs(); n > limits.PlanKept {
		return &RequestError{Msg: fmt.Sprintf("the plan has %d configurations (groups × contexts × batches): a figure keeps at most %s; give fewer context lengths or batch sizes", n, limits.Count(limits.PlanKept))}
	}
	res, err := p.search.Run(nil, true)
	if err != nil {
		return err
	}
	return p.finish(res)
}

// PlanSearch resolves the request into a search that has not run yet:
// Plan.Run runs it, streaming. Every error in the request is met here.
func (env *Env) PlanSearch(req PlanRequest) (*Plan, error) {
	if !(req.Tolerance >= 0 && req.Tolerance < 1) {
		return nil, &RequestError{Input: "quality-tolerance", Msg: fmt.Sprintf("%g: want a share in [0, 1), e.g. 3%%", req.Tolerance)}
	}
	if !(req.Rate >= 0 && req.Rate <= serve.MaxRate) {
		return nil, &RequestError{Input: "rate", Msg: fmt.Sprintf("%g: want requests per second in (0, %g]", req.Rate, serve.MaxRate)}
	}
	if req.Show.Top < 0 {
		return nil, &RequestError{Input: "top", Msg: fmt.Sprintf("%d: want a positive count", req.Show.Top)}
	}
	pn := &planNotes{}
	sp, err := env.space(req, pn)
	if err != nil {
		return nil, err
	}
	s, err := plan.Prepare(sp, req.Targets)
	if err != nil {
		return nil, err
	}
	return &Plan{Space: sp, Targets: req.Targets, Request: req, search: s, env: env, notes: pn}, nil
}

// countsWithinLayers refuses a device count above every searched model's
// layers, the rule predict's pipeline and RPC splits apply (each device
// takes at least one layer): a count no model searched could take is a
// mistake in the request, not a group to skip.
func countsWithinLayers(counts []int, models []*model.Spec) error {
	most, name := 0, ""
	for _, m := range models {
		if m.Layers > most {
			most, name = m.Layers, m.Name
		}
	}
	for _, n := range counts {
		if most > 0 && n > most {
			return &RequestError{Input: "devices", Msg: fmt.Sprintf("%d: more devices than the layers of any model searched (%s has %d): a split gives each device at least one layer", n, name, most)}
		}
	}
	return nil
}

// inputError names the flag (or study key) of an error resolving input's
// list, as resolve does for one name; nil stays nil.
func inputError(input string, err error) error {
	if err == nil {
		return nil
	}
	return &resolve.InputError{Input: input, Err: err}
}

// busName is the bus device name sits in (its host_link), or "its bus".
func busName(env *Env, name string) string {
	if d, err := env.Catalog.Device(name); err == nil && d.HostLink != "" {
		return d.HostLink
	}
	return "its bus"
}
