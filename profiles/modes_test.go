package profiles

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/roofline/roofline/units"
)

// A device named in a power mode is its module's profile for that mode,
// with the figures NVIDIA's nvpmodel tables give it: GPU fp16 = SMs ×
// 2048 dense FLOP/clk × GPU MHz, CPU fp32 = cores × 16 FLOP/clk × CPU MHz,
// bandwidth = EMC MHz × 2 × bus bits / 8 where the mode caps the EMC.
func TestPowerModeNames(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		device string
		units  int
		fp16   float64 // GPU, FLOP/s
		cpu32  float64 // CPU, FLOP/s
		bw     float64 // B/s
		power  float64 // W
	}{
		// Orin Nano 8GB, Super table (nvpmodel_p3767_0003_super.conf).
		// 25W: 8 SM × 2048 × 918 MHz = 15.04 TFLOP/s (written 15.0);
		// 6 cores × 16 × 1344 MHz = 129.02 GFLOP/s (129.0); EMC 3199 MHz:
		// NVIDIA's 102 GB/s.
		{"jetson-orin-nano-super-8gb@25w", "jetson-orin-nano-super-8gb-25w", 8, 15.0e12, 129.0e9, 102e9, 25},
		{"jetson-orin-nano-super-8gb@25W", "jetson-orin-nano-super-8gb-25w", 8, 15.0e12, 129.0e9, 102e9, 25},
		{"jetson-orin-nano-super-8gb@25", "jetson-orin-nano-super-8gb-25w", 8, 15.0e12, 129.0e9, 102e9, 25},
		{"orin-nano-super@25w", "jetson-orin-nano-super-8gb-25w", 8, 15.0e12, 129.0e9, 102e9, 25},
		// 15W: 8 × 2048 × 612 MHz = 10.03 TFLOP/s (10.0); 6 × 16 × 1497.6
		// MHz = 143.77 GFLOP/s (143.8); EMC 2133 MHz: 68 GB/s.
		{"jetson-orin-nano-super-8gb@15W", "jetson-orin-nano-super-8gb-15w", 8, 10.0e12, 143.8e9, 68e9, 15},
		// MAXN_SUPER: uncapped, 8 × 2048 × 1020 MHz = 16.71 (16.7); 6 × 16 ×
		// 1.7 GHz = 163.2 GFLOP/s; 102 GB/s.
		{"jetson-orin-nano-super-8gb@maxn", "jetson-orin-nano-super-8gb", 8, 16.7e12, 163.2e9, 102e9, 25},
		{"jetson-orin-nano-super-8gb@MAXN_SUPER", "jetson-orin-nano-super-8gb", 8, 16.7e12, 163.2e9, 102e9, 25},
		{"jetson-orin-nano-super-8gb@maxn-super", "jetson-orin-nano-super-8gb", 8, 16.7e12, 163.2e9, 102e9, 25},
		{"jetson-orin-nano-8gb@maxn", "jetson-orin-nano-super-8gb", 8, 16.7e12, 163.2e9, 102e9, 25},
		{"jetson-orin-nano-8gb@25w", "jetson-orin-nano-super-8gb-25w", 8, 15.0e12, 129.0e9, 102e9, 25},
		// JetPack 5's table (nvpmodel_p3767_0003.conf): 15W uncapped, the
		// datasheet's 8 × 2048 × 625 MHz = 10.24 TFLOP/s (10.2), 6 × 16 ×
		// 1.5 GHz = 144 GFLOP/s; 7W: TPC_PG_MASK 252, 4 SMs × 2048 × 408
		// MHz = 3.34 TFLOP/s, 4 cores × 16 × 960 MHz = 61.44 GFLOP/s.
		{"jetson-orin-nano-8gb@15w", "jetson-orin-nano-8gb", 8, 10.2e12, 144e9, 68e9, 15},
		{"jetson-orin-nano-8gb@7w", "jetson-orin-nano-8gb-7w", 4, 3.34e12, 61.44e9, 68e9, 7},
		{"jetson-orin-nano-super-8gb@7W", "jetson-orin-nano-8gb-7w", 4, 3.34e12, 61.44e9, 68e9, 7},
		// Orin Nano 4GB: Super 25W, 4 SM × 2048 × 1020 MHz = 8.36 TFLOP/s;
		// 6 × 16 × 1728 MHz = 165.9 GFLOP/s; EMC 3199 MHz on 64 bits:
		// 3199e6 × 2 × 64 / 8 = 51.2 GB/s.
		{"jetson-orin-nano-4gb@25w", "jetson-orin-nano-super-4gb-25w", 4, 8.36e12, 165.9e9, 51.2e9, 25},
		// 7W_CPU: 4 × 2048 × 306 MHz = 2.51 TFLOP/s; 4 × 16 × 960 MHz.
		{"jetson-orin-nano-4gb@7w_cpu", "jetson-orin-nano-4gb-7w-cpu", 4, 2.51e12, 61.44e9, 34e9, 7},
		// Orin NX 16GB (nvpmodel_p3767_0000_super.conf). 10W: 4 SM × 2048
		// × 612 MHz = 5.01 TFLOP/s, 4 cores × 16 × 1190.4 MHz = 76.19
		// GFLOP/s, EMC 2133 MHz: 2133e6 × 2 × 128 / 8 = 68.3 GB/s.
		{"jetson-orin-nx-16gb@10w", "jetson-orin-nx-super-16gb-10w", 4, 5.01e12, 76.19e9, 68.3e9, 10},
		// 15W: the same GPU, 4 × 16 × 1420.8 MHz = 90.93 GFLOP/s, EMC
		// uncapped: 102.4 GB/s.
		{"jetson-orin-nx-16gb@15w", "jetson-orin-nx-super-16gb-15w", 4, 5.01e12, 90.93e9, 102.4e9, 15},
		// 25W: 8 × 2048 × 408 MHz = 6.68 TFLOP/s, 8 × 16 × 1497.6 MHz =
		// 191.7 GFLOP/s: slower on the GPU than 15W's 4 SMs at 612 MHz
		// would suggest by name, faster than it (6.68 > 5.01).
		{"jetson-orin-nx-16gb@25w", "jetson-orin-nx-super-16gb-25w", 8, 6.68e12, 191.7e9, 102.4e9, 25},
		// 40W: 8 × 2048 × 1173 MHz = 19.22 TFLOP/s (19.2).
		{"jetson-orin-nx-super-16gb@40w", "jetson-orin-nx-super-16gb-40w", 8, 19.2e12, 191.7e9, 102.4e9, 40},
		// The Super name's @maxn is its own MAXN_SUPER; the base's, JetPack
		// 5's MAXN (8 × 2048 × 918 MHz = 15.0; 8 × 16 × 2.0 GHz = 256).
		{"jetson-orin-nx-super-16gb@maxn", "jetson-orin-nx-super-16gb", 8, 19.2e12, 256e9, 102.4e9, 40},
		{"jetson-orin-nx-16gb@maxn", "jetson-orin-nx-16gb", 8, 15e12, 256e9, 102.4e9, 25},
		// AGX Orin 64GB (nvpmodel_p3701_0000.conf). MODE_30W: 8 SM × 2048 ×
		// 612 MHz = 10.03 TFLOP/s (10), 8 × 16 × 1728 MHz = 221.2 GFLOP/s,
		// EMC uncapped 204.8 GB/s.
		{"jetson-agx-orin-64gb@30w", "jetson-agx-orin-64gb-30w", 8, 10e12, 221.2e9, 204.8e9, 30},
		{"jetson-agx-orin-64gb@MODE_30W", "jetson-agx-orin-64gb-30w", 8, 10e12, 221.2e9, 204.8e9, 30},
		// MODE_15W: 6 × 2048 × 408 MHz = 5.01, 4 × 16 × 1113.6 MHz = 71.27,
		// EMC 2133 MHz on 256 bits: 136.5 GB/s.
		{"jetson-agx-orin-64gb@15w", "jetson-agx-orin-64gb-15w", 6, 5.01e12, 71.27e9, 136.5e9, 15},
		// MODE_50W: 16 × 2048 × 816 MHz = 26.74 (26.7), 12 × 16 × 1497.6
		// MHz = 287.5 GFLOP/s.
		{"jetson-agx-orin-64gb@50w", "jetson-agx-orin-64gb-50w", 16, 26.7e12, 287.5e9, 204.8e9, 50},
		{"jetson-agx-orin-64gb@maxn", "jetson-agx-orin-64gb", 16, 42.6e12, 422.4e9, 204.8e9, 60},
		// Jetson AGX Thor (T5000), its one described mode: 20 SM × 8192 ×
		// 1575 MHz = 258.048 TFLOP/s, 14 × 32 × 2.6 GHz = 1164.8 GFLOP/s,
		// 273 GB/s, 130 W.
		{"jetson-agx-thor@maxn", "jetson-agx-thor", 20, 258.048e12, 1164.8e9, 273e9, 130},
		{"jetson-thor@MAXN", "jetson-agx-thor", 20, 258.048e12, 1164.8e9, 273e9, 130},
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
	for _, c := range cases {
		d, err := cat.Device(c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d.Name != c.device {
			t.Errorf("%s = %s, want %s", c.name, d.Name, c.device)
			continue
		}
		gpu, _ := d.Engine("gpu")
		cpu, _ := d.Engine("cpu")
		if gpu.Units != c.units || !near(gpu.Peaks[units.FP16], c.fp16) || !near(cpu.Peaks[units.FP32], c.cpu32) ||
			!near(d.Bandwidth, c.bw) || gpu.Power != c.power || cpu.Power != c.power {
			t.Errorf("%s (%s): %d SMs, fp16 %g, cpu fp32 %g, %g B/s, %g W; want %d, %g, %g, %g, %g",
				c.name, d.Name, gpu.Units, gpu.Peaks[units.FP16], cpu.Peaks[units.FP32], d.Bandwidth, gpu.Power,
				c.units, c.fp16, c.cpu32, c.bw, c.power)
		}
		if d.Module() != strings.SplitN(c.name, "@", 2)[0] && d.VariantOf == "" && d.Name != d.Module() {
			t.Errorf("%s: module %s", c.name, d.Module())
		}
	}
}

// A mode the module does not have, one that names several, a device
// without modes and an empty mode are errors that list what to give.
func TestPowerModeNameErrors(t *testing.T) {
	cat, _ := Builtin()
	cases := []struct {
		name      string
		ambiguous bool
		want      []string // substrings of the message
	}{
		{"jetson-orin-nano-super-8gb@30w", false, []string{`unknown power mode "jetson-orin-nano-super-8gb@30w"`,
			"the modes of jetson-orin-nano-8gb are 7W, 15W (JetPack 5); 15W, 25W, MAXN_SUPER (Super)",
			// Each mode once, by its table's board (ModeSelector): both
			// 15W modes, where NAME@15w from the Super board named one.
			"did you mean jetson-orin-nano-8gb@7w, jetson-orin-nano-8gb@15w, jetson-orin-nano-super-8gb@15w, jetson-orin-nano-super-8gb@25w, jetson-orin-nano-super-8gb@maxn_super?"}},
		{"jetson-orin-nano-4gb@7w", true, []string{`ambiguous power mode "jetson-orin-nano-4gb@7w"`, `"7w" names 2 modes`,
			"jetson-orin-nano-4gb@7w_ai, jetson-orin-nano-4gb@7w_cpu"}},
		{"jetson-orin-nx-16gb@1", true, []string{"ambiguous", "jetson-orin-nx-super-16gb@10w, jetson-orin-nx-super-16gb@15w?"}},
		{"rtx-4090@maxn", false, []string{"rtx-4090 has no power modes in its profile; give it without @"}},
		{"jetson-orin-nano-8gb@", false, []string{"nothing follows the @"}},
		{"jetson-orin-nano-8gb@@25w", false, []string{"unknown power mode", "jetson-orin-nano-super-8gb@25w"}},
		// No board before the @: BOARD@MODE for each module with that mode
		// exactly (the Orin Nano 8GB's two tables both have a 15W), else
		// the boards that have modes.
		{"@15W", false, []string{"nothing comes before the @: a power mode follows its board, as BOARD@MODE",
			"did you mean jetson-agx-orin-64gb@15w, jetson-orin-nano-8gb@15w, jetson-orin-nano-super-8gb@15w, jetson-orin-nx-super-16gb@15w?"}},
		{" @maxn_super", false, []string{"did you mean jetson-orin-nano-super-8gb@maxn_super, jetson-orin-nx-super-16gb@maxn_super?"}},
		{"@99w", false, []string{"nothing comes before the @", "(the boards with power modes are jetson-agx-orin-64gb, jetson-orin-nano-4gb, jetson-orin-nano-8gb, jetson-orin-nx-16gb)"}},
	}
	for _, c := range cases {
		_, err := cat.Device(c.name)
		var nf *NotFoundError
		if !errors.As(err, &nf) || nf.Kind != "power mode" || nf.Ambiguous != c.ambiguous {
			t.Errorf("%s: %v, want a power mode error (ambiguous %v)", c.name, err, c.ambiguous)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", c.name, err, w)
			}
		}
		if !strings.Contains(nf.Hint(), "show hardware NAME") {
			t.Errorf("%s: hint %q", c.name, nf.Hint())
		}
	}
	// An unknown device before the @ is an unknown device.
	_, err := cat.Device("jetson-orin-nono-8gb@25w")
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Kind != "hardware" || len(nf.Suggestions) == 0 || nf.Suggestions[0] != "jetson-orin-nano-8gb" {
		t.Errorf("unknown device before @: %v", err)
	}
	// Data files (measured runs, studies) take the same names.
	if d, err := cat.DeviceFromData("jetson-agx-orin-64gb@30w", "runs.csv"); err != nil || d.Name != "jetson-agx-orin-64gb-30w" {
		t.Errorf("DeviceFromData: %v, %v", d, err)
	}
}

