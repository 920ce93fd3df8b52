package measured

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// benchJSON is a llama-bench -o json file of n results, built from the
// pretty-printed RTX 4080 sample (about 1.3 kB and 60 lines per result).
func benchJSON(tb testing.TB, n int) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "rtx4080-qwen2.5-7b.json"))
	if err != nil {
		tb.Fatal(err)
	}
	b = bytes.TrimSpace(b)
	inner := bytes.TrimSpace(b[1 : len(b)-1])
	first := inner
	if i := bytes.Index(inner, []byte("\n },")); i > 0 {
		first = inner[:i+3]
	}
	var out bytes.Buffer
	out.WriteString("[\n")
	for i := 0; i < n; i++ {
		if i > 0 {
			out.WriteString(",\n")
		}
		out.Write(first)
	}
	out.WriteString("\n]\n")
	return out.Bytes()
}

// BenchmarkLlamaBenchJSON reads 8,000 results, the size that took 7.3 s
// in compare when the reader was quadratic in the file's lines.
func BenchmarkLlamaBenchJSON(b *testing.B) {
	data := benchJSON(b, 8000)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Read("bench.json", data)
		if err != nil || len(res.Runs) != 8000 {
			b.Fatalf("%v, %d runs", err, len(res.Runs))
		}
	}
}
