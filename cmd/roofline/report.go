package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/atomicfile"
	"github.com/roofline/roofline/cmd/roofline/internal/buildinfo"
	"github.com/roofline/roofline/cmd/roofline/internal/render"
	"github.com/roofline/roofline/cmd/roofline/internal/study"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/safeio"
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
predict, compare, plot), in process; the report lists them. The report is
built in .DIR.partial-* beside DIR and moved into place, so a failure or an
interrupt (Ctrl-C, SIGTERM) leaves nothing half-written; a run killed
outright leaves its partial directory for the next run to remove. An
existing DIR is replaced only with --force, and only when roofline wrote it
(its .roofline file lists every file in it with its SHA-256, and each is
still as roofline wrote it) and it holds nothing else: not the study, not a
file of yours.

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
			&cli.BoolFlag{Name: "force", Usage: "replace DIR if roofline wrote it and it holds nothing else"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress and no list of figures on stderr"},
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
	file := c.Args().First()
	opts := atomicfile.DirOptions{Force: c.Bool("force"), Keep: []string{file}, Version: appVersion(),
		Command: "roofline report " + render.ShellQuote(file) + " -o " + render.ShellQuote(out)}
	// The output first: a refusal costs nothing.
	if _, err := atomicfile.CheckDir(out, opts); err != nil {
		return outputErr("-o", err)
	}
	env, err := environment(c)
	if err != nil {
		return err
	}
	st, perr := loadStudy(env, file)
	if st == nil {
		return perr
	}
	// Every problem of the study at once: its shape and values, its names.
	if perr != nil {
		_, cerr := study.Check(env, st)
		return errors.Join(perr, cerr)
	}
	env, err = study.Check(env, st)
	if err != nil {
		return err
	}
	// What the study reads survives: a directory holding it is not replaced.
	opts.Keep = append(opts.Keep, st.Profiles...)
	for _, m := range st.Measured {
		opts.Keep = append(opts.Keep, m.File)
	}
	dir, err := atomicfile.NewDir(out, opts)
	if err != nil {
		return outputErr("-o", err)
	}
	defer dir.Abort() // nothing once committed
	for _, p := range dir.Cleaned {
		fmt.Fprintf(c.App.ErrWriter, "roofline: removed %s, left by a report that was killed before it finished\n", p)
	}
	steps := 0
	progress := func(step string) {
		steps++
		if !c.Bool("quiet") && isTerminal(c.App.ErrWriter) {
			fmt.Fprintf(c.App.ErrWriter, "roofline: [%d] %s\n", steps, step)
		}
	}
	w, err := render.NewReport(dir, st, buildinfo.Read(), opts.Command)
	if err != nil {
		return err
	}
	defer w.Close()
	rep, err := study.Run(env, st, progress, w.Group)
	if err != nil {
		return flagged(err)
	}
	drawn, err := w.Write(rep)
	if err != nil {
		return err
	}
	if !c.Bool("quiet") {
		figureLines(c.App.ErrWriter, drawn, rep.Skipped)
	}
	old, err := dir.Commit()
	if err != nil {
		return outputErr("-o", err)
	}
	fmt.Fprintf(c.App.Writer, "wrote %s (report.md, report.html, results.csv, results.json, %d figures)\n", out, len(drawn))
	if old != nil {
		fmt.Fprintf(c.App.Writer, "replaced %s\n", old)
	}
	return nil
}

// loadStudy reads the study file, "-" from standard input (its relative
// paths are then relative to the working directory).
func loadStudy(env *app.Env, file string) (*study.Study, error) {
	if file != "-" {
		return study.Load(file)
	}
	src, err := env.ReadStdin("the study", limits.ProfileBytes, "a study file")
	if err != nil {
		return nil, err
	}
	return study.Parse("stdin", src)
}

// figureLines say on stderr which figures a report drew and why any
// default one was skipped: a reader of the terminal should not have to
// find that in the report's notes.
func figureLines(w io.Writer, drawn []render.DrawnFigure, skipped []study.SkippedFigure) {
	var names []string
	for _, f := range drawn {
		n := f.Kind
		if f.Panels > 1 {
			n += fmt.Sprintf(" (%d panels)", f.Panels)
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		names = []string{"none"}
	}
	fmt.Fprintf(w, "roofline: figures: %s\n", strings.Join(names, ", "))
	for _, s := range skipped {
		io.WriteString(w, safeio.Clip(fmt.Sprintf("roofline: no %s figure: %s\n", s.Kind, s.Reason)))
	}
}

// outputErr is a refused output file or directory (exit 2: how roofline
// was called), else err.
func outputErr(flag string, err error) error {
	var ee *atomicfile.ExistsError
	if errors.As(err, &ee) {
		return usageErr("%s %v", flag, err)
	}
	return err
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
