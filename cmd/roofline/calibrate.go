package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/roofline/roofline/cmd/roofline/internal/atomicfile"
	"github.com/roofline/roofline/cmd/roofline/internal/calibrate"
	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/report"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/units"
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
anywhere a hardware name does; predictions made with it carry a 90 %
interval. See docs/calibration.md.

Examples:
  roofline calibrate bench-*.json --hardware jetson-orin-nano-super-8gb -o orin.toml
  roofline predict --model llama-3.2-3b --hardware orin.toml --weights q4_k_m
  roofline calibrate runs.csv --hardware rtx-4090 --format json`

func calibrateCommand() *cli.Command {
	return &cli.Command{
		Name:      "calibrate",
		Usage:     "fit a device's efficiencies and overheads to measured runs",
		UsageText: calibrateUsage,
		ArgsUsage: "FILE...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "hardware", Aliases: []string{"hw"}, Usage: "device `NAME` or .toml profile the runs were measured on"},
			&cli.StringFlag{Name: "engine", Usage: "compute `ENGINE`; default: from the files' backend, else the device's default"},
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `NAME` when the files do not say"},
			&cli.StringFlag{Name: "weights", Usage: "weight format `FMT` when the files do not say"},
			&cli.StringFlag{Name: "kv", Usage: "KV-cache format `FMT` when the files do not say"},
			&cli.StringFlag{Name: "flash-attn", Usage: "`on` or off: override the files' flash-attention setting"},
			&cli.StringFlag{Name: "runtime", Usage: "runtime the runs used (`NAME`, roofline list runtimes); default: from the files"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the calibrated hardware profile to `FILE`"},
			&cli.StringFlag{Name: "name", Usage: "profile `NAME` for -o; default: DEVICE-calibrated"},
			formatFlag("text", "json"),
		},
		Action: calibrateAction,
	}
}

func calibrateAction(c *cli.Context) error {
	format, err := outputFormat(c, "text", "json")
	if err != nil {
		return err
	}
	if c.NArg() == 0 {
		return usageErr("calibrate: give one or more result files (- reads stdin)")
	}
	fa := c.String("flash-attn")
	if fa != "" && fa != "on" && fa != "off" {
		return usageErr("--flash-attn must be on or off, got %q", fa)
	}
	cat, err := catalog(c)
	if err != nil {
		return err
	}
	runs, err := readRuns(c, c.Args().Slice())
	if err != nil {
		return err
	}
	opt := calibrate.Options{
		Options: compare.Options{Hardware: c.String("hardware"), Engine: c.String("engine"), Runtime: c.String("runtime"), Model: c.String("model"),
			Weights: c.String("weights"), KV: c.String("kv"), FlashAttn: fa},
		Date: time.Now().UTC().Format("2006-01-02"),
	}
	res, err := calibrate.Calibrate(cat, runs, opt)
	if err != nil {
		if res != nil {
			for _, p := range res.Points {
				if p.Reason != "" {
					fmt.Fprintf(c.App.ErrWriter, "roofline: warning: %s: left out: %s\n", p.Run.Source(), p.Reason)
				}
			}
		}
		return fmt.Errorf("calibrate: %w", err)
	}
	name := c.String("name")
	if name == "" {
		name = res.Device.Name + "-calibrated"
	}
	if out := c.String("output"); out != "" {
		prof := res.Profile(name)
		// Check the profile reads back before writing it.
		if _, err := cat.Clone().AddFileBytes(out, prof); err != nil {
			return fmt.Errorf("calibrated profile does not validate: %w", err)
		}
		if err := atomicfile.Write(out, prof); err != nil {
			return err
		}
	}
	if format == "json" {
		return report.JSON(c.App.Writer, newCalibrationJSON(res, name, c.String("output")))
	}
	return writeCalibrationText(c.App.Writer, res, name, c.String("output"))
}

type calPointJSON struct {
	Source    string   `json:"source"`
	Test      string   `json:"test"`
	Model     string   `json:"model"`
	Weights   string   `json:"weights"`
	MeasuredS float64  `json:"measured_s"`
	FittedS   *float64 `json:"fitted_s"`
	Residual  *float64 `json:"residual"`
	Used      bool     `json:"used"`
	Reason    string   `json:"excluded_because,omitempty"`
}

type formatEffJSON struct {
	Weights   string  `json:"weights"`
	Bandwidth float64 `json:"bandwidth"`
	Stderr    float64 `json:"bandwidth_stderr"`
	Points    int     `json:"points"`
}

type calParamJSON struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Stderr float64 `json:"stderr"`
	Class  float64 `json:"class"`
	Unit   string  `json:"unit"`
}

type calibrationJSON struct {
	Hardware          string          `json:"hardware"`
	Engine            string          `json:"engine"`
	Runtime           string          `json:"runtime"`
	Profile           string          `json:"profile"`
	File              string          `json:"file,omitempty"`
	Parameters        []calParamJSON  `json:"parameters"`
	FormatBandwidth   []formatEffJSON `json:"format_bandwidth"`
	ClassBasis        string          `json:"class_basis"`
	DecodeClassShift  *float64        `json:"decode_class_over_fitted"`
	PrefillClassShift *float64        `json:"prefill_class_over_fitted"`
	NPoints           int             `json:"n_points"`
	NDecode           int             `json:"n_decode"`
	NPrefill          int             `json:"n_prefill"`
	R2Decode          *float64        `json:"r2_decode"`
	R2Prefill         *float64        `json:"r2_prefill"`
	LOOMdAPEDecode    *float64        `json:"loo_mdape_decode"`
	LOOMdAPEPrefill   *float64        `json:"loo_mdape_prefill"`
	ValidFor          map[string]any  `json:"valid_for"`
	Points            []calPointJSON  `json:"points"`
	Notes             []string        `json:"notes"`
}

// paramUnits are the units of the efficiency parameters as calibrate
// prints them.
var paramUnits = []string{"share", "s", "s", "share", "rows", "share", "s"}

func newCalibrationJSON(r *calibrate.Result, name, file string) calibrationJSON {
	e, cal := r.Engine, r.Engine.Calibration
	j := calibrationJSON{Hardware: r.Device.Name, Engine: e.Name, Runtime: r.Runtime.Name, Profile: name, File: file,
		ClassBasis: r.Class.Basis, DecodeClassShift: jnum(cal.DecodeShift), PrefillClassShift: jnum(cal.PrefillShift),
		NPoints: cal.DecodePoints + cal.PrefillPoints, NDecode: cal.DecodePoints, NPrefill: cal.PrefillPoints,
		R2Decode: jnum(cal.R2Decode), R2Prefill: jnum(cal.R2Prefill),
		LOOMdAPEDecode: jnum(cal.LOODecode), LOOMdAPEPrefill: jnum(cal.LOOPrefill),
		ValidFor: map[string]any{"device": cal.Device, "power_mode": cal.PowerMode, "engine": cal.Engine,
			"runtime": cal.Runtime, "build": cal.Build, "date": cal.Date, "files": cal.Files, "formats": cal.Formats, "max_batch": cal.MaxBatch},
		FormatBandwidth: []formatEffJSON{}, Notes: r.Notes}
	vals, class := cal.Efficiency.Parameters(), r.Class.Efficiency.Parameters()
	for i, n := range hardware.ParameterNames {
		j.Parameters = append(j.Parameters, calParamJSON{n, vals[i], r.Fit.SE[i], class[i], paramUnits[i]})
	}
	for _, f := range r.Formats {
		j.FormatBandwidth = append(j.FormatBandwidth, formatEffJSON{f.Weights, f.Efficiency, f.SE, f.Points})
	}
	if j.Notes == nil {
		j.Notes = []string{}
	}
	for _, p := range r.Points {
		pj := calPointJSON{Source: p.Run.Source(), Test: string(p.Run.Test), Model: p.Model, Weights: p.Weights,
			MeasuredS: p.Measured, Used: p.Used, Reason: p.Reason}
		if p.Used {
			pj.FittedS = jnum(p.Fitted)
			pj.Residual = jnum(p.Fitted/p.Measured - 1)
		}
		j.Points = append(j.Points, pj)
	}
	return j
}

func pctNum(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

func paramText(v float64, unit string) string {
	switch unit {
	case "s":
		return units.FormatDuration(v)
	case "rows":
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func writeCalibrationText(w io.Writer, r *calibrate.Result, name, file string) error {
	e, cal := r.Engine, r.Engine.Calibration
	fmt.Fprintf(w, "%s, %s engine, runtime %s: %d decode and %d prefill points used\n", r.Device.Name, e.Name, r.Runtime.Name, cal.DecodePoints, cal.PrefillPoints)
	fmt.Fprintf(w, "prior: the %s class (%s)\n\n", cal.Prior, r.Class.Basis)
	t := report.Table{Header: []string{"PARAMETER", "FITTED", "STD ERROR", "CLASS"}, Right: map[int]bool{1: true, 2: true, 3: true}}
	vals, class := cal.Efficiency.Parameters(), r.Class.Efficiency.Parameters()
	for i, n := range hardware.ParameterNames {
		t.Add(strings.ReplaceAll(n, "_", " "), paramText(vals[i], paramUnits[i]), "±"+paramText(r.Fit.SE[i], paramUnits[i]), paramText(class[i], paramUnits[i]))
	}
	for _, f := range r.Formats {
		t.Add("  bandwidth for "+f.Weights, fmt.Sprintf("%.3f", f.Efficiency), fmt.Sprintf("±%.3f", f.SE), fmt.Sprintf("%d decode runs", f.Points))
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	shift := func(v float64) string {
		if math.IsNaN(v) {
			return "—"
		}
		return fmt.Sprintf("%.2f×", v)
	}
	fmt.Fprintf(w, "\nagainst its class this board runs decode %s and prefill %s as fast (class time / fitted time)\n", shift(cal.DecodeShift), shift(cal.PrefillShift))
	fmt.Fprintf(w, "quality: R² decode %s, prefill %s; leave-one-out median error decode %s, prefill %s\n",
		fnum(cal.R2Decode), fnum(cal.R2Prefill), pctNum(cal.LOODecode), pctNum(cal.LOOPrefill))
	fmt.Fprintf(w, "valid for: %s (%s), engine %s, runtime %s, build %s\n\n", cal.Device, orDash(cal.PowerMode), cal.Engine, orDash(cal.Runtime), orDash(cal.Build))
	pt := report.Table{Header: []string{"SOURCE", "TEST", "MODEL", "WEIGHTS", "MEASURED", "FITTED", "RESIDUAL", "NOTE"}, Right: map[int]bool{4: true, 5: true, 6: true}}
	for _, p := range r.Points {
		fitted, resid, note := "", "", ""
		if p.Used {
			fitted = units.FormatDuration(p.Fitted)
			resid = fmt.Sprintf("%+.1f%%", 100*(p.Fitted/p.Measured-1))
		} else {
			note = "left out: " + p.Reason
		}
		unit := ""
		if p.Run.Test == "decode" {
			unit = "/step"
		}
		pt.Add(p.Run.Source(), testName(p.Run), p.Model, p.Weights, units.FormatDuration(p.Measured)+unit, fitted, resid, note)
	}
	if err := pt.WriteText(w); err != nil {
		return err
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nnote: %s", n)
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w)
	}
	if file != "" {
		fmt.Fprintf(w, "\nwrote %s (profile %s): use it as --hardware %s\n", file, name, file)
	}
	return nil
}

func fnum(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.3f", v)
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}
