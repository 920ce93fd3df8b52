package units

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		dim  Dimension
		want float64
	}{
		{"102 GB/s", DimBandwidth, 102e9},
		{"3.35TB/s", DimBandwidth, 3.35e12},
		{"68.25 GB/s", DimBandwidth, 68.25e9},
		{"1 GiB/s", DimBandwidth, 1 << 30},
		{"8 GiB", DimBytes, 8 << 30},
		{"46068 MiB", DimBytes, 46068 << 20},
		{"512 MB", DimBytes, 512e6},
		{"1024", DimBytes, 1024},
		{"16.7 TFLOP/s", DimRate, 16.7e12},
		{"33.4 TOP/s", DimRate, 33.4e12},
		{"512 GFLOPS", DimRate, 512e9},
		{"200ms", DimDuration, 0.2},
		{"1s", DimDuration, 1},
		{"50us", DimDuration, 5e-5},
		{"35 µs", DimDuration, 35e-6},
		{"25 W", DimPower, 25},
		{"1e9 B", DimBytes, 1e9},
	}
	for _, c := range cases {
		got, err := Parse(c.in, c.dim)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if math.Abs(got-c.want) > 1e-12*math.Abs(c.want) {
			t.Errorf("Parse(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		in  string
		dim Dimension
	}{
		{"", DimBytes},
		{"GB", DimBytes},
		{"10 GHz", DimBandwidth},
		{"10 GB", DimBandwidth},      // a size is not a bandwidth
		{"10 GiFLOP/s", DimRate},     // no binary prefixes on rates
		{"NaN GB/s", DimBandwidth},   // not finite
		{"1e400 GB/s", DimBandwidth}, // overflows
		{"5 Ws", DimPower},
		{"1e300 TB/s", DimBandwidth}, // overflows after scaling
	}
	for _, c := range cases {
		if v, err := Parse(c.in, c.dim); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", c.in, v)
		}
	}
}

