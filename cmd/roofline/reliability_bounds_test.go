package main

// The reliability suite of issue 29, the findings that cost unbounded
// memory or time (A–D, G, J, K, N, R): each reproduced with inputs built
// here and run as the real command in a child process, within the bounds
// of issue 19's suite (caseBounds: 200 MB and the work of well under
// 10 s; 500 MB for the largest documented inputs). The time each takes is
// BenchmarkReliabilityBounds': the test's wall-clock limit of 10 s failed
// under a load of 10–12 on a two-core machine, where roofline was not at
// fault.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// boundsCase is one of issue 29's findings: a case, the environment its
// child runs in, and its bounds (zero: ordinaryBounds).
type boundsCase struct {
	relCase
	env    []string
	bounds caseBounds
}

func TestReliabilityBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("the reliability suite runs every case in a child process")
	}
	if os.Getenv(childArgsEnv) != "" {
		return
	}
	dir := t.TempDir()
	cases := boundsCases(t, dir)
	sub := strings.NewReplacer("{dir}", dir)
	for _, c := range cases {
		t.Run(c.finding+"/"+c.name, func(t *testing.T) {
			if c.finding == "R" && raceDetector {
				t.Skip("the race detector maps terabytes: no address-space limit fits it")
			}
			c.check(t, dir, sub, c.boundsOr(), c.env...)
		})
	}
	// What the cases built is returned to the system: a child forked
	// from this process counts its image in its peak (getrusage).
	debug.FreeOSMemory()
	// K: the user's files survived.
	if b, err := os.ReadFile(filepath.Join(dir, "forged", "precious.txt")); err != nil || string(b) != "years of work" {
		t.Errorf("precious.txt: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".out.partial-mine", "notes.txt")); err != nil {
		t.Errorf("the user's .out.partial-mine: %v", err)
	}
}

// BenchmarkReliabilityBounds times each of issue 29's cases, run as the
// command in a child process (about 10 ms of it starting the process),
// and reports its peak memory, the heap it allocated and what it read. The issue's
// target: every case under 10 s and 200 MB (500 MB for the largest
// documented inputs); on an idle machine the slowest, a 131,072-run
// compare as JSON, takes about 4 s. A case that writes a report has it
// removed before each run.
func BenchmarkReliabilityBounds(b *testing.B) {
	dir := b.TempDir()
	cases := boundsCases(b, dir)
	sub := strings.NewReplacer("{dir}", dir)
	for _, c := range cases {
		b.Run(c.finding+"/"+c.name, func(b *testing.B) {
			if c.finding == "R" && raceDetector {
				b.Skip("the race detector maps terabytes: no address-space limit fits it")
			}
			args := c.argsWith(sub)
			out := ""
			if i := slices.Index(args, "-o"); i >= 0 && i+1 < len(args) && c.code == 0 {
				out = args[i+1]
			}
			var r childRun
			for i := 0; i < b.N; i++ {
				if out != "" {
					b.StopTimer()
					os.RemoveAll(out)
					b.StartTimer()
				}
				if r = runChild(b, dir, args, c.stdin, c.env...); r.code != c.code {
					b.Fatalf("exit code %d, want %d\nstderr: %.4000s", r.code, c.code, r.stderr)
				}
			}
			b.ReportMetric(float64(r.peak)/(1<<20), "peak-MB")
			b.ReportMetric(float64(r.allocated)/(1<<20), "alloc-MB")
			b.ReportMetric(float64(r.read)/(1<<20), "read-MB")
		})
	}
}

// boundsOr is the case's bounds, ordinaryBounds when it sets none.
func (c boundsCase) boundsOr() caseBounds {
	if c.bounds == (caseBounds{}) {
		return ordinaryBounds
	}
	return c.bounds
}

