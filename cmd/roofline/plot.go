package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/plot/vg"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/atomicfile"
	"github.com/roofline/roofline/cmd/roofline/internal/plots"
	"github.com/roofline/roofline/cmd/roofline/internal/render"
)

const plotUsage = `roofline plot KIND [flags] -o FILE.png|.svg|.pdf

Draws one figure from the same predictions as predict, compare and plan.
--model, --hardware and --weights take comma-separated lists; every
combination becomes one series with a legend entry. An existing -o or
--data file is replaced only with --force. Expected curves are
solid, the physical limit (100 % of peak, no overhead) dashed; targets are
red reference lines; --measured files (any format compare reads) add the
measured points, labelled with their MBU. The same inputs give
byte-identical SVG.

Kinds:
KINDS
Examples:
  roofline plot tpot-context --model llama-3.2-3b --hardware jetson-orin-nano-super-8gb,rk3588 --weights q4_k_m -o tpot.png
  roofline plot roofline --model llama-3.1-8b --hardware rtx-4090 --measured bench.json -o roofline.svg
  roofline plot plan --model llama-3.2-3b --hardware 'jetson-orin-nano-super-*,rk3588' --weights q4_k_m,q8_0,w8a8 --ttft 1s --tpot 200ms -o plan.pdf`

// plotCommand has one subcommand per kind of the registry (app.Figures),
// with the flags of the kind's inputs and params.
func plotCommand() *cli.Command {
	var kinds strings.Builder
	var subs []*cli.Command
	for _, k := range app.Figures {
		fmt.Fprintf(&kinds, "  %-13s %s\n", k.Name, k.Usage)
		subs = append(subs, &cli.Command{Name: k.Name, Usage: k.Usage, Flags: figureFlags(k),
			UsageText: "roofline plot " + k.Name + " [flags] -o FILE", Action: plotAction(k)})
	}
	return &cli.Command{
		Name:        "plot",
		Usage:       "draw roofline charts, latency curves, memory, comparisons and plans (PNG, SVG, PDF)",
		UsageText:   strings.Replace(plotUsage, "KINDS\n", kinds.String()+"\n", 1),
		Subcommands: subs,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageErr("give a kind: roofline plot KIND (%s)", strings.Join(app.FigureNames(), ", "))
			}
			_, err := app.FigureKindOf(c.Args().First())
			return usageErr("%v", err)
		},
	}
}

// plotAction draws one kind: it checks the output, asks the app for the
// figure and saves it (and its data) atomically.
func plotAction(k *app.FigureKind) cli.ActionFunc {
	return func(c *cli.Context) error {
		out := c.String("out")
		if out == "" {
			return usageErr("-o FILE is required (.png, .svg or .pdf)")
		}
		format, err := plots.FormatOf(out)
		if err != nil {
			return usageErr("-o %v", err)
		}
		outs := []string{out}
		if d := c.String("data"); d != "" {
			if !strings.EqualFold(filepath.Ext(d), ".csv") {
				return usageErr("--data %s: want a .csv file", d)
			}
			outs = append(outs, d)
		}
		if err := atomicfile.CheckFiles(c.Bool("force"), outs...); err != nil {
			return outputErr("-o/--data", err)
		}
		w, err := parseLength("width", c.String("width"))
		if err != nil {
			return err
		}
		height := c.String("height")
		if height == "" {
			height = "10cm"
			if k.Tall {
				height = "14cm"
			}
		}
		h, err := parseLength("height", height)
		if err != nil {
			return err
		}
		if k.Inputs != app.RunsInputs {
			if err := noExtraArgs(c, 0); err != nil {
				return err
			}
		}
		req, err := figureRequest(c, k)
		if err != nil {
			return err
		}
		env, err := environment(c)
		if err != nil {
			return err
		}
		f, err := env.Figure(req)
		if f != nil {
			render.Warn(c.App.ErrWriter, f.Warnings...)
		}
		if err != nil {
			return flagged(err)
		}
		if t := c.String("title"); t != "" {
			f.Title = t
		}
		if !c.IsSet("height") {
			h = f.Height(w, h) // room for the legend, facets and rows
		}
		img, err := plots.Render(f.Figure, format, w, h)
		if err != nil {
			return err
		}
		files := []atomicfile.File{{Path: out, Data: img}}
		if d := c.String("data"); d != "" {
			files = append(files, atomicfile.File{Path: d, Data: f.CSV()})
		}
		if err := atomicfile.WriteAll(c.Bool("force"), files...); err != nil {
			return outputErr("-o/--data", err)
		}
		for _, f := range files {
			fmt.Fprintf(c.App.Writer, "wrote %s\n", f.Path)
		}
		return nil
	}
}

// parseLength reads 16cm, 160mm, 6in or 450pt.
func parseLength(flag, s string) (vg.Length, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	for _, u := range []struct {
		suffix string
		unit   vg.Length
	}{{"cm", vg.Centimeter}, {"mm", vg.Millimeter}, {"in", vg.Inch}, {"pt", vg.Points(1)}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || !(v > 0) || v > 1e4 {
				break
			}
			l := vg.Length(v) * u.unit
			if l < 4*vg.Centimeter || l > 200*vg.Centimeter {
				return 0, usageErr("--%s %q: want between 4 cm and 2 m", flag, s)
			}
			return l, nil
		}
	}
	return 0, usageErr("--%s %q: want a length such as 16cm, 160mm, 6in or 450pt", flag, s)
}
