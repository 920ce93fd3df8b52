package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
)

// plotFlags are the output flags of every kind.
func plotFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the figure to `FILE` (.png, .svg or .pdf) (required)"},
		&cli.StringFlag{Name: "width", Value: "16cm", Usage: "figure width (`LENGTH`: cm, mm, in or pt)"},
		&cli.StringFlag{Name: "height", Usage: "figure height (`LENGTH`); default: 10cm, 14cm for the two-panel batch, compare, chat and concurrency"},
		&cli.StringFlag{Name: "title", Usage: "replace the generated title"},
		&cli.BoolFlag{Name: "force", Usage: "replace the -o and --data files if they exist"},
		&cli.StringFlag{Name: "data", Usage: "also write every plotted number to `FILE`.csv (series, quantity, x, y with units, label)"},
	}
}

// seriesFlags select the combinations a series figure draws.
func seriesFlags() []cli.Flag {
	return append(workloadFlags(),
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "models: `LIST` of names, Hugging Face ids, Ollama tags or files (required)"},
		&cli.StringFlag{Name: "hardware", Aliases: []string{"hw"}, Usage: "devices: `LIST` of names, globs (jetson-*) or files (required)"},
		&cli.StringFlag{Name: "runtime", Usage: "inference `RUNTIME` (roofline list runtimes); default: chosen for each model, format and device"},
		&cli.StringFlag{Name: "engine", Usage: "compute engines (`LIST`: gpu, cpu, npu); default: each device's default engine, or the first that runs the weights"},
		&cli.StringFlag{Name: "weights", Usage: "weight formats `LIST`; default: each engine's default_weights, else the checkpoint"},
		&cli.StringFlag{Name: "kv", Usage: "KV-cache format `FMT`; default: the engine's default_kv, else f16"},
		&cli.Float64Flag{Name: "bw-efficiency", Usage: "share of datasheet bandwidth achieved, from 0.0001 to 1; default: the engine's"},
		&cli.Float64Flag{Name: "compute-efficiency", Usage: "share of peak compute achieved, from 0.0001 to 1; default: the engine's"},
		&cli.StringFlag{Name: "overhead", Usage: "runtime memory `SIZE` beyond weights, KV and activations; default: the runtime's"},
		&cli.BoolFlag{Name: "no-flash-attn", Usage: "price unfused attention (KV read once per query head)"},
		threadsFlag("every core each CPU engine's profile counts"),
		&cli.StringFlag{Name: "ttft", Usage: "TTFT target drawn as a reference line (`DURATION`, e.g. 1s)"},
		&cli.StringFlag{Name: "tpot", Usage: "TPOT target drawn as a reference line (`DURATION`, e.g. 200ms)"},
		&cli.StringSliceFlag{Name: "measured", Usage: "measured runs to draw over the predictions, on their device's series (`FILE`, any format compare reads, or FILE@DEVICE for a file that names no device, such as llama-bench's, when several are plotted; repeatable)"},
		&cli.StringFlag{Name: "facet", Usage: "one panel per value of `DIM` (" + strings.Join(app.FacetDims, ", ") + ") or of two (device,model); default: by the first that leaves at most 8 series a panel, else the first two, when more than 8 would share one"},
	)
}

// runsFlags say what measured-run files do not.
func runsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `NAME` or file for every run; default: matched from the file"},
		&cli.StringFlag{Name: "hardware", Aliases: []string{"hw"}, Usage: "device `NAME` the runs were measured on (unless the file says)"},
		&cli.StringFlag{Name: "engine", Usage: "compute `ENGINE`; default: from the backend"},
		&cli.StringFlag{Name: "weights", Usage: "weight format `FMT` for every run"},
		&cli.StringFlag{Name: "kv", Usage: "KV-cache format `FMT` for every run"},
		&cli.StringSliceFlag{Name: "measured", Usage: "measured runs (`FILE`, or FILE@DEVICE for a file of another device than --hardware's; or give files as arguments)"},
	}
}

// figureFlags are a kind's flags: output, its params, its inputs.
func figureFlags(k *app.FigureKind) []cli.Flag {
	flags := plotFlags()
	for _, p := range k.Params {
		if p.Bool {
			flags = append(flags, &cli.BoolFlag{Name: p.Name, Aliases: p.Aliases, Usage: p.Usage})
			continue
		}
		if p.Int {
			v, _ := strconv.Atoi(p.Default)
			if p.Tokens {
				flags = append(flags, tokensFlag(p.Name, p.Aliases, v, p.Usage))
				continue
			}
			flags = append(flags, &cli.IntFlag{Name: p.Name, Aliases: p.Aliases, Value: v, Usage: p.Usage})
		} else {
			flags = append(flags, &cli.StringFlag{Name: p.Name, Aliases: p.Aliases, Value: p.Default, Usage: p.Usage})
		}
	}
	switch k.Inputs {
	case app.SeriesInputs:
		flags = append(flags, seriesFlags()...)
	case app.PlanInputs:
		flags = append(flags, planFlags()...)
	case app.SetupInputs:
		flags = append(flags, setupFlags()...)
	case app.RunsInputs:
		flags = append(flags, runsFlags()...)
	}
	return flags
}

// figureRequest reads a kind's flags into a request.
func figureRequest(c *cli.Context, k *app.FigureKind) (*app.FigureRequest, error) {
	req := &app.FigureRequest{Kind: k.Name, Params: map[string]string{}}
	for _, p := range k.Params {
		if p.Bool {
			if c.IsSet(p.Name) { // unset: the figure chooses
				req.Params[p.Name] = strconv.FormatBool(c.Bool(p.Name))
			}
			continue
		}
		req.Params[p.Name] = c.String(p.Name)
		if p.Int {
			req.Params[p.Name] = fmt.Sprint(c.Int(p.Name))
		}
	}
	var err error
	switch k.Inputs {
	case app.SeriesInputs:
		req.Series, err = seriesRequest(c)
	case app.PlanInputs:
		req.Plan, err = planRequest(c)
	case app.SetupInputs:
		req.Setup, err = selection(c)
	case app.RunsInputs:
		for _, a := range append(c.StringSlice("measured"), c.Args().Slice()...) {
			req.Runs.PerFile = append(req.Runs.PerFile, app.ParseMeasured(a))
		}
		if len(req.Runs.PerFile) == 0 {
			return nil, usageErr("give measured-run files as arguments or with --measured")
		}
		req.Runs.Options, err = compareOptions(c)
	}
	return req, err
}

// seriesRequest reads the seriesFlags.
func seriesRequest(c *cli.Context) (app.SeriesRequest, error) {
	for _, f := range []string{"model", "hardware"} {
		if c.String(f) == "" {
			return app.SeriesRequest{}, usageErr("--%s is required", f)
		}
	}
	r := app.SeriesRequest{Runtime: c.String("runtime"), KV: c.String("kv"), Facet: c.String("facet")}
	if err := listFlags(c, listInto{"model", &r.Models}, listInto{"hardware", &r.Devices}, listInto{"engine", &r.Engines}, listInto{"weights", &r.Weights}); err != nil {
		return r, err
	}
	for _, m := range c.StringSlice("measured") {
		r.Measured = append(r.Measured, app.ParseMeasured(m))
	}
	var err error
	if r.Workload, err = workload(c); err != nil {
		return r, err
	}
	if r.Options, err = simOptions(c); err != nil {
		return r, err
	}
	if err = threadsOption(c, &r.Options); err != nil { // a series' --max-context is its axis, not RKLLM's
		return r, err
	}
	r.Targets, err = targets(c)
	return r, err
}
