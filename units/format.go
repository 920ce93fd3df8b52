package units

import (
	"math"
	"strconv"
	"strings"
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

// largest is the largest figure written in full: fifteen nines.
const largest = "999999999999999"

// tiny is the smallest figure written: one in the twelfth decimal.
const tiny = "0.000000000001"

// sigDecimals is the most decimals a figure is written with.
const sigDecimals = 12

// Sig is v to n significant digits for people, trailing zeros dropped
// (163, 1.5, 0.0000123). It is the one writer of significant figures:
// FormatBytes, FormatDuration and the rest write three with sig3.
func Sig(v float64, n int) string { return sig(v, n, false) }

// sig3 is v to three significant digits, trailing zeros kept (1.50 s,
// 0.00 B), so that a column of sizes or times reads evenly.
func sig3(v float64) string { return sig(v, 3, true) }

// sig writes v to n significant digits without an exponent. A figure
// past fifteen digits (a bug, or an input outside every physical range,
// such as a latency of 1e300 s) is written as past that bound, and one
// below one in the twelfth decimal (a link of 1e-300 B/s) as below it,
// rather than hundreds of digits wide or with an exponent; one at or
// above it whose n digits would need more decimals (1.23e-12) to twelve
// decimals, fewer digits. NaN and the infinities are a dash. zeros keeps
// the trailing zeros of the digits written.
func sig(v float64, n int, zeros bool) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	if n < 1 {
		n = 1
	}
	// The exponent of v once rounded to n digits (9.996 is 1.00e+01).
	e := 0
	if v != 0 {
		m := strconv.FormatFloat(v, 'e', n-1, 64)
		e, _ = strconv.Atoi(m[strings.IndexByte(m, 'e')+1:])
	}
	switch {
	case e >= 15 && v < 0:
		return "< -" + largest
	case e >= 15:
		return "> " + largest
	case e < -sigDecimals && v < 0:
		return "> -" + tiny
	case e < -sigDecimals:
		return "< " + tiny
	}
	d := min(max(n-1-e, 0), sigDecimals)
	s := strconv.FormatFloat(v, 'f', d, 64)
	if !zeros && d > 0 {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
