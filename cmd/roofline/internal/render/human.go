package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/roofline/roofline/units"
)

// The formatters for people, one per kind of figure. None prints an
// exponent: a figure for people reads 14815 tokens/s, never 1.481e+04.
// Programs get full precision from the JSON and CSV writers instead.

// Dash stands for a figure that is undefined.
const Dash = "—"

// Duration is seconds scaled to s, ms, µs or ns; a dash when undefined.
func Duration(v float64) string {
	if math.IsNaN(v) {
		return Dash
	}
	return units.FormatDuration(v)
}

// OptDuration is an optional duration (nil: undefined).
func OptDuration(v *float64) string {
	if v == nil {
		return Dash
	}
	return Duration(*v)
}

// Tokens is a token rate, tokens/s: four significant digits, and whole
// tokens from 1000 up (14815, 163.0, 9.871).
func Tokens(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return Dash
	case math.Abs(v) >= 1000:
		return whole(v)
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return units.Sig(v, 4)
}

// Rate is a rate with its unit; a dash when undefined or zero.
func Rate(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
		return Dash
	}
	return units.Sig(v, 4) + " " + unit
}

// Bytes is a size in binary units (GiB), as memory is sold and llama.cpp
// prints.
func Bytes(b float64) string { return units.FormatBytes(b, units.Binary) }

// SignedBytes is a size that may be negative (headroom).
func SignedBytes(b float64) string {
	if b < 0 {
		return "−" + Bytes(-b)
	}
	return Bytes(b)
}

// Bandwidth is a rate in decimal bytes per second, as vendors quote it.
func Bandwidth(bps float64) string { return units.FormatBandwidth(bps) }

// Ops is a compute rate at a precision (FLOP/s or OP/s).
func Ops(v float64, p units.Precision) string { return units.FormatRate(v, p.RateUnit()) }

// Clock is an engine's clock, Hz (918 MHz, 1.73 GHz); a dash when the
// profile gives none.
func Clock(hz float64) string {
	if hz <= 0 {
		return "-"
	}
	return units.FormatRate(hz, "Hz")
}

// Flops is a floating-point rate, FLOP/s.
func Flops(v float64) string { return units.FormatRate(v, "FLOP/s") }

// Count is a plain count scaled with k, M, G, T.
func Count(n float64) string { return units.FormatCount(n) }

// Percent is a share as a whole percentage; a dash when undefined.
func Percent(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Dash
	}
	return whole(100*v) + "%"
}

// Percent1 is a share as a percentage with one decimal; a dash when
// undefined.
func Percent1(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Dash
	}
	if math.Abs(100*v) >= maxWhole {
		return whole(100*v) + "%"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// Intensity is an arithmetic intensity, FLOP per byte.
func Intensity(v float64) string {
	if v >= 100 {
		return whole(v)
	}
	return units.Sig(v, 3)
}

// Fixed is v with d decimals; a dash when undefined.
func Fixed(v float64, d int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Dash
	}
	if math.Abs(v) >= maxWhole {
		return whole(v)
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// maxWhole is where a figure for people stops being written in full: a
// number of more than 15 digits is no figure anyone reads (the ranges of
// package limits keep every input's figures far below), and is written
// with an exponent rather than as hundreds of digits.
const maxWhole = 1e15

// whole is v without decimals, or with an exponent from maxWhole up.
func whole(v float64) string {
	if math.Abs(v) >= maxWhole {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// Factor is a ratio such as a speed-up: 1.35×.
func Factor(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Dash
	}
	if math.Abs(v) >= maxWhole {
		return whole(v) + "×"
	}
	return fmt.Sprintf("%.2f×", v)
}

// Plural is "s" unless n is one.
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// OrDash is s, or a dash when it is blank.
func OrDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return Dash
	}
	return s
}

// Fits says whether a configuration fits in memory.
func Fits(fits bool) string {
	if fits {
		return "fits"
	}
	return "does not fit"
}

// OptInt is an optional count (nil: none).
func OptInt(v *int, none string) string {
	if v == nil {
		return none
	}
	return strconv.Itoa(*v)
}
