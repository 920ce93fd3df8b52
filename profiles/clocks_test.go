package profiles

import (
	"strings"
	"testing"
)

// board is a device profile with memory clock steps and an NPU clock
// range, extra appended to its top level and npu to its NPU engine.
func clockBoard(top, npu, variant string) string {
	return `name = "clkboard"
description = "a test board"
family = "rockchip"
segment = "edge"
memory = { value = "8 GiB", source = "[V] test" }
bandwidth = { value = "33.8 GB/s", source = "[V] test" }
storage_bandwidth = { value = "400 MB/s", source = "[V] test" }
default_engine = "npu"
` + top + `
[[engine]]
name = "npu"
kind = "npu"
clock = { value = "1 GHz", source = "[V] test" }
` + npu + `
[engine.peak]
int8 = { value = "6 TOP/s", source = "[V] test" }
` + variant
}

func TestMemoryClocksDecode(t *testing.T) {
	src := clockBoard(`memory_clocks = { value = ["528 MHz", "1068 MHz", "1560 MHz", "2112 MHz"], source = "[V] steps" }`,
		`min_clock = { value = "300 MHz", source = "[S] range" }`, `
[[variant]]
name = "clkboard-lp5"
description = "lp5"
bandwidth = { value = "38.4 GB/s", source = "[V] lp5" }

[[variant]]
name = "clkboard-small"
description = "small"
memory = { value = "4 GiB", source = "[V] small" }
`)
	ds, err := decodeDevices("board.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := ds[0].MemoryClocks; len(got) != 4 || got[0] != 528e6 || got[3] != 2112e6 || ds[0].Sources["memory_clocks"] != "[V] steps" {
		t.Errorf("base: %v", got)
	}
	if e := ds[0].Engines[0]; e.MinClock != 300e6 || e.Clock != 1e9 {
		t.Errorf("NPU clocks %g-%g, want 300 MHz-1 GHz", e.MinClock, e.Clock)
	}
	// A variant with a memory of its own does not keep the base's steps;
	// one that keeps the memory keeps them.
	if ds[1].MemoryClocks != nil || ds[1].Sources["memory_clocks"] != "" {
		t.Errorf("%s keeps the base's steps: %v", ds[1].Name, ds[1].MemoryClocks)
	}
	if len(ds[2].MemoryClocks) != 4 {
		t.Errorf("%s lost the base's steps", ds[2].Name)
	}
}

func TestMemoryClocksRefused(t *testing.T) {
	for _, c := range []struct{ top, npu, want string }{
		{`memory_clocks = { value = ["1068 MHz", "528 MHz"], source = "[V] s" }`, "", `"528 MHz" is not above the step before it`},
		{`memory_clocks = { value = ["528 MHz", "2112 MHz"] }`, "", "memory_clocks has no source"},
		{`memory_clocks = { value = [], source = "[V] s" }`, "", "memory_clocks is empty"},
		{`memory_clocks = { value = ["fast"], source = "[V] s" }`, "", "memory_clocks:"},
		{`memory_clocks = { value = ["0.5 Hz"], source = "[V] s" }`, "", "a clock is from 1 MHz"},
		{"", `min_clock = { value = "2 GHz", source = "[S] r" }`, "min_clock = \"2 GHz\" needs the engine's clock (its maximum) at or above it"},
		{"", `min_clock = { value = "300 MHz" }`, "has no source"},
	} {
		_, err := decodeDevices("board.toml", []byte(clockBoard(c.top, c.npu, "")))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "board.toml") {
			t.Errorf("%s %s: %v, want an error of board.toml with %q", c.top, c.npu, err, c.want)
		}
	}
}
