package main

import (
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/render"
	"github.com/roofline/roofline/profiles"
	"github.com/urfave/cli/v2"
)

const listUsage = `roofline list hardware|models|formats|runtimes [--format text|json|markdown]

Lists the built-in devices (with their variants: power modes and smaller
configurations), models, weight and KV-cache formats, or inference runtimes,
plus any profiles loaded with --profiles.

Examples:
  roofline list hardware
  roofline list models --format json
  roofline list runtimes
  roofline --profiles ./my-profiles list hardware`

var listFormats = render.DocFormats

func listCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list built-in hardware, models, formats or runtimes",
		UsageText: listUsage,
		ArgsUsage: "hardware|models|formats|runtimes",
		Flags:     []cli.Flag{formatFlag(listFormats)},
		Action:    listAction,
	}
}

func listAction(c *cli.Context) error {
	f, err := outputFormat(c, listFormats)
	if err != nil {
		return err
	}
	if err := noExtraArgs(c, 1); err != nil {
		return err
	}
	env, err := environment(c)
	if err != nil {
		return err
	}
	var a render.Answer
	switch c.Args().First() {
	case "hardware", "devices", "hw":
		a = render.DeviceList(env.Devices())
	case "models", "model":
		ms, err := env.Models()
		if err != nil {
			return err
		}
		a = render.ModelList(ms)
	case "formats", "format", "quantizations":
		a = render.FormatList(app.AllFormats())
	case "runtimes", "runtime":
		a = render.RuntimeList(env.Runtimes())
	case "":
		return usageErr("list what? give one of: hardware, models, formats, runtimes")
	default:
		what := c.Args().First()
		if s := profiles.Suggest(what, []string{"hardware", "models", "formats", "runtimes"}); len(s) > 0 {
			return usageErr("cannot list %q; did you mean %s?", what, strings.Join(s, ", "))
		}
		return usageErr("cannot list %q: give one of hardware, models, formats, runtimes", what)
	}
	return write(c, f, a)
}
