package profiles

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readTestdata(name string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", name)) }

// A runtime profile is strict: every key known, every rule sourced with
// more than a tag, every tag defined; each error names the file and line.
func TestRuntimeProfileStrict(t *testing.T) {
	base, err := readTestdata("runtime-base.toml.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeRuntime("my.toml", base); err != nil {
		t.Fatalf("the base profile must decode: %v", err)
	}
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"unknown key", `default_kv = "f16"`, "default_kv = \"f16\"\ncontinous_batching = true",
			[]string{"my.toml:9:", `unknown key "continous_batching"`}},
		{"no source", `source = "[R1] requests join the running batch"`, `source = ""`,
			[]string{"my.toml:10:", "continuous_batching has no source"}},
		{"placeholder source", `source = "[R1] a context of one hundred MiB"`, `source = "[R1] draft"`,
			[]string{"my.toml:11:", `memory_overhead source "[R1] draft" says nothing beyond its reference tags`}},
		{"undefined tag", `source = "[R1] every GPU the docs list"`, `source = "[R2] every GPU the docs list"`,
			[]string{"my.toml:15:", "engine.gpu cites [R2], which the profile's references do not define"}},
		{"kernel without source", `source = "[R1] products after dequantizing to fp16"`, `source = " "`,
			[]string{"my.toml:17:", "kernel.0 has no source"}},
		{"missing window rule", `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`, ``,
			[]string{"[layout] needs sliding_window"}},
		{"unknown format", `weights = ["gguf"]`, `weights = ["gguf", "q4_k_x"]`,
			[]string{"my.toml:5:", `unknown weight format "q4_k_x"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(string(base), c.from, c.to, 1)
			if src == string(base) {
				t.Fatalf("%q not in the base profile", c.from)
			}
			_, err := decodeRuntime("my.toml", []byte(src))
			if err == nil {
				t.Fatal("no error")
			}
			var rf *RuntimeFileError
			if !errors.As(err, &rf) {
				t.Errorf("error %T is not a *RuntimeFileError", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