// boundsCases writes the cases' inputs into dir and starts the server
// they fetch from; it returns the cases.
func boundsCases(t testing.TB, dir string) []boundsCase {
	boundsInputs(t, dir)
	status := hugeStatusServer(t)
	hf := "HF_HOME=" + filepath.Join(dir, "hf")
	seq := func(from, to int, quote bool) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			if i > from {
				b.WriteByte(',')
			}
			if quote {
				fmt.Fprintf(&b, "%q", strconv.Itoa(i))
			} else {
				b.WriteString(strconv.Itoa(i))
			}
		}
		return b.String()
	}
	ctx20k, batch20k := seq(1, 20000, false), seq(1, 20000, false)
	planTooLarge := "--context, --batch: 19361 context lengths × 20000 batch sizes × 1 device engine, model and format groups make 387220000 configurations; at most 16777216 (2^24) are planned"
	return []boundsCase{
		// A. plan allocated contexts × batches at once (24.8 GB).
		{relCase: relCase{finding: "A", name: "plan 20,000 contexts × 20,000 batches", args: []string{"plan", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--context", ctx20k, "--batch", batch20k, "--tpot", "50ms"},
			code: 2, stderr: []string{planTooLarge}}},
		{relCase: relCase{finding: "A", name: "plan 20,000 × 20,000 as JSON", args: []string{"plan", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--context", ctx20k, "--batch", batch20k, "--tpot", "50ms", "--format", "json"},
			code: 2, stderr: []string{planTooLarge}}},
		{relCase: relCase{finding: "A", name: "plan 20,000 × 20,000 as CSV", args: []string{"plan", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--context", ctx20k, "--batch", batch20k, "--tpot", "50ms", "--format", "csv"},
			code: 2, stderr: []string{planTooLarge}}},
		{relCase: relCase{finding: "A", name: "plan 1,000 × 1,000 streams as CSV", args: []string{"plan", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--context", seq(1001, 2000, false), "--batch", seq(1, 1000, false), "--tpot", "50ms", "--format", "csv"},
			code: 0, stdout: []string{"rtx-4090,gpu,llama.cpp,llama-3.2-1b,q4_k_m,f16,", ",2000,1000,512,128,"}}},
		{relCase: relCase{finding: "A", name: "a study of 12,000 contexts × 12,000 batches", args: []string{"report", "{dir}/sweep.toml", "-o", "{dir}/sweep-report"},
			code: 1, stderr: []string{"sweep.toml:5: workload: 12000 context lengths × 12000 batch sizes make more configurations than a report plans, 4194304 (2^22)"}}},
		// B. Deep TOML: the decoder's memory grew with the square of the depth.
		{relCase: relCase{finding: "B", name: "inline tables 5,000 deep", args: []string{"show", "model", "{dir}/nested.toml"},
			code: 1, stderr: []string{"nested.toml:12: a key 9 deep (its table header, its dotted parts and the inline tables and arrays around it), more than the limit of 8"}}},
		{relCase: relCase{finding: "B", name: "a dotted header of 40,000 parts", args: []string{"show", "model", "{dir}/dotted.toml"},
			code: 1, stderr: []string{"dotted.toml:1: a key 40000 deep"}}},
		{relCase: relCase{finding: "B", name: "nesting on standard input", args: []string{"show", "model", "-"}, stdin: func() io.Reader { return strings.NewReader(nestedModel()) },
			code: 1, stderr: []string{"stdin:12: a key 9 deep"}}},
		{relCase: relCase{finding: "B", name: "nesting in a --profiles directory", args: []string{"--profiles", "{dir}/deep-profiles", "list", "models"},
			code: 1, stderr: []string{"deep-profiles/nested.toml:12: a key 9 deep"}}},
		{relCase: relCase{finding: "B", name: "nesting in a study", args: []string{"report", "{dir}/deep-study.toml", "-o", "{dir}/deep-report"},
			code: 1, stderr: []string{"deep-study.toml:6: a key 9 deep"}}},
		{relCase: relCase{finding: "B", name: "a TOML file past 256 KiB", args: []string{"show", "model", "{dir}/big.toml"},
			code: 1, stderr: []string{"big.toml: 307", "bytes, larger than 256 KiB, the limit for a TOML file"}}},
		// C. Decoding time grew with the square of the keys (15.8 s).
		{relCase: relCase{finding: "C", name: "8,000 unknown keys", args: []string{"show", "model", "{dir}/keys.toml"},
			code: 1, stderr: []string{`keys.toml:12: unknown key "k0"`, "keys.toml: … and 7980 more unknown keys"}, maxStderr: 4 << 10}},
		{relCase: relCase{finding: "C", name: "10,000 variants at the size limit", args: []string{"show", "hardware", "{dir}/variants.toml"},
			code: 0, stdout: []string{"my-board"}}},
		{relCase: relCase{finding: "C", name: "one directory given to --profiles 20 times", args: append(strings.Fields(strings.Repeat("--profiles {dir}/profiles ", 20)), "list", "models"),
			code: 0, stdout: []string{"user-model-199"}}},
		// D. The Hugging Face cache's refs.
		{relCase: relCase{finding: "D", name: "refs/main linked to /dev/zero", args: []string{"show", "model", "org/zero"},
			code: 1, stderr: []string{"refs/main: not a regular file"}}, env: []string{hf}},
		{relCase: relCase{finding: "D", name: "refs/main a FIFO", args: []string{"show", "model", "org/fifo"},
			code: 1, stderr: []string{"refs/main: not a regular file"}}, env: []string{hf}},
		{relCase: relCase{finding: "D", name: "refs/main escaping the cache", args: []string{"show", "model", "org/escape"},
			code: 1, stderr: []string{`refs/main holds "../../../outside", not a commit hash`}, never: []string{"hidden_size"}}, env: []string{hf}},
		// G. Local split sets.
		{relCase: relCase{finding: "G", name: "8 parts of 384 MiB headers, the ninth missing", args: []string{"show", "model", "{dir}/split/big-00001-of-00009.gguf"},
			code: 1, stderr: []string{"split part big-00009-of-00009.gguf is missing or not a regular file: every one of the 9 parts is needed"}}},
		{relCase: relCase{finding: "G", name: "2 parts of 384 MiB headers", args: []string{"show", "model", "{dir}/split/two-00001-of-00002.gguf"},
			code: 1, stderr: []string{"the headers take more than 512 MiB over all parts, the limit for a local model"}}},
		// K. --force trusted a forgeable marker.
		{relCase: relCase{finding: "K", name: "a forged .roofline listing precious.txt", args: []string{"report", "{dir}/tiny-study.toml", "-o", "{dir}/forged", "--force"},
			code: 2, stderr: []string{"-o {dir}/forged: holds files that are not as roofline wrote them (precious.txt)"}}},
		{relCase: relCase{finding: "K", name: "a user's .DIR.partial-* without a marker", args: []string{"report", "{dir}/tiny-study.toml", "-o", "{dir}/out"},
			code: 0, stdout: []string{"wrote {dir}/out"}, never: []string{"removed"}}},
		// N. Unbounded echo in errors.
		{relCase: relCase{finding: "N", name: "a 100,000-digit rate", args: []string{"compare", "{dir}/digits.csv", "--hardware", "rtx-4090"},
			code: 1, stderr: []string{`digits.csv:2: tokens_per_s = "99999`, "…[99", "bytes]…"}, maxStderr: 4 << 10}},
		{relCase: relCase{finding: "N", name: "a 1 MiB HTTP status line", args: []string{"show", "model", status + "/m.gguf"},
			code: 1, stderr: []string{"HTTP 418 AAAA", "more bytes]"}, maxStderr: 4 << 10}},
		{relCase: relCase{finding: "N", name: "5,000 GGUF files in a cached snapshot", args: []string{"show", "model", "org/ggufs"},
			code: 1, stderr: []string{"org/ggufs holds 5000 GGUF files and none is Q4_K_M", "and 4988 more)"}, maxStderr: 4 << 10}, env: []string{hf}},
		{relCase: relCase{finding: "N", name: "one figure listed 2,000 times", args: []string{"report", "{dir}/figures.toml", "-o", "{dir}/figures-report"},
			code: 1, stderr: []string{"figures.toml:4: figures: plan listed twice\n(1998 repeated errors left out)"}, maxStderr: 4 << 10}},
		// R. The largest documented inputs under ulimit -v 2.25 GiB, and
		// a limit too tight for them: exit 70, said so. Under 2 GiB the
		// 131,072-run compare passed by one to three of the heap's 64 MiB
		// mappings: the Go runtime reserves 1.1 GiB at start and never
		// unmaps its heap, so the child's address space peaked at 1,756 to
		// 1,885 MiB in six runs (the chat at 1,748) against memlimit's
		// exit at 1,952 (then 96 MiB below the limit), as the collector's
		// timing left the heap; under a machine's heavy load it crossed, and
		// the case failed with exit 70. The room is the case's, not
		// roofline's: peak memory is still bounded (documentedBounds).
		// Under 1.5 GiB the watchdog must beat the runtime to the limit:
		// it ends the process two heap arenas and 32 MiB below it
		// (memlimit.asMargin; one arena and 32 MiB let the runtime die
		// first, exit 2, under a load of 9–12).
		{relCase: relCase{finding: "R", name: "a 131,072-run file as JSON under ulimit -v 2.25 GiB", args: []string{"compare", "{dir}/runs.csv", "--hardware", "rtx-4090", "--format", "json"},
			code: 0, stdout: []string{`"source": "{dir}/runs.csv:131073"`}}, env: []string{childASEnv + "=" + strconv.Itoa(9<<28)}, bounds: documentedBounds},
		{relCase: relCase{finding: "R", name: "chat --turns 100000 as JSON under ulimit -v 2.25 GiB", args: []string{"chat", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "--turns", "100000", "--format", "json"},
			code: 0, stdout: []string{`"turn": 100000`}}, env: []string{childASEnv + "=" + strconv.Itoa(9<<28)}, bounds: documentedBounds},
		{relCase: relCase{finding: "R", name: "a 131,072-run file under ulimit -v 1.5 GiB", args: []string{"compare", "{dir}/runs.csv", "--hardware", "rtx-4090", "--format", "json"},
			code: 70, stderr: []string{"roofline: internal error, please report it with the command that caused it: out of memory:", ", near the limit of 1536 MiB set by ulimit -v (RLIMIT_AS)"}},
			env: []string{childASEnv + "=" + strconv.Itoa(3<<29)}, bounds: documentedBounds},
	}
}

// J. Eight plots writing one new file at once: one writes it, the others
// say another writer won, with exit code 2 (all said "wrote").
func TestReliabilityConcurrentWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("runs eight child processes")
	}
	if os.Getenv(childArgsEnv) != "" {
		return
	}
	dir := t.TempDir()
	type result struct {
		stdout, stderr string
		code           int
	}
	results := make([]result, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := runChild(t, dir, []string{"plot", "tpot-context", "--hw", "rtx-4090", "-m", "llama-3.2-1b", "-o", "new.svg"}, nil)
			results[i] = result{r.stdout, r.stderr, r.code}
		}()
	}
	wg.Wait()
	wrote := 0
	for _, r := range results {
		switch {
		case r.code == 0 && strings.Contains(r.stdout, "wrote new.svg"):
			wrote++
		case r.code == 2 && (strings.Contains(r.stderr, "new.svg: was created by another writer while roofline wrote it") || strings.Contains(r.stderr, "new.svg: exists; --force replaces it")):
		default:
			t.Errorf("exit %d: %s%s", r.code, r.stdout, r.stderr)
		}
	}
	if wrote != 1 {
		t.Errorf("%d plots said they wrote new.svg, want 1", wrote)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want new.svg alone", len(entries))
	}
}

