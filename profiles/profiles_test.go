package profiles

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/units"
)

func TestBuiltinDecodesAndValidates(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cat.Models()); n != 29 {
		t.Errorf("%d built-in models, want 29", n)
	}
	if n := len(cat.Devices()); n != 88 {
		t.Errorf("%d built-in devices (with variants), want 88", n)
	}
	for _, d := range cat.Devices() {
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
		for _, k := range d.NumberKeys() {
			if strings.TrimSpace(d.Sources[k]) == "" {
				t.Errorf("%s: %s has no source", d.Name, k)
			}
		}
	}
	f16, _ := model.LookupKVFormat("f16")
	for _, s := range cat.Models() {
		w, err := model.LookupWeightFormat(s.Checkpoint)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		c, err := model.Build(s, w, f16, model.Layout{})
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		// Every published count the catalog quotes agrees with the
		// tensor inventory within 1 % (they are rounded to 3 digits).
		if p := s.Published.Params; p > 0 && math.Abs(c.ParamsTotal-p) > 0.01*p {
			t.Errorf("%s: inventory %.4g params, published %.4g (%s)", s.Name, c.ParamsTotal, p, s.Published.Source)
		}
		if p := s.Published.ActiveParams; p > 0 && math.Abs(c.ParamsActive-p) > 0.02*p {
			t.Errorf("%s: inventory %.4g active params, published %.4g", s.Name, c.ParamsActive, p)
		}
	}
}

// The names the foundation issue requires are all there.
func TestRequiredNames(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	hw := []string{"jetson-orin-nano-4gb", "jetson-orin-nano-8gb", "jetson-orin-nano-super-8gb", "jetson-orin-nx-16gb", "jetson-agx-orin-64gb", "jetson-agx-thor",
		"rk3588", "rk3576", "rk3562", "raspberry-pi-5-8gb", "dgx-spark", "apple-m1", "apple-m1-pro", "apple-m1-max", "apple-m1-ultra",
		"apple-m2", "apple-m2-pro", "apple-m2-max", "apple-m2-ultra", "apple-m2-ultra-60c", "apple-m3", "apple-m3-pro", "apple-m3-max",
		"apple-m3-ultra", "apple-m4", "apple-m4-pro", "apple-m4-max", "rtx-3060", "rtx-3070", "rtx-3080", "rtx-3090", "rtx-4060-ti",
		"rtx-4070", "rtx-4080", "rtx-4090", "rtx-5090", "rtx-a6000", "rtx-6000-ada", "t4", "l4", "l40s", "a40", "a10g", "a100-40gb",
		"a100-80gb-pcie", "a100-80gb-sxm", "h100-pcie", "h100-sxm", "h200", "b200", "mi300x", "rx-7900-xtx", "desktop-ddr5"}
	for _, n := range hw {
		if _, err := cat.Device(n); err != nil {
			t.Error(err)
		}
	}
	models := []string{"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.2-1b", "llama-3.2-3b",
		"mistral-7b", "mixtral-8x7b", "qwen2-0.5b", "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b", "qwen2.5-7b", "qwen3-0.6b", "qwen3-4b",
		"qwen3-30b-a3b", "phi-3-mini", "phi-3.5-mini", "gemma-2-2b", "gemma-2-9b", "gemma-3-1b", "gemma-3-4b", "tinyllama-1.1b", "smollm2-1.7b",
		"gpt-oss-20b", "gpt-oss-120b", "deepseek-v3", "meta-llama/Llama-3.1-8B-Instruct"}
	for _, n := range models {
		if _, err := cat.Model(n); err != nil {
			t.Error(err)
		}
	}
}

