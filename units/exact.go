package units

import (
	"math"
	"strconv"
)

// FormatExact renders v, a quantity of dimension d in SI base units, with
// the largest prefix that keeps the number at or above 1 and as few digits
// as Parse needs to return exactly v: "8 GiB", "102 GB/s", "16.7 TFLOP/s",
// "126 µs". It is for files a program reads back (profiles roofline
// writes), where a figure must survive the round trip bit for bit and
// still read like a datasheet.
func FormatExact(v float64, d Dimension) string {
	if v == 0 {
		return "0 " + baseUnit(d)
	}
	type unit struct {
		prefix string
		scale  float64
	}
	var units []unit
	switch d {
	case DimDuration:
		units = []unit{{"", 1}, {"m", 1e-3}, {"µ", 1e-6}, {"n", 1e-9}}
	case DimBytes:
		units = []unit{{"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10},
			{"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}, {"", 1}}
	default:
		units = []unit{{"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}, {"", 1}}
	}
	// The largest prefix that keeps the number at or above 1 and needs at
	// most six significant digits reads like a datasheet; failing that,
	// the shortest exact rendering.
	best := ""
	for _, u := range units {
		x := v / u.scale
		if d == DimDuration && u.scale < 1 {
			x = v * math.Round(1/u.scale)
		}
		if math.Abs(x) < 1 && u.scale != units[len(units)-1].scale {
			continue
		}
		for prec := 1; prec <= 17; prec++ {
			s := strconv.FormatFloat(x, 'g', prec, 64)
			if containsExp(s) {
				s = strconv.FormatFloat(x, 'f', -1, 64)
			}
			str := s + " " + u.prefix + baseUnit(d)
			if back, err := Parse(str, d); err == nil && back == v {
				binary := len(u.prefix) == 2 && u.prefix[1] == 'i'
				if sd := sigDigits(s); (binary && sd <= 3) || (!binary && sd <= 6) {
					return str
				}
				if best == "" || len(str) < len(best) {
					best = str
				}
				break
			}
		}
	}
	if best != "" {
		return best
	}
	return strconv.FormatFloat(v, 'g', -1, 64) + " " + baseUnit(d)
}

func containsExp(s string) bool {
	for _, c := range s {
		if c == 'e' || c == 'E' {
			return true
		}
	}
	return false
}

func baseUnit(d Dimension) string {
	switch d {
	case DimBytes:
		return "B"
	case DimBandwidth:
		return "B/s"
	case DimRate:
		return "FLOP/s"
	case DimDuration:
		return "s"
	case DimPower:
		return "W"
	case DimFrequency:
		return "Hz"
	}
	return ""
}

// sigDigits counts the significant digits of a decimal number.
func sigDigits(s string) int {
	n, lead := 0, true
	trailing := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			continue
		}
		if lead && c == '0' {
			continue
		}
		lead = false
		n++
		if c == '0' {
			trailing++
		} else {
			trailing = 0
		}
	}
	if !containsDot(s) {
		n -= trailing // 52000: two significant digits
	}
	return n
}

func containsDot(s string) bool {
	for _, c := range s {
		if c == '.' {
			return true
		}
	}
	return false
}
