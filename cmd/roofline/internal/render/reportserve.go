package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/study"
	"github.com/roofline/roofline/serve"
	"github.com/roofline/roofline/units"
)

// reportServing is the serving section of results.json: every
// configuration of the plan under the [serve] table's load, each run as
// roofline serve --format json gives it.
type reportServing struct {
	TargetsFrom string         `json:"targets_from"`
	Configs     []reportServed `json:"configs"`
}

type reportServed struct {
	Hardware string `json:"hardware"`
	Engine   string `json:"engine"`
	Model    string `json:"model"`
	Weights  string `json:"weights"`
	KV       string `json:"kv"`
	Runtime  string `json:"runtime"`
	// NoCache is true when the runtime leaves no room for a KV cache.
	NoCache bool             `json:"no_kv_cache_room"`
	Runs    []reportServeRun `json:"runs"`
}

type reportServeRun struct {
	// Commands reproduce the run: the search, then the run at the rate
	// it found, when the study runs at the largest rate.
	Commands []string  `json:"commands"`
	Result   ServeJSON `json:"result"`
}

// serveCommands are the serve commands of one run of a configuration.
func (c commands) serve(req app.ServeRequest, a *app.Serve, first bool) []string {
	sv := c.st.Serve
	s := req.Setup
	base := append([]string{"serve", "--model", c.st.Written(s.Model), "--hardware", c.st.Written(s.Hardware), "--engine", s.Engine,
		"--runtime", s.Runtime, "--weights", s.Weights, "--kv", s.KV}, sv.Args...)
	rate := []string{"--rate", strconv.FormatFloat(a.Workload.Rate, 'g', -1, 64)}
	if a.Workload.Arrival == serve.Closed || (a.Workload.Arrival == serve.Trace && a.Workload.Rate == 0) {
		rate = nil // the users', or the trace's own times
	}
	// A run at a rate searches nothing: serve refuses --search-runs
	// without --max-rate.
	atRate := append(withoutFlag(base, "--search-runs"), rate...)
	switch {
	case first && req.AtMaxRate:
		return []string{c.line(append(slices.Clone(base), "--max-rate")), c.line(atRate)}
	case first && req.SearchRuns > 0:
		return []string{c.line(append(append(slices.Clone(base), rate...), "--max-rate"))}
	}
	return []string{c.line(atRate)}
}

