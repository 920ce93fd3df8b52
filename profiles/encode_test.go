package profiles

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/roofline/roofline/hardware"
)

// EncodeDevice is the inverse of decoding: every device of the catalog,
// written and read back, is the same device (its variants become devices
// of their own; the file it came from and where its usable memory was
// derived aside).
func TestEncodeDeviceRoundTrip(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range cat.Devices() {
		src := EncodeDevice(d, "round trip of "+d.Name)
		c := cat.Clone()
		name, err := c.AddFileBytes(d.Name+".toml", src)
		if err != nil {
			t.Errorf("%s: the encoded profile does not decode: %v\n%s", d.Name, err, src)
			continue
		}
		got, err := c.Device(name)
		if err != nil {
			t.Fatal(err)
		}
		if diff := deviceDiff(d, got); diff != "" {
			t.Errorf("%s: read back differs: %s\n%s", d.Name, diff, src)
		}
	}
}

// deviceDiff names the first field in which two devices differ.
func deviceDiff(a, b *hardware.Device) string {
	for _, f := range []struct {
		name string
		x, y any
	}{
		{"name", a.Name, b.Name}, {"aliases", a.Aliases, b.Aliases}, {"description", a.Description, b.Description},
		{"family", a.Family, b.Family}, {"segment", a.Segment, b.Segment}, {"power mode", a.PowerMode, b.PowerMode},
		{"memory", a.Memory, b.Memory}, {"usable", a.Usable, b.Usable}, {"reserved", a.Reserved, b.Reserved},
		{"unified", a.Unified, b.Unified}, {"bandwidth", a.Bandwidth, b.Bandwidth}, {"measured bandwidth", a.MeasuredBandwidth, b.MeasuredBandwidth},
		{"storage bandwidth", a.StorageBandwidth, b.StorageBandwidth}, {"default engine", a.DefaultEngine, b.DefaultEngine},
		{"references", a.References, b.References}, {"engines", len(a.Engines), len(b.Engines)},
	} {
		if !reflect.DeepEqual(f.x, f.y) {
			return fmt.Sprintf("%s: %v, read back %v", f.name, f.x, f.y)
		}
	}
	for i := range a.Engines {
		ea, eb := a.Engines[i], b.Engines[i]
		if ea.Name != eb.Name || ea.Kind != eb.Kind || ea.Power != eb.Power || ea.IdlePower != eb.IdlePower || !reflect.DeepEqual(ea.Peaks, eb.Peaks) {
			return fmt.Sprintf("engine %s: %+v, read back %+v", ea.Name, ea, eb)
		}
		if (ea.Calibration == nil) != (eb.Calibration == nil) || (ea.Calibration != nil && !reflect.DeepEqual(*ea.Calibration, *eb.Calibration)) {
			return fmt.Sprintf("engine %s: calibration %+v, read back %+v", ea.Name, ea.Calibration, eb.Calibration)
		}
	}
	for k, v := range a.Sources {
		if k != "usable_memory" && b.Sources[k] != v {
			return fmt.Sprintf("source %s: %q, read back %q", k, v, b.Sources[k])
		}
	}
	return ""
}

// A fit statistic a calibration cannot define (R² of one point, the
// leave-one-out error and class shift of a phase without runs) is left
// out of the written profile, never written as nan, which no profile may
// hold; it reads back as undefined (NaN), the defined ones as written.
func TestEncodeUndefinedFitStatistics(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	base, err := cat.Device("apple-m2-ultra")
	if err != nil {
		t.Fatal(err)
	}
	d := *base
	d.Engines = append([]hardware.Engine(nil), base.Engines...)
	d.Sources = map[string]string{}
	for k, v := range base.Sources {
		d.Sources[k] = v
	}
	d.Sources["engine."+d.Engines[0].Name+".calibration"] = "roofline calibrate, two runs"
	nan := math.NaN()
	d.Engines[0].Calibration = &hardware.Calibration{Runtime: "llama.cpp", Efficiency: hardware.Efficiency{Bandwidth: 0.87, ComputeMax: 0.7, Attention: 0.2},
		Device: d.Name, Engine: d.Engines[0].Name, DecodePoints: 1, PrefillPoints: 1,
		R2Decode: nan, R2Prefill: nan, LOODecode: 0.041, LOOPrefill: nan, DecodeShift: 1.03, PrefillShift: nan}
	src := EncodeDevice(&d)
	if bytes.Contains(bytes.ToLower(src), []byte("nan")) {
		t.Fatalf("the profile holds a nan:\n%s", src)
	}
	for _, key := range []string{"r2_decode", "r2_prefill", "loo_mdape_prefill", "prefill_shift"} {
		if bytes.Contains(src, []byte(key+" =")) {
			t.Errorf("undefined %s written:\n%s", key, src)
		}
	}
	c := cat.Clone()
	name, err := c.AddFileBytes("cal.toml", src)
	if err != nil {
		t.Fatalf("the profile does not decode: %v\n%s", err, src)
	}
	got, err := c.Device(name)
	if err != nil {
		t.Fatal(err)
	}
	cal := got.Engines[0].Calibration
	if !math.IsNaN(cal.R2Decode) || !math.IsNaN(cal.R2Prefill) || !math.IsNaN(cal.LOOPrefill) || !math.IsNaN(cal.PrefillShift) {
		t.Errorf("undefined statistics read back as %v %v %v %v, want NaN", cal.R2Decode, cal.R2Prefill, cal.LOOPrefill, cal.PrefillShift)
	}
	if cal.LOODecode != 0.041 || cal.DecodeShift != 1.03 {
		t.Errorf("defined statistics read back as %v %v, want 0.041 1.03", cal.LOODecode, cal.DecodeShift)
	}
}
