package main

import (
	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/render"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

const showModelUsage = `roofline show model NAME|FILE [--weights FMT] [--kv FMT] [--format text|json|markdown]

Shows what roofline understood of a model: its shape, parameter counts,
weight bytes under a weight format, the bytes one decode step streams, the
KV cache per token, FLOPs per token and the storage type of every tensor
(a GGUF recipe follows llama.cpp's rules tensor by tensor); with --ops, the
same per operator and layer kind.

NAME is a built-in name or alias; a Hugging Face id (ORG/NAME, with
:Q8_0 or :FILE.gguf for a GGUF repository) read from the local Hugging
Face cache, else from the Hub and cached (HF_ENDPOINT, HF_TOKEN,
HF_HUB_OFFLINE); or an Ollama tag (llama3.2:3b), read from the local
Ollama store when pulled, else the built-in model in the tag's
quantization (docs/profiles.md, "Naming models").
FILE may be a .toml profile; a .gguf file, split first part or http(s) URL,
of which only the header is read (the tensor table gives the exact type
and size of every tensor); or a Hugging Face config.json or a checkpoint
directory holding one.

Examples:
  roofline show model llama-3.1-8b
  roofline show model meta-llama/Llama-3.2-3B --weights q4_k_m --kv q8_0
  roofline show model gpt-oss-20b --weights q4_k_m --file-size 11.7GB
  roofline show model gemma-2-2b --weights q4_0 --ops
  roofline show model qwen2.5:7b-instruct-q8_0
  roofline show model bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M
  roofline show model ./my-model.toml --format json
  roofline show model ./Llama-3.2-1B-Instruct-Q4_K_M.gguf
  roofline show model https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q4_K_M.gguf`

const showHardwareUsage = `roofline show hardware NAME|FILE [--format text|json|markdown]

Shows a device: memory and the share a model may use, datasheet (and
measured) bandwidth, each compute engine's dense peaks with their ridge
points, the efficiencies and overheads used for expected figures, the
power modes of its module, and the source of every number.

NAME@MODE is NAME's module in a power mode (jetson-orin-nano-super-8gb@25w,
jetson-agx-orin-64gb@MODE_30W; case, '_' and '-' do not matter); a device
with power modes lists them all, with the NAME@MODE that selects each.

Examples:
  roofline show hardware jetson-orin-nano-super-8gb
  roofline show hardware jetson-orin-nano-super-8gb@15w
  roofline show hardware rk3588 --format json`

const showRuntimeUsage = `roofline show runtime NAME|FILE [--format text|json|markdown]

Shows an inference runtime: the formats it runs and on which engines, the
layout rules that change what a model costs under it (sliding windows and
their cache, the MLA cache, head and embedding storage, embeddings kept in
host memory), whether it batches continuously, its memory overhead, the
precision its kernels compute in, its fitted efficiency per engine kind,
and the source of every rule.

Examples:
  roofline show runtime llama.cpp
  roofline show runtime vllm --format json
  roofline show runtime ./my-runtime.toml`

var showFormats = render.DocFormats

func showCommand() *cli.Command {
	return &cli.Command{
		Name:  "show",
		Usage: "show one model, device or runtime in detail",
		Subcommands: []*cli.Command{
			{
				Name: "model", Usage: "show a model's sizes, bytes and FLOPs", UsageText: showModelUsage, ArgsUsage: "NAME|FILE",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "weights", Usage: "weight format `FMT` (roofline list formats); default: the model's own (its checkpoint, or a GGUF file's tensor types)"},
					&cli.StringFlag{Name: "kv", Value: "f16", Usage: "KV-cache format `FMT`"},
					&cli.BoolFlag{Name: "ops", Usage: "add the model's operators per layer kind: weights, bytes streamed and FLOPs per decode token, KV cache and attention FLOPs per token of context"},
					&cli.StringFlag{Name: "file-size", Usage: "match the weight format to a file of this `SIZE` (e.g. 11.6GB as published): only the tensors whose type the format cannot be sure of absorb the difference, and the output says which and how much; within 0.5 % the recipe stands, as predict and compare take it; a tied model's file one embedding table larger is read as storing its head apart (untied)"},
					formatFlag(showFormats),
				},
				Action: showModelAction,
			},
			{
				Name: "hardware", Aliases: []string{"device"}, Usage: "show a device's memory, engines and sources", UsageText: showHardwareUsage, ArgsUsage: "NAME|FILE",
				Flags:  []cli.Flag{formatFlag(showFormats)},
				Action: showHardwareAction,
			},
			{
				Name: "runtime", Usage: "show a runtime's rules, efficiencies and sources", UsageText: showRuntimeUsage, ArgsUsage: "NAME|FILE",
				Flags:  []cli.Flag{formatFlag(showFormats)},
				Action: showRuntimeAction,
			},
		},
	}
}

// argName is the one NAME|FILE argument of show.
func argName(c *cli.Context, what string) (string, error) {
	if c.NArg() == 0 {
		return "", usageErr("show %s: give a %s name or a path to a .toml profile", what, what)
	}
	return c.Args().First(), noExtraArgs(c, 1)
}

// showArgs reads what every show command takes: the output format, the
// one NAME|FILE argument (- reads the profile from stdin) and the
// environment that resolves it.
func showArgs(c *cli.Context, what string) (render.Format, string, *app.Env, error) {
	f, err := outputFormat(c, showFormats)
	if err != nil {
		return f, "", nil, err
	}
	name, err := argName(c, what)
	if err != nil {
		return f, "", nil, err
	}
	env, err := environment(c)
	if err != nil {
		return f, "", nil, err
	}
	if name == "-" {
		name, err = stdinProfile(env, "show "+what)
	}
	return f, name, env, err
}

func showModelAction(c *cli.Context) error {
	f, name, env, err := showArgs(c, "model")
	if err != nil {
		return err
	}
	mc, err := env.ShowModel(name, c.String("weights"), c.String("kv"))
	if err != nil {
		return flagged(err)
	}
	if c.IsSet("file-size") {
		size, _, err := quantity(c, "file-size", units.DimBytes)
		if err != nil || !(size > 0) {
			return usageErr("--file-size %q: want a size such as 11.6GB or 4.58GiB", c.String("file-size"))
		}
		fitted, fit, err := app.MatchFile(mc, size)
		if err != nil {
			return usageErr("%v", flagged(err))
		}
		if c.Bool("ops") {
			return usageErr("--ops and --file-size: give one of them")
		}
		return write(c, f, render.FittedModel(fitted, fit))
	}
	if c.Bool("ops") {
		ops, err := mc.Operators(model.Fusion{}, true)
		if err != nil {
			return err
		}
		return write(c, f, render.ModelOps(mc, ops))
	}
	return write(c, f, render.Model(mc))
}

func showHardwareAction(c *cli.Context) error {
	f, name, env, err := showArgs(c, "hardware")
	if err != nil {
		return err
	}
	d, err := env.ShowDevice(name)
	if err != nil {
		return err
	}
	return write(c, f, render.ShowDevice(d))
}

func showRuntimeAction(c *cli.Context) error {
	f, name, env, err := showArgs(c, "runtime")
	if err != nil {
		return err
	}
	rt, err := env.ShowRuntime(name)
	if err != nil {
		return err
	}
	return write(c, f, render.ShowRuntime(rt))
}
