package profiles

import (
	"os"
	"testing"
)

// A profile given where another kind belongs is told what it is and
// where it goes, at its first line; an empty one what it lacks.
func TestCheckKind(t *testing.T) {
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	device, model, runtime := read("hardware/rk3588.toml"), read("models/llama-3.2-1b.toml"), read("runtimes/llama.cpp.toml")
	for _, c := range []struct {
		src  []byte
		kind string
		want string // "": accepted
	}{
		{device, "hardware", ""},
		{model, "model", ""},
		{runtime, "runtime", ""},
		{device, "model", "f.toml:1: not a model profile but a hardware profile: give it to --hardware"},
		{runtime, "hardware", "f.toml:1: not a hardware profile but a runtime profile: give it to --runtime"},
		{model, "hardware", "f.toml:1: not a hardware profile: a device's lists its compute engines in [[engine]] tables (docs/profiles.md), and it has none"},
		{[]byte("# a comment\n\n"), "model", "f.toml:1: an empty profile: a model's names its architecture and sizes (name, architecture, hidden_size, …) (docs/profiles.md)"},
		{nil, "hardware", "f.toml:1: an empty profile: a device's lists its compute engines in [[engine]] tables (docs/profiles.md)"},
	} {
		err := CheckKind("f.toml", c.src, c.kind)
		if got := ""; err != nil {
			got = err.Error()
			if got != c.want {
				t.Errorf("%s: %q, want %q", c.kind, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("%s: accepted, want %q", c.kind, c.want)
		}
	}
}
