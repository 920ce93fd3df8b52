package units

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// The quantities people type — on the command line and in study and
// profile files alike — each with its one parser.

// ParseQuantity reads a quantity that carries its unit: 15W, 200ms,
// 512MiB, 90MB/s. A bare number other than 0 is refused, as it is in a
// profile: is "200" seconds or milliseconds, bytes or megabytes? 0 is the
// same in every unit and may go without one.
func ParseQuantity(s string, d Dimension) (float64, error) {
	t := strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(t, 64); err == nil && !strings.ContainsAny(t, "xXpP_") {
		if v == 0 {
			return 0, nil
		}
		return 0, &NoUnitError{Value: t, Dim: d}
	}
	return Parse(t, d)
}

// NoUnitError is a bare number where a quantity needs its unit.
type NoUnitError struct {
	Value string
	Dim   Dimension
}

func (e *NoUnitError) Error() string {
	return fmt.Sprintf("%q has no unit: write the unit, e.g. %s", e.Value, e.Dim)
}

// ParseDuration reads a positive duration with its unit: 1s, 200ms, 35us.
// A bare number is refused: "200" could be seconds or milliseconds.
func ParseDuration(s string) (float64, error) {
	return parseDuration(s, false)
}

// ParseWait reads a duration that may be zero, with its unit: a think
// time or a pause, where 0 (or 0s) means none. Negative and NaN are refused.
func ParseWait(s string) (float64, error) {
	return parseDuration(s, true)
}

func parseDuration(s string, zero bool) (float64, error) {
	s = strings.TrimSpace(s)
	v, err := ParseQuantity(s, DimDuration)
	var nu *NoUnitError
	var ov *OverflowError
	switch {
	case errors.As(err, &ov) && !strings.HasPrefix(s, "-"):
		// 1e400s is no mistake of sign or syntax: say it is out of range.
		return 0, ov
	case errors.As(err, &nu) && notFinite(s):
		// "NaN" and "Inf" parse as bare numbers: a unit would not help.
		return 0, fmt.Errorf("%q: not a duration; want one such as 1s or 200ms", s)
	case errors.As(err, &nu) && zero:
		return 0, fmt.Errorf("%q: give a unit, e.g. 0s, 10s or 200ms", s)
	case errors.As(err, &nu):
		return 0, fmt.Errorf("%q: give a unit, e.g. 1s or 200ms", s)
	case zero && (err != nil || !(v >= 0) || math.IsInf(v, 0)):
		return 0, fmt.Errorf("%q: want a duration of 0s or more such as 10s or 200ms", s)
	case !zero && (err != nil || !(v > 0)):
		return 0, fmt.Errorf("%q: want a positive duration such as 1s or 200ms", s)
	}
	return v, nil
}

// MaxTokenCount bounds a token count: 16 Mi tokens, far beyond any
// model's context.
const MaxTokenCount = 1 << 24

// TokenK and TokenM are what the suffixes of a token count stand for:
// binary, as context lengths are written (8k = 8192, 128k = 131072, 1M =
// 1048576), on the command line and in study files alike.
const (
	TokenK = 1 << 10
	TokenM = 1 << 20
)

// ParseTokens reads a positive whole token count, where k is 1024 tokens
// and M 1024² (TokenK, TokenM): 4096, 4k, 1.5k, 1M.
func ParseTokens(s string) (int, error) {
	n, err := ParseTokenCount(s)
	if err == nil && n < 1 {
		return 0, fmt.Errorf("%q is not a positive token count", strings.TrimSpace(s))
	}
	return n, err
}

// ParseTokenCount is ParseTokens where 0 (no tokens) is allowed, as for
// the tokens already in a cache.
func ParseTokenCount(s string) (int, error) {
	t := strings.TrimSpace(s)
	num, mult := t, 1.0
	switch {
	case strings.HasSuffix(t, "k") || strings.HasSuffix(t, "K"):
		num, mult = t[:len(t)-1], TokenK
	case strings.HasSuffix(t, "M") || strings.HasSuffix(t, "m"):
		num, mult = t[:len(t)-1], TokenM
	}
	v, err := strconv.ParseFloat(num, 64)
	n := v * mult
	switch {
	case err != nil || !(n >= 0) || math.IsInf(n, 0) || strings.ContainsAny(num, "xXpP_") || n != math.Trunc(n):
		return 0, fmt.Errorf("%q is not a whole token count such as 512, 4k (4096) or 1M", t)
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

// notFinite says whether s reads as NaN or an infinity.
func notFinite(s string) bool {
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && (math.IsNaN(v) || math.IsInf(v, 0))
}