func TestVariantsInherit(t *testing.T) {
	cat, _ := Builtin()
	base, _ := cat.Device("jetson-orin-nano-8gb")
	sup, err := cat.Device("jetson-orin-nano-super-8gb")
	if err != nil {
		t.Fatal(err)
	}
	if sup.VariantOf != base.Name || sup.Memory != base.Memory {
		t.Errorf("variant did not inherit: of %q, memory %g vs %g", sup.VariantOf, sup.Memory, base.Memory)
	}
	if base.Bandwidth != 68e9 || sup.Bandwidth != 102e9 {
		t.Errorf("bandwidths %g / %g, want 68e9 / 102e9", base.Bandwidth, sup.Bandwidth)
	}
	gb, _ := base.Engine("gpu")
	gs, _ := sup.Engine("gpu")
	if gb.Peaks["fp16"] >= gs.Peaks["fp16"] || gb.Power != 15 || gs.Power != 25 {
		t.Errorf("super engine not overridden: fp16 %g→%g, power %g→%g", gb.Peaks["fp16"], gs.Peaks["fp16"], gb.Power, gs.Power)
	}
}

func TestBadProfilesNameFileAndLine(t *testing.T) {
	cases := []struct {
		file string
		want []string // substrings of the error
		not  []string // substrings it must not hold: a failed key reported twice
	}{
		{"misspelled.bad.toml", []string{"misspelled.bad.toml:12:", `unknown key "tie_word_embedings"`}, nil},
		{"badpeak.bad.toml", []string{"badpeak.bad.toml:15:", `unknown key "engine.peak.fp16.sorce"`}, nil},
		// The decoder's "has no source" is the only one: validation's own
		// (at the name's line, 1) would say it again.
		{"nosource.bad.toml", []string{"nosource.bad.toml:7:", "has no source"}, []string{"bad.toml:1:", "device bad-board: bandwidth has no source"}},
		// A bandwidth that does not parse is reported once, at its line:
		// not again as the 0 B/s it left behind, nor as a figure without a source.
		{"badunit.bad.toml", []string{"badunit.bad.toml:7:", `unknown unit "GHz"`, "peak.fp16 must be 1 MFLOP/s to 10 EFLOP/s, got -10 TFLOP/s"}, []string{"got 0 B/s", "bandwidth has no source"}},
		{"badcc.bad.toml", []string{"badcc.bad.toml:14:", "engine gpu compute_capability must be a CUDA compute capability such as 5.3 or 8.7, got 0.5"}, nil},
		// l2_cache is optional, but when given it is a size in range with a source.
		{"badl2.bad.toml", []string{"badl2.bad.toml:14:", "engine.gpu.l2_cache must be 0 (none) or 1 KiB to 1 TiB, got -4 MiB"}, nil},
		{"nosourcel2.bad.toml", []string{"nosourcel2.bad.toml:14:", `engine.gpu.l2_cache = "4 MiB" has no source`}, []string{"l2_cache has no source"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			cat := &Catalog{origin: map[string]string{}}
			_, err := cat.AddFile(filepath.Join("testdata", c.file))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(err.Error(), w) {
					t.Errorf("error %q holds %q: one fault reported twice", err, w)
				}
			}
		})
	}
}

func TestUserProfileAndVariant(t *testing.T) {
	cat, _ := Builtin()
	c := cat.Clone()
	n, err := c.AddFile(filepath.Join("testdata", "board.good.toml"))
	if err != nil || n != "my-board" {
		t.Fatalf("AddFile = %q, %v", n, err)
	}
	d, err := c.Device("mine")
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := d.Engine(""); e.Power != 20 || e.IdlePower != 4.5 || e.Calibration != nil {
		t.Errorf("engine = %+v", e)
	}
	// 16 GiB less the 2 GiB the profile reserves.
	if d.Usable != 14<<30 || !strings.Contains(d.Sources["usable_memory"], "reserved_memory") {
		t.Errorf("usable %g (%s)", d.Usable, d.Sources["usable_memory"])
	}
	if d.MeasuredBandwidth != 80e9 {
		t.Errorf("measured bandwidth %g", d.MeasuredBandwidth)
	}
	v, err := c.Device("my-board-fast")
	if err != nil {
		t.Fatal(err)
	}
	ve, _ := v.Engine("")
	if ve.Peaks["fp16"] != 15e12 || ve.Peaks["int8"] != 20e12 || ve.Power != 20 || ve.IdlePower != 4.5 || v.Usable != 14<<30 {
		t.Errorf("variant engine = %+v", ve)
	}
	// The base's 80 GB/s was measured at its clocks: the variant has none.
	if v.MeasuredBandwidth != 0 || v.Sources["measured_bandwidth"] != "" {
		t.Errorf("variant measured bandwidth %g (%q), want none", v.MeasuredBandwidth, v.Sources["measured_bandwidth"])
	}
	// The built-in catalog is untouched.
	if _, err := cat.Device("mine"); err == nil {
		t.Error("user profile leaked into the built-in catalog")
	}
	// A path works wherever a name does.
	if _, err := cat.Device(filepath.Join("testdata", "board.good.toml")); err != nil {
		t.Error(err)
	}
}

