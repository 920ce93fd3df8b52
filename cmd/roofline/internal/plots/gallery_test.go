package plots

import (
	"flag"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var galleryDir = flag.String("gallery", "", "write the gallery's PNG, SVG and PDF files to `DIR` (default: a temporary directory)")

// Series of the gallery: real device and model names, with two devices
// whose curves coincide (the RK3588's and the Raspberry Pi 5's CPUs both
// stream from LPDDR4X at the same rate here).
var (
	galleryDevices = []struct {
		name string
		bw   float64 // B/s
		peak float64 // FLOP/s
		mem  float64 // B
	}{
		{"jetson-orin-nano-super-8gb · gpu", 102e9, 17e12, 7.4e9},
		{"rk3588 · cpu", 17e9, 0.4e12, 15e9},
		{"raspberry-pi-5 · cpu", 17e9, 0.4e12, 7.5e9},
		{"apple-m2 · gpu", 100e9, 7e12, 16e9},
		{"rtx-4090 · gpu", 1008e9, 165e12, 24e9},
		{"dgx-spark · gpu", 273e9, 100e12, 120e9},
		{"rk3588 · npu", 17e9, 3e12, 15e9},
		{"jetson-agx-orin-64gb · gpu", 204e9, 43e12, 61e9},
	}
	galleryModels = []struct {
		name   string
		params float64
		kv     float64 // B per token
	}{{"llama-3.2-1b", 1.24e9, 32768}, {"llama-3.2-3b", 3.2e9, 114688}, {"qwen2.5-7b", 7.6e9, 57344}, {"llama-3.1-8b", 8e9, 131072},
		{"qwen2.5-0.5b", 0.49e9, 12288}, {"qwen2.5-1.5b", 1.54e9, 28672}}
)

// gallerySeries is n series as the command names them: 1 to 8 devices
// with one model, then 4 devices × 4 models, or 3 × 6 (the voice
// assistant's study), faceted by device.
type gSeries struct {
	label, facet       string
	bw, peak, mem      float64
	weights, kvPerTok  float64
	params             float64
	device, modelLabel string
}

func gallerySeries(t *testing.T, n int) []gSeries {
	devs, mods, fmts := n, 1, 1
	switch {
	case n == 27: // the report of three boards × three models × three formats
		devs, mods, fmts = 3, 3, 3
	case n > 8:
		mods = 4
		if n%4 != 0 {
			mods = 6
		}
		devs = n / mods
	}
	formats := []struct {
		name  string
		bytes float64 // per parameter
	}{{"q4_k_m", 0.6}, {"q8_0", 1.06}, {"f16", 2}}
	var keys [][]string
	var out []gSeries
	for m := 0; m < mods; m++ {
		for d := 0; d < devs; d++ {
			for w := 0; w < fmts; w++ {
				dv, md := galleryDevices[d%len(galleryDevices)], galleryModels[(m+1)%len(galleryModels)]
				if n == 27 {
					dv = galleryDevices[[]int{0, 1, 2}[d]]
					md = galleryModels[[]int{0, 1, 5}[m]]
				}
				dev, eng, _ := strings.Cut(dv.name, " · ")
				keys = append(keys, []string{dev, eng, md.name, formats[w].name, "f16"})
				out = append(out, gSeries{bw: dv.bw, peak: dv.peak, mem: dv.mem, weights: md.params * formats[w].bytes, params: md.params, kvPerTok: md.kv, device: dv.name, modelLabel: md.name})
			}
		}
	}
	if n != 27 { // devices first, as before
		sort.SliceStable(out, func(i, j int) bool { return deviceIndex(out[i].device) < deviceIndex(out[j].device) })
		sort.SliceStable(keys, func(i, j int) bool {
			return deviceIndex(keys[i][0]+" · "+keys[i][1]) < deviceIndex(keys[j][0]+" · "+keys[j][1])
		})
	}
	names, err := Name([]Dim{{Name: "device"}, {Name: "engine", Prefix: "engine "}, {Name: "model"}, {Name: "weights", Prefix: "weights "}, {Name: "KV", Prefix: "KV "}}, keys)
	if err != nil {
		t.Fatal(err)
	}
	for i := range out {
		out[i].label, out[i].facet = names.Labels[i], names.Facets[i]
		if out[i].label == "" {
			out[i].label = out[i].modelLabel + " on " + out[i].device
		}
	}
	return out
}

func deviceIndex(name string) int {
	for i, d := range galleryDevices {
		if d.name == name {
			return i
		}
	}
	return -1
}

func pow2s(lo, hi float64) []float64 {
	var x []float64
	for v := lo; v <= hi; v *= math.Sqrt2 {
		x = append(x, math.Round(v))
	}
	return x
}

// galleryKinds builds each kind of figure at n series from hand-sized
// physics (bytes / bandwidth, FLOPs / peak): the layout is under test,
// not the predictor.
var galleryKinds = map[string]func(t *testing.T, n int) (*Figure, error){
	"tpot-context": func(t *testing.T, n int) (*Figure, error) {
		var cs []Curve
		for i, s := range gallerySeries(t, n) {
			c := Curve{Label: s.label, Facet: s.facet, X: pow2s(64, 131072)}
			for _, x := range c.X {
				b := s.weights + s.kvPerTok*x
				c.Expected = append(c.Expected, 1e3*b/(0.7*s.bw))
				c.Ideal = append(c.Ideal, 1e3*b/s.bw)
			}
			if fit := (s.mem - s.weights) / s.kvPerTok; fit < 131072 {
				c.Limit = fit
			}
			if i == 0 {
				c.Measured = []Point{{X: 512, Y: c.Expected[6] * 1.1, Label: "MBU 71%"}, {X: 4096, Y: c.Expected[12] * 1.05, Label: "MBU 68%"}}
			}
			cs = append(cs, c)
		}
		return Latency("Time per output token as the KV cache grows: weights q4_k_m, KV f16\nbatch 1; expected at llama.cpp: η_bw 0.70", "context (tokens attended by the step)", "TPOT (ms)", cs, 200, "TPOT target 200 ms", AutoY)
	},
	"ttft-prompt": func(t *testing.T, n int) (*Figure, error) {
		var cs []Curve
		for i, s := range gallerySeries(t, n) {
			c := Curve{Label: s.label, Facet: s.facet, X: pow2s(16, 32768), SwitchLabel: "prefill turns compute-bound"}
			for _, x := range c.X {
				mem, comp := s.weights/s.bw, 2*s.weights/0.6*x/s.peak
				c.Expected = append(c.Expected, math.Max(mem/0.7, comp/0.5))
				c.Ideal = append(c.Ideal, math.Max(mem, comp))
				if c.Switch == 0 && comp/0.5 > mem/0.7 {
					c.Switch = x
				}
			}
			if i == 0 {
				c.Measured = []Point{{X: 512, Y: c.Expected[10] * 1.2, Label: "MFU 22%"}, {X: 512, Y: c.Expected[10] * 1.25, Label: "MFU 21%"}}
			}
			cs = append(cs, c)
		}
		return Latency("Time to first token against prompt length: weights q4_k_m, KV f16\nbatch 1, depth 0, ubatch 512; expected at each engine's efficiencies", "prompt (tokens)", "TTFT (s)", cs, 1, "TTFT target 1 s", LogY)
	},
	"batch": func(t *testing.T, n int) (*Figure, error) {
		var tput, tpot []Curve
		for _, s := range gallerySeries(t, n) {
			a := Curve{Label: s.label, Facet: s.facet, X: pow2s(1, 256), SwitchLabel: "decode turns compute-bound"}
			b := a
			for _, x := range a.X {
				step := math.Max((s.weights+x*1200*s.kvPerTok)/(0.7*s.bw), 2*s.weights/0.6*x/(0.5*s.peak))
				a.Expected, b.Expected = append(a.Expected, x/step), append(b.Expected, 1e3*step)
				if a.Switch == 0 && 2*s.weights/0.6*x/(0.5*s.peak) > (s.weights+x*1200*s.kvPerTok)/(0.7*s.bw) {
					a.Switch, b.Switch = x, x
				}
			}
			if fit := (s.mem - s.weights) / (1200 * s.kvPerTok); fit < 256 && fit >= 1 {
				a.Limit, b.Limit = math.Floor(fit), math.Floor(fit)
			}
			tput, tpot = append(tput, a), append(tpot, b)
		}
		return Batch("Batching: aggregate throughput and per-sequence TPOT: weights q4_k_m\nprompt 1000 + depth 0, output 200; expected at llama.cpp: η_bw 0.70", tput, tpot, 50, AutoY)
	},
	"concurrency": func(t *testing.T, n int) (*Figure, error) {
		var tpot, ttft []Curve
		for _, s := range gallerySeries(t, n) {
			a := Curve{Label: s.label, Facet: s.facet, X: pow2s(1, 32)}
			b := a
			for _, x := range a.X {
				step := (s.weights + x*2200*s.kvPerTok) / (0.7 * s.bw)
				a.Expected, b.Expected = append(a.Expected, 1e3*step), append(b.Expected, x*50*2*s.weights/0.6/(0.5*s.peak)+step)
			}
			if fit := (s.mem - s.weights) / (2200 * s.kvPerTok); fit < 32 && fit >= 1 {
				a.Limit, b.Limit = math.Floor(fit), math.Floor(fit)
			}
			tpot, ttft = append(tpot, a), append(ttft, b)
		}
		return Stacked("Concurrent chats (continuous batching): weights q4_k_m\n2200 tokens per chat (depth 2000 + message 50 + reply 150); TTFT: all send at once", "concurrent chats", true,
			Panel{YLabel: "TPOT per chat (ms)", Curves: tpot, Target: 200, TargetLabel: "TPOT target 200 ms", Scale: LogY},
			Panel{YLabel: "TTFT (s)", Curves: ttft, Target: 1, TargetLabel: "TTFT target 1 s", Scale: LogY})
	},
	"chat": func(t *testing.T, n int) (*Figure, error) {
		var ttft, cum []Curve
		strategies := []string{"keep-kv", "prefix-cache", "recompute"}
		for i := 0; i < n; i++ {
			label := strategies[i%3]
			if n > 3 {
				label = fmt.Sprintf("%s · system %d", strategies[i%3], 250*(i/3+1))
			}
			a := Curve{Label: label}
			b := a
			total := 0.0
			for turn := 1; turn <= 20; turn++ {
				prefill := 0.05 * float64(1+i/3)
				if i%3 > 0 {
					prefill *= float64(turn) * float64(i%3)
				}
				total += prefill + 150*0.04
				a.X, a.Expected = append(a.X, float64(turn)), append(a.Expected, prefill)
				b.X, b.Expected = append(b.X, float64(turn)), append(b.Expected, total)
			}
			ttft, cum = append(ttft, a), append(cum, b)
		}
		return Stacked("Conversation: llama-3.2-3b on jetson-orin-nano-super-8gb (gpu, weights q4_k_m, KV f16)\nsystem 500, user 50, reply 150 tokens per turn; expected at η_bw 0.80, η_compute 0.67", "turn", false,
			Panel{YLabel: "TTFT (s)", Curves: ttft, Target: 1, TargetLabel: "TTFT target 1s", Scale: LogY},
			Panel{YLabel: "Σ E2E (s)", Curves: cum})
	},
	"speculative": func(t *testing.T, n int) (*Figure, error) {
		var cs []Curve
		for k := 1; k <= n; k++ {
			c := Curve{Label: fmt.Sprintf("k = %d drafted tokens", k), SwitchLabel: "break-even acceptance"}
			for i := 0; i <= 38; i++ {
				a := 0.025 * float64(i)
				tokens := (1 - math.Pow(a, float64(k+1))) / (1 - a)
				cost := 1 + 0.18*float64(k)
				c.X, c.Expected = append(c.X, a), append(c.Expected, tokens/cost)
				if c.Switch == 0 && tokens/cost >= 1 && i > 0 {
					c.Switch = a
				}
			}
			cs = append(cs, c)
		}
		return Stacked("Speculative decoding: llama-3.2-1b drafts for llama-3.1-8b (q4_k_m)\njetson-orin-nano-super-8gb gpu, context 1024, batch 1; expected at η_bw 0.80, η_compute 0.67", "acceptance rate a (share of drafted tokens accepted)", false,
			Panel{YLabel: "speed-up over plain decoding (×)", Curves: cs, Target: 1, TargetLabel: "no speed-up (1×)"})
	},
	"ops": func(t *testing.T, n int) (*Figure, error) {
		// n operators of a 36-layer MoE model on an H100 (gpt-oss-120b
		// under vLLM at batch 8): its eight operators, then the same
		// over more layer kinds, each a little apart.
		kinds := []string{"attention projections", "attention", "feed-forward", "routed experts", "shared experts", "router", "output head", "embedding, norms"}
		base := []OpMark{
			{Kind: kinds[3], Label: "experts_gate_up", Intensity: 4.2, FLOPPerS: 10e12, Share: 0.46},
			{Kind: kinds[3], Label: "experts_down", Intensity: 4.2, FLOPPerS: 10e12, Share: 0.23},
			{Kind: kinds[0], Label: "qkv_proj", Intensity: 8, FLOPPerS: 19e12, Share: 0.05},
			{Kind: kinds[0], Label: "o_proj", Intensity: 8, FLOPPerS: 19e12, Share: 0.04},
			{Kind: kinds[6], Label: "lm_head", Intensity: 8, FLOPPerS: 18e12, Share: 0.06},
			{Kind: kinds[1], Label: "flash_attention", Intensity: 8, FLOPPerS: 17e12, Share: 0.01},
			{Kind: kinds[5], Label: "router", Intensity: 4, FLOPPerS: 9e12, Share: 0.002},
			{Kind: kinds[7], Label: "norms", Intensity: 0.5, FLOPPerS: 1e12, Share: 0.001},
		}
		var marks []OpMark
		for i := 0; i < n; i++ {
			m := base[i%len(base)]
			if k := i / len(base); k > 0 {
				m.Label += fmt.Sprintf(" · group %d", k)
				m.Intensity *= 1 + 0.3*float64(k)
			}
			marks = append(marks, m)
		}
		roof := Roof{Label: "h100-sxm gpu fp16", Peak: 989e12, Bandwidth: 3.35e12}
		exp := Roof{Label: "expected: 85 % of the bandwidth", Peak: 400e12, Bandwidth: 0.85 * 3.35e12}
		return OperatorRoofline("gpt-oss-120b mxfp4 on h100-sxm (gpu, vllm): where the time goes, operator by operator", kinds, []OpsPanel{
			{Title: "prefill of 512 tokens × 8: TTFT 255 ms", Roof: roof, Expected: exp, Marks: marks, Note: "not drawn (no FLOPs, or fixed): pass_overhead, layer_overhead, 4.2% of the time"},
			{Title: "decode step at 513 keys × 8: ITL 8.51 ms", Roof: roof, Expected: exp, Marks: marks, Note: "not drawn (no FLOPs, or fixed): step_overhead, layer_overhead, 15.0% of the time"},
		})
	},
	"roofline": func(t *testing.T, n int) (*Figure, error) {
		var roofs []Roof
		var pts []OpPoint
		idx := map[string]int{}
		ss := gallerySeries(t, n)
		shared := false
		count := map[string]int{}
		for _, s := range ss {
			count[s.facet+s.device]++
			shared = shared || count[s.facet+s.device] > 1
		}
		for i, s := range ss {
			key := s.facet + s.device
			ri, ok := idx[key]
			if !ok {
				ri = len(roofs)
				idx[key] = ri
				roofs = append(roofs, Roof{Label: s.device + " fp16", Peak: s.peak, Bandwidth: s.bw, Facet: s.facet})
			}
			tag := ""
			if shared {
				tag = s.label
			}
			pts = append(pts, OpPoint{Roof: ri, Intensity: 900 * (1 + s.weights/1e11), FLOPPerS: 0.5 * s.peak, Label: "pp512", Prefill: true, Series: tag})
			for b := 1.0; b <= 256; b *= 16 {
				in := 2 * b * s.params / (s.weights + b*576*s.kvPerTok)
				pts = append(pts, OpPoint{Roof: ri, Intensity: in, FLOPPerS: 0.7 * math.Min(s.peak, in*s.bw), Label: fmt.Sprintf("b%.0f", b), Batch: int(b), Series: tag})
			}
			// Measured runs (llama-bench: pp512, tg128, tg128 @ d4096) of the
			// first device's q4_k_m series, as a report's measured file.
			if s.device == ss[0].device && (i == 0 || n == 27 && strings.HasSuffix(s.label, "q4_k_m")) {
				in := 2 * s.params / s.weights
				pts = append(pts,
					OpPoint{Roof: ri, Intensity: in, FLOPPerS: 0.71 * in * s.bw, Label: "MBU 71%", Batch: 1, Series: tag, Measured: true},
					OpPoint{Roof: ri, Intensity: in * 0.97, FLOPPerS: 0.68 * in * 0.97 * s.bw, Label: "MBU 68%", Batch: 1, Series: tag, Measured: true},
					OpPoint{Roof: ri, Intensity: 800, FLOPPerS: 0.22 * s.peak, Label: "MFU 22%", Prefill: true, Series: tag, Measured: true})
			}
		}
		return Roofline("Roofline: weights q4_k_m, KV f16\npp512: prefill of 512 tokens; bN: decode at batch N, context 576", roofs, pts)
	},
	"memory": func(t *testing.T, n int) (*Figure, error) {
		var bars []MemoryBar
		for _, s := range gallerySeries(t, n) {
			bars = append(bars, MemoryBar{Label: s.label, Facet: s.facet, Weights: s.weights, KV: 4096 * s.kvPerTok, Activations: 0.3e9, Overhead: 256 << 20, Usable: s.mem})
		}
		return Memory("Memory against usable memory: weights q4_k_m, KV f16\nbatch 1, ubatch 512, context 4k, runtime overhead 256 MiB", bars)
	},
	"compare": func(t *testing.T, n int) (*Figure, error) {
		var groups []string
		var runs []Comparison
		for i, s := range gallerySeries(t, n) {
			g := i
			if n > 6 { // the command groups by family past six devices
				fam, _, _ := strings.Cut(s.device, "-")
				g = -1
				for j, name := range groups {
					if name == fam {
						g = j
					}
				}
				if g < 0 {
					g = len(groups)
					groups = append(groups, fam)
				}
			} else {
				groups = append(groups, s.device)
			}
			tg := 0.7 * s.bw / s.weights
			pp := 0.5 * s.peak / (2 * s.weights / 0.6)
			suffix := ""
			if n > 8 {
				suffix = " · " + s.modelLabel
			}
			runs = append(runs,
				Comparison{Group: g, Label: "pp512" + suffix, Prefill: true, Measured: pp * (0.9 + 0.02*float64(i%5)), Predicted: pp, Utilization: 0.45 + 0.01*float64(i)},
				Comparison{Group: g, Label: "tg128" + suffix, Measured: tg * (1.05 - 0.02*float64(i%4)), Predicted: tg, Utilization: 0.7 + 0.01*float64(i%8)},
				Comparison{Group: g, Label: "tg128 @ d4096" + suffix, Measured: tg * 0.8, Predicted: tg * 0.85, Utilization: 0.62})
		}
		return Compare(fmt.Sprintf("Predicted against measured: %d runs\ndecode MdAPE 7.1%% (n=%d), prefill MdAPE 9.2%% (n=%d); default efficiencies unless calibrated", len(runs), 2*n, n), groups, runs)
	},
	"plan": func(t *testing.T, n int) (*Figure, error) {
		var rows []string
		var cells []PlanCell
		cls := []PlanCell{{Verdict: "meets"}, {Verdict: "meets"}, {Verdict: "uncertain"}, {Verdict: "uncertain", Limit: "tpot"},
			{Verdict: "fails", Limit: "tpot"}, {Verdict: "fails", Limit: "ttft"}, {Verdict: "fails", Limit: "memory"}}
		for i, s := range gallerySeries(t, n) {
			rows = append(rows, strings.TrimSuffix(s.device+" · "+s.modelLabel, " ")+" · q4_k_m")
			for c, ctx := 0, 512; ctx <= 131072; c, ctx = c+1, ctx*2 {
				cell := cls[min(len(cls)-1, max(0, c-i%3))]
				cell.Row, cell.Context = i, ctx
				cells = append(cells, cell)
			}
		}
		return Plan("Plan: TTFT < 1 s, TPOT < 200 ms, fits with 10% headroom\nKV f16; prompt 512, output 128; verdicts 80 % sure, else the first failing constraint", rows, cells)
	},
}

// defaultHeight is the command's default height for a kind.
func defaultHeight(kind string) vg.Length {
	switch kind {
	case "batch", "compare", "chat", "concurrency":
		return 14 * vg.Centimeter
	}
	return 10 * vg.Centimeter
}

// TestGallery renders every kind at 1, 4, 8, 16 and 18 series in every format
// at the size the command would choose, and checks what a reader would
// see: the plot areas keep MinPlotShare of the height, no two texts
// overlap, no series hides under another unless labelled as coinciding,
// every numeric axis has MinTickLabels labels, and every character drawn
// has a tested PDF mapping.
func TestGallery(t *testing.T) {
	dir := *galleryDir
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kind := range Kinds {
		build, ok := galleryKinds[kind]
		if !ok {
			t.Errorf("no gallery figure for kind %s", kind)
			continue
		}
		for _, n := range []int{1, 4, 8, 16, 18, 27} {
			name := fmt.Sprintf("%s-%02d", kind, n)
			t.Run(name, func(t *testing.T) {
				f, err := build(t, n)
				if err != nil {
					t.Fatal(err)
				}
				w := 16 * vg.Centimeter
				h := f.Height(w, defaultHeight(kind))
				for _, format := range Formats {
					b, err := Render(f, format, w, h)
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, name+"."+format), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				checkFigure(t, f, w, h)
			})
		}
	}
}

// checkFigure draws f on a recorder and checks the drawing.
func checkFigure(t *testing.T, f *Figure, w, h vg.Length) {
	t.Helper()
	rec := newRecorder(w, h, true)
	if err := f.draw(draw.New(rec)); err != nil {
		t.Fatal(err)
	}
	// Plot areas: the data areas' union along y.
	type span struct{ lo, hi vg.Length }
	var spans []span
	for _, a := range f.areas {
		spans = append(spans, span{a.Min.Y, a.Max.Y})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	total, end := vg.Length(0), vg.Length(math.Inf(-1))
	for _, s := range spans {
		lo := max(s.lo, end)
		if s.hi > lo {
			total += s.hi - lo
			end = s.hi
		}
	}
	if share := float64(total / h); share < MinPlotShare {
		t.Errorf("plot areas take %.0f%% of the height; want at least %.0f%%", 100*share, 100*MinPlotShare)
	}
	// Text boxes.
	boxes := make([]quad, len(rec.texts))
	for i, tx := range rec.texts {
		boxes[i] = inkBox(t, tx)
		for _, r := range tx.text {
			if r > 127 && !strings.ContainsRune(nonASCII, r) {
				t.Errorf("%q draws %q, which TestPDFText does not check: add it to nonASCII", tx.text, r)
			}
		}
		for _, p := range boxes[i] {
			if p.X < -0.5 || p.Y < -0.5 || p.X > w+0.5 || p.Y > h+0.5 {
				t.Errorf("%q reaches outside the figure", tx.text)
				break
			}
		}
	}
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			if boxes[i].overlaps(boxes[j]) {
				t.Errorf("texts overlap: %q and %q", rec.texts[i].text, rec.texts[j].text)
			}
		}
	}
	// Every measured point is drawn with its label (MBU, MFU) inside a
	// panel's data area: the points a reader came to compare.
	drawnLabels := map[string]int{}
	for i, tx := range rec.texts {
		if inAreas(boxes[i][0], f.areas) && inAreas(boxes[i][2], f.areas) {
			drawnLabels[tx.text]++
		}
	}
	want := map[string]int{}
	for _, d := range f.Data {
		if d.Quantity == "measured" && d.Label != "" {
			want[d.Label]++
		}
	}
	for l, n := range want {
		if drawnLabels[l] < n {
			t.Errorf("measured %q: %d labelled inside the panels, of %d measured", l, drawnLabels[l], n)
		}
	}
	// Series lines (seriesWidth, or narrower over a line they lie on)
	// inside the data areas: each must show somewhere, not lie wholly
	// under the lines drawn after it.
	var series []drawnStroke
	for _, s := range rec.strokes {
		if isSeriesWidth(s.width) && len(s.pts) > 1 && inAreas(s.pts[0], f.areas) {
			series = append(series, s)
		}
	}
	for i, s := range series {
		if sampleCovered(s, series[i+1:]) {
			r, g, b, _ := s.color.RGBA()
			t.Errorf("a series line (colour #%02x%02x%02x) is hidden under the lines drawn after it", r>>8, g>>8, b>>8)
		}
	}
	// Ticks.
	for _, p := range f.Panels() {
		for _, ax := range []struct {
			name string
			a    *plot.Axis
		}{{"x", &p.X}, {"y", &p.Y}} {
			m := ax.a.Tick.Marker
			if bt, ok := m.(blankTicks); ok {
				m = bt.Ticker
			}
			if _, nominal := m.(plot.ConstantTicks); nominal {
				continue
			}
			n := 0
			for _, tk := range m.Ticks(ax.a.Min, ax.a.Max) {
				if tk.Label != "" && tk.Value >= ax.a.Min && tk.Value <= ax.a.Max {
					n++
				}
			}
			if n < MinTickLabels {
				t.Errorf("panel %q: %s axis %q has %d labelled ticks over %v … %v; want %d", p.Title.Text, ax.name, ax.a.Label.Text, n, ax.a.Min, ax.a.Max, MinTickLabels)
			}
		}
	}
}

