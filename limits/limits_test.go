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
