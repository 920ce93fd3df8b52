package measured

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFormatsDocColumns: docs/formats.md's sections on the plain requests
// file and the runs CSV name every column the readers take (an unknown
// column is an error, so one the page leaves out is one a reader cannot
// know to write: the runs CSV's spread columns and flash_attn, which
// multi.csv's header sends readers there for, were not named), and name
// no column the readers refuse.
func TestFormatsDocColumns(t *testing.T) {
	b, err := os.ReadFile("../../../../docs/formats.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	section := func(heading string) string {
		i := strings.Index(doc, "\n"+heading+"\n")
		if i < 0 {
			t.Fatalf("docs/formats.md has no %q", heading)
		}
		rest := doc[i+len(heading)+2:]
		if j := strings.Index(rest, "\n## "); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	aliases := []string{}
	for _, al := range requestAliases {
		aliases = append(aliases, al...)
	}
	for _, c := range []struct {
		heading string
		columns []string
		// the paragraph that lists them, up to its blank line
		from string
	}{
		{"## Plain requests (CSV or JSON)", slices.Concat(requestColumns[0], requestColumns[1], aliases), "Columns: "},
		{"## roofline runs CSV", slices.Concat(runsColumns[0], runsColumns[1]), ""},
	} {
		sec := section(c.heading)
		if c.from != "" {
			i := strings.Index(sec, c.from)
			if i < 0 {
				t.Fatalf("docs/formats.md %q has no %q", c.heading, c.from)
			}
			sec = sec[i:]
			if j := strings.Index(sec, "\n\n"); j >= 0 {
				sec = sec[:j]
			}
		}
		for _, col := range c.columns {
			if !strings.Contains(sec, "`"+col+"`") {
				t.Errorf("docs/formats.md %q does not name the column `%s` the reader takes", c.heading, col)
			}
		}
		if c.from != "" {
			// Every backticked word of the list is a column.
			for _, m := range regexp.MustCompile("`([a-z_0-9]+)`").FindAllStringSubmatch(sec, -1) {
				if w := m[1]; !slices.Contains(c.columns, w) {
					t.Errorf("docs/formats.md %q names `%s`, which the reader refuses", c.heading, w)
				}
			}
		}
	}
}
