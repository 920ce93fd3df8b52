package measured

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNonFinite(t *testing.T) {
	for _, c := range []struct {
		in, want string
		n, line  int
	}{
		{`{"a": NaN, "b": [Infinity, -Infinity, 1]}`, `{"a": null, "b": [null, null, 1]}`, 3, 1},
		{"{\n\"a\": 1,\n\"b\":NaN}", "{\n\"a\": 1,\n\"b\":null}", 1, 3},
		// In strings, as part of a word, or where no value stands: left
		// for the decoder, which refuses what is not JSON.
		{`{"NaN": "Infinity", "s": "a \"NaN\" b"}`, `{"NaN": "Infinity", "s": "a \"NaN\" b"}`, 0, 0},
		{`{"a": NaNa, "b": xNaN}`, `{"a": NaNa, "b": xNaN}`, 0, 0},
		{`{"a": 1}`, `{"a": 1}`, 0, 0},
	} {
		got, n, line := nonFinite(c.in)
		if got != c.want || n != c.n || line != c.line {
			t.Errorf("%s: %s (%d values, line %d), want %s (%d, line %d)", c.in, got, n, line, c.want, c.n, c.line)
		}
	}
}

// A vLLM result written by Python's json.dump with NaN and Infinity:
// those fields are missing (the summary's NaN mean TTFT falls back to the
// per-request TTFTs, which skip their NaN), with one warning naming the
// file and line; the other requests keep their places.
func TestVLLMNonFinite(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "vllm-summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Read("ref.json", b)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), `"mean_ttft_ms": 32.02`, `"mean_ttft_ms": NaN, "ttfts": [0.03, NaN, 0.04]`, 1)
	text = strings.Replace(text, `"p99_itl_ms": 23.79`, `"p99_itl_ms": Infinity, "std_itl_ms": -Infinity`, 1)
	res, err := Read("py.json", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "py.json:16: 4 NaN or Infinity") {
		t.Errorf("warnings %q", res.Warnings)
	}
	if len(res.Runs) != 2 || len(res.Bad) != 0 {
		t.Fatalf("runs %+v, bad %v", res.Runs, res.Bad)
	}
	// Prefill: the mean input length over the mean of 30 and 40 ms.
	in := 10058.0 / 50
	if got, want := res.Runs[0].TokensPerS, math.Round(in)/0.035; math.Abs(got/want-1) > 1e-12 {
		t.Errorf("prefill %.6g tokens/s, want %.6g", got, want)
	}
	dec := res.Runs[1]
	dec.File = ref.Runs[1].File
	if dec != ref.Runs[1] {
		t.Errorf("decode %+v, want %+v", dec, ref.Runs[1])
	}
}

// Per-request lists keep each request in place: a NaN TTFT drops its
// request from the TPOT, not the next request's values.
func TestVLLMListsAligned(t *testing.T) {
	text := `{"model_id": "m", "input_lens": [100, 100, 100], "output_lens": [11, 21, 11],
"ttfts": [0.1, NaN, 0.1], "latencies": [1.1, 9, 2.1]}`
	res, err := Read("l.json", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	// TPOT: request 1 (1.1 − 0.1) / 10 = 0.1 s, request 3 (2.1 − 0.1) / 10
	// = 0.2 s: mean 0.15 s, 1 / 0.15 tokens/s. Request 2 has no TTFT.
	if len(res.Runs) != 2 || math.Abs(res.Runs[1].TokensPerS-1/0.15) > 1e-9 {
		t.Errorf("runs %+v", res.Runs)
	}
}
