package plots

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

func curve(label string, y ...float64) Curve {
	x := make([]float64, len(y))
	for i := range y {
		x[i] = math.Pow(2, float64(i+6))
	}
	return Curve{Label: label, X: x, Expected: y}
}

func TestBadSeries(t *testing.T) {
	cases := []struct {
		name string
		fig  func() (*Figure, error)
		want string
	}{
		{"no series", func() (*Figure, error) { return Latency("t", "x", "y", nil, 0, "", AutoY) }, "no series"},
		{"empty series", func() (*Figure, error) { return Latency("t", "x", "y", []Curve{{Label: "a"}}, 0, "", AutoY) }, "a: empty series"},
		{"NaN", func() (*Figure, error) {
			return Latency("t", "x", "y", []Curve{curve("a", 1, math.NaN())}, 0, "", AutoY)
		}, "y value NaN at point 2"},
		{"log of zero", func() (*Figure, error) { return Latency("t", "x", "y", []Curve{curve("a", 1, 0)}, 0, "", LogY) }, "cannot go on a log axis"},
		{"ragged", func() (*Figure, error) {
			c := curve("a", 1, 2)
			c.Ideal = []float64{1}
			return Latency("t", "x", "y", []Curve{c}, 0, "", AutoY)
		}, "a (ideal): 2 x values but 1 y values"},
		{"no device", func() (*Figure, error) { return Roofline("t", nil, nil) }, "no device"},
		{"point off roof", func() (*Figure, error) {
			return Roofline("t", []Roof{{Label: "gpu", Peak: 1e12, Bandwidth: 1e11}}, []OpPoint{{Roof: 1, Intensity: 1, FLOPPerS: 1e9, Label: "b1"}})
		}, `"b1" refers to no device`},
		{"negative intensity", func() (*Figure, error) {
			return Roofline("t", []Roof{{Label: "gpu", Peak: 1e12, Bandwidth: 1e11}}, []OpPoint{{Intensity: -1, FLOPPerS: 1e9, Label: "b1"}})
		}, "cannot go on a log axis"},
		{"no bars", func() (*Figure, error) { return Memory("t", nil) }, "no configuration"},
		{"negative KV", func() (*Figure, error) { return Memory("t", []MemoryBar{{Label: "a", KV: -1}}) }, "a: KV cache is -1"},
		{"no runs", func() (*Figure, error) { return Compare("t", nil, nil) }, "no compared run"},
		{"zero measured", func() (*Figure, error) {
			return Compare("t", []string{"g"}, []Comparison{{Label: "r", Measured: 0, Predicted: 3}})
		}, "must be positive"},
		{"empty plan", func() (*Figure, error) { return Plan("t", nil, nil) }, "evaluated nothing"},
		{"plan cell off grid", func() (*Figure, error) { return Plan("t", []string{"a"}, []PlanCell{{Row: 3, Context: 1024}}) }, "out of range"},
	}
	for _, c := range cases {
		f, err := c.fig()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, %v; want an error with %q", c.name, f, err, c.want)
		}
	}
}

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]string{"a.png": "png", "b/c.SVG": "svg", "d.pdf": "pdf", "e.jpg": "", "f": ""} {
		got, err := FormatOf(path)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
	if _, err := Render(&Figure{}, "gif", 10*vg.Centimeter, 10*vg.Centimeter); err == nil {
		t.Error("Render to gif succeeded")
	}
}

func TestTooSmall(t *testing.T) {
	f, err := Batch("t", []Curve{curve("a", 1, 2)}, []Curve{curve("a", 3, 4)}, 0, AutoY)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Render(f, "svg", 10*vg.Centimeter, 4*vg.Centimeter); err == nil || !strings.Contains(err.Error(), "--height") {
		t.Errorf("a 4 cm two-panel figure: %v; want a hint to make it taller", err)
	}
}

func TestCSV(t *testing.T) {
	c := curve("jetson, gpu", 10, 20)
	c.Measured = []Point{{X: 64, Y: 12, Label: "MBU 71%"}}
	f, err := Latency("t", "context (tokens)", "TPOT (ms)", []Curve{c}, 200, "TPOT target", AutoY)
	if err != nil {
		t.Fatal(err)
	}
	want := `series,quantity,x_name,x,y_name,y,label
"jetson, gpu",expected,context (tokens),64,TPOT (ms),10,
"jetson, gpu",expected,context (tokens),128,TPOT (ms),20,
"jetson, gpu",measured,context (tokens),64,TPOT (ms),12,MBU 71%
TPOT target,target,,,TPOT (ms),200,
`
	if got := string(f.CSV()); got != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", got, want)
	}
}