// isSeriesWidth says whether a stroke of width w is a series line.
func isSeriesWidth(w vg.Length) bool {
	for s := seriesWidth; s > 0.1; s *= thinWidth {
		if math.Abs(float64(w)-s) < 1e-9 {
			return true
		}
	}
	return false
}

func inAreas(p vg.Point, areas []vg.Rectangle) bool {
	for _, a := range areas {
		if p.X >= a.Min.X-1 && p.X <= a.Max.X+1 && p.Y >= a.Min.Y-1 && p.Y <= a.Max.Y+1 {
			return true
		}
	}
	return false
}

// sampleCovered says whether at every point along s, sampled each point,
// a stroke over it covers at least half of its width (across the line),
// so that no more than a sliver of its colour shows anywhere. A narrower
// line over a wider one leaves the wider one's colour on both sides.
func sampleCovered(s drawnStroke, over []drawnStroke) bool {
	for i := 1; i < len(s.pts); i++ {
		a, b := s.pts[i-1], s.pts[i]
		n := int(math.Ceil(float64(dist(a, b)))) + 1
		for k := 0; k <= n; k++ {
			t := float64(k) / float64(n)
			p := vg.Point{X: a.X + (b.X-a.X)*vg.Length(t), Y: a.Y + (b.Y-a.Y)*vg.Length(t)}
			hidden := false
			for _, o := range over {
				if sameColor(o.color, s.color) && len(o.dashes) == len(s.dashes) {
					continue // the same style drawn twice is one line
				}
				if onShare(o.dashes) < 0.6 {
					continue // mostly gaps: the line shows between its dashes
				}
				for j := 1; j < len(o.pts) && !hidden; j++ {
					hidden = shown(s.width, o.width, segDist(p, o.pts[j-1], o.pts[j])) <= s.width/2
				}
				if hidden {
					break
				}
			}
			if !hidden {
				return false
			}
		}
	}
	return true
}

