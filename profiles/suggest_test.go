package profiles

import (
	"reflect"
	"testing"
)

func TestSuggestNamed(t *testing.T) {
	known := []Named{
		{Name: "rk3588", Aliases: []string{"rock-5b", "radxa-rock-5b", "rk3588-16gb"}},
		{Name: "rk3576"},
		{Name: "model", Aliases: []string{"m"}},
		{Name: "depth", Aliases: []string{"d"}},
	}
	cases := []struct {
		name string
		want []string
	}{
		// rock5b → rock-5b is one insertion; the profile is named once,
		// by its closest spelling.
		{"rock5b", []string{"rock-5b (rk3588)"}},
		// rk3858 → rk3588 is two edits (a transposition), rk3576 three;
		// rk3588-16gb is further, and rk3588 is already suggested.
		{"rk3858", []string{"rk3588", "rk3576"}},
		// "d" is in "modle", but one letter is too short to count as
		// contained: modle → model is two edits.
		{"modle", []string{"model"}},
		{"zzzzzzzz", nil},
	}
	for _, c := range cases {
		if got := SuggestNamed(c.name, known); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SuggestNamed(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
