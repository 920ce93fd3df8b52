package study

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/cmd/roofline/internal/plots"
	inputs "github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/serve"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// Serve is a study's [serve] table: requests arriving under load at every
// device engine, model and format of the plan, as roofline serve runs
// them. Its keys are serve's flags, with _ for - (output_tokens for
// --output-tokens).
type Serve struct {
	// Request is the serving request of every configuration, its setup
	// left to each: the workload (at the first rate), the scheduler's
	// changes, the targets and the search.
	Request app.ServeRequest
	// Rates are the arrival rates run, requests/s: none for a closed loop,
	// and none with MaxRate alone (the run is then at the largest rate
	// found).
	Rates   []float64
	MaxRate bool
	// Args are serve's flags that say the table, as written, for the
	// reproducing commands (without --rate and --max-rate).
	Args []string
	// TargetsFrom says where the targets come from: "[serve]",
	// "[targets]" or "serve's defaults".
	TargetsFrom string
	// TraceNotes are what reading the trace said (rows skipped, the
	// file's rest unread): the trace is read once, when the study is.
	TraceNotes []string
}

// The [serve] table's bounds: a report serves every device engine, model
// and format of its plan, so each run is kept as plan --rate keeps its
// own, and the whole section within limits.ReportServeRequests.
const (
	// ServeRequests is a run's requests unless the study says.
	ServeRequests = app.PlanRateRequests
	// ServeSearchRuns is the max-rate search's rates unless the study
	// says (plan --rate's).
	ServeSearchRuns = app.PlanRateRuns
)

type rawServe struct {
	Arrival         *string  `toml:"arrival"`
	Rate            any      `toml:"rate"`
	MaxRate         *bool    `toml:"max_rate"`
	SearchRuns      *int     `toml:"search_runs"`
	Requests        *int     `toml:"requests"`
	Prompt          any      `toml:"prompt"`
	OutputTokens    any      `toml:"output_tokens"`
	SharedPrefix    any      `toml:"shared_prefix"`
	Seed            *int     `toml:"seed"`
	CV              *float64 `toml:"cv"`
	Users           *int     `toml:"users"`
	Think           *string  `toml:"think"`
	TTFT            *string  `toml:"ttft"`
	TPOT            *string  `toml:"tpot"`
	Policy          *string  `toml:"policy"`
	MaxSeqs         *int     `toml:"max_seqs"`
	MaxTokens       any      `toml:"max_tokens"`
	PassTokens      any      `toml:"pass_tokens"`
	ChunkedPrefill  any      `toml:"chunked_prefill"`
	BlockSize       *int     `toml:"block_size"`
	OnKVFull        *string  `toml:"on_kv_full"`
	PrefixCaching   any      `toml:"prefix_caching"`
	SlotContext     *string  `toml:"slot_context"`
	AsyncScheduling any      `toml:"async_scheduling"`
	KVTokens        any      `toml:"kv_tokens"`
	MemoryShare     *float64 `toml:"memory_share"`
	FrontEnd        *string  `toml:"front_end"`
	UBatch          any      `toml:"ubatch"`
	Trace           *string  `toml:"trace"`
	TraceFormat     *string  `toml:"trace_format"`
	CharsPerToken   *float64 `toml:"chars_per_token"`
}

// workloadKeys names the [serve] key behind each field serve's workload
// validation names (serve.WorkloadError).
var workloadKeys = map[string]string{
	"Arrival": "arrival", "Rate": "rate", "CV": "cv", "Users": "users", "Think": "think", "Requests": "requests",
	"Prompt": "prompt", "Output": "output_tokens", "SharedPrefix": "shared_prefix", "Runs": "search_runs",
	"UBatch": "ubatch", "KVTokens": "kv_tokens", "MemoryShare": "memory_share",
}