// withoutFlag is args without flag and its value.
func withoutFlag(args []string, flag string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == flag && i+1 < len(args) {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// servingJSON is the serving section of results.json; nil without one.
func (rep *report) servingJSON() *reportServing {
	sv := rep.Study.Serve
	if sv == nil {
		return nil
	}
	out := &reportServing{TargetsFrom: sv.TargetsFrom, Configs: []reportServed{}}
	for _, s := range rep.Serving {
		g := s.Group
		rs := reportServed{Hardware: g.Device, Engine: g.Engine, Model: g.Model, Weights: g.Weights, KV: g.KV, Runtime: g.Runtime, NoCache: s.NoCache, Runs: []reportServeRun{}}
		for i, a := range s.Runs {
			rs.Runs = append(rs.Runs, reportServeRun{Commands: rep.cmds.serve(s.Requests[i], a, i == 0), Result: NewServeJSON(a)})
		}
		out.Configs = append(out.Configs, rs)
	}
	return out
}

// servingCommands are every serve command of the report, in order.
func (rep *report) servingCommands() []string {
	var out []string
	for _, s := range rep.Serving {
		for i, a := range s.Runs {
			out = append(out, rep.cmds.serve(s.Requests[i], a, i == 0)...)
		}
	}
	return out
}

// servingCSV writes the serving rows of results.csv: per run (section
// "serve rate=R"), each latency's mean and percentiles with the p50 and
// p99 at the interval's ends, throughput and goodput; per search
// (section "serve max-rate") the largest rate and its range.
func (rep *report) servingCSV(w *ReportWriter) {
	for _, s := range rep.Serving {
		g := s.Group
		row := func(section, metric string, v float64, unit string) {
			w.row(section, g.Device, g.Engine, g.Model, g.Weights, g.KV, 0, 0, metric, v, unit)
		}
		for _, a := range s.Runs {
			section := "serve rate=" + strconv.FormatFloat(a.Workload.Rate, 'g', 6, 64)
			switch {
			case a.Workload.Arrival == serve.Closed:
				section = fmt.Sprintf("serve users=%d", a.Workload.Users)
			case a.Workload.Arrival == serve.Trace && a.Workload.Rate == 0:
				section = "serve trace"
			}
			run := a.Run
			for _, l := range servedLatencies {
				st := l.get(run.Expected)
				for _, x := range []struct {
					m string
					v float64
				}{{"mean", st.Mean}, {"p50", st.P50}, {"p90", st.P90}, {"p95", st.P95}, {"p99", st.P99}} {
					row(section, l.key+"_"+x.m, x.v, "s")
				}
				if run.Fast != nil {
					f, sl := l.get(run.Fast), l.get(run.Slow)
					row(section, l.key+"_p50_fast", f.P50, "s")
					row(section, l.key+"_p50_slow", sl.P50, "s")
					row(section, l.key+"_p99_fast", f.P99, "s")
					row(section, l.key+"_p99_slow", sl.P99, "s")
				}
			}
			e := run.Expected
			for _, x := range []struct {
				m    string
				v    float64
				unit string
			}{{"offered_rate", e.OfferedRate, "requests/s"}, {"throughput", e.Throughput, "tokens/s"}, {"requests_per_s", e.RequestRate, "requests/s"},
				{"goodput", e.Goodput, "requests/s"}, {"meeting_share", e.MeetingShare, ""}, {"preemptions", float64(e.Preemptions), "requests"},
				{"failed", float64(e.Failed), "requests"}, {"max_kv_use", e.MaxKVUse, ""}} {
				row(section, x.m, x.v, x.unit)
			}
		}
		if r := s.Search(); r != nil {
			row("serve max-rate", "max_rate", r.Expected.MaxRate, "requests/s")
			if r.Fast != nil {
				row("serve max-rate", "max_rate_fast", r.Fast.MaxRate, "requests/s")
				row("serve max-rate", "max_rate_slow", r.Slow.MaxRate, "requests/s")
			}
		}
	}
}

var servedLatencies = []struct {
	key, name string
	get       func(*serve.Result) serve.Stats
}{
	{"ttft", "TTFT", func(x *serve.Result) serve.Stats { return x.TTFT }},
	{"tpot", "TPOT", func(x *serve.Result) serve.Stats { return x.TPOT }},
	{"itl", "ITL", func(x *serve.Result) serve.Stats { return x.ITL }},
	{"e2e", "E2E", func(x *serve.Result) serve.Stats { return x.E2E }},
	{"queue", "queue", func(x *serve.Result) serve.Stats { return x.Queue }},
}

// servingSection is the report's "Serving under load": per rate the
// latency percentiles of every configuration (p99 with its range at the
// interval's ends), throughput and goodput, and the largest rate meeting
// the targets with its range.
func (rep *report) servingSection(doc *Doc) {
	sv := rep.Study.Serve
	if sv == nil {
		return
	}
	doc.Heading(2, "Serving under load")
	var first *app.Serve
	for _, s := range rep.Serving {
		if len(s.Runs) > 0 {
			first = s.Runs[0]
			break
		}
	}
	tg := sv.Request.Targets
	intro := "Requests arriving at a server, queueing and sharing its steps under each runtime's own scheduler (roofline serve, docs/serve.md), on every device engine, model and format of the plan"
	if first != nil {
		w := first.Workload
		text := workloadText(w, first.Run.Expected)
		if w.Arrival != serve.Closed && w.Arrival != serve.Trace {
			// The rates are the tables'.
			arr := map[serve.ArrivalKind]string{serve.Poisson: "Poisson arrivals", serve.Constant: "arrivals at constant gaps",
				serve.Gamma: fmt.Sprintf("gamma arrivals (CV %s)", units.Sig(w.CV, 3))}[w.Arrival]
			_, rest, _ := strings.Cut(text, "; ")
			text = fmt.Sprintf("%d requests of %s at each rate below; %s", first.Run.Expected.Requests, arr, rest)
		}
		intro += ": " + text
	}
	if ch := sv.Request.Scheduler; len(ch.Names()) > 0 {
		intro += "; scheduler knobs set by the study: " + strings.Join(ch.Names(), ", ")
	}
	intro += fmt.Sprintf(". Targets (from %s): p99 TTFT ≤ %s and p99 TPOT ≤ %s; goodput counts the requests meeting both.", sv.TargetsFrom, Duration(tg.TTFT), Duration(tg.TPOT))
	if first != nil && first.Run.Fast != nil {
		intro += fmt.Sprintf(" A range is the same requests with every step at the fast and the slow end of the prediction's %s interval.", levelLabel(first.Run.Level, false))
		// Where an MoE decode's interval is widened (serveWidened), it is
		// said with serve's label: it covers more than its level.
		var widened []string
		for _, s := range rep.Serving {
			if len(s.Runs) > 0 && serveWidened(s.Runs[0]) {
				g := s.Group
				widened = append(widened, fmt.Sprintf("%s %s on %s (%s engine, %s)", g.Model, g.Weights, g.Device, g.Engine, g.Runtime))
			}
		}
		if len(widened) > 0 {
			intro += fmt.Sprintf(" For %s it is the %s interval: the MoE decode's, joined with the range of the runs held out of scope, covering more than its level (the notes say which).", strings.Join(widened, "; "), levelLabel(first.Run.Level, true))
		}
	}
	doc.Para(intro)
	runs := 0
	for _, s := range rep.Serving {
		runs = max(runs, len(s.Runs))
	}
	for i := range runs {
		var head string
		switch {
		case first.Workload.Arrival == serve.Closed:
			head = fmt.Sprintf("A closed loop of %d users", first.Workload.Users)
		case first.Workload.Arrival == serve.Trace && len(sv.Rates) == 0:
			head = "At the trace's own arrival times"
		case first.Workload.Arrival == serve.Trace:
			head = fmt.Sprintf("The trace's arrivals rescaled to %s requests/s", units.Sig(sv.Rates[i], 4))
		case i == 0 && sv.Request.AtMaxRate:
			head = "At the largest rate meeting the targets"
		default:
			head = fmt.Sprintf("At %s requests/s", units.Sig(sv.Rates[i], 4))
		}
		doc.Heading(3, head)
		lat := NewTable("device", "engine", "model", "weights", "TTFT p50", "TTFT p90", "TTFT p99", "TPOT p50", "TPOT p90", "TPOT p99", "E2E p50", "E2E p99", "queue p99").Right(4, 5, 6, 7, 8, 9, 10, 11, 12)
		thr := NewTable("device", "engine", "model", "weights", "rate", "output tok/s", "requests/s", "goodput/s", "meeting", "KV peak", "preemptions", "failed").Right(4, 5, 6, 7, 8, 9, 10, 11)
		for _, s := range rep.Serving {
			if i >= len(s.Runs) {
				continue
			}
			a, g := s.Runs[i], s.Group
			r := a.Run
			e := r.Expected
			p99 := func(get func(*serve.Result) serve.Stats) string {
				v := Duration(get(e).P99)
				if lo, hi, ok := r.Span(func(x *serve.Result) float64 { return get(x).P99 }); ok {
					v += " (" + Duration(lo) + " – " + Duration(hi) + ")"
				}
				return v
			}
			ttft, tpot, e2e, queue := servedLatencies[0].get, servedLatencies[1].get, servedLatencies[3].get, servedLatencies[4].get
			lat.Add(g.Device, g.Engine, g.Model, g.Weights, Duration(e.TTFT.P50), Duration(e.TTFT.P90), p99(ttft), Duration(e.TPOT.P50), Duration(e.TPOT.P90), p99(tpot),
				Duration(e.E2E.P50), p99(e2e), Duration(queue(e).P99))
			rate := units.Sig(a.Workload.Rate, 3) + "/s"
			if a.Workload.Arrival == serve.Closed || (a.Workload.Arrival == serve.Trace && a.Workload.Rate == 0) {
				rate = units.Sig(e.OfferedRate, 3) + "/s offered"
			}
			thr.Add(g.Device, g.Engine, g.Model, g.Weights, rate, units.Sig(e.Throughput, 4), units.Sig(e.RequestRate, 4), units.Sig(e.Goodput, 4),
				Percent1(e.MeetingShare), Percent1(e.MaxKVUse), strconv.Itoa(e.Preemptions), strconv.Itoa(e.Failed))
		}
		doc.Table(lat)
		doc.Table(thr)
	}
	if sv.MaxRate {
		doc.Heading(3, "Largest rate meeting the targets")
		doc.Para(fmt.Sprintf("The largest rate of %s arrivals whose p99 TTFT and p99 TPOT meet the targets with every request completing, found by doubling from what one request at a time sustains and bisecting (roofline serve --max-rate, at most %d rates of %d requests); its range is the same search with every step at the slow and the fast end of the interval.",
			map[serve.ArrivalKind]string{serve.Poisson: "Poisson", serve.Constant: "constant", serve.Gamma: "gamma"}[first.Workload.Arrival], sv.Request.SearchRuns, sv.Request.Workload.Requests))
		t := NewTable("device", "engine", "model", "weights", "runtime", "max rate", "range", "limited by", "rates tried").Right(5, 6, 8)
		for _, s := range rep.Serving {
			g := s.Group
			r := s.Search()
			if r == nil {
				continue
			}
			rng := "–"
			if r.Fast != nil {
				lo := units.Sig(r.Slow.MaxRate, 3)
				if r.Slow.MaxRate == 0 {
					lo = "none"
				}
				rng = lo + " – " + units.Sig(r.Fast.MaxRate, 3) + "/s"
			}
			m := r.Expected
			bound := strings.Join(m.Bound, ", ")
			if m.Capped {
				bound = "none up to the cap"
			}
			rate := units.Sig(m.MaxRate, 3) + "/s"
			if m.MaxRate == 0 {
				rate = fmt.Sprintf("none from %s/s", units.Sig(m.Points[0].Rate, 3))
			}
			t.Add(g.Device, g.Engine, g.Model, g.Weights, g.Runtime, rate, rng, OrDash(bound), strconv.Itoa(len(m.Points)))
		}
		doc.Table(t)
	}
	var none []string
	for _, s := range rep.Serving {
		if s.NoCache {
			g := s.Group
			none = append(none, fmt.Sprintf("%s %s %s %s under %s: the runtime leaves no room for a KV cache; nothing is served", g.Device, g.Engine, g.Model, g.Weights, g.Runtime))
		}
	}
	doc.List(none)
}

// servingSummary is the answer's line per device and model under the
// [serve] table's load: the largest rate meeting the targets of its best
// engine and format, with its range; none without max_rate.
func (rep *report) servingSummary() []string {
	sv := rep.Study.Serve
	if sv == nil || !sv.MaxRate {
		return nil
	}
	type best struct {
		s    *study.Served
		rate float64
	}
	var order []string
	bests := map[string]*best{}
	for i := range rep.Serving {
		s := &rep.Serving[i]
		key := s.Group.Device + "\x00" + s.Group.Model
		b, ok := bests[key]
		if !ok {
			b = &best{rate: -1}
			bests[key] = b
			order = append(order, key)
		}
		if r := s.Search(); r != nil && r.Expected.MaxRate > b.rate {
			b.s, b.rate = s, r.Expected.MaxRate
		}
	}
	tg := sv.Request.Targets
	var out []string
	for _, key := range order {
		device, model, _ := strings.Cut(key, "\x00")
		b := bests[key]
		switch {
		case b.s == nil:
			out = append(out, fmt.Sprintf("Under load, %s on %s: no engine and format has room to serve.", model, device))
		case b.rate == 0:
			out = append(out, fmt.Sprintf("Under load, %s on %s: no rate tried keeps p99 TTFT ≤ %s and p99 TPOT ≤ %s.", model, device, Duration(tg.TTFT), Duration(tg.TPOT)))
		default:
			g, r := b.s.Group, b.s.Search()
			rng := ""
			if r.Fast != nil {
				rng = fmt.Sprintf(", %s – %s/s over the interval", units.Sig(r.Slow.MaxRate, 3), units.Sig(r.Fast.MaxRate, 3))
			}
			out = append(out, fmt.Sprintf("Under load, %s on %s holds up to %s requests/s with p99 TTFT ≤ %s and p99 TPOT ≤ %s (%s %s %s%s).",
				model, device, units.Sig(b.rate, 3), Duration(tg.TTFT), Duration(tg.TPOT), g.Engine, g.Runtime, g.Weights, rng))
		}
	}
	return out
}
