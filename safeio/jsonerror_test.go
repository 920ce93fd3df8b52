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
		{`{"n": "x"}`, "line 1, column 9: N: a string where a whole number belongs", "without quotes"},
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
	// An array read item by item, as llama-bench's JSON is: the Decoder's
	// SyntaxError counts only the items' bytes, not the '[', ',' and
	// spaces between them ("[\n " and ",\n ": 5 bytes here), so it told
	// line 4's first byte, the stray ',', as line 3's fourth.
	src := "[\n {\"a\": 1},\n {\"b\": 2,\n,\"c\": 3}\n]\n"
	want := "invalid character ',' looking for beginning of object key string"
	start, err := decodeItems(src, new(map[string]any))
	if got := JSON([]byte(src), start, err); got == nil || got.Error() != "line 4, column 1: "+want {
		t.Errorf("array item 2: %v, want line 4, column 1", got)
	}
	// A stream (no src) cannot be told where: the message alone, not the
	// Decoder's short count as a byte.
	if got := JSON(nil, start, err); got == nil || got.Error() != want {
		t.Errorf("array item 2 of a stream: %v, want the message alone", got)
	}
	// A type error's offset is the value's: item 2 of
	// `[{"n": 1}, {"n": "x"}]` begins past its ',', at 0-based byte 10;
	// its string's closing quote is byte 19, and json's offset the byte
	// after, 20, as json.Unmarshal of the whole array tells it.
	src = `[{"n": 1}, {"n": "x"}]`
	start, err = decodeItems(src, new(struct{ N int }))
	if got := JSON(nil, start, err); got == nil || got.Error() != "byte 20: N: a string where a whole number belongs" {
		t.Errorf("type error in item 2 of a stream: %v (from %d), want byte 20", got, start)
	}
	if err := errors.New("other"); JSON(nil, 0, err) != err {
		t.Error("a non-JSON error is changed")
	}
}

// TestJSONTypeWords: a value of the wrong JSON type is told in JSON's
// words, what was there and what belongs, never Go's type spelling
// ("[]interface {}", "[]struct { Value string … }", "float64").
func TestJSONTypeWords(t *testing.T) {
	var v struct {
		S  string
		I  int
		U  uint
		F  float64
		B  bool
		A  []any
		AS []struct{ Value string }
		M  map[string]int
		O  struct{ X int }
		P  *[]string
		R  [2]int
		Y  []byte
	}
	for _, c := range []struct{ src, want string }{
		{`{"s": 5}`, "S: a number where a string belongs"},
		{`{"s": [1]}`, "S: an array where a string belongs"},
		{`{"s": {}}`, "S: an object where a string belongs"},
		{`{"s": true}`, "S: true or false where a string belongs"},
		{`{"i": "x"}`, "I: a string where a whole number belongs"},
		{`{"i": 1.5}`, "I: the number 1.5 where a whole number belongs"},
		{`{"u": -1}`, "U: the number -1 where a whole number from 0 belongs"},
		{`{"f": "1"}`, "F: a string where a number belongs"},
		{`{"b": 1}`, "B: a number where true or false belongs"},
		{`{"a": "x"}`, "A: a string where an array belongs"},
		{`{"as": 5}`, "AS: a number where an array belongs"},
		{`{"as": [{"value": 5}]}`, "AS.Value: a number where a string belongs"},
		{`{"m": []}`, "M: an array where an object belongs"},
		{`{"o": "x"}`, "O: a string where an object belongs"},
		{`{"p": 1}`, "P: a number where an array belongs"},
		{`{"r": {}}`, "R: an object where an array of 2 belongs"},
		{`{"y": 1}`, "Y: a number where a string (base64) belongs"},
	} {
		err := json.Unmarshal([]byte(c.src), &v)
		got := JSON([]byte(c.src), 0, err)
		if got == nil || !strings.HasSuffix(got.Error(), c.want) || strings.Contains(got.Error(), "interface") || strings.Contains(got.Error(), "struct") {
			t.Errorf("%s: %v, want %q", c.src, got, c.want)
		}
	}
	// The common slips get a hint: a quoted number, an unquoted string,
	// a number that does not fit; others none.
	for _, c := range []struct{ src, hint string }{
		{`{"i": "34"}`, `numbers, true and false are written without quotes: 34, not "34"`},
		{`{"b": "true"}`, "without quotes"},
		{`{"s": 5}`, `a string is written in double quotes: "text"`},
		{`{"u": -1}`, "the number does not fit"},
		{`{"a": "x"}`, ""},
	} {
		var je *JSONError
		if err := JSON([]byte(c.src), 0, json.Unmarshal([]byte(c.src), &v)); !errors.As(err, &je) || je.Hint() != c.hint && !(c.hint != "" && strings.Contains(je.Hint(), c.hint)) {
			t.Errorf("%s: %v, hint %q; want hint %q", c.src, err, je.Hint(), c.hint)
		}
	}
}

// decodeItems reads a JSON array item by item into v, as the readers do,
// to the first error: where its item begins, and that error.
func decodeItems(src string, v any) (int64, error) {
	dec := json.NewDecoder(strings.NewReader(src))
	dec.Token()
	for i := 0; dec.More(); i++ {
		start := dec.InputOffset()
		if i > 0 {
			start++ // past the ',' Decode reads
		}
		if err := dec.Decode(v); err != nil {
			return start, err
		}
	}
	return 0, nil
}
