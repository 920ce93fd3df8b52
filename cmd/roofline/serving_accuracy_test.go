package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/serve"
)

// publicServing is the published serving runs the simulation is checked
// against (docs/formats.md, "roofline serving runs CSV"; sources in SOURCES.md).
const publicServing = "testdata/public/serving.csv"

// Serving guards (docs/accuracy.md states them): regression guards at
// the figures reached, not the aims of issue 25 (medians within 20 %,
// p99 within 30 %, the saturation rate within 25 %).
const (
	// 0.16 and 0.17 (were 0.15): GPUSTACK's gpt-oss-120b burst on the
	// H100 moves the fitted front end from 4.89 to 5.81 ms a request,
	// which WMX-L4's p95s and the medians measure (15.4 % and 16.5 %).
	maxServingMedianAPE = 0.16
	maxServingP99APE    = 0.30
	// 0.25 (was 0.35): issue 25's aim, reached at 23.5 % over nine runs
	// once GPUSTACK's gpt-oss-120b bursts were scored.
	maxSaturationAPE = 0.25
	// Beside the aims: the p95s a source publishes instead of p99s, and
	// closed loops' throughput.
	maxServingP95APE       = 0.17
	maxClosedThroughputAPE = 0.05
)

// A serving figure's kind, which aim it is scored against.
type servingKind int

const (
	centralFig servingKind = iota // a p50 (the aims' 20 %)
	p99Fig                        // a p99 (the aims' 30 %)
	p95Fig                        // a p95 (no aim: reported apart)
	rateFig                       // requests/s: the saturation rate (25 %) with every request at once, a closed loop's throughput apart
)

// servingMetrics are the columns a serving run publishes, in the
// accuracy table's order: a latency's percentile (ms) or the request
// throughput.
var servingMetrics = []struct {
	col, name string
	pick      func(r *serve.Result) float64
	kind      servingKind
}{
	{"ttft_p50_ms", "TTFT p50", func(r *serve.Result) float64 { return 1e3 * r.TTFT.P50 }, centralFig},
	{"ttft_p95_ms", "TTFT p95", func(r *serve.Result) float64 { return 1e3 * r.TTFT.P95 }, p95Fig},
	{"ttft_p99_ms", "TTFT p99", func(r *serve.Result) float64 { return 1e3 * r.TTFT.P99 }, p99Fig},
	{"tpot_p50_ms", "TPOT p50", func(r *serve.Result) float64 { return 1e3 * r.TPOT.P50 }, centralFig},
	{"tpot_p95_ms", "TPOT p95", func(r *serve.Result) float64 { return 1e3 * r.TPOT.P95 }, p95Fig},
	{"tpot_p99_ms", "TPOT p99", func(r *serve.Result) float64 { return 1e3 * r.TPOT.P99 }, p99Fig},
	{"itl_p50_ms", "ITL p50", func(r *serve.Result) float64 { return 1e3 * r.ITL.P50 }, centralFig},
	{"itl_p95_ms", "ITL p95", func(r *serve.Result) float64 { return 1e3 * r.ITL.P95 }, p95Fig},
	{"itl_p99_ms", "ITL p99", func(r *serve.Result) float64 { return 1e3 * r.ITL.P99 }, p99Fig},
	{"e2e_p50_ms", "E2E p50", func(r *serve.Result) float64 { return 1e3 * r.E2E.P50 }, centralFig},
	{"e2e_p95_ms", "E2E p95", func(r *serve.Result) float64 { return 1e3 * r.E2E.P95 }, p95Fig},
	{"e2e_p99_ms", "E2E p99", func(r *serve.Result) float64 { return 1e3 * r.E2E.P99 }, p99Fig},
	{"req_per_s", "requests/s", func(r *serve.Result) float64 { return r.RequestRate }, rateFig},
}

// closedRequestsPerUser is how many requests a closed loop whose source
// does not state its request count is simulated with, per user: enough
// for its percentiles to settle (a closed loop of fixed lengths repeats
// itself once its users are staggered).
const closedRequestsPerUser = 40

// servingRun is one row of serving.csv.
type servingRun struct {
	line                                                  int
	source, runtime, hardware, engine, model, weights, kv string
	memoryShare                                           float64
	arrival                                               serve.ArrivalKind
	rate                                                  float64 // +Inf: every request at once
	users, requests                                       int
	requestsUnstated                                      bool // a closed loop's count not published: closedRequestsPerUser a user
	prompt, output                                        string
	measured                                              map[string]float64
	exclude, note                                         string
	predicted, lo, hi                                     map[string]float64
	simNotes                                              []string
	// frontEnd is the front end the run was simulated with: fitted on the
	// other sources (servingFrontEnds); engineTTFT the median TTFT of the
	// engine alone, at a source's lightest load (light); engineRate the
	// requests/s of the engine alone on a burst (every request at once).
	frontEnd   serve.FrontEnd
	light      bool
	engineTTFT float64
	engineRate float64
}

// engineBoundWithin is how close to a burst's measured rate the engine
// alone may come and still be read as what set it: issue 25's tolerance
// on a saturation rate. A burst the engine alone serves within it says
// only that the front end was no slower, so it is not a front-end
// observation: KVCACHED-GB10's 14.2 requests/s, which the engine alone
// gives at 16.1 (a DGX Spark reading a KV cache of 500 requests each
// step), would otherwise read as 70 ms of front-end work a request. A
// burst the engine alone serves further off either way is read as the
// front end's: faster, the front end set the rate; slower (GPUSTACK's
// A100, 96 against 184 requests/s), the engine's prediction is the one in
// doubt, and the measured rate still bounds the front end's time a
// request.
const engineBoundWithin = 0.25

// engineBound is whether the engine alone serves the burst at its
// measured rate, within engineBoundWithin: the engine then explains the
// rate, which says only that the front end was no slower.
func (r *servingRun) engineBound(measured float64) bool {
	return math.Abs(r.engineRate/measured-1) <= engineBoundWithin
}

// burst is whether the run sends every request at once and publishes the
// rate they were served at (its saturation rate).
func (r *servingRun) burst() bool {
	_, ok := r.measured["req_per_s"]
	return ok && r.exclude == "" && math.IsInf(r.rate, 1)
}

