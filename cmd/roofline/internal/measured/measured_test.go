package measured

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func read(t *testing.T, name string) *Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Read(name, b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// The four llama-bench encodings of one result set yield the same runs.
func TestLlamaBenchEncodingsAgree(t *testing.T) {
	var want []Run
	for _, f := range []string{"m2ultra-llama2-7b-q4_0.json", "m2ultra-llama2-7b-q4_0.jsonl", "m2ultra-llama2-7b-q4_0.csv", "m2ultra-llama2-7b-q4_0.md"} {
		res := read(t, f)
		if len(res.Bad) > 0 {
			t.Errorf("%s: bad rows %v", f, res.Bad)
		}
		if len(res.Runs) != 2 {
			t.Fatalf("%s: %d runs, want 2", f, len(res.Runs))
		}
		var got []Run
		for _, r := range res.Runs {
			// What differs by encoding: where it was, how exact the size
			// is (the table prints 3.56 GiB), the build number, and the
			// settings the table omits at their defaults (fa, and threads,
			// which it prints for CPU backends).
			r.File, r.Line, r.ModelBytes, r.ModelParams, r.StdDevTS, r.Build, r.Model, r.FlashAttn, r.Threads = "", 0, 0, 0, 0, "", "", "", 0
			got = append(got, r)
		}
		if want == nil {
			want = got
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s run %d:\n got %+v\nwant %+v", f, i, got[i], want[i])
			}
		}
	}
	p, d := want[0], want[1]
	if p.Test != Prefill || p.Prompt != 512 || p.TokensPerS != 1238.48 || p.Weights != "q4_0" || p.Engine != "gpu" || p.UBatch != 512 {
		t.Errorf("prefill run %+v", p)
	}
	if d.Test != Decode || d.Gen != 128 || d.Depth != 0 || d.TokensPerS != 94.27 || d.KV != "f16" {
		t.Errorf("decode run %+v", d)
	}
}

func TestLlamaBenchFields(t *testing.T) {
	res := read(t, "rtx4080-qwen2.5-7b.json")
	r := res.Runs[0]
	if r.ModelBytes != 4677120000 || r.ModelParams != 7615616512 || r.Weights != "q4_k_m" || r.Line != 2 || r.Build != "8cf427ff (5163)" {
		t.Errorf("%+v", r)
	}
	csv := read(t, "rtx4080-qwen2.5-7b.csv")
	if c := csv.Runs[0]; c.TokensPerS != 7285.676949 || c.Line != 2 || c.Prompt != 512 {
		t.Errorf("csv %+v", c)
	}
	md := read(t, "dgx-spark-gpt-oss.md")
	m := md.Runs[0]
	if m.Test != Prefill || m.Prompt != 2048 || m.Depth != 4096 || m.UBatch != 2048 || m.Weights != "mxfp4_moe" || m.TokensPerS != 3030.29 ||
		m.Build != "2f68ce7cf (6918)" || math.Abs(m.ModelParams-20.91e9) > 1 {
		t.Errorf("markdown %+v", m)
	}
}

func TestWeightsFromModelType(t *testing.T) {
	cases := map[string]string{
		"llama 7B Q4_0":                 "q4_0",
		"qwen2 7B Q4_K - Medium":        "q4_k_m",
		"llama 8B Q5_K - Small":         "q5_k_s",
		"gpt-oss 20B MXFP4 MoE":         "mxfp4_moe",
		"llama 70B IQ4_XS - 4.25 bpw":   "iq4_xs",
		"llama 8B F16":                  "f16",
		"qwen3moe 30B.A3B Q8_0":         "q8_0",
		"llama 7B IQ2_XXS - 2.0625 bpw": "",
		"mystery":                       "",
	}
	for mt, want := range cases {
		if got := WeightsFromModelType(mt); got != want {
			t.Errorf("%q → %q, want %q", mt, got, want)
		}
	}
}

func TestBatchedBench(t *testing.T) {
	res := read(t, "batched-bench.txt")
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	p, d := res.Runs[0], res.Runs[1]
	// S_PP = B·PP / T_PP = 4·512 / 0.880; S_TG = 4·32 / 1.227.
	if p.Test != Prefill || p.Prompt != 512 || p.Batch != 4 || p.UBatch != 2048 || p.TokensPerS != 2328.41 {
		t.Errorf("prefill %+v", p)
	}
	if d.Test != Decode || d.Gen != 32 || d.Depth != 512 || d.Batch != 4 || d.TokensPerS != 104.33 {
		t.Errorf("decode %+v", d)
	}
	if math.Abs(d.Seconds()-1.227) > 0.001 {
		t.Errorf("decode time %v, want 1.227 s", d.Seconds())
	}
}

