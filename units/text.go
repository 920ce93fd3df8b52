package units

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// The quantities people type — on the command line and in study and
// profile files alike — each with its one parser.

// ParseDuration reads a positive duration with its unit: 1s, 200ms, 35us.
// A bare number is refused: "200" could be seconds or milliseconds.
func ParseDuration(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return 0, fmt.Errorf("%q: give a unit, e.g. 1s or 200ms", s)
	}
	v, err := Parse(s, DimDuration)
	if err != nil || !(v > 0) {
		return 0, fmt.Errorf("%q: want a positive duration such as 1s or 200ms", s)
	}
	return v, nil
}

// MaxTokenCount bounds a token count: 16 Mi tokens, far beyond any
// model's context.
const MaxTokenCount = 1 << 24

// ParseTokens reads a positive whole token count, where k is 1024
// tokens, as context lengths are written: 4096, 4k, 1.5k.
func ParseTokens(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	if n, ok := strings.CutSuffix(t, "k"); ok {
		mult, t = 1024, n
	}
	v, err := strconv.ParseFloat(t, 64)
	n := v * mult
	switch {
	case err != nil || !(n >= 1) || math.IsInf(n, 0) || strings.ContainsAny(t, "xX_") || n != math.Trunc(n):
		return 0, fmt.Errorf("%q is not a positive token count", t)
	case n > MaxTokenCount:
		return 0, fmt.Errorf("%q exceeds the limit of %d tokens (2^24)", t, MaxTokenCount)
	}
	return int(n), nil
}

// ParseTokenList reads a comma-separated list of token counts, sorted.
func ParseTokenList(s string) ([]int, error) {
	var out []int
	for _, it := range strings.Split(s, ",") {
		if it = strings.TrimSpace(it); it == "" {
			continue
		}
		v, err := ParseTokens(it)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty list")
	}
	sort.Ints(out)
	return out, nil
}

// ParseShare reads a share below one written as a percentage: 10% is
// 0.1; 0 is none. A bare number other than 0 is refused (is 10 ten per
// cent or ten times?).
func ParseShare(s string) (float64, error) {
	t := strings.TrimSpace(s)
	n, pct := strings.CutSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
	if pct {
		v /= 100
	}
	if err != nil || !(v >= 0) || v >= 1 || (!pct && v > 0) {
		return 0, fmt.Errorf("%q: want a percentage below 100%%, e.g. 10%%", t)
	}
	return v, nil
}
