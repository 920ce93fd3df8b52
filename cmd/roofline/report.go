package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/roofline/roofline/cmd/roofline/internal/render"
	"github.com/roofline/roofline/cmd/roofline/internal/study"
)

const reportUsage = `roofline report STUDY.toml -o DIR [--force] [--quiet]

Turns a study file (docs/studies.md: devices, models, formats, a workload,
targets, measured runs, plots) into a report to share: DIR/report.md,
DIR/report.html (one self-contained file with inline SVG figures),
DIR/plots/*.png and *.svg, and DIR/results.csv and DIR/results.json with
every number in the report. The report opens with the answer (which
configurations meet the targets, the headline numbers, how close measured
runs came to the limit), then tables per device and model, the figures, the
assumptions with the source of every profile number, and the commands that
reproduce each part.

Every part is computed by the same commands a user would run (plan,
predict, compare, plot), in process; the report lists them. An existing DIR
is replaced only with --force; the report is built in a temporary directory
and moved into place, so a failure leaves nothing half-written.

Examples:
  roofline report docs/examples/voice-assistant.toml -o voice-report
  roofline report docs/examples/llama-bench-rtx4080.toml -o bench-report --force`

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "turn a study file into a Markdown and HTML report with tables, plots and data",
		UsageText: reportUsage,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the report into `DIR` (required)"},
			&cli.BoolFlag{Name: "force", Usage: "replace DIR if it exists"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
		},
		Action: reportAction,
	}
}

func reportAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErr("give one study file: roofline report STUDY.toml -o DIR")
	}
	out := c.String("out")
	if out == "" {
		return usageErr("-o DIR is required")
	}
	if fi, err := os.Stat(out); err == nil {
		if !fi.IsDir() {
			return usageErr("-o %s: exists and is not a directory", out)
		}
		if !c.Bool("force") {
			return usageErr("-o %s: the directory exists; --force replaces it", out)
		}
	}
	file := c.Args().First()
	st, perr := study.Load(file)
	if st == nil {
		return perr
	}
	env, err := environment(c)
	if err != nil {
		return err
	}
	// Every problem of the study at once: its shape and values, its names.
	if err := errors.Join(perr, study.Check(env, st)); err != nil {
		return err
	}
	steps := 0
	progress := func(step string) {
		steps++
		if !c.Bool("quiet") && isTerminal(c.App.ErrWriter) {
			fmt.Fprintf(c.App.ErrWriter, "roofline: [%d] %s\n", steps, step)
		}
	}
	rep, err := study.Run(env, st, progress)
	if err != nil {
		return flagged(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(out)), "."+filepath.Base(filepath.Clean(out))+".partial-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // gone once renamed
	n, err := render.Report(tmp, rep, appVersion(), "roofline report "+render.ShellQuote(file)+" -o "+render.ShellQuote(out))
	if err != nil {
		return err
	}
	if err := replaceDir(tmp, out); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "wrote %s (report.md, report.html, results.csv, results.json, %d figures)\n", out, n)
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// replaceDir moves the finished report into place, replacing out.
func replaceDir(tmp, out string) error {
	if _, err := os.Stat(out); err == nil {
		old := tmp + ".old"
		if err := os.Rename(out, old); err != nil {
			return err
		}
		if err := os.Rename(tmp, out); err != nil {
			os.Rename(old, out) // put the old report back
			return err
		}
		return os.RemoveAll(old)
	}
	return os.Rename(tmp, out)
}