// tickLabels are the labelled ticks a ticker puts on [lo, hi].
func tickLabels(tk plot.Ticker, lo, hi float64) string {
	var labels []string
	for _, t := range tk.Ticks(lo, hi) {
		if t.Label != "" {
			labels = append(labels, t.Label)
		}
	}
	return strings.Join(labels, " ")
}

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		name   string
		ticker plot.Ticker
		lo, hi float64
		want   string
	}{
		{"log", logTicks{}, 0.3, 2e4, "1 10 100 1k 10k"},
		// 700 … 9,000 (the prefill panel of a compare): 1k 2k 5k are too
		// few, and every mantissa crowded "700800900 1k" at the left end;
		// 1, 2, 3 and 5 label four.
		{"log", logTicks{}, 700, 9000, "1k 2k 3k 5k"},
		{"power-of-two", pow2Ticks{}, 64, 131072, "64 256 1k 4k 16k 64k"},
		{"int", intTicks{}, 1, 20, "1 5 10 15 20"},
		{"int", intTicks{}, 1, 8, "1 2 3 4 5 6 7 8"},
		{"int", intTicks{}, 1, 100, "1 20 40 60 80 100"},
		{"int", intTicks{}, 1, 1e6, "1 200k 400k 600k 800k 1M"},
	} {
		if got := tickLabels(c.ticker, c.lo, c.hi); got != c.want {
			t.Errorf("%s labels over %v … %v: %s, want %s", c.name, c.lo, c.hi, got, c.want)
		}
	}
}

