package profiles

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/units"
)

// EncodeDevice writes device d as a hardware profile that decodes back to
// the same device: every figure in human units with its source, the
// engines with their peaks and power, and an engine's calibration. It is
// the inverse of decoding (a round trip is tested over the whole catalog);
// roofline calibrate writes its profiles through it. Variants are not
// written: d becomes a device of its own. header lines become comments.
func EncodeDevice(d *hardware.Device, header ...string) []byte {
	var b strings.Builder
	for _, h := range header {
		fmt.Fprintf(&b, "# %s\n", h)
	}
	kv := func(k, v string) { fmt.Fprintf(&b, "%s = %s\n", k, v) }
	str := func(k, v string) {
		if v != "" {
			kv(k, quote(v))
		}
	}
	field := func(key, src string, v float64, dim units.Dimension, unit string) {
		if v == 0 {
			return
		}
		s := units.FormatExact(v, dim)
		if unit != "" {
			s = strings.TrimSuffix(s, "FLOP/s") + unit
		}
		kv(key, fmt.Sprintf("{ value = %s, source = %s }", quote(s), quote(d.Sources[src])))
	}
	str("name", d.Name)
	if len(d.Aliases) > 0 {
		kv("aliases", strList(d.Aliases))
	}
	str("description", d.Description)
	str("family", d.Family)
	str("segment", d.Segment)
	str("power_mode", d.PowerMode)
	str("mode_table", d.ModeTable)
	kv("unified_memory", strconv.FormatBool(d.Unified))
	field("memory", "memory", d.Memory, units.DimBytes, "")
	field("usable_memory", "usable_memory", d.UsableGiven, units.DimBytes, "")
	field("reserved_memory", "reserved_memory", d.Reserved, units.DimBytes, "")
	field("bandwidth", "bandwidth", d.Bandwidth, units.DimBandwidth, "")
	field("measured_bandwidth", "measured_bandwidth", d.MeasuredBandwidth, units.DimBandwidth, "")
	field("storage_bandwidth", "storage_bandwidth", d.StorageBandwidth, units.DimBandwidth, "")
	if len(d.MemoryClocks) > 0 {
		steps := make([]string, len(d.MemoryClocks))
		for i, f := range d.MemoryClocks {
			steps[i] = units.FormatExact(f, units.DimFrequency)
		}
		kv("memory_clocks", fmt.Sprintf("{ value = %s, source = %s }", strList(steps), quote(d.Sources["memory_clocks"])))
	}
	if d.HostLink != "" {
		kv("host_link", fmt.Sprintf("{ value = %s, source = %s }", quote(d.HostLink), quote(d.Sources["host_link"])))
	}
	if d.NVLink != "" {
		kv("nvlink", fmt.Sprintf("{ value = %s, source = %s }", quote(d.NVLink), quote(d.Sources["nvlink"])))
	}
	if src, ok := d.Sources["discrete_gpu_host"]; ok {
		kv("discrete_gpu_host", fmt.Sprintf("{ value = %t, source = %s }", !d.NoGPUHost, quote(src)))
	}
	str("default_engine", d.DefaultEngine)
	if len(d.References) > 0 {
		b.WriteString("references = [\n")
		for _, r := range d.References {
			fmt.Fprintf(&b, "  %s,\n", quote(r))
		}
		b.WriteString("]\n")
	}
	for _, e := range d.Engines {
		key := "engine." + e.Name
		b.WriteString("\n[[engine]]\n")
		str("name", e.Name)
		str("kind", string(e.Kind))
		field("clock", key+".clock", e.Clock, units.DimFrequency, "")
		field("min_clock", key+".min_clock", e.MinClock, units.DimFrequency, "")
		field("power", key+".power", e.Power, units.DimPower, "")
		field("idle_power", key+".idle_power", e.IdlePower, units.DimPower, "")
		if e.Units > 0 {
			fmt.Fprintf(&b, "units = { value = %d, source = %s }\n", e.Units, quote(d.Sources[key+".units"]))
		}
		if e.ComputeCapability > 0 {
			fmt.Fprintf(&b, "compute_capability = { value = %g, source = %s }\n", e.ComputeCapability, quote(d.Sources[key+".compute_capability"]))
		}
		field("l2_cache", key+".l2_cache", e.L2Cache, units.DimBytes, "")
		if src, ok := d.Sources[key+".int8_dot"]; ok {
			fmt.Fprintf(&b, "int8_dot = { value = %t, source = %s }\n", !e.NoInt8Dot, quote(src))
		}
		b.WriteString("[engine.peak]\n")
		for _, p := range units.Precisions {
			if v := e.Peaks[p]; v > 0 {
				field(string(p), key+".peak."+string(p), v, units.DimRate, p.RateUnit())
			}
		}
		if c := e.Calibration; c != nil {
			encodeCalibration(&b, c, d.Sources[key+".calibration"])
		}
	}
	return []byte(b.String())
}

