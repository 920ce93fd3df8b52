package main

import (
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/cmd/roofline/internal/render"

	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

const planUsage = `roofline plan --hardware LIST --model LIST [--weights LIST] [--context LIST] [--batch LIST] [targets]

Searches devices × engines × models × weight formats × KV formats × context
lengths × batch sizes for the configurations that fit in memory (with
--headroom kept free) and meet the targets at the end of their context:
TTFT of --prompt tokens on top of the history, and TPOT of the last step,
where the KV cache is largest. Prints one table: per device and model, the
configuration to deploy, ranked by --rank (default quality: the best
published quality among the configurations that meet the targets, formats
within --quality-tolerance of it counting as equal, then the fastest
decode), with its margins and the concurrent sequences of its context that
meet the targets; or, when nothing does, the configuration that misses
least and why. A device's CPU engine is left out when another engine runs
the model (unless asked with --engine, or only the CPU meets the targets).
A model a discrete GPU does not hold is planned offloaded to its host as
llama.cpp places it by default (as many layers as fit, as predict does);
--devices LIST (1,2,4,8 or 1..8) with --link adds the model spread over each
count of devices in the runtime's multi-device mode (tensor parallel for
vLLM, layers over RPC hosts for llama.cpp on a network, though the GPUs of
one NVSwitch board (an HGX H100's 8) run in one process over its NVLink, the
network unused, as under vLLM; every layer over the boards for
distributed-llama), and recommends the fewest that meet the
targets, or says that no count up to the largest does (exit 3). A
recommended configuration nothing holds says what would (devices or host
memory), as predict does. Notes under the answer say what the plan
decided that its table does not show: how the recommended configurations
are placed (the links between devices and groups, an offload's host and
bus, a --link set aside as not a card's slot), a --host or --link no
recommended configuration uses, the counts left out for want of a link
between NVLink groups (HGX boards: --link names their network), and a
decode interval widened for an MoE model (docs/accuracy.md), whose TPOT
slow end says "80% widened", as predict labels the interval (JSON:
intervals_widened, ["tpot"]).
--detail adds the inverse limits (longest context that fits, longest
context meeting TPOT, longest prompt meeting TTFT, most sequences that
fit), the frontier of quality against decode speed, and what was skipped.
JSON and CSV list every configuration, streamed as it is evaluated, in
flat memory; a plan of more than 2^24 configurations (groups × contexts ×
batches) is refused before any is evaluated (docs/profiles.md, Limits).

Lists are comma-separated; --hardware takes names, globs (jetson-*) and all;
--model and --weights take all. Context lengths accept k (8k = 8192).
Exit status: 0 when a configuration meets the targets at --confidence (its
verdict is meets), 3 when none does (the answer is printed either way).

Examples:
  roofline plan --hardware jetson-orin-nano-8gb,jetson-orin-nano-super-8gb,rk3588 --model llama-3.2-3b --weights q4_k_m,q8_0,w8a8 --context 4k,8k --prompt 500 --output-tokens 200 --ttft 1s --tpot 200ms
  roofline plan --hardware 'jetson-*' --model qwen2.5-1.5b,llama-3.2-3b --weights all --ttft 1s --tpot 200ms --top 3
  roofline plan --hardware all --model llama-3.1-8b --weights all --tpot 50ms --feasible-only --format json
  roofline plan --hardware h100-sxm --model llama-3.1-70b --weights fp8,bf16 --batch 1,8,32,64 --tpot 50ms --min-throughput 500
  roofline plan --hardware raspberry-pi-5-8gb,rk3588 --model llama-3.1-8b --weights q4_0 --runtime distributed-llama --devices 1..8 --link 1gbe --tpot 200ms`

var planFormats = render.AllFormats

func planCommand() *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "search formats × context × batch × device against TTFT/TPOT targets and memory",
		UsageText: planUsage,
		Flags:     append(append(planFlags(), planSpreadFlags()...), append(answerFlags(), formatFlag(planFormats))...),
		Action:    planAction,
	}
}