func TestAddDirAndOverride(t *testing.T) {
	dir := t.TempDir()
	src, _ := os.ReadFile(filepath.Join("models", "llama-3.2-1b.toml"))
	over := strings.Replace(string(src), "max_position_embeddings = 131072", "max_position_embeddings = 8192", 1)
	if err := os.WriteFile(filepath.Join(dir, "l.toml"), []byte(over), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, _ := Builtin()
	c := cat.Clone()
	if err := c.AddDir(dir); err != nil {
		t.Fatal(err)
	}
	m, _ := c.Model("llama-3.2-1b")
	if m.MaxContext != 8192 {
		t.Errorf("user override not applied: max context %d", m.MaxContext)
	}
	if b, _ := cat.Model("llama-3.2-1b"); b.MaxContext != 131072 {
		t.Error("built-in changed")
	}
}

func TestNotFoundSuggests(t *testing.T) {
	cat, _ := Builtin()
	_, err := cat.Device("jetson-orin-nano-super")
	if err != nil {
		t.Fatalf("alias not found: %v", err)
	}
	_, err = cat.Device("jetson-orin-nano-supr-8gb")
	var nf *NotFoundError
	if !errors.As(err, &nf) || len(nf.Suggestions) == 0 || nf.Suggestions[0] != "jetson-orin-nano-super-8gb" {
		t.Fatalf("err = %v", err)
	}
	_, err = cat.Model("lama-3.1-8b")
	if !errors.As(err, &nf) || nf.Suggestions[0] != "llama-3.1-8b" {
		t.Fatalf("err = %v", err)
	}
}

func TestDevicesMatching(t *testing.T) {
	cat, _ := Builtin()
	ds, err := cat.DevicesMatching("jetson-*")
	if err != nil || len(ds) != 22 { // 7 modules and the Orins' 15 other power modes
		t.Fatalf("jetson-* = %d devices, %v", len(ds), err)
	}
	if _, err := cat.DevicesMatching("nothing-*"); err == nil {
		t.Fatal("empty glob accepted")
	}
}

// The Jetson AGX Thor's figures, computed by hand from the module's
// sources (profiles/hardware/jetson-agx-thor.toml): a Blackwell SM does
// 4 tensor cores × 2048 = 8192 dense FP16 FLOP per clock, twice that at
// FP8 and again at FP4; the GPU has 20 SMs at 1575 MHz; the CPU is 14
// Neoverse-V3AE cores at 2.6 GHz with four 128-bit pipes each.
func TestJetsonAGXThorFigures(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	d, err := cat.Device("jetson-thor")
	if err != nil {
		t.Fatal(err)
	}
	gpu, _ := d.Engine("gpu")
	cpu, _ := d.Engine("cpu")
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
	cases := []struct {
		what      string
		got, want float64
	}{
		{"gpu fp32", gpu.Peaks[units.FP32], 20 * 128 * 2 * 1575e6},   // 8.064 TFLOP/s
		{"gpu fp16", gpu.Peaks[units.FP16], 20 * 8192 * 1575e6},      // 258.048 TFLOP/s
		{"gpu bf16", gpu.Peaks[units.BF16], 20 * 8192 * 1575e6},      // at the FP16 rate
		{"gpu fp8", gpu.Peaks[units.FP8], 20 * 16384 * 1575e6},       // 516.096 TFLOP/s
		{"gpu fp4", gpu.Peaks[units.FP4], 20 * 32768 * 1575e6},       // 1032.192 TFLOP/s; × 2 sparse = 2064, NVIDIA's 2070
		{"cpu fp32", cpu.Peaks[units.FP32], 14 * 2.6e9 * 4 * 4 * 2},  // 1164.8 GFLOP/s
		{"cpu fp16", cpu.Peaks[units.FP16], 14 * 2.6e9 * 4 * 8 * 2},  // 2329.6 GFLOP/s
		{"cpu int8", cpu.Peaks[units.INT8], 14 * 2.6e9 * 4 * 16 * 2}, // 4659.2 GOP/s (SDOT)
		{"gpu clock", gpu.Clock, 1575e6},
		{"cpu clock", cpu.Clock, 2.6e9},
		{"gpu units", float64(gpu.Units), 20},
		{"cpu units", float64(cpu.Units), 14},
		{"l2", gpu.L2Cache, 32 << 20},
		{"compute capability", gpu.ComputeCapability, 11.0},
		{"memory", d.Memory, 128 << 30},
		{"reserved memory", d.Reserved, 5324 << 20}, // 131,072 MiB less the 125,748 CUDA sees
		{"bandwidth", d.Bandwidth, 273e9},
		{"storage", d.StorageBandwidth, 16e9 * 128 / 130 * 4 / 8}, // PCIe 4.0 x4: 7.88 GB/s
	}
	for _, c := range cases {
		if !near(c.got, c.want) && !(c.what == "storage" && math.Abs(c.got-c.want) < 0.01e9) {
			t.Errorf("%s = %g, want %g", c.what, c.got, c.want)
		}
	}
	if d.Family != "jetson" || d.PowerMode != "MAXN" || !d.Unified {
		t.Errorf("family %q, mode %q, unified %v: want jetson, MAXN, true", d.Family, d.PowerMode, d.Unified)
	}
	if _, ok := gpu.Peaks[units.INT8]; ok {
		t.Error("the GPU states an int8 peak: NVIDIA gives none for Thor, and none is derived")
	}
}

// A profile path that is not there is an unknown device with the list's
// hint, not Go's "stat X: no such file or directory"; a path with @MODE
// says a file takes no power mode.
func TestDeviceFileNotThere(t *testing.T) {
	cat, _ := Builtin()
	good := filepath.Join("testdata", "board.good.toml")
	cases := []struct {
		name, kind, detail string
	}{
		{filepath.Join("testdata", "nosuch.toml"), "hardware", "no such file"},
		{"./jetson-orin-nano-8gb", "hardware", "no such file"},
		{good + "@25w", "power mode", "a profile file takes no @MODE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := cat.Device(c.name)
			var nf *NotFoundError
			if !errors.As(err, &nf) {
				t.Fatalf("error %v (%T), want a NotFoundError", err, err)
			}
			if nf.Kind != c.kind || !strings.Contains(nf.Detail, c.detail) || nf.Hint() == "" {
				t.Errorf("kind %q detail %q hint %q, want %q and %q", nf.Kind, nf.Detail, nf.Hint(), c.kind, c.detail)
			}
		})
	}
}

