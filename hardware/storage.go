package hardware

import (
	"fmt"
	"strings"
)

// Storage is a storage medium a model is loaded from. Bandwidths are
// interface limits derived from the bus specifications: no medium reads
// faster, most real cards and drives read slower, so a load time from
// them is a lower bound. Users with a measured read rate give it instead.
type Storage struct {
	Name      string
	Bandwidth float64 // B/s
	Source    string
}

// StorageMedia are the named media `--storage` accepts.
var StorageMedia = []Storage{
	{"sd", 104e6, "[D] microSD UHS-I SDR104 bus: 208 MHz × 4 bit / 8 = 104 MB/s (SD Physical Layer Simplified Specification)"},
	{"emmc", 400e6, "[D] eMMC 5.1 HS400: 200 MHz DDR × 8 bit = 400 MB/s (JEDEC JESD84-B51)"},
	{"usb3", 500e6, "[D] USB 3.2 Gen 1: 5 Gb/s × 8/10 (8b/10b) / 8 = 500 MB/s, before protocol overhead"},
	{"nvme-gen2x1", 500e6, "[D] PCIe 2.0 x1 (Raspberry Pi 5 M.2 HAT): 5 GT/s × 8/10 / 8 = 500 MB/s"},
	{"nvme-gen3x4", 3.94e9, "[D] PCIe 3.0 x4: 8 GT/s × 128/130 × 4 lanes / 8 = 3.94 GB/s"},
	{"nvme-gen4x4", 7.88e9, "[D] PCIe 4.0 x4: 16 GT/s × 128/130 × 4 lanes / 8 = 7.88 GB/s"},
	{"nvme-gen5x4", 15.75e9, "[D] PCIe 5.0 x4: 32 GT/s × 128/130 × 4 lanes / 8 = 15.75 GB/s"},
}

// LookupStorage finds a named medium.
func LookupStorage(name string) (Storage, error) {
	for _, s := range StorageMedia {
		if strings.EqualFold(s.Name, name) {
			return s, nil
		}
	}
	names := make([]string, len(StorageMedia))
	for i, s := range StorageMedia {
		names[i] = s.Name
	}
	return Storage{}, fmt.Errorf("unknown storage %q (want %s, or a read rate such as 90MB/s)", name, strings.Join(names, ", "))
}