func (r *servingRun) sourceID() string { return strings.Fields(r.source)[0] }

// load says in words how the requests arrived.
func (r *servingRun) load() string {
	lengths := r.prompt + " + " + r.output + " tokens"
	switch {
	case math.IsInf(r.rate, 1) && r.requests == 1:
		return "1 request alone, " + lengths
	case math.IsInf(r.rate, 1):
		return fmt.Sprintf("%d requests at once, %s", r.requests, lengths)
	case r.arrival == serve.Closed && r.requestsUnstated:
		return fmt.Sprintf("closed loop of %d, %s", r.users, lengths)
	case r.arrival == serve.Closed:
		return fmt.Sprintf("closed loop of %d, %d requests, %s", r.users, r.requests, lengths)
	}
	return fmt.Sprintf("%s %g/s, %d requests, %s", r.arrival, r.rate, r.requests, lengths)
}

// readServing reads serving.csv; a malformed row fails the test at its line.
func readServing(t *testing.T, path string) []*servingRun {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, want := range []string{"source", "runtime", "hardware", "engine", "model", "weights", "kv", "memory_share", "arrival", "rate", "users", "requests", "prompt", "output", "exclude", "note"} {
		if _, ok := col[want]; !ok {
			t.Fatalf("%s: no column %q", path, want)
		}
	}
	var runs []*servingRun
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		if len(rec) != len(header) {
			t.Fatalf("%s:%d: %d fields, the header has %d", path, line, len(rec), len(header))
		}
		get := func(c string) string { return strings.TrimSpace(rec[col[c]]) }
		num := func(c string) float64 {
			v := get(c)
			if v == "" {
				return 0
			}
			if v == "inf" {
				return math.Inf(1)
			}
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || !(x > 0) {
				t.Fatalf("%s:%d: %s %q: want a positive number", path, line, c, v)
			}
			return x
		}
		r := &servingRun{line: line, source: get("source"), runtime: get("runtime"), hardware: get("hardware"), engine: get("engine"), model: get("model"),
			weights: get("weights"), kv: get("kv"), memoryShare: num("memory_share"), rate: num("rate"), users: int(num("users")), requests: int(num("requests")),
			prompt: get("prompt"), output: get("output"), exclude: get("exclude"), note: get("note"), measured: map[string]float64{}}
		if r.arrival, err = serve.ParseArrival(get("arrival")); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		for _, m := range servingMetrics {
			if _, ok := col[m.col]; !ok {
				t.Fatalf("%s: no column %q", path, m.col)
			}
			if v := num(m.col); v > 0 {
				r.measured[m.col] = v
			}
		}
		if r.arrival == serve.Closed && r.requests == 0 && r.users > 0 {
			r.requests, r.requestsUnstated = closedRequestsPerUser*r.users, true
		}
		if r.source == "" || r.requests == 0 || len(r.measured) == 0 {
			t.Fatalf("%s:%d: a run needs a source, its requests (a closed loop may leave them out) and a measured figure", path, line)
		}
		runs = append(runs, r)
	}
	return runs
}

// runtimeName is the built-in runtime a serving run's runtime column
// names by its first word (vLLM 0.19.0 → vllm, SGLang 0.3.0 → vllm, whose
// alias it is).
func runtimeName(env *app.Env, s string) (string, error) {
	rt, err := env.Catalog.Runtimes().Lookup(strings.ToLower(strings.Fields(s)[0]))
	if err != nil {
		return "", err
	}
	return rt.Name, nil
}

