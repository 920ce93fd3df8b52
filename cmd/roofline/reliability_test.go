package main

// The reliability suite of issue 19: every finding of the adversarial pass
// over roofline's inputs, reproduced with inputs built here, run as the
// real command in a child process (this test binary, re-executed) so that
// each case's peak memory and work are its own. Every case must end with
// the documented exit code and a clear message, or with a correct answer,
// within its bounds (caseBounds: 200 MB, and work that takes well under
// 10 s). The time itself is BenchmarkReliabilityBounds': a wall-clock
// limit in a test failed under a machine's load, not for roofline.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/roofline/roofline/cmd/roofline/internal/atomicfile"
	"github.com/roofline/roofline/cmd/roofline/internal/memlimit"
	"github.com/roofline/roofline/gguf"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/safeio"
)

const (
	childArgsEnv = "ROOFLINE_RELIABILITY_ARGS"
	childPeakEnv = "ROOFLINE_RELIABILITY_PEAK"
	// childASEnv, when set, is the address space (bytes) the child may
	// map: ulimit -v.
	childASEnv = "ROOFLINE_RELIABILITY_AS"
	// hangAfter stops a child that never ends: a hang, not a speed
	// target (the slowest case takes about 4 s on an idle machine).
	hangAfter = 5 * time.Minute
	// watchdogBytes stops a child long before it could stall the machine
	// (one such run grew to 24 GB before the fix).
	watchdogBytes = 1 << 30
)

// TestReliabilityChild is the child: it runs roofline with the arguments
// in childArgsEnv, then writes its peak resident memory to the file named
// by childPeakEnv and exits with roofline's code.
func TestReliabilityChild(t *testing.T) {
	raw := os.Getenv(childArgsEnv)
	if raw == "" {
		t.Skip("run by TestReliability")
	}
	if file, ok := strings.CutPrefix(raw, "@"); ok {
		// Arguments longer than an environment variable may be.
		b, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(98)
		}
		raw = string(b)
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(98)
	}
	debug.SetMaxStack(64 << 20) // a runaway recursion fails in a moment
	if as := os.Getenv(childASEnv); as != "" {
		n, _ := strconv.ParseUint(as, 10, 64)
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(98)
		}
	}
	writePeak := func() {
		if p := os.Getenv(childPeakEnv); p != "" {
			os.WriteFile(p, []byte(fmt.Sprintf("%d %d %d", peakRSS(), allocatedBytes(), bytesRead())), 0o644)
		}
	}
	// As main does: the runtime fitted to the limits (this may run the
	// child again, under the same environment).
	memlimit.Apply(safeio.Writer{W: os.Stderr}, func() { atomicfile.RemovePending(); writePeak() })
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
		for range time.Tick(2 * time.Millisecond) {
			metrics.Read(s)
			if s[0].Value.Uint64() > watchdogBytes {
				fmt.Fprintf(os.Stderr, "reliability watchdog: %d bytes mapped\n", s[0].Value.Uint64())
				os.Exit(99)
			}
		}
	}()
	code := runProtected(append([]string{"roofline"}, args...), os.Stdout, safeio.Writer{W: os.Stderr})
	writePeak()
	os.Exit(code)
}

// peakRSS is this process's peak resident memory since it started
// (VmHWM: the image of the process that forked it is not counted, as it
// is in getrusage's maxrss), or the Go runtime's mapped memory where
// /proc is missing.
func peakRSS() int64 {
	if f, err := os.Open("/proc/self/status"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				return kb << 10
			}
		}
	}
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// allocatedBytes is the heap this process has allocated since it
// started, freed or not.
func allocatedBytes() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// bytesRead is what this process has read from files, pipes and sockets
// (/proc/self/io's rchar; 0 where /proc is missing).
func bytesRead() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// caseBounds are what one case may take. Peak memory is the case's own
// (the child's). Its time is bounded by its work, which unlike a wall
// clock does not grow with the machine's load: the heap it allocates
// (allocating and collecting run at about 1 GB/s) and what it reads.
// Every finding that cost time did one or the other without bound: the
// square of a file's keys decoded, an endless body or standard input
// read to its end, a split set's headers read whole.
type caseBounds struct {
	peak, allocated, read int64
}