// vLLM summary metrics are in ms, per-request lists in seconds: both give
// TTFT 32.02 ms and TPOT 22.61 ms.
func TestVLLMUnits(t *testing.T) {
	for _, f := range []string{"vllm-summary.json", "vllm-requests.json"} {
		res := read(t, f)
		if len(res.Runs) != 2 {
			t.Fatalf("%s: %d runs %v", f, len(res.Runs), res.Bad)
		}
		p, d := res.Runs[0], res.Runs[1]
		// 10058 input tokens over 50 requests: 201 per request.
		if p.Prompt != 201 || math.Abs(p.Seconds()-0.03202) > 1e-9 {
			t.Errorf("%s: prefill %d tokens in %v s, want 201 in 0.03202", f, p.Prompt, p.Seconds())
		}
		// 10303 output tokens / 50 = 206; TPOT excludes the first token.
		if d.Gen != 205 || d.Depth != 201 || math.Abs(1/d.TokensPerS-0.02261) > 1e-9 {
			t.Errorf("%s: decode gen %d depth %d TPOT %v s, want 205, 201, 0.02261", f, d.Gen, d.Depth, 1/d.TokensPerS)
		}
		if p.Model != "meta-llama/Llama-3.1-8B-Instruct" {
			t.Errorf("%s: model %q", f, p.Model)
		}
	}
}

// TPOT = (E2E − TTFT) / (output − 1).
func TestRequests(t *testing.T) {
	for _, f := range []string{"requests.csv", "requests.json"} {
		res := read(t, f)
		if len(res.Runs) != 4 {
			t.Fatalf("%s: %d runs %v", f, len(res.Runs), res.Bad)
		}
		p, d := res.Runs[0], res.Runs[1]
		if p.Prompt != 1000 || math.Abs(p.TokensPerS-1000/0.95) > 1e-9 || p.Weights != "q4_k_m" || p.Model != "llama-3.2-3b" {
			t.Errorf("%s: prefill %+v", f, p)
		}
		if d.Gen != 199 || d.Depth != 1000 || math.Abs(1/d.TokensPerS-(7.12-0.95)/199) > 1e-12 {
			t.Errorf("%s: decode %+v", f, d)
		}
	}
}

func TestBadRows(t *testing.T) {
	res := read(t, "bad-rows.csv")
	if len(res.Runs) != 2 {
		t.Errorf("%d good runs, want 2", len(res.Runs))
	}
	want := []string{"bad-rows.csv:3:", "bad-rows.csv:4: rate 0", "bad-rows.csv:5: pp512+tg128 is a blended rate"}
	if len(res.Bad) != len(want) {
		t.Fatalf("bad rows %v", res.Bad)
	}
	for i, w := range want {
		if !strings.HasPrefix(res.Bad[i].Error(), w) {
			t.Errorf("bad row %d: %q, want prefix %q", i, res.Bad[i], w)
		}
	}
}

