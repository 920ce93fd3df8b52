package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const samples = "internal/measured/testdata/"

func TestCompareGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"compare-m2ultra.stdout", []string{"compare", samples + "m2ultra-llama2-7b-q4_0.json", "--hardware", "apple-m2-ultra"}},
		{"compare-batched.md", []string{"compare", samples + "batched-bench.txt", "--hardware", "dgx-spark", "--model", "qwen2.5-7b", "--weights", "q8_0", "--format", "markdown"}},
		{"compare-vllm.csv", []string{"compare", samples + "vllm-summary.json", "--hardware", "jetson-agx-orin-64gb", "--weights", "w4a16", "--format", "csv"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, c.name, out)
		})
	}
}

// All four llama-bench encodings of one result set give the same comparison
// (apart from where each test was read).
func TestCompareEncodingsIdentical(t *testing.T) {
	var want string
	for _, ext := range []string{"json", "jsonl", "csv", "md"} {
		out, errOut, code := runCLI("compare", samples+"m2ultra-llama2-7b-q4_0."+ext, "--hardware", "apple-m2-ultra", "--format", "json")
		if code != 0 {
			t.Fatalf("%s: %s", ext, errOut)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			delete(r, "source")
		}
		b, _ := json.Marshal(rows)
		if want == "" {
			want = string(b)
		} else if string(b) != want {
			t.Errorf("%s output differs:\n%s\nwant\n%s", ext, b, want)
		}
	}
}

func TestCompareJSON(t *testing.T) {
	out, errOut, code := runCLI("compare", samples+"m2ultra-llama2-7b-q4_0.jsonl", "--hardware", "apple-m2-ultra", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"source", "test", "model", "weights", "prompt_tokens", "gen_tokens", "depth", "batch", "measured_tokens_per_s",
		"predicted_tokens_per_s", "bound_tokens_per_s", "achieved_bytes_per_s", "achieved_flops_per_s", "mbu", "mfu", "ratio"} {
		if _, ok := rows[1][k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
	if rows[1]["test"] != "decode" || rows[1]["source"] != samples+"m2ultra-llama2-7b-q4_0.jsonl:2" || rows[1]["streamed_weight_bytes_per_step"] != 3751340288.0 {
		t.Errorf("row %v", rows[1])
	}
}

func TestCompareErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		has  []string
	}{
		{[]string{"compare"}, 2, []string{"give one or more result files"}},
		{[]string{"compare", samples + "m2ultra-llama2-7b-q4_0.json"}, 1, []string{"no hardware: pass --hardware", "no run could be compared"}},
		{[]string{"compare", "main.go", "--hardware", "rk3588"}, 1, []string{"main.go:1: unknown format"}},
		{[]string{"compare", "nosuch.json", "--hardware", "rk3588"}, 1, []string{"nosuch.json"}},
		{[]string{"compare", samples + "batched-bench.txt", "--hardware", "dgx-spark"}, 1, []string{"does not say which model ran: pass --model"}},
	}
	for _, c := range cases {
		out, errOut, code := runCLI(c.args...)
		if code != c.code || out != "" {
			t.Errorf("%v: exit %d (want %d), stdout %q", c.args, code, c.code, out)
		}
		for _, h := range c.has {
			if !strings.Contains(errOut, h) {
				t.Errorf("%v: stderr %q lacks %q", c.args, errOut, h)
			}
		}
	}
	// Bad rows are reported with file:line and skipped; good rows still run.
	out, errOut, code := runCLI("compare", samples+"bad-rows.csv", "--hardware", "apple-m2-ultra")
	if code != 0 || !strings.Contains(errOut, "bad-rows.csv:4: rate 0") || strings.Count(out, "bad-rows.csv:") != 2 {
		t.Errorf("bad rows: %d %q %q", code, errOut, out)
	}
}

// TestCompareDeterministic: runs on several devices print the same bytes
// every time, in every format (the device lines once came from a map).
func TestCompareDeterministic(t *testing.T) {
	for _, f := range []string{"text", "markdown", "json", "csv"} {
		var first string
		for i := 0; i < 10; i++ {
			out, errOut, code := runCLI("compare", "testdata/compare-devices.csv", "--format", f)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", f, code, errOut)
			}
			if i == 0 {
				first = out
				if f == "text" && strings.Count(out, "device: ") != 4 {
					t.Fatalf("want four devices:\n%s", out)
				}
				continue
			}
			if out != first {
				t.Fatalf("%s: run %d differs from the first:\n%s\nfirst:\n%s", f, i+1, out, first)
			}
		}
	}
}

