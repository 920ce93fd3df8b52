package render

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/buildinfo"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// TestMarginRange: a margin is target / prediction; d = 1 − 1/margin is
// how far under the target the prediction is (negative: over).
func TestMarginRange(t *testing.T) {
	cases := []struct {
		lo, hi float64
		want   string
	}{
		// 1/(1−0.61) = 2.5641 → 61 % under; 1/(1−0.8) = 5 → 80 % under.
		{2.5641, 5, "61–80% under"},
		// 0.5 → 1 − 2 = −1: 100 % over; 2 → 50 % under.
		{0.5, 2, "100% over – 50% under"},
		// 0.5 → 100 % over; 0.8 → 1 − 1.25: 25 % over.
		{0.5, 0.8, "25–100% over"},
		{math.Inf(1), math.Inf(1), Dash},
	}
	for _, c := range cases {
		if got := marginRange(c.lo, c.hi); got != c.want {
			t.Errorf("marginRange(%v, %v) = %q; want %q", c.lo, c.hi, got, c.want)
		}
	}
}

func TestMeasuredSummary(t *testing.T) {
	run := func(test, src string, p, g int, mbu, mfu, ratio float64) ComparisonJSON {
		return ComparisonJSON{Source: src, Test: test, Model: "m", Weights: "q4_k_m", Hardware: "dev", Engine: "gpu", Runtime: "llama.cpp",
			PromptTokens: p, GenTokens: g, Batch: 1, MBU: mbu, MFU: mfu, Ratio: ratio}
	}
	m := reportMeasured{File: "bench.json", Runs: []ComparisonJSON{
		run("decode", "b:1", 0, 128, 0.71, 0.01, 0.9), run("prefill", "b:2", 512, 0, 0.2, 0.48, 1.2), run("decode", "b:3", 0, 256, 0.64, 0.01, 1.0)}}
	want := "bench.json: 3 runs of m q4_k_m on dev gpu (llama.cpp): decode MBU 64% (tg256) to 71% (tg128) over 2 runs, prefill MFU 48% (pp512); measured / predicted 0.90–1.20."
	if got := measuredSummary(m); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := measuredSummary(reportMeasured{File: "x.csv"}); !strings.Contains(got, "no run could be compared") {
		t.Errorf("no runs: %s", got)
	}
}

func TestBuildText(t *testing.T) {
	for _, c := range []struct {
		b    buildinfo.Info
		want string
	}{
		{buildinfo.Info{Version: "dev"}, "roofline dev (a build that recorded no commit: go test, go run or -buildvcs=false)"},
		{buildinfo.Info{Version: "v0.3.0", Revision: "425ac92ab1c2d3e4", Time: "2025-06-01T12:00:00Z", Modified: true},
			"roofline v0.3.0 (commit 425ac92ab1c2d3e4 of 2025-06-01T12:00:00Z, with uncommitted changes)"},
	} {
		if got := buildText(c.b); got != c.want {
			t.Errorf("got %q; want %q", got, c.want)
		}
	}
}

// TestMarkdownDocumentStreams: written block by block, the document is the
// same as built whole, without trailing blank lines.
func TestMarkdownDocumentStreams(t *testing.T) {
	d := &Doc{Spaced: true}
	d.Heading(1, "T")
	d.Para("p")
	d.List(nil)
	d.Table(NewTable("a", "b"))
	d.Code("x")
	var whole bytes.Buffer
	d.Write(&whole, Markdown)
	got := d.MarkdownDocument()
	if want := bytes.TrimRight(whole.Bytes(), "\n"); !bytes.Equal(got, want) {
		t.Errorf("streamed %q\nwhole    %q", got, want)
	}
}

// TestJSONStream: an object written field by field, its arrays element by
// element, is the document json.MarshalIndent writes.
func TestJSONStream(t *testing.T) {
	type inner struct {
		A []int  `json:"a"`
		B string `json:"b,omitempty"`
	}
	v := struct {
		Name  string            `json:"name"`
		Empty []string          `json:"empty"`
		Nil   []string          `json:"nil"`
		Items []inner           `json:"items"`
		Skip  string            `json:"-"`
		Omit  int               `json:"omit,omitempty"`
		Map   map[string]string `json:"map"`
		Last  inner             `json:"last"`
	}{Name: "x<y", Empty: []string{}, Items: []inner{{A: []int{1, 2}}, {B: "b"}}, Map: map[string]string{"k": "v"}, Last: inner{A: []int{}}}
	want, _ := json.MarshalIndent(v, "", "  ")
	var b bytes.Buffer
	j := newJSONStream(&b)
	o := j.object("")
	o.fields(&v, "", "items")
	o.key("items")
	a := j.array(o.inner())
	for _, it := range v.Items {
		a.elem(it)
	}
	a.close()
	o.fields(&v, "omit", "")
	o.close()
	if err := j.flush(); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSuffix(b.String(), "\n"); got != string(want) {
		t.Errorf("streamed:\n%s\nMarshalIndent:\n%s", got, want)
	}
	// A NaN is null, not a failed document.
	b.Reset()
	j = newJSONStream(&b)
	j.value("", struct {
		X float64 `json:"x"`
	}{math.NaN()})
	if j.flush() != nil || !strings.Contains(b.String(), `"x": null`) {
		t.Errorf("NaN: %q, %v", b.String(), j.err)
	}
}

