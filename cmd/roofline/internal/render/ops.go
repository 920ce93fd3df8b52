package render

import (
	"fmt"
	"math"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/cmd/roofline/internal/study"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/sim"
)

// OpsAttribution says what an operator's time is: the one sentence every
// per-operator output carries.
const OpsAttribution = "an attribution of the predicted time, not a measurement: each class of a pass (dense products, routed experts, attention) keeps its time, max(memory, compute), shared among its operators by their bytes where memory bounds it and by their FLOPs where compute does; the per-step and per-layer costs are rows of their own (docs/method.md §6)"

// opJSON is one operator of a view in the JSON vocabulary.
type opJSON struct {
	Operator   string  `json:"operator"`
	Group      string  `json:"group"`
	Layers     int     `json:"layers"`
	Window     int     `json:"window"`
	KVTokens   int     `json:"kv_tokens,omitempty"`
	Class      string  `json:"class"`
	Types      string  `json:"types"`
	TiedTable  bool    `json:"reads_embedding_table,omitempty"`
	FLOPs      float64 `json:"flops"`
	Read       opRead  `json:"read_bytes"`
	Written    opWrite `json:"written_bytes"`
	Intensity  float64 `json:"intensity_flop_per_byte"`
	Bound      string  `json:"bound"`
	TimeS      float64 `json:"time_s"`
	MemoryS    float64 `json:"memory_time_s"`
	ComputeS   float64 `json:"compute_time_s"`
	IdealTimeS float64 `json:"ideal_time_s"`
	Share      float64 `json:"share"`
}

type opRead struct {
	Weights     float64 `json:"weights"`
	KV          float64 `json:"kv"`
	Activations float64 `json:"activations"`
	Scores      float64 `json:"scores"`
}

type opWrite struct {
	Activations float64 `json:"activations"`
	Scores      float64 `json:"scores"`
}

// OpViewJSON is a prefill, a mean decode step or one step, operator by
// operator.
type OpViewJSON struct {
	Phase   string `json:"phase"`
	Label   string `json:"step,omitempty"`
	Context int    `json:"context"`
	Batch   int    `json:"batch"`
	Units   int    `json:"units"`
	// TimeS is TTFT, TPOT or the step's ITL: Σ operators' time_s.
	TimeS      float64  `json:"time_s"`
	IdealTimeS float64  `json:"ideal_time_s"`
	Operators  []opJSON `json:"operators"`
}

// OpsJSON is a prediction operator by operator.
type OpsJSON struct {
	Attribution string       `json:"attribution"`
	Prefill     OpViewJSON   `json:"prefill"`
	Decode      *OpViewJSON  `json:"decode"`
	Steps       []OpViewJSON `json:"steps"`
}

// NewOpViewJSON is a view in the JSON vocabulary.
func NewOpViewJSON(v *sim.OpView, label string) OpViewJSON {
	j := OpViewJSON{Phase: v.Phase, Label: label, Context: v.Context, Batch: v.Batch, Units: v.Units, TimeS: v.Time, IdealTimeS: v.IdealTime,
		Operators: make([]opJSON, len(v.Ops))}
	for i := range v.Ops {
		o := &v.Ops[i]
		j.Operators[i] = opJSON{o.Name, o.Group, o.Layers, o.Window, o.KVTokens, o.Class, o.Types, o.SharesTable, o.FLOPs,
			opRead{o.WeightBytes, o.KVBytes, o.ActivationRead, o.ScoreRead}, opWrite{o.ActivationWritten, o.ScoreWritten},
			o.Intensity(), string(o.Bound), o.Time, o.MemoryTime, o.ComputeTime, o.IdealTime, o.Share}
	}
	return j
}

func newOpsJSON(o *app.Ops) *OpsJSON {
	if o == nil {
		return nil
	}
	j := &OpsJSON{Attribution: OpsAttribution, Prefill: NewOpViewJSON(o.Prefill, ""), Steps: []OpViewJSON{}}
	if o.Decode != nil {
		d := NewOpViewJSON(o.Decode, "")
		j.Decode = &d
	}
	for _, s := range o.Steps {
		j.Steps = append(j.Steps, NewOpViewJSON(s.OpView, s.Label))
	}
	return j
}

