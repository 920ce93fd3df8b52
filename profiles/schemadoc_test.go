package profiles

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/profiles.md is the profiles' schema page, and it is held to the
// decoder (issue 29 P: its hardware example failed with "missing required
// key segment", and it documented engine keys the decoder refuses as
// unknown): every example in it decodes with the strict decoder, every key
// its tables and lists document is one the decoder knows, and every
// top-level key the decoder knows is documented.
func TestProfileSchemaDoc(t *testing.T) {
	b, err := os.ReadFile("../docs/profiles.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, s := range []struct {
		heading string
		raw     any
		decode  func(file string, src []byte) error
	}{
		{"## Model profiles", rawModel{}, func(f string, src []byte) error { _, err := decodeModel(f, src); return err }},
		{"## Hardware profiles", rawDevice{}, func(f string, src []byte) error { _, err := decodeDevices(f, src); return err }},
		{"## Runtime profiles", rawRuntime{}, func(f string, src []byte) error { _, err := decodeRuntime(f, src); return err }},
	} {
		t.Run(strings.TrimPrefix(s.heading, "## "), func(t *testing.T) {
			sec := section(doc, s.heading)
			if sec == "" {
				t.Fatalf("docs/profiles.md has no %q", s.heading)
			}
			known := tomlKeys(reflect.TypeOf(s.raw), "")
			documented := documentedKeys(sec)
			if len(documented) == 0 {
				t.Fatal("no documented keys found")
			}
			for _, k := range documented {
				if !known[k] {
					t.Errorf("docs/profiles.md documents %q, which the decoder does not know", k)
				}
			}
			for k := range known {
				if !strings.Contains(k, ".") && !slices.Contains(documented, k) {
					t.Errorf("the decoder knows %q, which docs/profiles.md does not document", k)
				}
			}
			for i, ex := range tomlBlocks(sec) {
				if err := s.decode("docs/profiles.md example", []byte(ex)); err != nil {
					t.Errorf("example %d does not decode: %v", i+1, err)
				}
			}
		})
	}
}

// section is the text from heading to the next heading of its level.
func section(doc, heading string) string {
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		return ""
	}
	rest := doc[i+len(heading)+2:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// tomlBlocks are the ```toml blocks of a section.
func tomlBlocks(sec string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)```toml\n(.*?)```").FindAllStringSubmatch(sec, -1) {
		out = append(out, m[1])
	}
	return out
}

var (
	backticked = regexp.MustCompile("`([^`]+)`")
	tableName  = regexp.MustCompile(`^\[\[?([\w.]+)\]?\]( (\w+))?$`)
	keyName    = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
)

// documentedKeys are the keys a section documents, as dotted paths: the
// first cell of each table row (`power`, `[engine.peak]`, `[layout]
// head`, `embedding`), under the table a line "Each `[[engine]]`:"
// introduces, and the keys of a paragraph opening with a table name
// ("`[moe]`: `experts` (N), …"). KIND in a table name stands for any.
func documentedKeys(sec string) []string {
	var out []string
	add := func(k string) {
		k = strings.ReplaceAll(k, "KIND", "*")
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	under, para := "", ""
	for _, l := range strings.Split(sec, "\n") {
		switch {
		case strings.HasPrefix(l, "Each `[["):
			under = tableName.FindStringSubmatch(backticked.FindStringSubmatch(l)[1])[1] + "."
			add(strings.TrimSuffix(under, "."))
			continue
		case strings.HasPrefix(l, "`[[") && strings.Contains(l, "]]` tables"):
			add(tableName.FindStringSubmatch(backticked.FindStringSubmatch(l)[1])[1]) // "`[[variant]]` tables describe …"
		case strings.TrimSpace(l) == "":
			para = ""
			continue
		case strings.HasPrefix(l, "`[") && strings.Contains(l, "]`:"):
			para = tableName.FindStringSubmatch(backticked.FindStringSubmatch(l)[1])[1] + "."
			add(strings.TrimSuffix(para, "."))
		}
		if para != "" {
			for i, m := range backticked.FindAllStringSubmatch(l, -1) {
				if keyName.MatchString(m[1]) && !(i == 0 && strings.HasPrefix(l, "`[")) {
					add(para + m[1])
				}
			}
			continue
		}
		cells := strings.Split(l, "|")
		if len(cells) < 3 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			if !strings.HasPrefix(l, "|") {
				under = ""
			}
			continue
		}
		prefix := under
		for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
			tok := m[1]
			if t := tableName.FindStringSubmatch(tok); t != nil {
				name := t[1]
				if !strings.Contains(name, ".") && under != "" && name != strings.TrimSuffix(under, ".") {
					name = under + name
				}
				for p := name; strings.Contains(p, "."); {
					p = p[:strings.LastIndex(p, ".")]
					add(p) // [efficiency.KIND] documents [efficiency]
				}
				if t[3] != "" {
					add(name)
					prefix = name + "."
					add(prefix + t[3])
					continue
				}
				add(name)
				continue
			}
			if keyName.MatchString(tok) {
				add(prefix + tok)
			}
		}
	}
	return out
}

// tomlKeys are the dotted key paths a raw profile type decodes: a struct's
// fields by their toml tags, the tables under them, "*" for a map's keys.
// A table of the type's own kind ([[variant]] of a device) is named, not
// entered again.
func tomlKeys(t reflect.Type, prefix string) map[string]bool {
	return tomlKeysIn(t, prefix, map[reflect.Type]bool{})
}

func tomlKeysIn(t reflect.Type, prefix string, seen map[reflect.Type]bool) map[string]bool {
	out := map[string]bool{}
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if seen[t] {
		return out
	}
	seen[t] = true
	defer delete(seen, t)
	switch t.Kind() {
	case reflect.Map:
		out[prefix+"*"] = true
		for k := range tomlKeysIn(t.Elem(), prefix+"*.", seen) {
			out[k] = true
		}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
			if name == "" || name == "-" {
				continue
			}
			out[prefix+name] = true
			for k := range tomlKeysIn(t.Field(i).Type, prefix+name+".", seen) {
				out[k] = true
			}
		}
	}
	return out
}