// shown is how much of a line of width ws shows beside a line of width
// wo drawn over it d away, across the lines: ws less the overlap of
// [−ws/2, ws/2] and [d − wo/2, d + wo/2]. For equal widths w it is d, up
// to w.
func shown(ws, wo, d vg.Length) vg.Length {
	return ws - max(0, min(ws/2, d+wo/2)-max(-ws/2, d-wo/2))
}

// onShare is the share of a dash pattern that is drawn: 1 when solid.
func onShare(dashes []vg.Length) float64 {
	on, all := vg.Length(0), vg.Length(0)
	for i, d := range dashes {
		all += d
		if i%2 == 0 {
			on += d
		}
	}
	if all == 0 {
		return 1
	}
	return float64(on / all)
}

func sameColor(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

func dist(a, b vg.Point) vg.Length {
	return vg.Length(math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y)))
}

func segDist(p, a, b vg.Point) vg.Length {
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	l2 := dx*dx + dy*dy
	t := 0.0
	if l2 > 0 {
		t = math.Max(0, math.Min(1, (float64(p.X-a.X)*dx+float64(p.Y-a.Y)*dy)/l2))
	}
	return dist(p, vg.Point{X: a.X + vg.Length(t*dx), Y: a.Y + vg.Length(t*dy)})
}

