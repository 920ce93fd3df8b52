package compare

import (
	"math"
	"os"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
)

func runsOf(t *testing.T, path string) []measured.Run {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := measured.Read(path, b)
	if err != nil {
		t.Fatal(err)
	}
	return res.Runs
}

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }

// The compare issue's acceptance case: LLaMA-2-7B Q4_0 (model_size
// 3,825,065,984 B) at tg128 = 94.27 t/s on the 76-core M2 Ultra (800 GB/s).
func TestMBUOfLlamaBenchRun(t *testing.T) {
	cat, _ := profiles.Builtin()
	ev := New(cat, Options{Hardware: "apple-m2-ultra", Sim: sim.DefaultOptions})
	rows, errs := ev.Evaluate(runsOf(t, "../measured/testdata/m2ultra-llama2-7b-q4_0.json"))
	if len(errs) > 0 || len(rows) != 2 {
		t.Fatalf("rows %d, errs %v", len(rows), errs)
	}
	dec := rows[1]
	if dec.Model != "llama-2-7b" || dec.Weights != "q4_0" {
		t.Fatalf("resolved to %s %s", dec.Model, dec.Weights)
	}
	// The weights streamed per step are exactly what `show model
	// llama-2-7b --weights q4_0` reports: 3,751,340,288 B.
	spec, _ := cat.Model("llama-2-7b")
	w, _ := model.LookupWeightFormat("q4_0")
	k, _ := model.LookupKVFormat("f16")
	m, _ := model.Build(spec, w, k, model.Layout{})
	if dec.WeightBytesPerStep != m.StreamedBytesPerToken() || dec.WeightBytesPerStep != 3751340288 {
		t.Fatalf("weights per step %.0f, show model %.0f", dec.WeightBytesPerStep, m.StreamedBytesPerToken())
	}
	// tg128 from an empty cache without flash attention (fa = 0): steps
	// attend 1 … 128 keys, mean 64.5 × 524,288 B = 33,816,576 B of KV per
	// step, and the unfused scores, 64.5 keys × 32 heads × 32 layers ×
	// 16 B = 1,056,768 B: 34,873,344 B of attention traffic per step.
	const attn = 64.5*524288 + 64.5*32*32*16
	if !near(dec.KVBytesPerStep, attn, 1e-12) {
		t.Errorf("attention bytes per step %.0f, want %.0f", dec.KVBytesPerStep, attn)
	}
	// MBU = bytes per step × 94.27 steps/s / 800 GB/s.
	want := (3751340288 + attn) * 94.27 / 800e9
	if !near(dec.MBU, want, 1e-9) {
		t.Errorf("MBU %.6f, want %.6f", dec.MBU, want)
	}
	// Weights alone: within 1 % of that (the attention share at this depth).
	if wOnly := 3751340288 * 94.27 / 800e9; !near(dec.MBU, wOnly, 0.01) {
		t.Errorf("MBU %.4f vs weights-only %.4f", dec.MBU, wOnly)
	}
	if dec.BeatsBound || dec.Ratio <= 0 || dec.PhaseBound != sim.MemoryBound {
		t.Errorf("row %+v", dec)
	}
	pre := rows[0]
	// pp512: MFU = prefill FLOPs / (512 / 1238.48 s) / 27.2 TFLOP/s.
	flops := m.PrefillFLOPs(0, 512, 1)
	if !near(pre.MFU, flops*1238.48/512/27.2e12, 1e-9) {
		t.Errorf("MFU %.6f, want %.6f", pre.MFU, flops*1238.48/512/27.2e12)
	}
}

// A measurement above the ideal bound is flagged.
func TestBeatsBound(t *testing.T) {
	cat, _ := profiles.Builtin()
	ev := New(cat, Options{Hardware: "apple-m2-ultra", Sim: sim.DefaultOptions})
	r := runsOf(t, "../measured/testdata/m2ultra-llama2-7b-q4_0.json")[1]
	r.TokensPerS = 500 // > 800 GB/s / 3.79 GB ≈ 211 t/s
	rows, _ := ev.Evaluate([]measured.Run{r})
	if !rows[0].BeatsBound || len(rows[0].Notes) == 0 {
		t.Errorf("500 t/s not flagged: %+v", rows[0])
	}
}

