package measured

import (
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
	f.Fuzz(func(t *testing.T, b []byte) { fuzzReader(t, readVLLM, b) })
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