// asyncScheduling is whether the run's runtime and version (the CSV's
// runtime column, "vLLM 0.19.0") schedule a step while the last runs by
// default: vLLM since 0.14 (vllm.toml's async_scheduling, [V26]: PR
// #27614 turned it on at the turn of 2026, after 0.13).
func asyncScheduling(runtime string) bool {
	f := strings.Fields(runtime)
	if len(f) < 2 || !strings.EqualFold(f[0], "vllm") {
		return false
	}
	var major, minor int
	if _, err := fmt.Sscanf(f[1], "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 0 || minor >= 14
}

// simulate runs a serving run through roofline serve's application
// layer: the same requests (lengths, arrival process and count) on the
// runtime's scheduler, with the run's memory share, at the expected step
// times and the ends of the 80 % interval.
func (r *servingRun) simulate(env *app.Env, fe *serve.FrontEnd, ends [2]serve.FrontEnd) error {
	rt, err := runtimeName(env, r.runtime)
	if err != nil {
		return err
	}
	p, err := serve.ParseDist(r.prompt)
	if err != nil {
		return fmt.Errorf("prompt: %w", err)
	}
	o, err := serve.ParseDist(r.output)
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	w := serve.Workload{Arrival: r.arrival, Rate: r.rate, Users: r.users, Requests: r.requests, Prompt: p, Output: o, Seed: 1}
	if math.IsInf(r.rate, 1) {
		// Every request at once: as fast as the simulation sends them
		// (a million a second, 0.5 ms for 500).
		w.Arrival, w.Rate = serve.Constant, serve.MaxRate
	}
	async := asyncScheduling(r.runtime)
	a, err := env.Serve(app.ServeRequest{
		Scheduler:    app.SchedulerChanges{Async: &async},
		Setup:        app.Selection{Model: r.model, Hardware: r.hardware, Runtime: rt, Engine: r.engine, Weights: r.weights, KV: r.kv},
		Workload:     w,
		MemoryShare:  r.memoryShare,
		Level:        0.8,
		FrontEnd:     fe,
		FrontEndEnds: ends,
	})
	if err != nil {
		return err
	}
	r.predicted, r.lo, r.hi = map[string]float64{}, map[string]float64{}, map[string]float64{}
	for _, m := range servingMetrics {
		r.predicted[m.col] = m.pick(a.Run.Expected)
		// The range serve prints: the expected run and both ends.
		if lo, hi, ok := a.Run.Span(m.pick); ok {
			r.lo[m.col], r.hi[m.col] = lo, hi
		}
	}
	r.simNotes = a.Notes
	return nil
}

var (
	servingOnce sync.Once
	servingRes  []*servingRun
	servingFE   *servingFrontEnds
	servingErr  error
)

// servingFrontEnds are the front ends fitted on the published serving
// runs: on every source (the profile's), and on all but each source (the
// one that source's runs are scored with), each with its spread.
type servingFrontEnds struct {
	all     serve.FrontEndFit
	heldOut map[string]serve.FrontEndFit
	// ends are the lowest and highest of each figure over the fits that
	// hold one source out and the fit on all; heldOutEnds the same for a
	// held-out fit, over the fits on its sources that hold one more out.
	ends        [2]serve.FrontEnd
	heldOutEnds map[string][2]serve.FrontEnd
	obs         []serve.FrontEndObservation
}

// markLight marks each source's runs at its lightest load that publish a
// median TTFT: the smallest rate of an open loop at a finite rate, or a
// closed loop of one user (with more, each request queues behind the
// others' in the front end, which the fit would read as its latency).
func markLight(runs []*servingRun) {
	load := func(r *servingRun) float64 {
		if r.arrival == serve.Closed {
			return float64(r.users)
		}
		return r.rate
	}
	least := map[string]float64{}
	for _, r := range runs {
		if _, ok := r.measured["ttft_p50_ms"]; !ok || r.exclude != "" || math.IsInf(r.rate, 1) || (r.arrival == serve.Closed && r.users > 1) {
			continue
		}
		if l, ok := least[r.sourceID()]; !ok || load(r) < l {
			least[r.sourceID()] = load(r)
		}
	}
	for _, r := range runs {
		if _, ok := r.measured["ttft_p50_ms"]; ok && r.exclude == "" && !math.IsInf(r.rate, 1) && load(r) == least[r.sourceID()] {
			r.light = true
		}
	}
}

// frontEndObservations are what the front end's fit reads off the runs:
// at each source's lightest load, the measured median TTFT less the
// engine's alone; with every request sent at once, the measured time a
// request (1 / requests/s) for its output tokens, where the engine alone
// misses the measured rate by more than engineBoundWithin either way
// (engineBoundWithin says why).
func frontEndObservations(runs []*servingRun) []serve.FrontEndObservation {
	var obs []serve.FrontEndObservation
	for _, r := range runs {
		if r.exclude != "" {
			continue
		}
		if r.light {
			obs = append(obs, serve.FrontEndObservation{Source: r.sourceID(), Light: true, Seconds: (r.measured["ttft_p50_ms"] - r.engineTTFT) / 1e3})
		}
		if rate := r.measured["req_per_s"]; r.burst() && !r.engineBound(rate) {
			o, err := serve.ParseDist(r.output)
			if err != nil {
				continue
			}
			obs = append(obs, serve.FrontEndObservation{Source: r.sourceID(), Output: o.Mean(), Seconds: 1 / rate})
		}
	}
	return obs
}

// without is obs less a source's.
func without(obs []serve.FrontEndObservation, ids ...string) []serve.FrontEndObservation {
	var out []serve.FrontEndObservation
	for _, o := range obs {
		if !slices.Contains(ids, o.Source) {
			out = append(out, o)
		}
	}
	return out
}

// feSpread is the lowest and highest of each figure over fits.
func feSpread(fits ...serve.FrontEnd) [2]serve.FrontEnd {
	lo, hi := fits[0], fits[0]
	for _, f := range fits[1:] {
		lo = serve.FrontEnd{Latency: math.Min(lo.Latency, f.Latency), Request: math.Min(lo.Request, f.Request), Token: math.Min(lo.Token, f.Token)}
		hi = serve.FrontEnd{Latency: math.Max(hi.Latency, f.Latency), Request: math.Max(hi.Request, f.Request), Token: math.Max(hi.Token, f.Token)}
	}
	return [2]serve.FrontEnd{lo, hi}
}

// fitFrontEnds fits the front end on every source and on all but each.
func fitFrontEnds(runs []*servingRun) (*servingFrontEnds, error) {
	obs := frontEndObservations(runs)
	out := &servingFrontEnds{heldOut: map[string]serve.FrontEndFit{}, heldOutEnds: map[string][2]serve.FrontEnd{}, obs: obs}
	var err error
	if out.all, err = serve.FitFrontEnd(obs); err != nil {
		return nil, err
	}
	ids := servingSources(runs)
	all := []serve.FrontEnd{out.all.FrontEnd}
	for _, id := range ids {
		f, err := serve.FitFrontEnd(without(obs, id))
		if err != nil {
			return nil, fmt.Errorf("held out %s: %w", id, err)
		}
		out.heldOut[id] = f
		all = append(all, f.FrontEnd)
		nested := []serve.FrontEnd{f.FrontEnd}
		for _, other := range ids {
			if other == id {
				continue
			}
			if g, err := serve.FitFrontEnd(without(obs, id, other)); err == nil {
				nested = append(nested, g.FrontEnd)
			}
		}
		out.heldOutEnds[id] = feSpread(nested...)
	}
	out.ends = feSpread(all...)
	return out, nil
}

// publicServingRuns reads serving.csv, fits the front end held out by
// source and simulates every scored run with the fit that never saw its
// source, once.
func publicServingRuns(t *testing.T) []*servingRun {
	t.Helper()
	servingOnce.Do(func() {
		runs := readServing(t, publicServing)
		env, err := app.NewEnv()
		if err != nil {
			servingErr = err
			return
		}
		markLight(runs)
		off := &serve.FrontEnd{}
		for _, r := range runs {
			if r.light || r.burst() {
				if err := r.simulate(env, off, [2]serve.FrontEnd{}); err != nil {
					servingErr = fmt.Errorf("%s:%d (%s): %w", publicServing, r.line, r.source, err)
					return
				}
				r.engineTTFT, r.engineRate = r.predicted["ttft_p50_ms"], r.predicted["req_per_s"]
			}
		}
		fes, err := fitFrontEnds(runs)
		if err != nil {
			servingErr = err
			return
		}
		for _, r := range runs {
			if r.exclude != "" {
				continue
			}
			id := r.sourceID()
			r.frontEnd = fes.heldOut[id].FrontEnd
			if err := r.simulate(env, &r.frontEnd, fes.heldOutEnds[id]); err != nil {
				servingErr = fmt.Errorf("%s:%d (%s): %w", publicServing, r.line, r.source, err)
				return
			}
		}
		servingRes, servingFE = runs, fes
	})
	if servingErr != nil {
		t.Fatal(servingErr)
	}
	return servingRes
}

// servingErrors are the absolute errors of the predicted figures (of the
// measured): medians, p99s and p95s apart, the saturation rates' and
// closed loops' throughputs.
type servingErrors struct {
	median, p99, p95, saturation, throughput []float64
	covered, ranged                          int
}

// openRate says a run's requests/s is its arrival rate, not a figure the
// simulation predicts.
func (r *servingRun) openRate() bool { return r.arrival != serve.Closed && !math.IsInf(r.rate, 1) }

func servingStats(runs []*servingRun) servingErrors {
	var e servingErrors
	for _, r := range runs {
		if r.exclude != "" {
			continue
		}
		for _, m := range servingMetrics {
			meas, ok := r.measured[m.col]
			if !ok {
				continue
			}
			ape := math.Abs(r.predicted[m.col]/meas - 1)
			switch {
			case m.kind == rateFig && r.openRate():
				continue // an open-loop run's throughput is its arrival rate
			case m.kind == rateFig && r.arrival == serve.Closed:
				e.throughput = append(e.throughput, ape)
			case m.kind == rateFig:
				e.saturation = append(e.saturation, ape)
			case m.kind == centralFig:
				e.median = append(e.median, ape)
			case m.kind == p95Fig:
				e.p95 = append(e.p95, ape)
			default:
				e.p99 = append(e.p99, ape)
			}
			if lo, ok := r.lo[m.col]; ok {
				e.ranged++
				if meas >= lo && meas <= r.hi[m.col] {
					e.covered++
				}
			}
		}
	}
	return e
}

func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// TestServingRuns checks the serving simulation against the published
// serving runs, each predicted by efficiencies fitted on runs.csv, which
// holds none of their sources: the median figures' and the p99s' median
// errors and the saturation rate's within the guards.
func TestServingRuns(t *testing.T) {
	if raceDetector {
		t.Skip("single-threaded arithmetic, checked without -race")
	}
	runs := publicServingRuns(t)
	_, public := publicClasses(t)
	for _, r := range runs {
		id := r.sourceID()
		for _, p := range public {
			if strings.HasPrefix(p.Origin, id+" ") || p.Origin == id {
				t.Fatalf("%s:%d: source %s is also in %s: the serving runs must be held out of the fit", publicServing, r.line, id, publicRuns)
			}
		}
	}
	e := servingStats(runs)
	if len(e.median) == 0 || len(e.p99) == 0 || len(e.saturation) == 0 {
		t.Fatalf("%d medians, %d p99s, %d saturation rates scored", len(e.median), len(e.p99), len(e.saturation))
	}
	if m := medianOf(e.median); m > maxServingMedianAPE {
		t.Errorf("median figures: median error %.1f %%, guard %.0f %%", 100*m, 100*maxServingMedianAPE)
	}
	if m := medianOf(e.p99); m > maxServingP99APE {
		t.Errorf("p99 figures: median error %.1f %%, guard %.0f %%", 100*m, 100*maxServingP99APE)
	}
	if m := medianOf(e.saturation); m > maxSaturationAPE {
		t.Errorf("saturation rate: median error %.1f %%, guard %.0f %%", 100*m, 100*maxSaturationAPE)
	}
	if m := medianOf(e.p95); len(e.p95) == 0 || m > maxServingP95APE {
		t.Errorf("p95 figures: median error %.1f %% of %d, guard %.0f %%", 100*m, len(e.p95), 100*maxServingP95APE)
	}
	if m := medianOf(e.throughput); len(e.throughput) == 0 || m > maxClosedThroughputAPE {
		t.Errorf("closed loops' throughput: median error %.1f %% of %d, guard %.0f %%", 100*m, len(e.throughput), 100*maxClosedThroughputAPE)
	}
}

// msCell is a measured figure beside the prediction and its error: ms
// with 3 significant digits, or requests/s.
func msCell(meas, pred float64, lo, hi float64, ranged bool) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }
	mark := ""
	if ranged && (meas < lo || meas > hi) {
		mark = " †"
	}
	return fmt.Sprintf("%s / %s (%+.0f %%)%s", f(meas), f(pred), 100*(pred/meas-1), mark)
}

