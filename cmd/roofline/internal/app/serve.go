package app

import (
	"errors"
	"fmt"

	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/safeio"
	"github.com/roofline/roofline/serve"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// ServeRequest is a serving simulation on one setup: the workload, the
// runtime's scheduler with what the user changed of it, the latency
// targets, and whether to search the largest rate meeting them.
type ServeRequest struct {
	Setup     Selection
	Workload  serve.Workload
	Scheduler SchedulerChanges
	// UBatch is the prefill chunk of a runtime whose scheduler states no
	// step budget (FIFO), and of the reference prediction.
	UBatch int
	// KVTokens replaces the KV pool memory leaves, tokens (0 keeps it).
	KVTokens int
	// MemoryShare replaces the runtime's share of usable memory (vLLM
	// --gpu-memory-utilization; 0 keeps it).
	MemoryShare float64
	// Headroom is the share of usable memory kept free (plan --headroom,
	// serve.Options.Headroom).
	Headroom float64
	Targets  serve.Targets
	// Search runs the max-rate search in SearchRuns runs (0: none).
	SearchRuns int
	// SearchInterval repeats the search at the ends of the step-time
	// interval (Serve.SearchRange); AtMaxRate runs the workload at the
	// largest rate the search finds (at the lowest rate it tried when none
	// meets the targets) in place of Workload.Rate.
	SearchInterval, AtMaxRate bool
	// Level is the step-time interval's coverage (0.8).
	Level float64
	// FrontEnd, when set, replaces the runtime's front end (its profile's
	// [front_end], none for a runtime without one); the zero FrontEnd
	// switches it off. FrontEndEnds are the interval's ends of it (zero:
	// FrontEnd at both).
	FrontEnd     *serve.FrontEnd
	FrontEndEnds [2]serve.FrontEnd
	// Trace is a trace file of lengths (and arrival times), read in
	// TraceFormat with ShareGPT's text counted at CharsPerToken.
	Trace         string
	TraceFormat   serve.TraceFormat
	CharsPerToken float64
	// Spread serves on a tensor-parallel group of devices like the one
	// selected (Devices, TP, EP and the link; a system's name gives its
	// own); the zero Spread, one device.
	Spread Spread
}

// SchedulerChanges are the knobs of a runtime's scheduler a user set;
// zero values (nil) keep the runtime's.
type SchedulerChanges struct {
	Policy                                    runtimes.Policy
	MaxSeqs, MaxTokens, PassTokens, BlockSize int
	Chunked, PrefixCaching, DividedContext    *bool
	Async                                     *bool
	OnFull                                    runtimes.OnFull
}

// Apply is the scheduler with the changes.
func (c SchedulerChanges) Apply(s runtimes.Scheduler) runtimes.Scheduler {
	if c.Policy != "" {
		s.Policy = c.Policy
		switch c.Policy {
		case runtimes.FIFO:
			s.MaxSeqs = 1
		case runtimes.Static:
			// A static batch's prompts are whole and unshared
			// (runtimes.Static); --max-seqs sets its rows.
			s.Chunked, s.PrefixCaching = false, false
		}
	}
	for _, f := range []struct {
		v   int
		dst *int
	}{{c.MaxSeqs, &s.MaxSeqs}, {c.MaxTokens, &s.MaxTokens}, {c.PassTokens, &s.PassTokens}, {c.BlockSize, &s.BlockSize}} {
		if f.v != 0 {
			*f.dst = f.v
		}
	}
	for _, f := range []struct {
		v   *bool
		dst *bool
	}{{c.Chunked, &s.Chunked}, {c.PrefixCaching, &s.PrefixCaching}, {c.DividedContext, &s.DividedContext}, {c.Async, &s.Async}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	if c.OnFull != "" {
		s.OnFull = c.OnFull
	}
	return s
}

// Serve is serve's answer.
type Serve struct {
	Inputs     sim.Inputs
	RuntimeWhy string
	Choices    []string
	// Scheduler is the one simulated: the runtime's (for the device) with
	// the user's changes; Changed lists the knobs the user set.
	Scheduler runtimes.Scheduler
	Changed   []string
	// Server is the resolved server: its step and pass budgets, KV pool
	// and the longest request.
	Server   *serve.Server
	Workload serve.Workload
	Targets  serve.Targets
	Run      *serve.Ranged
	Search   *serve.RateSearch
	// SearchRange is the search at the interval's ends too, when asked
	// (its Expected is Search).
	SearchRange *serve.RateRange
	// Single is a lone request of the mean lengths, as predict prices it:
	// what the server gives with nothing else running.
	Single *sim.Result
	Notes  []string
}

// frontEndOf is the front end a serve request runs with, its interval's
// ends, and the note that says so: the user's, the runtime's fitted one,
// or none.
func frontEndOf(req ServeRequest, rt *runtimes.Runtime) (serve.FrontEnd, [2]serve.FrontEnd, string) {
	if f := req.FrontEnd; f != nil {
		if !f.On() {
			return *f, [2]serve.FrontEnd{}, "front end off (--front-end off): the engine's steps alone, as predict prices them; a real server adds its HTTP, tokenizing and streaming time (docs/serve.md, \"The front end\")"
		}
		return *f, req.FrontEndEnds, fmt.Sprintf("front end as given: %s", FrontEndText(*f))
	}
	if !rt.FrontEnd.Stated {
		return serve.FrontEnd{}, [2]serve.FrontEnd{}, fmt.Sprintf("not simulated: %s's front end (HTTP, tokenizing, streaming); no published serving runs of %s stand behind one, so TTFT and E2E are the engine's steps alone (vLLM's, fitted, adds about 20 ms a request at light load; --front-end sets one, docs/serve.md, \"The front end\")", rt.Name, rt.Name)
	}
	f, ends := RuntimeFrontEnd(rt)
	return f, ends, fmt.Sprintf("front end: %s, its serial work capping %s at %.3g requests/s of this workload's output (%s; the interval's ends take its spread over held-out fits; --front-end off for the engine alone)", FrontEndText(f), rt.Name, f.Ceiling(req.Workload.MeanOutput()), rt.FrontEnd.Basis)
}

// RuntimeFrontEnd is a runtime's fitted front end ([front_end] in its
// profile) and its interval's fast and slow ends; none for a runtime
// without one.
func RuntimeFrontEnd(rt *runtimes.Runtime) (serve.FrontEnd, [2]serve.FrontEnd) {
	fe := rt.FrontEnd
	if !fe.Stated {
		return serve.FrontEnd{}, [2]serve.FrontEnd{}
	}
	f := serve.FrontEnd{Latency: fe.Latency.Value, Request: fe.Request.Value, Token: fe.Token.Value}
	return f, [2]serve.FrontEnd{
		{Latency: fe.Latency.Low, Request: fe.Request.Low, Token: fe.Token.Low},
		{Latency: fe.Latency.High, Request: fe.Request.High, Token: fe.Token.High},
	}
}

// FrontEndText says a front end's figures in words.
func FrontEndText(f serve.FrontEnd) string {
	s := fmt.Sprintf("%s latency + %s of serial work a request + %s a streamed token", msText(f.Latency), msText(f.Request), msText(f.Token))
	if f.Batch > 1 {
		s += fmt.Sprintf(", taking up to %d waiting requests in together", f.Batch)
	}
	return s
}

func msText(s float64) string {
	if s != 0 && s < 1e-3 {
		return fmt.Sprintf("%.3g µs", s*1e6)
	}
	return fmt.Sprintf("%.3g ms", s*1e3)
}

// Serve simulates the workload on the selection's runtime.
func (env *Env) Serve(req ServeRequest) (*Serve, error) {
	var notes []string
	if req.Trace != "" {
		var err error
		if notes, err = ReadServeTrace(&req); err != nil {
			return nil, err
		}
	}
	if err := req.Workload.Validate(); err != nil {
		return nil, err
	}
	out, err := env.server(req)
	if err != nil {
		return nil, err
	}
	out.Notes = append(notes, out.Notes...)
	sv := out.Server
	level := req.Level
	if level == 0 {
		level = runtimes.IntervalLevel
	}
	w := req.Workload
	if req.SearchRuns > 0 {
		if req.SearchInterval {
			if out.SearchRange, err = sv.MaxRateInterval(w, req.Targets, req.SearchRuns, level); err != nil {
				return nil, err
			}
			out.Search = out.SearchRange.Expected
		} else if out.Search, err = sv.MaxRate(w, req.Targets, req.SearchRuns); err != nil {
			return nil, err
		}
		if req.AtMaxRate {
			if w.Rate = out.Search.MaxRate; w.Rate == 0 {
				w.Rate = out.Search.Points[0].Rate
				out.Notes = append(out.Notes, fmt.Sprintf("no rate tried meets the targets: the run is at the lowest rate tried, %.3g requests/s", w.Rate))
			}
			out.Workload = w
		}
	}
	if out.Run, err = sv.RunInterval(w, req.Targets, level); err != nil {
		return nil, err
	}
	if c := out.Run.Expected.Clamped; c > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d requests' drawn lengths were cut to the %d tokens a request may hold (%s)", c, sv.Context, boundText(sv.ContextBound)))
	}
	if out.Run.Fast == nil {
		out.Notes = append(out.Notes, "flags replaced the efficiency: no interval stands behind the step times")
	}
	if n := sv.Setup.Inputs.MoEDecodeNote; n != "" {
		out.Notes = append(out.Notes, n+" (the RANGE columns' decode steps take it)")
	}
	if g := sv.Setup.Inputs; g.GraphCapture != out.Inputs.GraphCapture {
		out.Notes = append(out.Notes, fmt.Sprintf("%s's CUDA graphs are captured for steps of up to %d tokens under %d sequences (%d under its default): a larger step runs without one, %s a layer more", sv.Setup.Runtime.Name, g.GraphCapture, out.Scheduler.MaxSeqs, out.Inputs.GraphCapture, units.FormatDuration(g.Graphs.Eager)))
	}
	p, err := sv.Predict(sim.Workload{Prompt: max(1, int(w.MeanPrompt()+0.5)), Output: max(1, int(w.MeanOutput()+0.5)), Batch: 1, UBatch: sv.PassTokens})
	if err != nil {
		return nil, err
	}
	out.Single = p
	return out, nil
}

// server resolves a serve request into the server it runs on (Serve.Server)
// with the choices and notes that say how: the selection's setup, its
// runtime's scheduler with the request's changes, the tensor-parallel
// group or the offload to the host, and the front end. Serve runs its
// workload on it; plan --rate searches its rate (Plan.maxRates): one
// server, built once, for both.
func (env *Env) server(req ServeRequest) (*Serve, error) {
	sel, spread := req.Setup, req.Spread
	sysNote, _ := spread.system(&sel)
	res, err := env.Resolve(sel)
	if err != nil {
		return nil, err
	}
	s := res.Setup
	sch := req.Scheduler.Apply(s.Scheduler())
	out := &Serve{Inputs: s.Inputs, RuntimeWhy: res.Choice.Why, Choices: res.Notes, Scheduler: sch, Changed: req.Scheduler.Names(),
		Workload: req.Workload, Targets: req.Targets}
	if sysNote != "" {
		out.Choices = append(out.Choices, sysNote)
	}
	var split *sim.Split
	if spread.parallel() && spread.offload() {
		return nil, &RequestError{Msg: "--gpu-layers, --cpu-moe and --n-cpu-moe place a model between one GPU and its host; they do not combine with --devices, --tp or --ep"}
	}
	if spread.parallel() {
		// The split is built on the setup whose CUDA graphs follow the
		// scheduler's max_num_seqs, as serve.New would make it.
		if split, out.Choices, err = env.parallel(s.WithMaxSeqs(sch.MaxSeqs), spread, out.Choices); err != nil {
			return nil, err
		}
		out.Choices = append(out.Choices, split.Notes...)
		if n, how := pipelined(split); how != "" {
			out.Choices = append(out.Choices, fmt.Sprintf("%s runs %d devices %s: each step goes through the stages, %s", s.Runtime.Name, n, how, overlapText(split)))
		}
	} else {
		// Offload as predict does (the one placement, env.split): asked
		// for, or llama.cpp's --fit when the model does not fit the
		// device, placed for the scheduler's sequences at the mean
		// lengths.
		w := sim.Workload{Prompt: max(1, int(req.Workload.MeanPrompt()+0.5)), Output: max(1, int(req.Workload.MeanOutput()+0.5)), Batch: max(sch.MaxSeqs, 1), UBatch: serveUBatch(req, sch)}
		if split, out.Choices, err = env.split(res, sel, spread, w, out.Choices); err != nil {
			return nil, err
		}
		if split != nil {
			if split.Kind != sim.Offload {
				return nil, &RequestError{Input: "Devices", Msg: fmt.Sprintf("serve does not step a %s split", split.Kind), Err: ErrNotStepped}
			}
			out.Choices = append(out.Choices, split.Notes...)
			out.Choices = append(out.Choices, split.Describe()...)
		}
	}
	fe, feEnds, feNote := frontEndOf(req, s.Runtime)
	out.Notes = append(out.Notes, feNote)
	if !s.Runtime.Scheduler.Stated {
		out.Notes = append(out.Notes, fmt.Sprintf("%s's profile states no scheduler: simulated as %s", s.Runtime.Name, SchedulerText(sch)))
	}
	sv, err := serve.New(s, sch, serve.Options{UBatch: req.UBatch, LongestPrompt: req.Workload.LongestPrompt(), LongestRequest: req.Workload.LongestRequest(), KVTokens: req.KVTokens, MemoryShare: req.MemoryShare, Headroom: req.Headroom, FrontEnd: fe, FrontEndEnds: feEnds, Split: split})
	var fe2 *sim.FieldError
	if _, how := pipelined(split); how != "" && errors.As(err, &fe2) {
		// A pipeline the stepped pricer cannot take (stages attending
		// unlike shares of the model's layers), named by the flag that
		// asked for it: --pp, else --devices (llama.cpp's stages, boards).
		input := "Devices"
		if spread.PP > 1 {
			input = "PP"
		}
		return nil, &RequestError{Input: input, Msg: "asks for a pipeline serve does not step: " + fe2.Msg, Hint: "predict prices this split", Err: ErrNotStepped}
	}
	if err != nil {
		var nf *serve.NotFitError
		if errors.As(err, &nf) && nf.PoolRows > 0 {
			// The engine's prefill profile sizes its scratch at load,
			// whatever the prompts: a build of fewer rows or shorter
			// inputs takes less.
			return nil, &HintedError{Err: err, Advice: fmt.Sprintf("%s's engine sizes its scratch memory at load for %d prompts of %d tokens, whatever this workload sends: an engine built with fewer rows (%s, priced with --max-seqs) takes less, or choose a smaller format or a larger device", s.Runtime.Name, nf.PoolRows, nf.PoolInput, nf.BatchFlag)}
		}
		if errors.As(err, &nf) && nf.PromptPass > 0 && req.UBatch == 0 {
			// Its passes take the longest prompt whole: shorter prompts,
			// or a pass asked for, may fit where the weights do.
			return nil, &HintedError{Err: err, Advice: fmt.Sprintf("%s prefills each prompt in one pass, here the longest this workload sends (%d tokens): prompts with an upper end (--prompt uniform:LO:HI), fewer --requests of an unbounded shape, or --ubatch N (passes of N tokens) take less memory", s.Runtime.Name, nf.PromptPass)}
		}
		if errors.As(err, &nf) && nf.Budget < 0 && split == nil && spread.everyLayer(s) {
			return nil, &HintedError{Err: err, Advice: spread.everyLayerAdvice(s)}
		}
		if errors.As(err, &nf) && nf.Budget < 0 && split != nil && split.Kind == sim.Offload {
			// The advice predict gives for the placement, priced at a
			// lone request of the mean lengths.
			if r, perr := split.Predict(sim.Workload{Prompt: max(1, int(req.Workload.MeanPrompt()+0.5)), Output: max(1, int(req.Workload.MeanOutput()+0.5)), Batch: 1}); perr == nil {
				if a := spread.offloadAdvice(r); a != "" {
					return nil, &HintedError{Err: err, Advice: a}
				}
			}
		}
		if errors.As(err, &nf) && nf.Budget < 0 && (split == nil || split.Kind != sim.Offload) {
			// One device, or devices (a group, a pipeline) that do not
			// hold their parts: predict's smallest that would.
			if n, flags, fit := env.smallestFit(s, spread, sim.Workload{Prompt: max(1, int(req.Workload.MeanPrompt()+0.5)), Output: max(1, int(req.Workload.MeanOutput()+0.5)), Batch: 1}); n > 0 {
				advice := fmt.Sprintf("%d devices like it would hold it: %s", n, flags)
				if _, how := pipelined(fit); how != "" {
					// A pipeline beyond the groups its link joins (16 H100
					// SXM: two HGX boards), or boards.
					advice = fmt.Sprintf("%d devices like it would hold it %s: %s", n, how, flags)
				}
				return nil, &HintedError{Err: err, Advice: advice}
			} else if why := peerless(s.Device, spread); why != "" {
				return nil, &HintedError{Err: err, Advice: "no count of devices like it over that link: " + why}
			}
		}
		return nil, err
	}
	if n := promptPassNote(s.Runtime, req.Workload, sv.PromptPass, sv.Context); n != "" {
		out.Notes = append(out.Notes, n)
	}
	out.Server = sv
	return out, nil
}

// promptPassNote says what the passes of a runtime that prefills each
// prompt whole were sized for (pass tokens; "" when they are a chunk):
// the longest prompt workload w sends, and where it comes from; and, where
// a request may hold fewer tokens (ctx: the KV pool, the context) than
// were drawn, that the prompts sent are cut shorter than the passes.
func promptPassNote(rt *runtimes.Runtime, w serve.Workload, pass, ctx int) string {
	if pass == 0 {
		return ""
	}
	longest := w.LongestPrompt()
	var from string
	switch {
	case len(w.Rows) > 0 && (w.FromFile || w.Arrival == serve.Trace):
		from = fmt.Sprintf("the longest prompt of the rows sent from %s, %d tokens", w.File, longest)
	case w.Prompt.Kind == serve.Fixed:
		from = fmt.Sprintf("every prompt's %d tokens", longest)
	default:
		verb := "sends"
		if ctx-1 < min(longest, pass) {
			verb = "draws"
		}
		from = fmt.Sprintf("the longest prompt the run %s, %d tokens (the largest of its %d draws from %s, seed %d: the same at every rate)", verb, longest, w.Requests, w.Prompt, w.Seed)
	}
	if pass < longest {
		from += fmt.Sprintf(", cut to the model's context, %d", pass)
	}
	if cut := ctx - 1; cut < min(longest, pass) {
		// The source cuts a drawn prompt to what a request may hold
		// (serve.Workload.LongestPrompt is of the draws, before it).
		from += fmt.Sprintf("; a request holds at most %d tokens here, so no prompt sent is longer than %d", ctx, cut)
	}
	built := ""
	if name := rt.Prefill.Name; name != "" {
		built = fmt.Sprintf("; an engine built for them has %s ≥ %d", name, pass)
	}
	return fmt.Sprintf("%s prefills each prompt in one pass: its passes and their activations are sized for %s%s; --ubatch N sizes them for N tokens", rt.Name, from, built)
}

// ErrNotStepped is what the error of a server whose split serve does not
// step (a pipeline whose stages attend unlike shares of the model) wraps:
// plan --rate leaves such a configuration unsearched (planMaxRate), and
// fails on any other error.
var ErrNotStepped = errors.New("serve does not step this split")

// pipelined is how split runs its devices when they are a pipeline (PP
// stages or RPC boards), with their count; "" otherwise (one device, a
// tensor-parallel group, an offload).
func pipelined(split *sim.Split) (n int, how string) {
	switch {
	case split == nil:
	case split.Kind == sim.Network:
		return len(split.Pools), "as boards running their layers in turn over the network (RPC)"
	case split.PP > 1:
		return split.TP * split.PP, fmt.Sprintf("as %d pipeline stages", split.PP)
	}
	return 0, ""
}

// overlapText says how a pipeline's steps overlap on its stages in a
// serving simulation (sim.Split.Overlap, which its pricer steps by).
func overlapText(split *sim.Split) string {
	switch split.Overlap() {
	case sim.NoOverlap:
		if split.Kind == sim.Network {
			return "one pass through every board before the next (llama.cpp's RPC backend runs no pipeline)"
		}
		return "one pass through every stage before the next"
	case sim.VirtualEngines:
		return fmt.Sprintf("the running requests in up to %d micro-batches in flight, one a stage, each stepping on its own (vLLM's virtual engines): a step every request takes once is no shorter than a micro-batch's trip through the stages and hops, nor than one slowest stage and its hop per micro-batch", split.PP)
	}
	return "a step's passes (-ub tokens each) following each other through them within one llama_decode call (llama.cpp pull request #6017): one trip for the first pass, a slowest stage and its hop for each next"
}

// serveUBatch is the pass an offload is placed for: the scheduler's
// pass budget, else its step's, else the chunk asked (0: the runtime's).
func serveUBatch(req ServeRequest, sch runtimes.Scheduler) int {
	switch {
	case sch.PassTokens > 0:
		return sch.PassTokens
	case sch.MaxTokens > 0:
		return sch.MaxTokens
	}
	return req.UBatch
}

// ReadServeTrace reads the request's trace into its workload: the rows'
// lengths, and their arrival times for trace arrivals. Serve reads it
// when the request names one; a study reads it once, when it is loaded.
func ReadServeTrace(req *ServeRequest) ([]string, error) {
	f, err := safeio.OpenRegular(req.Trace)
	if errors.As(err, new(*safeio.MissingError)) {
		return nil, &resolve.InputError{Input: "trace", Err: err} // exit 1, as every input file not there
	}
	if err != nil {
		re := &RequestError{Input: "trace", Msg: err.Error()}
		if h := (interface{ Hint() string })(nil); errors.As(err, &h) {
			re.Hint = h.Hint()
		}
		return nil, re
	}
	defer f.Close()
	w := &req.Workload
	t, err := serve.ReadTrace(f, req.Trace, req.TraceFormat, w.Requests, req.CharsPerToken)
	if err != nil {
		return nil, err
	}
	if w.Arrival == serve.Trace && !t.Timed {
		return nil, &RequestError{Input: "arrival", Msg: fmt.Sprintf("trace: %s (%s) records no arrival times; choose a synthetic --arrival", req.Trace, t.Format)}
	}
	w.Rows, w.File, w.FromFile = t.Rows, req.Trace, true
	var notes []string
	if t.Skipped > 0 {
		notes = append(notes, fmt.Sprintf("%s (%s): %d rows skipped, the first for %s", req.Trace, t.Format, t.Skipped, t.SkipReason))
	}
	if t.Truncated {
		notes = append(notes, fmt.Sprintf("%s: the first %d requests are read; the rest of the file is not", req.Trace, len(t.Rows)))
	}
	return notes, nil
}

func boundText(b string) string {
	switch b {
	case "slot":
		return "a slot's share of the context"
	case "memory":
		return "the KV pool memory leaves"
	case sim.BoundByBuild:
		return "a row of the engine's KV cache, the length it is built for (--max-context)"
	}
	return "the model's maximum context"
}

// Names lists the knobs the changes set, as the profile names them.
func (c SchedulerChanges) Names() []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, name)
		}
	}
	add(c.Policy != "", "policy")
	add(c.MaxSeqs != 0, "max_seqs")
	add(c.MaxTokens != 0, "max_tokens")
	add(c.PassTokens != 0, "pass_tokens")
	add(c.Chunked != nil, "chunked_prefill")
	add(c.BlockSize != 0, "block_size")
	add(c.OnFull != "", "on_kv_full")
	add(c.PrefixCaching != nil, "prefix_caching")
	add(c.DividedContext != nil, "slot_context")
	add(c.Async != nil, "async_scheduling")
	return out
}