var (
	// ordinaryBounds: 200 MB, the bound; 1 GiB allocated and
	// read (the largest ordinary cases: 166 MB allocated for 8,000
	// llama-bench results, 512 MiB read for two parts of 384 MiB
	// headers, refused at the 512 MiB limit for a local model).
	ordinaryBounds = caseBounds{peak: 200 << 20, allocated: 1 << 30, read: 1 << 30}
	// documentedBounds: the largest documented inputs (a runs file of
	// limits.Runs rows, a chat of limits.ChatTurns turns) in 500 MB and
	// 4 GiB allocated (the 131,072-run compare as JSON allocates 1.2 GB).
	documentedBounds = caseBounds{peak: 500 << 20, allocated: 4 << 30, read: 1 << 30}
)

// within reports, as errors, what of r passes b: none under the race
// detector, whose memory and work are not roofline's.
func (b caseBounds) within(t testing.TB, r childRun) {
	t.Helper()
	if raceDetector {
		return
	}
	if r.peak > b.peak {
		t.Errorf("peak memory %d MB (limit %d MB)", r.peak>>20, b.peak>>20)
	}
	if r.allocated > b.allocated {
		t.Errorf("allocated %d MB (limit %d MB)", r.allocated>>20, b.allocated>>20)
	}
	if r.read > b.read {
		t.Errorf("read %d MB (limit %d MB)", r.read>>20, b.read>>20)
	}
}

// noPanic are what a crash prints: never in any case's output.
var noPanic = []string{"goroutine ", "panic:"}

// relCase is one finding reproduced.
type relCase struct {
	finding string   // the finding number
	name    string   // what it reproduces
	args    []string // roofline's arguments; {dir} and {srv} are replaced
	stdin   func() io.Reader
	code    int      // the exit code
	stderr  []string // substrings stderr must hold
	stdout  []string // substrings stdout must hold
	never   []string // substrings neither stream may hold (secrets, panics)
	// maxStderr, when set, bounds what stderr may hold (bytes).
	maxStderr int
}

