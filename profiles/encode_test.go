package profiles

import (
	"fmt"
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
