package hardware

import (
	"fmt"

	"github.com/roofline/roofline/units"
)

// MemoryClass is how a device's memory is shared, which decides the rule
// for the share a model may use.
type MemoryClass string

// Memory classes.
const (
	// MacOS is Apple silicon: the GPU may wire only part of the unified
	// memory (the Metal working-set limit).
	MacOS MemoryClass = "macos"
	// SharedOS is any other unified memory (Jetson, Rockchip and Pi
	// boards, DGX Spark, a CPU host): the OS and the firmware keep part of
	// it and the model gets the rest.
	SharedOS MemoryClass = "shared"
	// Dedicated is a discrete accelerator's own memory: the driver keeps
	// part of it (ECC, its reservation) and a runtime sees the rest.
	Dedicated MemoryClass = "dedicated"
)

// The macOS rule: Metal's recommendedMaxWorkingSetSize, the GPU
// wired-memory limit macOS sets by default, is 2/3 of RAM on Macs with
// little memory and 3/4 on larger ones. Measured values, as llama.cpp logs
// them (ggml_metal_init: recommendedMaxWorkingSetSize, in MiB):
//
//	16 GiB  10922.67 = 16384 · 2/3  (abetlen/llama-cpp-python#687)
//	32 GiB  21845.34 = 32768 · 2/3  (ollama/ollama#434, ggml-org/llama.cpp#2011)
//
// and about 49 GB on a 64 GB M2 Max (ggml-org/llama.cpp#1870: 65536 MiB ·
// 3/4 = 48 GiB), 96 GB on 128 GB Macs and 144 GB on a 192 GB M2 Ultra
// (raullenchai/Rapid-MLX#183). Where between 32 and 64 GiB the share steps
// up is not measured here; guides put it at 36 GB (2/3 up to 36 GB, 3/4
// above), the conservative choice for the 36 GB and 48 GB Macs. The limit can be
// raised with `sysctl iogpu.wired_limit_mb`, and newer macOS releases are
// reported to allow more on very large Macs: such a Mac sets usable_memory.
const (
	MacOSSmallShare = 2.0 / 3
	MacOSLargeShare = 3.0 / 4
	MacOSLargeAbove = 36 << 30 // B: Macs with more than this get MacOSLargeShare
)

// SharedOSReserve is the memory a Linux board keeps before a model loads
// when its profile gives no reserved_memory of its own: measured on a
// Jetson Orin Nano 8GB under JetPack 6, 573 MiB of firmware carveouts (the
// kernel sees 7.44 GiB of 8 GiB, henrygd/beszel#286) plus 544 MiB that a
// headless JetPack uses (dusty-nv/jetson-containers#342): 1117 MiB. A
// desktop session takes about 800 MB more (NVIDIA Jetson AI Lab, "RAM
// optimization"); a lighter image (Raspberry Pi OS Lite, a minimal Armbian)
// less.
const SharedOSReserve = 1117 << 20

// MemoryClass is the class of d's memory.
func (d *Device) MemoryClass() MemoryClass {
	switch {
	case d.Unified && d.Family == "apple":
		return MacOS
	case d.Unified:
		return SharedOS
	}
	return Dedicated
}

// UsableMemory is the memory a model may use on d, in bytes, and the rule
// that gave it, in words fit for a report. It is the one place the rule
// lives:
//
//   - a profile's usable_memory, when it gives one (a figure measured on
//     the user's own image wins over any rule);
//   - Apple silicon: the macOS GPU wired-memory limit, MacOSSmallShare of
//     RAM up to MacOSLargeAbove, MacOSLargeShare above;
//   - other unified memory: capacity less the profile's reserved_memory
//     (firmware carveouts and what the OS itself uses), or less
//     SharedOSReserve when the profile gives none;
//   - dedicated memory: capacity less the profile's reserved_memory (what
//     the driver keeps: ECC, its own reservation), all of it when the
//     profile gives none.
//
// What a runtime keeps for itself (CUDA context, vLLM's memory share) is
// not part of this: runtimes price it (runtimes.Runtime).
func (d *Device) UsableMemory() (float64, string) {
	if d.UsableGiven > 0 {
		return d.UsableGiven, d.Sources["usable_memory"]
	}
	gib := func(v float64) string { return units.FormatBytes(v, units.Binary) }
	// reserved cites the profile's figure with its source.
	reserved := "reserved_memory"
	if src := d.Sources["reserved_memory"]; src != "" {
		reserved += ": " + src
	}
	switch d.MemoryClass() {
	case MacOS:
		share, which := MacOSSmallShare, "up to"
		if d.Memory > MacOSLargeAbove {
			share, which = MacOSLargeShare, "above"
		}
		return share * d.Memory, fmt.Sprintf("%s rule: the macOS GPU wired-memory limit, %.0f %% of RAM %s 36 GiB (Metal recommendedMaxWorkingSetSize; docs/profiles.md)",
			DefaultRule, 100*share, which)
	case SharedOS:
		if d.Reserved > 0 {
			return d.Memory - d.Reserved, fmt.Sprintf("%s rule: %s less %s the firmware and OS keep (%s)", DefaultRule, gib(d.Memory), gib(d.Reserved), reserved)
		}
		return d.Memory - SharedOSReserve, fmt.Sprintf("%s rule: %s less %s for firmware carveouts and a headless Linux (measured on a Jetson Orin Nano; docs/profiles.md); set reserved_memory or usable_memory for your image",
			DefaultRule, gib(d.Memory), gib(SharedOSReserve))
	}
	if d.Reserved > 0 {
		return d.Memory - d.Reserved, fmt.Sprintf("%s rule: %s less %s the driver keeps (%s)", DefaultRule, gib(d.Memory), gib(d.Reserved), reserved)
	}
	return d.Memory, fmt.Sprintf("%s rule: all of the %s of dedicated memory; no figure for what the driver keeps on this device (usually 1–2 %%, more with ECC on GDDR)", DefaultRule, gib(d.Memory))
}

// DefaultRule starts the source of a figure a rule derived rather than a
// profile gave.
const DefaultRule = "default"
