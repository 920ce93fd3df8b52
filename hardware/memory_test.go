package hardware

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestUsableMemory(t *testing.T) {
	const gib = 1 << 30
	cases := []struct {
		name      string
		d         Device
		want      float64
		class     MemoryClass
		rule      string
		wantGiven bool
	}{
		// 16 GiB · 2/3 = 10922.67 MiB, the figure Metal reports on a 16 GB Mac.
		{"mac 16 GiB", Device{Family: "apple", Unified: true, Memory: 16 * gib}, 16 * gib * 2 / 3, MacOS, "67 % of RAM up to 36 GiB", false},
		// 36 GiB is not above the step: 36 · 2/3 = 24 GiB.
		{"mac 36 GiB", Device{Family: "apple", Unified: true, Memory: 36 * gib}, 24 * gib, MacOS, "67 %", false},
		// 64 GiB · 3/4 = 48 GiB = 49152 MiB.
		{"mac 64 GiB", Device{Family: "apple", Unified: true, Memory: 64 * gib}, 48 * gib, MacOS, "75 % of RAM above 36 GiB", false},
		// 192 GiB · 3/4 = 144 GiB.
		{"mac 192 GiB", Device{Family: "apple", Unified: true, Memory: 192 * gib}, 144 * gib, MacOS, "75 %", false},
		// A 16 GiB Rock 5B with no figure: 16384 − 1117 = 15267 MiB.
		{"board default", Device{Family: "rockchip", Unified: true, Memory: 16 * gib}, 15267 << 20, SharedOS, "less 1.09 GiB", false},
		// AGX Orin 64GB with its own reserve: 65536 − 3239 = 62297 MiB.
		// The rule cites where the reserve comes from.
		{"board reserve", Device{Family: "jetson", Unified: true, Memory: 64 * gib, Reserved: 3239 << 20, Sources: map[string]string{"reserved_memory": "[S][J12] tegrastats"}},
			62297 << 20, SharedOS, "the firmware and OS keep (reserved_memory: [S][J12] tegrastats)", false},
		// A discrete GPU with no driver figure keeps all 24 GiB.
		{"gpu default", Device{Family: "nvidia", Memory: 24 * gib}, 24 * gib, Dedicated, "no figure for what the driver keeps", false},
		// 24 GiB − 0.44 GiB the driver keeps = 23.56 GiB.
		{"gpu reserve", Device{Family: "nvidia", Memory: 24 * gib, Reserved: 0.44 * gib, Sources: map[string]string{"reserved_memory": "[S][M1] vLLM start-up"}},
			23.56 * gib, Dedicated, "the driver keeps (reserved_memory: [S][M1] vLLM start-up)", false},
		// A profile's own figure wins over every rule.
		{"given", Device{Family: "apple", Unified: true, Memory: 64 * gib, UsableGiven: 56 * gib, Sources: map[string]string{"usable_memory": "sysctl iogpu.wired_limit_mb=57344"}}, 56 * gib, MacOS, "sysctl", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, rule := c.d.UsableMemory()
			if math.Abs(got-c.want) > 1 {
				t.Errorf("usable %.0f B, want %.0f B", got, c.want)
			}
			if cl := c.d.MemoryClass(); cl != c.class {
				t.Errorf("class %s, want %s", cl, c.class)
			}
			if !strings.Contains(rule, c.rule) {
				t.Errorf("rule %q does not say %q", rule, c.rule)
			}
			if isRule := strings.HasPrefix(rule, DefaultRule+" rule:"); isRule == c.wantGiven {
				t.Errorf("rule %q: derived = %v", rule, isRule)
			}
		})
	}
}

func TestValidateMemoryAndPower(t *testing.T) {
	for _, c := range []struct {
		mutate func(*Device)
		want   string
	}{
		{func(d *Device) { d.Reserved = d.Memory }, "reserved_memory must be"},
		{func(d *Device) { d.Reserved = -1 }, "reserved_memory must be"},
		{func(d *Device) { d.Engines[0].Power, d.Engines[0].IdlePower = 10, 12 }, "idle_power must be at most power"},
		{func(d *Device) { d.Engines[0].IdlePower = math.NaN() }, "idle_power"},
		{func(d *Device) { d.Engines[0].Power, d.Engines[0].IdlePower = 10, 3 }, "engine.gpu.idle_power has no source"},
	} {
		d := board()
		c.mutate(d)
		if err := d.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want error containing %q, got %v", c.want, err)
		}
	}
}

func TestPowerDraw(t *testing.T) {
	d := board()
	_, _, _, _, err := d.PowerDraw("")
	if !errors.Is(err, ErrNoPowerFigure) || !strings.Contains(err.Error(), "the gpu engine of b") {
		t.Errorf("no figure: %v", err)
	}
	d.Engines[0].Power, d.Engines[0].IdlePower = 25, 4.5
	d.Sources["engine.gpu.power"], d.Sources["engine.gpu.idle_power"] = "[V] datasheet", "[S] review"
	run, idle, rs, is, err := d.PowerDraw("gpu")
	if err != nil || run != 25 || idle != 4.5 || rs != "[V] datasheet" || is != "[S] review" {
		t.Errorf("PowerDraw = %g %g %q %q %v", run, idle, rs, is, err)
	}
	if _, _, _, _, err := d.PowerDraw("npu"); err == nil || errors.Is(err, ErrNoPowerFigure) {
		t.Errorf("unknown engine: %v", err)
	}
}