func encodeCalibration(b *strings.Builder, c *hardware.Calibration, source string) {
	b.WriteString("[engine.calibration]\n")
	kv := func(k, v string) { fmt.Fprintf(b, "%s = %s\n", k, v) }
	str := func(k, v string) {
		if v != "" {
			kv(k, quote(v))
		}
	}
	num := func(k string, v float64) { kv(k, number(v)) }
	integer := func(k string, v int) {
		if v != 0 {
			kv(k, strconv.Itoa(v))
		}
	}
	dur := func(k string, v float64) { kv(k, quote(units.FormatExact(v, units.DimDuration))) }
	str("runtime", c.Runtime)
	str("source", source)
	str("device", c.Device)
	str("power_mode", c.PowerMode)
	str("engine", c.Engine)
	str("build", c.Build)
	str("date", c.Date)
	if len(c.Files) > 0 {
		kv("files", strList(c.Files))
	}
	if len(c.Formats) > 0 {
		kv("formats", strList(c.Formats))
	}
	integer("max_batch", c.MaxBatch)
	integer("decode_points", c.DecodePoints)
	integer("prefill_points", c.PrefillPoints)
	num("bandwidth", c.Bandwidth)
	num("compute_max", c.ComputeMax)
	num("half_rows", c.HalfRows)
	num("attention", c.Attention)
	if c.Dequant > 0 {
		num("dequant", c.Dequant)
	}
	dur("step_overhead", c.StepOverhead)
	dur("pass_overhead", c.PassOverhead)
	dur("layer_overhead", c.LayerOverhead)
	if c.UnitBandwidth > 0 {
		kv("unit_bandwidth", quote(units.FormatExact(c.UnitBandwidth, units.DimBandwidth)))
	}
	if c.UnitCompute > 0 {
		kv("unit_compute", quote(units.FormatExact(c.UnitCompute, units.DimRate)))
	}
	if c.HostWork > 0 {
		num("host_work", c.HostWork)
	}
	if c.KQuantGEMV > 0 {
		num("kquant_gemv", c.KQuantGEMV)
	}
	if c.ReadShare > 0 {
		num("read_share", c.ReadShare)
	}
	if len(c.Cov) > 0 {
		parts := make([]string, len(c.Cov))
		for i, v := range c.Cov {
			parts[i] = number(v)
		}
		kv("covariance", "["+strings.Join(parts, ", ")+"]")
	}
	num("decode_sigma", c.DecodeSigma)
	num("prefill_sigma", c.PrefillSigma)
	integer("decode_dof", c.DecodeDOF)
	integer("prefill_dof", c.PrefillDOF)
	// A fit statistic is undefined for a phase with too few runs (R² of
	// one point): it is left out, which decodes back as undefined (NaN).
	stat := func(k string, v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			num(k, v)
		}
	}
	stat("r2_decode", c.R2Decode)
	stat("r2_prefill", c.R2Prefill)
	stat("loo_mdape_decode", c.LOODecode)
	stat("loo_mdape_prefill", c.LOOPrefill)
	str("prior", c.Prior)
	stat("decode_shift", c.DecodeShift)
	stat("prefill_shift", c.PrefillShift)
	if len(c.FormatBandwidth) > 0 {
		b.WriteString("[engine.calibration.format_bandwidth]\n")
		keys := slices.Sorted(maps.Keys(c.FormatBandwidth))
		for _, k := range keys {
			num(k, c.FormatBandwidth[k])
		}
	}
}

// number renders a plain number exactly, TOML's nan for NaN.
func number(v float64) string {
	if v != v {
		return "nan"
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".en") {
		s += ".0"
	}
	return s
}

func strList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
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

// FittedMarker starts the part of a runtime profile that the class fit
// writes; everything after it is regenerated.
const FittedMarker = "# Efficiency per engine kind, fitted by roofline's test suite"

