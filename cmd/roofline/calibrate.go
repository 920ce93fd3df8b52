package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/roofline/roofline/cmd/roofline/internal/atomicfile"
	"github.com/roofline/roofline/cmd/roofline/internal/calibrate"
	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/report"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

const calibrateUsage = `roofline calibrate FILE... --hardware H [--engine E] [--model M] [-o calibrated.toml]

Fits the device engine's bandwidth efficiency and decode overhead (from
decode tests) and compute efficiency and prefill overhead (from compute-bound
prefill tests) to measured runs, by least squares weighted by relative error
over the same byte and FLOP account predictions use. Reports standard
errors, R², each point's residual, and the leave-one-out median error: how
well the calibrated profile predicts a run it has not seen. With -o it writes
a hardware profile that works anywhere a hardware name does; predictions made
with it carry a 90 % interval. See docs/calibration.md.

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
			&cli.StringFlag{Name: "runtime", Usage: "runtime and version the runs used (`LABEL`); default: from the files"},
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
		Options: compare.Options{Hardware: c.String("hardware"), Engine: c.String("engine"), Model: c.String("model"),
			Weights: c.String("weights"), KV: c.String("kv"), FlashAttn: fa},
		Runtime: c.String("runtime"),
		Date:    time.Now().UTC().Format("2006-01-02"),
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
		var buf bytes.Buffer
		if err := res.WriteProfile(&buf, name); err != nil {
			return err
		}
		// Check the profile reads back before writing it.
		if _, err := cat.Clone().AddFileBytes(out, buf.Bytes()); err != nil {
			return fmt.Errorf("calibrated profile does not validate: %w", err)
		}
		if err := atomicfile.Write(out, buf.Bytes()); err != nil {
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
	Weights      string  `json:"weights"`
	BWEfficiency float64 `json:"bw_efficiency"`
	Stderr       float64 `json:"bw_efficiency_stderr"`
}

type calibrationJSON struct {
	Hardware                string          `json:"hardware"`
	Engine                  string          `json:"engine"`
	Profile                 string          `json:"profile"`
	File                    string          `json:"file,omitempty"`
	BWEfficiency            float64         `json:"bw_efficiency"`
	BWEfficiencyStderr      float64         `json:"bw_efficiency_stderr"`
	FormatBWEfficiency      []formatEffJSON `json:"format_bw_efficiency"`
	DecodeOverheadS         float64         `json:"decode_overhead_s"`
	DecodeOverheadStderrS   float64         `json:"decode_overhead_stderr_s"`
	ComputeEfficiency       float64         `json:"compute_efficiency"`
	ComputeEfficiencyStderr float64         `json:"compute_efficiency_stderr"`
	PrefillOverheadS        float64         `json:"prefill_overhead_s"`
	PrefillOverheadStderrS  float64         `json:"prefill_overhead_stderr_s"`
	DecodeFitted            bool            `json:"decode_fitted"`
	PrefillFitted           bool            `json:"prefill_fitted"`
	NPoints                 int             `json:"n_points"`
	NDecode                 int             `json:"n_decode"`
	NPrefill                int             `json:"n_prefill"`
	R2                      *float64        `json:"r2"`
	R2Decode                *float64        `json:"r2_decode"`
	R2Prefill               *float64        `json:"r2_prefill"`
	LOOMdAPEDecode          *float64        `json:"loo_mdape_decode"`
	LOOMdAPEPrefill         *float64        `json:"loo_mdape_prefill"`
	ValidFor                map[string]any  `json:"valid_for"`
	Points                  []calPointJSON  `json:"points"`
	Notes                   []string        `json:"notes"`
}

func newCalibrationJSON(r *calibrate.Result, name, file string) calibrationJSON {
	e, cal := r.Engine, r.Engine.Calibration
	j := calibrationJSON{Hardware: r.Device.Name, Engine: e.Name, Profile: name, File: file,
		BWEfficiency: e.BandwidthEfficiency, BWEfficiencyStderr: r.BandwidthEfficiencySE,
		DecodeOverheadS: e.DecodeOverhead, DecodeOverheadStderrS: r.DecodeOverheadSE,
		ComputeEfficiency: e.ComputeEfficiency, ComputeEfficiencyStderr: r.ComputeEfficiencySE,
		PrefillOverheadS: e.PrefillOverhead, PrefillOverheadStderrS: r.PrefillOverheadSE,
		DecodeFitted: r.DecodeFitted, PrefillFitted: r.PrefillFitted,
		NPoints: cal.DecodePoints + cal.PrefillPoints, NDecode: cal.DecodePoints, NPrefill: cal.PrefillPoints,
		R2: jnum(r.R2), R2Decode: jnum(cal.R2Decode), R2Prefill: jnum(cal.R2Prefill),
		LOOMdAPEDecode: jnum(cal.LOODecode), LOOMdAPEPrefill: jnum(cal.LOOPrefill),
		ValidFor: map[string]any{"device": cal.Device, "power_mode": cal.PowerMode, "engine": cal.Engine,
			"runtime": cal.Runtime, "build": cal.Build, "date": cal.Date, "files": cal.Files},
		FormatBWEfficiency: []formatEffJSON{}, Notes: r.Notes}
	if !r.DecodeFitted {
		j.LOOMdAPEDecode, j.R2Decode = nil, nil
	}
	if !r.PrefillFitted {
		j.LOOMdAPEPrefill, j.R2Prefill = nil, nil
	}
	for _, f := range r.FormatSE {
		j.FormatBWEfficiency = append(j.FormatBWEfficiency, formatEffJSON{f.Weights, f.Efficiency, f.SE})
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

func writeCalibrationText(w io.Writer, r *calibrate.Result, name, file string) error {
	e, cal := r.Engine, r.Engine.Calibration
	fmt.Fprintf(w, "%s, %s engine: %d decode and %d prefill points used\n\n", r.Device.Name, e.Name, cal.DecodePoints, cal.PrefillPoints)
	t := report.Table{Header: []string{"PARAMETER", "FITTED", "STD ERROR", "FROM"}, Right: map[int]bool{1: true, 2: true}}
	from := func(fitted bool, phase string) string {
		if fitted {
			return phase + " runs"
		}
		return "default rule (not enough " + phase + " runs)"
	}
	t.Add("bandwidth efficiency", fmt.Sprintf("%.3f", e.BandwidthEfficiency), fmt.Sprintf("±%.3f", r.BandwidthEfficiencySE), from(r.DecodeFitted, "decode"))
	for _, f := range r.FormatSE {
		t.Add("  for "+f.Weights, fmt.Sprintf("%.3f", f.Efficiency), fmt.Sprintf("±%.3f", f.SE), "decode runs of that format")
	}
	t.Add("decode overhead", units.FormatDuration(e.DecodeOverhead), "±"+units.FormatDuration(r.DecodeOverheadSE), from(r.DecodeFitted, "decode")+", per step")
	t.Add("compute efficiency", fmt.Sprintf("%.3f", e.ComputeEfficiency), fmt.Sprintf("±%.3f", r.ComputeEfficiencySE), from(r.PrefillFitted, "compute-bound prefill"))
	t.Add("prefill overhead", units.FormatDuration(e.PrefillOverhead), "±"+units.FormatDuration(r.PrefillOverheadSE), from(r.PrefillFitted, "compute-bound prefill")+", per pass")
	if err := t.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nquality: R² decode %s, prefill %s; leave-one-out median error decode %s, prefill %s\n",
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
