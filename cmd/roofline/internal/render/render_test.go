package render

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
)

func TestTableFormats(t *testing.T) {
	tb := &Table{Cols: []Col{{Head: "NAME", Key: "name"}, {Head: "VALUE", Right: true}, {Key: "value_s"}}}
	tb.AddCells(C("µ-board"), C("1.5 ms"), D(0.0015))
	tb.AddCells(C("a|b"), C("10 s"), D(10))
	cases := []struct {
		f    Format
		want string
	}{
		// Widths count runes, so "µ" takes one column.
		{Text, "NAME      VALUE\nµ-board  1.5 ms\na|b        10 s\n"},
		{Markdown, "| NAME | VALUE |\n|---|---:|\n| µ-board | 1.5 ms |\n| a\\|b | 10 s |\n"},
		// Programs get the keyed columns, at full precision.
		{CSV, "name,value_s\nµ-board,0.0015\na|b,10\n"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		if err := tb.Write(&b, c.f); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s:\n%q\nwant\n%q", c.f, b.String(), c.want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"text": Text, "JSON": JSON, " csv ": CSV, "Markdown": Markdown, "md": Markdown} {
		if f, err := ParseFormat(in); err != nil || f != want {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v", in, f, err, want)
		}
	}
	if _, err := ParseFormat("yaml"); err == nil {
		t.Error("yaml parsed")
	}
	if _, err := DataFormats.Parse("csv"); err == nil || !strings.Contains(err.Error(), "must be one of text, json") {
		t.Errorf("csv outside the set: %v", err)
	}
	if f, err := AllFormats.Parse("MD"); err != nil || f != Markdown {
		t.Errorf("MD: %v %v", f, err)
	}
}

// Figures for people never carry an exponent.
func TestNoExponent(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Tokens(14815.3), "14815"}, {Tokens(163), "163.0"}, {Tokens(9.8712), "9.871"},
		{Rate(2.5e7, "tok/s"), "25000000 tok/s"}, {Intensity(1234.5), "1234"}, {Intensity(0.5), "0.5"},
		// A figure below twelve decimals (a link of 1e-300 B/s, a latency
		// of 1e300 s) is bounded, not 300 zeros wide (units.Sig's cases).
		{Rate(5.12e-298, "tok/s"), "< 0.000000000001 tok/s"}, {Rate(1e300, "tok/s"), "> 999999999999999 tok/s"},
	} {
		if c.got != c.want || strings.ContainsAny(c.got, "e+") {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// A calibration on a device without a measured read holds no read share
// (calibrate.ClassPrior): the answer leaves the row out rather than
// setting 0 against its class's share; a share it fitted is shown.
func TestUnusedReadShare(t *testing.T) {
	i := slices.Index(hardware.ParameterNames, "read_share")
	vals, class := make([]float64, len(hardware.ParameterNames)), make([]float64, len(hardware.ParameterNames))
	class[i] = 0.94
	if !unused(i, vals, class) {
		t.Error("a read share of 0 against the class's 0.94 is shown")
	}
	vals[i] = 0.9
	if unused(i, vals, class) {
		t.Error("a fitted read share of 0.9 is left out")
	}
}