// compare prints what a file says of its runs, once: a runs CSV's source
// column cites where a row was transcribed from and is not a note (eight
// "note: XD-GPUBENCH row 141" lines before), and a line skipped for one
// reason warns once though it holds a prefill and a decode run.
func TestCompareNotesAndWarningsOnce(t *testing.T) {
	out, errOut, code := runCLI("compare", "testdata/m2ultra-xd-runs.csv", "--hardware", "apple-m2-ultra")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "note: XD-GPUBENCH") {
		t.Errorf("the source column printed as notes:\n%s", out)
	}
	_, errOut, _ = runCLI("compare", "internal/measured/testdata/batched-bench.txt", "--hardware", "dgx-spark")
	if n := strings.Count(errOut, "the file does not say which model ran"); n != 1 {
		t.Errorf("the skipped line warned %d times, want once:\n%s", n, errOut)
	}
}

// TestCompareWrongModelWarns: llama-bench runs of Llama-3.2-3B (its
// model_n_params 3,212,749,824) compared with --model a Llama-3.2-1B GGUF
// file printed MBU 25 % with only a note on the file's size. The counts
// differ 2.6×: a warning names both, --strict makes it an error, and the
// right model passes quietly.
func TestCompareWrongModelWarns(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs.json")
	row := `{"build_commit":"abc","build_number":5000,"backends":"CUDA","model_filename":"models/Llama-3.2-3B-Instruct-Q4_K_M.gguf","model_type":"llama 3B Q4_K - Medium","model_size":2019377152,"model_n_params":3212749824,"n_batch":2048,"n_ubatch":512,"type_k":"f16","type_v":"f16","n_gpu_layers":99,"flash_attn":true,"n_prompt":%d,"n_gen":%d,"n_depth":0,"avg_ts":%g}`
	if err := os.WriteFile(runs, []byte("["+fmt.Sprintf(row, 512, 0, 850.0)+",\n"+fmt.Sprintf(row, 0, 128, 32.0)+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gguf := writeGGUF(t, dir, "llama-3.2-1b", "q4_k_m")
	args := []string{"compare", runs, "--hardware", "jetson-orin-nano-super-8gb", "--model", gguf}
	out, errOut, code := runCLI(args...)
	want := "the runs record a model of 3.21 B parameters, but " + gguf + " (llama-3.2-1b-q4_k_m) has 1.24 B"
	if code != 0 || !strings.Contains(errOut, want) || strings.Count(errOut, "3.21 B") != 1 || !strings.Contains(out, "MBU") {
		t.Errorf("exit %d, want 0 with one warning %q:\n%s", code, want, errOut)
	}
	out, errOut, code = runCLI(append(args, "--strict")...)
	if code != 1 || out != "" || !strings.Contains(errOut, want) {
		t.Errorf("--strict: exit %d, want 1 and nothing written:\n%s%s", code, out, errOut)
	}
	for _, m := range []string{"llama-3.2-3b", writeGGUF(t, dir, "llama-3.2-3b", "q4_k_m")} {
		if _, errOut, code := runCLI("compare", runs, "--hardware", "jetson-orin-nano-super-8gb", "--model", m, "--strict"); code != 0 || strings.Contains(errOut, "parameters") {
			t.Errorf("--model %s: exit %d:\n%s", m, code, errOut)
		}
	}
}

// TestCompareMarkdownSaysAll: compare --format markdown said neither the
// device line nor the error summary that text prints, and "1 tests".
func TestCompareMarkdownSaysAll(t *testing.T) {
	args := []string{"compare", samples + "batched-bench.txt", "--hardware", "rtx-4080", "--model", "qwen2.5-7b", "--weights", "q8_0"}
	text, _, code := runCLI(args...)
	md, _, mdCode := runCLI(append(args, "--format", "markdown")...)
	if code != 0 || mdCode != 0 {
		t.Fatalf("exit %d, %d", code, mdCode)
	}
	for _, want := range []string{"evice: rtx-4080 (gpu engine, ", "decode: 1 test, median |error| ", "prefill: 1 test, median |error| "} {
		if !strings.Contains(text, want) || !strings.Contains(md, want) {
			t.Errorf("%q missing:\ntext:\n%s\nmarkdown:\n%s", want, text, md)
		}
	}
}
