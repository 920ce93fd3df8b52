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
	maxServingMedianAPE = 0.50
	maxServingP99APE    = 0.85
	maxSaturationAPE    = 0.80
	// Beside the aims: the p95s a source publishes instead of p99s, and
	// closed loops' throughput.
	maxServingP95APE       = 0.25
	maxClosedThroughputAPE = 0.10
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
	predicted, fast, slow                                 map[string]float64
	simNotes                                              []string
}

func (r *servingRun) sourceID() string { return strings.Fields(r.source)[0] }

// load says in words how the requests arrived.
func (r *servingRun) load() string {
	lengths := r.prompt + " + " + r.output + " tokens"
	switch {
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

// simulate runs a serving run through roofline serve's application
// layer: the same requests (lengths, arrival process and count) on the
// runtime's scheduler, with the run's memory share, at the expected step
// times and the ends of the 80 % interval.
func (r *servingRun) simulate(env *app.Env) error {
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
	a, err := env.Serve(app.ServeRequest{
		Setup:       app.Selection{Model: r.model, Hardware: r.hardware, Runtime: rt, Engine: r.engine, Weights: r.weights, KV: r.kv},
		Workload:    w,
		MemoryShare: r.memoryShare,
		Level:       0.8,
	})
	if err != nil {
		return err
	}
	r.predicted, r.fast, r.slow = map[string]float64{}, map[string]float64{}, map[string]float64{}
	for _, m := range servingMetrics {
		r.predicted[m.col] = m.pick(a.Run.Expected)
		if a.Run.Fast != nil {
			r.fast[m.col], r.slow[m.col] = m.pick(a.Run.Fast), m.pick(a.Run.Slow)
		}
	}
	r.simNotes = a.Notes
	return nil
}

var (
	servingOnce sync.Once
	servingRes  []*servingRun
	servingErr  error
)

// publicServingRuns reads serving.csv and simulates every scored run, once.
func publicServingRuns(t *testing.T) []*servingRun {
	t.Helper()
	servingOnce.Do(func() {
		runs := readServing(t, publicServing)
		env, err := app.NewEnv()
		if err != nil {
			servingErr = err
			return
		}
		for _, r := range runs {
			if r.exclude != "" {
				continue
			}
			if err := r.simulate(env); err != nil {
				servingErr = fmt.Errorf("%s:%d (%s): %w", publicServing, r.line, r.source, err)
				return
			}
		}
		servingRes = runs
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
			if lo, ok := r.fast[m.col]; ok {
				e.ranged++
				if hi := r.slow[m.col]; meas >= math.Min(lo, hi) && meas <= math.Max(lo, hi) {
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
	if ranged && (meas < math.Min(lo, hi) || meas > math.Max(lo, hi)) {
		mark = " †"
	}
	return fmt.Sprintf("%s / %s (%+.0f %%)%s", f(meas), f(pred), 100*(pred/meas-1), mark)
}

// servingSection is docs/accuracy.md's serving table.
func servingSection(runs []*servingRun) string {
	var b strings.Builder
	b.WriteString("## Serving under load: predicted against published serving runs\n\n")
	b.WriteString("`cmd/roofline/testdata/public/serving.csv` holds published serving benchmarks with their settings (runtime and version, device, model, arrival process and rate, request count, prompt and output lengths) and what they measured (docs/formats.md, \"roofline serving runs CSV\"; sources in `SOURCES.md`, \"Serving runs\"). Each run is simulated as `roofline serve` would (docs/serve.md): the same number of requests, of the same lengths, arriving the same way, under the runtime's scheduler with the run's memory share. The step times come from the runtime classes fitted on `runs.csv`, which holds none of these sources (held out by source; `TestServingRuns` checks it). A cell is measured / predicted (error of the prediction); † marks a measured figure outside the range the simulation gives at the ends of the 80 % step-time interval. Times in ms.\n\n")
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
			lo, ranged := r.fast[m.col]
			// An open-loop run's throughput is its arrival rate: no range.
			ranged = ranged && (m.kind != rateFig || !r.openRate())
			b.WriteString(" " + msCell(meas, r.predicted[m.col], lo, r.slow[m.col], ranged) + " |")
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
const servingReading = `**What the misses say.** Three sources are simulated, all vLLM: 0.19.0
serving Qwen3-0.6B on an H100 at half its memory (KVCACHED-H100: Poisson
at 16/s and 500 requests at once), 0.23.0 serving Qwen2.5-0.5B on an L4
at 0.6 of its memory (WMX-L4: closed loops of 1 to 32 requests), and
0.11.0 serving gpt-oss-20b on an H100 and an A100 (GPUSTACK-GPTOSS20B:
1000 short requests at once). Held out by source, the decode of small
dense models is close, the first token is not, and a MoE's prefill rests
on a prior:

- *Decode and whole requests.* On the L4 the median ITL is predicted
  within 2–15 % at every concurrency, the median E2E within 3–14 % and the
  closed loops' throughput within 1–17 %: the steps the simulation prices
  are the steps vLLM runs. On the H100 at 16 requests/s TPOT is predicted
  a quarter short: the vLLM class is fitted on two decode runs of an 8B
  model at batch 8 (runs.csv, VLLM-NIGHTLY) and on no prefill run, so its
  cost of a step on a model a thirteenth the size is an extrapolation.
- *TTFT is short at light load, on both sources that have one.* With one
  request at a time the L4 measured a median TTFT of 27 ms where the
  simulated prefill takes 7.7 ms; the H100 at 16/s measured 36 ms where it
  takes 3.9 ms. The gap, about 19 ms a request on the L4 (a GKE
  g2-standard-4 host) and 32 ms on the H100, is the path the simulation
  leaves out (docs/serve.md, "What is not modelled"): vLLM's API server
  process takes the HTTP request, tokenizes it and streams the detokenized
  answer back, apart from the engine's steps (vLLM's design
  documentation, "V1 process architecture"). It is not one constant:
  fitted on either source and scored on the other, a per-request cost
  would still miss the other's TTFT by 35–47 %, and on the L4 it grows
  with load (27 ms at concurrency 1, 135 ms at 32, where the simulation's
  stays near 30 ms), as a front end whose work, or a scheduler whose time
  per step, grows with the requests it holds would. Two sources do not separate those, so no
  front-end cost is added; the TTFT medians carry the miss.
- *Every request at once.* The saturation rates point the same way: 95
  requests/s of 512 + 128 tokens on the H100 (Qwen3-0.6B, about 166
  predicted) and 213 and 184 requests/s of 128 + 4 tokens with gpt-oss-20b
  on an H100 and an A100, two GPUs three times apart in compute, the
  A100's rate only 14 % lower: as if 5–11 ms a request of host work on a
  serial path capped them, more with more streamed tokens. With Qwen3-0.6B
  the simulation admits all 500 requests (its pool of what half the memory
  leaves holds 500 × 640 tokens) and decodes them together, each step
  reading about 34 GB of KV cache, a TPOT of about 20 ms and a median TTFT
  of 0.4 s against a measured 5–6 ms and 2.9 s: vLLM decoded far fewer
  requests at once and queued the rest, which a front end releasing
  requests at its own pace would explain (the run publishes neither its
  KV pool nor max_num_seqs; at --max-seqs 128 the simulation gives TPOT
  6.7 ms and a median TTFT of 1.1 s).
- *A MoE's prefill is a prior.* gpt-oss-20b's 1000 prompts on the A100
  (2048-token steps, the profile's A100 default) are predicted 2.3–2.5×
  slower than measured (median TTFT 4.9 s against 2.0 s, TPOT 153 ms against 65 ms):
  the class prices a 2048-token step of it at 158 ms against an ideal of
  41 ms, an efficiency no prefill run has fitted. On the H100 (8192-token
  steps) the same class is 11 % short on TPOT and half on TTFT, the
  template's system prompt, unstated, adding tokens the simulation does
  not send.

Until vLLM has runs of its own at several batches and models in runs.csv,
prefill runs among them, and serving runs that publish their server's KV
pool and a light-load TTFT on more hosts, read vLLM serving TTFTs as the
engine's alone, without the server's front end, and its MoE prefill as
the class's prior: their intervals say so (the class's decode interval is
0.5–2×, its prefill interval 0.33–3×; every GPUSTACK figure lies in its
range).

`
