package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
)

// plotExamples are the figures of docs/plots.md. Paths are relative to the
// repository root, where the documented commands run.
var plotExamples = []struct {
	name, heading, text string
	args                []string
}{
	{"roofline", "Roofline", `Attainable FLOP/s against arithmetic intensity for the RTX 4080 at fp16
(GGUF kernels dequantize to fp16): the bandwidth slope, the compute roof and
the ridge between them (dotted). Filled points are predicted operating points
— prefill of 512 tokens (▲), decode at batch 1 (●), 16 (■) and 256 (◆) — and
the open points are the llama-bench README's own run on this card (pp512,
tg128), placed by the FLOP/s and bytes/s they achieved and labelled with
their MFU and MBU. Decode at batch 1 sits far left of the ridge:
memory-bound whatever the compute. When several models or formats share a
roof (a study's figure), the points take their series' colours, the roofs
are black and say their precision and peak on the ceiling, and only the
measured points are labelled.`,
		[]string{"plot", "roofline", "--model", "qwen2.5-7b", "--hardware", "rtx-4080", "--weights", "q4_k_m",
			"--measured", "docs/examples/llama-bench-rtx4080-qwen2.5-7b.json", "-o", "docs/plots/roofline.png"}},
	{"tpot-context", "Time per output token as the KV cache grows", `Each decode step streams the weights and the whole KV cache, so TPOT rises
with context. Solid: expected at the engine's default efficiencies; dashed:
the physical limit (datasheet bandwidth, no overhead). × marks the longest
context that fits in memory; the red line is the 200 ms target of a voice
assistant. The RK3588 runs q4_k_m on its CPU (its NPU runs w8a8 only).`,
		[]string{"plot", "tpot-context", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb,rk3588",
			"--weights", "q4_k_m", "--tpot", "200ms", "-o", "docs/plots/tpot-context.png"}},
	{"tpot-context-facets", "Small multiples", `Three devices × six models are eighteen series: more than eight share no
panel legibly, so the figure draws one panel per device (the dimension
plots.Name picks first), each with the six models in the same colours, on
shared axes: the times span more than ten times (7 ms to 1.8 s), so the y
axis is logarithmic. Curves that coincide are drawn once and labelled
together (a = b).`,
		[]string{"plot", "tpot-context", "--model", "llama-3.2-1b,llama-3.2-3b,qwen2.5-0.5b,qwen2.5-1.5b,qwen2.5-3b,qwen2.5-7b",
			"--hardware", "jetson-orin-nano-8gb,rk3588,raspberry-pi-5-8gb", "--weights", "q4_k_m", "--tpot", "200ms", "-o", "docs/plots/tpot-context-facets.png"}},
	{"ttft-prompt", "Time to first token against prompt length", `Short prompts are memory-bound (one read of the weights per pass), long ones
compute-bound; △ marks the prompt length where prefill turns compute-bound.
Log–log, so a 1 s target shows the longest prompt each device answers in
time.`,
		[]string{"plot", "ttft-prompt", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb,rk3588",
			"--weights", "q4_k_m", "--ttft", "1s", "-o", "docs/plots/ttft-prompt.png"}},
	{"batch", "Batching", `Batching shares each weight read among the sequences, so aggregate
throughput climbs while per-sequence TPOT barely moves, until the KV reads
and then compute take over. × marks the largest batch that fits in 24 GiB
at 1200 tokens per sequence.`,
		[]string{"plot", "batch", "--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--weights", "q4_k_m,f16",
			"--prompt", "1000", "--output-tokens", "200", "--tpot", "50ms", "-o", "docs/plots/batch.png"}},
	{"memory", "Memory", `Weights, KV cache, activations and runtime overhead against the usable
memory (red line) of an 8 GB Jetson, per weight format and context. At 128k
context the f16 KV cache alone is 16 GiB.`,
		[]string{"plot", "memory", "--model", "llama-3.1-8b", "--hardware", "jetson-orin-nano-super-8gb",
			"--weights", "q4_k_m,q8_0", "--context", "4k,32k,128k", "-o", "docs/plots/memory.png"}},
	{"compare", "Predicted against measured", `The published tests of the public validation set against predictions at
default efficiencies (no calibration), coloured by vendor: prefill
(triangles) and decode (circles) in their own panels, with y = x and a
±20 % band; below, each run's utilisation of its limit on one axis (MFU
for prefill, MBU for decode), one row per vendor. A comparison of up to 24
runs names each row by its test (pp512, tg128 @ d4096, with the model and
format where they differ).`,
		[]string{"plot", "compare", "cmd/roofline/testdata/public/runs.csv", "-o", "docs/plots/compare.png"}},
	{"plan", "Plan", `The search grid of the voice-assistant plan: each configuration meets every
target at 80 % confidence (●), is uncertain — the predictions' interval
straddles a target (○) — or is marked by the first constraint it fails.`,
		[]string{"plot", "plan", "--hardware", "jetson-orin-nano-8gb,jetson-orin-nano-super-8gb,rk3588", "--model", "llama-3.2-3b",
			"--weights", "q4_k_m,q8_0", "--ttft", "1s", "--tpot", "200ms", "-o", "docs/plots/plan.png"}},
	{"chat", "A conversation", `Per-turn TTFT (log scale) and the cumulative time spent answering, for a
20-turn chat with a 500-token system prompt. Keeping the KV cache makes the
twentieth turn as quick as the first; re-prefilling the history (prefix
caching of the system prompt only, or none) makes TTFT grow with every turn
and crosses the 1 s target within a few turns.`,
		[]string{"plot", "chat", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m",
			"-o", "docs/plots/chat.png"}},
	{"concurrency", "Concurrent chats", `Per-chat TPOT and TTFT as chats holding 2,200 tokens each share the device
(continuous batching; TTFT when every chat sends its 50-token message at
once). × marks the most chats whose caches fit in memory.`,
		[]string{"plot", "concurrency", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb,rk3588", "--weights", "q4_k_m",
			"--prompt", "50", "--output-tokens", "150", "--depth", "2000", "--ttft", "1s", "--tpot", "200ms", "-o", "docs/plots/concurrency.png"}},
	{"speculative", "Speculative decoding", `Speed-up of Llama-3.2-1B drafting for Llama-3.1-8B on a Jetson Orin Nano
Super against the acceptance rate, for 1 to 8 drafted tokens per round; △
marks where each stops paying off. Drafting more tokens pays only at high
acceptance: each draft step costs about a fifth of a target step here
(12.3 ms against 67.7 ms at 1k context).`,
		[]string{"plot", "speculative", "--model", "llama-3.1-8b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m",
			"--draft", "llama-3.2-1b", "-o", "docs/plots/speculative.png"}},
	{"serve-rate", "Serving: latency against the arrival rate", `p50 and p99 TTFT and TPOT of llama.cpp's server (4 slots) on a Jetson Orin
Nano Super against the Poisson arrival rate, at the rates the max-rate search
of roofline serve ran (docs/serve.md). The median barely moves; the p99 TTFT
turns up at the knee and crosses the 2 s target first.`,
		[]string{"plot", "serve-rate", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m",
			"--prompt", "lognormal:600:300", "--output-tokens", "lognormal:150:80", "--ttft", "2s", "-o", "docs/plots/serve-rate.png"}},
	{"serve-cdf", "Serving: the latency of every request", `TTFT and TPOT of 1,000 requests to RKLLM on an RK3588, one request at a
time, arriving at 0.05/s: most start at once, the rest wait for the answer
before them, which makes the TTFT's tail many times its median; TPOT is the
same for all.`,
		[]string{"plot", "serve-cdf", "--model", "qwen2.5-1.5b", "--hardware", "rk3588", "--engine", "npu", "--rate", "0.05",
			"--prompt", "uniform:50:300", "--output-tokens", "uniform:20:150", "-o", "docs/plots/serve-cdf.png"}},
	{"serve-time", "Serving: the queue and the KV cache over time", `vLLM on an H100 at 14 requests/s, beyond what Llama-3.1-8B sustains there:
the running batch grows until the KV cache is full, requests are preempted,
and the queue grows for as long as requests arrive, then drains.`,
		[]string{"plot", "serve-time", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--runtime", "vllm", "--rate", "14", "--requests", "3000",
			"--prompt", "lognormal:1000:600", "--output-tokens", "lognormal:250:200", "-o", "docs/plots/serve-time.png"}},
	{"gpu-layers", "Layers on the GPU", `Llama-3.1-70B in Q4_K_M (39.6 GiB) on a 24 GiB RTX 4090, the layers llama.cpp
does not put on the GPU (-ngl) running from two channels of DDR5 on the
host's CPU (desktop-ddr5, assumed and said so). Every layer moved to the
GPU takes its weights off the slow memory, so decode climbs from 1.3 to 19
tokens/s, but memory runs out past 48 of 81 layers (×; llama.cpp counts the
output layer as one and moves it first): llama.cpp's --fit stops at 46 (△),
keeping 1 GiB free, for 2.8 tokens/s. Prefill runs the host layers on the
GPU, their weights and KV cache crossing PCIe 4.0.`,
		[]string{"plot", "gpu-layers", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--weights", "q4_k_m",
			"-o", "docs/plots/gpu-layers.png"}},
	{"ops", "Operators", `Where the time of a prefill and of a decode step goes, operator by operator,
on the engine's roofline (LLM-Viewer's view): each operator at its FLOPs
per byte and at the FLOP/s its share of the predicted time gives it, its
area that share; one mark per operator and layer kind (Gemma 2's sliding
and global layers land together until the context passes the window). The
dashed roof is the one each pass is priced at: operators bound by memory
sit on its slope, products bound by compute on its ceiling; the head of a
prefill sits above the bandwidth roof because the time model lets it
overlap the products, which take the class's time (docs/method.md §6).
Gemma 2 2B at q4_0 on a Raspberry Pi 5: the prefill is compute-bound, the
feed-forward products take 78 % of it; a decode step at 8,192 keys is
memory-bound, attention over the KV cache takes 29 % and the head — the
256 k-token table, tied to the embedding — 21 %. The times are an
attribution of the prediction, not a measurement: each class of a pass
shares its time among its operators by bytes where memory bounds it, by
FLOPs where compute does (docs/method.md §6). ` + "`predict --ops`" + ` prints the
same as a table.`,
		[]string{"plot", "ops", "--model", "gemma-2-2b", "--hardware", "raspberry-pi-5-8gb", "--weights", "q4_0", "--context", "8k",
			"-o", "docs/plots/ops.png"}},
}