// TestModelFileNotThere: a model path that is not there is an unknown
// model with the catalog's hint, whatever file it names (a profile, a
// GGUF, a config.json, a checkpoint directory), not the bare stat error.
func TestModelFileNotThere(t *testing.T) {
	cat, _ := Builtin()
	for _, name := range []string{
		filepath.Join("testdata", "nosuch.toml"),
		"./nosuch.gguf",
		filepath.Join("testdata", "nosuch", "config.json"),
		"./nosuch-checkpoint",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := cat.Model(name)
			var nf *NotFoundError
			if !errors.As(err, &nf) {
				t.Fatalf("error %v (%T), want a NotFoundError", err, err)
			}
			if nf.Kind != "model" || nf.Detail != "no such file" || nf.Hint() == "" {
				t.Errorf("kind %q detail %q hint %q", nf.Kind, nf.Detail, nf.Hint())
			}
		})
	}
}

// TestRK3588BoardMemory checks the RK3588 boards' memory against Rockchip's
// DDR blob: the SoC's four 16-bit channels (64 bit) at the blob's clock,
// two transfers a clock.
func TestRK3588BoardMemory(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		module string
		bw     float64
		memory float64
	}{
		{"rock-5b", "rk3588", 64 * 2 * 2112e6 / 8, 16 << 30},               // LPDDR4X at 2112 MHz: 4224 MT/s × 8 B = 33.79 GB/s (profile: 33.8)
		{"orangepi-5-max", "rk3588", 64 * 2 * 2400e6 / 8, 16 << 30},        // LPDDR5 at 2400 MHz (blob v1.16+): 4800 MT/s × 8 B = 38.4 GB/s
		{"rk3588-orangepi-5-max", "rk3588", 64 * 2 * 2400e6 / 8, 16 << 30}, // the variant's own name
	} {
		d, err := cat.Device(c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d.Module() != c.module {
			t.Errorf("%s: module %q, want %q (a board variant shares the SoC's fitted level)", c.name, d.Module(), c.module)
		}
		if math.Abs(d.Bandwidth-c.bw) > 0.001*c.bw {
			t.Errorf("%s: bandwidth %.4g B/s, want %.4g", c.name, d.Bandwidth, c.bw)
		}
		if d.Memory != c.memory {
			t.Errorf("%s: memory %g B, want %g", c.name, d.Memory, c.memory)
		}
	}
}

