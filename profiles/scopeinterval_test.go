package profiles

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/roofline/roofline/runtimes"
)

// TestScopeIntervals: a class's moe_decode_interval and
// npu_clock_decode_interval (scopeInterval reads both) read back as
// runtimes.Class.MoEDecode and NPUClockDecode, and a bad one is refused
// with the file's name and what it must be, never half-read;
// EncodeClasses writes them as the file has them.
func TestScopeIntervals(t *testing.T) {
	for _, sc := range []struct {
		file, name, class string
		got               func(c *runtimes.Class) (runtimes.Spread, string)
	}{
		{"llama.cpp.toml", "moe_decode", "cuda", func(c *runtimes.Class) (runtimes.Spread, string) { return c.MoEDecode, c.MoEDecodeBasis }},
		{"rkllm.toml", "npu_clock_decode", "npu", func(c *runtimes.Class) (runtimes.Spread, string) { return c.NPUClockDecode, c.NPUClockDecodeBasis }},
	} {
		rt, err := os.ReadFile(filepath.Join("runtimes", sc.file))
		if err != nil {
			t.Fatal(err)
		}
		line := regexp.MustCompile(`(?m)^` + sc.name + `_interval = \S+, \S+$`).FindString(string(rt))
		basis := regexp.MustCompile(`(?m)^` + sc.name + `_basis = .*$`).FindString(string(rt))
		if line == "" || basis == "" {
			t.Fatalf("%s has no class with a %s_interval and its basis", sc.file, sc.name)
		}
		// EncodeClasses writes them back as the file holds them.
		r0, err := decodeRuntime(sc.file, rt)
		if err != nil {
			t.Fatal(err)
		}
		if enc := EncodeClasses(r0.Classes, "-"); !strings.Contains(enc, "\n"+line+"\n"+basis+"\n") {
			t.Errorf("%s encoded without its lines %q, %q", sc.file, line, basis)
		}
		with := func(iv, b string) []byte {
			return []byte(strings.Replace(strings.Replace(string(rt), line, iv, 1), basis, b, 1))
		}
		r, err := decodeRuntime(sc.file, with(sc.name+"_interval = [1.5, 2.25]", sc.name+`_basis = "six runs"`))
		if err != nil {
			t.Fatal(err)
		}
		if c := r.Classes[sc.class]; c == nil {
			t.Errorf("%s: no %s class", sc.file, sc.class)
		} else if iv, b := sc.got(c); iv.Low != 1.5 || iv.High != 2.25 || b != "six runs" {
			t.Errorf("%s class read as %v %q, want [1.5, 2.25] on \"six runs\"", sc.class, iv, b)
		}
		must := sc.name + "_interval must be [low, high] factors of the prediction, 0 < low <= high"
		for _, c := range []struct{ iv, basis, want string }{
			{sc.name + "_interval = [2.5, 1.5]", sc.name + `_basis = "x"`, must},
			{sc.name + "_interval = [0, 1.5]", sc.name + `_basis = "x"`, must},
			{sc.name + "_interval = [1.5]", sc.name + `_basis = "x"`, must},
			{sc.name + "_interval = [1.5, 2.5]", sc.name + `_basis = " "`, sc.name + "_basis must say which held-out runs"},
			{"", sc.name + `_basis = "x"`, must},
		} {
			_, err := decodeRuntime(sc.file, with(c.iv, c.basis))
			if err == nil || !strings.HasPrefix(err.Error(), sc.file) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%q, %q: %v, want %q", c.iv, c.basis, err, c.want)
			}
		}
	}
}