// opsTable is every view's operators as one CSV table, a row per
// operator and view.
func opsTable(o *app.Ops) *Table {
	t := &Table{}
	for _, k := range []string{"phase", "step", "context", "batch", "group", "operator", "layers", "class", "types", "flops",
		"weight_bytes", "kv_bytes", "activation_read_bytes", "score_read_bytes", "activation_written_bytes", "score_written_bytes",
		"intensity_flop_per_byte", "bound", "time_s", "memory_time_s", "compute_time_s", "ideal_time_s", "share"} {
		t.Cols = append(t.Cols, Col{Key: k})
	}
	add := func(v *sim.OpView, label string) {
		for i := range v.Ops {
			op := &v.Ops[i]
			t.AddCells(C(v.Phase), C(label), D(v.Context), D(v.Batch), C(op.Group), C(op.Name), D(op.Layers), C(op.Class), C(op.Types),
				D(op.FLOPs), D(op.WeightBytes), D(op.KVBytes), D(op.ActivationRead), D(op.ScoreRead), D(op.ActivationWritten), D(op.ScoreWritten),
				D(op.Intensity()), C(string(op.Bound)), D(op.Time), D(op.MemoryTime), D(op.ComputeTime), D(op.IdealTime), D(op.Share))
		}
	}
	add(o.Prefill, "")
	if o.Decode != nil {
		add(o.Decode, "")
	}
	for _, s := range o.Steps {
		add(s.OpView, s.Label)
	}
	return t
}

// OpViewTable is one view's operators for people, with a total row.
func OpViewTable(v *sim.OpView) *Table {
	t := NewTable("GROUP", "OPERATOR", "LAYERS", "TYPE", "FLOP", "WEIGHTS", "KV", "OTHER", "FLOP/B", "BOUND", "TIME", "IDEAL", "SHARE").Right(2, 4, 5, 6, 7, 8, 10, 11, 12)
	var flops, weights, kv, other, ideal float64
	for i := range v.Ops {
		o := &v.Ops[i]
		layers, types := "", o.Types
		if o.Layers > 0 {
			layers = fmt.Sprint(o.Layers)
		}
		if o.SharesTable {
			types += " (tied)"
		}
		oth := o.ActivationRead + o.ScoreRead + o.Written()
		intensity := ""
		if o.FLOPs > 0 {
			intensity = Intensity(o.Intensity())
		}
		t.Add(OrDash(o.Group), o.Name, layers, types, opCount(o.FLOPs), opBytes(o.WeightBytes), opBytes(o.KVBytes), opBytes(oth),
			intensity, string(o.Bound), Duration(o.Time), Duration(o.IdealTime), Percent1(o.Share))
		flops, weights, kv, other, ideal = flops+o.FLOPs, weights+o.WeightBytes, kv+o.KVBytes, other+oth, ideal+o.IdealTime
	}
	t.Add("total", "", "", "", opCount(flops), opBytes(weights), opBytes(kv), opBytes(other), Intensity(flops/(weights+kv+other)), "",
		Duration(v.Time), Duration(v.IdealTime), Percent1(1))
	return t
}

// opCount and opBytes leave a zero blank, so that what an operator does
// stands out.
func opCount(v float64) string {
	if v == 0 {
		return ""
	}
	return Count(v)
}

func opBytes(v float64) string {
	if v == 0 {
		return ""
	}
	return Bytes(v)
}

// opsByContext is the share of each operator (summed over its layer
// groups) in the decode steps shown, one column per step.
func opsByContext(steps []app.Step) *Table {
	heads := []string{"OPERATOR"}
	for _, s := range steps {
		heads = append(heads, fmt.Sprintf("%d (%s)", s.Context, s.Label))
	}
	t := NewTable(heads...)
	for i := 1; i < len(heads); i++ {
		t.Cols[i].Right = true
	}
	var names []string
	shares := map[string][]float64{}
	for j, s := range steps {
		for _, o := range s.Ops {
			if _, ok := shares[o.Name]; !ok {
				names = append(names, o.Name)
				shares[o.Name] = make([]float64, len(steps))
			}
			shares[o.Name][j] += o.Share
		}
	}
	for _, n := range names {
		row := []string{n}
		for _, v := range shares[n] {
			row = append(row, Percent1(v))
		}
		t.Add(row...)
	}
	row := []string{"ITL"}
	for _, s := range steps {
		row = append(row, Duration(s.Time))
	}
	t.Add(row...)
	return t
}

// opsDoc is the per-operator part of predict's answer for people.
func opsDoc(o *app.Ops) *Doc {
	d := &Doc{}
	pre := o.Prefill
	d.Section(fmt.Sprintf("operators of the prefill (%d pass(es), batch %d, %d tokens cached at its end): TTFT %s", pre.Units, pre.Batch, pre.Context, Duration(pre.Time)), true)
	d.Table(OpViewTable(pre))
	if dec := o.Decode; dec != nil {
		d.Section(fmt.Sprintf("operators of a decode step (the mean of %d, batch %d): TPOT %s", dec.Units, dec.Batch, Duration(dec.Time)), true)
		d.Table(OpViewTable(dec))
	}
	if len(o.Steps) > 0 {
		d.Section("share of a decode step by context (keys each query attends)", true)
		d.Table(opsByContext(o.Steps))
	}
	d.Both("\n")
	d.Para("Operators: " + OpsAttribution + ". OTHER is activations and attention scores read and written; FLOP/B counts every byte the operator moves.")
	return d
}