func TestReliability(t *testing.T) {
	if testing.Short() {
		t.Skip("the reliability suite runs every case in a child process")
	}
	if os.Getenv(childArgsEnv) != "" {
		return
	}
	dir := t.TempDir()
	inputs(t, dir)
	srv := hostileServer(t)
	defer srv.Close()
	secretURL := strings.Replace(srv.URL, "http://", "http://alice:s3cr3t@", 1)

	secrets := []string{"s3cr3t", "alice", "t0k3n"}
	cases := []relCase{
		// 1. Tiny files sized allocations before any check.
		{finding: "1", name: "config.json sliding_window_pattern 2e9", args: []string{"show", "model", "{dir}/gemma/config.json"},
			code: 1, stderr: []string{"sliding_window_pattern 2000000000 exceeds the limit of 2^12"}},
		{finding: "1", name: "GGUF sliding_window_pattern 2e9", args: []string{"show", "model", "{dir}/pattern.gguf"},
			code: 1, stderr: []string{"sliding_window_pattern 2000000000 exceeds the limit of 4096"}},
		{finding: "1", name: "TOML norms_per_layer 1e7", args: []string{"show", "model", "{dir}/norms.toml"},
			code: 1, stderr: []string{"norms.toml:13: norms_per_layer 10000000 exceeds the limit of 16"}},
		{finding: "1", name: "counts whose product wraps", args: []string{"show", "model", "{dir}/wrap.toml"},
			code: 1, stderr: []string{"parameters (limit 1e+15)"}},
		// 2. A name ending in .toml recursed to a stack overflow.
		{finding: "2", name: "profile named loop.toml", args: []string{"show", "model", "{dir}/loop.toml"},
			code: 1, stderr: []string{`name "loop.toml" ends like a file name`}},
		{finding: "2", name: "profile name that is also a file here", args: []string{"show", "model", "sub.toml", "--format", "json"},
			code: 0, stdout: []string{`"name": "other"`, `"hidden_size": 64`}},
		// 3. An edited copy of a built-in hardware profile as a path.
		{finding: "3", name: "--hardware my-4090.toml", args: []string{"predict", "--model", "llama-3.2-1b", "--hardware", "{dir}/my-4090.toml", "--format", "json"},
			code: 0, stdout: []string{`"hardware": "rtx-4090"`}},
		// 4. A panic and unprintable numbers.
		{finding: "4", name: "plot compare with a rate of 1e308", args: []string{"plot", "compare", "{dir}/big-rate.csv", "--hardware", "rtx-4090", "-o", "{dir}/compare.png"},
			code: 0, stderr: []string{"big-rate.csv:2: rate 1e+308 tokens/s exceeds the limit of 1e+12"}, stdout: []string{"compare.png"}},
		{finding: "4", name: "NaN rate in a measured file, JSON output", args: []string{"compare", "{dir}/nan-rate.csv", "--hardware", "rtx-4090", "--format", "json"},
			code: 0, stderr: []string{`nan-rate.csv:2: tokens_per_s = "NaN" is not a finite number`}, stdout: []string{`"measured_tokens_per_s": 100`}},
		{finding: "4", name: "NaN and Infinity in a vLLM result (Python's json.dump)", args: []string{"compare", "{dir}/vllm-nan.json", "--hardware", "rtx-4090", "--model", "llama-3.2-1b", "--weights", "f16", "--format", "json"},
			code: 0, stderr: []string{"vllm-nan.json:1: 2 NaN or Infinity value(s), as Python's json.dump writes them, read as missing"}, stdout: []string{`"test": "decode"`, `"test": "prefill"`}},
		{finding: "4", name: "NaN in a calibration section", args: []string{"show", "hardware", "{dir}/cal-nan.toml", "--format", "json"},
			code: 1, stderr: []string{"engine.calibration.bandwidth = NaN: a number must be finite"}},
		// 5. Secrets printed.
		{finding: "5", name: "credentials in a URL: error", args: []string{"show", "model", secretURL + "/missing.gguf?token=t0k3n"},
			code: 1, stderr: []string{"http://xxxxx@127.0.0.1", "missing.gguf?token=xxxxx", "404"}, never: secrets},
		{finding: "5", name: "credentials in a URL: source in JSON", args: []string{"show", "model", secretURL + "/good/llama.gguf?token=t0k3n", "--format", "json"},
			code: 0, stdout: []string{"GGUF header of http://xxxxx@127.0.0.1", "llama.gguf?token=xxxxx"}, never: secrets},
		{finding: "5", name: "credentials in a URL: unknown name", args: []string{"predict", "--model", secretURL + "/nothing?token=t0k3n", "--hardware", "rtx-4090"},
			code: 1, never: secrets},
		// 7. Silently wrong numbers.
		{finding: "7", name: "prompt_tokens = 2^63-1", args: []string{"compare", "{dir}/huge-tokens.csv", "--hardware", "rtx-4090", "--model", "llama-3.2-1b", "--weights", "q4_0", "--format", "json"},
			code: 0, stderr: []string{"huge-tokens.csv:2: prompt 9.22e+18 tokens exceeds the limit of 2^30"}, stdout: []string{`"prompt_tokens": 500`},
			never: []string{`"predicted_tokens_per_s": -`}},
		{finding: "7", name: "duplicate tensor", args: []string{"show", "model", "{dir}/dup.gguf"},
			code: 1, stderr: []string{"appears twice"}},
		{finding: "7", name: "repeated split part", args: []string{"show", "model", "{dir}/rep-00001-of-00002.gguf"},
			code: 1, stderr: []string{"split.no is 0: this file is part 1 of the set, not part 2"}},
		{finding: "7", name: `bandwidth = "1008"`, args: []string{"show", "hardware", "{dir}/bw1008.toml"},
			code: 1, stderr: []string{`bw1008.toml:9: bandwidth: "1008" has no unit`}},
		{finding: "7", name: "--prompt 010 is ten", args: []string{"predict", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--prompt", "010", "--format", "json"},
			code: 0, stdout: []string{`"prompt": 10,`}},
		{finding: "7", name: "--prompt 0x10", args: []string{"predict", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--prompt", "0x10"},
			code: 2, stderr: []string{`invalid value "0x10" for flag --prompt: "0x10" is not a whole token count`}},
		{finding: "7", name: "--headroom NaN%", args: []string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--headroom", "NaN%"},
			code: 2, stderr: []string{`--headroom "NaN%"`}},
		{finding: "7", name: "--kv q4_0 --no-flash-attn (plan)", args: []string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--kv", "q4_0", "--no-flash-attn"},
			code: 0, stderr: []string{"warning: a quantized KV cache (q4_0) needs flash attention in llama.cpp"}},
		{finding: "7", name: "config.json with a byte-order mark", args: []string{"show", "model", "{dir}/bom/config.json", "--format", "json"},
			code: 0, stdout: []string{`"hidden_size": 64`}},
		// 8. Unbounded reads.
		{finding: "8", name: "compare /dev/zero", args: []string{"compare", "/dev/zero", "--hardware", "rtx-4090"},
			code: 1, stderr: []string{"/dev/zero: not a regular file"}},
		{finding: "8", name: "endless stdin", args: []string{"compare", "-", "--hardware", "rtx-4090"}, stdin: func() io.Reader { return endless{} },
			code: 1, stderr: []string{"stdin: larger than 64 MiB, the limit for measured runs"}},
		{finding: "8", name: "profile linked to /dev/zero", args: []string{"show", "hardware", "{dir}/zero.toml"},
			code: 1, stderr: []string{"not a regular file"}},
		{finding: "8", name: "config.json linked to /dev/zero", args: []string{"show", "model", "{dir}/zero/config.json"},
			code: 1, stderr: []string{"not a regular file"}},
		{finding: "8", name: "a FIFO named as a measured file", args: []string{"compare", "{dir}/fifo", "--hardware", "rtx-4090"},
			code: 1, stderr: []string{"not a regular file"}},
		// 9. Remote GGUF budget.
		{finding: "9", name: "one byte per request", args: []string{"show", "model", srv.URL + "/trickle/m.gguf"},
			code: 1, stderr: []string{"the server sent 1 bytes for a range of"}},
		{finding: "9", name: "endless body", args: []string{"show", "model", srv.URL + "/endless/m.gguf"},
			code: 1, stderr: []string{"more than 64 MiB over all parts"}},
		{finding: "9", name: "redirect loop", args: []string{"show", "model", srv.URL + "/loop/m.gguf"},
			code: 1, stderr: []string{"more than 10 redirects"}},
		{finding: "9", name: "huge split set", args: []string{"show", "model", srv.URL + "/split/m-00001-of-01024.gguf"},
			code: 1, stderr: []string{"more than 64 MiB over all parts"}},
		// 10. Data files trigger reads and fetches.
		{finding: "10", name: "a path in a measured file's model column", args: []string{"compare", "{dir}/runs-path.csv", "--hardware", "rtx-4090"},
			code: 1, stderr: []string{`model "./mine.toml" in {dir}/runs-path.csv is a path or URL`, "--allow-paths"}},
		{finding: "10", name: "a URL in a measured file's model column", args: []string{"compare", "{dir}/runs-url.csv", "--hardware", "rtx-4090"},
			code: 1, stderr: []string{"is a path or URL"}, never: []string{"GGUF header"}},
		{finding: "10", name: "--allow-paths: relative to the measured file", args: []string{"--allow-paths", "compare", "{dir}/runs-path.csv", "--hardware", "rtx-4090", "--format", "json"},
			code: 0, stdout: []string{`"model": "mine"`}},
		{finding: "10", name: "a URL in a study's models", args: []string{"report", "{dir}/study/url.toml", "-o", "{dir}/report-refused"},
			code: 1, stderr: []string{`url.toml:3: models: model "http://127.0.0.1:1/m.gguf" in {dir}/study/url.toml is a path or URL`, "hint: --allow-paths lets"}},
		{finding: "10", name: "a local path in a study", args: []string{"report", "{dir}/study/study.toml", "-o", "{dir}/report-local"},
			code: 1, stderr: []string{`study.toml:3: models: model "m.toml" in {dir}/study/study.toml is a path or URL`, "hint: --allow-paths lets"}},
		{finding: "10", name: "--allow-paths: a local path in a study, relative to the study", args: []string{"report", "{dir}/study/study.toml", "-o", "{dir}/report-local", "--allow-paths"},
			code: 0, stdout: []string{"wrote {dir}/report-local"}},
		{finding: "10", name: "a study's name is a name, whatever the working directory holds", args: []string{"report", "{dir}/names.toml", "-o", "{dir}/report-names"},
			code: 0, stdout: []string{"wrote {dir}/report-names"}},
		// 11 (the reader): 8,000 llama-bench results as JSON.
		{finding: "11", name: "8,000 llama-bench JSON results", args: []string{"compare", "{dir}/bench-8000.json", "--hardware", "rtx-4080", "--format", "csv"},
			code: 0, stdout: []string{"bench-8000.json:7962"}},
		// 12. The token-count limit says it is one.
		{finding: "12", name: "--context 1e9", args: []string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--context", "1e9"},
			code: 2, stderr: []string{`--context: "1e9" exceeds the limit of 16777216 tokens (2^24)`}},
	}
	for _, c := range cases {
		t.Run(c.finding+"/"+c.name, func(t *testing.T) {
			c.check(t, dir, strings.NewReplacer("{dir}", dir, "{srv}", srv.URL), ordinaryBounds)
		})
	}
}

// check runs the case in a child process in dir, its arguments and
// expectations with sub's replacements, and checks its outcome and that
// it stays within bounds.
func (c relCase) check(t *testing.T, dir string, sub *strings.Replacer, bounds caseBounds, env ...string) {
	t.Helper()
	r := runChild(t, dir, c.argsWith(sub), c.stdin, env...)
	stdout, stderr, code := r.stdout, r.stderr, r.code
	bounds.within(t, r)
	if code != c.code {
		t.Errorf("exit code %d, want %d\nstderr: %.4000s", code, c.code, stderr)
	}
	for _, w := range c.stderr {
		if !strings.Contains(stderr, sub.Replace(w)) {
			t.Errorf("stderr lacks %q:\n%.4000s", sub.Replace(w), stderr)
		}
	}
	for _, w := range c.stdout {
		if !strings.Contains(stdout, sub.Replace(w)) {
			t.Errorf("stdout lacks %q:\n%.2000s", sub.Replace(w), stdout)
		}
	}
	for _, w := range append(c.never, noPanic...) {
		if strings.Contains(stdout, w) || strings.Contains(stderr, w) {
			t.Errorf("output holds %q:\nstdout: %.2000s\nstderr: %.4000s", w, stdout, stderr)
		}
	}
	if c.maxStderr > 0 && len(stderr) > c.maxStderr {
		t.Errorf("stderr holds %d bytes, more than %d", len(stderr), c.maxStderr)
	}
	t.Logf("%v, %d MB, %d MB allocated, %d MB read", r.elapsed.Round(time.Millisecond), r.peak>>20, r.allocated>>20, r.read>>20)
}

// argsWith is the case's arguments with sub's replacements.
func (c relCase) argsWith(sub *strings.Replacer) []string {
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = sub.Replace(a)
	}
	return args
}

// childRun is what a case's child process did: its output, exit code and
// time, its peak resident memory, the heap it allocated and the bytes it
// read.
type childRun struct {
	stdout, stderr        string
	code                  int
	elapsed               time.Duration
	peak, allocated, read int64
}

// runChild runs roofline with args in a child process in dir, with env
// added to its environment.
func runChild(t testing.TB, dir string, args []string, stdin func() io.Reader, env ...string) (r childRun) {
	t.Helper()
	raw, _ := json.Marshal(args)
	if len(raw) > 64<<10 {
		// Longer than an environment variable may be: a file.
		p := filepath.Join(t.TempDir(), "args")
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		raw = []byte("@" + p)
	}
	peakFile := filepath.Join(t.TempDir(), "peak")
	cmd := exec.Command(os.Args[0], "-test.run=^TestReliabilityChild$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), childArgsEnv+"="+string(raw), childPeakEnv+"="+peakFile), env...)
	if stdin != nil {
		cmd.Stdin = stdin()
	}
	var out ends
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(hangAfter):
		cmd.Process.Kill()
		<-done
		t.Fatalf("killed after %v: a hang", hangAfter)
	}
	r.elapsed = time.Since(start)
	r.code = cmd.ProcessState.ExitCode()
	if b, err := os.ReadFile(peakFile); err == nil {
		if _, err := fmt.Sscan(string(b), &r.peak, &r.allocated, &r.read); err != nil {
			t.Errorf("the child's report %q: %v", b, err)
		}
	} else {
		t.Errorf("the child reported no peak memory (exit %d): %s", r.code, errb.String())
	}
	// The test binary's own lines around roofline's output.
	r.stdout, r.stderr = strings.TrimSuffix(out.String(), "PASS\n"), errb.String()
	return r
}

// ends keeps the first and the last MiB written to it: a case's output may
// be 120 MB, and this process's memory is what the next child's peak
// starts from (a child forked from it counts its image).
type ends struct {
	head, tail []byte
	cut        int64
}

const endsKept = 1 << 20

func (e *ends) Write(p []byte) (int, error) {
	written := len(p)
	if n := min(len(p), endsKept-len(e.head)); n > 0 {
		e.head = append(e.head, p[:n]...)
		p = p[n:]
	}
	e.tail = append(e.tail, p...)
	if len(e.tail) > 2*endsKept { // trimmed now and then, not on every write
		extra := len(e.tail) - endsKept
		e.cut += int64(extra)
		e.tail = append(e.tail[:0], e.tail[extra:]...)
	}
	return written, nil
}

// String is what was kept, with the count of what was not between.
func (e *ends) String() string {
	tail, cut := e.tail, e.cut
	if extra := len(tail) - endsKept; extra > 0 {
		tail, cut = tail[extra:], cut+int64(extra)
	}
	if cut == 0 {
		return string(e.head) + string(tail)
	}
	return fmt.Sprintf("%s\n… %d bytes …\n%s", e.head, cut, tail)
}

// endless is an input that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

const tinyModelTOML = `name = %q
architecture = "llama"
source = "test"
hidden_size = 64
num_hidden_layers = 2
num_attention_heads = 4
num_key_value_heads = 4
head_dim = 16
intermediate_size = 128
vocab_size = 128
max_position_embeddings = 4096
`

// inputs writes every file the cases read into dir.
func inputs(t *testing.T, dir string) {
	t.Helper()
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tiny := func(name string) string { return fmt.Sprintf(tinyModelTOML, name) }

	write("gemma/config.json", []byte(`{"model_type":"gemma3_text","hidden_size":64,"num_hidden_layers":2,"intermediate_size":64,"sliding_window":16,"sliding_window_pattern":2000000000}`))
	write("bom/config.json", []byte("\ufeff"+`{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":64,"vocab_size":128,"max_position_embeddings":4096}`))
	write("norms.toml", []byte(tiny("norms")+"\nnorms_per_layer = 10000000\n"))
	write("wrap.toml", []byte(strings.NewReplacer("hidden_size = 64", "hidden_size = 262144", "num_hidden_layers = 2", "num_hidden_layers = 4096",
		"intermediate_size = 128", "intermediate_size = 1048576", "vocab_size = 128", "vocab_size = 16777216").Replace(tiny("wrap"))+
		"[moe]\nexperts = 16384\nactive = 8\nintermediate_size = 1048576\n"))
	write("loop.toml", []byte(tiny("loop.toml")))
	write("sub.toml", []byte(tiny("other")))
	write("other", []byte("a file named like the profile, never to be read"))
	write("mine.toml", []byte(tiny("mine")))

	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	hw, err := os.ReadFile("../../profiles/hardware/rtx-4090.toml")
	if err != nil {
		t.Fatal(err)
	}
	write("my-4090.toml", bytes.Replace(hw, []byte(`value = "1008 GB/s"`), []byte(`value = "950 GB/s"`), 1))
	board := `name = "board"
description = "x"
family = "x"
segment = "edge"
memory = { value = "8 GiB", source = "x" }
storage_bandwidth = { value = "1 GB/s", source = "x" }
default_engine = "gpu"
unified_memory = true
bandwidth = { value = "1008", source = "x" }

[[engine]]
name = "gpu"
kind = "gpu"
[engine.peak]
fp16 = { value = "10 TFLOP/s", source = "x" }
`
	write("bw1008.toml", []byte(board))
	write("cal-nan.toml", []byte(strings.Replace(board, `"1008"`, `"100 GB/s"`, 1)+"[engine.calibration]\nruntime = \"llama.cpp\"\nsource = \"x\"\nbandwidth = nan\n"))

	write("big-rate.csv", []byte("test,tokens_per_s,model,weights,prompt,gen\ndecode,1e308,llama-3.2-1b,q4_0,0,128\nprefill,1000,llama-3.2-1b,q4_0,512,0\n"))
	write("nan-rate.csv", []byte("test,tokens_per_s,model,weights,prompt\nprefill,NaN,llama-3.2-1b,q4_0,512\nprefill,100,llama-3.2-1b,q4_0,512\n"))
	write("vllm-nan.json", []byte(`{"model_id": "m", "completed": 2, "total_input_tokens": 1000, "total_output_tokens": 256, "mean_ttft_ms": NaN, "ttfts": [0.05, 0.06],`+
		"\n"+`"mean_tpot_ms": 8.0, "std_tpot_ms": Infinity}`))
	write("huge-tokens.csv", []byte("prompt_tokens,output_tokens,ttft_s,e2e_s\n9223372036854775807,10,1,2\n500,10,0.1,0.5\n"))
	write("runs-path.csv", []byte("test,tokens_per_s,model,weights,prompt\nprefill,100,./mine.toml,f16,512\n"))
	write("runs-url.csv", []byte("test,tokens_per_s,model,weights,prompt\nprefill,100,http://127.0.0.1:1/m.gguf,f16,512\n"))
	write("study/m.toml", []byte(tiny("study-model")))
	// A directory named like a built-in model, where the report runs and
	// beside the study: never read.
	write("qwen2.5-0.5b/config.json", []byte("not JSON"))
	write("names.toml", []byte("title = \"names\"\ndevices = [\"rtx-4090\"]\nmodels = [\"qwen2.5-0.5b\"]\nfigures = []\n"))
	write("study/url.toml", []byte("title = \"a URL among a study's models\"\ndevices = [\"rtx-4090\"]\nmodels = [\"http://127.0.0.1:1/m.gguf\"]\n"))
	write("study/runs.csv", []byte("test,tokens_per_s,weights,prompt\nprefill,100,f16,512\n"))
	write("study/study.toml", []byte(`title = "paths in a study"
devices = ["rtx-4090"]
models = ["m.toml"]
weights = ["q8_0"]
[workload]
prompt = 128
output = 16
[[measured]]
file = "runs.csv"
hardware = "rtx-4090"
model = "m.toml"
`))

	// GGUF headers.
	spec := func(name string) *model.Spec {
		s, err := cat.Model(name)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	header := func(name, weights string) *gguf.File {
		w, err := model.LookupWeightFormat(weights)
		if err != nil {
			t.Fatal(err)
		}
		f, err := gguf.HeaderFor(spec(name), w)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	encode := func(f *gguf.File) []byte {
		var b bytes.Buffer
		if err := gguf.Write(&b, f); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	g := header("gemma-3-4b", "q4_k_m")
	g.Metadata["gemma3.attention.sliding_window_pattern"] = gguf.Value{Num: 2e9, IsNum: true}
	write("pattern.gguf", encode(g))
	d := header("llama-3.2-1b", "q4_0")
	d.Tensors = append(d.Tensors, d.Tensors[3])
	write("dup.gguf", encode(d))
	r := header("llama-3.2-1b", "q4_0")
	half := len(r.Tensors) / 2
	r.Metadata["split.no"], r.Metadata["split.count"] = gguf.Value{Num: 0, IsNum: true}, gguf.Value{Num: 2, IsNum: true}
	p1 := &gguf.File{Version: 3, Metadata: r.Metadata, Tensors: r.Tensors[:half]}
	write("rep-00001-of-00002.gguf", encode(p1))
	write("rep-00002-of-00002.gguf", encode(p1)) // the first part again

	// Special files.
	for link, target := range map[string]string{"zero.toml": "/dev/zero", "zero/config.json": "/dev/zero"} {
		p := filepath.Join(dir, link)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}

	// 8,000 llama-bench results as JSON (was 7.3 s in compare).
	one, err := os.ReadFile("internal/measured/testdata/rtx4080-qwen2.5-7b.json")
	if err != nil {
		t.Fatal(err)
	}
	one = bytes.TrimSpace(one)
	inner := bytes.TrimSpace(one[1 : len(one)-1])
	first := inner[:bytes.Index(inner, []byte("\n },"))+3]
	var b bytes.Buffer
	b.WriteString("[\n")
	for i := 0; i < 8000; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.Write(first)
	}
	b.WriteString("\n]\n")
	write("bench-8000.json", b.Bytes())
}

// hostileServer serves the remote cases: a good header, a trickle, an
// endless body, a redirect loop and a 1,024-part split set.
func hostileServer(t *testing.T) *httptest.Server {
	t.Helper()
	cat, _ := profiles.Builtin()
	s, _ := cat.Model("llama-3.2-1b")
	w, _ := model.LookupWeightFormat("q4_k_m")
	f, _ := gguf.HeaderFor(s, w)
	var good bytes.Buffer
	gguf.Write(&good, f)

	// A header whose one value is an array of 2^24 uint64: skipped, read on.
	var prefix []byte
	prefix = append(prefix, "GGUF"...)
	prefix = binary.LittleEndian.AppendUint32(prefix, 3)
	prefix = binary.LittleEndian.AppendUint64(prefix, 0)
	prefix = binary.LittleEndian.AppendUint64(prefix, 1)
	prefix = binary.LittleEndian.AppendUint64(prefix, 1)
	prefix = append(prefix, 'x')
	prefix = binary.LittleEndian.AppendUint32(prefix, 9)
	prefix = binary.LittleEndian.AppendUint32(prefix, 10)
	prefix = binary.LittleEndian.AppendUint64(prefix, 1<<24)

	// Each split part: its split keys and a 512 KiB string.
	part := func(i int) []byte {
		var b []byte
		b = append(b, "GGUF"...)
		b = binary.LittleEndian.AppendUint32(b, 3)
		b = binary.LittleEndian.AppendUint64(b, 0)
		b = binary.LittleEndian.AppendUint64(b, 3)
		for _, kv := range []struct {
			k string
			v uint32
		}{{"split.no", uint32(i)}, {"split.count", 1024}} {
			b = binary.LittleEndian.AppendUint64(b, uint64(len(kv.k)))
			b = append(b, kv.k...)
			b = binary.LittleEndian.AppendUint32(b, 4)
			b = binary.LittleEndian.AppendUint32(b, kv.v)
		}
		b = binary.LittleEndian.AppendUint64(b, 1)
		b = append(b, 'x')
		b = binary.LittleEndian.AppendUint32(b, 8)
		b = binary.LittleEndian.AppendUint64(b, 512<<10)
		return append(b, make([]byte, 512<<10)...)
	}
	rangeRE := regexp.MustCompile(`^bytes=(\d+)-(\d+)$`)
	splitRE := regexp.MustCompile(`-(\d{5})-of-01024\.gguf$`)
	var endlessBytes atomic.Int64
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := rangeRE.FindStringSubmatch(r.Header.Get("Range"))
		var a, z int64
		if m != nil {
			a, _ = strconv.ParseInt(m[1], 10, 64)
			z, _ = strconv.ParseInt(m[2], 10, 64)
		}
		switch p := r.URL.Path; {
		case strings.HasPrefix(p, "/good/"):
			http.ServeContent(w, r, "m.gguf", time.Time{}, bytes.NewReader(good.Bytes()))
		case strings.HasPrefix(p, "/trickle/"):
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, a, good.Len()))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(good.Bytes()[a : a+1])
		case strings.HasPrefix(p, "/endless/"):
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/*", a, z))
			w.WriteHeader(http.StatusPartialContent)
			buf := make([]byte, 64<<10)
			for off := a; endlessBytes.Add(int64(len(buf))) < 4<<30; off += int64(len(buf)) {
				clear(buf)
				if off < int64(len(prefix)) {
					copy(buf, prefix[off:])
				}
				if _, err := w.Write(buf); err != nil {
					return
				}
			}
		case strings.HasPrefix(p, "/loop/"):
			http.Redirect(w, r, srv.URL+p, http.StatusFound)
		case strings.HasPrefix(p, "/split/"):
			if sm := splitRE.FindStringSubmatch(p); sm != nil {
				i, _ := strconv.Atoi(sm[1])
				http.ServeContent(w, r, "p.gguf", time.Time{}, bytes.NewReader(part(i-1)))
				return
			}
			http.NotFound(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	return srv
}

// A panic is a bug: "internal error, please report it" with the stack on
// stderr, exit code 70, nothing on stdout.
func TestPanicExits70(t *testing.T) {
	var errb bytes.Buffer
	code := runProtected([]string{"roofline", "list", "models"}, panicWriter{}, &errb)
	if code != exitInternal || exitInternal != 70 {
		t.Errorf("exit %d, want 70", code)
	}
	if s := errb.String(); !strings.Contains(s, "roofline: internal error, please report it") || !strings.Contains(s, "goroutine ") {
		t.Errorf("stderr: %s", s)
	}
}

type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("a bug") }