// TestAssumptionsNameTheModel is issue 28's finding 12: the report's
// assumptions repeated "jetson-orin-nano-super-8gb gpu under llama.cpp"
// with 830 µs and then 1.02 ms per prefill pass, because the overheads
// depend on the model's layers and the lines did not name the model.
// One line per device engine and runtime: each precision's peak with its
// formats, and the overheads by model, models that share them together.
func TestAssumptionsNameTheModel(t *testing.T) {
	in := func(model, weights string, prec units.Precision, peak, pass, step float64) sim.Inputs {
		return sim.Inputs{Model: model, Device: "rk3588", Engine: "cpu", Runtime: "llama.cpp", Weights: weights, Precision: prec, Peak: peak,
			Bandwidth: 33.8e9, Efficiency: hardware.Efficiency{Bandwidth: 0.6, ComputeMax: 0.4}, PrefillOverhead: pass, DecodeOverhead: step, EfficiencyFrom: "a wide prior"}
	}
	got := assumptions([]sim.Inputs{
		in("llama-3.2-1b", "q4_k_m", "int8", 614e9, 638e-6, 638e-6), in("llama-3.2-1b", "f16", "fp16", 307e9, 638e-6, 638e-6),
		in("llama-3.2-3b", "q4_k_m", "int8", 614e9, 1.02e-3, 1.02e-3), in("llama-3.2-3b", "q8_0", "int8", 614e9, 1.02e-3, 1.02e-3),
		in("qwen2.5-1.5b", "q4_k_m", "int8", 614e9, 1.02e-3, 1.02e-3),
	})
	want := "rk3588 cpu under llama.cpp: int8 at 614 GOP/s (q4_k_m, q8_0) and fp16 at 307 GFLOP/s (f16) dense peak, matrix products up to 0.40 of it; " +
		"33.8 GB/s datasheet bandwidth, η_bw 0.60; overheads per prefill pass and decode step, by the model's layers: 638 µs and 638 µs (llama-3.2-1b), " +
		"1.02 ms and 1.02 ms (llama-3.2-3b, qwen2.5-1.5b); efficiency from a wide prior."
	if len(got) != 1 || got[0] != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// One model: the overheads as before, nothing to name.
	got = assumptions([]sim.Inputs{in("llama-3.2-3b", "q4_k_m", "int8", 614e9, 1.02e-3, 1.02e-3)})
	if len(got) != 1 || !strings.Contains(got[0], "int8 at 614 GOP/s dense peak") || !strings.Contains(got[0], "overheads 1.02 ms per prefill pass, 1.02 ms per decode step;") {
		t.Errorf("one model: %q", got)
	}
}

// TestHTMLInline is issue 28's finding 11 in the HTML report: "889 ms"
// wrapped between the number and its unit, and the devices' source URLs
// were plain text. A number and its unit are joined by a no-break space;
// an http(s) URL is a link, escaped and with its secrets hidden as
// everywhere roofline prints one; code (the commands) is left as typed.
func TestHTMLInline(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"TTFT 889 ms, 1.51 GiB of 6.91 GiB, 80 % sure, 102 GB/s, 16.7 TFLOP/s",
			"TTFT 889&nbsp;ms, 1.51&nbsp;GiB of 6.91&nbsp;GiB, 80&nbsp;% sure, 102&nbsp;GB/s, 16.7&nbsp;TFLOP/s"},
		{"3 boards, 9 panels, 2 sequences", "3 boards, 9 panels, 2 sequences"},
		{"bandwidth: datasheet (https://example.com/spec.pdf).",
			`bandwidth: datasheet (<a href="https://example.com/spec.pdf">https://example.com/spec.pdf</a>).`},
		{"from https://user:pw@host.example/m?token=abc&v=<1> & more",
			`from <a href="https://xxxxx@host.example/m?token=xxxxx&amp;v=xxxxx">https://xxxxx@host.example/m?token=xxxxx&amp;v=xxxxx</a>&lt;1&gt; &amp; more`},
		{`a "quoted" <b>`, "a &#34;quoted&#34; &lt;b&gt;"},
	} {
		if got := inline(c.in); got != c.want {
			t.Errorf("inline(%q)\n got  %s\n want %s", c.in, got, c.want)
		}
	}
	d := &Doc{}
	d.Code("roofline plot roofline --max-batch 256 -o 889 ms.png")
	if h := string(d.HTMLDocument("t")); strings.Contains(h, "256&nbsp;") || !strings.Contains(h, "889 ms.png") {
		t.Error("a command in the HTML changed")
	}
}
