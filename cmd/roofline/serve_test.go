package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/render"
)

// serveExamples are docs/serve.md's worked examples.
var serveExamples = []struct {
	heading, text string
	args          []string
}{
	{"A voice assistant on an RK3588 NPU (RKLLM: one request at a time)",
		"Qwen2.5-1.5B at w8a8 under RKLLM, which answers one request at a time: the others wait in arrival order. Short spoken questions (50–300 tokens) and answers (20–150), 500 of them arriving at random three a minute, then the search for the largest rate whose p99 TTFT stays under 2 s and p99 TPOT under 200 ms (alone, a 300-token question already takes 1.2 s to its first word on a board with pinned clocks: a 1 s p99 target is out of reach). With one request at a time, a request that arrives while another is answered waits for that whole answer, several seconds: the median TTFT barely moves with the rate, but the p99 meets its target only while fewer than one request in a hundred arrives during another's answer. Tail latency, not the mean, sets the rate.",
		[]string{"serve", "--model", "qwen2.5-1.5b", "--hardware", "rk3588", "--engine", "npu", "--rate", "0.05", "--requests", "500",
			"--prompt", "uniform:50:300", "--output-tokens", "uniform:20:150", "--ttft", "2s", "--max-rate"}},
	{"A household server on a Jetson Orin Nano Super (llama.cpp server slots)",
		"Llama-3.2-3B at q4_k_m under llama.cpp's server: 4 slots (--parallel auto) sharing one unified context, steps of -b 2048 tokens run as -ub 512 passes. Log-normal chat lengths, a 200-token system prompt every request shares (the slots' prompt cache reuses it), and the largest rate meeting p99 TTFT 2 s and TPOT 200 ms.",
		[]string{"serve", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m", "--rate", "0.3", "--requests", "500",
			"--prompt", "lognormal:600:300", "--output-tokens", "lognormal:150:80", "--shared-prefix", "200", "--ttft", "2s", "--max-rate"}},
	{"A chat service on an HGX H100 (vLLM, tensor parallel 8)",
		"Llama-3.1-70B in bf16 does not fit one H100 (serve says so, and that two would hold it). On an HGX H100 board vLLM splits every layer over its 8 GPUs (--tensor-parallel-size 8): each holds an eighth of the weights and of every token's cache, runs each step's eighth of the work at once with the others, and joins them by two all-reduces a layer over NVLink 4. Chat lengths at 4 requests a second, then the search.",
		[]string{"serve", "--model", "llama-3.1-70b", "--hardware", "hgx-h100", "--runtime", "vllm", "--rate", "4", "--requests", "1000",
			"--prompt", "lognormal:1000:600", "--output-tokens", "lognormal:250:200", "--max-rate"}},
	{"A 70B model on one RTX 4090 and system RAM (llama.cpp offload)",
		"Llama-3.1-70B at q4_k_m (about 42 GB) does not fit a 24 GB RTX 4090: llama.cpp's --fit keeps the output layer and the last layers on the GPU and the rest in the desktop's DDR5, run by its CPU. Every pass goes through the host's layers and then the GPU's; a prompt's passes of 512 tokens run the host layers on the GPU, their weights and KV cache crossing PCIe. A single user's pace, a question every two minutes, then the search for the largest rate meeting p99 TTFT 20 s and TPOT 1 s. plan --rate searches this same server for an offloaded configuration, at the --gpu-layers its plan places (docs/planning.md, \"The rate an offloaded server sustains\").",
		[]string{"serve", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--weights", "q4_k_m", "--rate", "0.008", "--requests", "300",
			"--prompt", "lognormal:800:400", "--output-tokens", "lognormal:200:120", "--ttft", "20s", "--tpot", "1s", "--max-rate"}},
	{"A team's vLLM server on an H100",
		"Llama-3.1-8B in bf16 under vLLM's v1 scheduler on an H100 SXM: its large-GPU defaults (1024 sequences, 8192 tokens a step), chunked prefill, 16-token blocks, preemption by recompute. ShareGPT-like lengths at 8 requests a second, then the search.",
		[]string{"serve", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--runtime", "vllm", "--rate", "8", "--requests", "2000",
			"--prompt", "lognormal:1000:600", "--output-tokens", "lognormal:250:200", "--max-rate"}},
}

// TestServeDoc keeps docs/serve.md's worked examples in step with the
// code (-update rewrites it): the page doubles as serve's golden test.
func TestServeDoc(t *testing.T) {
	var b strings.Builder
	b.WriteString(serveDocHead)
	for _, ex := range serveExamples {
		out, errOut, code := runCLI(ex.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", ex.args, code, errOut)
		}
		b.WriteString("\n## " + ex.heading + "\n\n" + ex.text + "\n\n```\n$ roofline " + strings.Join(quoteArgs(ex.args), " ") + "\n" + out + "```\n")
	}
	b.WriteString(serveDocTail)
	const path = "../../docs/serve.md"
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if old, _ := os.ReadFile(path); string(old) != b.String() {
		t.Errorf("docs/serve.md is stale: go test ./cmd/roofline -run TestServeDoc -update")
	}
}

