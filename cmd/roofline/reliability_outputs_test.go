package main

// The reliability suite of issue 29, second hostile pass: the findings on
// what roofline prints (E, F, H, I, L, M, O, P, Q), each reproduced with
// inputs built here and run as the real command in a child process, as
// TestReliability runs issue 19's: each case ends in under 10 s and
// 200 MB with the documented exit code and a clear message, or with a
// correct answer.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/roofline/roofline/gguf"
	"github.com/roofline/roofline/model"
)

func TestReliabilityOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("the reliability suite runs every case in a child process")
	}
	if os.Getenv(childArgsEnv) != "" {
		return
	}
	dir := t.TempDir()
	srv := hostileServer(t)
	defer srv.Close()
	outputInputs(t, dir, srv.URL)

	tok := "t0k3nSECRET"
	esc := "\x1b"
	reason := reasonServer(t)
	cases := []outCase{
		// E. A plan with no groups panicked in the plan figure.
		{relCase: relCase{finding: "E", name: "plot plan with a runtime no engine runs", args: []string{"plot", "plan", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--runtime", "rkllm", "--tpot", "50ms", "-o", "{dir}/x.svg"},
			code: 2, stderr: []string{"nothing to plot: no engine of the devices runs the models", "runtime rkllm does not run the gpu engine of rtx-4090"}}},
		{relCase: relCase{finding: "E", name: "a study's runtime by path, without --allow-paths", args: []string{"report", "{dir}/rt-study/study.toml", "-o", "{dir}/rt-report"},
			code: 1, stderr: []string{`study.toml:4: runtimes: runtime "x.toml" in {dir}/rt-study/study.toml is a path or URL`}}},
		{relCase: relCase{finding: "E", name: "a study's runtime by path that runs no engine of its device", args: []string{"--allow-paths", "report", "{dir}/rt-study/study.toml", "-o", "{dir}/rt-report"},
			code: 0, stderr: []string{"no plan figure: nothing to plot", "runtime x does not run the gpu engine of rtx-4090"}, stdout: []string{"wrote {dir}/rt-report"}}},
		// M. Wrong exit code or wrong flag blamed.
		{relCase: relCase{finding: "M", name: "--runtime /etc/passwd", args: []string{"predict", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--runtime", "/etc/passwd"},
			code: 1, stderr: []string{"--runtime: /etc/passwd:1: not a runtime profile"}}},
		{relCase: relCase{finding: "M", name: "--runtime /dev/zero", args: []string{"predict", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--runtime", "/dev/zero"},
			code: 1, stderr: []string{"--runtime: read /dev/zero: not a regular file"}}},
		{relCase: relCase{finding: "M", name: "--runtime a FIFO", args: []string{"predict", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--runtime", "{dir}/fifo.toml"},
			code: 1, stderr: []string{"fifo.toml: not a regular file"}}},
		{relCase: relCase{finding: "M", name: "an empty --runtime file is no model", args: []string{"predict", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--runtime", "{dir}/empty.toml"},
			code: 1, stderr: []string{"--runtime: {dir}/empty.toml:1: not a runtime profile"}, never: []string{"hidden_size"}}},
		{relCase: relCase{finding: "M", name: "plan --engine tpu", args: []string{"plan", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--engine", "tpu", "--tpot", "50ms"},
			code: 2, stderr: []string{`--engine "tpu": no device searched has that engine (engines: gpu)`}}},
		// H. Query and fragment values of every shape are hidden in
		// errors, sources, and every file of a report.
		{relCase: relCase{finding: "H", name: "?hf_TOKEN in an error", args: []string{"show", "model", "{srv}/missing.gguf?" + tok},
			code: 1, stderr: []string{"missing.gguf?xxxxx"}, never: []string{tok}}},
		{relCase: relCase{finding: "H", name: "#access_token= in a JSON source", args: []string{"show", "model", "{srv}/good/llama.gguf#access_token=" + tok, "--format", "json"},
			code: 0, stdout: []string{"llama.gguf#access_token=xxxxx"}, never: []string{tok}}},
		{relCase: relCase{finding: "H", name: "?token%3D in a text source", args: []string{"show", "model", "{srv}/good/llama.gguf?token%3D" + tok},
			code: 0, stdout: []string{"llama.gguf?xxxxx"}, never: []string{tok}}},
		{relCase: relCase{finding: "H", name: "a CSV source", args: []string{"predict", "--hw", "rtx-4090", "-m", "{srv}/good/llama.gguf?" + tok, "--format", "csv"},
			code: 0, never: []string{tok}}},
		{relCase: relCase{finding: "H", name: "report.md, report.html, results.json, results.csv", args: []string{"--allow-paths", "report", "{dir}/url-study.toml", "-o", "{dir}/url-report"},
			code: 0, stdout: []string{"wrote {dir}/url-report"}, never: []string{tok}},
			files: reportFiles("{dir}/url-report", nil)},
		// F. Terminal control codes from outside are written escaped.
		{relCase: relCase{finding: "F", name: "a runs CSV's note (stdout) and exclude (stderr)", args: []string{"compare", "{dir}/ctl.csv", "--hw", "rtx-4090"},
			code: 0, stdout: []string{`note: a \x1b]0;pwned\a\x1b[2J note \u202e`}, stderr: []string{`excluded by the file: why \x1b[31mred`}, never: []string{esc, "\u202e"}}},
		{relCase: relCase{finding: "F", name: "a runs CSV's note in Markdown and JSON", args: []string{"compare", "{dir}/ctl.csv", "--hw", "rtx-4090", "--format", "json"},
			code: 0, stdout: []string{`"a \u001b]0;pwned\u0007\u001b[2J note \u202e"`}, never: []string{esc, "\u202e"}}},
		{relCase: relCase{finding: "F", name: "a server's reason phrase", args: []string{"show", "model", "{reason}/m.gguf"},
			code: 1, stderr: []string{`HTTP 418 \x1b]0;pwned\a\x1b[2J`}, never: []string{esc, "\a"}}},
		// F and Q. A study's title and description in the report's files.
		{relCase: relCase{finding: "Q", name: "raw HTML, images and control codes in a study's title", args: []string{"report", "{dir}/html-study.toml", "-o", "{dir}/html-report"},
			code: 0, stdout: []string{"wrote {dir}/html-report"}, never: []string{esc, "<img", "<script"}},
			files: reportFiles("{dir}/html-report", []string{"![x](", "](http"})},
		// L. Model shapes that were accepted silently.
		{relCase: relCase{finding: "L", name: "config.json num_local_experts -8", args: []string{"show", "model", "{dir}/neg-experts/config.json"},
			code: 1, stderr: []string{"num_local_experts must not be negative, got -8"}}},
		{relCase: relCase{finding: "L", name: "GGUF block_count 2.5", args: []string{"show", "model", "{dir}/float-blocks.gguf"},
			code: 1, stderr: []string{"llama.block_count is 2.5 (a float), not a whole count"}}},
		{relCase: relCase{finding: "L", name: "GGUF block_count true", args: []string{"show", "model", "{dir}/bool-blocks.gguf"},
			code: 1, stderr: []string{"llama.block_count is 1 (a bool), not a whole count"}}},
		{relCase: relCase{finding: "L", name: "GGUF head_count_kv [-1, 2]", args: []string{"show", "model", "{dir}/neg-kv.gguf"},
			code: 1, stderr: []string{"llama.attention.head_count_kv is an array holding -1 (a number), not a whole count"}}},
		{relCase: relCase{finding: "L", name: "a GGUF metadata key twice", args: []string{"show", "model", "{dir}/dup-key.gguf"},
			code: 1, stderr: []string{`metadata key "llama.block_count" appears twice`}}},
		// I. Quantities outside every physical range printed NaN, +Inf and
		// 300-digit numbers.
		{relCase: relCase{finding: "I", name: "predict --bw-efficiency 1e-300", args: []string{"predict", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--bw-efficiency", "1e-300"},
			code: 2, stderr: []string{"--bw-efficiency must be 0.0001 to 1, got 1e-300"}}},
		{relCase: relCase{finding: "I", name: "predict --battery-wh 1e308", args: []string{"predict", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--battery-wh", "1e308"},
			code: 2, stderr: []string{"--battery-wh must be 1 mWh to 1 MWh, got 1e+308 Wh"}}},
		{relCase: relCase{finding: "I", name: "predict --overhead 1e300B", args: []string{"predict", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--overhead", "1e300B"},
			code: 2, stderr: []string{"--overhead must be 0 (none) or 1 B to 1 PiB, got 1e+300 B"}}},
		{relCase: relCase{finding: "I", name: "plan --tpot 1e300s", args: []string{"plan", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--tpot", "1e300s"},
			code: 2, stderr: []string{"--tpot must be 1 µs to 86400 s, got 1e+300 s"}}},
		{relCase: relCase{finding: "I", name: "plan --min-throughput 1e300", args: []string{"plan", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--min-throughput", "1e300"},
			code: 2, stderr: []string{"--min-throughput must be 0.001 tokens/s to 1e+12 tokens/s, got 1e+300 tokens/s"}}},
		{relCase: relCase{finding: "I", name: `a profile's bandwidth "1e-300 B/s"`, args: []string{"predict", "--hw", "{dir}/bw-tiny.toml", "-m", "llama-3.2-1b"},
			code: 1, stderr: []string{"bw-tiny.toml:11: device rtx-4090: bandwidth must be 1 kB/s to 100 TB/s, got 1e-300 B/s"}}},
		{relCase: relCase{finding: "I", name: "a runtime's half_rows = 1e300", args: []string{"predict", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--runtime", "{dir}/half-rows.toml"},
			code: 1, stderr: []string{"half_rows must be 0 (none) or 0.001 to 1e+06, got 1e+300"}}},
		{relCase: relCase{finding: "I", name: "a measured rate of 1e-300 tokens/s", args: []string{"compare", "{dir}/slow.csv", "--hw", "rtx-4090", "--format", "json"},
			code: 0, stderr: []string{"slow.csv:2: rate must be 0.001 tokens/s to 1e+12 tokens/s, got 1e-300 tokens/s: not a measurement"}, stdout: []string{`"measured_tokens_per_s": 100`}}},
		{relCase: relCase{finding: "I", name: "calibrate on a 9-point batch sweep: R² undefined, not -2.9e30", args: []string{"calibrate", "{dir}/sweep.csv", "--hw", "rtx-4090", "-o", "{dir}/sweep-cal.toml"},
			code: 0, stdout: []string{"R² decode undefined (the measured times vary by under 1 %)"}, never: []string{"R² decode -"}}},
		// M. The profile's figure is blamed, not a flag the user never gave.
		{relCase: relCase{finding: "M", name: "a profile's power of 1e300 W", args: []string{"predict", "--hw", "{dir}/power.toml", "-m", "llama-3.2-1b"},
			code: 1, stderr: []string{"power.toml:30: device rtx-4090: engine.gpu.power must be 1 mW to 1 MW, got 1e+300 W"}, never: []string{"--power"}}},
		{relCase: relCase{finding: "M", name: "--kv bogus blames --kv", args: []string{"predict", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--kv", "bogus"},
			// An unknown name (exit 1, as show model and plan say it), not a
			// runtime that does not run it.
			code: 1, stderr: []string{`--kv: unknown KV format "bogus" (known: f16,`}, never: []string{"--engine", "does not run"}}},
		{relCase: relCase{finding: "M", name: "a study's figure setting is no flag", args: []string{"report", "{dir}/fig-setting.toml", "-o", "{dir}/fig-report"},
			code: 1, stderr: []string{"fig-setting.toml:6: [figure.roofline] max-batch -5: want 1 … 65536"}, never: []string{"--max-batch", "roofline help"}}},
		{relCase: relCase{finding: "M", name: "compare - -", args: []string{"compare", "-", "-", "--hw", "rtx-4090"}, stdin: func() io.Reader { return strings.NewReader("") },
			code: 2, stderr: []string{"standard input feeds one input, and the argument - (2 times) all read it"}}},
		// O. A directory named like a built-in model replaced it.
		{relCase: relCase{finding: "O", name: "a bare name is the built-in model, whatever the directory holds", args: []string{"show", "model", "llama-3.2-1b", "--format", "json"},
			code: 0, stdout: []string{`"hidden_size": 2048`}, never: []string{`"hidden_size": 64`}}},
		{relCase: relCase{finding: "O", name: "the directory, written as a path", args: []string{"show", "model", "./llama-3.2-1b", "--format", "json"},
			code: 0, stdout: []string{`"hidden_size": 64`}}},
		{relCase: relCase{finding: "O", name: "an unknown bare name with a directory of that name here", args: []string{"show", "model", "myckpt"},
			code: 1, stderr: []string{`unknown model "myckpt": a file or directory myckpt is here, but a bare name is a name: write ./myckpt to read it`}}},
	}
	runRelCases(t, dir, srv.URL, reason, cases)
}

// outCase is a case whose output files are checked too: none of them
// may hold what never lists, nor what its own entry lists.
type outCase struct {
	relCase
	files map[string][]string
}

// reportFiles are the text files of the report in dir, report.md with
// what it must not hold besides.
func reportFiles(dir string, md []string) map[string][]string {
	return map[string][]string{dir + "/report.md": md, dir + "/report.html": nil, dir + "/results.json": nil, dir + "/results.csv": nil}
}

// runRelCases runs each case in a child process in dir and checks its
// outcome and that it stays within ordinaryBounds.
func runRelCases(t *testing.T, dir, srvURL, reasonURL string, cases []outCase) {
	t.Helper()
	noPanic := []string{"goroutine ", "panic:"}
	for _, c := range cases {
		t.Run(c.finding+"/"+c.name, func(t *testing.T) {
			sub := func(s string) string {
				return strings.NewReplacer("{dir}", dir, "{srv}", srvURL, "{reason}", reasonURL).Replace(s)
			}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = sub(a)
			}
			r := runChild(t, dir, args, c.stdin)
			stdout, stderr, code := r.stdout, r.stderr, r.code
			ordinaryBounds.within(t, r)
			if code != c.code {
				t.Errorf("exit code %d, want %d\nstderr: %s", code, c.code, stderr)
			}
			for _, w := range c.stderr {
				if !strings.Contains(stderr, sub(w)) {
					t.Errorf("stderr lacks %q:\n%s", sub(w), stderr)
				}
			}
			for _, w := range c.stdout {
				if !strings.Contains(stdout, sub(w)) {
					t.Errorf("stdout lacks %q:\n%.2000s", sub(w), stdout)
				}
			}
			for _, w := range append(c.never, noPanic...) {
				if strings.Contains(stdout, sub(w)) || strings.Contains(stderr, sub(w)) {
					t.Errorf("output holds %q:\nstdout: %.2000s\nstderr: %s", sub(w), stdout, stderr)
				}
			}
			for f, never := range c.files {
				b, err := os.ReadFile(sub(f))
				if err != nil {
					t.Errorf("%s: %v", sub(f), err)
					continue
				}
				for _, w := range append(never, c.never...) {
					if strings.Contains(string(b), sub(w)) {
						t.Errorf("%s holds %q", sub(f), sub(w))
					}
				}
			}
			t.Logf("%v, %d MB, %d MB allocated, %d MB read", r.elapsed.Round(time.Millisecond), r.peak>>20, r.allocated>>20, r.read>>20)
		})
	}
}

// outputInputs writes every file the cases of TestReliabilityOutputs read
// into dir.
func outputInputs(t *testing.T, dir, srv string) {
	t.Helper()
	write := func(name, data string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rt, err := os.ReadFile("../../profiles/runtimes/rkllm.toml")
	if err != nil {
		t.Fatal(err)
	}
	write("rt-study/x.toml", strings.Replace(string(rt), `name = "rkllm"`, `name = "x"`, 1))
	write("rt-study/study.toml", "title = \"a runtime by path\"\ndevices = [\"rtx-4090\"]\nmodels = [\"llama-3.2-1b\"]\nruntimes = [\"x.toml\"]\n[targets]\ntpot = \"50ms\"\n")
	write("empty.toml", "")
	tinyCfg := `{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":4,` +
		`"intermediate_size":64,"vocab_size":128,"max_position_embeddings":4096}`
	write("llama-3.2-1b/config.json", tinyCfg)
	write("myckpt/config.json", tinyCfg)
	write("fig-setting.toml", "title = \"t\"\ndevices = [\"rtx-4090\"]\nmodels = [\"llama-3.2-1b\"]\nfigures = [\"roofline\"]\n[figure.roofline]\nmax-batch = -5\n")
	hw, err := os.ReadFile("../../profiles/hardware/rtx-4090.toml")
	if err != nil {
		t.Fatal(err)
	}
	write("bw-tiny.toml", strings.Replace(string(hw), `value = "1008 GB/s"`, `value = "1e-300 B/s"`, 1))
	write("power.toml", strings.Replace(string(hw), `value = "450 W"`, `value = "1e300 W"`, 1))
	lc, err := os.ReadFile("../../profiles/runtimes/llama.cpp.toml")
	if err != nil {
		t.Fatal(err)
	}
	lcs := strings.Replace(string(lc), `name = "llama.cpp"`, `name = "lc-test"`, 1)
	first := regexp.MustCompile(`(?m)^half_rows = .*$`).FindStringIndex(lcs)
	if first == nil {
		t.Fatal("llama.cpp.toml has no half_rows")
	}
	lcs = lcs[:first[0]] + "half_rows = 1e300" + lcs[first[1]:]
	write("half-rows.toml", regexp.MustCompile(`(?m)^aliases = .*$`).ReplaceAllString(lcs, ""))
	write("slow.csv", "test,tokens_per_s,model,weights,prompt,gen\ndecode,1e-300,llama-3.2-1b,q4_0,0,128\ndecode,100,llama-3.2-1b,q4_0,0,128\n")
	sweep := "test,tokens_per_s,model,weights,prompt,gen,batch\n"
	for b := 1; b <= 256; b *= 2 {
		sweep += fmt.Sprintf("decode,%d,llama-3.2-1b,q4_0,0,128,%d\n", 100*b, b)
	}
	write("sweep.csv", sweep+"prefill,5000,llama-3.2-1b,q4_0,512,0,1\nprefill,9000,llama-3.2-1b,q4_0,2048,0,1\n")
	write("neg-experts/config.json", `{"model_type":"mixtral","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":4,`+
		`"intermediate_size":64,"vocab_size":128,"max_position_embeddings":4096,"num_local_experts":-8,"num_experts_per_tok":2}`)
	// A two-layer Llama header with one key edited.
	gg := func(name, key string, v gguf.Value) {
		m, err := model.BuildNamed(&model.Spec{Name: "m", Architecture: "llama", Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 16,
			FFN: 128, Vocab: 128, MaxContext: 4096, MLP: model.Gated, NormsPerLayer: 2}, "", "f16", model.Layout{})
		if err != nil {
			t.Fatal(err)
		}
		w, _ := model.LookupWeightFormat("f16")
		f, err := gguf.HeaderFor(m.Spec, w)
		if err != nil {
			t.Fatal(err)
		}
		f.Metadata[key] = v
		var b bytes.Buffer
		if err := gguf.Write(&b, f); err != nil {
			t.Fatal(err)
		}
		write(name, b.String())
	}
	gg("float-blocks.gguf", "llama.block_count", gguf.Value{Num: 2.5, IsNum: true})
	gg("bool-blocks.gguf", "llama.block_count", gguf.Value{Num: 1, Bool: true, IsNum: true, IsBool: true})
	gg("neg-kv.gguf", "llama.attention.head_count_kv", gguf.Value{Arr: []float64{-1, 2}, Len: 2})
	// The same key twice, as no writer of ours would write it.
	var dup []byte
	dup = append(dup, "GGUF"...)
	dup = binary.LittleEndian.AppendUint32(dup, 3)
	dup = binary.LittleEndian.AppendUint64(dup, 0)
	dup = binary.LittleEndian.AppendUint64(dup, 2)
	for _, v := range []uint32{16, 2} {
		k := "llama.block_count"
		dup = binary.LittleEndian.AppendUint64(dup, uint64(len(k)))
		dup = append(dup, k...)
		dup = binary.LittleEndian.AppendUint32(dup, 4)
		dup = binary.LittleEndian.AppendUint32(dup, v)
	}
	write("dup-key.gguf", string(dup))
	write("ctl.csv", "test,tokens_per_s,model,weights,prompt,gen,note,exclude\n"+
		"decode,100,llama-3.2-1b,q4_0,0,128,\"a \x1b]0;pwned\a\x1b[2J note \u202e\",\n"+
		"decode,100,llama-3.2-1b,q4_0,0,128,,\"why \x1b[31mred\"\n")
	write("html-study.toml", "title = \"t <img src=x onerror=alert(1)> \\u001b]0;pwned\\u0007 ![x](http://evil.example/i.png)\"\n"+
		"description = \"<script>alert(1)</script> [a](http://evil.example)\"\ndevices = [\"rtx-4090\"]\nmodels = [\"llama-3.2-1b\"]\nfigures = []\n")
	write("url-study.toml", fmt.Sprintf("title = \"a model by URL\"\ndevices = [\"rtx-4090\"]\nmodels = [%q, %q]\nfigures = []\n",
		srv+"/good/llama.gguf?hf_t0k3nSECRET", srv+"/good/other.gguf#access_token=t0k3nSECRET"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.toml"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// reasonServer answers every request with a status line whose reason
// phrase holds terminal control codes, as a hostile server may.
func reasonServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				buf := make([]byte, 4096)
				c.Read(buf)
				io.WriteString(c, "HTTP/1.1 418 \x1b]0;pwned\a\x1b[2J\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			}()
		}
	}()
	return "http://" + l.Addr().String()
}
