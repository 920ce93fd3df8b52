package main

import (
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/serve"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

// serveWorkloadFlags say what arrives at a server.
func serveWorkloadFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "arrival", Value: "poisson", Usage: "arrival `PROCESS`: poisson, constant, gamma (bursty, --cv), closed (--users, --think) or trace (--trace's timestamps)"},
		&cli.Float64Flag{Name: "rate", Usage: "arrival rate, requests per second (`R`); with --arrival trace, rescales the trace to it"},
		&cli.Float64Flag{Name: "cv", Value: 2, Usage: "coefficient of variation of gamma arrival gaps (1 is Poisson)"},
		&cli.IntFlag{Name: "users", Value: 8, Usage: "users of a closed loop"},
		&cli.StringFlag{Name: "think", Usage: "mean think time of a closed loop's users between an answer and their next request (`DURATION`, exponential; default 0)"},
		&cli.IntFlag{Name: "requests", Value: 1000, Usage: "requests sent, 1 or more (with --trace: at most this many of its rows; 0 for all of them)"},
		&cli.StringFlag{Name: "prompt", Value: "512", Usage: "prompt tokens: `DIST`, a count, uniform:LO:HI, normal:MEAN:SD or lognormal:MEAN:SD"},
		&cli.StringFlag{Name: "output-tokens", Value: "128", Usage: "output tokens, the first by the prefill (`DIST`, as --prompt)"},
		tokensFlag("shared-prefix", nil, 0, "tokens of a system prompt every prompt begins with, which prefix caching reuses (`N`)"),
		&cli.StringFlag{Name: "trace", Usage: "read lengths (and with --arrival trace, arrival times) from `FILE`: Azure LLM inference CSV, BurstGPT CSV, ShareGPT JSON, or a CSV, JSONL or JSON array of prompt_tokens and output_tokens"},
		&cli.StringFlag{Name: "trace-format", Value: "auto", Usage: "`FORMAT` of --trace: auto, azure, burstgpt, sharegpt or lengths"},
		&cli.Float64Flag{Name: "chars-per-token", Value: serve.DefaultCharsPerToken, Usage: "characters per token when counting a ShareGPT conversation's text"},
		&cli.IntFlag{Name: "seed", Value: 1, Usage: "seed of the arrivals and lengths"},
	}
}

// schedulerFlags change the runtime's scheduler.
func schedulerFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "policy", Usage: "scheduling `POLICY`: continuous, fifo or static (batches of up to --max-seqs requests, each run to its longest); default: the runtime's"},
		tokensFlag("max-tokens", nil, 0, "most tokens a step processes (vLLM --max-num-batched-tokens, llama.cpp -b; `N`); default: the runtime's"),
		tokensFlag("pass-tokens", nil, 0, "most tokens a forward pass holds (llama.cpp -ub; `N`); default: the runtime's"),
		&cli.StringFlag{Name: "chunked-prefill", Usage: "split long prompts over steps: on or off; default: the runtime's"},
		&cli.IntFlag{Name: "block-size", Usage: "tokens per KV-cache block; default: the runtime's"},
		&cli.StringFlag{Name: "on-kv-full", Usage: "when the KV cache is full: recompute (preempt), reserve (admit only what fits whole) or fail; default: the runtime's"},
		&cli.StringFlag{Name: "prefix-caching", Usage: "reuse the cached shared prefix: on or off; default: the runtime's"},
		&cli.StringFlag{Name: "async-scheduling", Usage: "schedule a step while the one before it runs, so a request arriving meanwhile joins the step after (vLLM --async-scheduling): on or off; default: the runtime's"},
		&cli.StringFlag{Name: "slot-context", Usage: "llama.cpp: shared (every slot may use the whole context) or divided (-c / --parallel each)"},
		tokensFlag("kv-tokens", nil, 0, "KV cache pool in tokens (llama.cpp -c), at most what memory leaves beside the weights; default: all of it"),
		&cli.Float64Flag{Name: "memory-share", Usage: "share of the device's usable memory the runtime takes for weights, activations and KV cache (vLLM --gpu-memory-utilization); default: the runtime's"},
		tokensFlag("ubatch", nil, sim.DefaultWorkload.UBatch, "prefill chunk of a runtime that serves one request at a time (`N`)"),
		frontEndFlag(),
	}
}

