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
		{"host ops without precisions", `default_kv = "f16"`, "default_kv = \"f16\"\nhost_ops = { value = [], source = \"[R1] norms on the CPU\" }",
			[]string{"my.toml:9:", "host_ops value must list the precisions"}},
		{"host ops at an unknown precision", `default_kv = "f16"`, "default_kv = \"f16\"\nhost_ops = { value = [\"fp17\"], source = \"[R1] norms on the CPU\" }",
			[]string{"my.toml:9:", "host_ops:"}},
		{"host ops unsourced", `default_kv = "f16"`, "default_kv = \"f16\"\nhost_ops = { value = [\"fp16\"], source = \"\" }",
			[]string{"host_ops has no source"}},
		{"layers per unit not a bool", `default_kv = "f16"`, "default_kv = \"f16\"\nlayer_overhead_per_unit = { value = 3, source = \"[R1] a thread per core\" }",
			[]string{"my.toml:9:", "layer_overhead_per_unit value must be true or false"}},
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

// A runtime's host operations and shared layer costs read from its rules.
func TestRuntimeHostRules(t *testing.T) {
	base, err := readTestdata("runtime-base.toml.txt")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(base), `default_kv = "f16"`, "default_kv = \"f16\"\nhost_ops = { value = [\"fp16\", \"fp32\"], source = \"[R1] norms on the CPU\" }\nlayer_overhead_per_unit = { value = true, source = \"[R1] a thread per core\" }", 1)
	rt, err := decodeRuntime("my.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(rt.HostPrecisions) != 2 || rt.HostPrecisions[0] != "fp16" || rt.HostPrecisions[1] != "fp32" || !rt.LayerOverheadPerUnit {
		t.Errorf("host %v, per unit %v; want [fp16 fp32], true", rt.HostPrecisions, rt.LayerOverheadPerUnit)
	}
	if rt.Sources["host_ops"] == "" || rt.Sources["layer_overhead_per_unit"] == "" {
		t.Errorf("rules unsourced: %v", rt.Sources)
	}
}

// A calibration's 9 × 9 covariance, written before unit_compute and
// host_work, reads as 11 × 11 with those rows and columns held (zero).
func TestPadCovariance(t *testing.T) {
	old := make([]float64, 81)
	for i := range old {
		old[i] = float64(i + 1)
	}
	got := padCovariance(old)
	if len(got) != 121 {
		t.Fatalf("%d entries, want 121", len(got))
	}
	// Entry (i, j) of the old matrix is 9i + j + 1; it sits at 11i + j.
	for _, c := range []struct{ i, j int }{{0, 0}, {0, 8}, {8, 0}, {8, 8}, {4, 5}} {
		if got[11*c.i+c.j] != float64(9*c.i+c.j+1) {
			t.Errorf("(%d, %d) = %g, want %d", c.i, c.j, got[11*c.i+c.j], 9*c.i+c.j+1)
		}
	}
	for _, k := range []int{9, 10, 11*9 + 3, 11*10 + 10} {
		if got[k] != 0 {
			t.Errorf("entry %d = %g, want 0 (held)", k, got[k])
		}
	}
	if cur := make([]float64, 121); len(padCovariance(cur)) != 121 {
		t.Error("a current covariance must pass unchanged")
	}
}