// TestServeJSON holds serve's JSON to its own arithmetic: every request
// completes, throughput is the output tokens over the duration, the
// max-rate answer is the fastest rate that meets and the next one tried
// misses, and the interval's ends bracket the expected p50.
func TestServeJSON(t *testing.T) {
	out, errOut, code := runCLI("serve", "--model", "llama-3.2-1b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m",
		"--rate", "1", "--requests", "300", "--output-tokens", "64", "--max-rate", "--search-runs", "12", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var j render.ServeJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	r := j.Result
	if r.Requests != 300 || r.Completed != 300 || r.Failed != 0 {
		t.Fatalf("result %+v", r)
	}
	if want := 300 * 64 / r.DurationS; !near(r.Throughput, want, 1e-9) {
		t.Errorf("throughput %v, 300 × 64 / %v s = %v", r.Throughput, r.DurationS, want)
	}
	if j.Interval == nil || !(*j.Interval.Fast.TTFT.P50 <= *r.TTFT.P50 && *r.TTFT.P50 <= *j.Interval.Slow.TTFT.P50) {
		t.Errorf("interval %+v around p50 TTFT %v", j.Interval, *r.TTFT.P50)
	}
	m := j.MaxRate
	if m == nil || m.MaxRate <= 0 || len(m.Points) == 0 || len(m.Points) > 12 {
		t.Fatalf("max rate %+v", m)
	}
	// The search ran at the interval's ends too: slower steps sustain a
	// lower rate, faster ones a higher.
	if m.Fast == nil || m.Slow == nil || m.Level != 0.8 || !(*m.Slow <= m.MaxRate && m.MaxRate <= *m.Fast) {
		t.Errorf("max rate's range: slow %v, expected %v, fast %v at level %v", m.Slow, m.MaxRate, m.Fast, m.Level)
	}
	for _, p := range m.Points {
		switch {
		case p.Rate <= m.MaxRate && !p.Meets && p.Rate == m.MaxRate:
			t.Errorf("the answer %v misses: %+v", m.MaxRate, p)
		case p.Rate > m.MaxRate && p.Meets:
			t.Errorf("rate %v above the answer %v meets", p.Rate, m.MaxRate)
		case p.Meets && (*p.TTFT.P99 > j.TTFTTarget || *p.TPOT.P99 > j.TPOTTarget):
			t.Errorf("rate %v meets with p99 TTFT %v, TPOT %v", p.Rate, *p.TTFT.P99, *p.TPOT.P99)
		}
	}
	// One request alone is predict's.
	ttft, e2e := predictTimes(t, "--model", "llama-3.2-1b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m",
		"--prompt", "512", "--output-tokens", "64", "--ubatch", "512")
	if !near(j.Single.TTFT, ttft, 1e-12) || !near(j.Single.E2E, e2e, 1e-12) {
		t.Errorf("single request %+v, predict TTFT %v E2E %v", j.Single, ttft, e2e)
	}
}

// predictTimes is predict's TTFT and E2E for its flags.
func predictTimes(t *testing.T, flags ...string) (ttft, e2e float64) {
	t.Helper()
	out, errOut, code := runCLI(append(append([]string{"predict"}, flags...), "--format", "json")...)
	if code != 0 {
		t.Fatalf("predict %v: exit %d: %s", flags, code, errOut)
	}
	var p struct {
		TTFT float64 `json:"ttft_s"`
		E2E  float64 `json:"e2e_s"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	return p.TTFT, p.E2E
}

// TestServeTensorParallel: serve on a tensor-parallel group is the
// group's prediction for a lone request (predict --tp on the same
// devices), its JSON says the group, and a model one device does not hold
// is refused with the fewest devices that would.
func TestServeTensorParallel(t *testing.T) {
	base := []string{"--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--runtime", "vllm", "--prompt", "1000", "--output-tokens", "100"}
	out, errOut, code := runCLI(append(append([]string{"serve"}, base...), "--tp", "4", "--rate", "1", "--requests", "50", "--format", "json")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	var j render.ServeJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if d := j.Devices; d == nil || d.Count != 4 || d.TensorParallel != 4 || d.Link != "nvlink4" || !(d.LinkTPOT > 0) {
		t.Fatalf("devices %+v", d)
	}
	ttft, e2e := predictTimes(t, append(base, "--tp", "4", "--ubatch", "8192")...)
	if !near(j.Single.TTFT, ttft, 1e-12) || !near(j.Single.E2E, e2e, 1e-12) {
		t.Errorf("single request %+v, predict --tp 4 TTFT %v E2E %v", j.Single, ttft, e2e)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--rate", "1"}, 1, "roofline: hint: 2 devices like it would hold it: --devices 2 --tp 2"},
		{[]string{"--rate", "1", "--tp", "3"}, 2, "--tp must divide the model's 64 attention heads"},
		{[]string{"--rate", "1", "--tp", "0"}, 2, "--tp must be at least 1"},
		{[]string{"--rate", "1", "--pp", "0"}, 2, "--pp must be at least 1"},
		// A group larger than the link joins: the hint offers --pp.
		{[]string{"--rate", "1", "--tp", "16"}, 2, "roofline: hint: --tp 8 (with --pp for more devices), or name a link that joins 16 with --link"},
		{[]string{"--rate", "1", "--hardware", "rtx-3090", "--weights", "awq-int4", "--tp", "4", "--link", "nvlink3-bridge-x4"}, 2, "roofline: hint: --tp 2 (with --pp for more devices), or a link that joins 4 devices, such as pcie4-x16"},
		// The fewest H100 SXM that hold DeepSeek-V3 (fp8, 627 GiB) are two
		// HGX boards, a pipeline serve steps: told as its flags.
		{[]string{"--rate", "1", "--model", "deepseek-v3"}, 1, "roofline: hint: 16 devices like it would hold it as 2 pipeline stages: --devices 16 --tp 8 --pp 2"},
		// Boards over a network (llama.cpp RPC) likewise.
		{[]string{"--rate", "1", "--hardware", "raspberry-pi-5-8gb", "--runtime", "llama.cpp"}, 1, "roofline: hint: 8 devices like it would hold it as boards running their layers in turn over the network (RPC): --devices 8 --link 1gbe"},
	} {
		_, errOut, code := runCLI(append(append([]string{"serve"}, base...), c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want %d, %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// TestHostUnusedIsSaid: --host and --link describe an offload's host; on
// a model the device holds whole nothing is offloaded, and predict and
// serve say so rather than drop the flags in silence (Llama-3.2-1B fits
// a 24 GB RTX 4090 many times over). The reason is the one that holds:
// vLLM offloads nothing to a host at all, so it is not told which flags
// would offload; an M4 Pro's memory is unified, and it offloads only
// when asked.
func TestHostUnusedIsSaid(t *testing.T) {
	base := []string{"--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--host", "desktop-ddr5", "--link", "pcie4-x8"}
	for _, args := range [][]string{append([]string{"predict"}, base...), append([]string{"serve", "--rate", "1", "--requests", "5"}, base...)} {
		out, errOut, code := runCLI(args...)
		if code != 0 || !strings.Contains(out, "--host desktop-ddr5 and --link pcie4-x8 not used: nothing is offloaded to the host (the model fits rtx-4090's memory; --gpu-layers or --n-cpu-moe offload)") {
			t.Errorf("%v: exit %d, %s%s", args, code, errOut, out)
		}
	}
	for _, c := range []struct{ args, want []string }{
		{[]string{"--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--runtime", "vllm", "--host", "desktop-ddr5"},
			[]string{"--host desktop-ddr5 not used: nothing is offloaded to the host (vllm does not offload layers to a host)"}},
		{[]string{"--model", "llama-3.1-70b", "--weights", "bf16", "--hardware", "apple-m4-pro", "--host", "apple-m4-pro"},
			[]string{"--host apple-m4-pro not used: nothing is offloaded to the host (apple-m4-pro's memory is unified: it offloads only when asked; --gpu-layers or --n-cpu-moe offload)"}},
	} {
		out, errOut, _ := runCLI(append([]string{"predict"}, c.args...)...)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: want %q in\n%s%s", c.args, w, errOut, out)
			}
		}
	}
}

// TestNCPUMoEUnderCPUMoEIsSaid: --cpu-moe keeps every layer's routed
// experts in host memory, so --n-cpu-moe's first N layers are among them:
// the count given beside it is said unused, not dropped in silence
// (gpt-oss-120b on an RTX 4090 over a DDR5 host).
func TestNCPUMoEUnderCPUMoEIsSaid(t *testing.T) {
	out, errOut, code := runCLI("predict", "--model", "gpt-oss-120b", "--hardware", "rtx-4090", "--cpu-moe", "--n-cpu-moe", "4")
	if code != 0 || !strings.Contains(out, "--n-cpu-moe 4 not used: --cpu-moe keeps the routed experts of every layer in host memory") {
		t.Errorf("exit %d, %s%s", code, errOut, out)
	}
	out, _, _ = runCLI("predict", "--model", "gpt-oss-120b", "--hardware", "rtx-4090", "--n-cpu-moe", "4")
	if strings.Contains(out, "not used") {
		t.Errorf("--n-cpu-moe alone is said unused:\n%s", out)
	}
}

// TestHostAndLinkUnusedAreSaid: --link under a unified device's offload
// crosses no link, and --host beside --devices offloads nothing; both were
// dropped in silence. A system's own link (hgx-h100's NVLink) is not a
// flag given, and was said unused as if it were.
func TestHostAndLinkUnusedAreSaid(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "" : no note says a flag is unused
	}{
		{[]string{"predict", "--model", "llama-3.1-8b", "--hardware", "apple-m4-pro", "--gpu-layers", "10", "--link", "pcie4-x16"}, "--link pcie4-x16 not used: nothing crosses a link to it"},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--devices", "2", "--host", "desktop-ddr5"}, "--host desktop-ddr5 not used: --devices, --tp and --pp spread the model over devices like rtx-4090"},
		{[]string{"serve", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--tp", "2", "--host", "desktop-ddr5", "--rate", "1", "--requests", "5"}, "--host desktop-ddr5 not used"},
		{[]string{"predict", "--model", "llama-3.1-8b", "--hardware", "hgx-h100", "--devices", "1"}, ""},
	} {
		out, errOut, code := runCLI(c.args...)
		if code != 0 || c.want != "" && !strings.Contains(out, c.want) || c.want == "" && strings.Contains(out, "not used") {
			t.Errorf("%v: exit %d, want %q:\n%s%s", c.args, code, c.want, errOut, out)
		}
	}
}

// TestPlanHostLinkIsTheBus: plan's --link joins its devices to one
// another; an RTX 4090 it cannot be the bus of (NVLink, a network)
// offloads over its own PCIe 4.0 x16, as without --link. It offloaded
// over NVLink at 370 GB/s, and over Gigabit Ethernet at 118 MB/s. A
// PCIe link no faster than the card's own is its bus.
func TestPlanHostLinkIsTheBus(t *testing.T) {
	base := []string{"plan", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--weights", "q4_k_m", "--context", "4096", "--tpot", "1s", "--format", "json"}
	want, errOut, code := runCLI(base...)
	if code != 0 || !strings.Contains(want, "offload") {
		t.Fatalf("exit %d, no offload: %s%s", code, errOut, want)
	}
	// The plan is the same but for its notes, which say a link set aside.
	withoutNotes := func(s string) (string, []string) {
		var j map[string]any
		if err := json.Unmarshal([]byte(s), &j); err != nil {
			t.Fatal(err)
		}
		var notes []string
		ns, _ := j["notes"].([]any) // none before plan had notes
		for _, n := range ns {
			notes = append(notes, n.(string))
		}
		delete(j, "notes")
		b, _ := json.Marshal(j)
		return string(b), notes
	}
	want, _ = withoutNotes(want)
	for _, c := range []struct{ link, aside string }{
		{"nvlink4", "rtx-4090: --link nvlink4 joins GPUs to one another, not that slot: its offload crosses rtx-4090's own bus, pcie4-x16"},
		{"1gbe", "rtx-4090: --link 1gbe is a network between computers, not that slot: its offload crosses rtx-4090's own bus, pcie4-x16"},
		{"pcie4-x16", ""}, {"pcie5-x16", ""},
	} {
		out, errOut, code := runCLI(append(base, "--link", c.link)...)
		got, notes := withoutNotes(out)
		if code != 0 || got != want {
			t.Errorf("--link %s: exit %d, the plan differs from the card's own bus:\n%s%s", c.link, code, errOut, got)
		}
		if said := slices.Contains(notes, c.aside); c.aside != "" && !said || c.aside == "" && strings.Contains(strings.Join(notes, "\n"), "not that slot") {
			t.Errorf("--link %s: notes %q, want %q", c.link, notes, c.aside)
		}
	}
	if got, _, _ := runCLI(append(base, "--link", "pcie4-x4")...); got == want {
		t.Errorf("--link pcie4-x4: the plan is the x16 bus's")
	}
	// A PCIe link the card's bus is not: it runs as what both ends train
	// to. An RTX 4060 Ti's PCIe 4.0 x8 in a PCIe 3.0 x16 slot runs as
	// PCIe 3.0 x8, 6 GB/s reached against the card's own 12.5: its
	// prefill, whose host layers' weights cross the bus, is slower. It was
	// priced on the card's own PCIe 4.0 x8, as if no --link were given.
	ti := []string{"plan", "--model", "llama-3.1-70b", "--hardware", "rtx-4060-ti", "--weights", "q4_k_m", "--context", "4096", "--tpot", "2s", "--format", "json"}
	ttft := func(args ...string) float64 {
		out, errOut, code := runCLI(append(ti, args...)...)
		var j struct {
			Best []struct {
				Split string  `json:"split"`
				TTFT  float64 `json:"ttft_s"`
			} `json:"best"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 || len(j.Best) != 1 || !strings.HasPrefix(j.Best[0].Split, "offload") {
			t.Fatalf("%v: exit %d, %v: %s%s", args, code, err, out, errOut)
		}
		return j.Best[0].TTFT
	}
	own, gen3, rate := ttft(), ttft("--link", "pcie3-x16"), ttft("--link", "6GB/s", "--link-latency", "43us")
	if !(gen3 > own*1.1) || math.Abs(gen3/rate-1) > 1e-9 {
		t.Errorf("rtx-4060-ti in a PCIe 3.0 x16 slot: TTFT %.4g s, on its own PCIe 4.0 x8 %.4g s, at 6 GB/s and 43 µs %.4g s; want the last, slower than the first", gen3, own, rate)
	}
}

// TestServeOffload: Llama-3.1-70B at q4_k_m on one RTX 4090 with the
// rest in a DDR5 desktop's RAM. A lone request (one user, one request:
// the mean is the request) takes what predict --gpu-layers 30 gives for
// it: TTFT and E2E equal; the JSON says the offload (30 of 81 layers as
// llama.cpp counts them). Flags that cannot combine are refused at their
// flag.
func TestServeOffload(t *testing.T) {
	base := []string{"--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--weights", "q4_k_m", "--prompt", "1000", "--output-tokens", "50", "--gpu-layers", "30"}
	out, errOut, code := runCLI(append(append([]string{"serve"}, base...), "--arrival", "closed", "--users", "1", "--requests", "1", "--format", "json")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	var j render.ServeJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if d := j.Devices; d == nil || !d.Offload || d.GPULayers != 30 || d.Layers != 81 || d.Link != "pcie4-x16" {
		t.Fatalf("devices %+v", d)
	}
	ttft, e2e := predictTimes(t, append(base, "--ubatch", "512")...)
	if r := j.Result; r.Completed != 1 || !near(*r.TTFT.Mean, ttft, 1e-9) || !near(*r.E2E.Mean, e2e, 1e-9) {
		t.Errorf("served alone: TTFT %v E2E %v; predict --gpu-layers 30 %v %v", *r.TTFT.Mean, *r.E2E.Mean, ttft, e2e)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--rate", "1", "--tp", "2"}, 2, "--gpu-layers, --cpu-moe and --n-cpu-moe place a model between one GPU and its host; they do not combine"},
		{[]string{"--rate", "1", "--runtime", "vllm", "--weights", "w4a16"}, 2, "--gpu-layers vllm does not offload layers or experts to the host"},
		{[]string{"--rate", "1", "--cpu-moe"}, 2, "llama-3.1-70b has no routed experts"},
		{[]string{"--rate", "1", "--gpu-layers", "-2"}, 2, "--gpu-layers must be at least 0, got -2"},
		// The flag the user gave is named, not --cpu-moe for --n-cpu-moe.
		{[]string{"--rate", "1", "--n-cpu-moe", "5"}, 2, "--n-cpu-moe llama-3.1-70b has no routed experts"},
		// A CPU engine is its own host: no GPU to hold layers (it was
		// taken as an "offload" from the Pi's CPU to the Pi's CPU, "10 of
		// 33 layers on the GPU").
		{[]string{"--rate", "1", "--hardware", "raspberry-pi-5-8gb"}, 2, "--gpu-layers places layers on a GPU, the rest on its host's CPU; raspberry-pi-5-8gb's cpu engine is a CPU"},
		{[]string{"--rate", "1", "--hardware", "rk3588", "--engine", "cpu", "--gpu-layers", "0", "--n-cpu-moe", "3"}, 2, "--gpu-layers places layers on a GPU"},
	} {
		_, errOut, code := runCLI(append(append([]string{"serve"}, base...), c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want %d, %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// TestServePipeline: serve steps a pipeline end to end. Two RTX 4090s
// under llama.cpp (its layer split) and two H100 SXM boards of 8 under
// vLLM (--tp 8 --pp 2 over ib-ndr) say they are stages, a lone request is
// predict's on the same devices (TTFT and E2E within 0.1 %: a prompt of
// one pass, decode steps of one sequence, each a trip through every stage
// and hop), and the max-rate search runs.
func TestServePipeline(t *testing.T) {
	for _, c := range []struct {
		name  string
		flags []string
		want  string
		// devices is the "devices:" line's account of the overlap:
		// llama.cpp's -ub passes, vLLM's micro-batches.
		devices string
	}{
		{"llama.cpp", []string{"--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--weights", "q4_k_m", "--devices", "2", "--prompt", "400", "--output-tokens", "50"}, "llama.cpp runs 2 devices as 2 pipeline stages: each step goes through the stages, a step's passes", "each a run of layers, a step's passes overlapping from stage to stage"},
		{"vllm", []string{"--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--runtime", "vllm", "--devices", "16", "--tp", "8", "--pp", "2", "--link", "ib-ndr", "--prompt", "1000", "--output-tokens", "50"}, "vllm runs 16 devices as 2 pipeline stages: each step goes through the stages, the running requests in up to 2 micro-batches in flight", "each a run of layers, a step's micro-batches overlapping from stage to stage"},
	} {
		out, errOut, code := runCLI(append(append([]string{"serve"}, c.flags...), "--rate", "0.01", "--requests", "20", "--max-rate", "--front-end", "off")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errOut)
		}
		if !strings.Contains(out, c.want) || !strings.Contains(out, c.devices) || !strings.Contains(out, "pipeline stages of tensor parallel") || !strings.Contains(out, "Max rate") {
			t.Errorf("%s: output lacks the pipeline or the search:\n%s", c.name, out)
		}
		js, errOut, code := runCLI(append(append([]string{"serve"}, c.flags...), "--rate", "0.001", "--requests", "3", "--front-end", "off", "--format", "json")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errOut)
		}
		var j render.ServeJSON
		if err := json.Unmarshal([]byte(js), &j); err != nil {
			t.Fatal(err)
		}
		ttft, e2e := predictTimes(t, c.flags...)
		if !near(j.Single.TTFT, ttft, 1e-12) || !near(j.Single.E2E, e2e, 1e-12) {
			t.Errorf("%s: single request %+v, predict TTFT %v E2E %v", c.name, j.Single, ttft, e2e)
		}
		if p50 := j.Result.TTFT.P50; p50 == nil || !near(*p50, ttft, 1e-3) {
			t.Errorf("%s: a lone request's TTFT %v served, %v predicted", c.name, p50, ttft)
		}
		if d := j.Devices; d == nil || d.PipelineStages != 2 {
			t.Errorf("%s: devices %+v, want 2 pipeline stages", c.name, d)
		}
	}
}

const serveDocHead = `# Serving under load

A model behind an endpoint does not see one request, nor a batch that
starts together. Requests arrive at random, of different lengths; each
waits in a queue, its prefill shares a step with other requests' decodes,
the KV cache fills and requests are preempted, and tail latency, not the
mean, decides whether a target is met. ` + "`roofline serve`" + ` answers "how many
requests per second at p99 TTFT ≤ 1 s?" for a device, a model and the
runtime that serves it. This page is generated by
` + "`go test ./cmd/roofline -run TestServeDoc -update`" + `, and doubles as serve's
golden test.

## How it works

A discrete-event simulation (package ` + "`serve`" + `) steps the runtime's scheduler
as its source code does, and prices every step with ` + "`sim.StepPricer`" + `,
the very code ` + "`predict`" + ` sums (docs/method.md §12): a step's matrix
products depend on its rows (prompt tokens of the chunks it holds plus one
decode token per running request) and the positions that get logits; its
attention on sums over the requests (each chunk at its own cached depth,
each decode at its own context). The decoding requests enter as running
sums the engine keeps as they join, advance and leave, so a step costs the
same with 4 or 1,000 requests and a million requests simulate in about a
second. At a vanishing rate each request's TTFT, TPOT and E2E are
` + "`predict`" + `'s for its lengths plus, for TTFT and E2E, what the server's
front end adds to a lone request (below; none with --front-end off), and
B equal requests arriving together are ` + "`predict --batch B`" + ` (tests). A server that runs one request at a
time (RKLLM, gpt-fast, any server at --max-seqs 1) needs no step loop at
all: a request's service is its own prefill and decode, each in closed
form (predict's sums), and the queue a single-server FIFO, so a million
RKLLM requests simulate in under a second as well.

A static-batch server (` + "`policy = \"static\"`" + `: TensorRT Edge-LLM, whose
` + "`llm_inference`" + ` runs its requests ` + "`batchSize`" + ` at a time, and
` + "`--policy static --max-seqs N`" + ` for any runtime) needs no step loop either.
When idle it waits for nothing extra: it takes the requests queued by then
(the next arrival if none is), up to max_seqs, pads their prompts to the
longest and prefills them as one pass, so every row's first token comes at
once; then it decodes all its rows in lockstep until the longest output
ends. A row that ends sooner keeps its place (NVIDIA's decoding loop runs
every row of the batch while any is unfinished), so its request's last
token comes at its own step (as a streaming server would give it;
` + "`llm_inference`" + ` itself writes a batch's answers when the batch ends) but
the next batch starts only when the batch's last row ends; a request
arriving meanwhile waits, rows to spare or not. A batch of B rows padded
to L tokens is priced as ` + "`predict`" + ` prices B
sequences of L tokens decoding together (sim.StepPricer.PrefillBatch,
DecodeBatch): two requests arriving together have the TPOT of a batch of 2
(` + "`serve/static_test.go`" + ` works four cases; a lone batch of B equal
requests lands where ` + "`predict --batch B`" + ` puts it, to 1e-9,
TestStaticBatchAgreesWithPredict). Requests are taken while the
batch's rows, each reserving the padded prompt and the longest output,
fit the KV pool. A static batch is simulated on one device or a
tensor-parallel group without a front end (an offload, pipeline stages or
` + "`--front-end`" + ` are refused naming ` + "`--policy`" + `). ` + "`predict --batch B`" + ` prices
the profile's static batch alike (docs/method.md, "Static batches"): B ≤
max_seqs as one batch in lockstep, more as batches one after another.

    roofline serve --model qwen3-4b --hardware jetson-agx-orin-64gb --runtime tensorrt-edge-llm \
      --weights w4a16 --rate 0.3 --prompt 200 --output-tokens 128 --max-rate --ttft 5s --tpot 100ms

sustains 0.982 requests/s within p99 TTFT 5 s (static batches of up to 4;
` + "`--policy fifo`" + `, one at a time, 0.148/s).

The scheduler is the runtime's, from its profile (` + "`[scheduler]`" + `, every
knob sourced; ` + "`roofline show runtime NAME`" + ` lists them), and every knob is a
flag:

| runtime | policy | requests | tokens a step | prompts | KV cache | when full |
|---|---|---|---|---|---|---|
| vLLM (and SGLang) | continuous batching, FCFS | max_num_seqs 256 (1024 on GPUs ≥ 70 GiB but A100s and the DGX Spark) | max_num_batched_tokens 2048 (8192) | chunked | 16-token blocks, prefix caching | preempt the newest, recompute it later |
| llama.cpp server | continuous batching of slots | --parallel 4 (auto) | -b 2048 in -ub 512 passes | chunked | cells sharing one -c context (--kv-unified), prompt cache | the request fails |
| TensorRT-LLM | in-flight batching | max_batch_size 2048 | max_num_tokens 8192 | whole (chunked context off) | 32-token blocks | reserve a request's whole cache on admission (GUARANTEED_NO_EVICT) |
| RKLLM, gpt-fast | one request at a time | 1 | the prediction's prefill chunk | — | one sequence | — |
| TensorRT Edge-LLM | static batches | maxBatchSize 4 | the prediction's prefill chunk, per row | whole, padded to the batch's longest | a linear cache, one row a request | reserved for the batch's rows |

A runtime whose profile states no scheduler (MLC, MLX) is simulated as
vLLM's defaults if it batches and FIFO if not, and the output says so. A
runtime that prefills each prompt in one pass (gpt-fast, TensorRT
Edge-LLM) takes passes of the longest prompt the workload sends, and its
activations are sized for that pass (at most the model's context): a
trace's longest row sent, a fixed length, else the largest of the run's
seeded draws, the same lengths at every rate of a search. A shape
without an upper end (normal, log-normal) is sized by what it draws, not
by the model's context: 1000 prompts of lognormal:500:300 reach 2219
tokens (its 99.9th percentile is 2377), where a pass of Llama-3.2-3B's
131072 tokens left an Orin Nano 8GB 706 MiB short under TensorRT
Edge-LLM. A note says what the passes were sized for (for Edge-LLM, the
maxInputLen its engine must be built with); ` + "`--ubatch N`" + ` sizes them for N
tokens instead. More requests of an unbounded shape draw longer prompts:
a refusal says the pass it sized.

Every step: each running decode gets one token (vLLM requires
max_num_batched_tokens ≥ max_num_seqs, so they always fit); the KV blocks
the step needs are allocated, preempting (or failing) the most recently
admitted requests when they run out; the prompts being prefilled get
chunks of what is left of the budget, in admission order; then waiting
requests are admitted while a place, the budget and the cache allow
(vLLM: not in a step that preempted). A step larger than a pass
(llama.cpp) is priced as its passes: the decodes first, then the prompt
tokens in order. A preempted request is prefilled again with what it
generated, as vLLM's recompute does; under vLLM's prefix cache (on by
default) its blocks stay cached in the free pool until other requests
take them: they join the free queue's tail, its last block first, and
pages are taken from the queue's head, so the request finds again the
full blocks of its prefix that the pages taken since its preemption
have not reached, prefills from there, and is taken back in only when
its next chunk fits beside them (vllm.toml's on_kv_full and
prefix_caching, [V15][V30]). On a pool of several groups (sliding
windows, below) the hit is whole while none of its pages has been taken
and lost after: which group's pages go first is not modelled.

**Sliding windows.** vLLM's hybrid KV cache manager (on by default in
the V1 engine; --disable-hybrid-kv-cache-manager, a KV connector, or a
platform other than CUDA and ROCm turns it off) keeps for a sliding-window
layer only the blocks its window reaches and frees the rest before each
step; full-attention layers keep every token. The layers are grouped by
kind into groups of as many layers as the kind with fewest has, and every
group takes blocks from one pool (vllm.toml's frees_window, [V28];
docs/method.md §12). gpt-oss (128-token windows on half its layers),
Gemma 2 (4096-token windows) and Gemma 3 (gemma-3-4b's 1024, gemma-3-1b's
512) therefore hold far less per request than a cache of every layer at
full length: gpt-oss-20b at 2000 tokens holds 125 + 8 blocks of 12
layers, not 125 of 24, and on an L4 at 60 % of its memory with
3000–5000-token prompts it runs 10.3 requests at once instead of 5.4 and
sustains 0.562 requests/s instead of 0.434 (TestFreedWindowsServeMore;
` + "`roofline serve --model gpt-oss-20b --hardware l4 --memory-share 0.6\n--rate 0.35 --prompt uniform:3000:5000 --output-tokens uniform:100:300\n--ttft 20s --max-rate`" + ` finds 0.556/s for 1000 requests).
The output's KV line says "blocks of 12 layers, a sliding layer's freed
once its window leaves them"; its token
count is the pool's blocks over the groups a token's block takes, as
vLLM logs "GPU KV cache size". A model without sliding windows, and every
other runtime, is priced as before.

Under vLLM a step's kernels are launched as its CUDA graphs allow
(vllm.toml's [graphs], sourced; docs/method.md §12): a decode-only step
of up to min(2 × max_num_seqs, 512) tokens replays a whole graph, as the
efficiency class is fitted; one that holds prompt tokens replays
piecewise graphs, attention launched between the pieces (15 µs a layer
more); a step of more tokens than the largest graph has none, every
kernel launched from the host (339 µs a layer more: 9.5 ms a step of a
28-layer model). The largest graph follows --max-seqs (at --max-seqs 8,
16 tokens), and serve says so. A 512-token prompt arriving beside running decodes
therefore makes a slow step, and the inter-token latency's tail shows
it.

vLLM schedules each step while the one before it runs (async scheduling,
on by default since early 2026; vllm.toml's ` + "`async_scheduling`" + `, [V26]: the
engine core keeps two steps in flight, ` + "`EngineCore.step_with_batch_queue`" + `,
and takes in the requests that arrived between scheduling them). A request
that reaches a busy engine therefore joins not the next step, already
scheduled, but the one after: under load its TTFT gains about a step,
while a request reaching an idle engine starts at once.
` + "`--async-scheduling off`" + ` (a study's ` + "`async_scheduling`" + `) simulates the releases before it.

On several devices (` + "`--tp N`" + `, ` + "`--devices N`" + `, or a system such as
` + "`hgx-h100`" + `) the server is a tensor-parallel group, as vLLM's
--tensor-parallel-size and distributed-llama run one: every device holds
its share of the weights and of each token's KV cache and runs each step's
share of the work at once with the others, so a step costs one device's
shard (` + "`sim.Split.Serving`" + `) plus the links' all-reduces, a fixed
latency and bytes per token (docs/method.md, "Several devices"), the very
time ` + "`predict --tp N`" + ` adds (tested: a lone request is its prediction, B
together its ` + "`--batch B`" + `). The KV pool is one device's, in tokens. A
model one device does not hold is refused with the fewest devices that
would.

A model one GPU does not hold under llama.cpp is offloaded as predict
offloads it (the same placement: ` + "`--gpu-layers`" + `/` + "`-ngl`" + `, ` + "`--cpu-moe`" + `,
` + "`--n-cpu-moe`" + `, ` + "`--host`" + `, else llama.cpp's --fit, placed for --max-seqs
sequences of the mean lengths): every pass runs the host's layers on its
CPU and the GPU's in turn, each stage at its engine's rates, plus the
activations' hops over the link (` + "`sim.Split.StepPricer`" + `); a prefill pass of
32 rows or more runs the host layers on the GPU, their weights and KV
cache crossing the link and their new K and V rows going down to the CPU
that writes them into the cache, as llama.cpp's op offload and ggml's
scheduler do (decided per pass, on the pass's own rows). Each memory
holds the KV cache of its own layers, so the pool is what the memory
that fills first leaves (tested: a lone request is ` + "`predict`" + `'s split
prediction). Its step-time interval is the
interval of its stages' classes, each weighted by its share of the mean
request's time run alone, the links' at the first device's
(` + "`sim.Split.Bounds`" + `, as predict weighs them), and its ends scale the
links' time as the stages' (a lone request's ends are predict's
interval, to 10⁻⁹; so for a pipeline and a tensor-parallel group too).
Pipeline stages (` + "`--pp`" + `, llama.cpp's layer split over
several GPUs, ` + "`--devices 16 --tp 8 --pp 2`" + ` over two HGX boards) and
RPC boards are stepped through their stages, every stage priced by the
pricer predict's stages are (` + "`sim.Split.StepPricer`" + `): a stage is busy
with a pass for its layers and the hop it sends the pass on (and its
layers' share of the tensor-parallel collectives), as predict's
pipeline rule counts them. How passes overlap on the stages is the
runtime's: llama.cpp's server runs one step at a time, its llama_decode
sending the step's passes of -ub tokens through the stages one after
another (pull request #6017), so a step is a trip for its first pass and
a slowest stage and its hop for each next (` + "`sim.Through`" + `, pass by pass);
vLLM keeps a micro-batch per stage in flight (its pipeline-parallel
virtual engines, V1's batch queue), each with its own step budget, so a
step in which every running request steps once is no shorter than a
micro-batch's trip, nor than the micro-batch holding the largest prompt
chunk's, nor than one slowest stage and hop per micro-batch
(` + "`sim.Round`" + `, the micro-batches taken as equal shares of the step),
and a lone request's prompt chunks follow each other through the stages
(V1 schedules a prefilling request's next chunk while the last is in
flight; with async scheduling, the default, from vLLM pull request
#38726 on, April 2026: the releases before it that ran async scheduling
with pipeline parallelism, 0.16 to 0.19 by date, serialized them,
docs/method.md §12), as predict's pipelined prefill prices them;
llama.cpp's RPC boards run no pipeline (one pass through every board
before the next). A lone request is predict's (tested to 10⁻⁹, a prompt
of several passes or chunks too: both price each at its own depth and
flow it through the stages by the same ` + "`sim.Through`" + `; docs/method.md
§12). Each stage's
memory holds its own layers' KV cache, the first to fill bounding the
pool. A model whose stages would hold unlike shares of its sliding and
global layers (Gemma 2) is refused, by serve and by ` + "`plan --rate`" + `,
which searches the other pipelines on the server serve steps.

## The front end

A server's engine is not all of it: vLLM's API server process takes each
request over HTTP, tokenizes it and hands it to the engine core process,
and turns the engine's tokens back into a stream (vLLM's design docs, "V1
process architecture"; one API server process by default). ` + "`serve`" + ` puts
it in front of the engine as one serial server with three figures:

- *latency*: time on the request's way to the engine that holds no
  serial server (hops between processes);
- *request*: serial work a request costs it as it arrives (parsing,
  tokenizing, input processing), taken in arrival order;
- *token*: serial work each streamed token costs it (detokenizing,
  sending). A step's tokens go first: vLLM's output handler runs on the
  same event loop and yields between slices of a step's outputs, so a
  request being taken in finishes that much later.

A lone request's TTFT and E2E gain latency + request + token and its TPOT
nothing; under load the front end queues requests and tokens, and its
work caps the rate at 1 / (request + token × output tokens). ` + "`predict`" + `
does not gain it: its efficiencies are fitted on runs of the engine alone
(offline and latency benchmarks, runs.csv), and a prediction of one
request is the engine's; serve reports the front end as its own line
("front end: …", JSON ` + "`front_end`" + `: its figures, what it adds to a lone
request, ` + "`light_load_s`" + `, and the share of the run it was busy). A
request's time in the front end counts in its queue delay (arrival to
first scheduled by the engine).

The figures are a runtime profile's ` + "`[front_end]`" + `, fitted (not typed in)
on the published serving runs of docs/accuracy.md ("Serving under load")
by ` + "`go test ./cmd/roofline -run TestServingFrontEnd -update`" + `: each source's
median TTFT at its lightest load less the simulated engine's gives
latency + request + token, and its saturation rate with every request
sent at once gives request + token × output. Three vLLM sources stand
behind vLLM's (latency 14.1 ms, request 4.89 ms, token 44 µs); the
interval's ends take each figure's spread over the fits that hold one
source out (latency 8.5–14.4 ms, request 4.9–10.5 ms, token 0–44 µs).
SGLang, an alias of the vLLM profile, shares it unmeasured. llama.cpp's
server, RKLLM, TensorRT-LLM and the rest have no published serving runs
with their settings: they get no front end (the note says so) rather than
vLLM's. ` + "`--front-end off`" + ` runs the engine alone, ` + "`--front-end 20ms,5ms,50us`" + `
sets one (serve, and plan's --rate search; a study's ` + "`[serve]`" + ` takes
` + "`front_end`" + `).

*Requests taken in together.* How a flood reaches vLLM's engine, from
its source: the engine core's busy loop drains every request its input
queue holds before each step (vllm/v1/engine/core.py
` + "`_process_input_queue`" + `), so the requests that reach it during a step join
the next one together; the API server tokenizes prompts through one
` + "`AsyncMicrobatchTokenizer`" + ` (vllm/utils/async_utils.py, the renderer's
` + "`get_async_tokenizer`" + `), which takes every prompt waiting for it, and those
arriving within 2 ms of the first (` + "`batch_wait_timeout_s`" + `), up to 32
(` + "`max_batch_size`" + `), in one call on one thread; and asyncio runs each ready
request's next stage in turn, so requests tokenized together go on
together. ` + "`--front-end LATENCY,REQUEST,TOKEN,BATCH`" + ` simulates it: the
requests waiting when the front end turns to intake, and those arriving
within 2 ms, up to BATCH, pass its serial work in turn and reach the
engine together when the last is through (a lone request is taken in
alone, as before). Whether that is how vLLM's serial time falls is not
published: it holds if the work before the tokenizer is short, and not if
each request's work before it is long (each then reaches the tokenizer
alone). On KVCACHED-H100's 500 requests at once, at the profile's pace,
batches of 32 give TPOT 4.1 ms against 5.1–5.9 ms measured (20.2 ms one
at a time), ITL p50 3.7 ms (4.4–4.8) and p99 34 ms (24–26), 91
requests/s (93–97); replayed with the same pace in groups of 4 or 8 the
engine alone gives TPOT 5.9 and 4.5 ms, ITL p99 19 and 23 ms. The
profile's front end still takes requests one at a time: held out by
source (docs/accuracy.md), the front end fitted without KVCACHED-H100
has no token work (one output length is left) and takes a request in
5 ms, a pace at which batches of 32 flood the engine (TPOT 12 ms, 137
requests/s against 93–97); over the four sources the p99s would go from
27.5 % to 33.2 % off (Poisson arrivals 2 ms apart share a step too) and
the saturation rates from 35.6 % to 47.5 %, while the L4's TTFT p95s
would come from 12.8 % to 8.6 %.

## What it answers

- **Latency.** For every request: TTFT (arrival to first token), TPOT
  (the mean gap between its later tokens), E2E and queue delay (arrival
  to first scheduled); their mean, p50, p90, p95, p99 (nearest rank) and
  maximum; and ITL, every inter-token gap of every request (counted in
  0.5 % buckets: a million requests hold hundreds of millions of gaps).
- **Range.** The same requests again with every step at the fast and
  at the slow end of the prediction's 80 % interval (prefill passes at
  the prefill interval's ends, decode steps at the decode interval's;
  the fast ends raised, as predict raises its own, to the ideal bound of
  the mean request alone, as a share of its expected TTFT and TPOT: no
  step runs faster than the hardware can, and that request alone ends
  where predict's interval does):
  queueing amplifies a slower step, so the p99 range is wider than the
  step's. A percentile need not move with the step time: the step times
  change which requests share a step (in a closed loop, faster steps
  bring users back sooner, into fuller batches), so an expected figure
  can lie outside the two ends; the range then stretches to hold it, and
  says so. Where the decode interval is widened for an MoE model on a
  class whose MoE decode runs are held out of scope (docs/accuracy.md),
  the ranges say "80% widened", as predict labels that interval: it holds
  more than 80 % (JSON: ` + "`intervals_widened`" + ` names ` + "`interval`" + `, and
  ` + "`max_rate`" + ` when the largest rate has a range too).
- **Throughput and goodput.** Output tokens per second and requests per
  second over the run (first arrival to last completion); goodput counts
  the requests meeting both --ttft and --tpot.
- **Over time.** Requests waiting and running, the share of the KV pool
  held, preemptions so far.
- **Max rate** (--max-rate). The same requests at rates doubling from
  what one request at a time sustains (1 / E2E of a mean request), then
  bisected to 0.5 %: the largest rate whose p99 TTFT and p99 TPOT meet the
  targets with no request failing. Every rate sends the same lengths, the
  gaps scaled. No run spans more than 10⁸ s (about 3 years) of arrivals,
  where a float64 clock still resolves a step: --rate 1e-300 made every
  arrival and its answer one instant (every latency 0 s) and is refused,
  and the search halves no lower than the requests over 10⁸ s.

CSV output is one row per request (arrival, start, first token, finish,
lengths, TTFT, TPOT, E2E, queue delay, preemptions, failed).

## Workloads

- **Arrivals.** ` + "`--arrival poisson`" + ` (exponential gaps at --rate),
  ` + "`constant`" + `, ` + "`gamma`" + ` (bursty: gaps with coefficient of variation --cv;
  1 is Poisson), ` + "`closed`" + ` (--users users, each sending, waiting for the
  whole answer and thinking an exponential --think before the next), or
  ` + "`trace`" + ` (a trace's own timestamps, rescaled to --rate when given).
- **Lengths.** ` + "`--prompt`" + ` and ` + "`--output-tokens`" + `: a count, ` + "`uniform:LO:HI`" + `,
  ` + "`normal:MEAN:SD`" + ` or ` + "`lognormal:MEAN:SD`" + ` (the mean and deviation of the
  lengths themselves). A draw beyond what a request may hold (the model's
  context, a slot's share, the pool) is cut there and counted.
  ` + "`--shared-prefix N`" + `: every prompt begins with the same N-token system
  prompt, which prefix caching computes once.
- **Traces** (--trace FILE, format told from the file or --trace-format),
  read as their publishers write them, no conversion step:
  - Azure LLM inference traces (Azure/AzurePublicDataset, 2023 and the
    2024 week-long release): CSV ` + "`TIMESTAMP,ContextTokens,GeneratedTokens`" + `,
    the timestamp a wall-clock time with 100 ns digits;
  - BurstGPT (HPMLL/BurstGPT): CSV ` + "`Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type`" + `
    (or with ` + "`Session ID,Elapsed time`" + `), Timestamp in seconds; rows of 0
    response tokens are the trace's failed requests and are skipped. Its
    timestamps are whole seconds: requests of one second arrive together;
  - ShareGPT JSON as ` + "`vllm bench serve`" + ` reads it: the first human turn is
    the prompt and the first answer the output, entries with fewer than two
    turns skipped, and vLLM's filter applied (4 … 1024 prompt tokens, 4 or
    more output tokens, 2048 in all). roofline has no tokenizer: text is
    counted at --chars-per-token (4, about right for English under Llama's
    and GPT's tokenizers);
  - a CSV with ` + "`prompt_tokens,output_tokens[,timestamp_s]`" + `, or objects
    with those keys as JSONL or in a JSON array (told from ShareGPT by
    its first entry's keys).

  A byte-order mark and blank lines before the first row are passed over.
  Timestamps that go back or that some objects lack, counts that are not
  whole tokens (a quoted count too: "12" is not 12), short rows, lines
  over 1 MiB and a JSON array cut short before its closing ] or followed
  by more text are errors at their file and line (or entry); a request
  longer than the model's context is an error at its line. At most --requests
  rows are read (10,000,000 at most): the rest of a large file is left
  unread, so memory holds the requests, not the file.

Runs are seeded (--seed): arrivals and lengths come from separate streams,
so another rate sends the same requests.

## Bad input and limits

A rate of 0, negative, not a number or above 10⁶ requests/s, --requests
beyond 10⁷, a length beyond 2²⁴ tokens, a scheduler knob out of range
(a step budget below --max-seqs, as vLLM refuses) are usage errors at
their flag (exit 2). A run holds 48 bytes per request (48 MB for a
million) and its time series at most 512 points.

## In a study's report

A study's ` + "`[serve]`" + ` table (docs/studies.md) asks the same of every
device engine, model and format its plan holds: ` + "`roofline report`" + ` runs
each under its runtime's scheduler at the table's rates, searches the
largest rate meeting the targets with ` + "`max_rate = true`" + ` — at the
expected step times and again at the fast and the slow end of the
interval, so the largest rate has a range too —, and writes a section
"Serving under load" (the percentiles of TTFT, TPOT, E2E and queue
delay, throughput, goodput and the largest rate), results.json's
` + "`serving`" + ` (each run as ` + "`serve --format json`" + ` gives it, with the ` + "`serve`" + `
commands that reproduce it), results.csv's ` + "`serve rate=R`" + ` and
` + "`serve max-rate`" + ` rows, and the serve-rate, serve-cdf and serve-time
figures drawn from those runs, one series per configuration. The keys
are this command's flags with ` + "`_`" + ` for ` + "`-`" + `; a report keeps each run to
100,000 requests, eight rates and 20 search rates, and the whole section
to 2²³ simulated requests (every rate and search run counted three
times, at the interval's ends), refused at the table's line beyond.
`

const serveDocTail = `
## What is not modelled

- The per-step cost is predict's, with its accuracy (docs/accuracy.md):
  batched decode at small batches follows sim's current small-row rule.
  Against published serving runs (docs/accuracy.md, "Serving under
  load") it is checked on six sources so far, all vLLM: a 0.6B model
  on an H100 and on a DGX Spark, 0.5B models on an L4 and an A100,
  gpt-oss-20b and gpt-oss-120b on an H100 and an A100, and a 7B model on
  an A100. Held out by source, the medians are predicted within 15 %
  (median error), the p99s within 29 % and the saturation rates within
  24 %; at 16 requests/s on the H100 the ITL p99
  within 6 %, priced by vLLM's CUDA graphs, and the median TTFT within
  3 %, with async scheduling (above). On the A100, bursts
  of 75 requests of 1024 + 1024 tokens and more, the TPOT runs slow (the
  vLLM class's step at large batches is an extrapolation from batch 8).
  The front end, fitted on three sources, is one serial server that
  takes requests one at a time; under a burst vLLM's engine got prompts
  in groups (KVCACHED) or was flooded (GPUSTACK), which it does not
  reproduce unless asked to take them in together (--front-end's BATCH,
  above), and a MoE's prefill rests on the class's prior. No llama.cpp
  server or RKLLM serving run with its settings was found to check the
  edge boards. Read the ranges as the step's uncertainty propagated, not
  as a measured coverage.
- The front end's work per prompt token (tokenizing; the sources' prompts
  of 128–512 tokens do not separate it from a request's), a chat
  template's system prompt, the engine core's own CPU time a step;
  several API server processes (--api-server-count); under async
  scheduling, a place freed in a step taken up only in the step after
  next (the next was scheduled while the request still held it); a step
  padded up to the next captured graph size;
  speculative decoding; prefill/decode disaggregation; vLLM's pipeline
  micro-batches as they form request by request (a step takes them as
  equal shares of it; a tensor-parallel group, layers offloaded to the
  host and pipelines are served: above). An offload's step-time interval weighs each
  stage's class by its share of the mean request's time alone, one
  weighting for every step of the run, where a step's own mix of host
  and GPU time varies with its batch and prompt tokens. vLLM's custom all-reduce for small messages is priced as a
  ring's 2(N − 1) link latencies, which overstates it at 8 GPUs
  (docs/accuracy.md, "Beyond one device": gpt-fast at 8 A100s decodes
  0.72× the predicted time).
- The KV pool of a runtime that frees nothing counts every layer at full
  length. Under vLLM a sliding layer's out-of-window blocks are freed
  (above, "Sliding windows"), but the freed blocks of a shared prefix are
  counted as held, and the grouping is vLLM 0.10's (groups as large as the
  fewest layers of a kind, [V28]); a model whose kinds have unequal,
  close layer counts may be grouped otherwise in other releases.
- A preempted request finds the blocks of its prefix vLLM's prefix cache
  still holds (above) but no other request's: random prompts share none,
  and a shared prefix is held once for all. On a pool of several groups
  its hit is taken as lost once any page has been taken past those free
  before it, where vLLM may still find part of it.
- llama.cpp's server fails a request when its cache is full; which one
  fails is modelled as the newest. RKLLM's server demo answers "busy"
  (HTTP 503) rather than queueing: the FIFO queue is the client's retries
  or a queue in front of it.
`

// TestServeRangeHoldsExpected: in a closed loop with fewer slots than
// users, faster steps bring users back sooner into fuller batches, so the
// fast end's p99 TPOT can lie above the expected run's; the range printed
// must still hold the expected figure, and say why. Which loop shows it
// moves with the Metal devices' fitted levels, so the test tries a few
// (Llama-3.2-3B Q4_K_M, 8 or 10 users, 4 slots, 5 s of thinking) and
// wants every range to hold its expected p99 and at least one to start at
// it (on the Apple M3 Max at 8 users: 36.9 ms, the fast end's above). (On
// the Orin Nano Super, where the case was first found, llama.cpp's steps
// of several sequences now cost a pass's fixed costs, launched kernel by
// kernel, and no closed loop tried there shows it any more; Metal's
// steps have no such rule.)
func TestServeRangeHoldsExpected(t *testing.T) {
	stretchedLow := 0
	for _, c := range []struct{ hardware, users string }{
		{"apple-m2-max", "8"}, {"apple-m3-max", "8"}, {"apple-m3-max", "10"},
	} {
		out, errOut, code := runCLI("serve", "--model", "llama-3.2-3b", "--hardware", c.hardware, "--weights", "q4_k_m",
			"--arrival", "closed", "--users", c.users, "--max-seqs", "4", "--think", "5s", "--output-tokens", "uniform:10:300", "--requests", "200")
		if code != 0 {
			t.Fatal(errOut)
		}
		var tpot []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "TPOT ") {
				tpot = strings.Fields(l)
			}
		}
		// TPOT MEAN P50 P90 P95 P99 MAX lo – hi lo – hi: each figure two fields.
		if len(tpot) != 23 {
			t.Fatalf("%s, %s users: TPOT row %q", c.hardware, c.users, tpot)
		}
		p99, lo, hi := secondsOf(t, tpot[9], tpot[10]), secondsOf(t, tpot[18], tpot[19]), secondsOf(t, tpot[21], tpot[22])
		if p99 < lo || p99 > hi {
			t.Errorf("%s, %s users: P99 RANGE %s %s – %s %s does not hold the expected p99 %s %s", c.hardware, c.users, tpot[18], tpot[19], tpot[21], tpot[22], tpot[9], tpot[10])
		}
		if p99 == lo {
			stretchedLow++
			if !strings.Contains(out, "stretched to hold the expected run") {
				t.Errorf("%s, %s users: the RANGE line does not say the range was stretched", c.hardware, c.users)
			}
		}
	}
	if stretchedLow == 0 {
		t.Error("no closed loop tried has its expected p99 below the fast end's: find another that does")
	}
}

// secondsOf reads a printed duration, a number and its unit (µs, ms, s).
func secondsOf(t *testing.T, num, unit string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		t.Fatalf("duration %q %q: %v", num, unit, err)
	}
	switch unit {
	case "µs":
		return v * 1e-6
	case "ms":
		return v * 1e-3
	case "s":
		return v
	}
	t.Fatalf("duration %q %q: unknown unit", num, unit)
	return 0
}

// TestServeLengthsArray: a JSON array of lengths objects is read as
// lengths (it was read as ShareGPT and ended "no requests: all 2 rows
// skipped (fewer than two turns)"); a quoted count is told at its file,
// entry and field with the hint about quotes, exit 1 as a bad file is.
func TestServeLengthsArray(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "lengths.json"), filepath.Join(dir, "quoted.json")
	if err := os.WriteFile(good, []byte(`[{"prompt_tokens": 100, "output_tokens": 10}, {"prompt_tokens": 300, "output_tokens": 30}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`[{"prompt_tokens": "100", "output_tokens": 10}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "1", "--requests", "0"}
	out, errOut, code := runCLI(append(base, "--trace", good, "--format", "json")...)
	var j render.ServeJSON
	if code != 0 || json.Unmarshal([]byte(out), &j) != nil || j.Result.Completed != 2 {
		t.Errorf("lengths array: exit %d, %s%s", code, errOut, out)
	}
	out, errOut, code = runCLI(append(base, "--trace", bad)...)
	want := "roofline: " + bad + ": entry 1: not a lengths JSON array: byte 24: prompt_tokens: a string where a number belongs\nroofline: hint: numbers, true and false are written without quotes"
	if code != 1 || out != "" || !strings.HasPrefix(errOut, want) {
		t.Errorf("quoted count: exit %d, stdout %q, stderr\n%s\nwant exit 1 and\n%s", code, out, errOut, want)
	}
}

// TestServeRequestsZero: --requests 0 is "all of the trace's rows", as
// its help says: with a trace of 3 rows it sends 3; without a trace it is
// told that 0 needs one (it said "must be at least 1", against the help);
// a negative count with a trace names 0 among what it takes
// (serve.MaxRequests is 10,000,000).
func TestServeRequestsZero(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "lengths.csv")
	if err := os.WriteFile(trace, []byte("prompt_tokens,output_tokens\n100,10\n200,20\n300,30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "1"}
	out, errOut, code := runCLI(append(base, "--trace", trace, "--requests", "0", "--format", "json")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	var j render.ServeJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.Result.Completed != 3 {
		t.Errorf("--requests 0 with a 3-row trace: %d completed, want 3", j.Result.Completed)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--requests", "0"}, "roofline: --requests 0 sends every row of a --trace FILE, and no trace is given: give --trace FILE, or send 1 or more requests (default 1000)\n"},
		{[]string{"--requests", "-1"}, "roofline: --requests must be 1 … 10000000, got -1\n"},
		{[]string{"--requests", "-1", "--trace", trace}, "roofline: --requests must be 0 (every row of the trace) or 1 … 10000000, got -1\n"},
	} {
		out, errOut, code := runCLI(append(base, c.args...)...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, c.want) || !strings.Contains(errOut, "hint: 'roofline help'") {
			t.Errorf("%v: exit %d, stderr\n%s\nwant exit 2 and\n%s", c.args, code, errOut, c.want)
		}
	}
}

// TestSmallestOverALinkTheDeviceLacks: a model one device does not hold,
// with --link an NVLink the device lacks, is told why no count of such
// devices is offered; the DOES NOT FIT answer said nothing of a count
// (every count refused the link in silence).
func TestSmallestOverALinkTheDeviceLacks(t *testing.T) {
	const want = "no count of devices like it over that link: --link nvlink4: rtx-4090 has no NVLink"
	base := []string{"--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--runtime", "vllm", "--weights", "bf16", "--link", "nvlink4"}
	out, errOut, code := runCLI(append([]string{"predict"}, base...)...)
	if code != 3 || !strings.Contains(out, "smallest that would hold it: "+want) {
		t.Errorf("predict: exit %d, %s%s; want 3 and %q", code, errOut, out, want)
	}
	_, errOut, code = runCLI(append([]string{"serve", "--rate", "1"}, base...)...)
	if code != 1 || !strings.Contains(errOut, "roofline: hint: "+want) {
		t.Errorf("serve: exit %d, %s; want 1 and %q", code, errOut, want)
	}
}
