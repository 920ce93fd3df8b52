package main

import (
	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/render"

	"github.com/urfave/cli/v2"
)

const predictUsage = `roofline predict --model M --hardware H [flags]

Predicts time to first token (prefill of --prompt tokens on top of --depth
cached ones), time per output token as the KV cache grows over --output-tokens
tokens, end-to-end latency, throughput for --batch concurrent sequences,
which roofline bound applies to each phase, and whether weights, KV cache,
activations and runtime overhead fit in the device's usable memory.
Expected figures use the engine's efficiency factors and fixed overheads;
ideal figures are the physical limit at 100 % of peak. Energy comes from the
engine's power and idle draw (--power, --idle-power) at --duty-cycle.
Expected TTFT, TPOT and E2E carry the interval their runtime class or
calibration gives ("80%: lo–hi"); an MoE decode on a class whose MoE
decode runs are held out of scope takes the class's interval joined with
their range, which holds more than its level: TPOT, E2E and throughput
say "80% widened" (JSON: intervals_widened lists tpot, e2e, throughput).
The --batch sequences run as the runtime runs them: together under
continuous batching; under static batches (TensorRT Edge-LLM, max_seqs in
its [scheduler]) up to max_seqs together in lockstep, more as batches one
after another; one after another under a runtime that runs one at a time
(gpt-fast, RKLLM). The figures are then the first batch's, and a note says
when the last sequence gets its first token.
--ops adds where the time goes, operator by operator: the prefill, the mean
decode step and single steps (the first, the last and the longest context,
or --ops-at), each adding up to TTFT, TPOT or the step's ITL.
Exit status: 0, or 3 when the model does not fit in usable memory (the
answer is printed, DOES NOT FIT on its first line).

Examples:
  roofline predict --model llama-3.2-3b --hardware jetson-orin-nano-super-8gb --weights q4_k_m --prompt 1000 --output-tokens 200
  roofline predict --model qwen2.5-1.5b --hardware rk3588 --engine npu --weights w8a8
  roofline predict --model llama-3.1-8b --hardware h100-sxm --batch 32 --prompt 2048 --format json
  roofline predict --model meta-llama/Llama-3.1-8B --hardware apple-m2-max --depth 8000 --cold
  roofline predict --model ./Qwen3-4B-Q4_K_M.gguf --hardware rk3588 --engine cpu
  roofline predict --model ~/models/Llama-3.1-8B-Instruct --hardware rtx-4090 --weights q4_k_m
  roofline predict --model gemma-2-2b --hardware raspberry-pi-5-8gb --weights q4_0 --ops --ops-at 8k`

func predictCommand() *cli.Command {
	return &cli.Command{
		Name:      "predict",
		Usage:     "predict TTFT, TPOT, E2E latency, throughput and memory fit",
		UsageText: predictUsage,
		Flags: append(append(append(append(setupFlags(), spreadFlags()...), workloadFlags()...),
			&cli.BoolFlag{Name: "cold", Usage: "add the model load time (weights / storage bandwidth) to the first request"}),
			append(append(extraFlags(), opsFlags()...), formatFlag(predictFormats))...),
		Action: predictAction,
	}
}

var predictFormats = render.AllFormats

func predictAction(c *cli.Context) error {
	f, err := outputFormat(c, predictFormats)
	if err != nil {
		return err
	}
	if err := noExtraArgs(c, 0); err != nil {
		return err
	}
	var req app.PredictRequest
	if req.Workload, err = workload(c); err != nil {
		return err
	}
	if req.Power, req.Draft, err = extras(c); err != nil {
		return err
	}
	if req.Ops, err = opsRequest(c); err != nil {
		return err
	}
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
	p, err := env.Predict(req)
	if err != nil {
		return flagged(err)
	}
	draftFits := p.Speculative == nil || p.Speculative.Fits
	if err := write(c, f, render.Predict(p)); err != nil || p.Memory.Fits && draftFits {
		return err
	}
	if p.Memory.Fits {
		return doesNotFit{p.Inputs.Model + " with the draft " + p.Speculative.Draft, p.Inputs.Device}
	}
	return doesNotFit{p.Inputs.Model, p.Inputs.Device}
}