// quad is a text's ink box on the page: four corners, counter-clockwise.
type quad [4]vg.Point

// inkBox is the box around the glyphs a FillString drew (not the font's
// line box: lines of a title are closer than ascent + descent).
func inkBox(t *testing.T, tx drawnText) quad {
	t.Helper()
	var buf sfnt.Buffer
	face := tx.face.Face
	ppem := fixed.Int26_6(tx.face.Font.Size.Points() * 64)
	x := 0.0
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, r := range tx.text {
		g, err := face.GlyphIndex(&buf, r)
		if err != nil {
			t.Fatal(err)
		}
		bounds, adv, err := face.GlyphBounds(&buf, g, ppem, 0)
		if err != nil {
			t.Fatal(err)
		}
		if bounds.Max.X > bounds.Min.X { // not a space
			minX = math.Min(minX, x+float64(bounds.Min.X)/64)
			maxX = math.Max(maxX, x+float64(bounds.Max.X)/64)
			// sfnt's y grows downwards.
			minY = math.Min(minY, -float64(bounds.Max.Y)/64)
			maxY = math.Max(maxY, -float64(bounds.Min.Y)/64)
		}
		x += float64(adv) / 64
	}
	if math.IsInf(minX, 1) {
		return quad{}
	}
	at := func(dx, dy float64) vg.Point {
		return tx.m.apply(vg.Point{X: tx.at.X + vg.Length(dx), Y: tx.at.Y + vg.Length(dy)})
	}
	return quad{at(minX, minY), at(maxX, minY), at(maxX, maxY), at(minX, maxY)}
}

// overlaps says whether two convex quads share more than a sliver
// (0.3 pt), by the separating axis theorem.
func (q quad) overlaps(o quad) bool {
	if q == (quad{}) || o == (quad{}) {
		return false
	}
	for _, shape := range []quad{q, o} {
		for i := range 4 {
			a, b := shape[i], shape[(i+1)%4]
			nx, ny := float64(a.Y-b.Y), float64(b.X-a.X)
			n := math.Hypot(nx, ny)
			if n == 0 {
				continue
			}
			nx, ny = nx/n, ny/n
			lo1, hi1 := project(q, nx, ny)
			lo2, hi2 := project(o, nx, ny)
			if math.Min(hi1, hi2)-math.Max(lo1, lo2) < 0.3 {
				return false
			}
		}
	}
	return true
}

func project(q quad, nx, ny float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range q {
		v := float64(p.X)*nx + float64(p.Y)*ny
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}