func TestDeterministicSVG(t *testing.T) {
	render := func() []byte {
		f, err := Latency("t", "x", "y", []Curve{curve("a", 1, 2, 3)}, 2.5, "target", LogY)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Render(f, "svg", 16*vg.Centimeter, 10*vg.Centimeter)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a := render()
	if !bytes.Equal(a, render()) {
		t.Error("two renders differ")
	}
	if bytes.Contains(a, []byte("font-family:Liberation Serif;")) || !bytes.Contains(a, []byte(svgFamily)) {
		t.Errorf("the SVG does not name the metric-compatible font stack %s", svgFamily)
	}
}

func benchFigure(b *testing.B) *Figure {
	y := make([]float64, 40)
	for i := range y {
		y[i] = 30 + float64(i*i)
	}
	c1, c2 := curve("a", y...), curve("b", y...)
	c1.Ideal, c2.Ideal = y, y
	f, err := Latency("TPOT", "context (tokens)", "TPOT (ms)", []Curve{c1, c2}, 200, "target", LinearY)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

func BenchmarkRender(b *testing.B) {
	for _, format := range Formats {
		b.Run(format, func(b *testing.B) {
			f := benchFigure(b)
			for b.Loop() {
				if _, err := Render(f, format, 16*vg.Centimeter, 10*vg.Centimeter); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A plan cell is marked as plan's text words it: its verdict before its
// limit (an uncertain cell whose prediction misses TPOT is uncertain), the
// first failing constraint only when it fails.
func TestPlanClass(t *testing.T) {
	for _, c := range []struct {
		cell PlanCell
		want string
	}{
		{PlanCell{Verdict: "meets"}, "meets every target"},
		{PlanCell{}, "meets every target"},
		{PlanCell{Verdict: "uncertain"}, "uncertain: the interval straddles a target"},
		{PlanCell{Verdict: "uncertain", Limit: "tpot"}, "uncertain: the interval straddles a target"},
		{PlanCell{Verdict: "fails", Limit: "memory"}, "fails first: memory"},
		{PlanCell{Limit: "ttft"}, "fails first: ttft"},
		{PlanCell{Verdict: "fails", Limit: "tpot"}, "fails first: tpot"},
		{PlanCell{Verdict: "fails", Limit: "throughput"}, "fails first: throughput"},
		{PlanCell{Verdict: "fails"}, "fails at the interval's fast end"},
	} {
		if got := planClasses[planClass(c.cell)].name; got != c.want {
			t.Errorf("%+v: %q, want %q", c.cell, got, c.want)
		}
	}
}

// A run faster than its limit stays on the compare figure: the
// utilisation axis widens to hold it (MFU 207 % fell off a fixed 0–105 %
// axis) and the legend says what a run past the limit means.
func TestCompareKeepsRunsPastTheLimit(t *testing.T) {
	runs := []Comparison{
		{Label: "pp201", Prefill: true, Measured: 6300, Predicted: 970, Utilization: 2.07},
		{Label: "tg205", Measured: 44, Predicted: 29, Utilization: 1.02},
	}
	f, err := Compare("t", []string{"g"}, runs)
	if err != nil {
		t.Fatal(err)
	}
	ps := f.Panels()
	u := ps[len(ps)-1]
	if u.X.Max < 207 {
		t.Errorf("utilisation axis ends at %g %%, below the 207 %% run", u.X.Max)
	}
	found := false
	for _, e := range f.entries {
		found = found || strings.Contains(e.label, "faster than the limit")
	}
	if !found {
		t.Errorf("no legend entry says runs past the limit are faster than it")
	}
	// Within the limit the axis stays 0–105 % and the legend plain.
	runs[0].Utilization, runs[1].Utilization = 0.5, 0.8
	if f, err = Compare("t", []string{"g"}, runs); err != nil {
		t.Fatal(err)
	}
	ps = f.Panels()
	if u := ps[len(ps)-1]; u.X.Max != 105 {
		t.Errorf("within the limit the axis ends at %g, want 105", u.X.Max)
	}
}

// TestMergeIsRelative: series are drawn as one only when they lie within
// MergeTolerance of their own value. The Jetson's q4_k_m (28 ms) and
// q8_0 (46 ms) were one "≈" line beside a Pi 5 at 1.8 s, because 18 ms
// is 1 % of a linear axis to 1,800 ms; 18/46 is 39 % of the value.
func TestMergeIsRelative(t *testing.T) {
	q4 := curve("jetson · q4_k_m", 28, 29, 33, 60)
	q8 := curve("jetson · q8_0", 46, 47, 51, 78)
	pi := curve("pi · q8_0", 340, 360, 600, 1800)
	// 1 % apart everywhere: within the tolerance, drawn once.
	twin := curve("rk3588 · q8_0", 46*1.01, 47*1.01, 51*1.01, 78*1.01)
	for _, scale := range []YScale{LinearY, LogY, AutoY} {
		f, err := Latency("t", "context (tokens)", "TPOT (ms)", []Curve{q4, q8, pi, twin}, 200, "target", scale)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range f.entries {
			if e.series {
				got = append(got, e.label)
			}
		}
		want := "jetson · q4_k_m|jetson · q8_0 ≈ rk3588 · q8_0|pi · q8_0"
		if strings.Join(got, "|") != want {
			t.Errorf("scale %d: series %q; want %q", scale, strings.Join(got, "|"), want)
		}
	}
}

// TestAutoLogY: a panel whose values span more than MaxLinearSpan gets a
// log y axis (28 ms to 1.8 s: 64×); one within it stays linear from 0;
// --log-y sets either.
func TestAutoLogY(t *testing.T) {
	wide := []Curve{curve("a", 28, 30, 60), curve("b", 340, 600, 1800)}
	narrow := []Curve{curve("a", 28, 30, 60), curve("b", 100, 150, 250)}
	for _, c := range []struct {
		name   string
		curves []Curve
		scale  YScale
		log    bool
	}{
		{"wide auto", wide, AutoY, true},
		{"narrow auto", narrow, AutoY, false},
		{"wide linear", wide, LinearY, false},
		{"narrow log", narrow, LogY, true},
	} {
		f, err := Latency("t", "x", "TPOT (ms)", c.curves, 0, "", c.scale)
		if err != nil {
			t.Fatal(err)
		}
		_, isLog := f.Panels()[0].Y.Scale.(plot.LogScale)
		if isLog != c.log {
			t.Errorf("%s: log y %v; want %v", c.name, isLog, c.log)
		}
		if !c.log && f.Panels()[0].Y.Min != 0 {
			t.Errorf("%s: a linear axis starts at %v, not 0", c.name, f.Panels()[0].Y.Min)
		}
	}
}

// drawnTexts draws f at 16 × h cm on a recorder and returns its texts.
func drawnTexts(t *testing.T, f *Figure, h vg.Length) []string {
	t.Helper()
	rec := newRecorder(16*vg.Centimeter, h, true)
	if err := f.draw(draw.New(rec)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tx := range rec.texts {
		out = append(out, tx.text)
	}
	return out
}

// TestRooflineLabelsFewPoints is issue 28's finding 8: a report's roofline
// labelled every operating point ("b256 · jetson-orin-nano-super-8gb · gpu
// · q4_k_m · f16 = …"), dozens over each other and off the panels. When
// several series share a roof, the points take the series' colours and a
// marker per kind (the legend says which), the roofs say their precision
// and peak on their ceilings, and only the measured points carry labels.
// One configuration on a roof keeps a label per point.
func TestRooflineLabelsFewPoints(t *testing.T) {
	roofs := []Roof{{Label: "jetson gpu fp16", Peak: 16.7e12, Bandwidth: 102e9}}
	var pts []OpPoint
	for i, w := range []string{"q4_k_m", "q8_0", "f16"} {
		bytes := []float64{0.6, 1.06, 2}[i]
		pts = append(pts, OpPoint{Intensity: 800 / bytes, FLOPPerS: 8e12, Label: "pp512", Prefill: true, Series: w})
		for _, b := range []int{1, 16, 256} {
			in := 2 * float64(b) / bytes
			pts = append(pts, OpPoint{Intensity: in, FLOPPerS: 0.7 * math.Min(16.7e12, in*102e9), Label: fmt.Sprintf("b%d", b), Batch: b, Series: w})
		}
	}
	pts = append(pts, OpPoint{Intensity: 3.3, FLOPPerS: 0.63 * 3.3 * 102e9, Label: "MBU 63%", Batch: 1, Series: "q4_k_m", Measured: true},
		OpPoint{Intensity: 700, FLOPPerS: 6.6e12, Label: "MFU 40%", Prefill: true, Series: "q4_k_m", Measured: true})
	f, err := Roofline("t", roofs, pts)
	if err != nil {
		t.Fatal(err)
	}
	texts := strings.Join(drawnTexts(t, f, 12*vg.Centimeter), "|")
	for _, want := range []string{"|MBU 63%|", "|MFU 40%|", "|fp16 16.7 TFLOP/s|", "|102 GB/s|", "|q4_k_m|", "|b16: decode, batch 16|", "|pp512: prefill|"} {
		if !strings.Contains("|"+texts+"|", want) {
			t.Errorf("the figure lacks %q", strings.Trim(want, "|"))
		}
	}
	for _, bad := range []string{"|b1|", "|b256|", "|pp512|", "b256 · "} {
		if strings.Contains("|"+texts+"|", bad) {
			t.Errorf("a predicted point is labelled in the panel: %q", strings.Trim(bad, "|"))
		}
	}
	// One configuration: every point labelled.
	var one []OpPoint
	for _, p := range pts {
		if p.Series == "q4_k_m" {
			p.Series = ""
			one = append(one, p)
		}
	}
	if f, err = Roofline("t", roofs, one); err != nil {
		t.Fatal(err)
	}
	texts = "|" + strings.Join(drawnTexts(t, f, 10*vg.Centimeter), "|") + "|"
	for _, want := range []string{"|pp512|", "|b1|", "|b16|", "|b256|", "|MBU 63%|", "|MFU 40%|"} {
		if !strings.Contains(texts, want) {
			t.Errorf("one configuration: the figure lacks the label %q", strings.Trim(want, "|"))
		}
	}
}

// TestMergedSeriesListedOnce is issue 28's finding 11: the ttft-prompt
// legend listed one merged group twice ("q4_k_m = q8_0" where a panel
// had them equal, "q4_k_m ≈ q8_0" where another had them 1 % apart).
// A set of series drawn as one line is one legend entry, and its line
// alternates their colours so a panel tells it from the first alone.
func TestMergedSeriesListedOnce(t *testing.T) {
	a, b := curve("q4_k_m", 10, 20, 40), curve("q8_0", 10, 20, 40)
	c, d := curve("q4_k_m", 30, 60, 90), curve("q8_0", 30.3, 60.6, 90.9)
	e, g := curve("q4_k_m", 5, 6, 7), curve("q8_0", 9, 11, 13)
	a.Facet, b.Facet, c.Facet, d.Facet, e.Facet, g.Facet = "rk3588", "rk3588", "pi", "pi", "jetson", "jetson"
	f, err := Latency("t", "x", "y", []Curve{a, b, c, d, e, g}, 0, "", LogY)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, en := range f.entries {
		if en.series {
			got = append(got, en.label)
		}
	}
	if want := "q4_k_m ≈ q8_0|q4_k_m|q8_0"; strings.Join(got, "|") != want {
		t.Errorf("legend %q; want %q", strings.Join(got, "|"), want)
	}
}

// TestMemoryBarsFit is issue 28's finding 11: eight bars labelled
// "jetson-orin-nano-super-8gb · gpu · llama-3.2-1b" were set at 45°,
// which pushed the bars into the right two thirds of the panel, the bars
// wider than their slots. Such bars go into a panel per device, labelled
// by the rest; bars are sized to their slots.
func TestMemoryBarsFit(t *testing.T) {
	var bars []MemoryBar
	for _, m := range []string{"llama-3.2-1b", "llama-3.2-3b", "qwen2.5-1.5b", "qwen2.5-3b"} {
		for _, d := range []string{"jetson-orin-nano-super-8gb · gpu", "rk3588 · cpu"} {
			bars = append(bars, MemoryBar{Label: d + " · " + m, Weights: 2e9, KV: 1e8, Activations: 2e8, Overhead: 2.6e8, Usable: 7.4e9})
		}
	}
	f, err := Memory("t", bars)
	if err != nil {
		t.Fatal(err)
	}
	h := f.Height(16*vg.Centimeter, 10*vg.Centimeter)
	drawnTexts(t, f, h)
	ps := f.Panels()
	if len(ps) != 2 || ps[0].Title.Text != "jetson-orin-nano-super-8gb · gpu" || ps[1].Title.Text != "rk3588 · cpu" {
		t.Fatalf("%d panels; want one per device", len(ps))
	}
	for _, ca := range f.categories {
		if strings.Join(ca.names, ",") != "llama-3.2-1b,llama-3.2-3b,qwen2.5-1.5b,qwen2.5-3b" {
			t.Errorf("bars labelled %v; want the models", ca.names)
		}
		slot := (f.areas[0].Max.X - f.areas[0].Min.X) / vg.Length(len(ca.names))
		for _, b := range ca.bars {
			if b.Width >= slot {
				t.Errorf("bars %v wide in slots of %v", b.Width, slot)
			}
		}
	}
	// Short labels stay on one panel, level.
	var short []MemoryBar
	for _, w := range []string{"q4_k_m", "q8_0", "f16"} {
		for _, c := range []string{"4k ctx", "32k ctx", "128k ctx"} {
			short = append(short, MemoryBar{Label: w + " · " + c, Weights: 5e9, KV: 1e9, Usable: 7.4e9})
		}
	}
	if f, err = Memory("t", short); err != nil {
		t.Fatal(err)
	}
	drawnTexts(t, f, 10*vg.Centimeter)
	if p := f.Panels(); len(p) != 1 || p[0].X.Tick.Label.Rotation != 0 {
		t.Errorf("9 bars of two short words: %d panels, labels at %v rad", len(p), f.Panels()[0].X.Tick.Label.Rotation)
	}
}

// TestLegendStaysInTheFigure is issue 28's finding 11: the report's
// ttft-prompt legend ran past the figure's right edge when an entry (two
// long series drawn as one) was wider than the figure. Such an entry goes
// on as many lines as it needs; a merged entry names the parts its series
// share once.
func TestLegendStaysInTheFigure(t *testing.T) {
	if got := mergedLabel([]string{"jetson-orin-nano-super-8gb · gpu · llama-3.2-1b · q4_k_m", "jetson-orin-nano-super-8gb · gpu · llama-3.2-1b · q8_0"}, " ≈ "); got != "jetson-orin-nano-super-8gb · gpu · llama-3.2-1b · q4_k_m ≈ q8_0" {
		t.Errorf("mergedLabel: %q", got)
	}
	if got := mergedLabel([]string{"rk3588 · cpu · q4_k_m", "raspberry-pi-5-8gb · cpu · q4_k_m"}, " = "); got != "rk3588 · cpu · q4_k_m = raspberry-pi-5-8gb · cpu · q4_k_m" {
		t.Errorf("mergedLabel, nothing shared in front: %q", got)
	}
	long := strings.Repeat("jetson-orin-nano-super-8gb · gpu · ", 4)
	f, err := Latency("t", "x", "y", []Curve{curve(long+"a", 1, 2, 3), curve(long+"b", 2, 3, 5)}, 0, "", AutoY)
	if err != nil {
		t.Fatal(err)
	}
	w := 16 * vg.Centimeter
	h := f.Height(w, 10*vg.Centimeter)
	rec := newRecorder(w, h, true)
	if err := f.draw(draw.New(rec)); err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, tx := range rec.texts {
		if strings.HasPrefix(tx.text, "jetson") || strings.HasSuffix(tx.text, " a") || strings.HasSuffix(tx.text, " b") {
			lines++
		}
		if inkBox(t, tx)[1].X > w {
			t.Errorf("%q runs past the figure's right edge", tx.text)
		}
	}
	if lines < 4 {
		t.Errorf("%d legend lines for two entries wider than the figure; want each on two or more", lines)
	}
}
