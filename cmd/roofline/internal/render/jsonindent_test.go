package render

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// The indenting writer writes what json.Encoder's SetIndent writes.
func TestIndentWriter(t *testing.T) {
	type inner struct {
		S string         `json:"s"`
		M map[string]int `json:"m"`
		E []int          `json:"e"`
		O struct{}       `json:"o"`
	}
	for _, v := range []any{
		map[string]any{"a": []any{1, "x", []int{}, map[string]int{}, nil, true}, "b": `q"uo\te{[,:]}`, "c": 1.5e300},
		[]inner{{S: "a,b:c", M: map[string]int{"k": 1}, E: []int{1, 2}}, {}},
		"just a string with \\ and \"",
		[]any{},
		math.MaxInt64,
	} {
		for _, prefix := range []string{"", "    "} {
			var want, got bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent(prefix, "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			if err := writeJSONIndented(&got, v, prefix); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%v:\ngot  %q\nwant %q", v, got.String(), want.String())
			}
		}
	}
}
