package main

import (
	"time"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/atomicfile"
	"github.com/roofline/roofline/cmd/roofline/internal/render"

	"github.com/roofline/roofline/cmd/roofline/internal/calibrate"
	"github.com/urfave/cli/v2"
)

const calibrateUsage = `roofline calibrate FILE... --hardware H [--engine E] [--model M] [-o calibrated.toml]

Fits the device engine's efficiency under the runtime the runs used —
bandwidth share and per-step costs from decode tests, matrix-product and
attention efficiency and per-pass cost from prefill tests — to measured
runs, by least squares on relative error over the same byte and FLOP
account predictions use, starting from the runtime's class (fitted to
published runs) as the prior: two or three runs already give a sound
profile. Reports each parameter with its standard error beside the class,
how far the board sits from its class, R², each point's residual, and the
leave-one-out median error. With -o it writes a hardware profile that works
anywhere a hardware name does (replacing a file only with --force);
predictions made with it carry a 90 % interval. See docs/calibration.md.

Examples:
  roofline calibrate bench-*.json --hardware jetson-orin-nano-super-8gb -o orin.toml
  roofline predict --model llama-3.2-3b --hardware orin.toml --weights q4_k_m
  roofline calibrate runs.csv --hardware rtx-4090 --format json`

var calibrateFormats = render.DocFormats

func calibrateCommand() *cli.Command {
	return &cli.Command{
		Name:      "calibrate",
		Usage:     "fit a device's efficiencies and overheads to measured runs",
		UsageText: calibrateUsage,
		ArgsUsage: "FILE...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "hardware", Aliases: []string{"hw"}, Usage: "device `NAME` (NAME@MODE for a power mode) or .toml profile the runs were measured on"},
			&cli.StringFlag{Name: "engine", Usage: "compute `ENGINE`; default: from the files' backend, else the device's default"},
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `NAME` when the files do not say"},
			&cli.StringFlag{Name: "weights", Usage: "weight format `FMT` when the files do not say"},
			&cli.StringFlag{Name: "kv", Usage: "KV-cache format `FMT` when the files do not say"},
			&cli.StringFlag{Name: "flash-attn", Usage: "`on` or off: override the files' flash-attention setting"},
			&cli.StringFlag{Name: "runtime", Usage: "runtime the runs used (`NAME`, roofline list runtimes); default: from the files"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the calibrated hardware profile to `FILE`"},
			&cli.StringFlag{Name: "name", Usage: "profile `NAME` for -o; default: DEVICE-calibrated"},
			&cli.BoolFlag{Name: "force", Usage: "replace the -o file if it exists"},
			formatFlag(calibrateFormats),
		},
		Action: calibrateAction,
	}
}

func calibrateAction(c *cli.Context) error {
	f, o, env, err := runsCommand(c, calibrateFormats, "calibrate")
	if err != nil {
		return err
	}
	if out := c.String("out"); out != "" {
		if err := atomicfile.CheckFile(out, c.Bool("force")); err != nil {
			return outputErr("-o", err)
		}
	}
	cal, err := env.Calibrate(app.CalibrateRequest{Files: c.Args().Slice(), Name: c.String("name"), Output: c.String("out"), Force: c.Bool("force"),
		Options: calibrate.Options{Options: o, Date: time.Now().UTC().Format("2006-01-02")}})
	render.Warn(c.App.ErrWriter, cal.Warnings...)
	if err != nil {
		return outputErr("-o", err)
	}
	return write(c, f, render.Calibration(cal))
}
