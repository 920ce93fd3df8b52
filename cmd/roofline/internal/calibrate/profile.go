package calibrate

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/units"
)

// WriteProfile writes the calibrated device as a complete hardware profile
// named name: every figure of the original with its source, and the fitted
// engine's efficiencies, overheads and uncertainty. Numbers are written at
// full precision so that predicting from the file reproduces the fit.
func (r *Result) WriteProfile(w io.Writer, name string) error {
	d := r.calibratedDevice()
	var b strings.Builder
	cal := r.Engine.Calibration
	fmt.Fprintf(&b, "# Calibrated by roofline calibrate from %s.\n", strings.Join(cal.Files, ", "))
	fmt.Fprintf(&b, "# Valid for %s (%s), engine %s, runtime %s, build %s. Schema: docs/profiles.md.\n",
		cal.Device, orDash(cal.PowerMode), cal.Engine, orDash(cal.Runtime), orDash(cal.Build))
	kv := func(k, v string) { fmt.Fprintf(&b, "%s = %s\n", k, v) }
	q := func(k, v string) {
		if v != "" {
			kv(k, quote(v))
		}
	}
	// field writes a sourced figure under TOML key `key`, citing the
	// device's source for `src`.
	field := func(key, src string, v float64, unit string) {
		if v != 0 {
			kv(key, fmt.Sprintf("{ value = %s, source = %s }", quote(g(v)+" "+unit), quote(d.Sources[src])))
		}
	}
	num := func(key string, v float64, unit string) { field(key, key, v, unit) }
	q("name", name)
	q("description", d.Description+" — calibrated to measured runs")
	q("family", d.Family)
	q("power_mode", d.PowerMode)
	kv("unified_memory", strconv.FormatBool(d.Unified))
	num("memory", d.Memory, "B")
	if !strings.HasPrefix(d.Sources["usable_memory"], "default rule") {
		num("usable_memory", d.Usable, "B")
	}
	num("bandwidth", d.Bandwidth, "B/s")
	num("measured_bandwidth", d.MeasuredBandwidth, "B/s")
	num("storage_bandwidth", d.StorageBandwidth, "B/s")
	q("default_engine", r.Engine.Name)
	b.WriteString("references = [\n")
	for _, ref := range d.References {
		fmt.Fprintf(&b, "  %s,\n", quote(ref))
	}
	b.WriteString("]\n")
	for _, e := range d.Engines {
		fmt.Fprintf(&b, "\n[[engine]]\n")
		q("name", e.Name)
		q("kind", string(e.Kind))
		q("default_weights", e.DefaultWeights)
		q("default_kv", e.DefaultKV)
		field("power", "engine."+e.Name+".power", e.Power, "W")
		if e.Name == r.Engine.Name {
			t := e.Tuning
			kv("bandwidth_efficiency", g(t.BandwidthEfficiency))
			kv("compute_efficiency", g(t.ComputeEfficiency))
			kv("decode_overhead", quote(g(t.DecodeOverhead)+" s"))
			kv("prefill_overhead", quote(g(t.PrefillOverhead)+" s"))
			q("tuning_source", fmt.Sprintf("roofline calibrate %s from %d decode and %d prefill runs (%s)",
				cal.Date, cal.DecodePoints, cal.PrefillPoints, strings.Join(cal.Files, ", ")))
		} else if len(e.Defaulted) < 4 {
			kv("bandwidth_efficiency", g(e.BandwidthEfficiency))
			kv("compute_efficiency", g(e.ComputeEfficiency))
			kv("step_overhead", quote(g(e.StepOverhead)+" s"))
			kv("layer_overhead", quote(g(e.LayerOverhead)+" s"))
			q("tuning_source", d.Sources["engine."+e.Name+".tuning"])
		}
		if e.Name == r.Engine.Name && len(e.FormatBandwidthEfficiency) > 0 {
			b.WriteString("[engine.format_bandwidth_efficiency]\n")
			for _, f := range sortedKeys(e.FormatBandwidthEfficiency) {
				kv(f, g(e.FormatBandwidthEfficiency[f]))
			}
		}
		b.WriteString("[engine.peak]\n")
		for _, p := range units.Precisions {
			if v := e.Peaks[p]; v > 0 {
				field(string(p), "engine."+e.Name+".peak."+string(p), v, p.RateUnit())
			}
		}
		if e.Name == r.Engine.Name {
			writeCalibration(&b, cal)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCalibration(b *strings.Builder, c *hardware.Calibration) {
	b.WriteString("[engine.calibration]\n")
	kv := func(k, v string) { fmt.Fprintf(b, "%s = %s\n", k, v) }
	kv("device", quote(c.Device))
	kv("power_mode", quote(c.PowerMode))
	kv("engine", quote(c.Engine))
	kv("runtime", quote(c.Runtime))
	kv("build", quote(c.Build))
	kv("date", quote(c.Date))
	files := make([]string, len(c.Files))
	for i, f := range c.Files {
		files[i] = quote(f)
	}
	sort.Strings(files)
	kv("files", "["+strings.Join(files, ", ")+"]")
	kv("decode_points", strconv.Itoa(c.DecodePoints))
	kv("prefill_points", strconv.Itoa(c.PrefillPoints))
	kv("decode_cov", arr(c.DecodeCov))
	kv("prefill_cov", arr(c.PrefillCov))
	kv("decode_sigma", g(c.DecodeSigma))
	kv("prefill_sigma", g(c.PrefillSigma))
	kv("decode_dof", strconv.Itoa(c.DecodeDOF))
	kv("prefill_dof", strconv.Itoa(c.PrefillDOF))
	kv("r2_decode", gnan(c.R2Decode))
	kv("r2_prefill", gnan(c.R2Prefill))
	kv("loo_mdape_decode", gnan(c.LOODecode))
	kv("loo_mdape_prefill", gnan(c.LOOPrefill))
	if len(c.FormatDecodeCov) > 0 {
		b.WriteString("[engine.calibration.format_decode_cov]\n")
		keys := make([]string, 0, len(c.FormatDecodeCov))
		for k := range c.FormatDecodeCov {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			kv(k, arr(c.FormatDecodeCov[k]))
		}
	}
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func arr(v [3]float64) string { return "[" + g(v[0]) + ", " + g(v[1]) + ", " + g(v[2]) + "]" }

func g(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// gnan writes NaN as TOML's nan.
func gnan(v float64) string {
	if v != v {
		return "nan"
	}
	return g(v)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// quote renders a TOML basic string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
