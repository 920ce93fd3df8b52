package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/roofline/roofline/safeio"
)

// Table is a grid of cells with a header row.
type Table struct {
	Header []string
	Rows   [][]string
	// Right marks columns to right-align (numbers).
	Right map[int]bool
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// WriteText writes the table aligned with two spaces between columns.
func (t *Table) WriteText(w io.Writer) error {
	widths := make([]int, len(t.Header))
	all := append([][]string{t.Header}, t.Rows...)
	for _, r := range all {
		for i, c := range r {
			if i < len(widths) && utf8.RuneCountInString(c) > widths[i] {
				widths[i] = utf8.RuneCountInString(c)
			}
		}
	}
	var b strings.Builder
	for _, r := range all {
		for i, c := range r {
			if i >= len(widths) {
				break
			}
			pad := widths[i] - utf8.RuneCountInString(c)
			last := i == len(r)-1
			if t.Right[i] {
				b.WriteString(strings.Repeat(" ", pad))
				b.WriteString(c)
			} else {
				b.WriteString(c)
				if !last {
					b.WriteString(strings.Repeat(" ", pad))
				}
			}
			if !last {
				b.WriteString("  ")
			}
		}
		b.WriteString("\n")
	}
	// Empty trailing cells leave padding behind; drop it.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}

// WriteMarkdown writes the table as a GitHub-flavoured Markdown table.
func (t *Table) WriteMarkdown(w io.Writer) error {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var b strings.Builder
	b.WriteString("| " + strings.Join(mapStrings(t.Header, esc), " | ") + " |\n|")
	for i := range t.Header {
		if t.Right[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("| " + strings.Join(mapStrings(r, esc), " | ") + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCSV writes the table as CSV.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

func mapStrings(in []string, f func(string) string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

// KeyValues writes "key: value" lines with the values aligned.
func KeyValues(w io.Writer, pairs [][2]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	for _, p := range pairs {
		fmt.Fprintf(tw, "%s\t%s\n", p[0]+":", p[1])
	}
	return tw.Flush()
}

// JSON writes v indented, with a trailing newline. A NaN or infinite
// number, which encoding/json refuses, is written as null rather than
// failing the whole answer.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	var uv *json.UnsupportedValueError
	if errors.As(err, &uv) {
		return enc.Encode(safeio.Finite(v))
	}
	return err
}
