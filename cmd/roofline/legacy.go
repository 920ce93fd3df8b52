package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/cmd/roofline/internal/render"
	"github.com/roofline/roofline/cmd/roofline/internal/report"
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
	"github.com/urfave/cli/v2"
)

// catalog returns the built-in profiles plus any --profiles directories.
func catalog(c *cli.Context) (*profiles.Catalog, error) {
	env, err := environment(c)
	if err != nil {
		return nil, err
	}
	return env.Catalog, nil
}

func lookupWeights(name string) (model.WeightFormat, error) {
	w, err := model.LookupWeightFormat(name)
	if err != nil {
		return w, fmt.Errorf("--weights: %w%s", err, knownHint(err))
	}
	return w, nil
}

func lookupKV(name string) (model.KVFormat, error) {
	k, err := model.LookupKVFormat(name)
	if err != nil {
		return k, fmt.Errorf("--kv: %w%s", err, knownHint(err))
	}
	return k, nil
}

func knownHint(err error) string {
	if u, ok := err.(*model.UnknownError); ok {
		return " (known: " + strings.Join(u.Known, ", ") + ")"
	}
	return ""
}

type comparisonJSON = render.ComparisonJSON

var testName = render.TestName

func readRuns(c *cli.Context, files []string) ([]measured.Run, error) {
	env, err := environment(c)
	if err != nil {
		return nil, err
	}
	runs, err := env.ReadRuns(files)
	render.Warn(c.App.ErrWriter, runs.Warnings...)
	return runs.Runs, err
}

type predictJSON = render.PredictJSON

type num = *float64

var dur = render.Duration

var durp = render.OptDuration

// docWriter writes a command's report as text or Markdown.
type docWriter struct {
	w  io.Writer
	md bool
}

func (d docWriter) table(t report.Table) error {
	if d.md {
		return t.WriteMarkdown(d.w)
	}
	return t.WriteText(d.w)
}

func (d docWriter) heading(s string, capital bool) {
	switch {
	case d.md:
		fmt.Fprintf(d.w, "\n### %s\n\n", s)
	case capital:
		fmt.Fprintf(d.w, "\n%s\n", strings.ToUpper(s[:1])+s[1:])
	default:
		fmt.Fprintf(d.w, "\n%s\n", s)
	}
}

func resolveSetup(c *cli.Context, cat *profiles.Catalog, modelFlag, weights string) (*sim.Setup, error) {
	sel, err := selection(c)
	if err != nil {
		return nil, err
	}
	sel.Model, sel.Weights = c.String(modelFlag), weights
	r, err := resolve.Resolve(cat, sel)
	if err != nil {
		return nil, flagged(err, "model", modelFlag)
	}
	return r.Setup, nil
}
