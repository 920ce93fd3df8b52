package render

import (
	"fmt"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/units"
)

// TestName names a measured test the way llama-bench does.
func TestName(r measured.Run) string { return r.TestName() }

// comparisonTable is the one table of a comparison: text and Markdown show
// the columns with headings, CSV those with keys.
func comparisonTable(rows []compare.Row) *Table {
	t := &Table{Cols: []Col{
		{Head: "SOURCE", Key: "source"}, {Head: "TEST"}, {Key: "test"}, {Head: "MODEL", Key: "model"}, {Head: "WEIGHTS", Key: "weights"},
		{Key: "kv"}, {Key: "hardware"}, {Key: "engine"}, {Key: "runtime"}, {Key: "precision"}, {Key: "prompt_tokens"}, {Key: "gen_tokens"},
		{Key: "depth"}, {Key: "batch"}, {Key: "ubatch"},
		{Head: "MEASURED", Key: "measured_tokens_per_s", Right: true}, {Head: "PREDICTED", Key: "predicted_tokens_per_s", Right: true},
		{Head: "IDEAL", Key: "bound_tokens_per_s", Right: true}, {Head: "RATIO", Key: "ratio", Right: true},
		{Head: "ACHIEVED", Right: true}, {Head: "UTILIZATION", Right: true}, {Head: "FLAGS"},
		{Key: "achieved_bytes_per_s"}, {Key: "achieved_flops_per_s"}, {Key: "mbu"}, {Key: "mfu"}, {Key: "bound"}, {Key: "beats_bound"},
	}}
	for _, r := range rows {
		achieved := Bandwidth(r.AchievedBytesPerS)
		if r.Run.Test == measured.Prefill {
			achieved = Flops(r.AchievedFLOPPerS)
		}
		flags := ""
		if r.BeatsBound {
			flags = "FASTER THAN THE LIMIT"
		}
		run := r.Run
		// A prefill's ideal and MFU say which peak they are of: the ideal
		// is at the format's fastest precision, MFU at the kernel's.
		ideal, util := units.Sig(r.Bound, 4)+" t/s", r.Utilization()
		if run.Test == measured.Prefill {
			ideal += " (" + string(r.IdealPrecision) + ")"
			util += " of " + string(r.Precision)
		}
		t.AddCells(C(run.Source()), C(TestName(run)), C(string(run.Test)), C(r.Model), C(r.Weights),
			C(r.KV), C(r.Hardware), C(r.Engine), C(r.Runtime), C(string(r.Precision)), D(run.Prompt), D(run.Gen),
			D(run.Depth), D(run.Batch), D(r.UBatch),
			V(units.Sig(r.Measured, 4)+" t/s", r.Measured), V(units.Sig(r.Predicted, 4)+" t/s", r.Predicted),
			V(ideal, r.Bound), V(Fixed(r.Ratio, 2), r.Ratio),
			C(achieved), C(util), C(flags),
			D(r.AchievedBytesPerS), D(r.AchievedFLOPPerS), D(r.MBU), D(r.MFU), C(string(r.PhaseBound)), D(r.BeatsBound))
	}
	return t
}

// ComparisonJSON is one compared run in the JSON vocabulary.
type ComparisonJSON struct {
	Source               string   `json:"source"`
	Test                 string   `json:"test"`
	Model                string   `json:"model"`
	Weights              string   `json:"weights"`
	KV                   string   `json:"kv"`
	Hardware             string   `json:"hardware"`
	Engine               string   `json:"engine"`
	Runtime              string   `json:"runtime"`
	RuntimeWhy           string   `json:"runtime_why"`
	Precision            string   `json:"precision"`
	PeakOpsPerS          float64  `json:"peak_ops_per_s"`
	IdealPrecision       string   `json:"ideal_precision"`
	IdealPeakOpsPerS     float64  `json:"ideal_peak_ops_per_s"`
	PromptTokens         int      `json:"prompt_tokens"`
	GenTokens            int      `json:"gen_tokens"`
	Depth                int      `json:"depth"`
	Batch                int      `json:"batch"`
	UBatch               int      `json:"ubatch"`
	MeasuredTokensPerS   float64  `json:"measured_tokens_per_s"`
	PredictedTokensPerS  float64  `json:"predicted_tokens_per_s"`
	BoundTokensPerS      float64  `json:"bound_tokens_per_s"`
	Ratio                float64  `json:"ratio"`
	AchievedBytesPerS    float64  `json:"achieved_bytes_per_s"`
	AchievedFLOPsPerS    float64  `json:"achieved_flops_per_s"`
	MBU                  float64  `json:"mbu"`
	MBUMeasuredBandwidth *float64 `json:"mbu_measured_bandwidth"`
	MFU                  float64  `json:"mfu"`
	Bound                string   `json:"bound"`
	WeightBytesPerStep   *float64 `json:"streamed_weight_bytes_per_step"`
	KVBytesPerStep       *float64 `json:"kv_bytes_per_step"`
	BytesPerStep         *float64 `json:"bytes_per_step"`
	BeatsBound           bool     `json:"beats_bound"`
	Notes                []string `json:"notes"`
	// Operators is compare --ops: the test's gap by operator.
	Operators *OpAttributionJSON `json:"operators,omitempty"`
}

