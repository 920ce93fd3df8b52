package measured

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func seedFiles(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err == nil {
			f.Add(b)
		}
	}
}

// fuzzReader checks a reader never panics and never returns a run that
// fails its own checks.
func fuzzReader(t *testing.T, read reader, data []byte) {
	c := &collector{file: "fuzz"}
	_ = read(c, string(data))
	for _, r := range c.res.Runs {
		if err := r.check(); err != nil {
			t.Fatalf("accepted a bad run %+v: %v", r, err)
		}
	}
}

func FuzzLlamaBenchJSON(f *testing.F) {
	seedFiles(f, "m2ultra-llama2-7b-q4_0.json", "rtx4080-qwen2.5-7b.json")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzReader(t, readBenchJSON, b) })
}

func FuzzLlamaBenchJSONL(f *testing.F) {
	seedFiles(f, "m2ultra-llama2-7b-q4_0.jsonl")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzReader(t, readBenchJSONL, b) })
}

func FuzzLlamaBenchCSV(f *testing.F) {
	seedFiles(f, "m2ultra-llama2-7b-q4_0.csv", "rtx4080-qwen2.5-7b.csv", "bad-rows.csv")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzReader(t, readBenchCSV, b) })
}

func FuzzLlamaBenchMarkdown(f *testing.F) {
	seedFiles(f, "m2ultra-llama2-7b-q4_0.md", "dgx-spark-gpt-oss.md")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzReader(t, readBenchMarkdown, b) })
}

func FuzzBatchedBench(f *testing.F) {
	seedFiles(f, "batched-bench.txt")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzReader(t, readBatchedBench, b) })
}

func FuzzVLLM(f *testing.F) {
	seedFiles(f, "vllm-summary.json", "vllm-requests.json")
	f.Add([]byte(`{"model_id": "m", "mean_ttft_ms": NaN, "ttfts": [0.1, Infinity], "input_lens": [10, -Infinity], "output_lens": [5, 5], "latencies": [1, NaN]}`))
	f.Fuzz(func(t *testing.T, b []byte) { fuzzReader(t, readVLLM, b) })
}

// FuzzNonFinite: the pre-pass leaves JSON alone, is idempotent, and only
// ever writes null where it found a non-finite token.
func FuzzNonFinite(f *testing.F) {
	seedFiles(f, "vllm-summary.json", "vllm-requests.json", "requests.json")
	f.Add([]byte(`{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN", "d": "\"NaN"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		in := string(b)
		out, n, line := nonFinite(in)
		if json.Valid(b) && (out != in || n != 0) {
			t.Fatalf("valid JSON changed: %q → %q", in, out)
		}
		if again, m, _ := nonFinite(out); again != out || m != 0 {
			t.Fatalf("not idempotent: %q → %q → %q", in, out, again)
		}
		if (n == 0) != (out == in) || (n > 0) != (line > 0) || len(out) > len(in)+n {
			t.Fatalf("%q → %q: %d values, line %d", in, out, n, line)
		}
	})
}

func FuzzRequests(f *testing.F) {
	seedFiles(f, "requests.csv", "requests.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzReader(t, readRequestsCSV, b)
		fuzzReader(t, readRequestsJSON, b)
	})
}

func FuzzRunsCSV(f *testing.F) {
	if b, err := os.ReadFile("../../testdata/public/runs.csv"); err == nil {
		f.Add(b[:min(len(b), 4000)])
	}
	f.Add([]byte("test,tokens_per_s,model,hardware,gen,max_context,clocks\ndecode,17.2,qwen3-0.6b,rk3588,73,16384,default\ndecode,9,qwen3-4b,rk3588,9,,pinned\n"))
	f.Add([]byte("test,tokens_per_s,model,hardware,gen,threads\ndecode,16.9,qwen2.5-0.5b,raspberry-pi-5-8gb,128,1\ndecode,9,qwen2.5-0.5b,rk3588,9,-3\n"))
	f.Fuzz(func(t *testing.T, b []byte) { fuzzReader(t, readRunsCSV, b) })
}

// FuzzRead drives format detection over arbitrary input.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/*")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := Read("fuzz", b)
		if err == nil && len(res.Runs) == 0 {
			t.Fatal("no error and no runs")
		}
	})
}

// FuzzLlamaBenchJSONScale repeats one arbitrary result many times in a
// llama-bench JSON array: the reader stays linear (the array of n copies
// yields n times the runs of one, with increasing lines) and never
// panics.
func FuzzLlamaBenchJSONScale(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "rtx4080-qwen2.5-7b.json")); err == nil {
		b = bytes.TrimSpace(b)
		inner := bytes.TrimSpace(b[1 : len(b)-1])
		if i := bytes.Index(inner, []byte("\n },")); i > 0 {
			f.Add(inner[:i+3], uint16(500))
		}
	}
	f.Add([]byte(`{"n_prompt": 512, "n_gen": 0, "avg_ts": 100}`), uint16(3))
	f.Add([]byte(`{"n_prompt": 512, "n_gen": 0, "avg_ts": NaN}`), uint16(3))
	f.Fuzz(func(t *testing.T, one []byte, n uint16) {
		count := int(n%2000) + 1
		var b bytes.Buffer
		b.WriteString("[\n")
		for i := 0; i < count; i++ {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.Write(one)
		}
		b.WriteString("\n]\n")
		single := &collector{file: "one"}
		_ = readBenchJSON(single, "[\n"+string(one)+"\n]\n")
		c := &collector{file: "many"}
		_ = readBenchJSON(c, b.String())
		for i, r := range c.res.Runs {
			if err := r.check(); err != nil {
				t.Fatalf("accepted a bad run %+v: %v", r, err)
			}
			if i > 0 && r.Line <= c.res.Runs[i-1].Line {
				t.Fatalf("run %d at line %d after line %d", i, r.Line, c.res.Runs[i-1].Line)
			}
		}
		// One object per element: each copy yields what one yields,
		// unless the copies do not parse as separate values.
		if len(single.res.Runs) == 1 && len(single.res.Bad) == 0 && len(c.res.Runs) != count && len(c.res.Runs) != 0 {
			t.Fatalf("%d copies gave %d runs", count, len(c.res.Runs))
		}
	})
}
