package hardware

import (
	"fmt"
	"strings"
)

// System is several identical devices in one machine joined by a link:
// an HGX node of eight GPUs on NVSwitch, a workstation of consumer GPUs
// on PCIe. Naming one as the hardware runs the model across its devices.
type System struct {
	Name        string
	Description string
	Device      string // the device profile of each of its devices
	Count       int
	Link        string // the link between its devices (Links)
	Source      string
}

// Systems are the built-in systems.
var Systems = []System{
	{Name: "hgx-h100", Description: "NVIDIA HGX H100 (the GPU board of a DGX H100): 8 H100 SXM on NVLink 4 through NVSwitch", Device: "h100-sxm", Count: 8, Link: "nvlink4",
		Source: "[V] NVIDIA DGX H100 datasheet: 8x NVIDIA H100 Tensor Core GPUs, 640 GB of GPU memory, 4x NVIDIA NVSwitches, 7.2 TB/s of bidirectional GPU-to-GPU bandwidth (900 GB/s per GPU)"},
	{Name: "hgx-h200", Description: "NVIDIA HGX H200: 8 H200 SXM on NVLink 4 through NVSwitch", Device: "h200", Count: 8, Link: "nvlink4",
		Source: "[V] NVIDIA HGX platform specifications: HGX H200 8-GPU, NVLink 900 GB/s per GPU through NVSwitch"},
	{Name: "hgx-a100", Description: "NVIDIA HGX A100 80GB: 8 A100 SXM on NVLink 3 through NVSwitch", Device: "a100-80gb-sxm", Count: 8, Link: "nvlink3",
		Source: "[V] NVIDIA A100 Tensor Core GPU datasheet: HGX A100 8-GPU with NVSwitch, NVLink 600 GB/s per GPU"},
	{Name: "hgx-b200", Description: "NVIDIA HGX B200: 8 B200 on NVLink 5 through NVSwitch", Device: "b200", Count: 8, Link: "nvlink5",
		Source: "[V] NVIDIA DGX B200 datasheet: 8x NVIDIA Blackwell GPUs, fifth-generation NVLink, 14.4 TB/s aggregate (1.8 TB/s per GPU)"},
	{Name: "workstation-4x-rtx-4090", Description: "a PCIe workstation of 4 GeForce RTX 4090 (each on PCIe 4.0 x16; GeForce has no NVLink and its peer-to-peer transfers go through the host)", Device: "rtx-4090", Count: 4, Link: "pcie4-x16",
		Source: "[A] a workstation board with four PCIe 4.0 x16 slots; [S] tinygrad/open-gpu-kernel-modules issue #6: three RTX 4090 on PCIe 4.0 x16 move 25.8 GB/s between each other with peer-to-peer disabled, NVIDIA's driver default on GeForce"},
	{Name: "workstation-2x-rtx-3090", Description: "a PCIe workstation of 2 GeForce RTX 3090 on PCIe 4.0 x16 (without their NVLink bridge)", Device: "rtx-3090", Count: 2, Link: "pcie4-x16",
		Source: "[A] a desktop board with two PCIe 4.0 x16 slots, the common dual-3090 build"},
}

// LookupSystem finds a built-in system by name.
func LookupSystem(name string) (System, bool) {
	for _, s := range Systems {
		if strings.EqualFold(s.Name, name) {
			return s, true
		}
	}
	return System{}, false
}

// DefaultHost is the host a device's layers are offloaded to when the
// user names none, and why: a discrete GPU of a desktop or workstation
// sits in a desktop (the catalog's desktop-ddr5: 16-core Zen 4, two
// channels of DDR5-5600), which the output says; a datacenter GPU's host
// is a server no profile describes, so it has none; a device whose
// memory is unified offloads to its own CPU engine, from the same
// memory.
func (d *Device) DefaultHost() (name, why string) {
	switch {
	case d.Unified:
		return d.Name, "unified memory: the CPU shares the device's memory"
	case d.Segment == "consumer" || d.Segment == "workstation":
		return "desktop-ddr5", fmt.Sprintf("[A] a %s GPU's host taken as the catalog's desktop-ddr5 (16-core Zen 4, two channels of DDR5-5600, 64 GB)", d.Segment)
	}
	return "", fmt.Sprintf("%s is a %s device: no host profile describes its server", d.Name, d.Segment)
}
