package render

import (
	"fmt"
	"math"
	"strings"

	"github.com/roofline/roofline/units"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/calibrate"
	"github.com/roofline/roofline/hardware"
)

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
	// HeldOutFolds is how many refits the loo_mdape figures took: one
	// per point up to calibrate.MaxFolds points.
	HeldOutFolds int            `json:"held_out_folds"`
	ValidFor     map[string]any `json:"valid_for"`
	Points       []calPointJSON `json:"points"`
	Notes        []string       `json:"notes"`
}

// paramUnits are the units of the efficiency parameters, by their names
// (hardware.ParameterNames): a parameter added without one is printed as a
// plain number, not read past the end of a list (TestParamUnitsCoverEveryParameter).
var paramUnits = map[string]string{
	"bandwidth": "share", "step_overhead": "s", "layer_overhead": "s", "compute_max": "share", "half_rows": "rows",
	"attention": "share", "pass_overhead": "s", "unit_bandwidth": "B/s", "dequant": "share", "unit_compute": "FLOP/s",
	"host_work": "FLOP", "kquant_gemv": "share", "read_share": "share",
}

// unused reports whether parameter i is one a class and its calibration
// do without (a cap per unit on the products, host work, the K-quant
// decode bound, the share of a measured read: zero in both),
// which the answer leaves out; and a read share the calibration holds
// none of, whatever its class's: the device has no measured read for it
// to be a share of (calibrate.ClassPrior).
func unused(i int, vals, class []float64) bool {
	n := hardware.ParameterNames[i]
	return (n == "unit_compute" || n == "host_work" || n == "kquant_gemv" || n == "read_share") && vals[i] == 0 && (class[i] == 0 || n == "read_share")
}

// num is a JSON number that is null when undefined.
func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// Calibration is `roofline calibrate`.
func Calibration(c *app.Calibration) Answer {
	return answer{doc: func() *Doc { return calibrationDoc(c) }, data: func() any { return newCalibrationJSON(c) }}
}

func newCalibrationJSON(c *app.Calibration) calibrationJSON {
	r := c.Result
	e, cal := r.Engine, r.Engine.Calibration
	j := calibrationJSON{Hardware: r.Device.Name, Engine: e.Name, Runtime: r.Runtime.Name, Profile: c.Name, File: c.Output,
		ClassBasis: r.Class.Basis, DecodeClassShift: num(cal.DecodeShift), PrefillClassShift: num(cal.PrefillShift),
		NPoints: cal.DecodePoints + cal.PrefillPoints, NDecode: cal.DecodePoints, NPrefill: cal.PrefillPoints,
		R2Decode: num(cal.R2Decode), R2Prefill: num(cal.R2Prefill),
		LOOMdAPEDecode: num(cal.LOODecode), LOOMdAPEPrefill: num(cal.LOOPrefill), HeldOutFolds: r.Folds,
		ValidFor: map[string]any{"device": cal.Device, "power_mode": cal.PowerMode, "engine": cal.Engine,
			"runtime": cal.Runtime, "build": cal.Build, "date": cal.Date, "files": cal.Files, "formats": cal.Formats, "max_batch": cal.MaxBatch},
		FormatBandwidth: []formatEffJSON{}, Notes: r.Notes}
	vals, class := cal.Efficiency.Parameters(), r.Class.Efficiency.Parameters()
	for i, n := range hardware.ParameterNames {
		if !unused(i, vals, class) {
			j.Parameters = append(j.Parameters, calParamJSON{n, vals[i], r.Fit.SE[i], class[i], paramUnits[n]})
		}
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
			pj.FittedS = num(p.Fitted)
			pj.Residual = num(p.Fitted/p.Measured - 1)
		}
		j.Points = append(j.Points, pj)
	}
	return j
}

func paramText(v float64, unit string) string {
	switch unit {
	case "s":
		return Duration(v)
	case "rows":
		return units.Sig(v, 3)
	case "B/s":
		if v == 0 {
			return "none"
		}
		return units.FormatExact(v, units.DimBandwidth)
	case "FLOP/s":
		if v == 0 {
			return "none"
		}
		return units.FormatExact(v, units.DimRate)
	case "FLOP":
		return units.Sig(v, 3) + " FLOP"
	}
	return Fixed(v, 3)
}

