package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Dimension is the kind of quantity a string is parsed as.
type Dimension int

// The dimensions roofline parses.
const (
	DimBytes     Dimension = iota // B
	DimBandwidth                  // B/s
	DimRate                       // FLOP/s or OP/s
	DimDuration                   // s
	DimPower                      // W
	DimFrequency                  // Hz
)

func (d Dimension) String() string {
	switch d {
	case DimBytes:
		return "bytes (e.g. 8 GiB, 512 MB)"
	case DimBandwidth:
		return "bandwidth (e.g. 102 GB/s, 3.35 TB/s)"
	case DimRate:
		return "compute rate (e.g. 16.7 TFLOP/s, 33.4 TOP/s)"
	case DimDuration:
		return "duration (e.g. 200ms, 1s, 35us)"
	case DimPower:
		return "power (e.g. 25 W)"
	case DimFrequency:
		return "clock frequency (e.g. 918 MHz)"
	}
	return "quantity"
}

// unitSuffixes lists, per dimension, the unit spellings accepted after the
// prefix. Longer spellings come first so that "FLOP/s" is not read as "B".
var unitSuffixes = map[Dimension][]string{
	DimBytes:     {"bytes", "byte", "B"},
	DimBandwidth: {"B/s", "Bps"},
	DimRate:      {"FLOP/s", "FLOPS", "flop/s", "flops", "OP/s", "OPS", "op/s", "ops"},
	DimDuration:  {"s"},
	DimPower:     {"W"},
	DimFrequency: {"Hz"},
}

var decimalPrefix = map[string]float64{
	"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
}

var binaryPrefix = map[string]float64{
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40,
}

var durationPrefix = map[string]float64{
	"": 1, "m": 1e-3, "u": 1e-6, "µ": 1e-6, "n": 1e-9,
}

// Parse reads s as a quantity of dimension d and returns it in SI base
// units. A bare number is taken as already being in base units.
func Parse(s string, d Dimension) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty %s", d)
	}
	// Split the leading number from the unit.
	i := 0
	for i < len(t) {
		c := rune(t[i])
		if unicode.IsDigit(c) || c == '.' || c == '-' || c == '+' ||
			((c == 'e' || c == 'E') && i+1 < len(t) && (unicode.IsDigit(rune(t[i+1])) || t[i+1] == '-' || t[i+1] == '+')) {
			i++
			continue
		}
		break
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	if num == "" {
		return 0, fmt.Errorf("%q is not a %s: no number", s, d)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil && !math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a %s: bad number %q", s, d, num)
	}
	if err != nil {
		return 0, &OverflowError{Value: t, Dim: d}
	}
	if v == 0 && strings.ContainsAny(mantissa(num), "123456789") {
		return 0, &OverflowError{Value: t, Dim: d, Small: true}
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a finite %s", s, d)
	}
	if unit == "" {
		return v, nil
	}
	scale, ok := unitScale(unit, d)
	if !ok {
		return 0, fmt.Errorf("%q is not a %s: unknown unit %q", s, d, unit)
	}
	if scale < 1 {
		// Divide by the exact inverse so that "50us" is exactly 5e-5.
		if r := v / math.Round(1/scale); r != 0 || v == 0 {
			return r, nil
		}
		return 0, &OverflowError{Value: t, Dim: d, Small: true}
	}
	if r := v * scale; !math.IsInf(r, 0) {
		return r, nil
	}
	return 0, &OverflowError{Value: t, Dim: d}
}

// OverflowError is a well-formed quantity past what a float64 holds:
// 1e400s, or 1e-400s, which would read as 0.
type OverflowError struct {
	Value string
	Dim   Dimension
	// Small: too close to 0 to be told from it, else too large.
	Small bool
}

func (e *OverflowError) Error() string {
	if e.Small {
		return fmt.Sprintf("%q is out of range: too close to 0 for a %s", e.Value, e.Dim)
	}
	return fmt.Sprintf("%q is out of range: too large for a %s", e.Value, e.Dim)
}

// mantissa is a number's digits before its exponent.
func mantissa(num string) string {
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		return num[:i]
	}
	return num
}

func unitScale(unit string, d Dimension) (float64, bool) {
	for _, suf := range unitSuffixes[d] {
		if !strings.HasSuffix(unit, suf) {
			continue
		}
		prefix := strings.TrimSpace(strings.TrimSuffix(unit, suf))
		if d == DimDuration {
			if m, ok := durationPrefix[prefix]; ok {
				return m, true
			}
			continue
		}
		if m, ok := decimalPrefix[prefix]; ok {
			return m, true
		}
		if d == DimBytes || d == DimBandwidth {
			if m, ok := binaryPrefix[prefix]; ok {
				return m, true
			}
		}
	}
	if d == DimDuration {
		switch unit {
		case "h":
			return 3600, true
		case "min":
			return 60, true
		}
	}
	return 0, false
}