// A file whose size differs from the recipe is priced at its own size.
func TestScaledToFile(t *testing.T) {
	cat, _ := profiles.Builtin()
	ev := New(cat, Options{Hardware: "rtx-4080", Sim: sim.DefaultOptions})
	rows, errs := ev.Evaluate(runsOf(t, "../measured/testdata/rtx4080-qwen2.5-7b.json"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if rows[0].Model != "qwen2.5-7b" || rows[0].Weights != "q4_k_m" {
		t.Errorf("resolved %s %s", rows[0].Model, rows[0].Weights)
	}
}

func TestResolveErrors(t *testing.T) {
	cat, _ := profiles.Builtin()
	runs := runsOf(t, "../measured/testdata/m2ultra-llama2-7b-q4_0.json")
	if _, errs := New(cat, Options{}).Evaluate(runs); len(errs) != 2 {
		t.Errorf("no hardware: %v", errs)
	}
	r := runs[0]
	r.ModelParams = 1e6
	if _, errs := New(cat, Options{Hardware: "apple-m2-ultra"}).Evaluate([]measured.Run{r}); len(errs) != 1 {
		t.Errorf("unknown params: %v", errs)
	}
	if _, errs := New(cat, Options{Hardware: "apple-m2-ultra", Model: "nosuch"}).Evaluate(runs[:1]); len(errs) != 1 {
		t.Errorf("bad --model: %v", errs)
	}
}

func TestSummarize(t *testing.T) {
	rows := []Row{
		{Run: measured.Run{Test: measured.Decode}, Measured: 100, Predicted: 90, Ratio: 100.0 / 90},
		{Run: measured.Run{Test: measured.Decode}, Measured: 100, Predicted: 120, Ratio: 100.0 / 120},
		{Run: measured.Run{Test: measured.Decode}, Measured: 100, Predicted: 105, Ratio: 100.0 / 105},
		{Run: measured.Run{Test: measured.Prefill}, Measured: 50, Predicted: 100, Ratio: 0.5},
	}
	s := Summarize(rows)
	// |errors| 10 %, 20 %, 5 %: median 10 %.
	if s.Decode.N != 3 || !near(s.Decode.MdAPE, 0.10, 1e-12) || s.Prefill.N != 1 || s.Prefill.MdAPE != 1 {
		t.Errorf("%+v", s)
	}
}

// A run whose backend only one kind of device has (CUDA: NVIDIA's GPUs
// and Jetsons; Metal: Apple's) compared on a device of another kind is
// said to be: MBU against the wrong device's peaks is what a mistyped
// --hardware gives. A CPU-only or Vulkan backend says nothing of the
// device, and a generic CPU device ("cpu" family) may host any GPU build.
func TestBackendElsewhere(t *testing.T) {
	cat, _ := profiles.Builtin()
	cases := []struct {
		file, hardware string
		warn           bool
	}{
		{"rtx4080-qwen2.5-7b.json", "rtx-4080", false},             // CUDA on an NVIDIA GPU
		{"rtx4080-qwen2.5-7b.json", "jetson-orin-nano-8gb", false}, // CUDA on a Jetson
		{"rtx4080-qwen2.5-7b.json", "apple-m2-ultra", true},        // CUDA on a Mac
		{"rtx4080-qwen2.5-7b.json", "rx-7900-xtx", true},           // CUDA on an AMD GPU
		{"m2ultra-llama2-7b-q4_0.json", "apple-m2-ultra", false},   // Metal on a Mac
		{"m2ultra-llama2-7b-q4_0.json", "rtx-4080", true},          // Metal on an NVIDIA GPU
		{"m2ultra-llama2-7b-q4_0.json", "desktop-ddr5", false},     // a generic CPU device
	}
	for _, c := range cases {
		t.Run(c.file+"@"+c.hardware, func(t *testing.T) {
			ev := New(cat, Options{Hardware: c.hardware, Sim: sim.DefaultOptions})
			rows, errs := ev.Evaluate(runsOf(t, "../measured/testdata/"+c.file))
			if len(errs) > 0 || len(rows) == 0 {
				t.Fatalf("rows %d, errs %v", len(rows), errs)
			}
			if got := rows[0].Elsewhere != ""; got != c.warn {
				t.Errorf("Elsewhere %q, want a warning: %t", rows[0].Elsewhere, c.warn)
			}
		})
	}
}
