package report

import (
	"bytes"
	"testing"
)

func TestTableFormats(t *testing.T) {
	tb := Table{Header: []string{"NAME", "VALUE"}, Right: map[int]bool{1: true}}
	tb.Add("µ-board", "1.5")
	tb.Add("a|b", "10")
	var b bytes.Buffer
	if err := tb.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	// Widths count runes, so "µ" takes one column.
	want := "NAME     VALUE\nµ-board    1.5\na|b         10\n"
	if b.String() != want {
		t.Errorf("text:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	_ = tb.WriteMarkdown(&b)
	if want := "| NAME | VALUE |\n|---|---:|\n| µ-board | 1.5 |\n| a\\|b | 10 |\n"; b.String() != want {
		t.Errorf("markdown:\n%q", b.String())
	}
	b.Reset()
	_ = tb.WriteCSV(&b)
	if want := "NAME,VALUE\nµ-board,1.5\na|b,10\n"; b.String() != want {
		t.Errorf("csv:\n%q", b.String())
	}
}