// Every power mode of a module lists the others; a device with one mode
// or none lists none.
func TestPowerModesOfModule(t *testing.T) {
	cat, _ := Builtin()
	d, _ := cat.Device("jetson-orin-nx-super-16gb-25w")
	var got []string
	for _, m := range cat.PowerModes(d) {
		got = append(got, m.PowerMode)
	}
	if s := strings.Join(got, " "); s != "MAXN 10W 15W 25W 40W MAXN_SUPER" {
		t.Errorf("modes of the Orin NX 16GB: %s", s)
	}
	if d, _ := cat.Device("rtx-4090"); cat.PowerModes(d) != nil {
		t.Error("rtx-4090 lists power modes")
	}
}

// Two profiles of one module in one mode of one table cannot be told
// apart by NAME@MODE: the file is refused at the variant's name.
func TestDuplicatePowerModeRefused(t *testing.T) {
	src := `name = "board"
description = "a board"
family = "jetson"
segment = "edge"
power_mode = "15W"
memory = { value = "8 GiB", source = "[A] assumed" }
bandwidth = { value = "68 GB/s", source = "[A] assumed" }
storage_bandwidth = { value = "1 GB/s", source = "[A] assumed" }
default_engine = "gpu"

[[engine]]
name = "gpu"
kind = "gpu"
[engine.peak]
fp16 = { value = "10 TFLOP/s", source = "[A] assumed" }

[[variant]]
name = "board-15w"
description = "the same mode again"
power_mode = "15 W"
`
	_, err := decodeDevices("board.toml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "board.toml:18:") || !strings.Contains(err.Error(), `power mode "15 W" is board's too`) {
		t.Errorf("err = %v", err)
	}
	// In another mode table it is another mode.
	if _, err := decodeDevices("board.toml", []byte(src+"mode_table = \"Super\"\n")); err != nil {
		t.Errorf("another table: %v", err)
	}
}

