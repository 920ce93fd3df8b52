package profiles

import (
	"strings"
	"testing"
)

// TestAddModel: a model read from a file the catalog does not parse is
// known by name afterwards, replaces a built-in of that name in the clone
// only, and two files may not claim one name.
func TestAddModel(t *testing.T) {
	b, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	c := b.Clone()
	orig, _ := b.Model("llama-3.2-1b")
	mine := *orig
	mine.Layers = 3
	if err := c.AddModel(&mine, "/ckpt/llama-3.2-1b/config.json"); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Model("llama-3.2-1b"); got.Layers != 3 {
		t.Errorf("the added model did not replace the built-in one: %d layers", got.Layers)
	}
	if got, _ := b.Model("llama-3.2-1b"); got.Layers != orig.Layers {
		t.Error("adding to a clone changed the built-in catalog")
	}
	again := mine
	if err := c.AddModel(&again, "/elsewhere/config.json"); err == nil || !strings.Contains(err.Error(), "already used by /ckpt/llama-3.2-1b/config.json") {
		t.Errorf("two files, one name: %v", err)
	}
	d, _ := b.Device("rk3588")
	md := *d
	md.Name = "my-board"
	md.Aliases = nil
	if err := c.AddDevice(&md, "boards/my.toml"); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Device("my-board"); err != nil || got.Bandwidth != d.Bandwidth {
		t.Errorf("my-board: %v", err)
	}
}