func TestUnusableFiles(t *testing.T) {
	cases := []struct{ name, data, want, at string }{
		{"empty.json", "  \n", "empty file", ""},
		{"x.txt", "hello world\n", "unknown format", ""},
		{"trunc.json", `[{"n_prompt": 512, "avg_ts": 10`, "no usable run", ""},
		{"zeros.csv", "n_prompt,n_gen,avg_ts\n512,0,0\n", "no usable run", ""},
		{"dup.csv", "prompt_tokens,output_tokens,ttft_s,ttft_s,e2e_s\n1,2,3,4,5\n", `duplicate column "ttft_s"`, ""},
		{"cols.csv", "prompt_tokens,output_tokens,ttft_s,e2e_s,colour\n1,2,3,4,5\n", `unknown column "colour"`, ""},
		// The same in JSON: a misspelt key left its value unread.
		{"cols.json", `[{"prompt_tokens": 1, "output_tokens": 2, "ttft_s": 3, "e2e_s": 5, "colour": "red"}]`, `requests JSON: request 1: unknown key "colour"`, ":1:"},
		{"ttft.json", `{"requests": [{"prompt_tokens": 100, "output_tokens": 20, "ttft_s": 1, "e2e_s": 5}, {"prompt_tokens": 100, "output_tokens": 20, "ttft_sec": 1, "e2e_s": 5}]}`, `request 2: unknown key "ttft_sec"`, ":1:"},
		{"neg.csv", "prompt_tokens,output_tokens,ttft_s,e2e_s\n100,10,-1,2\n", "no usable run", ""},
		// A runs CSV short of a required column is told which, not
		// "unknown format", at the header's line (2: after a comment).
		{"nort.csv", "hardware,model,test,prompt,gen\nrtx-4090,llama-3.2-1b,decode,0,128\n", `missing column "tokens_per_s"`, ""},
		{"notest.csv", "# runs\nhardware,model,tokens_per_s\nrtx-4090,llama-3.2-1b,100\n", `missing column "test"`, ":2:"},
	}
	for _, c := range cases {
		_, err := Read(c.name, []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.name) || c.at != "" && !strings.HasPrefix(err.Error(), c.name+c.at) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
}

func TestRunsCSV(t *testing.T) {
	b, err := os.ReadFile("../../testdata/public/runs.csv")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Read("runs.csv", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bad) > 0 || len(res.Runs) < 300 {
		t.Errorf("%d runs, bad %v", len(res.Runs), res.Bad)
	}
	r := res.Runs[0]
	if r.Hardware != "apple-m1" || r.Model != "llama-2-7b" || r.Test != Prefill || r.Line != 4 {
		t.Errorf("first run %+v", r)
	}
}

// A runs CSV may state the model file's size as its source prints it:
// the run carries it in bytes (2.35 GiB = 2.35 × 2³⁰ B), as a llama-bench
// table's size column does; a size that is not one is a bad row.
func TestRunsCSVSize(t *testing.T) {
	csv := "test,tokens_per_s,model,prompt,gen,size\nprefill,100,gemma-3-4b,512,0,2.35 GiB\ndecode,10,gemma-3-4b,0,128,\nprefill,100,gemma-3-4b,512,0,big\n"
	res, err := Read("runs.csv", []byte(csv))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 || len(res.Bad) != 1 {
		t.Fatalf("runs %d, bad %v; want 2 runs and 1 bad row", len(res.Runs), res.Bad)
	}
	if got, want := res.Runs[0].ModelBytes, 2.35*(1<<30); math.Abs(got-want) > 1 {
		t.Errorf("size %g B, want %g", got, want)
	}
	if res.Runs[1].ModelBytes != 0 {
		t.Errorf("an empty size must leave ModelBytes 0, got %g", res.Runs[1].ModelBytes)
	}
	if b := res.Bad[0].Error(); !strings.Contains(b, `size = "big"`) || !strings.Contains(b, ":4") {
		t.Errorf("bad row %q should name line 4 and the size", b)
	}
}

// A runs CSV states how a run spread its model in the spread columns
// (predict's flags of the same names); a row without them is one device
// (Spread.Any false), a count below its minimum or a boolean that is none
// is a bad row naming the column.
func TestRunsCSVSpreadColumns(t *testing.T) {
	csv := "test,tokens_per_s,model,hardware,gen,devices,tp,pp,ep,gpu_layers,cpu_moe,n_cpu_moe,host,link\n" +
		"decode,10,llama-3.1-70b,h100-sxm,128,2,2,,,,,,,nvlink4\n" +
		"decode,10,llama-3.1-70b,rtx-4090,128,,,,,47,,,desktop-ddr5,\n" +
		"decode,10,qwen3-30b-a3b,rtx-4060-ti,128,,,,1,,yes,12,,\n" +
		"decode,10,llama-3.1-8b,rtx-4090,128,,,,,,,,,\n" +
		"decode,10,llama-3.1-8b,rtx-4090,128,0,,,,,,,,\n" +
		"decode,10,llama-3.1-8b,rtx-4090,128,,,,maybe,,,,,\n"
	res, err := Read("multi.csv", []byte(csv))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 4 || len(res.Bad) != 2 {
		t.Fatalf("runs %d, bad %v; want 4 runs and 2 bad rows", len(res.Runs), res.Bad)
	}
	want := []Spread{
		{Devices: 2, TP: 2, Link: "nvlink4"},
		{GPULayers: 47, GPULayersSet: true, Host: "desktop-ddr5"},
		{EP: true, CPUMoE: true, NCPUMoE: 12},
		{},
	}
	for i, w := range want {
		if got := res.Runs[i].Spread; got != w {
			t.Errorf("row %d: spread %+v, want %+v", i+2, got, w)
		}
		if got := res.Runs[i].Spread.Any(); got != (i < 3) {
			t.Errorf("row %d: Any() = %v", i+2, got)
		}
	}
	for i, col := range []string{`devices = "0"`, `ep = "maybe"`} {
		if b := res.Bad[i].Error(); !strings.Contains(b, col) {
			t.Errorf("bad row %q should name %s", b, col)
		}
	}
}

// A runs CSV's max_context and clocks columns say how an RKLLM run was
// set up; empty is the runtime's reference; anything else is a bad row
// naming its column.
func TestRunsCSVSettingsColumns(t *testing.T) {
	csv := "test,tokens_per_s,model,hardware,gen,max_context,clocks\n" +
		"decode,17.2,qwen3-0.6b,rk3588,73,16384,default\n" +
		"decode,32.9,qwen3-0.6b,rk3588,64,,pinned\n" +
		"decode,32.9,qwen3-0.6b,rk3588,64,,\n" +
		"decode,10,qwen3-0.6b,rk3588,64,16k,\n" +
		"decode,10,qwen3-0.6b,rk3588,64,0,\n" +
		"decode,10,qwen3-0.6b,rk3588,64,,fast\n"
	res, err := Read("rk.csv", []byte(csv))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 3 || len(res.Bad) != 3 {
		t.Fatalf("runs %d, bad %v; want 3 runs and 3 bad rows", len(res.Runs), res.Bad)
	}
	for i, w := range []struct {
		ctx    int
		clocks string
	}{{16384, "default"}, {0, "pinned"}, {0, ""}} {
		if r := res.Runs[i]; r.MaxContext != w.ctx || r.Clocks != w.clocks {
			t.Errorf("row %d: max_context %d, clocks %q; want %d, %q", i+2, r.MaxContext, r.Clocks, w.ctx, w.clocks)
		}
	}
	for i, col := range []string{`max_context = "16k"`, `max_context = "0"`, `clocks = "fast"`} {
		if b := res.Bad[i].Error(); !strings.Contains(b, col) {
			t.Errorf("bad row %q should name %s", b, col)
		}
	}
}

// The CPU threads a run used: a runs CSV's threads column (empty: not
// stated), llama-bench's n_threads in each of its encodings that prints it
// (the M2 Ultra's files: 16). Anything but a whole number from 1 is a bad
// row naming its column.
func TestThreadsRead(t *testing.T) {
	csv := "test,tokens_per_s,model,hardware,gen,threads\n" +
		"decode,16.9,qwen2.5-0.5b,raspberry-pi-5-8gb,128,1\n" +
		"decode,26.8,qwen2.5-0.5b,raspberry-pi-5-8gb,128,\n" +
		"decode,10,qwen2.5-0.5b,raspberry-pi-5-8gb,128,0\n" +
		"decode,10,qwen2.5-0.5b,raspberry-pi-5-8gb,128,-4\n" +
		"decode,10,qwen2.5-0.5b,raspberry-pi-5-8gb,128,four\n"
	res, err := Read("pi.csv", []byte(csv))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 || len(res.Bad) != 3 {
		t.Fatalf("runs %d, bad %v; want 2 runs and 3 bad rows", len(res.Runs), res.Bad)
	}
	if res.Runs[0].Threads != 1 || res.Runs[1].Threads != 0 {
		t.Errorf("threads %d and %d, want 1 and 0 (not stated)", res.Runs[0].Threads, res.Runs[1].Threads)
	}
	for _, b := range res.Bad {
		if !strings.Contains(b.Error(), "threads = ") {
			t.Errorf("bad row %q should name threads", b)
		}
	}
	for _, f := range []string{"m2ultra-llama2-7b-q4_0.json", "m2ultra-llama2-7b-q4_0.jsonl", "m2ultra-llama2-7b-q4_0.csv"} {
		for _, r := range read(t, f).Runs {
			if r.Threads != 16 {
				t.Errorf("%s: threads %d, want n_threads 16", f, r.Threads)
			}
		}
	}
}

// TestBenchJSONCutShort: a llama-bench JSON array cut short between its
// results (a run stopped while it was written), or followed by more text,
// keeps the results it holds and says what is wrong at the line where it
// ends; it was read as whole.
func TestBenchJSONCutShort(t *testing.T) {
	const one = `{"n_prompt": 512, "n_gen": 0, "avg_ts": 100}`
	for _, c := range []struct{ name, data, want string }{
		{"cut.json", "[\n" + one + ",\n" + one + "\n", "cut.json:3: malformed JSON: the array ends without its closing ]"},
		// Cut after a comma: said as cut short, not "the input is empty".
		{"comma.json", "[\n" + one + ",\n" + one + ",\n", "comma.json:3: malformed JSON: the array ends without its closing ]"},
		{"more.json", "[\n" + one + ",\n" + one + "\n]\n[\n", "more.json:5: malformed JSON: text after the array's closing ]"},
		// A stray } where the ] belongs is told as it is, not as an
		// array cut short.
		{"stray.json", "[\n" + one + ",\n" + one + "\n}\n", "stray.json:4: malformed JSON, column 1: invalid character '}'"},
	} {
		res, err := Read(c.name, []byte(c.data))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(res.Runs) != 2 || len(res.Bad) != 1 || !strings.HasPrefix(res.Bad[0].Error(), c.want) {
			t.Errorf("%s: %d runs, bad %v; want 2 runs and %q", c.name, len(res.Runs), res.Bad, c.want)
		}
	}
	// Space after the ] is no more text.
	if res, err := Read("ok.json", []byte("[\n"+one+"\n]\n\n")); err != nil || len(res.Runs) != 1 || len(res.Bad) != 0 {
		t.Errorf("a whole array: %v, %+v", err, res)
	}
}
