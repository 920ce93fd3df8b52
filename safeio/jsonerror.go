package safeio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// JSONError is JSON input that does not decode, told where and why: not
// encoding/json's bare "unexpected EOF", which names neither.
type JSONError struct {
	// Line and Column (1-based, bytes) are where decoding stopped; 0
	// when only Offset is known (a stream read piece by piece).
	Line, Column int
	Offset       int64
	Msg          string
	hint         string
	Err          error // encoding/json's error
}

func (e *JSONError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	}
	if e.Offset < 0 {
		return e.Msg
	}
	return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg)
}

// At is the place without the line ("column 6: …"), for a caller whose
// own error names the file and line.
func (e *JSONError) At() string {
	if e.Line > 0 {
		return fmt.Sprintf("column %d: %s", e.Column, e.Msg)
	}
	return e.Error()
}

// Hint says what usually causes the error ("": nothing to add).
func (e *JSONError) Hint() string  { return e.hint }
func (e *JSONError) Unwrap() error { return e.Err }

// JSON words err, from decoding src, for a reader: where it stopped and
// what to look for. offset is where the value that failed begins in src:
// 0 for json.Unmarshal, a json.Decoder's InputOffset before its Decode
// (past the ',' before an array's later items). src may be nil for a
// stream, when only an offset is told. Errors that are not JSON's pass as
// they are.
//
// A json.Decoder's SyntaxError counts only the bytes its values took, not
// the '[', ',' and spaces its Token and More read between them, so its
// Offset runs short after the first item of an array (line 84 told as
// 83): with src the place is found again by scanning src from its start;
// a stream's is not told. An UnmarshalTypeError's Offset is the value's.
func JSON(src []byte, offset int64, err error) error {
	e := &JSONError{Offset: offset, Err: err}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &se) && se.Error() == "unexpected end of JSON input":
		e.Offset = int64(len(src)) // a stream's end is the stream's: no byte to tell
		if src == nil {
			e.Offset = -1
		}
		e.Msg = "the JSON ends inside a value"
		e.hint = "a { or [ is not closed, or a value is missing after a ':' or ','; a file cut short (a run stopped while it was written) ends like this"
	case errors.Is(err, io.EOF):
		e.Msg = "no JSON value: the input is empty"
	case se != nil:
		e.Offset = -1
		if src != nil {
			e.Offset = se.Offset
			if err := json.Unmarshal(src, new(json.RawMessage)); errors.As(err, &se) {
				e.Offset = se.Offset
			}
		}
		e.Msg = se.Error()
		e.hint = "JSON wants double-quoted keys and strings, commas between items and none after the last, and no comments"
	case errors.As(err, &te):
		e.Offset = offset + te.Offset
		field := ""
		if te.Field != "" {
			field = te.Field + ": "
		}
		want := jsonWants(te.Type)
		e.Msg = fmt.Sprintf("%s%s where %s belongs", field, jsonValue(te.Value), want)
		switch {
		case te.Value == "string" && (strings.Contains(want, "number") || want == "true or false"):
			e.hint = "numbers, true and false are written without quotes: 34, not \"34\""
		case te.Value == "number" && want == "a string":
			e.hint = "a string is written in double quotes: \"text\""
		case strings.HasPrefix(te.Value, "number "):
			e.hint = "the number does not fit what the field counts: a whole number, 0 or more where counts and sizes belong"
		}
	default:
		return err
	}
	if src != nil && e.Offset >= 0 {
		at := min(max(e.Offset, 0), int64(len(src)))
		before := src[:at]
		e.Line = bytes.Count(before, []byte("\n")) + 1
		e.Column = int(at) - (bytes.LastIndexByte(before, '\n') + 1) + 1
		if at > 0 && e.Msg != "the JSON ends inside a value" && e.Column > 1 {
			e.Column-- // json's offset is the byte after the one at fault
		}
	}
	return e
}

// jsonValue words what a JSON value was, as encoding/json's
// UnmarshalTypeError names it ("number", "string", "array", "object",
// "bool", or "number -1" when a number does not fit): "a number", "the
// number -1".
func jsonValue(v string) string {
	if n, ok := strings.CutPrefix(v, "number "); ok {
		return "the number " + n
	}
	switch v {
	case "bool":
		return "true or false"
	case "array", "object":
		return "an " + v
	case "":
		return "a value"
	}
	return "a " + v
}

// jsonWants words the Go type a JSON value was to fill as the JSON that
// fills it: "a string", "an array", "an object", "a whole number", not
// Go's spelling ("[]interface {}", "[]struct { Value string … }").
func jsonWants(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a whole number from 0"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a string (base64)" // encoding/json's []byte
		}
		return "an array"
	case reflect.Array:
		return fmt.Sprintf("an array of %d", t.Len())
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another value"
}
