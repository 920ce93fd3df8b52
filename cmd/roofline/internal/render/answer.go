package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/roofline/roofline/safeio"
)

// Answer is what a command prints: a document for people, a value for
// JSON, and a table for CSV. Every command writes through Write, so the
// choice of format is made here, once.
type Answer interface {
	// Doc is the answer for people (text, Markdown).
	Doc() *Doc
	// Data is the answer as JSON, in the key vocabulary of docs/cli.md.
	Data() any
	// Table is the answer as CSV; nil when it has no CSV form.
	Table() *Table
	// Warnings are footnotes: in the Doc for people, on stderr for
	// programs.
	Warnings() []string
}

// Write writes a in format f to w; for JSON and CSV its warnings go to
// stderr, and an answer that streams them writes them itself.
func Write(w, stderr io.Writer, f Format, a Answer) error {
	if !f.ForPeople() {
		Warn(stderr, a.Warnings()...)
		if s, ok := a.(streamer); ok {
			return s.Stream(w, f)
		}
	}
	switch f {
	case JSON:
		return WriteJSON(w, a.Data())
	case CSV:
		t := a.Table()
		if t == nil {
			return fmt.Errorf("no CSV form")
		}
		return t.Write(w, CSV)
	}
	return a.Doc().Write(w, f)
}

// Warn prints warnings to stderr under the message rule.
func Warn(stderr io.Writer, warnings ...string) {
	seen := make(map[string]bool, len(warnings))
	for _, w := range warnings {
		// Once each: a line that holds a prefill and a decode run is
		// skipped twice for one reason.
		if seen[w] {
			continue
		}
		seen[w] = true
		io.WriteString(stderr, safeio.Clip(fmt.Sprintf("roofline: warning: %s\n", printableText(w))))
	}
}

// WriteJSON writes v indented, with a trailing newline. A NaN or
// infinite number, which encoding/json refuses, is written as null rather
// than failing the whole answer.
func WriteJSON(w io.Writer, v any) error { return writeJSONIndented(w, v, "") }

// writeJSONIndented is WriteJSON for a value nested under prefix.
func writeJSONIndented(w io.Writer, v any, prefix string) error {
	enc := json.NewEncoder(newIndentWriter(w, prefix, "  "))
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	var uv *json.UnsupportedValueError
	if errors.As(err, &uv) {
		err = enc.Encode(safeio.Finite(v))
	}
	return err
}

// answer is an Answer from its parts.
type answer struct {
	doc      func() *Doc
	data     func() any
	table    func() *Table
	warnings []string
}

func (a answer) Doc() *Doc { return a.doc() }
func (a answer) Data() any { return a.data() }
func (a answer) Table() *Table {
	if a.table == nil {
		return nil
	}
	return a.table()
}
func (a answer) Warnings() []string { return a.warnings }