// parseServe reads the [serve] table; bad reports a problem at a key of
// the table ("" for the table's header). The workload of the study gives
// the lengths and the targets the latency targets the table leaves out.
func parseServe(r *rawServe, wl Workload, t Targets, resolve func(string) string, bad func(key, format string, a ...any)) *Serve {
	s := &Serve{TargetsFrom: "[serve]"}
	req := &s.Request
	w := &req.Workload
	req.UBatch = sim.DefaultWorkload.UBatch // serve's --ubatch
	*w = serve.Workload{Arrival: serve.Poisson, CV: 2, Users: 8, Requests: ServeRequests, Seed: 1,
		Prompt: serve.Dist{Kind: serve.Fixed, A: float64(wl.Prompt)}, Output: serve.Dist{Kind: serve.Fixed, A: float64(wl.Output)}}
	arg := func(flag, v string) { s.Args = append(s.Args, "--"+flag, v) }
	if r.Arrival != nil {
		a, err := serve.ParseArrival(*r.Arrival)
		switch {
		case err != nil:
			bad("arrival", "serve.arrival %v", err)
		case a == serve.Trace && r.Trace == nil:
			bad("arrival", "serve.arrival = \"trace\" needs trace = \"FILE\" (a trace with arrival times: Azure or BurstGPT)")
		default:
			w.Arrival = a
			arg("arrival", a.String())
		}
	}
	// Lengths: serve's distributions, the study's workload by default.
	for _, f := range []struct {
		key, flag string
		v         any
		dst       *serve.Dist
	}{{"prompt", "prompt", r.Prompt, &w.Prompt}, {"output_tokens", "output-tokens", r.OutputTokens, &w.Output}} {
		if f.v == nil {
			// A trace's rows give the lengths: the study's own go unsaid.
			if r.Trace == nil {
				arg(f.flag, f.dst.String())
			}
			continue
		}
		text, ok := scalarText(f.v)
		d, err := serve.ParseDist(text)
		if !ok {
			err = fmt.Errorf("want a token count or a distribution such as \"uniform:100:800\", got %v", f.v)
		}
		if err != nil {
			bad(f.key, "serve.%s %v", f.key, err)
			continue
		}
		*f.dst = d
		arg(f.flag, text)
	}
	type intKey struct {
		key, flag string
		v         *int
		dst       *int
		lo, hi    int
	}
	seed, runs := 1, ServeSearchRuns
	ints := []intKey{{"requests", "requests", r.Requests, &w.Requests, 1, limits.ReportServeRequests},
		{"users", "users", r.Users, &w.Users, 1, serve.MaxUsers},
		{"max_seqs", "max-seqs", r.MaxSeqs, &req.Scheduler.MaxSeqs, 1, runtimes.MaxSchedulerSeqs},
		{"block_size", "block-size", r.BlockSize, &req.Scheduler.BlockSize, 1, runtimes.MaxBlockSize},
		{"seed", "seed", r.Seed, &seed, 0, math.MaxInt32}}
	if r.SearchRuns != nil {
		if v := *r.SearchRuns; v < 4 || v > serve.DefaultSearchRuns {
			bad("search_runs", "serve.search_runs must be 4 … %d, got %s", serve.DefaultSearchRuns, limits.Echo(v))
		} else {
			runs = v
		}
	}
	for _, f := range ints {
		if f.v == nil {
			continue
		}
		if *f.v < f.lo || *f.v > f.hi {
			bad(f.key, "serve.%s must be %d … %d, got %s", f.key, f.lo, f.hi, limits.Echo(*f.v))
			continue
		}
		*f.dst = *f.v
		arg(f.flag, strconv.Itoa(*f.v))
	}
	w.Seed = uint64(seed)
	if r.Requests == nil {
		arg("requests", strconv.Itoa(w.Requests))
	}
	for _, f := range []struct {
		key, flag string
		v         any
		dst       *int
	}{{"shared_prefix", "shared-prefix", r.SharedPrefix, &w.SharedPrefix}, {"max_tokens", "max-tokens", r.MaxTokens, &req.Scheduler.MaxTokens},
		{"pass_tokens", "pass-tokens", r.PassTokens, &req.Scheduler.PassTokens}, {"kv_tokens", "kv-tokens", r.KVTokens, &req.KVTokens},
		{"ubatch", "ubatch", r.UBatch, &req.UBatch}} {
		if f.v == nil {
			continue
		}
		text, ok := scalarText(f.v)
		n, err := units.ParseTokenCount(text)
		switch {
		case ok && err != nil:
			// Its words: not a count, or past the limit (which it names).
			bad(f.key, "serve.%s: %v", f.key, err)
			continue
		case !ok || n < 0 || n > limits.Tokens:
			bad(f.key, "serve.%s: %v is not a token count such as 2048 or 2k", f.key, f.v)
			continue
		case f.key == "ubatch" && n < 1:
			bad(f.key, "serve.ubatch %d: want a pass of 1 token or more (leave it out for the runtime's)", n)
			continue
		}
		if f.key == "kv_tokens" && n == 0 {
			// As serve --kv-tokens 0, which the report's commands give.
			bad(f.key, "serve.kv_tokens 0: want a KV pool above 0 tokens (leave it out for what memory leaves)")
			continue
		}
		*f.dst = n
		arg(f.flag, text)
	}
	if r.CV != nil {
		w.CV = *r.CV
		arg("cv", strconv.FormatFloat(*r.CV, 'g', -1, 64))
	}
	if r.Think != nil {
		v, err := units.ParseWait(*r.Think)
		if err != nil {
			bad("think", "serve.think: %q is not a duration such as 10s", *r.Think)
		} else {
			w.Think = v
			arg("think", *r.Think)
		}
	}
	// A knob of another arrival process does nothing: refused, as serve
	// refuses the flag, so that the report's commands run as written.
	for _, k := range []struct {
		key  string
		set  bool
		for_ serve.ArrivalKind
	}{{"cv", r.CV != nil, serve.Gamma}, {"users", r.Users != nil, serve.Closed}, {"think", r.Think != nil, serve.Closed}} {
		if k.set && w.Arrival != k.for_ {
			bad(k.key, "serve.%s applies to arrival = %q; these arrivals are %s", k.key, k.for_, w.Arrival)
		}
	}
	if r.FrontEnd != nil {
		if f, err := serve.ParseFrontEnd(*r.FrontEnd); err != nil {
			bad("front_end", "serve.front_end %v", err)
		} else {
			req.FrontEnd = f
			arg("front-end", *r.FrontEnd)
		}
	}
	if r.MemoryShare != nil {
		if v := *r.MemoryShare; !(v > 0 && v <= 1) {
			bad("memory_share", "serve.memory_share %g: want a share in (0, 1]", v)
		} else {
			req.MemoryShare = v
			arg("memory-share", strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	// The scheduler's words, as serve's flags take them.
	for _, f := range []struct {
		key, flag string
		v         *string
		words     []string
	}{{"policy", "policy", r.Policy, []string{string(runtimes.Continuous), string(runtimes.FIFO), string(runtimes.Static)}},
		{"on_kv_full", "on-kv-full", r.OnKVFull, []string{string(runtimes.Recompute), string(runtimes.Reserve), string(runtimes.Fail)}},
		{"slot_context", "slot-context", r.SlotContext, []string{"shared", "divided"}}} {
		if f.v == nil {
			continue
		}
		v := strings.ToLower(strings.TrimSpace(*f.v))
		if !slices.Contains(f.words, v) {
			bad(f.key, "serve.%s %q: want %s", f.key, *f.v, strings.Join(f.words, " or "))
			continue
		}
		switch f.key {
		case "policy":
			req.Scheduler.Policy = runtimes.Policy(v)
		case "on_kv_full":
			req.Scheduler.OnFull = runtimes.OnFull(v)
		default:
			divided := v == "divided"
			req.Scheduler.DividedContext = &divided
		}
		arg(f.flag, v)
	}
	for _, f := range []struct {
		key, flag string
		v         any
		dst       **bool
	}{{"chunked_prefill", "chunked-prefill", r.ChunkedPrefill, &req.Scheduler.Chunked}, {"prefix_caching", "prefix-caching", r.PrefixCaching, &req.Scheduler.PrefixCaching},
		{"async_scheduling", "async-scheduling", r.AsyncScheduling, &req.Scheduler.Async}} {
		if f.v == nil {
			continue
		}
		on, ok := onOff(f.v)
		if !ok {
			bad(f.key, "serve.%s %v: want true or false (or \"on\", \"off\")", f.key, f.v)
			continue
		}
		*f.dst = &on
		arg(f.flag, map[bool]string{true: "on", false: "off"}[on])
	}
	// A trace: its lengths (and, with trace arrivals, its times), read
	// now so that a bad row is told at the study's load, at its line.
	if r.Trace != nil || r.TraceFormat != nil || r.CharsPerToken != nil {
		parseTrace(s, r, resolve, arg, bad)
	}
	// Targets: the table's, else the study's, else serve's.
	req.Targets = serve.Targets{TTFT: 1, TPOT: 0.2}
	ttft, tpot := "1s", "200ms"
	switch {
	case r.TTFT != nil || r.TPOT != nil:
	case t.TTFT != "" || t.TPOT != "":
		s.TargetsFrom = "[targets]"
	default:
		s.TargetsFrom = "serve's defaults"
	}
	for _, f := range []struct {
		key   string
		table *string
		study string
		text  *string
		dst   *float64
	}{{"ttft", r.TTFT, t.TTFT, &ttft, &req.Targets.TTFT}, {"tpot", r.TPOT, t.TPOT, &tpot, &req.Targets.TPOT}} {
		switch {
		case f.table != nil:
			*f.text = *f.table
		case s.TargetsFrom == "[targets]":
			*f.text = f.study
		}
		if *f.text == "" {
			// The study sets the other target only: serve's default.
			*f.text = map[string]string{"ttft": "1s", "tpot": "200ms"}[f.key]
		}
		v, err := units.ParseDuration(*f.text)
		if err == nil {
			err = limits.Latency.Check(v)
		}
		if err != nil {
			if f.table != nil {
				bad(f.key, "serve.%s: %v", f.key, err)
			}
			continue // [targets]' own error is told there
		}
		*f.dst = v
	}
	arg("ttft", ttft)
	arg("tpot", tpot)
	// Rates: one or a list; a closed loop's load is its users.
	if r.Rate != nil {
		l, ok := r.Rate.([]any)
		if !ok {
			l = []any{r.Rate}
		}
		if len(l) == 0 || len(l) > limits.ReportServeRates {
			bad("rate", "serve.rate: give 1 … %d rates, got %d", limits.ReportServeRates, len(l))
		}
		for _, x := range l {
			v, ok := number(x)
			if !ok {
				bad("rate", "serve.rate: %v is not a rate in requests per second", x)
				continue
			}
			s.Rates = append(s.Rates, v)
		}
	}
	if r.MaxRate != nil {
		s.MaxRate = *r.MaxRate
	}
	switch {
	case w.Arrival == serve.Closed && r.Rate != nil:
		bad("rate", "serve.rate: a closed loop has no arrival rate: its users and think time set its load")
	case w.Arrival == serve.Closed && s.MaxRate:
		bad("max_rate", "serve.max_rate: a closed loop has no arrival rate to search: choose poisson, constant or gamma arrivals")
	case w.Arrival == serve.Trace && s.MaxRate:
		bad("max_rate", "serve.max_rate: trace arrivals keep the trace's own times; search the rate with poisson, constant or gamma arrivals and the trace's lengths")
	case w.Arrival != serve.Closed && w.Arrival != serve.Trace && len(s.Rates) == 0 && !s.MaxRate && r.Rate == nil:
		bad("", "[serve]: rate is required for %s arrivals (requests per second, or a list of them), or max_rate = true to search the largest rate meeting the targets", w.Arrival)
	}
	if s.MaxRate {
		if req.Targets.TTFT <= 0 && req.Targets.TPOT <= 0 {
			bad("max_rate", "serve.max_rate needs a TTFT or TPOT target ([serve] or [targets] ttft, tpot)")
		}
		req.SearchRuns, req.SearchInterval, req.AtMaxRate = runs, true, len(s.Rates) == 0
		arg("search-runs", strconv.Itoa(runs))
	}
	if r.SearchRuns != nil && !s.MaxRate {
		bad("search_runs", "serve.search_runs sets the max-rate search: add max_rate = true")
	}
	// serve's own validation, at every rate.
	check := func(w serve.Workload) {
		var we *serve.WorkloadError
		if err := w.Validate(); errors.As(err, &we) {
			bad(workloadKeys[we.Field], "serve.%s %s", workloadKeys[we.Field], we.Msg)
		}
	}
	switch {
	case len(s.Rates) > 0:
		for _, v := range s.Rates {
			w.Rate = v
			check(*w)
		}
		w.Rate = s.Rates[0]
	case w.Arrival == serve.Trace:
		w.Rate = 0 // the trace's own times
		check(*w)
	default:
		w.Rate = 1 // a closed loop ignores it; a search sets its own
		check(*w)
	}
	return s
}

// work is the requests the table simulates on one configuration: each
// rate's run at the expected step times and at the interval's ends, and
// the search at all three.
func (s *Serve) work() int64 {
	runs := int64(max(len(s.Rates), 1)) * 3
	if s.MaxRate {
		runs += 3 * int64(s.Request.SearchRuns)
	}
	return runs * int64(s.Request.Workload.Requests)
}

// parseTrace reads [serve]'s trace, trace_format and chars_per_token into
// the request's workload, as serve --trace reads them.
func parseTrace(s *Serve, r *rawServe, resolve func(string) string, arg func(flag, v string), bad func(key, format string, a ...any)) {
	req := &s.Request
	if r.Trace == nil {
		key := "trace_format"
		if r.TraceFormat == nil {
			key = "chars_per_token"
		}
		bad(key, "serve.%s needs trace = \"FILE\"", key)
		return
	}
	req.TraceFormat, req.CharsPerToken = serve.AutoFormat, serve.DefaultCharsPerToken
	if r.TraceFormat != nil {
		f, err := serve.ParseTraceFormat(*r.TraceFormat)
		if err != nil {
			bad("trace_format", "serve.trace_format %v", err)
			return
		}
		req.TraceFormat = f
		arg("trace-format", *r.TraceFormat)
	}
	if r.CharsPerToken != nil {
		if v := *r.CharsPerToken; !(v > 0 && v <= 100) {
			bad("chars_per_token", "serve.chars_per_token %g: want characters per token above 0 and at most 100", v)
			return
		}
		req.CharsPerToken = *r.CharsPerToken
		arg("chars-per-token", strconv.FormatFloat(*r.CharsPerToken, 'g', -1, 64))
	}
	req.Trace = resolve(strings.TrimSpace(*r.Trace))
	notes, err := app.ReadServeTrace(req)
	if err != nil {
		if ie, ok := err.(*inputs.InputError); ok {
			err = ie.Err // the file is named by serve.trace, not a flag
		}
		bad("trace", "serve.trace: %v", err)
		return
	}
	arg("trace", req.Trace)
	s.TraceNotes = notes
	req.Trace = "" // read: every configuration serves these rows
}

// scalarText is a TOML string or whole number as text.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	}
	return "", false
}

// number is a TOML number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// onOff reads true, false, "on" or "off".
func onOff(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "on", "true", "yes":
			return true, true
		case "off", "false", "no":
			return false, true
		}
	}
	return false, false
}

