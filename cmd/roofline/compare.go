package main

import (
	"errors"
	"fmt"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/render"

	"github.com/urfave/cli/v2"
)

const compareUsage = `roofline compare FILE... --hardware H [--engine E] [--model M] [flags]

Reads measured runs as they are — llama-bench (json, jsonl, csv, markdown),
llama-batched-bench tables, vLLM serving-benchmark JSON, a plain per-request
CSV/JSON with TTFT and end-to-end latency, or a roofline runs CSV — and puts
each test beside roofline's prediction for the same model, format, depth and
batch: measured, predicted and ideal tokens/s, the ratio, the achieved
bandwidth and compute, and MBU and MFU against the device's peaks. A run
faster than the ideal bound is flagged; a run whose file records a parameter
count more than 3% from the model's is priced as another model, which a
warning says (--strict: an error). Bad rows are reported as file:line
and skipped. The format is detected from the content (docs/formats.md).

Examples:
  roofline compare bench.json --hardware apple-m2-ultra
  llama-bench -m model.gguf -o jsonl | roofline compare - --hardware jetson-orin-nano-super-8gb
  roofline compare vllm-result.json --hardware h100-sxm --model llama-3.1-8b --weights bf16 --format json`

var compareFormats = render.AllFormats

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare measured runs with predictions: MBU, MFU, ratio",
		UsageText: compareUsage,
		ArgsUsage: "FILE...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "hardware", Aliases: []string{"hw"}, Usage: "device `NAME` (NAME@MODE for a power mode) or .toml profile the runs were measured on (a runs CSV may name it per row)"},
			&cli.StringFlag{Name: "runtime", Usage: "runtime the runs used (`NAME`, roofline list runtimes); default: from the files (llama-bench and batched-bench: llama.cpp, vLLM results: vllm)"},
			&cli.StringFlag{Name: "engine", Usage: "compute `ENGINE`; default: from the file's backend, else the device's default"},
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `NAME`, .toml profile, .gguf file or config.json; default: matched from the file"},
			&cli.StringFlag{Name: "weights", Usage: "weight format `FMT`; default: from the file (llama-bench model_type)"},
			&cli.StringFlag{Name: "kv", Usage: "KV-cache format `FMT`; default: from the file, else f16"},
			&cli.StringFlag{Name: "flash-attn", Usage: "`on` or off: override the files' flash-attention setting (files that do not say: on)"},
			&cli.Float64Flag{Name: "bw-efficiency", Usage: "bandwidth efficiency for the predictions, from 0.0001 to 1; default: the engine's"},
			&cli.Float64Flag{Name: "compute-efficiency", Usage: "compute efficiency for the predictions, from 0.0001 to 1; default: the engine's"},
			&cli.GenericFlag{Name: "max-context", Value: &tokenCount{0}, DefaultText: "the run's, else the runtime's", Usage: "rkllm: the context the runs' model was converted for (`N`), where a runs CSV's max_context does not say"},
			&cli.StringFlag{Name: "clocks", DefaultText: "the run's, else the runtime's", Usage: "the runs' clocks where a runs CSV's clocks column does not say: rkllm's `pinned` or default, or the clocks the boards were pinned at, ddr=FREQ,npu=FREQ (as predict --clocks)"},
			threadsFlag("the run's (llama-bench n_threads, a runs CSV's threads), else every core"),
			&cli.BoolFlag{Name: "strict", Usage: "refuse runs whose recorded parameter count (llama-bench model_n_params) differs from the model's by more than 3% (a warning otherwise)"},
			&cli.BoolFlag{Name: "ops", Usage: "attribute each test's gap to the operators: their predicted times scaled to the measured time, and what each alone would have to take (an attribution, not a measurement)"},
			formatFlag(compareFormats),
		},
		Action: compareAction,
	}
}

func compareAction(c *cli.Context) error {
	f, o, env, err := runsCommand(c, compareFormats, "compare")
	if err != nil {
		return err
	}
	o.Strict = c.Bool("strict")
	o.Ops = c.Bool("ops")
	cmp, err := env.Compare(app.CompareRequest{Files: c.Args().Slice(), Options: o})
	render.Warn(c.App.ErrWriter, cmp.Warnings...)
	hintPaths(c.App.ErrWriter, cmp.Skipped)
	if err != nil {
		return err
	}
	return write(c, f, render.Compare(cmp))
}

// checkRunFlags checks the names compare's and calibrate's flags give
// before any file is read: a wrong --hardware, --weights or --kv is the
// flag's error, once, not a warning on every row it would have priced.
func checkRunFlags(c *cli.Context, env *app.Env) error {
	if err := checkRuntime(c, env); err != nil {
		return err
	}
	if h := c.String("hardware"); h != "" {
		if _, err := env.Catalog.Device(h); err != nil {
			return fmt.Errorf("--hardware: %w", err)
		}
	}
	return flagged(errors.Join(app.CheckWeights(c.String("weights")), app.CheckKV(c.String("kv"))))
}