func calibrationDoc(c *app.Calibration) *Doc {
	r := c.Result
	e, cal := r.Engine, r.Engine.Calibration
	doc := &Doc{}
	doc.Line("%s, %s engine, runtime %s: %d decode and %d prefill points used", r.Device.Name, e.Name, r.Runtime.Name, cal.DecodePoints, cal.PrefillPoints)
	doc.Para(fmt.Sprintf("prior: the %s class (%s)", cal.Prior, r.Class.Basis))
	t := NewTable("PARAMETER", "FITTED", "STD ERROR", "CLASS").Right(1, 2, 3)
	vals, class := cal.Efficiency.Parameters(), r.Class.Efficiency.Parameters()
	for i, n := range hardware.ParameterNames {
		if !unused(i, vals, class) {
			// A parameter the fit held (its class's, or none) has no error.
			se := "held"
			if r.Fit.SE[i] > 0 {
				se = "±" + paramText(r.Fit.SE[i], paramUnits[n])
			}
			t.Add(strings.ReplaceAll(n, "_", " "), paramText(vals[i], paramUnits[n]), se, paramText(class[i], paramUnits[n]))
		}
	}
	for _, f := range r.Formats {
		t.Add("  bandwidth for "+f.Weights, Fixed(f.Efficiency, 3), "±"+Fixed(f.SE, 3), fmt.Sprintf("%d decode runs", f.Points))
	}
	doc.Table(t)
	doc.Both(fmt.Sprintf("\nagainst its class this board runs decode %s and prefill %s as fast (class time / fitted time)\n", Factor(cal.DecodeShift), Factor(cal.PrefillShift)))
	held := "leave-one-out"
	if r.Folds < cal.DecodePoints+cal.PrefillPoints {
		held = fmt.Sprintf("held-out (%d folds)", r.Folds)
	}
	r2 := func(v float64, points int) string {
		if math.IsNaN(v) && points >= 2 {
			return "undefined (the measured times vary by under 1 %)"
		}
		return Fixed(v, 3)
	}
	doc.Line("quality: R² decode %s, prefill %s; %s median error decode %s, prefill %s",
		r2(cal.R2Decode, cal.DecodePoints), r2(cal.R2Prefill, cal.PrefillPoints), held, Percent1(cal.LOODecode), Percent1(cal.LOOPrefill))
	doc.Para(fmt.Sprintf("valid for: %s (%s), engine %s, runtime %s, build %s", cal.Device, OrDash(cal.PowerMode), cal.Engine, OrDash(cal.Runtime), OrDash(cal.Build)))
	doc.Table(pointsTable(r.Points))
	var notes string
	for _, n := range r.Notes {
		notes += "\nnote: " + n
	}
	if len(r.Notes) > 0 {
		notes += "\n"
	}
	if c.Output != "" {
		notes += fmt.Sprintf("\nwrote %s (profile %s): use it as --hardware %s\n", c.Output, c.Name, c.Output)
	}
	doc.Both(notes)
	return doc
}

func pointsTable(points []calibrate.Point) *Table {
	t := NewTable("SOURCE", "TEST", "MODEL", "WEIGHTS", "MEASURED", "FITTED", "RESIDUAL", "NOTE").Right(4, 5, 6)
	for _, p := range points {
		fitted, resid, note := "", "", ""
		if p.Used {
			fitted = Duration(p.Fitted)
			resid = fmt.Sprintf("%+.1f%%", 100*(p.Fitted/p.Measured-1))
		} else {
			note = "left out: " + p.Reason
		}
		unit := ""
		if p.Run.Test == "decode" {
			unit = "/step"
		}
		t.Add(p.Run.Source(), TestName(p.Run), p.Model, p.Weights, Duration(p.Measured)+unit, fitted, resid, note)
	}
	return t
}
