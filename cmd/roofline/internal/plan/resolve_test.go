package plan

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/roofline/roofline/profiles"
)

// Two spellings of one profile in a list (a name and its alias, two
// aliases, a profile file of a built-in's name) are refused naming both;
// a glob or all may take in a device an item names, listed once.
func TestResolveTwice(t *testing.T) {
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	// A profile file whose name is rtx-4090's: a user's own figures for
	// the board, which the built-in would shadow in silence.
	own := filepath.Join(t.TempDir(), "my4090.toml")
	src, err := os.ReadFile("../../../../profiles/hardware/rtx-4090.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, src, 0o644); err != nil {
		t.Fatal(err)
	}
	devices := []struct {
		items []string
		want  []string // the devices listed, or the error
		err   string
	}{
		// geforce-rtx-4090 is rtx-4090's alias (profiles/hardware/rtx-4090.toml).
		{[]string{"rtx-4090", "geforce-rtx-4090"}, nil, "names rtx-4090 twice (geforce-rtx-4090 is rtx-4090): name each once"},
		{[]string{"geforce-rtx-4090", "rtx-4090"}, nil, "names rtx-4090 twice (geforce-rtx-4090 is rtx-4090): name each once"},
		// Two aliases of the Orin Nano Super, neither its name.
		{[]string{"orin-nano-super", "jetson-orin-nano-super"}, nil, "names jetson-orin-nano-super-8gb twice (orin-nano-super and jetson-orin-nano-super are both jetson-orin-nano-super-8gb): name each once"},
		{[]string{"rtx-4090", own}, nil, "names rtx-4090 twice (" + own + " is rtx-4090): name each once"},
		// A glob takes in a named device: listed once, where first met.
		{[]string{"rtx-40*", "geforce-rtx-4090"}, []string{"rtx-4060-ti", "rtx-4070", "rtx-4080", "rtx-4090"}, ""},
		{[]string{"rtx-4090", "rtx-40*"}, []string{"rtx-4090", "rtx-4060-ti", "rtx-4070", "rtx-4080"}, ""},
		// ... but not two names of one device beside it.
		{[]string{"rtx-40*", "rtx-4090", "geforce-rtx-4090"}, nil, "names rtx-4090 twice (geforce-rtx-4090 is rtx-4090): name each once"},
	}
	for _, c := range devices {
		ds, err := ResolveDevices(cat, c.items)
		var names []string
		for _, d := range ds {
			names = append(names, d.Name)
		}
		if c.err != "" {
			var te *TwiceError
			if !errors.As(err, &te) || err.Error() != c.err {
				t.Errorf("devices %q: %v, want %q", c.items, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(names, c.want) {
			t.Errorf("devices %q: %q, %v; want %q", c.items, names, err, c.want)
		}
	}
	models := []struct {
		items []string
		err   string
	}{
		// llama3.2-1b is llama-3.2-1b's alias (profiles/models/llama-3.2-1b.toml).
		{[]string{"llama-3.2-1b", "llama3.2-1b"}, "names llama-3.2-1b twice (llama3.2-1b is llama-3.2-1b): name each once"},
		{[]string{"meta-llama/Llama-3.2-1B", "llama3.2-1b"}, "names llama-3.2-1b twice (meta-llama/Llama-3.2-1B and llama3.2-1b are both llama-3.2-1b): name each once"},
		{[]string{"all", "llama3.2-1b"}, ""},
		{[]string{"llama-3.2-1b", "llama-3.2-3b"}, ""},
	}
	for _, c := range models {
		_, err := ResolveModels(cat, c.items)
		if (c.err == "") != (err == nil) || err != nil && err.Error() != c.err {
			t.Errorf("models %q: %v, want %q", c.items, err, c.err)
		}
	}
}