// serveError words an error of a serving run as an error of the study,
// at the line of the [serve] key it is about: a workload value, a
// scheduler knob, a missing target.
func (st *Study) serveError(err error) error {
	var we *serve.WorkloadError
	var se *runtimes.SchedulerError
	switch {
	case errors.As(err, &we):
		k := workloadKeys[we.Field]
		return &profiles.FileError{File: st.File, Line: st.serveLine(k), Msg: fmt.Sprintf("serve.%s %s", k, we.Msg)}
	case errors.As(err, &se):
		return &profiles.FileError{File: st.File, Line: st.serveLine(se.Knob), Msg: fmt.Sprintf("serve.%s %s", se.Knob, se.Msg)}
	case errors.Is(err, serve.ErrNoTargets):
		return &profiles.FileError{File: st.File, Line: st.serveLine("max_rate"), Msg: "serve.max_rate: " + err.Error()}
	}
	return err
}

// serveLine is the line of a [serve] key, else of the table.
func (st *Study) serveLine(key string) int {
	if key != "" {
		if l := st.lines.Key("serve", key); l > 0 {
			return l
		}
	}
	return st.lines.Key("serve")
}

// Served is one configuration of the plan under the [serve] table's load:
// a run at each rate (or one at the largest rate found, or one closed
// loop), the first carrying the max-rate search.
type Served struct {
	Group plan.Group
	// Requests are the serving requests run, one per Runs entry.
	Requests []app.ServeRequest
	Runs     []*app.Serve
	// NoCache is true when the runtime leaves no room for a KV cache on
	// the device: nothing is served.
	NoCache bool
}