func TestFormat(t *testing.T) {
	cases := []struct{ got, want string }{
		{FormatBytes(4.918e9, Decimal), "4.92 GB"},
		{FormatBytes(4.918e9, Binary), "4.58 GiB"},
		{FormatBytes(131072, Binary), "128 KiB"},
		{FormatBandwidth(102e9), "102 GB/s"},
		{FormatRate(16.7e12, "FLOP/s"), "16.7 TFLOP/s"},
		{FormatDuration(0.0352), "35.2 ms"},
		{FormatDuration(1.5), "1.50 s"},
		{FormatDuration(126e-6), "126 µs"},
		{FormatCount(8.03e9), "8.03 G"},
		// Past fifteen digits (a latency of 1e300 s), bounded without an
		// exponent: it wrote "1e+300 s".
		{FormatDuration(1e300), "> 999999999999999 s"}, {FormatDuration(-1e300), "< -999999999999999 s"},
		{FormatDuration(9.99e14), "999000000000000 s"}, {FormatBytes(2e33, Decimal), "> 999999999999999 PB"},
		// Below one in the twelfth decimal, bounded as Sig bounds them
		// (it wrote "0.00 ns" and "0.00 B"): 1e-22 s is 1e-13 ns, 1e-300 B
		// smaller still. 1e-21 s is 1e-12 ns, at the bound: its three
		// digits would need fourteen decimals, and it is written to
		// twelve (it was said to be below the bound it equals).
		{FormatDuration(1e-22), "< 0.000000000001 ns"}, {FormatDuration(-1e-22), "> -0.000000000001 ns"},
		{FormatBytes(1e-300, Decimal), "< 0.000000000001 B"},
		{FormatDuration(1e-21), "0.000000000001 ns"}, {FormatDuration(-1e-21), "-0.000000000001 ns"},
		// Three significant digits below one too (it wrote 0.01 and 0.00):
		// 0.0123 needs four decimals, 1e-12 s = 0.001 ns five.
		{FormatCount(0.0123), "0.0123"}, {FormatDuration(1e-12), "0.00100 ns"},
		// A zero keeps its three digits; 9.996 rounds to 10.0, not 10.00.
		{FormatBytes(0, Decimal), "0.00 B"}, {FormatDuration(9.996), "10.0 s"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestSig is the one significant-figure writer: trailing zeros dropped,
// no exponent, bounded at twelve decimals and fifteen digits.
func TestSig(t *testing.T) {
	cases := []struct{ got, want string }{
		{Sig(14815.3, 4), "14815"}, {Sig(9999.7, 4), "10000"}, {Sig(163, 4), "163"}, {Sig(0.000012345, 3), "0.0000123"},
		{Sig(1.5, 4), "1.5"}, {Sig(0, 3), "0"}, {Sig(0.099996, 3), "0.1"},
		{Sig(5.12e-298, 4), "< 0.000000000001"}, {Sig(-5.12e-298, 4), "> -0.000000000001"},
		// 1.2345e-12 is above one in the twelfth decimal: written to twelve
		// decimals (it was said to be below 0.000000000001); 9.99e-13
		// rounds up to it; 4e-13 is below it.
		{Sig(1.2345e-12, 3), "0.000000000001"}, {Sig(-1.2345e-12, 3), "-0.000000000001"}, {Sig(9.996e-13, 3), "0.000000000001"},
		{Sig(4e-13, 3), "< 0.000000000001"}, {Sig(1.2345e-10, 3), "0.000000000123"},
		{Sig(math.NaN(), 3), "—"}, {Sig(math.Inf(-1), 3), "—"},
		// Past fifteen digits as FormatDuration writes them: it wrote 1e+300.
		{Sig(1e300, 4), "> 999999999999999"}, {Sig(-1e300, 4), "< -999999999999999"}, {Sig(9.99e14, 3), "999000000000000"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"102 GB/s", "8 GiB", "16.7 TFLOP/s", "200ms", "25 W", "-1", "1e-3 kB", "1e400s", "1e-400 ns", "-1e400 W"} {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, s string, d int) {
		dim := Dimension(((d % 5) + 5) % 5)
		v, err := Parse(s, dim)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("Parse(%q) = %v without an error", s, v)
		}
	})
}

// A well-formed number past what a float64 holds is out of range, said
// as such (not "bad number", not "want a positive duration"): 1e400 is
// past 1.8e308, 1e308 h is 3.6e311 s, 1e-400 s and 1e-320 ns (1e-329 s)
// are below 4.9e-324, the smallest float64 above 0.
func TestOverflow(t *testing.T) {
	cases := []struct {
		in    string
		dim   Dimension
		small bool
		want  string
	}{
		{"1e400s", DimDuration, false, `"1e400s" is out of range: too large for a duration`},
		{"1e308h", DimDuration, false, "too large"},
		{"1e400 GB/s", DimBandwidth, false, `"1e400 GB/s" is out of range: too large for a bandwidth`},
		{"1e300 TB/s", DimBandwidth, false, "too large"},
		{"1e-400s", DimDuration, true, `"1e-400s" is out of range: too close to 0 for a duration`},
		{"1e-320ns", DimDuration, true, "too close to 0"},
	}
	for _, c := range cases {
		_, err := Parse(c.in, c.dim)
		var ov *OverflowError
		if !errors.As(err, &ov) || ov.Small != c.small || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v; want an OverflowError (small %v) saying %q", c.in, err, c.small, c.want)
		}
	}
	// Durations keep it; a negative one is told to be positive, and 0s and 0e400s are 0.
	for _, in := range []string{"1e400s", "1e-400s", " 1e308h "} {
		if _, err := ParseDuration(in); !errors.As(err, new(*OverflowError)) {
			t.Errorf("ParseDuration(%q): %v, want out of range", in, err)
		}
		if _, err := ParseWait(in); !errors.As(err, new(*OverflowError)) {
			t.Errorf("ParseWait(%q): %v, want out of range", in, err)
		}
	}
	if _, err := ParseDuration("-1e400s"); err == nil || !strings.Contains(err.Error(), "want a positive duration") {
		t.Errorf("ParseDuration(-1e400s): %v", err)
	}
	for _, in := range []string{"0s", "0e400s", "0.000e-400s"} {
		if v, err := ParseWait(in); err != nil || v != 0 {
			t.Errorf("ParseWait(%q) = %v, %v; want 0", in, v, err)
		}
	}
}

func TestTextQuantities(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64 // 0: an error
	}{{"1s", 1}, {"200ms", 0.2}, {" 35us ", 35e-6}, {"200", 0}, {"-1s", 0}, {"0s", 0}, {"fast", 0}} {
		v, err := ParseDuration(c.in)
		if (c.want == 0) != (err != nil) || v != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", c.in, v, err, c.want)
		}
	}
	// A wait may be zero (a closed loop's users with no think time).
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{{"0s", 0, true}, {"0", 0, true}, {"10s", 10, true}, {"250ms", 0.25, true}, {"-1s", 0, false}, {"NaNs", 0, false}, {"Infs", 0, false}, {"10", 0, false}, {"soon", 0, false}} {
		v, err := ParseWait(c.in)
		if (err == nil) != c.ok || v != c.want {
			t.Errorf("ParseWait(%q) = %v, %v; want %v (ok %v)", c.in, v, err, c.want, c.ok)
		}
	}
	// k is 1024: 4k = 4096, 1.5k = 1536.
	for _, c := range []struct {
		in   string
		want int
	}{{"4096", 4096}, {"4k", 4096}, {"1.5K", 1536}, {"0", 0}, {"1.5", 0}, {"zero", 0}, {"-1k", 0}, {"16385k", 0}} {
		v, err := ParseTokens(c.in)
		if (c.want == 0) != (err != nil) || v != c.want {
			t.Errorf("ParseTokens(%q) = %v, %v; want %v", c.in, v, err, c.want)
		}
	}
	// M is 1024² = 1048576: 1M = 1048576, 0.5M = 524288, 16M = 2^24 (the
	// limit); a count of 0 is ParseTokenCount's (a depth), not ParseTokens'.
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{{"1M", 1 << 20, true}, {"0.5m", 1 << 19, true}, {"16M", 1 << 24, true}, {"128k", 131072, true}, {" 2K ", 2048, true},
		{"0", 0, true}, {"0k", 0, true}, {"010", 10, true}, {"1.1k", 0, false}, {"17M", 0, false}, {"-1", 0, false},
		{"0x10", 0, false}, {"1_000", 0, false}, {"NaN", 0, false}, {"Inf", 0, false}, {"k", 0, false}, {"1Mi", 0, false}, {"", 0, false}} {
		v, err := ParseTokenCount(c.in)
		if c.ok != (err == nil) || v != c.want {
			t.Errorf("ParseTokenCount(%q) = %v, %v; want %v (ok %v)", c.in, v, err, c.want, c.ok)
		}
	}
	if l, err := ParseTokenList("8k, 1k,2k"); err != nil || len(l) != 3 || l[0] != 1024 || l[2] != 8192 {
		t.Errorf("ParseTokenList: %v %v", l, err)
	}
	// A count given twice, however spelled, is refused: plan searched
	// --context 4k,4096 as two contexts.
	for in, want := range map[string]string{"4096,4096": "4096 is given twice: give each once", "4k, 1k,4096": "4096 is given twice (4k and 4096 are both 4096): give each once"} {
		if l, err := ParseTokenList(in); err == nil || err.Error() != want {
			t.Errorf("ParseTokenList(%q) = %v, %v; want %q", in, l, err, want)
		}
	}
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{{"10%", 0.1, true}, {"0", 0, true}, {"0%", 0, true}, {"150%", 0, false}, {"10", 0, false}, {"-5%", 0, false}, {"100%", 0, false}} {
		v, err := ParseShare(c.in)
		if c.ok != (err == nil) || v != c.want {
			t.Errorf("ParseShare(%q) = %v, %v", c.in, v, err)
		}
	}
}