// frontEndFlag sets the server's front end (serve, plan --rate).
func frontEndFlag() cli.Flag {
	return &cli.StringFlag{Name: "front-end", Value: "runtime", Usage: "the server's front end (HTTP, tokenizing, streaming) in front of the engine: runtime (its profile's, fitted on published serving runs; none where it has none), off (the engine's steps alone), or `LATENCY,REQUEST,TOKEN[,BATCH]` (a latency, serial work a request and a streamed token, such as 20ms,5ms,50us; BATCH: take up to that many waiting requests in together and hand them to the engine at once, as vLLM's tokenizer batches up to 32)"}
}

// frontEnd reads --front-end: nil for the runtime's.
func frontEnd(c *cli.Context) (*serve.FrontEnd, error) {
	f, err := serve.ParseFrontEnd(c.String("front-end"))
	if err != nil {
		return nil, usageErr("--front-end %v", err)
	}
	return f, nil
}

// onOff reads an on/off flag; nil when not given.
func onOff(c *cli.Context, name string) (*bool, error) {
	switch strings.ToLower(strings.TrimSpace(c.String(name))) {
	case "":
		return nil, nil
	case "on", "true", "yes":
		v := true
		return &v, nil
	case "off", "false", "no":
		v := false
		return &v, nil
	}
	return nil, usageErr("--%s %q: want on or off", name, c.String(name))
}

// schedulerChanges reads the scheduler flags.
func schedulerChanges(c *cli.Context) (app.SchedulerChanges, error) {
	ch := app.SchedulerChanges{MaxSeqs: c.Int("max-seqs"), MaxTokens: c.Int("max-tokens"), PassTokens: c.Int("pass-tokens"), BlockSize: c.Int("block-size")}
	for _, f := range []string{"max-seqs", "block-size"} {
		if c.IsSet(f) && c.Int(f) < 1 {
			return ch, usageErr("--%s %d: want a whole number from 1", f, c.Int(f))
		}
	}
	switch p := runtimes.Policy(strings.ToLower(c.String("policy"))); p {
	case "", runtimes.Continuous, runtimes.FIFO, runtimes.Static:
		ch.Policy = p
	default:
		return ch, usageErr("--policy %q: want continuous, fifo or static", c.String("policy"))
	}
	switch o := runtimes.OnFull(strings.ToLower(c.String("on-kv-full"))); o {
	case "", runtimes.Recompute, runtimes.Reserve, runtimes.Fail:
		ch.OnFull = o
	default:
		return ch, usageErr("--on-kv-full %q: want recompute, reserve or fail", c.String("on-kv-full"))
	}
	var err error
	if ch.Chunked, err = onOff(c, "chunked-prefill"); err != nil {
		return ch, err
	}
	if ch.PrefixCaching, err = onOff(c, "prefix-caching"); err != nil {
		return ch, err
	}
	if ch.Async, err = onOff(c, "async-scheduling"); err != nil {
		return ch, err
	}
	switch sc := strings.ToLower(c.String("slot-context")); sc {
	case "":
	case "shared", "divided":
		v := sc == "divided"
		ch.DividedContext = &v
	default:
		return ch, usageErr("--slot-context %q: want shared or divided", c.String("slot-context"))
	}
	return ch, nil
}