// modelOpJSON is one operator's bytes and FLOPs, with no device.
type modelOpJSON struct {
	Operator            string  `json:"operator"`
	Group               string  `json:"group"`
	Layers              int     `json:"layers"`
	Class               string  `json:"class"`
	Types               string  `json:"types"`
	TiedTable           bool    `json:"reads_embedding_table,omitempty"`
	Params              float64 `json:"params"`
	WeightBytes         float64 `json:"weight_bytes"`
	StreamedBytes       float64 `json:"streamed_bytes_per_token"`
	LinearFLOPs         float64 `json:"linear_flops_per_token"`
	HeadFLOPs           float64 `json:"head_flops_per_token"`
	KVBytesPerToken     float64 `json:"kv_bytes_per_token"`
	AttentionFLOPsPerCx float64 `json:"attention_flops_per_context_token"`
}

type modelOpsJSON struct {
	modelJSON
	Operators []modelOpJSON `json:"operators"`
}

// ModelOps is `roofline show model --ops`: the model and its operators'
// bytes and FLOPs (model.Cost.Operators), as published, flash attention.
func ModelOps(mc *model.Cost, ops *model.Operators) Answer {
	return answer{
		doc: func() *Doc {
			d := modelDoc(mc)
			d.Both("\noperators (per decode token at batch 1; the model as published, fused where its tensors are, flash attention):\n")
			d.Table(modelOpsTable(ops))
			return d
		},
		data: func() any {
			j := modelOpsJSON{modelJSON: newModelJSON(mc), Operators: []modelOpJSON{}}
			for _, o := range ops.Ops {
				a := o.Account
				g, layers := opGroup(ops, &o)
				weights := a.WeightBytes
				if o.SharesTable {
					weights = 0
				}
				j.Operators = append(j.Operators, modelOpJSON{o.Name, g, layers, o.Class.String(), o.Types, o.SharesTable, a.ParamsTotal, weights,
					a.StreamedBytesPerToken(), a.LinearFLOPsPerToken(), a.HeadFLOPs(), a.KVBytesPerToken(), a.AttentionFLOPsPerContextToken()})
			}
			return j
		},
	}
}

func opGroup(ops *model.Operators, o *model.Operator) (string, int) {
	if o.Group < 0 {
		return "", 0
	}
	g := ops.Groups[o.Group]
	return g.Label, g.Layers
}

func modelOpsTable(ops *model.Operators) *Table {
	t := NewTable("GROUP", "OPERATOR", "LAYERS", "TYPE", "PARAMS", "WEIGHTS", "STREAMED", "FLOP", "KV/TOKEN", "FLOP/KEY").Right(2, 4, 5, 6, 7, 8, 9)
	var params, weights, streamed, flops, kv, attn float64
	for _, o := range ops.Ops {
		a := o.Account
		g, layers := opGroup(ops, &o)
		l, types, w := "", o.Types, a.WeightBytes
		if layers > 0 {
			l = fmt.Sprint(layers)
		}
		if o.SharesTable {
			types, w = types+" (tied)", 0
		}
		f := a.LinearFLOPsPerToken() + a.HeadFLOPs()
		t.Add(OrDash(g), o.Name, l, types, opCount(a.ParamsTotal), opBytes(w), opBytes(a.StreamedBytesPerToken()), opCount(f),
			opBytes(a.KVBytesPerToken()), opCount(a.AttentionFLOPsPerContextToken()))
		params, weights, streamed, flops = params+a.ParamsTotal, weights+w, streamed+a.StreamedBytesPerToken(), flops+f
		kv, attn = kv+a.KVBytesPerToken(), attn+a.AttentionFLOPsPerContextToken()
	}
	t.Add("total", "", "", "", Count(params), Bytes(weights), Bytes(streamed), Count(flops), Bytes(kv), Count(attn))
	return t
}

// opGapJSON is one operator of a measured test's attribution.
type opGapJSON struct {
	Operator   string   `json:"operator"`
	Class      string   `json:"class"`
	Predicted  float64  `json:"predicted_s"`
	Share      float64  `json:"share"`
	Scaled     float64  `json:"scaled_to_measured_s"`
	AloneGapBy *float64 `json:"alone_explains_gap_factor"`
}

// OpAttributionJSON is a measured test's gap operator by operator.
type OpAttributionJSON struct {
	Attribution string      `json:"attribution"`
	Predicted   float64     `json:"predicted_s"`
	Measured    float64     `json:"measured_s"`
	Operators   []opGapJSON `json:"operators"`
}

