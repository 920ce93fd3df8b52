package measured

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/limits"
)

// NaN and Inf never become a run: the row is skipped with file:line.
func TestNonFiniteRowsSkipped(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"runs csv rate", "test,tokens_per_s,prompt\nprefill,NaN,512\nprefill,100,512\n", "f:2: tokens_per_s = \"NaN\" is not a finite number"},
		{"runs csv inf", "test,tokens_per_s,prompt\nprefill,+Inf,512\nprefill,100,512\n", "f:2: tokens_per_s = \"+Inf\" is not a finite number"},
		{"requests ttft", "prompt_tokens,output_tokens,ttft_s,e2e_s\n100,10,NaN,2\n100,10,1,2\n", "f:2: ttft_s = \"NaN\" is not a finite number"},
		{"requests e2e inf", "prompt_tokens,output_tokens,ttft_s,e2e_s\n100,10,1,Inf\n100,10,1,2\n", "f:2: e2e_s = \"Inf\" is not a finite number"},
		{"llama-bench stddev", "n_prompt,n_gen,avg_ts,stddev_ts,model_type\n512,0,100,nan,llama 7B Q4_0\n512,0,100,1,llama 7B Q4_0\n", "f:2: stddev_ts = \"nan\" is not a finite number"},
		{"llama-bench size", "n_prompt,n_gen,avg_ts,model_size,model_type\n512,0,100,inf,llama 7B Q4_0\n512,0,100,1e9,llama 7B Q4_0\n", "f:2: model_size = \"inf\" is not a finite number"},
		{"batched-bench", "|    PP |     TG |    B |   N_KV |   T_PP s | S_PP t/s |   T_TG s | S_TG t/s |      T s |    S t/s |\n|-------|--------|------|--------|----------|----------|----------|----------|----------|----------|\n|   128 |    128 |    1 |    256 |    0.1 |   NaN |    1 |   128 |    1.1 |   230 |\n",
			"f:3: S_PP t/s = \"NaN\" is not a finite number"},
	} {
		res, err := Read("f", []byte(c.data))
		if c.name == "batched-bench" {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want %q", c.name, err, c.want)
			}
			continue
		}
		if err != nil || len(res.Runs) == 0 || len(res.Bad) == 0 || res.Bad[0].Error() != c.want {
			t.Errorf("%s: %v, bad %v, want %q", c.name, err, res, c.want)
		}
		for _, r := range res.Runs {
			for _, v := range []float64{r.TokensPerS, r.StdDevTS, r.ModelBytes, r.ModelParams} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s: run %+v", c.name, r)
				}
			}
		}
	}
}

// Token counts are bounded: prompt_tokens = 2^63 − 1 gave a predicted
// rate of −7.6·10⁵ tokens/s.
func TestTokenCountsBounded(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"prompt_tokens,output_tokens,ttft_s,e2e_s\n9223372036854775807,10,1,2\n", "prompt 9.22e+18 tokens exceeds the limit of 2^30"},
		{"test,tokens_per_s,prompt,depth\nprefill,100,512,2000000000\n", "depth 2000000000 tokens exceeds the limit of 2^30"},
		{"test,tokens_per_s,gen,batch\ndecode,100,128,4000000000\n", "batch 4000000000 tokens exceeds the limit of 2^30"},
		{"test,tokens_per_s,prompt,depth\nprefill,100,600000000,600000000\n", "context 1200000000 tokens exceeds the limit"},
		{"n_prompt,n_gen,avg_ts\n1e300,0,100\n", `n_prompt = "1e300" is not an integer`},
		{"test,tokens_per_s,prompt\nprefill,1e308,512\n", "rate 1e+308 tokens/s exceeds the limit of 1e+12"},
	} {
		_, err := Read("f", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.data, err, c.want)
		}
	}
}

// A file of more rows than the limit is refused; bad rows past the first
// 100 are counted, not kept.
func TestRowsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("test,tokens_per_s,prompt\n")
	for i := 0; i <= limits.Runs; i++ {
		b.WriteString("prefill,100,512\n")
	}
	if _, err := Read("f", []byte(b.String())); err == nil || !strings.Contains(err.Error(), "more than 2^17 rows") {
		t.Errorf("too many rows: %v", err)
	}
	b.Reset()
	b.WriteString("test,tokens_per_s,prompt\nprefill,100,512\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "prefill,x%d,512\n", i)
	}
	res, err := Read("f", []byte(b.String()))
	if err != nil || len(res.Bad) != MaxBadListed || res.MoreBad != 1000-MaxBadListed {
		t.Errorf("bad rows: %v, %d listed, %d more", err, len(res.Bad), res.MoreBad)
	}
}

// The JSON reader's line numbers are right after the linear rewrite.
func TestLlamaBenchJSONLines(t *testing.T) {
	data := benchJSON(t, 3)
	res, err := Read("f", data)
	if err != nil || len(res.Runs) != 3 {
		t.Fatalf("%v", err)
	}
	lines := strings.Split(string(data), "\n")
	for _, r := range res.Runs {
		if strings.TrimSpace(lines[r.Line-1]) != "{" {
			t.Errorf("run at line %d: %q", r.Line, lines[r.Line-1])
		}
	}
	if res.Runs[0].Line != 2 || res.Runs[1].Line <= res.Runs[0].Line {
		t.Errorf("lines %d, %d", res.Runs[0].Line, res.Runs[1].Line)
	}
}