// serveWorkload reads the workload flags, and the trace when one is given.
func serveWorkload(c *cli.Context) (serve.Workload, error) {
	var w serve.Workload
	var err error
	if w.Arrival, err = serve.ParseArrival(c.String("arrival")); err != nil {
		return w, usageErr("--arrival %v", err)
	}
	if err := serveFlagsApply(c, w.Arrival); err != nil {
		return w, err
	}
	w.Rate, w.CV, w.Users, w.Requests, w.SharedPrefix = c.Float64("rate"), c.Float64("cv"), c.Int("users"), c.Int("requests"), c.Int("shared-prefix")
	// 0 is "every row" of a trace, as the help says; without one there
	// are no rows to count, so it is told what it needs, not "at least 1".
	if w.Requests == 0 && c.String("trace") == "" {
		return w, usageErr("--requests 0 sends every row of a --trace FILE, and no trace is given: give --trace FILE, or send 1 or more requests (default 1000)")
	}
	if seed := c.Int("seed"); seed < 0 {
		return w, usageErr("--seed %d: want a whole number from 0", seed)
	} else {
		w.Seed = uint64(seed)
	}
	if s := strings.TrimSpace(c.String("think")); s != "" {
		if w.Think, err = units.ParseWait(s); err == nil && w.Think > 0 {
			err = limits.Latency.Check(w.Think)
		}
		if err != nil {
			return w, usageErr("--think %v", err)
		}
	}
	if c.Bool("max-rate") && !c.IsSet("rate") && w.Arrival != serve.Trace {
		w.Rate = 1 // the search sets its own rates
	}
	if w.Arrival != serve.Closed && w.Arrival != serve.Trace && !c.IsSet("rate") && !c.Bool("max-rate") {
		return w, usageErr("--rate is required for %s arrivals (requests per second), or --max-rate to search it", w.Arrival)
	}
	if w.Prompt, err = serve.ParseDist(c.String("prompt")); err != nil {
		return w, usageErr("--prompt %v", err)
	}
	if w.Output, err = serve.ParseDist(c.String("output-tokens")); err != nil {
		return w, usageErr("--output-tokens %v", err)
	}
	if w.Arrival == serve.Trace && c.String("trace") == "" {
		return w, usageErr("--arrival trace needs --trace FILE")
	}
	return w, nil
}

// traceFlags reads --trace, --trace-format and --chars-per-token into req.
func traceFlags(c *cli.Context, req *app.ServeRequest) error {
	req.Trace, req.CharsPerToken = c.String("trace"), c.Float64("chars-per-token")
	f, err := serve.ParseTraceFormat(c.String("trace-format"))
	if err != nil {
		return usageErr("--trace-format %v", err)
	}
	req.TraceFormat = f
	if req.Trace == "" {
		for _, n := range []string{"trace-format", "chars-per-token"} {
			if c.IsSet(n) {
				return usageErr("--%s needs --trace FILE", n)
			}
		}
	}
	if !(req.CharsPerToken > 0 && req.CharsPerToken <= 100) {
		return usageErr("--chars-per-token %g: want a number in (0, 100]", req.CharsPerToken)
	}
	return nil
}

// serveFlagsApply refuses a flag given where it does nothing, rather than
// ignore it: an arrival process's knob under another process, a search's
// under no search, and 0 for a setting whose default 0 stands for "the
// runtime's own" (a KV pool of no tokens, no memory, no runs).
func serveFlagsApply(c *cli.Context, a serve.ArrivalKind) error {
	for _, k := range []struct {
		flag string
		for_ serve.ArrivalKind
	}{{"cv", serve.Gamma}, {"users", serve.Closed}, {"think", serve.Closed}} {
		if c.IsSet(k.flag) && a != k.for_ {
			return usageErr("--%s applies to --arrival %s; these arrivals are %s", k.flag, k.for_, a)
		}
	}
	if c.IsSet("rate") && a == serve.Closed {
		return usageErr("--rate: a closed loop has no arrival rate: its --users and --think set its load (or choose --arrival poisson, constant or gamma)")
	}
	if c.IsSet("search-runs") && !c.Bool("max-rate") {
		return usageErr("--search-runs applies to --max-rate's search")
	}
	for _, f := range []struct {
		flag string
		v    float64
	}{{"kv-tokens", float64(c.Int("kv-tokens"))}, {"memory-share", c.Float64("memory-share")}, {"search-runs", float64(c.Int("search-runs"))},
		{"max-tokens", float64(c.Int("max-tokens"))}, {"pass-tokens", float64(c.Int("pass-tokens"))}, {"ubatch", float64(c.Int("ubatch"))}} {
		if c.IsSet(f.flag) && f.v <= 0 {
			return usageErr("--%s %g: want a value above 0 (leave it out for the default)", f.flag, f.v)
		}
	}
	return nil
}