// TestModeSelector: each power mode is selected by its own table's board,
// never by a mode variant's name (show hardware on the 15W Super variant
// printed jetson-orin-nano-super-8gb-15w@7w), and each spelling selects
// its row; a table without a board is its device's name alone.
func TestModeSelector(t *testing.T) {
	cat, _ := Builtin()
	for _, c := range []struct {
		shown string
		want  []string // in SortModes' order
	}{
		{"jetson-orin-nano-super-8gb-15w", []string{"jetson-orin-nano-8gb@7w", "jetson-orin-nano-8gb@15w", "jetson-orin-nano-super-8gb@15w", "jetson-orin-nano-super-8gb@25w", "jetson-orin-nano-super-8gb@maxn_super"}},
		{"jetson-orin-nano-8gb", []string{"jetson-orin-nano-8gb@7w", "jetson-orin-nano-8gb@15w", "jetson-orin-nano-super-8gb@15w", "jetson-orin-nano-super-8gb@25w", "jetson-orin-nano-super-8gb@maxn_super"}},
		{"jetson-orin-nano-4gb-7w-ai", []string{"jetson-orin-nano-4gb@7w_ai", "jetson-orin-nano-4gb@7w_cpu", "jetson-orin-nano-4gb@10w", "jetson-orin-nano-super-4gb-10w", "jetson-orin-nano-4gb@25w"}},
		{"jetson-agx-orin-64gb-30w", []string{"jetson-agx-orin-64gb@15w", "jetson-agx-orin-64gb@30w", "jetson-agx-orin-64gb@50w", "jetson-agx-orin-64gb@maxn"}},
	} {
		d, err := cat.Device(c.shown)
		if err != nil {
			t.Fatal(err)
		}
		modes := cat.PowerModes(d)
		var got []string
		for _, m := range modes {
			sel := ModeSelector(modes, d, m)
			got = append(got, sel)
			if back, err := cat.Device(sel); err != nil || back != m {
				t.Errorf("%s: %s selects %v (%v), want %s", c.shown, sel, back, err, m.Name)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.shown, got, c.want)
		}
	}
	for name, want := range map[string]bool{"jetson-orin-nano-super-8gb-15w": false, "jetson-orin-nano-4gb-7w-ai": false,
		"jetson-orin-nano-super-8gb": true, "jetson-orin-nano-8gb": true, "jetson-agx-orin-64gb-30w": false} {
		if d, _ := cat.Device(name); Board(d) != want {
			t.Errorf("Board(%s) = %v", name, !want)
		}
	}
}