// EncodeClasses writes a runtime's fitted classes as [efficiency.KIND]
// tables, after FittedMarker and a line saying how to regenerate them.
// Numbers are rounded to four significant digits: the fit is refitted and
// compared at that precision, so the file does not drift with the last
// bit of a platform's arithmetic.
func EncodeClasses(classes map[string]*runtimes.Class, regenerate string) string {
	var b strings.Builder
	b.WriteString(FittedMarker + "\n")
	fmt.Fprintf(&b, "# (%s). Do not edit by hand.\n", regenerate)
	kinds := make([]string, 0, len(classes))
	for k := range classes {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	r4 := func(v float64) string { return number(round4(v)) }
	for _, k := range kinds {
		c := classes[k]
		e := c.Efficiency
		key := k
		if strings.Contains(k, "@") { // an era's class: "cuda@pre-2024-06"
			key = strconv.Quote(k)
		}
		fmt.Fprintf(&b, "\n[efficiency.%s]\n", key)
		fmt.Fprintf(&b, "basis = %s\n", quote(c.Basis))
		fmt.Fprintf(&b, "bandwidth = %s\n", r4(e.Bandwidth))
		fmt.Fprintf(&b, "compute_max = %s\n", r4(e.ComputeMax))
		fmt.Fprintf(&b, "half_rows = %s\n", r4(e.HalfRows))
		fmt.Fprintf(&b, "attention = %s\n", r4(e.Attention))
		fmt.Fprintf(&b, "dequant = %s\n", r4(e.Dequant))
		fmt.Fprintf(&b, "step_overhead = %s\n", quote(duration4(e.StepOverhead)))
		fmt.Fprintf(&b, "pass_overhead = %s\n", quote(duration4(e.PassOverhead)))
		fmt.Fprintf(&b, "layer_overhead = %s\n", quote(duration4(e.LayerOverhead)))
		if e.UnitBandwidth > 0 {
			fmt.Fprintf(&b, "unit_bandwidth = %s\n", quote(units.FormatExact(round4(e.UnitBandwidth), units.DimBandwidth)))
		}
		if e.UnitCompute > 0 {
			fmt.Fprintf(&b, "unit_compute = %s\n", quote(units.FormatExact(round4(e.UnitCompute), units.DimRate)))
		}
		if e.HostWork > 0 {
			fmt.Fprintf(&b, "host_work = %s\n", r4(e.HostWork))
		}
		if e.KQuantGEMV > 0 {
			fmt.Fprintf(&b, "kquant_gemv = %s\n", r4(e.KQuantGEMV))
		}
		if e.ReadShare > 0 {
			fmt.Fprintf(&b, "read_share = %s\n", r4(e.ReadShare))
		}
		fmt.Fprintf(&b, "decode_interval = [%s, %s]\n", r4(c.Decode.Low), r4(c.Decode.High))
		fmt.Fprintf(&b, "prefill_interval = [%s, %s]\n", r4(c.Prefill.Low), r4(c.Prefill.High))
		// The intervals runs held out of scope give the class
		// (scopeInterval reads them back).
		for _, sc := range []struct {
			name  string
			iv    runtimes.Spread
			basis string
		}{{"moe_decode", c.MoEDecode, c.MoEDecodeBasis}, {"npu_clock_decode", c.NPUClockDecode, c.NPUClockDecodeBasis}} {
			if sc.iv.High > 0 {
				fmt.Fprintf(&b, "%s_interval = [%s, %s]\n%s_basis = %s\n", sc.name, r4(sc.iv.Low), r4(sc.iv.High), sc.name, quote(sc.basis))
			}
		}
		b.WriteString("se = { ")
		for i, n := range hardware.ParameterNames {
			if i > 0 {
				b.WriteString(", ")
			}
			v := 0.0
			if i < len(c.SE) {
				v = c.SE[i]
			}
			fmt.Fprintf(&b, "%s = %s", n, r4(v))
		}
		b.WriteString(" }\n")
	}
	return b.String()
}

// EncodeLevels writes a runtime's fitted levels as [level."KEY"] tables,
// after its classes (EncodeClasses).
func EncodeLevels(levels map[string]*runtimes.Level) string {
	keys := slices.Sorted(maps.Keys(levels))
	r4 := func(v float64) string { return number(round4(v)) }
	var b strings.Builder
	for _, k := range keys {
		l := levels[k]
		fmt.Fprintf(&b, "\n[level.%s]\n", strconv.Quote(k))
		fmt.Fprintf(&b, "basis = %s\n", quote(l.Basis))
		read := ""
		if l.Shift.Read != 0 {
			read = ", read = " + r4(l.Shift.Read)
		}
		fmt.Fprintf(&b, "shift = { overhead = %s, bandwidth = %s, compute = %s%s }\n", r4(l.Shift.Overhead), r4(l.Shift.Bandwidth), r4(l.Shift.Compute), read)
		if l.Decode.Low > 0 {
			fmt.Fprintf(&b, "decode_interval = [%s, %s]\n", r4(l.Decode.Low), r4(l.Decode.High))
		}
		if l.Prefill.Low > 0 {
			fmt.Fprintf(&b, "prefill_interval = [%s, %s]\n", r4(l.Prefill.Low), r4(l.Prefill.High))
		}
	}
	return b.String()
}

// duration4 writes a duration with four significant digits in the unit
// that keeps it between 1 and 1000.
func duration4(v float64) string {
	for _, u := range []struct {
		name  string
		scale float64
	}{{"s", 1}, {"ms", 1e3}, {"µs", 1e6}, {"ns", 1e9}} {
		if x := v * u.scale; math.Abs(x) >= 1 || u.name == "ns" {
			return strconv.FormatFloat(x, 'g', 4, 64) + " " + u.name
		}
	}
	return "0 s"
}

// round4 rounds to four significant digits.
func round4(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	s := strconv.FormatFloat(v, 'g', 4, 64)
	r, _ := strconv.ParseFloat(s, 64)
	return r
}

// WithClasses replaces the fitted part of a runtime profile's source (from
// FittedMarker to the end, or nothing) with classes.
func WithClasses(src []byte, classes string) []byte {
	s := string(src)
	if i := strings.Index(s, FittedMarker); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, "\n") + "\n\n"
	return []byte(s + classes)
}

