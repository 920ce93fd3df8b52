package sim

import "github.com/roofline/roofline/hardware"

// ColdStart is the first request after a model loads from storage: the
// weights read at the storage's rate, then the warm prefill before the
// first token. It is the one cold-start rule of predict and chat.
type ColdStart struct {
	Medium           string  // the named medium, or "" for the device's storage
	StorageBandwidth float64 // B/s
	Bytes            float64 // the weights read, B
	Load             float64 // weights / storage bandwidth, s
	Prefill          float64 // warm time to the first token, s
	TTFT             float64 // Load + Prefill, s
}

// ColdStart prices a start from the device's storage, whose warm time to
// the first token is prefill seconds.
func (s *Setup) ColdStart(prefill float64) ColdStart {
	return s.coldFrom("", s.Device.StorageBandwidth, prefill)
}

// ColdStarts prices the same start from every named storage medium, for
// choosing between an SD card, eMMC and NVMe.
func (s *Setup) ColdStarts(prefill float64) []ColdStart {
	out := make([]ColdStart, 0, len(hardware.StorageMedia))
	for _, m := range hardware.StorageMedia {
		out = append(out, s.coldFrom(m.Name, m.Bandwidth, prefill))
	}
	return out
}

func (s *Setup) coldFrom(medium string, bw, prefill float64) ColdStart {
	c := ColdStart{Medium: medium, StorageBandwidth: bw, Bytes: s.Model.WeightBytes, Load: s.Model.WeightBytes / bw, Prefill: prefill}
	c.TTFT = c.Load + c.Prefill
	return c
}
