package profiles

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMoEDecodeInterval: a class's moe_decode_interval reads back as
// runtimes.Class.MoEDecode, and a bad one is refused with the file's name
// and what it must be, never half-read.
func TestMoEDecodeInterval(t *testing.T) {
	rt, err := os.ReadFile(filepath.Join("runtimes", "llama.cpp.toml"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^moe_decode_interval = \S+, \S+$`).FindString(string(rt))
	basis := regexp.MustCompile(`(?m)^moe_decode_basis = .*$`).FindString(string(rt))
	if line == "" || basis == "" {
		t.Fatal("llama.cpp.toml has no class with a moe_decode_interval and its basis")
	}
	with := func(iv, b string) []byte {
		return []byte(strings.Replace(strings.Replace(string(rt), line, iv, 1), basis, b, 1))
	}
	r, err := decodeRuntime("llama.cpp.toml", with("moe_decode_interval = [1.5, 2.25]", `moe_decode_basis = "six runs"`))
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Classes["cuda"]; c == nil || c.MoEDecode.Low != 1.5 || c.MoEDecode.High != 2.25 || c.MoEDecodeBasis != "six runs" {
		t.Errorf("cuda class read as %+v, want MoEDecode [1.5, 2.25] on \"six runs\"", c)
	}
	const must = "moe_decode_interval must be [low, high] factors of the prediction, 0 < low <= high"
	for _, c := range []struct{ iv, basis, want string }{
		{"moe_decode_interval = [2.5, 1.5]", `moe_decode_basis = "x"`, must},
		{"moe_decode_interval = [0, 1.5]", `moe_decode_basis = "x"`, must},
		{"moe_decode_interval = [1.5]", `moe_decode_basis = "x"`, must},
		{"moe_decode_interval = [1.5, 2.5]", `moe_decode_basis = " "`, "moe_decode_basis must say which held-out runs"},
		{"", `moe_decode_basis = "x"`, must},
	} {
		_, err := decodeRuntime("llama.cpp.toml", with(c.iv, c.basis))
		if err == nil || !strings.HasPrefix(err.Error(), "llama.cpp.toml") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q, %q: %v, want %q", c.iv, c.basis, err, c.want)
		}
	}
}