// ParseQuantity needs the unit, as profiles do: one rule for every
// duration, power, size and rate flag.
func TestParseQuantity(t *testing.T) {
	for _, c := range []struct {
		in   string
		dim  Dimension
		want float64
		ok   bool
	}{
		{"15W", DimPower, 15, true}, {"15 W", DimPower, 15, true}, {"1.5kW", DimPower, 1500, true},
		{"200ms", DimDuration, 0.2, true}, {"512MiB", DimBytes, 512 << 20, true}, {"90MB/s", DimBandwidth, 90e6, true},
		{"0", DimBytes, 0, true}, {"0.0", DimPower, 0, true},
		{"15", DimPower, 0, false}, {"1", DimDuration, 0, false}, {"1024", DimBytes, 0, false}, {"1e9", DimBandwidth, 0, false},
		{"15s", DimPower, 0, false}, {"NaN W", DimPower, 0, false}, {"", DimPower, 0, false},
	} {
		v, err := ParseQuantity(c.in, c.dim)
		if c.ok != (err == nil) || (c.ok && math.Abs(v-c.want) > 1e-12*c.want) {
			t.Errorf("ParseQuantity(%q) = %v, %v; want %v (ok %v)", c.in, v, err, c.want, c.ok)
		}
	}
	var nu *NoUnitError
	if _, err := ParseQuantity("15", DimPower); !errors.As(err, &nu) || nu.Value != "15" {
		t.Errorf("a bare number: %v, want a *NoUnitError", err)
	}
}

func FuzzParseText(f *testing.F) {
	for _, s := range []string{"1s", "200ms", "4k", "1.5k", "1M", "15W", "10%", "0", "1e9k", "NaN%", "-0", "1e400s", "1e-400s", "0e400s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseDuration(s); err == nil && !(v > 0 && !math.IsInf(v, 0)) {
			t.Errorf("ParseDuration(%q) = %v", s, v)
		}
		if v, err := ParseWait(s); err == nil && !(v >= 0 && !math.IsInf(v, 0)) {
			t.Errorf("ParseWait(%q) = %v", s, v)
		}
		if v, err := ParseTokens(s); err == nil && (v < 1 || v > MaxTokenCount) {
			t.Errorf("ParseTokens(%q) = %v", s, v)
		}
		if v, err := ParseTokenCount(s); err == nil && (v < 0 || v > MaxTokenCount) {
			t.Errorf("ParseTokenCount(%q) = %v", s, v)
		}
		for d := DimBytes; d <= DimPower; d++ {
			if v, err := ParseQuantity(s, d); err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
				t.Errorf("ParseQuantity(%q, %v) = %v", s, d, v)
			}
		}
		if v, err := ParseShare(s); err == nil && !(v >= 0 && v < 1) {
			t.Errorf("ParseShare(%q) = %v", s, v)
		}
	})
}