// OpsGapAttribution says what compare --ops is.
const OpsGapAttribution = "the operators' predicted times (per decode step, or for the whole prefill) scaled to the measured time, every one by the same factor, and the factor on each operator's time that alone would explain the gap; an attribution of the prediction, not a measurement of the operators"

func newOpAttributionJSON(a *compare.OpAttribution) *OpAttributionJSON {
	if a == nil {
		return nil
	}
	j := &OpAttributionJSON{Attribution: OpsGapAttribution, Predicted: a.Predicted, Measured: a.Measured}
	for _, g := range a.Ops {
		j.Operators = append(j.Operators, opGapJSON{g.Name, g.Class, g.Predicted, g.Share, g.Scaled, num(g.Alone)})
	}
	return j
}

// opGapTable is one test's attribution for people: the operators that
// take at least 1 % of its prediction.
func opGapTable(a *compare.OpAttribution) *Table {
	t := NewTable("OPERATOR", "PREDICTED", "SHARE", "SCALED TO MEASURED", "ALONE EXPLAINS THE GAP").Right(1, 2, 3, 4)
	rest, n := 0.0, 0
	for _, g := range a.Ops {
		if g.Share < 0.01 {
			rest += g.Share
			n++
			continue
		}
		alone := "no"
		if !math.IsNaN(g.Alone) {
			alone = fmt.Sprintf("at %s its time", Factor(g.Alone))
		}
		t.Add(g.Name, Duration(g.Predicted), Percent1(g.Share), Duration(g.Scaled), alone)
	}
	if n > 0 {
		t.Add(fmt.Sprintf("%d more under 1 %%", n), "", Percent1(rest), "", "")
	}
	return t
}

// opGapDoc is compare --ops for people: each test's gap by operator.
func opGapDoc(rows []compare.Row) *Doc {
	d := &Doc{}
	for i, r := range rows {
		a := r.Ops
		if a == nil {
			continue
		}
		per := "its prefill"
		if r.Run.Test == measured.Decode {
			per = "a decode step"
		}
		d.Section(fmt.Sprintf("run %d, %s %s on %s: %s measured %s, predicted %s (%+.0f %%)", i+1, r.Model, TestName(r.Run), r.Hardware, per,
			Duration(a.Measured), Duration(a.Predicted), 100*(a.Measured/a.Predicted-1)), false)
		d.Table(opGapTable(a))
	}
	d.Both("\n")
	d.Para("Operators: " + OpsGapAttribution + " (docs/method.md §6).")
	return d
}

// maxOpsTables bounds the report's operator tables: a study of every
// device and model has a thousand; results.json keeps them all.
const maxOpsTables = 12

// opsSection is the report's "Where the time goes": each device and
// model's recommended configuration at the workload, operator by operator.
func (rep *report) opsSection(doc *Doc) {
	if len(rep.Ops) == 0 {
		return
	}
	doc.Heading(2, "Where the time goes")
	doc.Para("The recommended configuration of each device and model at the workload, operator by operator (summed over its layer kinds): its share of the prefill (TTFT) and of the mean decode step (TPOT). " +
		"Operators: " + OpsAttribution + ". " + "`" + "roofline predict … --ops" + "`" + " prints every operator and layer kind.")
	for i, o := range rep.Ops {
		if i == maxOpsTables {
			doc.Para(fmt.Sprintf("%d more configurations are in results.json (operators).", len(rep.Ops)-maxOpsTables))
			break
		}
		in := o.Inputs
		doc.Heading(3, fmt.Sprintf("%s · %s (%s, %s, %s)", in.Device, in.Model, in.Engine, in.Runtime, in.Weights))
		doc.Table(opsSummaryTable(o))
	}
}

// opsSummaryTable is a prediction's prefill and mean decode step by
// operator name, summed over the layer kinds.
func opsSummaryTable(o study.OpsSummary) *Table {
	t := NewTable("operator", "prefill", "share", "decode step", "share").Right(1, 2, 3, 4)
	for _, r := range o.Ops {
		pre, ps, dec, ds := Dash, Dash, Dash, Dash
		if r.InPrefill {
			pre, ps = Duration(r.Prefill), Percent1(r.PrefillShare)
		}
		if r.InDecode {
			dec, ds = Duration(r.Decode), Percent1(r.DecodeShare)
		}
		t.Add(r.Name, pre, ps, dec, ds)
	}
	dec, ds := Dash, Dash
	if !math.IsNaN(o.TPOT) {
		dec, ds = Duration(o.TPOT), Percent1(1)
	}
	t.Add("total (TTFT, TPOT)", Duration(o.TTFT), Percent1(1), dec, ds)
	return t
}
