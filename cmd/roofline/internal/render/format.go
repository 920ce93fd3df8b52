package render

import (
	"fmt"
	"strings"
)

// Format is how an answer is written: for people (Text, Markdown) or for
// programs (JSON, CSV, in SI base units at full precision).
type Format uint8

// The output formats. Adding one means a case in Write and in the Table
// and Doc writers, all in this package.
const (
	Text Format = iota
	Markdown
	JSON
	CSV
)

var formatNames = [...]string{Text: "text", Markdown: "markdown", JSON: "json", CSV: "csv"}

func (f Format) String() string { return formatNames[f] }

// ForPeople is true for the formats with scaled units and footnotes.
func (f Format) ForPeople() bool { return f == Text || f == Markdown }

// ParseFormat reads a format name, ignoring case; "md" is Markdown.
func ParseFormat(s string) (Format, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	if n == "md" {
		return Markdown, nil
	}
	for f, name := range formatNames {
		if n == name {
			return Format(f), nil
		}
	}
	return 0, fmt.Errorf("%q: unknown format (formats: text, markdown, json, csv)", s)
}

// Formats is the set a command writes, its default first.
type Formats []Format

// The sets the commands allow.
var (
	AllFormats  = Formats{Text, JSON, CSV, Markdown}
	DocFormats  = Formats{Text, JSON, Markdown}
	DataFormats = Formats{Text, JSON}
)

// Default is the set's first format.
func (fs Formats) Default() Format { return fs[0] }

func (fs Formats) String() string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.String()
	}
	return strings.Join(names, ", ")
}

// Parse reads a format name that must be in the set.
func (fs Formats) Parse(s string) (Format, error) {
	f, err := ParseFormat(s)
	if err == nil {
		for _, a := range fs {
			if a == f {
				return f, nil
			}
		}
	}
	return 0, fmt.Errorf("%q: must be one of %s", s, fs)
}