// EncodeSettingFactors writes the fitted [setting_factors.CLASS] tables.
func EncodeSettingFactors(factors map[string]*runtimes.SettingFactors) string {
	keys := slices.Sorted(maps.Keys(factors))
	r4 := func(v float64) string { return number(round4(v)) }
	var b strings.Builder
	for _, k := range keys {
		f := factors[k]
		fmt.Fprintf(&b, "\n[setting_factors.%s]\n", strconv.Quote(k))
		fmt.Fprintf(&b, "basis = %s\n", quote(f.Basis))
		fmt.Fprintf(&b, "context = { decode = %s, prefill = %s }\n", r4(f.ContextDecode), r4(f.ContextPrefill))
		fmt.Fprintf(&b, "clocks = { decode = %s, prefill = %s }\n", r4(f.ClocksDecode), r4(f.ClocksPrefill))
		if f.MeasuredContext > 0 {
			fmt.Fprintf(&b, "measured_context = %d\n", f.MeasuredContext)
		}
		if f.Decode.Low > 0 {
			fmt.Fprintf(&b, "decode_interval = [%s, %s]\n", r4(f.Decode.Low), r4(f.Decode.High))
		}
		if f.Prefill.Low > 0 {
			fmt.Fprintf(&b, "prefill_interval = [%s, %s]\n", r4(f.Prefill.Low), r4(f.Prefill.High))
		}
	}
	return b.String()
}

// FrontEndMarker starts the [front_end] table of a runtime profile that
// the serving fit writes (go test ./cmd/roofline -run TestServingFrontEnd
// -update); it runs to FittedMarker or the end and is regenerated.
const FrontEndMarker = "# The server's front end, fitted by roofline's test suite"

// EncodeFrontEnd writes a fitted front end as [front_end] after
// FrontEndMarker and a line saying how to regenerate it; sources are the
// latency's, the request's and the token's source lines.
func EncodeFrontEnd(f runtimes.FrontEnd, regenerate string, sources [3]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n# (%s). Do not edit by hand.\n\n[front_end]\nbasis = %q\n", FrontEndMarker, regenerate, f.Basis)
	for i, c := range []struct {
		key string
		v   runtimes.FrontEndFigure
	}{{"latency", f.Latency}, {"request", f.Request}, {"token", f.Token}} {
		fmt.Fprintf(&b, "%s = { value = %q, range = [%q, %q], source = %q }\n", c.key, duration4(c.v.Value), duration4(c.v.Low), duration4(c.v.High), sources[i])
	}
	return b.String()
}

// WithFrontEnd replaces a runtime profile's fitted [front_end] (from
// FrontEndMarker to FittedMarker or the end) with block, placed before
// FittedMarker; an empty block removes it.
func WithFrontEnd(src []byte, block string) []byte {
	s := string(src)
	tail := ""
	if i := strings.Index(s, FittedMarker); i >= 0 {
		s, tail = s[:i], s[i:]
	}
	if i := strings.Index(s, FrontEndMarker); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, "\n") + "\n\n"
	if block != "" {
		s += strings.TrimRight(block, "\n") + "\n\n"
	}
	if tail == "" {
		s = strings.TrimRight(s, "\n") + "\n"
	}
	return []byte(s + tail)
}
