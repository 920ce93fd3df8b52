package units

import (
	"fmt"
	"math"
)

// Prefixes chooses how a byte quantity is scaled for people.
type Prefixes int

const (
	// Decimal scales by 1000 (kB, MB, GB): the unit of vendors' bandwidth.
	Decimal Prefixes = iota
	// Binary scales by 1024 (KiB, MiB, GiB): the unit llama.cpp prints sizes in.
	Binary
)

// FormatBytes renders b bytes with three significant digits.
func FormatBytes(b float64, p Prefixes) string {
	if p == Binary {
		return scale(b, 1024, []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"})
	}
	return scale(b, 1000, []string{"B", "kB", "MB", "GB", "TB", "PB"})
}

// FormatBandwidth renders a rate in decimal bytes per second.
func FormatBandwidth(bps float64) string {
	return scale(bps, 1000, []string{"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"})
}

// FormatRate renders an operation rate; unit is "FLOP/s" or "OP/s".
func FormatRate(r float64, unit string) string {
	return scale(r, 1000, []string{unit, "k" + unit, "M" + unit, "G" + unit, "T" + unit, "P" + unit})
}

// FormatCount renders a plain count (parameters, FLOPs) with k, M, G, T.
func FormatCount(n float64) string {
	return scale(n, 1000, []string{"", "k", "M", "G", "T", "P"})
}

// FormatDuration renders seconds in s, ms, µs or ns.
func FormatDuration(s float64) string {
	a := math.Abs(s)
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0):
		return "—"
	case a == 0:
		return "0 s"
	case a >= 1:
		return sig3(s) + " s"
	case a >= 1e-3:
		return sig3(s*1e3) + " ms"
	case a >= 1e-6:
		return sig3(s*1e6) + " µs"
	}
	return sig3(s*1e9) + " ns"
}

func scale(v, base float64, names []string) string {
	a := math.Abs(v)
	i := 0
	for a >= base && i < len(names)-1 {
		a /= base
		v /= base
		i++
	}
	if names[i] == "" {
		return sig3(v)
	}
	return sig3(v) + " " + names[i]
}

// largest is the largest figure sig3 writes in full: fifteen nines.
const largest = "999999999999999"

// sig3 prints three significant digits without an exponent; a number
// past every prefix by 10¹² (a bug, or an input outside every physical
// range, such as a latency of 1e300 s) as past a bound of fifteen digits
// rather than in hundreds of them or with an exponent, and NaN and the
// infinities as a dash.
func sig3(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "—"
	case a >= 1e15 && v < 0:
		return "< -" + largest
	case a >= 1e15:
		return "> " + largest
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