// Search is the configuration's max-rate search with its interval's
// ends; nil without max_rate.
func (s *Served) Search() *serve.RateRange {
	if len(s.Runs) == 0 {
		return nil
	}
	return s.Runs[0].SearchRange
}

// serveAll runs the [serve] table on every device engine, model and
// format of the plan, within limits.ReportServeWork.
func (r *Report) serveAll(env *app.Env, progress func(string)) error {
	st := r.Study
	sv := st.Serve
	if sv == nil {
		return nil
	}
	if _, ok := limits.Mul(limits.ReportServeWork, int64(len(r.Plan.Groups)), sv.work()); !ok {
		return &profiles.FileError{File: st.File, Line: st.serveLine(""), Msg: fmt.Sprintf(
			"[serve]: %d configurations × %s requests each (%d a run, every rate and search run at the expected step times and the interval's ends) are more than a report simulates, %s; serve fewer devices, models or formats, or fewer requests, rates or search_runs",
			len(r.Plan.Groups), units.FormatCount(float64(sv.work())), sv.Request.Workload.Requests, units.FormatCount(limits.ReportServeWork))}
	}
	for _, n := range sv.TraceNotes {
		if n = "serve: " + n; !slices.Contains(r.Notes, n) {
			r.Notes = append(r.Notes, n)
		}
	}
	for _, g := range r.Plan.Groups {
		progress(fmt.Sprintf("serve %s %s %s %s", g.Device, g.Engine, g.Model, g.Weights))
		s := Served{Group: g}
		rates := sv.Rates
		if len(rates) == 0 {
			rates = []float64{sv.Request.Workload.Rate}
		}
		for i, rate := range rates {
			req := sv.Request
			req.Setup = app.Selection{Model: g.Model, Hardware: g.Device, Engine: g.Engine, Runtime: g.Runtime, Weights: g.Weights, KV: g.KV, Options: sim.DefaultOptions}
			req.Workload.Rate = rate
			if i > 0 {
				req.SearchRuns, req.SearchInterval, req.AtMaxRate = 0, false, false
			}
			a, err := env.Serve(req)
			var nf *serve.NotFitError
			if errors.As(err, &nf) {
				s.NoCache = true
				break
			}
			if err != nil {
				return fmt.Errorf("serve %s on %s %s (%s): %w", g.Model, g.Device, g.Engine, g.Weights, st.serveError(err))
			}
			if i > 0 {
				// Only the first rate's requests are drawn (serve-cdf):
				// the others keep their summaries.
				a.Run.Expected.Records = nil
			}
			for _, n := range a.Notes {
				at := fmt.Sprintf(" at %.3g requests/s", a.Workload.Rate)
				if a.Workload.Arrival == serve.Closed {
					at = ""
				}
				n = fmt.Sprintf("serve %s %s %s %s%s: %s", g.Device, g.Engine, g.Model, g.Weights, at, n)
				if !slices.Contains(r.Notes, n) {
					r.Notes = append(r.Notes, n)
				}
			}
			s.Requests, s.Runs = append(s.Requests, req), append(s.Runs, a)
		}
		r.Serving = append(r.Serving, s)
	}
	return nil
}

