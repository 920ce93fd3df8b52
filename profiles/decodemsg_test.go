package profiles

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDecodeMessages: a key of the wrong type is told by its name, the
// form it must take and what it is, on its line, in the author's words:
// no decoder prefix ("toml: line 49 (last key …)") and no Go type
// ("profiles.rawRule", "int64"). A rule written bare (multi_node = false)
// is told a rule's table.
func TestDecodeMessages(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("runtimes", "llama.cpp.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, re, with string
		want           string
	}{
		{"bare rule", `(?m)^multi_node = .*$`, `multi_node = false`,
			`:49: multi_node: expected a rule with its source, { value = …, source = "…" }, found a boolean`},
		{"number for a string", `(?m)^name = .*$`, `name = 3`,
			`:3: name: expected a string, found an integer`},
	} {
		re := regexp.MustCompile(c.re)
		first := re.FindString(string(src)) // the first such line alone
		bad := strings.Replace(string(src), first, c.with, 1)
		_, err := decodeRuntime("rt.toml", []byte(bad))
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "toml: line") || strings.Contains(msg, "profiles.raw") || strings.Contains(msg, "int64") {
			t.Errorf("%s: %q, want it to hold %q and no decoder or Go words", c.name, msg, c.want)
		}
	}
}

// TestUnknownTableToldOnce: a misspelt key whose value is a table
// (bandwith = { value, source }) is one unknown key, told once at its
// line; it was told three times, once more for each key inside it.
func TestUnknownTableToldOnce(t *testing.T) {
	var v struct {
		Name string `toml:"name"`
	}
	src := "name = \"x\"\nbandwith = { value = \"1 GB/s\", source = \"[S] a\" }\n[variant]\nclock = { value = 1, source = \"b\" }\n"
	_, _, keys, err := DecodeKeys("b.toml", []byte(src), &v, "docs/profiles.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range keys {
		got = append(got, k.Error())
	}
	want := []string{
		`b.toml:2: unknown key "bandwith" (check the spelling against docs/profiles.md)`,
		`b.toml:3: unknown key "variant" (check the spelling against docs/profiles.md)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
