package app

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/plots"
	"github.com/roofline/roofline/serve"
	"github.com/roofline/roofline/units"
)

// serveParams are the params of the serving figures: the workload and
// the targets, as roofline serve's flags take them.
func serveParams(rate string) []Param {
	return []Param{
		{Name: "rate", Default: rate, Usage: "Poisson arrival rate, requests per second (`R`)"},
		{Name: "requests", Default: "1000", Int: true, Usage: "requests sent"},
		{Name: "prompt", Default: "512", Usage: "prompt tokens (`DIST`: a count, uniform:LO:HI, normal:MEAN:SD, lognormal:MEAN:SD)"},
		{Name: "output-tokens", Default: "128", Usage: "output tokens (`DIST`)"},
		{Name: "ttft", Default: "1s", Usage: "TTFT target (`DURATION`)"},
		{Name: "tpot", Default: "200ms", Usage: "TPOT target (`DURATION`)"},
		{Name: "seed", Default: "1", Int: true, Usage: "seed of the arrivals and lengths"},
	}
}

// serveFigure resolves a serving figure's server, workload and targets.
func (env *Env) serveFigure(req *FigureRequest) (*serve.Server, serve.Workload, serve.Targets, error) {
	var w serve.Workload
	var tg serve.Targets
	fail := func(name string, err error) (*serve.Server, serve.Workload, serve.Targets, error) {
		return nil, w, tg, &RequestError{Input: name, Msg: err.Error()}
	}
	rate, err := strconv.ParseFloat(strings.TrimSpace(req.param("rate")), 64)
	if err != nil || math.IsNaN(rate) || math.IsInf(rate, 0) {
		return fail("rate", fmt.Errorf("%q: want requests per second, such as 2.5", req.param("rate")))
	}
	n, err := req.intParam("requests", 1, 100_000)
	if err != nil {
		return nil, w, tg, err
	}
	seed, err := req.intParam("seed", 0, math.MaxInt32)
	if err != nil {
		return nil, w, tg, err
	}
	w = serve.Workload{Arrival: serve.Poisson, Rate: rate, Requests: n, Seed: uint64(seed)}
	if w.Prompt, err = serve.ParseDist(req.param("prompt")); err != nil {
		return fail("prompt", err)
	}
	if w.Output, err = serve.ParseDist(req.param("output-tokens")); err != nil {
		return fail("output-tokens", err)
	}
	if err := w.Validate(); err != nil {
		return nil, w, tg, err
	}
	for _, p := range []struct {
		name string
		dst  *float64
	}{{"ttft", &tg.TTFT}, {"tpot", &tg.TPOT}} {
		if *p.dst, err = units.ParseDuration(req.param(p.name)); err != nil {
			return fail(p.name, err)
		}
	}
	res, err := env.Resolve(req.Setup)
	if err != nil {
		return nil, w, tg, err
	}
	s := res.Setup
	f, ends := RuntimeFrontEnd(s.Runtime)
	sv, err := serve.New(s, s.Scheduler(), serve.Options{UBatch: 512, FrontEnd: f, FrontEndEnds: ends})
	return sv, w, tg, err
}

// serveTitle is a serving figure's title: the setup, the scheduler and the
// workload.
func serveTitle(what string, sv *serve.Server, w serve.Workload) string {
	in := sv.Setup.Inputs
	return fmt.Sprintf("%s: %s on %s (%s, %s, weights %s)\n%s; prompts %s, outputs %s tokens",
		what, in.Model, in.Device, in.Engine, in.Runtime, in.Weights, SchedulerText(sv.Scheduler), w.Prompt, w.Output)
}

// ServeSeries is one server's answers a serving figure draws: the max-rate
// search (serve-rate) or one run with its records and series (serve-cdf,
// serve-time). Label names it among several.
type ServeSeries struct {
	Label  string
	Search *serve.RateSearch
	Run    *serve.Result
}

// figServeRate draws the knee: p50 and p99 TTFT and TPOT against the
// arrival rates the max-rate search ran.
func figServeRate(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	sv, w, tg, err := env.serveFigure(req)
	if err != nil {
		return nil, nil, err
	}
	s, err := sv.MaxRate(w, tg, serve.DefaultSearchRuns)
	if err != nil {
		return nil, nil, err
	}
	title := serveTitle("Latency against arrival rate", sv, w) + fmt.Sprintf("\nlargest rate meeting p99 TTFT %s and TPOT %s: %.3g requests/s",
		units.FormatDuration(tg.TTFT), units.FormatDuration(tg.TPOT), s.MaxRate)
	f, err := ServeRateFigure(title, tg, []ServeSeries{{Search: s}})
	return f, nil, err
}

