package limits_test

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/roofline/roofline/limits"
)

// docs/profiles.md lists every ceiling with its value, so the table cannot
// drift from the code.
func TestDocumentedCeilings(t *testing.T) {
	b, err := os.ReadFile("../docs/profiles.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, c := range limits.All() {
		row := "| " + c.Name + " | " + c.String() + " |"
		if !strings.Contains(doc, row) {
			t.Errorf("docs/profiles.md lacks the row %q", row)
		}
	}
}

func TestMul(t *testing.T) {
	for _, c := range []struct {
		max  int64
		xs   []int64
		want int64
		ok   bool
	}{
		{100, []int64{10, 10}, 100, true},
		{99, []int64{10, 10}, 0, false},
		{math.MaxInt64, []int64{1 << 32, 1 << 32}, 0, false}, // 2^64 wraps to 0 unchecked
		{math.MaxInt64, []int64{1 << 31, 1 << 31}, 1 << 62, true},
		{100, []int64{0, 1 << 62, 1 << 62}, 0, true},
		{100, []int64{-1}, 0, false},
	} {
		got, ok := limits.Mul(c.max, c.xs...)
		if got != c.want || ok != c.ok {
			t.Errorf("Mul(%d, %v) = %d, %v; want %d, %v", c.max, c.xs, got, ok, c.want, c.ok)
		}
	}
}

func TestCount(t *testing.T) {
	for v, want := range map[float64]string{4096: "2^12", 16: "16", 1e15: "1e15", 1e12: "1e12", 1000: "1000"} {
		if got := limits.Count(v); got != want {
			t.Errorf("Count(%g) = %q, want %q", v, got, want)
		}
	}
}

// docs/profiles.md lists every physical range with its bounds, so the
// table cannot drift from the code.
func TestDocumentedRanges(t *testing.T) {
	b, err := os.ReadFile("../docs/profiles.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range limits.Ranges() {
		row := "| " + r.Name + " | " + r.Text() + " |"
		if !strings.Contains(string(b), row) {
			t.Errorf("docs/profiles.md lacks the row %q", row)
		}
	}
}

func TestRanges(t *testing.T) {
	for _, c := range []struct {
		r    limits.Range
		v    float64
		want string // "" when within
	}{
		{limits.Share, 0.5, ""},
		{limits.Share, 1, ""},
		{limits.Share, 1e-300, "must be 0.0001 to 1, got 1e-300"},
		{limits.Share, 0, "must be 0.0001 to 1, got 0"},
		{limits.Share, 1.5, "must be 0.0001 to 1, got 1.5"},
		{limits.Share, math.NaN(), "must be 0.0001 to 1, got NaN"},
		{limits.Bandwidth, 1e-300, "must be 1 kB/s to 100 TB/s, got 1e-300 B/s"},
		{limits.Bandwidth, 1008e9, ""},
		{limits.PowerDraw, 1e300, "must be 1 mW to 1 MW, got 1e+300 W"},
		{limits.Overhead, 0, ""},
		{limits.Overhead, 1e300, "must be 0 (none) or 1 B to 1 PiB, got 1e+300 B"},
		{limits.Latency, 1e300, "must be 1 µs to 86400 s, got 1e+300 s"},
		{limits.Latency, 0.05, ""},
		{limits.Rate, 1e-300, "must be 0.001 tokens/s to 1e+12 tokens/s, got 1e-300 tokens/s"},
		{limits.HalfRows, 1e300, "must be 0 (none) or 0.001 to 1e+06, got 1e+300"},
		{limits.Memory, 24 << 30, ""},
		{limits.Battery, math.Inf(1), "must be 1 mWh to 1 MWh, got +Inf"},
	} {
		err := c.r.Check(c.v)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v within its range: %v", c.r.Name, c.v, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s: %v: %v, want %q", c.r.Name, c.v, err, c.want)
		}
	}
}