// servingSection is docs/accuracy.md's serving table.
func servingSection(runs []*servingRun) string {
	var b strings.Builder
	b.WriteString("## Serving under load: predicted against published serving runs\n\n")
	b.WriteString("`cmd/roofline/testdata/public/serving.csv` holds published serving benchmarks with their settings (runtime and version, device, model, arrival process and rate, request count, prompt and output lengths) and what they measured (docs/formats.md, \"roofline serving runs CSV\"; sources in `SOURCES.md`, \"Serving runs\"). Each run is simulated as `roofline serve` would (docs/serve.md): the same number of requests, of the same lengths, arriving the same way, under the runtime's scheduler with the run's memory share. The step times come from the runtime classes fitted on `runs.csv`, which holds none of these sources (held out by source; `TestServingRuns` checks it). The server's front end (docs/serve.md, \"The front end\") is fitted on these runs themselves, so each source is simulated with the front end fitted on the other sources alone (below the table), and the 80 % range's ends take the lowest and highest of each front-end figure over that fit and the fits on its sources less one more. A cell is measured / predicted (error of the prediction); † marks a measured figure outside the range the simulation gives at the ends of the 80 % step-time interval. Times in ms.\n\n")
	b.WriteString("| run | runtime | device | model | load |")
	var cols []int
	for i, m := range servingMetrics {
		has := false
		for _, r := range runs {
			if _, ok := r.measured[m.col]; ok && r.exclude == "" {
				has = true
			}
		}
		if has {
			cols = append(cols, i)
			b.WriteString(" " + m.name + " |")
		}
	}
	b.WriteString("\n|---|---|---|---|---|" + strings.Repeat("---:|", len(cols)) + "\n")
	for _, r := range runs {
		if r.exclude != "" {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |", r.source, r.runtime, r.hardware, r.model, r.load())
		for _, i := range cols {
			m := servingMetrics[i]
			meas, ok := r.measured[m.col]
			if !ok {
				b.WriteString(" — |")
				continue
			}
			lo, ranged := r.lo[m.col]
			// An open-loop run's throughput is its arrival rate: no range.
			ranged = ranged && (m.kind != rateFig || !r.openRate())
			b.WriteString(" " + msCell(meas, r.predicted[m.col], lo, r.hi[m.col], ranged) + " |")
		}
		b.WriteString("\n")
	}
	e := servingStats(runs)
	pct := func(v float64) string { return pctOf(v) }
	fmt.Fprintf(&b, "\nOver the scored runs: the medians (p50 of TTFT, TPOT, ITL and E2E where published) are predicted with a median error of %s (%d figures), the p99s with %s (%d), and the saturation rate (requests/s with every request sent at once) with %s (%d runs); %d of %d measured figures lie in the 80 %% range. "+
		"Issue 25's aims are medians within 20 %%, p99s within 30 %%, the saturation rate within 25 %%; the test's guards (regression guards at the figures reached) are %.0f %%, %.0f %% and %.0f %%. "+
		"Beside the aims: the p95s a source publishes instead of p99s, %s (%d figures); the throughput of closed loops (requests/s at a fixed concurrency), %s (%d runs); guards %.0f %% and %.0f %%. "+
		"A closed loop whose source does not state its request count is simulated with %d requests a user. Per source:\n\n",
		pct(medianOf(e.median)), len(e.median), pct(medianOf(e.p99)), len(e.p99), pct(medianOf(e.saturation)), len(e.saturation), e.covered, e.ranged,
		100*maxServingMedianAPE, 100*maxServingP99APE, 100*maxSaturationAPE,
		pct(medianOf(e.p95)), len(e.p95), pct(medianOf(e.throughput)), len(e.throughput), 100*maxServingP95APE, 100*maxClosedThroughputAPE, closedRequestsPerUser)
	b.WriteString("| source | runs | medians | p99s | p95s | requests/s | in the 80 % range |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, id := range servingSources(runs) {
		var mine []*servingRun
		for _, r := range runs {
			if r.sourceID() == id && r.exclude == "" {
				mine = append(mine, r)
			}
		}
		se := servingStats(mine)
		cell := func(xs []float64) string {
			if len(xs) == 0 {
				return "—"
			}
			return fmt.Sprintf("%s (%d)", pct(medianOf(xs)), len(xs))
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %d of %d |\n", id, len(mine), cell(se.median), cell(se.p99), cell(se.p95), cell(append(se.saturation, se.throughput...)), se.covered, se.ranged)
	}
	b.WriteString("\n")
	if fes := servingFE; fes != nil {
		b.WriteString(frontEndTable(fes, servingSources(runs)))
	}
	b.WriteString(servingReading)
	var excl []string
	seen := map[string]bool{}
	for _, r := range runs {
		if r.exclude == "" {
			continue
		}
		key := r.sourceID() + ": " + r.exclude
		if !seen[key] {
			seen[key] = true
			n := 0
			for _, o := range runs {
				if o.exclude == r.exclude && o.sourceID() == r.sourceID() {
					n++
				}
			}
			excl = append(excl, fmt.Sprintf("- %s (%d runs): %s", r.sourceID(), n, r.exclude))
		}
	}
	if len(excl) > 0 {
		b.WriteString("Not simulated:\n\n" + strings.Join(excl, "\n") + "\n\n")
	}
	return b.String()
}

// servingSources are the scored sources in the order serving.csv first
// names them.
func servingSources(runs []*servingRun) []string {
	var ids []string
	for _, r := range runs {
		if id := r.sourceID(); r.exclude == "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// servingReading is what the serving misses say, read off the table.
const servingReading = `**What the misses say.** Six sources are simulated, all vLLM: 0.19.0
serving Qwen3-0.6B on an H100 at half its memory (KVCACHED-H100: Poisson
at 16/s and 500 requests at once), the same workload on a DGX Spark
(KVCACHED-GB10, version not stated: 500 requests at once and Poisson at
16/s; p99s and rates, its means are not scored), 0.23.0 serving Qwen2.5-0.5B on an L4
at 0.6 of its memory (WMX-L4: closed loops of 1 to 32 requests), 0.17.0
serving Qwen2.5-0.5B on an A100 at half its memory (EVALSCOPE-A100: a
closed loop of 50 requests of 100 + 100 tokens), 0.11.0
serving gpt-oss-20b on an H100 and an A100 and 0.10.2 and 0.11.0 serving
gpt-oss-120b on one H100 and one A100 (GPUSTACK: 1000 short requests at
once, and on the A100 500 of 2000 and 100 of 32000 tokens, their sliding
layers' out-of-window blocks freed as vLLM's hybrid KV cache manager
frees them; the H100's longer bursts are not scored, SOURCES.md says
why), and 0.10.1.1 serving Qwen2-7B on an A100 at a
quarter and at half of its memory (DLEE-A100: 1 to 500 requests of 1024 +
1024 tokens at once; its TPOT and ITL are scored, not its TTFT nor its
rates, SOURCES.md says why). Held out by source, the steps vLLM runs at a
steady load are now priced close, the decode of dense models up to a few
dozen requests, the server's front end explains much of the rest on two
sources and not on the third, and every request at once is where the
simulation still misses:

- *CUDA graphs.* vLLM V1 replays a CUDA graph captured for each step size
  up to min(2 × max_num_seqs, 512) tokens: a whole graph for a decode-only
  step, piecewise graphs for a step that holds prompt tokens (attention
  launched between the pieces), and none for a larger step, whose every
  kernel is launched from the host (vllm.toml's [graphs]: [V23]). The
  time a layer that adds is sourced apart from these runs: 15 µs
  piecewise (vLLM PR #20059, Qwen2.5-1.5B) and 339 µs without a graph
  (vllm-omni issue #7960, Qwen2.5-7B's layers on an A800, eager against
  graphs). At 16 requests/s on the H100 each 512-token prompt shares its
  step with the running decodes, past 512 tokens: priced so, the ITL p99
  is 13.4 ms against 12.7 ms measured (3.85 ms without) and the median
  TTFT 5 % short (31 %), but the median TPOT 23 % long (3 %): the slow
  steps land on a decode step the class already prices at 2.4 ms where
  the measured median ITL is 2.0 ms (below). Another cause would give the
  ITL tail too: a front end that holds the streamed tokens while it takes
  in a request (10.5 ms each at KVCACHED's saturation rate); the burst's
  median ITL of 4.5 ms says tokens do not wait behind every request's
  intake, so the graphs, sourced apart, are the reading kept. The
  light-load TTFT the front end is fitted on is then 21 ms a request on
  the H100's host and 19.5 ms on the L4's, where it was 31 and 20 ms.
  Over the four sources the graphs bring the medians from 13.8 % to
  13.0 % off, the p99s from 39.8 % to 30.6 %, the saturation rates from
  55.5 % to 36.7 %. The eager figure is an upper one for vLLM's default:
  enforce_eager also turns torch.compile off, where a step past the
  largest graph still runs compiled kernels; it was measured on one host,
  and a host CPU's speed sets it (a Jetson's ARM cores are unmeasured).
  Which graphs a version captures is not modelled either (vLLM 0.10's
  default was piecewise graphs for every step).
- *Decode and whole requests.* On the L4 the median ITL is predicted
  within 1–13 % at every concurrency, the median E2E within 1–11 % and
  the closed loops' throughput within 2–10 %. At 32 users the median
  TTFT is 9 % short (15 % before async scheduling, 42 % before the
  graphs): several users' prompts in
  one step pass 512 tokens, as many as the simulated loop, whose users
  start in lockstep (a real client staggers them), puts together, so read
  that figure as an upper bound on what the graphs explain. On the H100
  at 16 requests/s the median ITL is 20 % long: the class is fitted on 8
  decode runs on 4 devices (runs.csv: VLLM-NIGHTLY's Llama-3.1-8B at
  batch 8 on an A100, an H100 and an H200, LDSINGH-A6000's Qwen2.5-7B at
  batch 1 to 8 on an RTX A6000, VLLM-PR23151's Qwen3-30B-A3B at batch 10
  on an H100), whose per-layer cost (73 µs a layer, 62 µs on the H100's
  level) prices a step of Qwen3-0.6B at 2.3 ms where two runs of an 8B
  model gave 1.7 ms; it still has no prefill run.
- *Long answers in bursts.* On the A100 (DLEE-A100) the median TPOT and
  ITL are predicted within 15 % for bursts of up to 50 requests at
  either share (no step of theirs passes the largest graph but the first
  prompts'). From 75 requests at once the simulated TPOT runs slow:
  20–34 % at a quarter of memory, where the KV cache (94k tokens, about
  45 requests of 2048) holds the batch and the median ITL still lands
  within 4–7 %, and 15–58 % at half, where up to 256 requests run at once
  and the measured TPOT grows more slowly with the batch (25 ms at 100,
  53 ms at 500) than the class's step, fitted on runs at batch 1 to 10,
  prices. Its published request rates are not scored: read as the front
  end's pace, as the fit reads a burst's rate, they would give it 0.56 ms
  a streamed token; the engine alone (` + "`serve --front-end off`" + `) gives
  1.8–1.9 requests/s at a quarter of memory (measured 2.1–2.2) and 2.4–2.7
  at half (measured 2.9–4.4) for 75 to 500 requests.
- *The front end.* vLLM's API server process takes each request over
  HTTP, tokenizes it and streams the answer back, apart from the engine's
  steps (vLLM's design docs, "V1 process architecture"). Simulated as one
  serial server (docs/serve.md, "The front end") and fitted on the other
  sources, it brought the medians from 45.3 % to 20.8 % off, the p99s
  from 69.7 % to 52.4 %, the saturation rates from 93.0 % to 55.5 %
  (measured before the graphs).
- *Async scheduling.* vLLM schedules each step while the one before it
  runs, by default since early 2026 (vllm.toml's async_scheduling, [V26]:
  the engine core keeps two steps in flight and takes in the requests
  that arrived between scheduling them), so a request reaching a busy
  engine joins the step after the next. The runs are simulated as their
  versions ran: 0.19.0 (KVCACHED) and 0.23.0 (WMX-L4) with it, 0.11.0
  (GPUSTACK) and 0.10.1.1 (DLEE) without. At 16 requests/s on the H100
  the median TTFT is now 2–3 % long (5 % short without) and the TTFT p99
  16–26 % short (23–32 %); the L4's TTFT p50s at 2 to 16 users are 10–32 %
  short (10–36 %) and its p95s 13–58 % (24–60 %), and the light-load gap
  the front end is fitted on is 18.5 ms a request on the H100's host
  (21.0 ms). Over the four sources it brings the p99s from 30.6 % to
  27.5 % off, within issue 25's 30 %, the medians from 13.0 % to 12.8 %,
  the saturation rates from 36.7 % to 35.6 %, the p95s from 14.7 % to
  12.8 % and the closed loops' throughput from 3.8 % to 3.2 % (on the
  class fit of the day; the device levels fitted since, which pool each
  device's runs of one model, bring the H100's and A100's levels to rest
  on fewer draws and the medians to the 13.5 % and the p99s to the 28.3 %
  above). What still
  holds the L4's TTFT tails short at 4 users (58 %) is not sourced: a
  front end whose work grows with the requests it holds, or the engine
  core's own time a step.
- *A DGX Spark's batch defaults.* vLLM sizes its batch from the device
  memory NVML reports, in a try/except that reads 0 bytes when the query
  fails, and NVML reports none of the GB10's unified memory (vllm.toml
  [V27], PR #57378): a DGX Spark serves at 256 requests and 2048 tokens a
  step, not the 1024 and 8192 of other devices of 70 GiB or more. Priced
  so, KVCACHED-GB10's burst is served at 15.3 requests/s against 14.2
  measured (+8 %), its TTFT p99 24.3 s against 26.4 s and its TPOT p99
  125 ms against 142–143 ms (its unscored means: TTFT 11.3 s against
  11.6 s, TPOT 108 ms against 118–119 ms); at 1024 and 8192 the engine
  took in all 500 prompts within 12 s and decoded them together: 16.1
  requests/s, TTFT p99 12.2 s (−54 %), TPOT p99 219 ms (+53 %). At 16/s,
  above what it serves, the TPOT p99 is 35 % short. The burst is the
  engine's, not the front end's: the engine alone serves it within 25 %
  of the measured rate, so the front end's fit leaves it out (a burst
  informs the front end only where the engine alone misses its rate by
  more than issue 25's tolerance; the four other sources' bursts all do:
  KVCACHED-H100 1.76×, GPUSTACK 1.5× and 0.52×). With it the saturation
  rates are 31.9 % off (35.6 % over four sources) and the p99s 27.6 %
  (28.3 %).
- *A front end near its pace.* EVALSCOPE-A100's 50 users of 100-token
  answers keep the front end fitted on the other sources (4.89 ms a
  request, 44.1 µs a streamed token) 97 % busy: it serves 105 requests/s
  against 108 measured (the engine alone would serve 129), with the
  median TPOT and ITL 7–14 % short, but it queues each request's intake
  behind the others', so the median TTFT is 111 ms against 75 ms (+48 %)
  and its p99 276 ms against 144 ms, where the engine alone gives 41 ms:
  the measured server takes in a request while it streams the others'
  tokens sooner than one serial queue does. Taking waiting requests in
  by 32 (--front-end's BATCH) makes it worse (209 ms, 91 requests/s).
  What lengthens one gap in a hundred to 12.3 ms (the ITL p99; 4.3 ms
  predicted) is not identified. A closed loop of more than one user is
  not a light load the front end's latency is fitted on: its requests
  queue behind each other's.
- *Every request at once.* On KVCACHED's burst the fit without it (token
  work unidentified: 0) gives a front end of 197 requests/s, which hands
  the engine one 512-token prompt at a time: nearly every step holds one
  beside a hundred decodes and runs without a graph (TPOT 18.6 ms against
  5.7 ms, ITL p50 15.5 ms against 4.5 ms), where the measured ITL (p50
  4.5 ms, p99 26 ms) says most steps were decode-only and the prompts
  reached the engine in groups; the saturation rate is 127/s against
  93–97/s measured (148/s before the graphs). GPUSTACK's saturation
  rates, 213 and 184 requests/s on GPUs three times apart in compute,
  read as a front end of 4.7–5.4 ms a request; but its TPOT (208 ms on
  the H100) and ITL (228 ms) say vLLM's engine ran large steps, flooded
  with requests, where a front end taking them in one by one, as the fit
  on the other sources (10.5 ms a request) does, leaves the engine idle
  between short steps (TPOT 4.3 ms): the rate there was set by the
  engine's prefill: the engine alone gives 319 requests/s on the H100
  (1.5× the measured; TPOT 195 ms against 208 ms) and 96/s on the A100
  (0.52×) (gpt-oss-20b's prefill is a prior: the class prices a
  2048-token step of it on the A100 at 167 ms against an ideal of 41 ms,
  an efficiency no prefill run has fitted), and the chat template's
  system prompt, unstated, adds tokens the simulation does not send. How
  vLLM's API server hands a flood of requests to the engine is what both
  bursts turn on. Its source says the engine core drains its whole input
  queue before each step and the API server tokenizes waiting prompts
  together, up to 32 (AsyncMicrobatchTokenizer); serve takes requests in
  so when asked (--front-end's BATCH, docs/serve.md, "The front end").
  At the pace fitted on all sources, batches of 32 bring KVCACHED's
  burst to TPOT 4.1 ms (5.1–5.9 measured) and 91 requests/s (93–97),
  and engine replays of groups of 4 to 8 at the measured pace give TPOT
  5.9–4.5 ms: the burst's TPOT is explained by requests reaching the
  engine in groups. Held out, though, the front end fitted without
  KVCACHED takes a request in 5 ms with no token work (only one output
  length is left to fit on), and batches of 32 at that pace flood the
  engine: TPOT 12.4 ms, 137 requests/s, the p99s over the four sources
  33.2 % off and the saturation rates 47.5 % (over the four sources
  before KVCACHED-GB10). The profile therefore
  still takes requests one at a time; a held-out source with a second
  output length (a front-end-bound burst of long answers) is what would
  let the batched intake be scored.
- *A preempted request's cached blocks.* Under vLLM's prefix cache a
  preempted request's blocks stay cached in the free queue, its last
  block first to go, until new blocks are taken from the queue's head
  (vllm.toml [V30]); taken back in, it finds the full blocks of its
  prefix left, prefills from there, and waits until its next chunk fits
  beside them (allocate_slots counts them: num_evictable_computed_blocks).
  Simulated so (docs/serve.md, "How it works"; before, it prefilled again
  from token 0 and was taken back in as soon as its first chunk fit), it
  moves only the DLEE-A100 bursts that fill the cache: at a quarter of
  memory the TPOT p50 of 500 requests 34.7 → 34.0 ms (26.2 measured), the
  TPOT p99s of 200 and 500 61.5 → 60.5 and 61.1 → 59.8 ms (48.8 and 49.0),
  two ITL p99s 1 ms longer; DLEE-A100's p99s 27.2 % → 27.1 %, every
  summary figure above otherwise unchanged.
- *gpt-oss-120b on an A100: measured, not kept.* Its TPOT is predicted
  1.5–2× long (286, 294 and 405 ms against 190, 138 and 228 ms). Below
  compute capability 9 vLLM runs MXFP4 experts through its Marlin MoE
  kernel (mxfp4.py get_mxfp4_backend), which pads each expert's
  intermediate size to a multiple of 128 and the hidden size to 256
  (Mxfp4MoEMethod.create_weights; its E8M0 scales stay one byte a 32
  weights): gpt-oss-120b's 2880 × 2880 experts become 2944 × 3072,
  5,504,827,392 B (5.13 GiB) more, 65.90 GiB loaded against the 65.97 GiB
  vLLM logs on that path (issue #23278). That halves the KV pool at a
  0.9 share (10.7 → 5.6 GiB). Priced whole (the kernel stores, reads and
  multiplies the padded matrices, so a decode step streams 9 % more
  expert bytes), the 2K and 32K bursts' TPOT p50 move 294 → 256 ms and
  405 → 379 ms, the 128-token burst's 286 → 306 ms, and that burst's
  engine alone serves 50.6 requests/s against 71 measured (−29 %, it was
  −24 %): past the 25 % line, the front end's fit reads it as the front
  end's pace and the fit breaks (KVCACHED-H100's TTFT p50 36 ms →
  13.3 s): medians 15.7 % → 26.8 %, p99s 28.5 % → 42.2 %, saturation
  rates 22.8 % → 28.7 %. Priced as memory alone (not what the kernel
  does) the figures stay 15.7 %, 28.5 % and 22.8 %, with the 2K and 32K
  TPOT p50 at 240 and 359 ms. Not kept (the 128-token burst fills 6 % of
  the cache and preempts nothing, so the cached blocks above do not move
  it). What else runs the A100's TPOT long is not found; vLLM's logs give
  no A100 profile_run peak for this model.

Until vLLM has prefill runs of its own in runs.csv (its 8 decode runs
span 4 devices, 3 models and batches of 1 to 10), and serving runs that
publish a light-load TTFT and a front-end-bound saturation rate on more
hosts and at more output lengths (the token's work is identified only by
KVCACHED-H100's 128 tokens against GPUSTACK's 4; KVCACHED-GB10's burst is
the engine's), read the front end's figures as three sources' (its
profile says so; the range's ends take its spread over held-out fits) and
a MoE's prefill as the class's prior.

`

// frontEndTable gives the front ends each source was scored with, and
// the profile's, fitted on every source.
func frontEndTable(fes *servingFrontEnds, ids []string) string {
	var b strings.Builder
	b.WriteString("The front ends (`serve.FitFrontEnd`: least squares over each source's median TTFT at its lightest load (its lowest rate, or one user) less the simulated engine's, latency + request + token, and its saturation rates, 1 / rate = request + token × output, save those the engine alone serves within 25 % of, which are the engine's; a figure the sources cannot separate is 0):\n\n")
	b.WriteString("| fitted on | scores | latency | request | token | unidentified |\n|---|---|---:|---:|---:|---|\n")
	row := func(f serve.FrontEndFit, scores string) {
		un := strings.Join(f.Unidentified, ", ")
		if un == "" {
			un = "—"
		}
		fmt.Fprintf(&b, "| %s | %s | %.1f ms | %.2f ms | %.1f µs | %s |\n", strings.Join(f.Sources, ", "), scores, 1e3*f.Latency, 1e3*f.Request, 1e6*f.Token, un)
	}
	for _, id := range ids {
		row(fes.heldOut[id], id)
	}
	row(fes.all, "the vLLM profile (`[front_end]`)")
	b.WriteString("\n")
	return b.String()
}

// TestEngineBoundBursts checks which bursts the front end's fit reads: a
// burst the engine alone serves within engineBoundWithin of its measured
// rate is the engine's, any other the front end's (docs/accuracy.md).
func TestEngineBoundBursts(t *testing.T) {
	for _, c := range []struct {
		name             string
		engine, measured float64 // requests/s: the engine alone (serve --front-end off), published
		frontEnd         bool
	}{
		// KVCACHED-GB10: the engine alone 16.1/s against 14.21: 16.1 / 14.21
		// = 1.133, within 1.25: the engine set it.
		{"KVCACHED-GB10", 16.1, 14.21, false},
		// KVCACHED-H100: 166.9 / 94.9 = 1.76: the engine would have served
		// it far faster, so the front end set it.
		{"KVCACHED-H100", 166.9, 94.9, true},
		// GPUSTACK on the A100: 96 / 184 = 0.52: the engine alone, on a
		// prefill prior, does not explain it either; read as the front end's.
		{"GPUSTACK a100", 96, 184, true},
		// The edges: 1.25 and 0.75 are within; 1.26 is not.
		{"1.25", 125, 100, false},
		{"0.75", 75, 100, false},
		{"1.26", 126, 100, true},
	} {
		r := &servingRun{source: c.name, rate: math.Inf(1), measured: map[string]float64{"req_per_s": c.measured}, output: "128", engineRate: c.engine}
		got := len(frontEndObservations([]*servingRun{r})) == 1
		if got != c.frontEnd || r.engineBound(c.measured) == c.frontEnd {
			t.Errorf("%s: engine alone %g/s against %g/s measured: read as the front end's %v, want %v", c.name, c.engine, c.measured, got, c.frontEnd)
		}
	}
}

// TestMarkLight checks which runs the front end's latency is fitted on: a
// source's lowest finite rate, or a closed loop of one user, and never a
// closed loop of more (whose requests queue behind each other's in the
// front end) nor a burst.
func TestMarkLight(t *testing.T) {
	ttft := map[string]float64{"ttft_p50_ms": 30}
	runs := []*servingRun{
		{source: "A 16/s", arrival: serve.Poisson, rate: 16, measured: ttft},
		{source: "A 32/s", arrival: serve.Poisson, rate: 32, measured: ttft},
		{source: "A burst", arrival: serve.Poisson, rate: math.Inf(1), measured: ttft},
		{source: "B 1 user", arrival: serve.Closed, users: 1, measured: ttft},
		{source: "B 8 users", arrival: serve.Closed, users: 8, measured: ttft},
		{source: "C 50 users", arrival: serve.Closed, users: 50, measured: ttft},
	}
	markLight(runs)
	want := []bool{true, false, false, true, false, false}
	for i, r := range runs {
		if r.light != want[i] {
			t.Errorf("%s: light %v, want %v", r.source, r.light, want[i])
		}
	}
}