// fromRoot rewrites repository-root paths for a test running in
// cmd/roofline, and the output to out.
func fromRoot(args []string, out string) []string {
	a := append([]string(nil), args...)
	for i, s := range a {
		switch {
		case i > 0 && a[i-1] == "-o":
			a[i] = out
		case strings.HasPrefix(s, "docs/"), strings.HasPrefix(s, "cmd/"):
			a[i] = filepath.Join("..", "..", s)
		}
	}
	return a
}

// TestPlotExamples renders every documented figure as SVG against a golden
// file and as PNG and PDF; -update rewrites the goldens, docs/plots/*.png
// and docs/plots.md.
func TestPlotExamples(t *testing.T) {
	dir := t.TempDir()
	magic := map[string]string{".svg": "<?xml", ".png": "\x89PNG", ".pdf": "%PDF"}
	for _, ex := range plotExamples {
		t.Run(ex.name, func(t *testing.T) {
			for _, ext := range []string{".svg", ".png", ".pdf"} {
				out := filepath.Join(dir, ex.name+ext)
				_, errOut, code := runCLI(fromRoot(ex.args, out)...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				data, err := os.ReadFile(out)
				if err != nil || !bytes.HasPrefix(data, []byte(magic[ext])) {
					t.Fatalf("%s: not a %s file (%v)", out, ext, err)
				}
				switch ext {
				case ".svg":
					golden(t, filepath.Join("plots", ex.name+".svg"), string(data))
				case ".png":
					if *update {
						if err := os.WriteFile(filepath.Join("..", "..", "docs", "plots", ex.name+".png"), data, 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		})
	}
	doc := plotsDoc()
	const path = "../../docs/plots.md"
	if *update {
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if old, _ := os.ReadFile(path); string(old) != doc {
		t.Errorf("docs/plots.md is stale: go test ./cmd/roofline -run TestPlotExamples -update")
	}
}

func plotsDoc() string {
	var b strings.Builder
	b.WriteString(plotsDocHead)
	for _, ex := range plotExamples {
		b.WriteString("\n## " + ex.heading + "\n\n```\nroofline " + strings.Join(quoteArgs(ex.args), " ") + "\n```\n\n")
		b.WriteString(ex.text + "\n\n![" + ex.heading + "](plots/" + ex.name + ".png)\n")
	}
	return b.String()
}

const plotsDocHead = `# Plots

` + "`roofline plot KIND`" + ` draws one figure from the same predictions as
` + "`predict`, `compare` and `plan`" + ` (one cost model: docs/method.md). The output format
follows the file extension: ` + "`.png` (150 dpi), `.svg`, `.pdf`" + `. The same inputs
give byte-identical SVG. ` + "`--data FILE.csv`" + ` also writes every plotted number
(series, quantity, x and y with their units, label), for a spreadsheet or a
check.

Common rules:

- ` + "`--model`, `--hardware`, `--engine` and `--weights`" + ` take comma-separated lists;
  every combination is one series. The legend names what varies; the title
  says what every series shares and the efficiencies assumed. Up to eight
  series share a panel; more become small multiples, one panel per device
  (or model, or format: the first that leaves at most eight series in each
  of at most twelve panels; else the first two, as a panel per device and
  model for three boards × three models × three formats), in the same
  colours on shared axes, three panels a row past six.
  ` + "`--facet device|engine|model|weights|kv`" + ` (or two: ` + "`--facet device,model`" + `)
  chooses, even for fewer series.
- Seven colour-blind-safe colours (Okabe and Ito's, without yellow), then
  dash-dot line styles. Series within 2 % of each other's value at every
  point are drawn once and labelled together: ` + "`a = b`" + ` (equal) or ` + "`a ≈ b`" + `;
  series further apart are never merged, however small the gap looks on
  the axis (a line that lies within a line's width of another all along
  is drawn narrower on top of it, so both colours show). A y axis whose
  values span more than 10× is logarithmic; ` + "`--log-y`" + ` sets it
  (` + "`--log-y=false`" + `: linear; in a study, ` + "`log-y = true`" + ` under
  ` + "`[figure.KIND]`" + `). One dashed ideal line per distinct limit, grey when
  several series share it. Labels of measured and operating points are
  placed clear of each other, with a thin leader line when pushed away
  from their point.
  Without ` + "`--engine`" + ` each device uses its default engine, or the first engine
  that runs the requested weights.
- Solid lines are expected at the engine's efficiencies (calibrated when the
  profile is); dashed lines are the physical limit: datasheet bandwidth and
  dense peak, no overhead.
- ` + "`--ttft` and `--tpot`" + ` draw targets as red reference lines; ` + "`--measured FILE`" + `
  (any format ` + "`compare`" + ` reads) adds measured points labelled with the MBU
  (decode) or MFU (prefill) they achieved, on the series of the same device,
  model and format; when one model in one format is plotted, runs whose file
  names neither (llama-batched-bench) are taken to be of it. A file that
  names no device (llama-bench's) is of the one device plotted; with
  several, give it as ` + "`--measured FILE@DEVICE`" + ` (a study's
  ` + "`measured.hardware`" + `), or its runs are left out with one warning saying so.
  ` + "`plot compare`" + ` takes ` + "`FILE@DEVICE`" + ` too, for files of several devices.
- ` + "`--width` (default 16cm) and `--height`" + ` (10 cm; 14 cm for the two-panel
  figures) take cm, mm, in or pt. Without ` + "`--height`" + ` a figure grows so its
  plot areas keep 60 % of its height (a long legend moves beside the panels
  instead; a plan grows with its rows, small multiples with theirs).
- Text is the same in every format: a PDF embeds its font as a Unicode
  subset (η, ·, ×, Σ, µ, → copy and search as themselves) and is dated by
  ` + "`SOURCE_DATE_EPOCH`" + ` or a fixed date, so the same input gives the same bytes;
  an SVG names Liberation Serif, then Tinos and Times New Roman, which
  share its metrics.
- The file is written through a temporary file and renamed: a failure never
  leaves a partial image. An existing file is replaced only with ` + "`--force`" + `.

The figures below are generated by ` + "`go test ./cmd/roofline -run TestPlotExamples -update`" + `,
which runs each command from the repository root; the same test compares their
SVG with golden files. ` + "`go test ./cmd/roofline/internal/plots -run TestGallery -gallery DIR`" + `
renders every kind at 1, 4, 8, 16 and 18 series into DIR and checks each
figure's layout (plot-area share, overlapping text, hidden series, tick
labels).
`

// plotData runs a plot with --data and returns the CSV rows.
func plotData(t *testing.T, args ...string) [][]string {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "data.csv")
	_, errOut, code := runCLI(append(args, "-o", filepath.Join(dir, "fig.svg"), "--data", data)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(f)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "series,quantity,x_name,x,y_name,y,label" {
		t.Fatalf("header %v", rows[0])
	}
	return rows[1:]
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func testSetup(t *testing.T, modelName, weights, device, engine string) *sim.Setup {
	t.Helper()
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	r, err := resolve.Resolve(cat, resolve.Selection{Model: modelName, Hardware: device, Engine: engine, Weights: weights, KV: "f16", Options: sim.DefaultOptions})
	if err != nil {
		t.Fatal(err)
	}
	return r.Setup
}

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b)) }

// TestPlotSeriesMatchPredictor checks the plotted numbers against predict's
// (a different path through sim) and against hand arithmetic.
func TestPlotSeriesMatchPredictor(t *testing.T) {
	jetson := testSetup(t, "llama-3.2-3b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu")

	t.Run("tpot-context", func(t *testing.T) {
		rows := plotData(t, "plot", "tpot-context", "-m", "llama-3.2-3b", "--hw", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m", "--max-context", "32k")
		var n int
		var x0, ideal0 float64
		for _, r := range rows {
			x, y := atof(t, r[3]), atof(t, r[5])
			switch r[1] {
			case "expected":
				// The step attending x keys is the first decode step after
				// a prompt of x−1 tokens.
				p, err := jetson.Predict(sim.Workload{Prompt: int(x) - 1, Output: 2, Batch: 1, UBatch: 512})
				if err != nil {
					t.Fatal(err)
				}
				if !near(y, p.ITLFirst*1e3, 1e-9) {
					t.Errorf("context %v: plotted %v ms, predict ITL %v ms", x, y, p.ITLFirst*1e3)
				}
				n++
			case "ideal":
				// KV per token of Llama-3.2-3B at f16: 28 layers × 2 (K, V) ×
				// 8 KV heads × 128 × 2 B = 114,688 B; at 102 GB/s each token
				// of context adds 114688 / 102e9 s = 1.1244 µs to the ideal
				// (memory-bound) step.
				if x0 == 0 {
					x0, ideal0 = x, y
				} else if want := ideal0 + (x-x0)*114688/102e9*1e3; !near(y, want, 1e-6) {
					t.Errorf("ideal at %v: %v ms, hand %v ms", x, y, want)
				}
			}
		}
		if n < 20 || x0 != 64 {
			t.Errorf("%d expected points from context %v; want ≥ 20 from 64", n, x0)
		}
	})

	t.Run("ttft-prompt", func(t *testing.T) {
		rows := plotData(t, "plot", "ttft-prompt", "-m", "llama-3.2-3b", "--hw", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m", "--max-prompt", "8k")
		var sw float64
		for _, r := range rows {
			x, y := atof(t, r[3]), atof(t, r[5])
			p, err := jetson.Predict(sim.Workload{Prompt: int(x), Output: 1, Batch: 1, UBatch: 512})
			if err != nil {
				t.Fatal(err)
			}
			switch r[1] {
			case "expected":
				if !near(y, p.TTFT, 1e-9) {
					t.Errorf("prompt %v: plotted %v s, predict TTFT %v s", x, y, p.TTFT)
				}
			case "ideal":
				if !near(y, p.TTFTBound, 1e-9) {
					t.Errorf("prompt %v: plotted ideal %v s, predict %v s", x, y, p.TTFTBound)
				}
			case "prefill turns compute-bound":
				sw = x
				if p.Prefill.Bound != sim.ComputeBound {
					t.Errorf("switch at %v but prefill there is %s-bound", x, p.Prefill.Bound)
				}
			}
		}
		if sw == 0 {
			t.Error("no compute-bound switch drawn")
		}
	})

	t.Run("batch", func(t *testing.T) {
		s := testSetup(t, "llama-3.1-8b", "q4_k_m", "rtx-4090", "gpu")
		rows := plotData(t, "plot", "batch", "-m", "llama-3.1-8b", "--hw", "rtx-4090", "--weights", "q4_k_m", "-p", "1000", "-n", "200")
		seen := map[string]int{}
		for _, r := range rows {
			x, y := atof(t, r[3]), atof(t, r[5])
			p, err := s.Predict(sim.Workload{Prompt: 1000, Output: 200, Batch: int(x), UBatch: 512})
			if err != nil {
				t.Fatal(err)
			}
			key := r[1] + " " + r[4]
			seen[key]++
			switch key {
			case "expected tokens/s, all":
				if !near(y, p.ThroughputTokensPerS, 1e-9) {
					t.Errorf("batch %v: %v tok/s, predict %v", x, y, p.ThroughputTokensPerS)
				}
			case "expected TPOT (ms)":
				// Throughput is batch / TPOT: the two panels agree.
				if !near(y, 1e3/p.DecodeTokensPerS, 1e-9) {
					t.Errorf("batch %v: %v ms, predict %v ms", x, y, 1e3*p.TPOT)
				}
			case "memory runs out TPOT (ms)":
				if !p.Memory.Fits {
					t.Errorf("memory limit drawn at batch %v, which does not fit", x)
				}
				p1, _ := s.Predict(sim.Workload{Prompt: 1000, Output: 200, Batch: int(x) + 1, UBatch: 512})
				if p1.Memory.Fits {
					t.Errorf("memory limit drawn at batch %v, but %v fits", x, x+1)
				}
			}
		}
		if seen["expected tokens/s, all"] != 16 || seen["expected TPOT (ms)"] != 16 || seen["memory runs out TPOT (ms)"] != 1 {
			t.Errorf("series sizes %v; want batches 1, 2, 3, 4, 6 … 181, 256 (two per octave) in both panels and one memory limit", seen)
		}
	})

	t.Run("batch measured", func(t *testing.T) {
		// llama-batched-bench on DGX Spark: B = 4, S_TG = 104.33 t/s over
		// all sequences, so TPOT = 4 / 104.33 s = 38.34 ms; the file names
		// neither model nor format, which the single series supplies.
		rows := plotData(t, "plot", "batch", "-m", "qwen2.5-7b", "--hw", "dgx-spark", "--weights", "q8_0", "-p", "512", "-n", "32",
			"--measured", "internal/measured/testdata/batched-bench.txt")
		var got []string
		for _, r := range rows {
			if r[1] == "measured" {
				got = append(got, r[3]+" "+r[5]+" "+r[6])
			}
		}
		want := []string{"4 104.33 MBU 73%", "4 38.33988306 "}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("measured points %q, want %q (compare gives MBU 73%% for this run)", got, want)
		}
	})

	t.Run("memory", func(t *testing.T) {
		rows := plotData(t, "plot", "memory", "-m", "llama-3.1-8b", "--hw", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m", "--context", "4k,32k,128k")
		// KV of Llama-3.1-8B at f16: 32 layers × 2 × 8 KV heads × 128 × 2 B
		// = 131,072 B per token: 4k → 0.5 GiB, 32k → 4 GiB, 128k → 16 GiB.
		want := map[string]float64{"4k ctx": 0.5, "32k ctx": 4, "128k ctx": 16}
		got := 0
		for _, r := range rows {
			if r[1] == "KV cache" {
				got++
				if y := atof(t, r[5]); !near(y, want[r[0]], 1e-12) {
					t.Errorf("%s: KV %v GiB, hand %v GiB", r[0], y, want[r[0]])
				}
			}
		}
		if got != 3 {
			t.Errorf("%d KV bars; want 3", got)
		}
	})

	t.Run("roofline", func(t *testing.T) {
		rows := plotData(t, "plot", "roofline", "-m", "qwen2.5-7b", "--hw", "rtx-4080", "--weights", "q4_k_m",
			"--measured", "../../docs/examples/llama-bench-rtx4080-qwen2.5-7b.json")
		var ridge float64
		var measured []string
		for _, r := range rows {
			switch r[1] {
			case "ridge (FLOP/B) at peak":
				ridge = atof(t, r[3])
			case "measured":
				measured = append(measured, r[6])
			}
		}
		// RTX 4080 profile: 194.9 TFLOP/s fp16 (FP16 accumulate) / 716.8 GB/s = 271.9 FLOP/B.
		if !near(ridge, 194.9e12/716.8e9, 1e-9) {
			t.Errorf("ridge %v FLOP/B; want 271.9", ridge)
		}
		if len(measured) != 2 || !strings.HasPrefix(measured[0], "MFU") || !strings.HasPrefix(measured[1], "MBU") {
			t.Errorf("measured labels %v; want the pp512 MFU and the tg128 MBU", measured)
		}
	})

	t.Run("chat", func(t *testing.T) {
		rows := plotData(t, "plot", "chat", "-m", "llama-3.2-3b", "--hw", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m", "--engine", "gpu", "--turns", "6")
		conv := sim.Conversation{Turns: 6, System: 500, User: 50, Reply: 150, UBatch: 512}
		n := 0
		for _, r := range rows {
			if r[1] != "expected" {
				continue
			}
			res, err := jetson.Chat(conv, sim.Strategy(r[0]))
			if err != nil {
				t.Fatal(err)
			}
			tr := res.Turns[int(atof(t, r[3]))-1]
			want := tr.TTFT
			if r[4] == "Σ E2E (s)" {
				want = tr.Cumulative
			}
			if y := atof(t, r[5]); !near(y, want, 1e-9) {
				t.Errorf("%s turn %s %s: %v, chat %v", r[0], r[3], r[4], y, want)
			}
			n++
		}
		if n != 3*6*2 {
			t.Errorf("%d points; want 3 strategies × 6 turns × 2 panels", n)
		}
	})

	t.Run("concurrency", func(t *testing.T) {
		rows := plotData(t, "plot", "concurrency", "-m", "llama-3.2-3b", "--hw", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m",
			"-p", "50", "-n", "150", "-d", "2000", "--max-chats", "24")
		limit := 0.0
		for _, r := range rows {
			x, y := atof(t, r[3]), atof(t, r[5])
			c := jetson.Evaluate(2200, int(x), 50, 150, 512, sim.Targets{})
			switch r[1] + " " + r[4] {
			case "expected TPOT per chat (ms)":
				if !near(y, c.TPOT*1e3, 1e-9) {
					t.Errorf("%v chats: TPOT %v ms, plan %v ms", x, y, c.TPOT*1e3)
				}
			case "expected TTFT (s)":
				if !near(y, c.TTFT, 1e-9) {
					t.Errorf("%v chats: TTFT %v s, plan %v s", x, y, c.TTFT)
				}
			case "memory runs out TPOT per chat (ms)":
				limit = x
			}
		}
		if l := jetson.PlanLimits(1, 2200, 50, 150, 512, sim.Targets{}).MaxBatchFit; float64(l) != limit {
			t.Errorf("memory limit drawn at %v chats, plan says %d", limit, l)
		}
	})

	t.Run("speculative", func(t *testing.T) {
		target := testSetup(t, "llama-3.1-8b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu")
		draft := testSetup(t, "llama-3.2-1b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu")
		rows := plotData(t, "plot", "speculative", "-m", "llama-3.1-8b", "--hw", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m", "--engine", "gpu",
			"--draft", "llama-3.2-1b", "--draft-tokens", "2,4")
		n := 0
		for _, r := range rows {
			k := map[string]int{"k = 2 drafted tokens": 2, "k = 4 drafted tokens": 4}[r[0]]
			if k == 0 {
				continue
			}
			a, y := atof(t, r[3]), atof(t, r[5])
			sp, err := target.Speculate(draft, sim.Speculation{K: k, Acceptance: a}, 1024, 1)
			if err != nil {
				t.Fatal(err)
			}
			switch r[1] {
			case "expected":
				n++
				if !near(y, sp.Speedup, 1e-9) {
					t.Errorf("k=%d a=%v: %v×, sim %v×", k, a, y, sp.Speedup)
				}
			case "break-even acceptance":
				if !near(a, sp.BreakEven, 1e-9) || !near(y, 1, 0.02) {
					t.Errorf("k=%d: break-even drawn at a=%v (%v×), sim %v", k, a, y, sp.BreakEven)
				}
			}
		}
		if n != 2*39 {
			t.Errorf("%d points; want 2 curves × 39 acceptance rates", n)
		}
	})

	t.Run("plan", func(t *testing.T) {
		rows := plotData(t, "plot", "plan", "--hardware", "jetson-orin-nano-super-8gb", "--engine", "gpu", "--model", "llama-3.2-3b",
			"--weights", "q4_k_m", "--ttft", "1s", "--tpot", "200ms")
		// Each cell as plan's text says it: its verdict at the default
		// 80 %, else the first constraint it fails.
		verdicts := map[string]int{}
		for _, r := range rows {
			ctx := int(atof(t, r[3]))
			c := jetson.Evaluate(ctx, 1, 512, 128, 512, sim.Targets{TTFT: 1, TPOT: 0.2})
			verdicts[c.Verdict.String()]++
			var want string
			switch {
			case c.Verdict == sim.Meets:
				want = "meets every target"
			case c.Verdict == sim.Uncertain:
				want = "uncertain: the interval straddles a target"
			case c.Limit != sim.LimitNone:
				want = "fails first: " + c.Limit.String()
			default:
				want = "fails at the interval's fast end"
			}
			if r[1] != want {
				t.Errorf("context %d: plotted %q, sim says %q", ctx, r[1], want)
			}
		}
		if len(rows) < 5 || verdicts["meets"] == 0 || verdicts["uncertain"] == 0 {
			t.Errorf("%d plan cells, verdicts %v; want the default context ladder, some meeting and some uncertain", len(rows), verdicts)
		}
	})
}

// TestPlotDeterministic renders one figure twice.
func TestPlotDeterministic(t *testing.T) {
	dir := t.TempDir()
	var out [2][]byte
	for i := range out {
		path := filepath.Join(dir, strconv.Itoa(i)+".svg")
		if _, errOut, code := runCLI("plot", "batch", "-m", "llama-3.2-1b,llama-3.2-3b", "--hw", "apple-m2", "-o", path); code != 0 {
			t.Fatal(errOut)
		}
		out[i], _ = os.ReadFile(path)
	}
	if !bytes.Equal(out[0], out[1]) || len(out[0]) == 0 {
		t.Error("the same plot rendered twice differs")
	}
}

func TestPlotErrors(t *testing.T) {
	base := []string{"-m", "llama-3.2-3b", "--hw", "rk3588"}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plot", "pie"}, 2, `unknown plot kind "pie"`},
		{[]string{"plot"}, 2, "give a kind"},
		{append([]string{"plot", "tpot-context", "-o", "x.jpg"}, base...), 2, `unknown image type ".jpg"`},
		{append([]string{"plot", "tpot-context"}, base...), 2, "-o FILE is required"},
		{append([]string{"plot", "tpot-context", "-o", "x.png", "--width", "16furlongs"}, base...), 2, "--width"},
		{append([]string{"plot", "tpot-context", "-o", "x.png", "--height", "1mm"}, base...), 2, "between 4 cm and 2 m"},
		{append([]string{"plot", "tpot-context", "-o", "x.png", "--data", "x.txt"}, base...), 2, "want a .csv file"},
		{[]string{"plot", "tpot-context", "-o", "x.png", "--hw", "rk3588"}, 2, "--model is required"},
		{[]string{"plot", "tpot-context", "-o", "x.png", "-m", "llama-3.2-3b", "--hw", "nosuch"}, 1, `--hardware: unknown hardware "nosuch"`},
		{[]string{"plot", "concurrency", "-o", "x.png", "-m", "llama-3.2-3b,nosuch", "--hw", "rk3588"}, 1, `--model: unknown model "nosuch"`},
		{append([]string{"plot", "tpot-context", "-o", "x.png", "--weights", "q4_k_x"}, base...), 1, "q4_k_x"},
		{append([]string{"plot", "tpot-context", "-o", "x.png", "--engine", "tpu"}, base...), 2, "has none of these engines"},
		{append([]string{"plot", "tpot-context", "-o", "x.png", "--max-context", "100"}, base...), 2, "at least 256"},
		{append([]string{"plot", "tpot-context", "-o", "x.png", "--tpot", "fast"}, base...), 2, "--tpot"},
		{append([]string{"plot", "batch", "-o", "x.png", "--max-batch", "1"}, base...), 2, "--max-batch"},
		{append([]string{"plot", "ttft-prompt", "-o", "x.png", "--max-prompt", "-5"}, base...), 2, "--max-prompt"},
		{append([]string{"plot", "tpot-context", "-o", "x.png", "--bw-efficiency", "NaN"}, base...), 2, "--bw-efficiency"},
		{append([]string{"plot", "tpot-context", "-o", "x.png", "--measured", "nosuch.json"}, base...), 1, "nosuch.json"},
		{[]string{"plot", "compare", "-o", "x.png"}, 2, "measured-run files"},
		{append([]string{"plot", "speculative", "-o", "x.png"}, base...), 2, "--draft MODEL is required"},
		{[]string{"plot", "speculative", "-o", "x.png", "-m", "llama-3.2-1b", "--hw", "rk3588", "--draft", "llama-3.2-3b"}, 1, "not smaller than the target"},
		{[]string{"plot", "speculative", "-o", "x.png", "-m", "llama-3.2-3b", "--hw", "rk3588", "--draft", "llama-3.2-1b", "--draft-tokens", "99"}, 2, "--draft-tokens must be 0 … 64"},
		{[]string{"plot", "tpot-context", "-o", "x.png", "-m", "llama-3.2-1b,llama-3.2-3b,qwen2.5-0.5b,qwen2.5-1.5b,qwen2.5-3b,qwen2.5-7b,llama-3.1-8b,gemma-2-2b", "--hw", "apple-m*,rtx-3*", "--weights", "q4_k_m"}, 2, "cannot be drawn legibly"},
		{[]string{"plot", "plan", "-o", "x.png", "--hardware", "all", "--model", "llama-3.2-3b", "--weights", "q4_k_m"}, 2, "plot at most 40"},
		// A CPU engine has no GPU layers to sweep (it drew the Pi's CPU
		// offloading to itself).
		{[]string{"plot", "gpu-layers", "-o", "x.png", "-m", "llama-3.2-1b", "--hw", "raspberry-pi-5-8gb"}, 2, "--hardware raspberry-pi-5-8gb's cpu engine is a CPU: every layer runs from host memory"},
		// An empty list is refused naming its flag (it panicked in the measured rows: no series).
		{[]string{"plot", "tpot-context", "-o", "x.png", "-m", "llama-3.2-3b", "--hw", ","}, 2, `--hardware "," names nothing`},
		{[]string{"plot", "tpot-context", "-o", "x.png", "-m", " , ", "--hw", "rk3588"}, 2, `--model " , " names nothing`},
		{append([]string{"plot", "tpot-context", "-o", "x.png", "--engine", ","}, base...), 2, `--engine "," names nothing`},
	}
	for _, c := range cases {
		dir := t.TempDir()
		args := make([]string, len(c.args))
		for i, a := range c.args {
			if strings.HasPrefix(a, "x.") {
				a = filepath.Join(dir, a)
			}
			args[i] = a
		}
		_, errOut, code := runCLI(args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d with %q", c.args, code, errOut, c.code, c.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v: left %d files behind", c.args, len(entries))
		}
	}
}

func TestParseLength(t *testing.T) {
	cases := []struct {
		in   string
		want float64 // points; 0: an error
	}{
		{"16cm", 16 * 72 / 2.54}, {" 160MM ", 160 * 72 / 25.4}, {"6in", 432}, {"450pt", 450},
		{"3cm", 0}, {"3m", 0}, {"16", 0}, {"cm", 0}, {"-16cm", 0}, {"NaNcm", 0}, {"1e400cm", 0},
	}
	for _, c := range cases {
		got, err := parseLength("width", c.in)
		if c.want == 0 {
			if err == nil {
				t.Errorf("%q: %v, want an error", c.in, got)
			}
		} else if err != nil || !near(got.Points(), c.want, 1e-9) {
			t.Errorf("%q: %v pt, %v; want %v pt", c.in, got.Points(), err, c.want)
		}
	}
}

func FuzzParseLength(f *testing.F) {
	for _, s := range []string{"16cm", "160mm", "6in", "450pt", "", "1e9in", "-0cm"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := parseLength("width", s)
		if err == nil && (l.Points() < 4*72/2.54-1e-9 || l.Points() > 200*72/2.54+1e-9) {
			t.Errorf("%q: %v pt outside 4 cm … 2 m", s, l.Points())
		}
	})
}