// Every GPU engine states a sourced FP32 (vector, not tensor) peak, which
// the unpacking decode bound runs at (sim.Inputs.UnpackPeak), except the
// A10G's: NVIDIA publishes no A10G datasheet, AWS's G5 page states its
// memory only, and the secondary tables disagree (31.2, 31.52 TFLOP/s)
// with no SM count or clock that gives either, so it has none and its
// predictions say so (sim's unpack-peak-fallback). A few rows by hand:
// the A40's datasheet 37.4 TFLOPS [V]; the Orin Nano Super's 8 SMs ×
// 128 lanes × 2 × 1020 MHz = 2.089 TFLOP/s [D]; the M1 Max's 32 cores ×
// 128 × 2 × 1.296 GHz = 10.617 TFLOP/s [S]; the Thor's 20 SMs × 128 × 2
// × 1575 MHz = 8.064 TFLOP/s [D].
func TestGPUFP32Peaks(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	lacking := map[string]bool{"a10g": true}
	var missing []string
	for _, d := range cat.Devices() {
		for _, e := range d.Engines {
			if e.Kind != hardware.GPU {
				continue
			}
			v := e.Peaks[units.FP32]
			src := d.Sources["engine."+e.Name+".peak.fp32"]
			switch {
			case !(v > 0):
				missing = append(missing, d.Name)
			case !(strings.Contains(src, "[V]") || strings.Contains(src, "[S]") || strings.Contains(src, "[D]")):
				t.Errorf("%s: fp32 peak %g cites no [V], [S] or [D] source: %q", d.Name, v, src)
			}
		}
	}
	for _, n := range missing {
		if !lacking[n] {
			t.Errorf("%s: the GPU engine states no fp32 peak; the unpacking bound would fall back to its tensor peak", n)
		}
	}
	if len(missing) != len(lacking) {
		t.Errorf("GPU engines without an fp32 peak: %v, want %d (a10g)", missing, len(lacking))
	}
	for _, c := range []struct {
		device string
		want   float64
	}{
		{"a40", 37.4e12},
		{"jetson-orin-nano-super-8gb", 8 * 128 * 2 * 1020e6}, // 2.089 TFLOP/s
		{"apple-m1-max", 10.617e12},                          // 32 × 128 × 2 × 1.296 GHz
		{"jetson-thor", 20 * 128 * 2 * 1575e6},               // 8.064 TFLOP/s
	} {
		d, err := cat.Device(c.device)
		if err != nil {
			t.Fatal(err)
		}
		gpu, _ := d.Engine("gpu")
		if got := gpu.Peaks[units.FP32]; math.Abs(got/c.want-1) > 1e-3 {
			t.Errorf("%s fp32 = %g, want %g", c.device, got, c.want)
		}
	}
}
