package main

import (
	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/render"
	"github.com/roofline/roofline/serve"
	"github.com/urfave/cli/v2"
)

const serveUsage = `roofline serve --model M --hardware H --rate R [flags]

A server does not see one request, nor a batch that starts together:
requests arrive at random, of different lengths, wait in a queue, and
share the engine step by step. serve simulates that under the runtime's
own scheduler (roofline show runtime NAME: vLLM's continuous batching
with chunked prefill, paged blocks, preemption and prefix caching;
llama.cpp's server slots; TensorRT-LLM's in-flight batching; RKLLM one
request at a time), every step priced as predict prices it, and answers
with each request's TTFT, TPOT, inter-token latency, E2E and queue delay,
their percentiles (with their range at the ends of the prediction's
interval, "80% widened" where predict widens it for an MoE decode; JSON:
intervals_widened), throughput and goodput, and the queue and KV cache over time.
With --max-rate it searches the largest arrival rate whose p99 TTFT and
p99 TPOT meet --ttft and --tpot. --tp N (or a system such as hgx-h100)
serves on a tensor-parallel group: every step runs on N devices at once,
each with its share of the weights and the KV cache, plus the all-reduces
over --link. --pp N (or --devices under llama.cpp, boards over a network)
serves pipeline stages: each step goes through them, its passes or
micro-batches overlapping from stage to stage as the runtime overlaps
them (llama.cpp: a step's -ub passes one after another; vLLM: a
micro-batch per stage in flight). A model one GPU does not hold under llama.cpp is offloaded to
the host as predict offloads it (--gpu-layers, --n-cpu-moe, --host, else
llama.cpp's --fit): every step runs the host's layers and the GPU's in
turn.

Lengths are a token count, uniform:LO:HI, normal:MEAN:SD or
lognormal:MEAN:SD; --trace reads them (and, with --arrival trace, the
arrival times) from a published trace: Azure LLM inference CSV, BurstGPT
CSV, ShareGPT JSON as vllm bench serve reads it, or a CSV, JSONL or
JSON array of prompt and output tokens (docs/serve.md). Runs are seeded (--seed).
CSV output is one row per request.

Examples:
  roofline serve --model qwen2.5-1.5b --hardware rk3588 --engine npu --rate 0.05 --prompt uniform:50:300 --output-tokens uniform:20:150
  roofline serve --model llama-3.2-3b --hardware jetson-orin-nano-super-8gb --weights q4_k_m --arrival closed --users 4 --think 10s
  roofline serve --model llama-3.1-8b --hardware h100-sxm --runtime vllm --rate 10 --prompt lognormal:1000:600 --max-rate
  roofline serve --model llama-3.1-70b --hardware hgx-h100 --runtime vllm --tp 8 --rate 5 --prompt 2000 --output-tokens 300
  roofline serve --model llama-3.1-70b --hardware h100-sxm --runtime vllm --devices 16 --tp 8 --pp 2 --link ib-ndr --rate 5 --max-rate
  roofline serve --model llama-3.1-8b --hardware rk3588 --engine cpu --runtime llama.cpp --weights q4_0 --devices 2 --link 1gbe --rate 0.02 --prompt 200 --output-tokens 100
  roofline serve --model qwen3-4b --hardware jetson-agx-orin-64gb --runtime tensorrt-edge-llm --weights w4a16 --rate 0.3 --prompt 200 --output-tokens 128 --max-rate --ttft 5s
  roofline serve --model llama-3.1-70b --hardware rtx-4090 --weights q4_k_m --rate 0.01 --max-rate --ttft 20s --tpot 1s`

func serveCommand() *cli.Command {
	flags := append(setupFlags(), serveWorkloadFlags()...)
	flags = append(flags, schedulerFlags()...)
	flags = append(flags, serveSpreadFlags()...)
	flags = append(flags,
		&cli.StringFlag{Name: "ttft", Value: "1s", Usage: "TTFT target of goodput and the max-rate search (`DURATION`)"},
		&cli.StringFlag{Name: "tpot", Value: "200ms", Usage: "TPOT target of goodput and the max-rate search (`DURATION`)"},
		&cli.BoolFlag{Name: "max-rate", Usage: "search the largest arrival rate whose p99 TTFT and p99 TPOT meet --ttft and --tpot, and again with every step at each end of the prediction's interval (the range)"},
		&cli.IntFlag{Name: "search-runs", Value: serve.DefaultSearchRuns, Usage: "rates the max-rate search runs"},
		formatFlag(serveFormats))
	return &cli.Command{
		Name:      "serve",
		Usage:     "serving under load: arrivals, continuous batching, queueing, p99 latency and the largest rate meeting the targets",
		UsageText: serveUsage,
		Flags:     flags,
		Action:    serveAction,
	}
}

var serveFormats = render.AllFormats

func serveAction(c *cli.Context) error {
	f, err := outputFormat(c, serveFormats)
	if err != nil {
		return err
	}
	if err := noExtraArgs(c, 0); err != nil {
		return err
	}
	req := app.ServeRequest{UBatch: c.Int("ubatch"), KVTokens: c.Int("kv-tokens"), MemoryShare: c.Float64("memory-share")}
	if c.Bool("max-rate") {
		req.SearchRuns, req.SearchInterval = c.Int("search-runs"), true
	}
	if req.Workload, err = serveWorkload(c); err != nil {
		return err
	}
	if err := traceFlags(c, &req); err != nil {
		return err
	}
	if req.Scheduler, err = schedulerChanges(c); err != nil {
		return err
	}
	if req.FrontEnd, err = frontEnd(c); err != nil {
		return err
	}
	t, err := targets(c)
	if err != nil {
		return err
	}
	req.Targets = serve.Targets{TTFT: t.TTFT, TPOT: t.TPOT}
	if req.Setup, err = selection(c); err != nil {
		return err
	}
	if req.Spread, err = spread(c); err != nil {
		return err
	}
	env, err := environment(c)
	if err != nil {
		return err
	}
	a, err := env.Serve(req)
	if err != nil {
		return flagged(err)
	}
	return write(c, f, render.Serve(a))
}
