package safeio

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestJSON: a JSON error names its line and column and what to look for,
// not encoding/json's bare "unexpected EOF".
func TestJSON(t *testing.T) {
	for _, c := range []struct {
		src, want, hint string
	}{
		// `{"x":` is 5 bytes on one line: it ends after column 5, at 6.
		{`{"x":`, "line 1, column 6: the JSON ends inside a value", "is not closed"},
		// Line 2 is ` "b": }`: the } is its 7th byte.
		{"{\"a\": 1,\n \"b\": }", "line 2, column 7: invalid character '}' looking for beginning of value", "double-quoted"},
		// The string "x" spans columns 7-9 of line 1; json stops at its end.
		{`{"n": "x"}`, "line 1, column 9: N: a JSON string where int belongs", ""},
		{``, "no JSON value: the input is empty", ""},
	} {
		var v struct{ N int }
		err := json.NewDecoder(strings.NewReader(c.src)).Decode(&v)
		got := JSON([]byte(c.src), 0, err)
		var je *JSONError
		if !errors.As(got, &je) || !strings.HasSuffix(got.Error(), c.want) || !strings.Contains(je.Hint(), c.hint) || (c.hint == "" && je.Hint() != "") {
			t.Errorf("%q: %v (hint %q), want %q (hint with %q)", c.src, got, je.Hint(), c.want, c.hint)
		}
		if err2 := json.Unmarshal([]byte(c.src), &v); err2 != nil && c.src != "" {
			if got := JSON([]byte(c.src), 0, err2); got.Error() != JSON([]byte(c.src), 0, err).Error() {
				t.Errorf("%q: Unmarshal's %v, Decoder's %v", c.src, got, JSON([]byte(c.src), 0, err))
			}
		}
	}
	if err := errors.New("other"); JSON(nil, 0, err) != err {
		t.Error("a non-JSON error is changed")
	}
}
