package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/profiles"
)

// --threads on the command line: Qwen2.5-0.5B Q4_K_M on a Raspberry Pi 5,
// whose profile counts four Cortex-A76 (int8 614.4 GOP/s). At one thread
// the peak is a quarter, 153.6 GOP/s; prefill, compute-bound, takes
// longer, and so does decode, which one core cannot feed at the four
// cores' bandwidth (EDGE-MEMWALL measured 23.5 against 89.3 tokens/s of
// prefill and 16.9 against 26.8 of decode, runs.csv).
func TestPredictThreads(t *testing.T) {
	base := []string{"predict", "--model", "qwen2.5-0.5b", "--hardware", "raspberry-pi-5-8gb", "--prompt", "512", "--output-tokens", "128"}
	out, errOut, code := runCLI(append(append([]string{}, base...), "--threads", "2")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "threads:    2 of the 4 cores the cpu engine's profile counts: peaks 2/4 of its; bandwidth ") {
		t.Errorf("no threads line:\n%s", out)
	}
	type pred struct {
		TTFT   float64 `json:"ttft_s"`
		TPOT   float64 `json:"tpot_s"`
		Inputs struct {
			Peak    float64 `json:"peak_ops_per_s"`
			Threads int     `json:"threads"`
			Cores   int     `json:"cores"`
		} `json:"inputs"`
	}
	run := func(extra ...string) pred {
		out, errOut, code := runCLI(append(append(append([]string{}, base...), extra...), "--format", "json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errOut)
		}
		var p pred
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	all, one, four := run(), run("--threads", "1"), run("--threads", "4")
	if one.Inputs.Threads != 1 || one.Inputs.Cores != 4 || all.Inputs.Threads != 0 || one.Inputs.Peak != 153.6e9 || all.Inputs.Peak != 614.4e9 {
		t.Errorf("threads in the JSON inputs: %+v (set to 1), %+v (not set)", one.Inputs, all.Inputs)
	}
	if four.TTFT != all.TTFT || four.TPOT != all.TPOT {
		t.Errorf("four threads on four cores: TTFT %g, TPOT %g; every core: %g, %g", four.TTFT, four.TPOT, all.TTFT, all.TPOT)
	}
	// Measured, one core prefills 3.8× and decodes 1.6× slower than four.
	if r := one.TTFT / all.TTFT; r < 3 || r > 4.5 {
		t.Errorf("one thread prefills %.2f× slower than four; EDGE-MEMWALL measured 3.8×", r)
	}
	if r := one.TPOT / all.TPOT; r < 1.2 || r > 2.2 {
		t.Errorf("one thread decodes %.2f× slower than four; EDGE-MEMWALL measured 1.6×", r)
	}
}

func TestThreadsFlagErrors(t *testing.T) {
	base := []string{"predict", "--model", "qwen2.5-0.5b", "--hardware", "raspberry-pi-5-8gb"}
	for _, c := range []struct {
		extra []string
		has   string
	}{
		{[]string{"--threads", "0"}, "--threads must be a number of cores from 1, got 0"},
		{[]string{"--threads", "-2"}, "--threads must be a number of cores from 1, got -2"},
		{[]string{"--threads", "many"}, "--threads"},
		{[]string{"--threads", "5"}, "--threads 5: the cpu engine of raspberry-pi-5-8gb prices 4 cores"},
		{[]string{"--hardware", "rk3588", "--engine", "cpu", "--threads", "8"}, "the four Cortex-A76"},
		{[]string{"--hardware", "jetson-orin-nano-8gb@7w", "--engine", "cpu", "--threads", "6"}, "prices 4 cores ([V][J13] 7W: CORE_4 and CORE_5 offline"},
	} {
		out, errOut, code := runCLI(append(append([]string{}, base...), c.extra...)...)
		if code != 2 || !strings.Contains(errOut, c.has) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.extra, code, out, errOut, c.has)
		}
	}
	// An engine that is not a CPU takes no threads, and says so.
	out, errOut, code := runCLI("predict", "--model", "qwen2.5-0.5b", "--hardware", "jetson-nano-4gb", "--engine", "gpu", "--threads", "2")
	if code != 0 || !strings.Contains(out+errOut, "the thread count is ignored: threads set the cores of a CPU engine, and the gpu engine of jetson-nano-4gb is not one") {
		t.Errorf("a GPU with --threads: exit %d\n%s\n%s", code, out, errOut)
	}
}

