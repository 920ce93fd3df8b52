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

// TestSuggestIgnoresSeparators: a name written without its separators
// (q4km, rk-3588) is the name it spells, first among the suggestions;
// before, q4km got none for a weight format.
func TestSuggestIgnoresSeparators(t *testing.T) {
	for name, want := range map[string]string{"q4km": "q4_k_m", "Q4_K-M": "q4_k_m", "rk-3588": "rk3588", "llama32-1b": "llama-3.2-1b"} {
		got := Suggest(name, []string{"q4_0", "q4_1", "q4_k", "q4_k_m", "q4_k_s", "rk3588", "rk3576", "llama-3.2-1b", "llama-3.2-3b"})
		if len(got) == 0 || got[0] != want {
			t.Errorf("%s: %v, want %s first", name, got, want)
		}
	}
}

// TestSuggestShortNames: a two-letter name is suggested only what keeps
// one of its letters in place or what it begins. q3 → f32 is two edits
// (q→f, insert 2), as many as were typed: no suggestion (the caller lists
// the known names); q8 begins q8_0; q4 begins q4_0 and q4_1.
func TestSuggestShortNames(t *testing.T) {
	kv := []string{"f16", "bf16", "f32", "fp8", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl"}
	for name, want := range map[string][]string{"q3": nil, "q8": {"q8_0"}, "q4": {"q4_0", "q4_1"}, "f1": {"f16"}, "x": nil} {
		if got := Suggest(name, kv); !reflect.DeepEqual(got, want) {
			t.Errorf("Suggest(%q) = %q, want %q", name, got, want)
		}
	}
}