// ServeRateFigure draws the max-rate searches of servers: TTFT and TPOT
// against the rates each search ran, p50 and p99 for one server, p99 for
// several (what the targets judge), each labelled.
func ServeRateFigure(title string, tg serve.Targets, series []ServeSeries) (*plots.Figure, error) {
	curve := func(label string, s *serve.RateSearch, get func(serve.RatePoint) float64) plots.Curve {
		c := plots.Curve{Label: label}
		for _, p := range s.Points {
			if v := get(p); !math.IsNaN(v) {
				c.X = append(c.X, p.Rate)
				c.Expected = append(c.Expected, v)
			}
		}
		return c
	}
	var ttft, tpot []plots.Curve
	for _, x := range series {
		if len(series) == 1 {
			ttft = append(ttft, curve("p50", x.Search, func(p serve.RatePoint) float64 { return p.TTFT.P50 }))
			tpot = append(tpot, curve("p50", x.Search, func(p serve.RatePoint) float64 { return p.TPOT.P50 }))
		}
		label := strings.TrimSpace(x.Label + " p99")
		ttft = append(ttft, curve(label, x.Search, func(p serve.RatePoint) float64 { return p.TTFT.P99 }))
		tpot = append(tpot, curve(label, x.Search, func(p serve.RatePoint) float64 { return p.TPOT.P99 }))
	}
	// Several servers' rates may lie decades apart (a board's 0.01/s, a
	// GPU's 20/s): a logarithmic axis shows each one's knee.
	lo, hi := math.Inf(1), 0.0
	for _, x := range series {
		for _, p := range x.Search.Points {
			lo, hi = min(lo, p.Rate), max(hi, p.Rate)
		}
	}
	logX := len(series) > 1 && hi > 100*lo
	return plots.Stacked(title, "arrival rate (requests/s)", logX,
		plots.Panel{YLabel: "TTFT (s)", Curves: ttft, Target: tg.TTFT, TargetLabel: "TTFT target " + units.FormatDuration(tg.TTFT), Scale: plots.LogY},
		plots.Panel{YLabel: "TPOT (s)", Curves: tpot, Target: tg.TPOT, TargetLabel: "TPOT target " + units.FormatDuration(tg.TPOT), Scale: plots.LogY})
}

// figServeCDF draws the distributions of TTFT and TPOT over the requests
// of one run.
func figServeCDF(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	sv, w, tg, err := env.serveFigure(req)
	if err != nil {
		return nil, nil, err
	}
	res, err := sv.Run(w, tg)
	if err != nil {
		return nil, nil, err
	}
	title := serveTitle(fmt.Sprintf("Latency of every request at %.3g requests/s", w.Rate), sv, w)
	f, err := ServeCDFFigure(title, tg, []ServeSeries{{Label: "requests", Run: res}})
	return f, nil, err
}

// ServeCDFFigure draws the TTFT and TPOT of every request of runs, as
// their quantile functions: each request's latency against the share of
// requests at or below it (the CDF with its axes swapped, so that both
// panels share the share axis).
func ServeCDFFigure(title string, tg serve.Targets, series []ServeSeries) (*plots.Figure, error) {
	quantiles := func(res *serve.Result, label string, get func(*serve.Record) float64) plots.Curve {
		xs := make([]float64, 0, len(res.Records))
		for i := range res.Records {
			if r := &res.Records[i]; !r.Failed {
				if v := get(r); !math.IsNaN(v) {
					xs = append(xs, v)
				}
			}
		}
		slices.Sort(xs)
		c := plots.Curve{Label: label}
		for i, x := range xs {
			c.X = append(c.X, float64(i+1)/float64(len(xs)))
			c.Expected = append(c.Expected, x)
		}
		return c
	}
	var ttft, tpot []plots.Curve
	for _, x := range series {
		ttft = append(ttft, quantiles(x.Run, x.Label, (*serve.Record).TTFT))
		tpot = append(tpot, quantiles(x.Run, x.Label, (*serve.Record).TPOT))
	}
	return plots.Stacked(title, "share of requests at or below", false,
		plots.Panel{YLabel: "TTFT (s)", Curves: ttft, Target: tg.TTFT, TargetLabel: "TTFT target " + units.FormatDuration(tg.TTFT), Scale: plots.LogY},
		plots.Panel{YLabel: "TPOT (s)", Curves: tpot, Target: tg.TPOT, TargetLabel: "TPOT target " + units.FormatDuration(tg.TPOT), Scale: plots.LogY})
}

// figServeTime draws the queue and the KV cache over one run.
func figServeTime(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	sv, w, tg, err := env.serveFigure(req)
	if err != nil {
		return nil, nil, err
	}
	res, err := sv.Run(w, tg)
	if err != nil {
		return nil, nil, err
	}
	title := serveTitle(fmt.Sprintf("Queue and KV cache over time at %.3g requests/s", w.Rate), sv, w) +
		fmt.Sprintf("\n%d preemptions, %d failed; KV pool %d tokens", res.Preemptions, res.Failed, sv.KVTokens())
	f, err := ServeTimeFigure(title, []ServeSeries{{Label: fmt.Sprintf("%.3g requests/s", w.Rate), Run: res}})
	return f, nil, err
}

// ServeTimeFigure draws the requests waiting and running, and the share
// of the KV pool held, over runs.
func ServeTimeFigure(title string, series []ServeSeries) (*plots.Figure, error) {
	var waiting, running, kv []plots.Curve
	for _, x := range series {
		cw, cr, ck := plots.Curve{Label: x.Label}, plots.Curve{Label: x.Label}, plots.Curve{Label: x.Label}
		for _, p := range x.Run.Series {
			for _, c := range []*plots.Curve{&cw, &cr, &ck} {
				c.X = append(c.X, p.T)
			}
			cw.Expected = append(cw.Expected, float64(p.Waiting))
			cr.Expected = append(cr.Expected, float64(p.Running))
			ck.Expected = append(ck.Expected, p.KVUse)
		}
		waiting, running, kv = append(waiting, cw), append(running, cr), append(kv, ck)
	}
	return plots.Stacked(title, "time (s)", false,
		plots.Panel{YLabel: "requests waiting", Curves: waiting},
		plots.Panel{YLabel: "requests running", Curves: running},
		plots.Panel{YLabel: "share of the KV pool held", Curves: kv})
}