// A runs CSV's threads column prices each run on the cores it used, and a
// count its profile cannot price is refused for that row alone.
func TestCompareThreadsColumn(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "runs.csv")
	csv := "source,runtime,hardware,engine,model,weights,test,prompt,gen,tokens_per_s,threads\n" +
		"a,llama.cpp CPU,raspberry-pi-5-8gb,cpu,qwen2.5-0.5b,q4_k_m,prefill,512,0,23.5,1\n" +
		"b,llama.cpp CPU,raspberry-pi-5-8gb,cpu,qwen2.5-0.5b,q4_k_m,prefill,512,0,89.3,4\n" +
		"c,llama.cpp CPU,raspberry-pi-5-8gb,cpu,qwen2.5-0.5b,q4_k_m,prefill,512,0,89.3,9\n" +
		"d,llama.cpp CPU,raspberry-pi-5-8gb,cpu,qwen2.5-0.5b,q4_k_m,prefill,512,0,89.3,two\n"
	if err := os.WriteFile(f, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("compare", f, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []struct {
		Predicted float64 `json:"predicted_tokens_per_s"`
		Peak      float64 `json:"peak_ops_per_s"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows priced, want 2 (rows c and d refused):\n%s", len(rows), out)
	}
	if rows[0].Peak != 153.6e9 || rows[1].Peak != 614.4e9 {
		t.Errorf("peaks %g and %g, want 153.6 and 614.4 GOP/s", rows[0].Peak, rows[1].Peak)
	}
	if r := rows[1].Predicted / rows[0].Predicted; math.Abs(r-4) > 0.4 {
		t.Errorf("four threads prefill %.2f× one thread's rate, want about 4 (compute-bound)", r)
	}
	for _, want := range []string{"threads = 9: the cpu engine of raspberry-pi-5-8gb prices 4 cores", `threads = "two"`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// Every llama.cpp run on a CPU in the public runs states its threads, as
// its source gave them: a note that records the command's "-t N" agrees
// with the threads column (EDGE-MEMWALL's and EDGE-FORMAT-TAX's sweeps at
// 1 to 4 on the Raspberry Pi 5; 4 on the other boards).
func TestPublicRunsStateThreads(t *testing.T) {
	runs := readPublicRuns(t)
	last := regexp.MustCompile(`-t (\d+)(?:[^,\d]|$)`)
	byThreads := map[int]int{}
	for _, r := range runs {
		if r.Engine != "cpu" || !strings.HasPrefix(r.Backend, "llama.cpp") {
			continue
		}
		if r.Threads == 0 {
			t.Errorf("%s (%s): a llama.cpp CPU run without its threads", r.Source(), r.Origin)
			continue
		}
		byThreads[r.Threads]++
		if m := last.FindAllStringSubmatch(r.Note, -1); m != nil {
			if n, _ := strconv.Atoi(m[len(m)-1][1]); n != r.Threads {
				t.Errorf("%s (%s): threads %d, its note says -t %d", r.Source(), r.Origin, r.Threads, n)
			}
		}
	}
	for n := 1; n <= 4; n++ {
		if byThreads[n] == 0 {
			t.Errorf("no run at %d threads: %v", n, byThreads)
		}
	}
}

// plan prices CPU engines at --threads and skips, saying why, an engine
// whose profile cannot take them (five threads on four cores); the other
// engines plan as before.
func TestPlanThreads(t *testing.T) {
	out, errOut, code := runCLI("plan", "--model", "qwen2.5-0.5b", "--hardware", "raspberry-pi-5-8gb,jetson-orin-nano-8gb@7w", "--threads", "5", "--detail")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "skipped: ") || !strings.Contains(out, "raspberry-pi-5-8gb/cpu: --threads 5: the cpu engine of raspberry-pi-5-8gb prices 4 cores") ||
		!strings.Contains(out, "jetson-orin-nano-8gb-7w/cpu: --threads 5: the cpu engine of jetson-orin-nano-8gb-7w prices 4 cores") {
		t.Errorf("no skip of the CPUs with four cores:\n%s", out)
	}
	ttft := func(threads string) string {
		out, errOut, code := runCLI("plan", "--model", "qwen2.5-0.5b", "--hardware", "raspberry-pi-5-8gb", "--threads", threads, "--format", "json")
		if code != 0 {
			t.Fatalf("--threads %s: exit %d: %s", threads, code, errOut)
		}
		return out
	}
	if ttft("1") == ttft("4") {
		t.Error("the plan at one thread is the plan at four")
	}
	// A plan whose every engine refuses the count is the option's error,
	// as in predict, not a table blaming the model's formats.
	out, errOut, code = runCLI("plan", "--model", "qwen2.5-0.5b", "--hardware", "raspberry-pi-5-8gb", "--engine", "cpu", "--threads", "8")
	if code != 2 || out != "" || !strings.Contains(errOut, "--threads 8: the cpu engine of raspberry-pi-5-8gb prices 4 cores") {
		t.Errorf("plan at 8 threads on a Pi 5 alone: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

// chat, serve and the plots of a series take --threads too and say so: a
// Pi 5 on one of its four cores.
func TestThreadsOtherCommands(t *testing.T) {
	const line = "threads: 1 of the 4 cores the cpu engine's profile counts: peaks 1/4 of its; bandwidth "
	for _, args := range [][]string{
		{"chat", "--model", "qwen2.5-0.5b", "--hardware", "raspberry-pi-5-8gb", "--threads", "1"},
		{"serve", "--model", "qwen2.5-0.5b", "--hardware", "raspberry-pi-5-8gb", "--threads", "1", "--rate", "0.05", "--requests", "10"},
	} {
		out, errOut, code := runCLI(args...)
		if code != 0 || !strings.Contains(out, line) {
			t.Errorf("%s: exit %d, no threads line:\n%s\n%s", args[0], code, out, errOut)
		}
	}
	dir := t.TempDir()
	svg := func(name string, extra ...string) []byte {
		f := filepath.Join(dir, name)
		args := append([]string{"plot", "tpot-context", "--model", "qwen2.5-0.5b", "--hardware", "raspberry-pi-5-8gb", "-o", f}, extra...)
		if _, errOut, code := runCLI(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if string(svg("one.svg", "--threads", "1")) == string(svg("all.svg")) {
		t.Error("plot tpot-context at one thread draws what it draws at every core")
	}
}

// Every built-in CPU engine, and every power mode's, counts the cores its
// peaks are derived from: the "[D] N × …" or "[D] N cores × …" of its
// fp32 peak is its units (a Jetson Orin Nano's 7W mode: CORE_4 and CORE_5
// offline, 4 of 6), so --threads is priced on every device with a CPU.
func TestCPUEnginesCountTheirCores(t *testing.T) {
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	derived := regexp.MustCompile(`\[D\] (\d+) (?:×|cores)`)
	n := 0
	for _, d := range cat.Devices() {
		for _, e := range d.Engines {
			if e.Kind != hardware.CPU {
				continue
			}
			n++
			if e.Units <= 0 {
				t.Errorf("%s: the %s engine states no core count", d.Name, e.Name)
				continue
			}
			m := derived.FindStringSubmatch(d.Sources["engine."+e.Name+".peak.fp32"])
			if m == nil {
				t.Errorf("%s: the %s engine's fp32 peak does not say its cores", d.Name, e.Name)
				continue
			}
			if c, _ := strconv.Atoi(m[1]); c != e.Units {
				t.Errorf("%s: the %s engine counts %d cores, its fp32 peak %d", d.Name, e.Name, e.Units, c)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d CPU engines in the catalog", n)
	}
}