func newComparisonJSON(r compare.Row) ComparisonJSON {
	j := ComparisonJSON{Source: r.Run.Source(), Test: string(r.Run.Test), Model: r.Model, Weights: r.Weights, KV: r.KV,
		Hardware: r.Hardware, Engine: r.Engine, Runtime: r.Runtime, RuntimeWhy: r.RuntimeWhy, Precision: string(r.Precision),
		PeakOpsPerS: r.Peak, IdealPrecision: string(r.IdealPrecision), IdealPeakOpsPerS: r.IdealPeak,
		PromptTokens: r.Run.Prompt, GenTokens: r.Run.Gen, Depth: r.Run.Depth, Batch: r.Run.Batch, UBatch: r.UBatch,
		MeasuredTokensPerS: r.Measured, PredictedTokensPerS: r.Predicted, BoundTokensPerS: r.Bound, Ratio: r.Ratio,
		AchievedBytesPerS: r.AchievedBytesPerS, AchievedFLOPsPerS: r.AchievedFLOPPerS, MBU: r.MBU, MFU: r.MFU,
		Bound: string(r.PhaseBound), BeatsBound: r.BeatsBound, Notes: r.Notes, Operators: newOpAttributionJSON(r.Ops)}
	if r.MBUMeasured > 0 {
		v := r.MBUMeasured
		j.MBUMeasuredBandwidth = &v
	}
	if r.Run.Test == measured.Decode {
		w, k, b := r.WeightBytesPerStep, r.KVBytesPerStep, r.BytesPerStep
		j.WeightBytesPerStep, j.KVBytesPerStep, j.BytesPerStep = &w, &k, &b
	}
	if j.Notes == nil {
		j.Notes = []string{}
	}
	return j
}

// Compare is `roofline compare`.
func Compare(c *app.Comparison) Answer {
	return answer{
		doc:   func() *Doc { return comparisonDoc(c) },
		table: func() *Table { return comparisonTable(c.Rows) },
		data: func() any {
			out := make([]ComparisonJSON, len(c.Rows))
			for i, r := range c.Rows {
				out[i] = newComparisonJSON(r)
			}
			return out
		},
	}
}

func comparisonDoc(c *app.Comparison) *Doc {
	doc := &Doc{}
	// The devices in the order their first run appears.
	var devices []string
	seen := map[string]bool{}
	for _, r := range c.Rows {
		peaks := fmt.Sprintf("%s at %s", r.Precision, Ops(r.Peak, r.Precision))
		if r.IdealPrecision != r.Precision {
			peaks += fmt.Sprintf(" for predictions and MFU, %s at %s for the ideal prefill", r.IdealPrecision, Ops(r.IdealPeak, r.IdealPrecision))
		}
		d := fmt.Sprintf("%s (%s engine, %s, %s) under %s: %s", r.Hardware, r.Engine, peaks, Bandwidth(r.Bandwidth), r.Runtime, r.RuntimeWhy)
		if !seen[d] {
			seen[d] = true
			devices = append(devices, d)
		}
	}
	// Markdown says the same lines as text, each a paragraph line.
	var text, md string
	for _, d := range devices {
		text += "device: " + d + "\n"
		md += "Device: " + d + "\n\n"
	}
	doc.Raw(text+"\n", md)
	doc.Table(comparisonTable(c.Rows))
	var lines []string
	for _, st := range []struct {
		name string
		s    compare.Stat
	}{{"decode", c.Summary.Decode}, {"prefill", c.Summary.Prefill}, {"end to end", c.Summary.E2E}} {
		if st.s.N > 0 {
			line := fmt.Sprintf("%s: %d test%s, median |error| %.1f%%, median measured/predicted %.2f", st.name, st.s.N, Plural(st.s.N), 100*st.s.MdAPE, st.s.Bias)
			lines = append(lines, line)
		}
	}
	doc.Raw("\n"+strings.Join(lines, "\n")+"\n", "\n"+strings.Join(lines, "\n\n")+"\n")
	var notes []string
	seenNote := map[string]bool{}
	for _, r := range c.Rows {
		for _, n := range r.Notes {
			if !seenNote[n] {
				seenNote[n] = true
				notes = append(notes, n)
			}
		}
	}
	if len(notes) > 0 {
		text, md := "\n", "\n"
		for _, n := range notes {
			text += "note: " + n + "\n"
			md += "> note: " + n + "\n"
		}
		doc.Raw(text, md)
	}
	if len(c.Rows) > 0 && c.Rows[0].Ops != nil {
		doc.Sub(opGapDoc(c.Rows), opGapDoc(c.Rows))
	}
	return doc
}