// maxServeSeries bounds the configurations a serving figure draws, as the
// default figures are bounded: 96 series, twelve panels of eight.
const maxServeSeries = 96

// serveFigures draws serve-rate (with max_rate), serve-cdf and serve-time
// from the serving runs themselves, one series per configuration served:
// the figures the plot command draws for one server, on the same code.
func (r *Report) serveFigures(progress func(string)) error {
	var served []*Served
	for i := range r.Serving {
		if s := &r.Serving[i]; len(s.Runs) > 0 {
			served = append(served, s)
		}
	}
	if len(served) == 0 {
		return nil
	}
	labels := servedLabels(served)
	sv := r.Study.Serve
	tg := sv.Request.Targets
	w := served[0].Runs[0].Workload
	kinds := []string{"serve-cdf", "serve-time"}
	if sv.MaxRate {
		kinds = append([]string{"serve-rate"}, kinds...)
	}
	for _, name := range kinds {
		k, err := app.FigureKindOf(name)
		if err != nil {
			return err
		}
		if len(served) > maxServeSeries {
			r.Skip(name, fmt.Sprintf("%d configurations served, at most %d are legible; serve fewer devices, models or formats", len(served), maxServeSeries))
			continue
		}
		progress("plot " + name)
		series := make([]app.ServeSeries, len(served))
		for i, s := range served {
			series[i] = app.ServeSeries{Label: labels[i], Search: s.Runs[0].Search, Run: s.Runs[0].Run.Expected}
		}
		what := serveWorkloadWords(w)
		var f *plots.Figure
		switch name {
		case "serve-rate":
			f, err = app.ServeRateFigure("Latency against arrival rate: p99 of each configuration\n"+what, tg, series)
		case "serve-cdf":
			f, err = app.ServeCDFFigure("Latency of every request\n"+what+atRate(sv), tg, series)
		default:
			f, err = app.ServeTimeFigure("Queue and KV cache over time\n"+what+atRate(sv), series)
		}
		if err != nil {
			return fmt.Errorf("figure %s: %w", name, err)
		}
		r.Figures = append(r.Figures, Figure{Kind: k, Figure: &app.Figure{Figure: f, Kind: k}})
	}
	return nil
}