// planFlags are the search-space and target flags of plan (and plot plan).
func planFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "hardware", Aliases: []string{"hw"}, Usage: "devices: `LIST` of names (NAME@MODE for a power mode), globs (jetson-*) or all (required)"},
		&cli.StringFlag{Name: "engine", Usage: "engines to use (`LIST`); default: every engine of each device"},
		&cli.StringFlag{Name: "runtime", Usage: "keep to these runtimes (`LIST`, roofline list runtimes); default: the runtime the rule chooses for each engine and format"},
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "models: `LIST` of names or all (required)"},
		&cli.StringFlag{Name: "weights", Usage: "weight formats: `LIST` or all; default: each engine's default format"},
		&cli.StringFlag{Name: "kv", Usage: "KV-cache formats `LIST`; default: each engine's default, else f16"},
		&cli.StringFlag{Name: "context", Value: "1k,2k,4k,8k,16k,32k", Usage: "context lengths per sequence (`LIST`, k = 1024)"},
		&cli.StringFlag{Name: "batch", Aliases: []string{"concurrent"}, Value: "1", Usage: "concurrent sequences or chats (`LIST`; continuous batching)"},
		tokensFlag("prompt", []string{"p"}, sim.DefaultWorkload.Prompt, "prompt tokens whose prefill TTFT measures (`N`; k = 1024)"),
		tokensFlag("output-tokens", []string{"n"}, sim.DefaultWorkload.Output, "tokens generated per request (`N`)"),
		ubatchFlag(),
		&cli.StringFlag{Name: "ttft", Usage: "TTFT target (`DURATION`, e.g. 1s)"},
		&cli.StringFlag{Name: "tpot", Usage: "TPOT target at the end of the context (`DURATION`, e.g. 200ms)"},
		tokensFlag("min-context", nil, 0, "drop context lengths below `N`"),
		&cli.IntFlag{Name: "min-batch", Value: 1, Usage: "drop batch sizes below `N`"},
		&cli.Float64Flag{Name: "min-throughput", Usage: "aggregate decode `TOKENS_PER_S` required at the end of the context"},
		&cli.StringFlag{Name: "headroom", Value: "0%", Usage: "share of usable memory to keep free (`PCT`, e.g. 10%)"},
		&cli.Float64Flag{Name: "confidence", Value: sim.DefaultConfidence, Usage: "how sure a \"meets\" must be (`P` in (0, 1)): the slow end of the prediction's interval at P must meet every target"},
		&cli.BoolFlag{Name: "no-flash-attn", Usage: "price unfused attention (KV read once per query head)"},
	}, settingsFlags()...)
}

// answerFlags say what plan's answer shows.
func answerFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "rank", Value: plan.RankQuality.String(), Usage: "what comes first: `RANK` " + strings.Join(plan.Ranks(), ", ") + " (docs/planning.md)"},
		&cli.StringFlag{Name: "quality-tolerance", Value: "3%", Usage: "quality loss within which formats count as equal under --rank quality (`PCT`)"},
		&cli.IntFlag{Name: "top", Value: 1, Usage: "configurations shown per device and model (`N`)"},
		&cli.BoolFlag{Name: "feasible-only", Usage: "leave out what does not meet the targets (in JSON and CSV too)"},
		&cli.BoolFlag{Name: "detail", Usage: "add the inverse limits, the quality–speed frontier, CPU engines and what was skipped"},
		frontEndFlag(),
		&cli.Float64Flag{Name: "rate", Usage: "request-rate target, requests/s (`R`): the recommended configurations' largest Poisson rate within --ttft and --tpot is searched on the server roofline serve builds for each (one device, a tensor-parallel group, pipeline stages, RPC boards, or offloaded to the host as placed), --headroom of its memory kept free; exit 0 only if one sustains R"},
	}
}

