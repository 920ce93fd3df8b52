package profiles

import (
	"strings"
	"testing"
)

// [[era]] tables are checked like every rule: a plain name, a build
// number, a date, backends the profile names, a source; and an era's
// class must name an era the profile defines.
func TestRuntimeEras(t *testing.T) {
	base, err := readTestdata("runtime-base.toml.txt")
	if err != nil {
		t.Fatal(err)
	}
	withBackend := strings.Replace(string(base), `kind = "gpu"
source = "[R1] every GPU the docs list"`, `kind = "gpu"
backend = "cuda"
source = "[R1] every GPU the docs list"`, 1)
	era := `
[[era]]
name = "old"
last_build = 3000
until = "2024-06-24"
backends = ["cuda"]
source = "[R1] the kernels changed on that day"
`
	good := withBackend + era
	rt, err := decodeRuntime("my.toml", []byte(good))
	if err != nil {
		t.Fatalf("a profile with an era must decode: %v", err)
	}
	if len(rt.Eras) != 1 || rt.Eras[0].Name != "old" || rt.Eras[0].LastBuild != 3000 || rt.Eras[0].Until != "2024-06-24" {
		t.Errorf("eras: %+v", rt.Eras)
	}
	cases := []struct {
		name, from, to, want string
	}{
		{"bad date", `until = "2024-06-24"`, `until = "June 2024"`, "until must be a date YYYY-MM-DD"},
		{"no build", `last_build = 3000`, `last_build = 0`, "last_build must be a build number"},
		{"unknown backend", `backends = ["cuda"]`, `backends = ["rocm"]`, `backend "rocm" is not named by an [[engine]]`},
		{"name with @", `name = "old"`, `name = "a@b"`, "must be a plain name"},
		{"no source", `source = "[R1] the kernels changed on that day"`, `source = ""`, "era.old has no source"},
		{"unknown era class", "\n[[era]]", "\n[efficiency.\"cuda@new\"]\nbandwidth = 0.5\n\n[[era]]", `no [[era]] is named "new"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(good, c.from, c.to, 1)
			if src == good {
				t.Fatalf("%q not in the profile", c.from)
			}
			_, err := decodeRuntime("my.toml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// Two eras must be listed oldest first.
	second := strings.Replace(era, `name = "old"`, `name = "older"`, 1)
	second = strings.Replace(second, "3000", "1000", 1)
	second = strings.Replace(second, "2024-06-24", "2023-01-01", 1)
	if _, err := decodeRuntime("my.toml", []byte(good+second)); err == nil || !strings.Contains(err.Error(), "oldest first") {
		t.Errorf("eras out of order: %v", err)
	}
}
