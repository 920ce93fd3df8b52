package study

import (
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestStudySchemaDoc holds docs/studies.md's two key tables (the study's
// and [serve]'s) to the decoder, as profiles' TestProfileSchemaDoc holds
// docs/profiles.md: every key the decoder reads is documented, and every
// key documented is one it reads (an unknown key is an error naming
// docs/studies.md, so a documented key it does not know would send a
// reader to write a file it refuses).
func TestStudySchemaDoc(t *testing.T) {
	b, err := os.ReadFile("../../../../docs/studies.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	documented := map[string]bool{}
	// A table's rows, from its header to its last row; the first cell's
	// keys. Under "## Serving under load" every key is [serve]'s.
	tick := regexp.MustCompile("`([^`]+)`")
	table := regexp.MustCompile(`^\[\[?([a-z_]+)(\.[A-Z]+)?\]\]?$`)
	key := regexp.MustCompile(`^[a-z_]+(\.[a-z_]+)?$`)
	section, inKeys := "", false
	for l := range strings.SplitSeq(doc, "\n") {
		if strings.HasPrefix(l, "## ") {
			section = l
		}
		if strings.HasPrefix(l, "| key |") {
			inKeys = true // a key table, not the output files' table
			continue
		}
		if !strings.HasPrefix(l, "|") {
			inKeys = false
		}
		cells := strings.Split(l, "|")
		if !inKeys || len(cells) < 3 || strings.HasPrefix(l, "|---") {
			continue
		}
		prefix := ""
		if section == "## Serving under load" {
			prefix = "serve."
		}
		for i, m := range tick.FindAllStringSubmatch(cells[1], -1) {
			k := m[1]
			if tm := table.FindStringSubmatch(k); tm != nil {
				documented[tm[1]] = true
				continue
			}
			if !key.MatchString(k) {
				continue
			}
			if i == 0 && strings.Contains(k, ".") {
				// "`measured.hardware`, `engine`": the rest are the first's siblings.
				prefix += k[:strings.LastIndex(k, ".")+1]
				documented[prefix+k[strings.LastIndex(k, ".")+1:]] = true
				continue
			}
			documented[prefix+k] = true
		}
	}
	known := map[string]bool{}
	rt := reflect.TypeOf(raw{})
	for i := range rt.NumField() {
		f := rt.Field(i)
		name := f.Tag.Get("toml")
		known[name] = true
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			for j := range ft.NumField() {
				known[name+"."+ft.Field(j).Tag.Get("toml")] = true
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(known)) {
		if k == "plots" {
			// The older name of figures, said in figures' row.
			if !strings.Contains(doc, "(`plots` is the older name of this key.)") {
				t.Error("docs/studies.md no longer says plots is the older name of figures")
			}
			continue
		}
		if !documented[k] {
			t.Errorf("the study decoder reads %q, which docs/studies.md does not document", k)
		}
	}
	for k := range documented {
		if !known[k] {
			t.Errorf("docs/studies.md documents %q, which the study decoder does not read", k)
		}
	}
	if len(documented) < 40 {
		t.Errorf("found %d documented keys, want the two tables' (at least 40)", len(documented))
	}
}
