package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Table is one table of an answer, defined once and written as text,
// Markdown or CSV. A column has a heading for people, a key for programs,
// or both; each cell a text for people and, where it differs, the value
// for programs (SI base units at full precision).
type Table struct {
	Cols []Col
	Rows [][]Cell
}

// Col is a table column. Head "" leaves it out of text and Markdown, Key ""
// out of CSV.
type Col struct {
	Head  string
	Key   string
	Right bool // numbers: right-aligned for people
}

// Cell is one value: Text for people, Data for programs ("" means Text).
type Cell struct {
	Text string
	Data string
}

// C is a cell that reads the same for people and programs.
func C(s string) Cell { return Cell{Text: s} }

// V is a cell with a text for people and a full-precision value for
// programs.
func V(text string, v any) Cell { return Cell{Text: text, Data: fmt.Sprint(v)} }

// D is a cell for programs only, with its full-precision value.
func D(v any) Cell { return Cell{Data: fmt.Sprint(v)} }

// NewTable is a table for people with the given headings.
func NewTable(heads ...string) *Table {
	t := &Table{}
	for _, h := range heads {
		t.Cols = append(t.Cols, Col{Head: h})
	}
	return t
}

// Right right-aligns columns by index.
func (t *Table) Right(cols ...int) *Table {
	for _, i := range cols {
		t.Cols[i].Right = true
	}
	return t
}

// Add appends a row of plain cells.
func (t *Table) Add(cells ...string) {
	row := make([]Cell, len(cells))
	for i, c := range cells {
		row[i] = C(c)
	}
	t.Rows = append(t.Rows, row)
}

// AddCells appends a row.
func (t *Table) AddCells(cells ...Cell) { t.Rows = append(t.Rows, cells) }

// Write writes the table in format f (JSON is not a table format).
func (t *Table) Write(w io.Writer, f Format) error {
	switch f {
	case Markdown:
		return t.writeMarkdown(w)
	case CSV:
		return t.writeCSV(w)
	case JSON:
		return fmt.Errorf("a table has no JSON form")
	}
	return t.writeText(w)
}

// people is the table's text-and-Markdown view: headings, cells, alignment.
func (t *Table) people() (head []string, rows [][]string, right []bool) {
	var idx []int
	for i, c := range t.Cols {
		if c.Head != "" || c.Key == "" {
			idx = append(idx, i)
			head = append(head, c.Head)
			right = append(right, c.Right)
		}
	}
	for _, r := range t.Rows {
		row := make([]string, 0, len(idx))
		for _, i := range idx {
			if i < len(r) {
				row = append(row, Printable(r[i].Text))
			}
		}
		rows = append(rows, row)
	}
	return head, rows, right
}

func (t *Table) writeText(w io.Writer) error {
	head, rows, right := t.people()
	widths := make([]int, len(head))
	all := append([][]string{head}, rows...)
	for _, r := range all {
		for i, c := range r {
			if n := utf8.RuneCountInString(c); i < len(widths) && n > widths[i] {
				widths[i] = n
			}
		}
	}
	var b strings.Builder
	for _, r := range all {
		var line strings.Builder
		for i, c := range r {
			if i >= len(widths) {
				break
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			last := i == len(r)-1
			if right[i] {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c)
				if !last {
					line.WriteString(pad)
				}
			}
			if !last {
				line.WriteString("  ")
			}
		}
		// Empty trailing cells leave padding behind; drop it.
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (t *Table) writeMarkdown(w io.Writer) error {
	head, rows, right := t.people()
	esc := func(s string) string { return MarkdownText(strings.ReplaceAll(s, "|", `\|`)) }
	var b strings.Builder
	cells := func(r []string) {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
	}
	cells(head)
	b.WriteString("|")
	for i := range head {
		if right[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		cells(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (t *Table) writeCSV(w io.Writer) error {
	var idx []int
	var head []string
	for i, c := range t.Cols {
		if c.Key != "" {
			idx, head = append(idx, i), append(head, c.Key)
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range t.Rows {
		row := make([]string, 0, len(idx))
		for _, i := range idx {
			c := Cell{}
			if i < len(r) {
				c = r[i]
			}
			if c.Data == "" {
				c.Data = c.Text
			}
			row = append(row, Printable(c.Data))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