// servedLabels name the configurations served by what tells them apart:
// the device, and the engine, model and format where they differ.
func servedLabels(served []*Served) []string {
	differ := func(get func(plan.Group) string) bool {
		for _, s := range served[1:] {
			if get(s.Group) != get(served[0].Group) {
				return true
			}
		}
		return false
	}
	parts := []func(plan.Group) string{func(g plan.Group) string { return g.Engine }, func(g plan.Group) string { return g.Model },
		func(g plan.Group) string { return g.Weights }, func(g plan.Group) string { return g.KV }, func(g plan.Group) string { return g.Runtime }}
	var use []func(plan.Group) string
	for _, p := range parts {
		if differ(p) {
			use = append(use, p)
		}
	}
	out := make([]string, len(served))
	for i, s := range served {
		l := []string{s.Group.Device}
		for _, p := range use {
			l = append(l, p(s.Group))
		}
		out[i] = strings.Join(l, " ")
	}
	return out
}

// serveWorkloadWords is the [serve] load in a figure's title.
func serveWorkloadWords(w serve.Workload) string {
	arr := map[serve.ArrivalKind]string{serve.Poisson: "Poisson arrivals", serve.Constant: "arrivals at constant gaps", serve.Gamma: fmt.Sprintf("gamma arrivals (CV %g)", w.CV)}[w.Arrival]
	if w.Arrival == serve.Closed {
		arr = fmt.Sprintf("a closed loop of %d users", w.Users)
	}
	return fmt.Sprintf("%s, %d requests of %s + %s tokens", arr, w.Requests, w.Prompt, w.Output)
}

// atRate says at what rate the runs a figure draws are.
func atRate(sv *Serve) string {
	switch {
	case sv.Request.Workload.Arrival == serve.Closed:
		return ""
	case len(sv.Rates) > 0:
		return fmt.Sprintf(" at %.3g requests/s", sv.Rates[0])
	case sv.Request.Workload.Arrival == serve.Trace:
		return ", at the trace's arrival times"
	}
	return ", each at its largest rate meeting the targets"
}
