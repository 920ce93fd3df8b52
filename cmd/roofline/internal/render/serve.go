package render

import (
	"fmt"
	"math"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/serve"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// ServeJSON is serve's answer in the JSON vocabulary.
type ServeJSON struct {
	Model      string            `json:"model"`
	Hardware   string            `json:"hardware"`
	Engine     string            `json:"engine"`
	Runtime    string            `json:"runtime"`
	RuntimeWhy string            `json:"runtime_why"`
	Weights    string            `json:"weights"`
	KV         string            `json:"kv"`
	Scheduler  schedulerJSON     `json:"scheduler"`
	Workload   serveWorkloadJSON `json:"workload"`
	TTFTTarget float64           `json:"ttft_target_s"`
	TPOTTarget float64           `json:"tpot_target_s"`
	// Devices is the split served on (absent: one device): a
	// tensor-parallel group, pipeline stages or llama.cpp's RPC boards,
	// or an offload to the host. The scheduler's kv_pool_tokens are the
	// tokens the split holds: in a group each device holds its share of
	// every token's cache; in stages, boards or an offload each memory
	// holds its own layers' cache, the first to fill bounding the pool.
	Devices *serveDevicesJSON `json:"devices,omitempty"`
	// Single is one request of the mean lengths alone (predict's figures).
	Single singleJSON `json:"single_request"`
	// FrontEnd is the front end the requests pass (zeros: none); a lone
	// request's TTFT and E2E are Single's plus its light_s.
	FrontEnd frontEndJSON    `json:"front_end"`
	Result   serveResultJSON `json:"result"`
	Interval *serveRangeJSON `json:"interval"`
	MaxRate  *maxRateJSON    `json:"max_rate,omitempty"`
	// IntervalsWidened names the ranges (interval, max_rate) at the ends
	// of a step-time interval widened for an MoE decode, as predict's
	// intervals_widened does: they cover more than their level.
	IntervalsWidened []string          `json:"intervals_widened,omitempty"`
	Series           []serveSampleJSON `json:"series"`
	Notes            []string          `json:"notes"`
}

type schedulerJSON struct {
	Policy         string   `json:"policy"`
	MaxSeqs        int      `json:"max_seqs"`
	StepTokens     int      `json:"step_tokens"`
	PassTokens     int      `json:"pass_tokens"`
	Chunked        bool     `json:"chunked_prefill"`
	BlockSize      int      `json:"block_size"`
	OnKVFull       string   `json:"on_kv_full"`
	PrefixCaching  bool     `json:"prefix_caching"`
	DividedContext bool     `json:"divided_context"`
	KVTokens       int      `json:"kv_pool_tokens"`
	Context        int      `json:"max_request_tokens"`
	ContextBound   string   `json:"max_request_tokens_bound"`
	Stated         bool     `json:"from_profile"`
	Changed        []string `json:"changed"`
}

type serveWorkloadJSON struct {
	Arrival      string  `json:"arrival"`
	Rate         float64 `json:"rate_per_s,omitempty"`
	CV           float64 `json:"cv,omitempty"`
	Users        int     `json:"users,omitempty"`
	Think        float64 `json:"think_s,omitempty"`
	Requests     int     `json:"requests"`
	Prompt       string  `json:"prompt_tokens"`
	Output       string  `json:"output_tokens"`
	MeanPrompt   float64 `json:"mean_prompt_tokens"`
	MeanOutput   float64 `json:"mean_output_tokens"`
	SharedPrefix int     `json:"shared_prefix_tokens"`
	Seed         uint64  `json:"seed"`
	File         string  `json:"file,omitempty"`
}

type serveDevicesJSON struct {
	Count          int     `json:"count"`
	TensorParallel int     `json:"tensor_parallel"`
	ExpertParallel bool    `json:"expert_parallel"`
	Link           string  `json:"link"`
	LinkTPOT       float64 `json:"link_tpot_s"`
	// Offload: the layers on the GPU as llama.cpp counts them, of
	// Layers, the rest in the host's memory on its CPU.
	Offload   bool `json:"offload,omitempty"`
	GPULayers int  `json:"gpu_layers,omitempty"`
	Layers    int  `json:"layers,omitempty"`
	// PipelineStages are a pipeline's stages (or RPC boards), each of
	// TensorParallel devices; absent without one.
	PipelineStages int `json:"pipeline_stages,omitempty"`
}

type frontEndJSON struct {
	Latency float64 `json:"latency_s"`
	Request float64 `json:"request_s"`
	Token   float64 `json:"token_s"`
	Light   float64 `json:"light_load_s"`
	Busy    float64 `json:"busy_share"`
	// Batch is the most requests taken in together (0: one at a time).
	Batch int `json:"batch,omitzero"`
}

type singleJSON struct {
	Prompt int      `json:"prompt_tokens"`
	Output int      `json:"output_tokens"`
	TTFT   float64  `json:"ttft_s"`
	TPOT   *float64 `json:"tpot_s"`
	E2E    float64  `json:"e2e_s"`
}

type statsJSON struct {
	N    int      `json:"n"`
	Mean *float64 `json:"mean_s"`
	P50  *float64 `json:"p50_s"`
	P90  *float64 `json:"p90_s"`
	P95  *float64 `json:"p95_s"`
	P99  *float64 `json:"p99_s"`
	Max  *float64 `json:"max_s"`
}

func newStatsJSON(s serve.Stats) statsJSON {
	return statsJSON{s.N, num(s.Mean), num(s.P50), num(s.P90), num(s.P95), num(s.P99), num(s.Max)}
}

type serveResultJSON struct {
	Requests     int       `json:"requests"`
	Completed    int       `json:"completed"`
	Failed       int       `json:"failed"`
	Clamped      int       `json:"clamped_lengths"`
	DurationS    float64   `json:"duration_s"`
	OfferedRate  float64   `json:"offered_rate_per_s"`
	TTFT         statsJSON `json:"ttft"`
	TPOT         statsJSON `json:"tpot"`
	ITL          statsJSON `json:"itl"`
	E2E          statsJSON `json:"e2e"`
	Queue        statsJSON `json:"queue"`
	Throughput   float64   `json:"output_tokens_per_s"`
	RequestRate  float64   `json:"requests_per_s"`
	Goodput      float64   `json:"goodput_requests_per_s"`
	MeetingShare float64   `json:"meeting_share"`
	Preemptions  int       `json:"preemptions"`
	MeanInSystem float64   `json:"mean_in_system"`
	MeanRunning  float64   `json:"mean_running"`
	MaxKVUse     float64   `json:"max_kv_use"`
	Steps        int       `json:"steps"`
}

func newServeResultJSON(r *serve.Result) serveResultJSON {
	return serveResultJSON{r.Requests, r.Completed, r.Failed, r.Clamped, r.Duration, r.OfferedRate,
		newStatsJSON(r.TTFT), newStatsJSON(r.TPOT), newStatsJSON(r.ITL), newStatsJSON(r.E2E), newStatsJSON(r.Queue),
		r.Throughput, r.RequestRate, r.Goodput, r.MeetingShare, r.Preemptions, r.MeanInSystem, r.MeanRunning, r.MaxKVUse, r.Steps}
}

type serveRangeJSON struct {
	Level float64         `json:"level"`
	Fast  serveResultJSON `json:"fast"`
	Slow  serveResultJSON `json:"slow"`
}

type ratePointJSON struct {
	Rate        float64   `json:"rate_per_s"`
	TTFT        statsJSON `json:"ttft"`
	TPOT        statsJSON `json:"tpot"`
	E2E         statsJSON `json:"e2e"`
	Throughput  float64   `json:"output_tokens_per_s"`
	Goodput     float64   `json:"goodput_requests_per_s"`
	Failed      int       `json:"failed"`
	Preemptions int       `json:"preemptions"`
	Meets       bool      `json:"meets"`
	Misses      []string  `json:"misses"`
}

type maxRateJSON struct {
	MaxRate float64 `json:"max_rate_per_s"`
	// The largest rates with every step at the fast and the slow end of
	// the interval at Level, when the search ran there too.
	Fast   *float64        `json:"fast_end_max_rate_per_s,omitempty"`
	Slow   *float64        `json:"slow_end_max_rate_per_s,omitempty"`
	Level  float64         `json:"level,omitempty"`
	Bound  []string        `json:"bound"`
	Capped bool            `json:"capped"`
	Points []ratePointJSON `json:"points"`
}

type serveSampleJSON struct {
	T           float64 `json:"t_s"`
	Waiting     int     `json:"waiting"`
	Running     int     `json:"running"`
	KVUse       float64 `json:"kv_use"`
	Preemptions int     `json:"preemptions"`
}

// NewServeJSON is a serving run in the JSON vocabulary.
func NewServeJSON(a *app.Serve) ServeJSON {
	in, sv, w, s := a.Inputs, a.Server, a.Workload, a.Scheduler
	j := ServeJSON{Model: in.Model, Hardware: in.Device, Engine: in.Engine, Runtime: in.Runtime, RuntimeWhy: a.RuntimeWhy, Weights: in.Weights, KV: in.KV,
		Scheduler: schedulerJSON{string(s.Policy), s.MaxSeqs, sv.StepTokens, sv.PassTokens, s.Chunked, s.BlockSize, string(s.OnFull), s.PrefixCaching, s.DividedContext,
			sv.KVTokens(), sv.Context, sv.ContextBound, s.Stated, a.Changed},
		Workload: serveWorkloadJSON{Arrival: w.Arrival.String(), Rate: w.Rate, CV: w.CV, Users: w.Users, Think: w.Think, Requests: a.Run.Expected.Requests,
			Prompt: lengthsText(w, true), Output: lengthsText(w, false), MeanPrompt: w.MeanPrompt(), MeanOutput: w.MeanOutput(), SharedPrefix: w.SharedPrefix, Seed: w.Seed, File: w.File},
		TTFTTarget: a.Targets.TTFT, TPOTTarget: a.Targets.TPOT,
		Single: singleJSON{a.Single.Inputs.Workload.Prompt, a.Single.Inputs.Workload.Output, a.Single.TTFT, num(a.Single.TPOT), a.Single.E2E},
		Result: newServeResultJSON(a.Run.Expected), Notes: append(append([]string{}, a.Choices...), a.Notes...)}
	if sp := a.Single.Split; sp != nil {
		j.Devices = &serveDevicesJSON{Count: sp.Devices, TensorParallel: sp.TP, ExpertParallel: sp.EP, Link: sp.Link, LinkTPOT: sp.TransferTPOT + sp.CollectiveTPOT}
		if sp.Kind == sim.Offload {
			j.Devices.Offload, j.Devices.GPULayers, j.Devices.Layers = true, sp.GPULayers, sp.Layers
		}
		if sp.PP > 1 {
			j.Devices.PipelineStages = sp.PP
		}
	}
	if f := sv.FrontEnd; f.On() {
		j.FrontEnd = frontEndJSON{f.Latency, f.Request, f.Token, f.Light(), a.Run.Expected.FrontEndUse, f.Batch}
	}
	if a.Run.Fast != nil {
		j.Interval = &serveRangeJSON{a.Run.Level, newServeResultJSON(a.Run.Fast), newServeResultJSON(a.Run.Slow)}
		if serveWidened(a) {
			j.IntervalsWidened = append(j.IntervalsWidened, "interval")
		}
	}
	for _, p := range a.Run.Expected.Series {
		j.Series = append(j.Series, serveSampleJSON{p.T, p.Waiting, p.Running, p.KVUse, p.Preemptions})
	}
	if m := a.Search; m != nil {
		j.MaxRate = &maxRateJSON{MaxRate: m.MaxRate, Bound: m.Bound, Capped: m.Capped}
		if r := a.SearchRange; r != nil && r.Fast != nil {
			j.MaxRate.Fast, j.MaxRate.Slow, j.MaxRate.Level = num(r.Fast.MaxRate), num(r.Slow.MaxRate), r.Level
			if serveWidened(a) {
				j.IntervalsWidened = append(j.IntervalsWidened, "max_rate")
			}
		}
		for _, p := range m.Points {
			j.MaxRate.Points = append(j.MaxRate.Points, ratePointJSON{p.Rate, newStatsJSON(p.TTFT), newStatsJSON(p.TPOT), newStatsJSON(p.E2E), p.Throughput, p.Goodput, p.Failed, p.Preemptions, p.Meets, p.Misses})
		}
	}
	return j
}

// serveWidened says that the step-time interval behind serve's ranges is
// widened for an MoE decode (sim.Interval.Widened), as predict's interval
// of the lone request of the mean lengths is: "80% widened", not "80%".
func serveWidened(a *app.Serve) bool {
	return a.Single != nil && a.Single.TPOTInterval != nil && a.Single.TPOTInterval.Widened
}

// lengthsText is a workload's prompt or output lengths in words.
func lengthsText(w serve.Workload, prompt bool) string {
	if len(w.Rows) > 0 && (w.FromFile || w.Arrival == serve.Trace) {
		return "from " + w.File
	}
	if prompt {
		return w.Prompt.String()
	}
	return w.Output.String()
}

// Serve is `roofline serve`.
func Serve(a *app.Serve) Answer {
	return answer{doc: func() *Doc { return serveDoc(a) }, data: func() any { return NewServeJSON(a) }, table: func() *Table { return serveRecords(a.Run.Expected) },
		warnings: append(append([]string{}, a.Choices...), a.Notes...)}
}

// serveRecords is the CSV form: one row per request.
func serveRecords(r *serve.Result) *Table {
	t := &Table{}
	for _, k := range []string{"request", "arrival_s", "start_s", "first_token_s", "finish_s", "prompt_tokens", "output_tokens", "ttft_s", "tpot_s", "e2e_s", "queue_s", "preemptions", "failed"} {
		t.Cols = append(t.Cols, Col{Key: k})
	}
	opt := func(v float64) Cell {
		if math.IsNaN(v) || v < 0 {
			return D("")
		}
		return D(v)
	}
	for i, rec := range r.Records {
		ttft, e2e, tpot := rec.TTFT(), rec.E2E(), rec.TPOT()
		if rec.Failed {
			ttft, e2e, tpot = math.NaN(), math.NaN(), math.NaN()
			if rec.First >= 0 {
				ttft = rec.TTFT()
			}
		}
		t.AddCells(D(i), D(rec.Arrival), opt(rec.Start), opt(rec.First), D(rec.Finish), D(rec.Prompt), D(rec.Output),
			opt(ttft), opt(tpot), opt(e2e), opt(rec.Queue()), D(rec.Preemptions), D(rec.Failed))
	}
	return t
}

func serveDoc(a *app.Serve) *Doc {
	in, sv, w, res := a.Inputs, a.Server, a.Workload, a.Run.Expected
	doc := &Doc{}
	device, kvEach := in.Device, ""
	sp := a.Single.Split
	offload := sp != nil && sp.Kind == sim.Offload
	switch {
	case offload:
		device, kvEach = in.Device+" and its host", ", each memory holding its own layers' cache, the first to fill bounding it"
	case sp != nil && (sp.PP > 1 || sp.Kind == sim.Network):
		device, kvEach = fmt.Sprintf("%d × %s", sp.Devices, in.Device), ", each stage holding its own layers' cache, the first to fill bounding it"
	case sp != nil:
		device, kvEach = fmt.Sprintf("%d × %s", sp.Devices, in.Device), ", each device holding its share of every token's"
	}
	title := fmt.Sprintf("%s on %s (%s engine, %s, weights %s, KV %s)", in.Model, device, in.Engine, in.Runtime, in.Weights, in.KV)
	doc.Raw(title+"\n", "## "+title+"\n\n")
	doc.Line("runtime: %s: %s", in.Runtime, a.RuntimeWhy)
	if in.ThreadsNote != "" {
		doc.Line("threads: %s", in.ThreadsNote)
	}
	if sp != nil {
		l := fmt.Sprintf("devices: tensor parallel %d over %s%s, every step on all at once", sp.TP, sp.Link, map[bool]string{true: ", experts spread over them", false: ""}[sp.EP])
		switch {
		case sp.Kind == sim.Network:
			l = fmt.Sprintf("devices: %d boards over %s (llama.cpp RPC), each a run of layers, every pass through them in turn", sp.PP, sp.Link)
		case sp.PP > 1:
			// As the pricer steps (sim.Split.Overlap): llama.cpp's -ub
			// passes of a step, vLLM's micro-batches in flight.
			flow := "every pass through them in turn"
			switch a.Server.Split.Overlap() {
			case sim.UBatchOverlap:
				flow = "a step's passes overlapping from stage to stage"
			case sim.VirtualEngines:
				flow = "a step's micro-batches overlapping from stage to stage"
			}
			l = fmt.Sprintf("devices: %d pipeline stages of tensor parallel %d over %s, each a run of layers, %s", sp.PP, sp.TP, sp.Link, flow)
			if sp.Between != "" {
				l += fmt.Sprintf(", %s between the groups", sp.Between)
			}
		}
		if offload {
			l = fmt.Sprintf("offload: %d of %d layers on the GPU as llama.cpp counts them (the output layer one), the rest in host memory on its CPU; every pass runs the host's layers and the GPU's in turn", sp.GPULayers, sp.Layers)
			if sp.ExpertLayers > 0 {
				l += fmt.Sprintf(", the routed experts of %d layers on the CPU", sp.ExpertLayers)
			}
			if sp.Link != "" {
				l += " over " + sp.Link
			}
		}
		if link := sp.TransferTPOT + sp.CollectiveTPOT; a.Single.TPOT > 0 && link > 0 {
			l += fmt.Sprintf("; the links take %.1f%% of a lone request's token time (%s of %s)", 100*link/a.Single.TPOT, Duration(link), Duration(a.Single.TPOT))
		}
		doc.Line("%s", l)
	}
	sched := app.SchedulerText(a.Scheduler)
	if len(a.Changed) > 0 {
		sched += " (changed: " + strings.Join(a.Changed, ", ") + ")"
	}
	doc.Line("scheduler: %s", sched)
	blocks := fmt.Sprintf("%d blocks", sv.Blocks)
	if sv.FreesWindows() {
		blocks = fmt.Sprintf("%d blocks of %d layers, a sliding layer's freed once its window leaves them", sv.Blocks, sv.PageLayers())
	}
	doc.Line("KV cache: %d tokens in %s%s; a request holds at most %d tokens (%s)", sv.KVTokens(), blocks, kvEach, sv.Context, serveBoundText(sv.ContextBound))
	doc.Line("workload: %s", workloadText(w, res))
	single := a.Single
	doc.Line("one request of %d + %d tokens alone: TTFT %s, TPOT %s, E2E %s (predict)", single.Inputs.Workload.Prompt, single.Inputs.Workload.Output,
		Duration(single.TTFT), Duration(single.TPOT), Duration(single.E2E))
	if f := sv.FrontEnd; f.On() {
		batch := ""
		if f.Batch > 1 {
			batch = fmt.Sprintf(", taking up to %d waiting requests in together", f.Batch)
		}
		doc.Line("front end: %s latency, %s a request and %s a streamed token of serial work%s: +%s on a lone request's TTFT and E2E; busy %s of the run",
			Duration(f.Latency), Duration(f.Request), Duration(f.Token), batch, Duration(f.Light()), Percent1(res.FrontEndUse))
	} else {
		doc.Line("front end: none (the engine's steps alone)")
	}

	doc.Section("latency", true)
	doc.Table(latencyTable(a.Run))
	if a.Run.Fast != nil {
		doc.Line("RANGE: the same requests with every step at the fast and the slow end of the prediction's %s interval%s%s", levelLabel(a.Run.Level, serveWidened(a)), frontEndEnds(sv), outsideEnds(a.Run))
	}
	doc.Section("throughput", true)
	doc.Line("%d completed in %s: %s output tokens/s, %s requests/s (offered %s/s)", res.Completed, Duration(res.Duration),
		units.Sig(res.Throughput, 4), units.Sig(res.RequestRate, 4), units.Sig(res.OfferedRate, 4))
	if a.Targets.TTFT > 0 || a.Targets.TPOT > 0 {
		doc.Line("goodput: %s requests/s meet TTFT %s and TPOT %s (%s of them)", units.Sig(res.Goodput, 4), Duration(a.Targets.TTFT), Duration(a.Targets.TPOT), Percent1(res.MeetingShare))
	}
	doc.Line("on average %s requests in the system, %s running; KV cache peak %s; %d preemptions; %d failed", units.Sig(res.MeanInSystem, 3), units.Sig(res.MeanRunning, 3),
		Percent1(res.MaxKVUse), res.Preemptions, res.Failed)
	if pts := res.Series; len(pts) > 0 {
		doc.Section("over time", true)
		t := NewTable("TIME", "WAITING", "RUNNING", "KV USE", "PREEMPTIONS").Right(0, 1, 2, 3, 4)
		step := max(1, len(pts)/10)
		for i := 0; i < len(pts); i += step {
			p := pts[i]
			t.Add(Duration(p.T), fmt.Sprint(p.Waiting), fmt.Sprint(p.Running), Percent1(p.KVUse), fmt.Sprint(p.Preemptions))
		}
		doc.Table(t)
	}
	if m := a.Search; m != nil {
		doc.Section("max rate", true)
		t := NewTable("RATE/S", "P50 TTFT", "P99 TTFT", "P50 TPOT", "P99 TPOT", "TOKENS/S", "GOODPUT/S", "MISSES").Right(0, 1, 2, 3, 4, 5, 6)
		for _, p := range m.Points {
			t.Add(units.Sig(p.Rate, 4), Duration(p.TTFT.P50), Duration(p.TTFT.P99), Duration(p.TPOT.P50), Duration(p.TPOT.P99), units.Sig(p.Throughput, 4), units.Sig(p.Goodput, 4), strings.Join(p.Misses, ", "))
		}
		doc.Table(t)
		targets := fmt.Sprintf("p99 TTFT ≤ %s and p99 TPOT ≤ %s", Duration(a.Targets.TTFT), Duration(a.Targets.TPOT))
		switch {
		case m.MaxRate == 0:
			doc.Line("no rate tried meets %s", targets)
		case m.Capped:
			doc.Line("every rate up to %s requests/s meets %s", units.Sig(m.MaxRate, 4), targets)
		default:
			doc.Line("largest rate meeting %s: %s requests/s (a faster one misses %s)", targets, units.Sig(m.MaxRate, 3), strings.Join(m.Bound, ", "))
		}
		if r := a.SearchRange; r != nil && r.Fast != nil {
			ends := fmt.Sprintf("with every step at the slow and the fast end of the prediction's %s interval%s:", levelLabel(r.Level, serveWidened(a)), frontEndEnds(a.Server))
			switch {
			case r.Fast.MaxRate == 0:
				doc.Line("%s no rate tried meets them at either end", ends)
			case r.Slow.MaxRate == 0:
				doc.Line("%s none tried meets them at the slow end, %s requests/s at the fast end", ends, units.Sig(r.Fast.MaxRate, 3))
			default:
				doc.Line("%s %s – %s requests/s", ends, units.Sig(r.Slow.MaxRate, 3), units.Sig(r.Fast.MaxRate, 3))
			}
		}
	}
	notes := append(append([]string{}, a.Choices...), a.Notes...)
	if len(notes) > 0 {
		s := "\n"
		for i, n := range notes {
			s += fmt.Sprintf("note %d: %s\n", i+1, n)
		}
		doc.Both(s)
	}
	return doc
}

func serveBoundText(b string) string {
	switch b {
	case "slot":
		return "a slot's share of the context"
	case "memory":
		return "the KV pool"
	case sim.BoundByBuild:
		return "a row of the engine's KV cache, allocated at load for the length it is built for: --max-context"
	}
	return "the model's maximum context"
}

// workloadText is the workload in words.
func workloadText(w serve.Workload, r *serve.Result) string {
	var arr string
	switch w.Arrival {
	case serve.Poisson:
		arr = fmt.Sprintf("Poisson arrivals at %s/s", units.Sig(w.Rate, 4))
	case serve.Constant:
		arr = fmt.Sprintf("one arrival every %s", Duration(1/w.Rate))
	case serve.Gamma:
		arr = fmt.Sprintf("gamma arrivals at %s/s, CV %s", units.Sig(w.Rate, 4), units.Sig(w.CV, 3))
	case serve.Closed:
		arr = fmt.Sprintf("a closed loop of %d users thinking %s between answers", w.Users, Duration(w.Think))
	case serve.Trace:
		arr = "arrivals as " + w.File + " recorded them"
		if w.Rate > 0 {
			arr = fmt.Sprintf("arrivals of %s rescaled to %s/s", w.File, units.Sig(w.Rate, 4))
		}
	}
	s := fmt.Sprintf("%d requests, %s; prompts %s, outputs %s tokens (means %s and %s)", r.Requests, arr,
		lengthsText(w, true), lengthsText(w, false), units.Sig(w.MeanPrompt(), 4), units.Sig(w.MeanOutput(), 4))
	if w.SharedPrefix > 0 {
		s += fmt.Sprintf("; a %d-token shared prefix", w.SharedPrefix)
	}
	return s + fmt.Sprintf("; seed %d", w.Seed)
}

// outsideEnds says when an expected p50 or p99 lies outside the ends'
// figures, which the range then stretches to hold.
func outsideEnds(r *serve.Ranged) string {
	for _, row := range servedLatencies {
		for _, pct := range []func(serve.Stats) float64{func(s serve.Stats) float64 { return s.P50 }, func(s serve.Stats) float64 { return s.P99 }} {
			e, f, sl := pct(row.get(r.Expected)), pct(row.get(r.Fast)), pct(row.get(r.Slow))
			if e < min(f, sl) || e > max(f, sl) {
				return ", stretched to hold the expected run where it lies outside them (the step times change which requests share a step: faster steps bring a closed loop's users back sooner, into fuller batches)"
			}
		}
	}
	return ""
}

// latencyTable is the percentiles of each latency, with the p50 and p99
// ranges at the interval's ends.
func latencyTable(r *serve.Ranged) *Table {
	heads := []string{"", "MEAN", "P50", "P90", "P95", "P99", "MAX"}
	if r.Fast != nil {
		heads = append(heads, "P50 RANGE", "P99 RANGE")
	}
	t := NewTable(heads...).Right(1, 2, 3, 4, 5, 6)
	rows := []struct {
		name string
		get  func(*serve.Result) serve.Stats
	}{
		{"TTFT", func(x *serve.Result) serve.Stats { return x.TTFT }},
		{"TPOT", func(x *serve.Result) serve.Stats { return x.TPOT }},
		{"ITL", func(x *serve.Result) serve.Stats { return x.ITL }},
		{"E2E", func(x *serve.Result) serve.Stats { return x.E2E }},
		{"queue", func(x *serve.Result) serve.Stats { return x.Queue }},
	}
	for _, row := range rows {
		s := row.get(r.Expected)
		cells := []string{row.name, Duration(s.Mean), Duration(s.P50), Duration(s.P90), Duration(s.P95), Duration(s.P99), Duration(s.Max)}
		if lo50, hi50, ok := r.Span(func(x *serve.Result) float64 { return row.get(x).P50 }); ok {
			lo99, hi99, _ := r.Span(func(x *serve.Result) float64 { return row.get(x).P99 })
			cells = append(cells, Duration(lo50)+" – "+Duration(hi50), Duration(lo99)+" – "+Duration(hi99))
		}
		t.Add(cells...)
	}
	return t
}

// frontEndEnds says that the interval's ends ran the front end at its
// range's ends, where they differ from its fitted figures.
func frontEndEnds(sv *serve.Server) string {
	if e := sv.FrontEndEnds; e[0] == sv.FrontEnd && e[1] == sv.FrontEnd {
		return ""
	}
	return ", and the front end at the low and the high end of its figures' range"
}