const nestedDepth = 5000

// nestedModel is a model profile with one value 5,000 inline tables deep.
func nestedModel() string {
	return fmt.Sprintf(tinyModelTOML, "nested") + "y = " + strings.Repeat("{a=", nestedDepth) + "1" + strings.Repeat("}", nestedDepth) + "\n"
}

// boundsInputs writes every file the cases read into dir.
func boundsInputs(t testing.TB, dir string) {
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
	tiny := func(name string) string { return fmt.Sprintf(tinyModelTOML, name) }
	study := func(extra string) string {
		return "title = \"t\"\ndevices = [\"rtx-4090\"]\nmodels = [\"llama-3.2-1b\"]\n" + extra
	}

	// A.
	var ctx, batch strings.Builder
	for i := 1; i <= 12000; i++ {
		if i > 1 {
			ctx.WriteByte(',')
			batch.WriteByte(',')
		}
		fmt.Fprintf(&ctx, "%q", strconv.Itoa(1000+i))
		batch.WriteString(strconv.Itoa(i))
	}
	write("sweep.toml", study("[workload]\ncontexts = ["+ctx.String()+"]\nbatches = ["+batch.String()+"]\n"))

	// B.
	write("nested.toml", nestedModel())
	write("deep-profiles/nested.toml", nestedModel())
	write("dotted.toml", "["+strings.Repeat("a.", 39999)+"a]\n")
	write("deep-study.toml", study("figures = []\n[workload]\nprompt = {"+strings.Repeat("a={", 10)+strings.Repeat("}", 10)+"}\n"))
	write("big.toml", tiny("big")+"# "+strings.Repeat("x", 300<<10)+"\n")

	// C.
	var keys strings.Builder
	keys.WriteString(tiny("keys"))
	for i := 0; i < 8000; i++ {
		fmt.Fprintf(&keys, "k%d = 1\n", i)
	}
	write("keys.toml", keys.String())
	board, err := os.ReadFile("../../profiles/testdata/board.good.toml")
	if err != nil {
		t.Fatal(err)
	}
	var variants strings.Builder
	variants.Write(board[:strings.Index(string(board), "[[variant]]")])
	for i := 0; variants.Len() < 250<<10; i++ {
		fmt.Fprintf(&variants, "[[variant]]\nname = \"v%d\"\n", i)
	}
	write("variants.toml", variants.String())
	for i := 0; i < 200; i++ {
		write(fmt.Sprintf("profiles/models/m%d.toml", i), tiny(fmt.Sprintf("user-model-%d", i)))
	}

	// D and N: a Hugging Face cache.
	hub := filepath.Join(dir, "hf", "hub")
	for _, repo := range []string{"zero", "fifo", "escape", "ggufs"} {
		os.MkdirAll(filepath.Join(hub, "models--org--"+repo, "refs"), 0o755)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(hub, "models--org--zero", "refs", "main")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(hub, "models--org--fifo", "refs", "main"), 0o600); err != nil {
		t.Fatal(err)
	}
	write("hf/hub/models--org--escape/refs/main", "../../../outside")
	write("hf/outside/config.json", `{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":64,"vocab_size":128,"max_position_embeddings":4096}`)
	const hash = "0123456789abcdef0123456789abcdef01234567"
	write("hf/hub/models--org--ggufs/refs/main", hash)
	for i := 0; i < 5000; i++ {
		write(fmt.Sprintf("hf/hub/models--org--ggufs/snapshots/%s/m-%04d.gguf", hash, i), "")
	}

	// G: split parts of 384 MiB headers (three arrays of 2^24 uint64),
	// sparse: written as a few bytes and holes.
	part := func(name string, i, n int) {
		p := filepath.Join(dir, "split", name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var b []byte
		b = append(b, "GGUF"...)
		b = binary.LittleEndian.AppendUint32(b, 3)
		b = binary.LittleEndian.AppendUint64(b, 0)
		b = binary.LittleEndian.AppendUint64(b, 5)
		for _, kv := range []struct {
			k string
			v uint32
		}{{"split.no", uint32(i)}, {"split.count", uint32(n)}} {
			b = binary.LittleEndian.AppendUint64(b, uint64(len(kv.k)))
			b = append(b, kv.k...)
			b = binary.LittleEndian.AppendUint32(b, 4)
			b = binary.LittleEndian.AppendUint32(b, kv.v)
		}
		f.Write(b)
		for _, k := range "xyz" {
			var a []byte
			a = binary.LittleEndian.AppendUint64(a, 1)
			a = append(a, byte(k))
			a = binary.LittleEndian.AppendUint32(a, 9)  // an array
			a = binary.LittleEndian.AppendUint32(a, 10) // of uint64
			a = binary.LittleEndian.AppendUint64(a, 1<<24)
			f.Write(a)
			f.Seek(8<<24, io.SeekCurrent)
		}
		off, _ := f.Seek(0, io.SeekCurrent)
		f.Truncate(off)
	}
	for i := 0; i < 8; i++ {
		part(fmt.Sprintf("big-%05d-of-00009.gguf", i+1), i, 9)
	}
	for i := 0; i < 2; i++ {
		part(fmt.Sprintf("two-%05d-of-00002.gguf", i+1), i, 2)
	}

	// K.
	write("tiny-study.toml", study("figures = []\n"))
	write("forged/precious.txt", "years of work")
	write("forged/.roofline", `{"files":["precious.txt"]}`)
	write(".out.partial-mine/notes.txt", "mine")
	old := time.Now().Add(-3 * time.Hour)
	os.Chtimes(filepath.Join(dir, ".out.partial-mine"), old, old)

	// N.
	write("digits.csv", "test,tokens_per_s,model,weights,prompt\nprefill,"+strings.Repeat("9", 100000)+",llama-3.2-1b,q4_0,512\n")
	write("figures.toml", study("figures = ["+strings.Repeat(`"plan", `, 2000)+"]\n"))

	// R: limits.Runs rows.
	var runs strings.Builder
	runs.WriteString("test,tokens_per_s,model,weights,prompt,gen\n")
	for i := 0; i < 1<<17; i++ {
		if i%2 == 0 {
			fmt.Fprintf(&runs, "prefill,%d,llama-3.2-1b,q4_0,%d,0\n", 1000+i%500, 128+i%512)
		} else {
			fmt.Fprintf(&runs, "decode,%d,llama-3.2-1b,q4_0,0,%d\n", 100+i%50, 64+i%64)
		}
	}
	write("runs.csv", runs.String())
}

// hugeStatusServer answers every request with a 1 MiB status line; it
// returns its URL.
func hugeStatusServer(t testing.TB) string {
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
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				fmt.Fprintf(c, "HTTP/1.1 418 %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", strings.Repeat("A", 1<<20))
			}()
		}
	}()
	return "http://" + l.Addr().String()
}
