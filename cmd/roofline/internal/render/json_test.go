package render

import (
	"bytes"
	"math"
	"testing"
)

// A NaN that reaches JSON output is written as null: encoding/json's
// refusal made every --format json fail and print nothing.
func TestWriteJSONNonFinite(t *testing.T) {
	var b bytes.Buffer
	v := struct {
		Rate  float64   `json:"rate"`
		Times []float64 `json:"times"`
	}{math.NaN(), []float64{1, math.Inf(1)}}
	if err := WriteJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	const want = "{\n  \"rate\": null,\n  \"times\": [\n    1,\n    null\n  ]\n}\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