// SchedulerText says in words how a scheduler serves.
func SchedulerText(s runtimes.Scheduler) string {
	switch s.Policy {
	case runtimes.FIFO:
		return "one request at a time, the others queued in arrival order"
	case runtimes.Static:
		if s.MaxSeqs == 1 {
			return "static batches of one request: each prefilled and decoded to its end before the next, the others queued in arrival order"
		}
		return fmt.Sprintf("static batches of up to %d requests, prompts padded to the batch's longest and prefilled together, every row decoded until the longest output ends", s.MaxSeqs)
	}
	t := fmt.Sprintf("continuous batching of up to %d requests", s.MaxSeqs)
	if s.MaxTokens > 0 {
		t += fmt.Sprintf(", %d tokens a step", s.MaxTokens)
	}
	if s.PassTokens > 0 {
		t += fmt.Sprintf(" in passes of %d", s.PassTokens)
	}
	if s.Chunked {
		t += ", chunked prefill"
	} else {
		t += ", whole prompts"
	}
	if s.Async {
		t += ", async scheduling"
	}
	if s.BlockSize > 1 {
		t += fmt.Sprintf(", %d-token KV blocks", s.BlockSize)
	}
	switch s.OnFull {
	case runtimes.Recompute:
		t += ", preemption by recompute"
	case runtimes.Reserve:
		t += ", a request's whole cache reserved on admission"
	case runtimes.Fail:
		t += ", an error when the cache is full"
	}
	if s.PrefixCaching {
		t += ", prefix caching"
	}
	if s.DividedContext {
		t += ", the context divided among the slots"
	}
	return t
}