func planAction(c *cli.Context) error {
	f, err := outputFormat(c, planFormats)
	if err != nil {
		return err
	}
	if err := noExtraArgs(c, 0); err != nil {
		return err
	}
	req, err := planRequest(c)
	if err != nil {
		return err
	}
	env, err := environment(c)
	if err != nil {
		return err
	}
	if n := quantizedVNote(req.Options.NoFlashAttention, "", req.KV...); n != "" {
		render.Warn(c.App.ErrWriter, n)
	}
	if req.Rank, err = plan.ParseRank(c.String("rank")); err != nil {
		return usageErr("--rank %v", err)
	}
	if req.Tolerance, err = units.ParseShare(c.String("quality-tolerance")); err != nil {
		return usageErr("--quality-tolerance %v", err)
	}
	req.Show = plan.Options{Top: c.Int("top"), AllEngines: c.Bool("detail"), FeasibleOnly: c.Bool("feasible-only")}
	req.Detail, req.Rate = c.Bool("detail"), c.Float64("rate")
	if c.IsSet("rate") && req.Rate == 0 { // below 0 and past the limit: the search says
		return usageErr("--rate %g: want requests per second above 0 (leave it out for no rate target)", req.Rate)
	}
	if req.Rate > 0 && req.Targets.TTFT <= 0 && req.Targets.TPOT <= 0 {
		return usageErr("--rate %g holds a rate to latency targets: give --ttft, --tpot or both (serve's defaults are --ttft 1s --tpot 200ms)", req.Rate)
	}
	if req.FrontEnd, err = frontEnd(c); err != nil {
		return err
	}
	p, err := env.PlanSearch(req)
	if err != nil {
		return flagged(err)
	}
	if f.ForPeople() {
		if err := p.Run(nil); err != nil {
			return flagged(err) // a host's or a link's, met in the search
		}
	} else if err := writeThrough(c); err != nil {
		return err // every error of the request is met: stream
	}
	if err := write(c, f, render.Plan(p)); err != nil || p.AnySure() {
		return flagged(err) // JSON and CSV meet a host's or a link's as they stream
	}
	ns := nothingSure{meeting: p.Meeting, confidence: p.Targets.ConfidenceLevel()}
	ns.devices, ns.leftOut = render.CountsSearched(p, "")
	if p.Result != nil && p.Sure > 0 {
		ns.rate = req.Rate // sure to meet the latencies: the rate is what misses
	}
	return ns
}

// planRequest reads plan's flags (plot plan's too).
func planRequest(c *cli.Context) (app.PlanRequest, error) {
	for _, f := range []string{"hardware", "model"} {
		if c.String(f) == "" {
			return app.PlanRequest{}, usageErr("--%s is required", f)
		}
	}
	req := app.PlanRequest{Prompt: c.Int("prompt"), Output: c.Int("output-tokens"), MinBatch: c.Int("min-batch"), Options: sim.DefaultOptions}
	if err := listFlags(c, listInto{"hardware", &req.Devices}, listInto{"engine", &req.Engines}, listInto{"runtime", &req.Runtimes},
		listInto{"model", &req.Models}, listInto{"weights", &req.Weights}, listInto{"kv", &req.KV}); err != nil {
		return req, err
	}
	req.Options.NoFlashAttention = c.Bool("no-flash-attn")
	var err error
	if err = runSettings(c, &req.Options); err != nil {
		return req, err
	}
	if req.UBatch, err = ubatch(c); err != nil {
		return req, err
	}
	if req.Targets, err = targets(c); err != nil {
		return req, err
	}
	if req.Targets.MinThroughput = c.Float64("min-throughput"); req.Targets.MinThroughput != 0 {
		if err := limits.Rate.Check(req.Targets.MinThroughput); err != nil {
			return req, usageErr("--min-throughput %v", err)
		}
	}
	if p := c.Float64("confidence"); !(p > 0 && p < 1) {
		return req, usageErr("--confidence %g: want a probability above 0 and below 1, e.g. 0.8", p)
	} else {
		req.Targets.Confidence = p
	}
	if req.Targets.Headroom, err = units.ParseShare(c.String("headroom")); err != nil {
		return req, usageErr("--headroom %v", err)
	}
	if req.Contexts, err = tokenList(c, "context"); err != nil {
		return req, err
	}
	if req.Batches, err = batchList(c); err != nil {
		return req, err
	}
	req.MinContext = c.Int("min-context")
	if req.MinBatch < 1 {
		return req, usageErr("--min-batch %d: want a batch of 1 sequence or more (1, the default, drops none)", req.MinBatch)
	}
	// A floor past the largest batch --batch may take drops every batch
	// whatever --batch says: a bad value, told with the bound, not "no
	// batch size left" (an answer to the two flags together).
	if req.MinBatch > sim.MaxTokens {
		return req, usageErr("--min-batch %d exceeds the limit of %d sequences, the largest --batch takes (1, the default, drops none)", req.MinBatch, sim.MaxTokens)
	}
	req.Spread, req.Counts, err = planSpread(c)
	return req, err
}
