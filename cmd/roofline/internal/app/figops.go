package app

import (
	"fmt"
	"math"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/plots"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// OpKinds are the families an operator belongs to, in the order of their
// colours on the operator roofline: a 36-layer MoE model's operators are
// told apart by family and labelled once per layer kind.
var OpKinds = []string{"attention projections", "attention", "feed-forward", "routed experts", "shared experts", "router", "output head", "embedding, norms"}

// OpKindOf is the family of an operator by name.
func OpKindOf(name string) string {
	switch {
	case strings.HasSuffix(name, "_proj"):
		if strings.Contains(name, "gate") || strings.Contains(name, "up") || strings.Contains(name, "down") {
			return OpKinds[2]
		}
		return OpKinds[0]
	case name == "flash_attention" || name == "qk_matmul" || name == "softmax" || name == "sv_matmul":
		return OpKinds[1]
	case strings.HasPrefix(name, "experts_"):
		return OpKinds[3]
	case strings.HasPrefix(name, "shared_"):
		return OpKinds[4]
	case name == "router":
		return OpKinds[5]
	case name == "lm_head":
		return OpKinds[6]
	case name == "embedding" || name == "norms" || name == "final_norm":
		return OpKinds[7]
	}
	return ""
}

// figOps draws a prefill and a decode step operator by operator on the
// engine's roofline.
func figOps(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	var w sim.Workload
	for _, p := range []struct {
		name string
		dst  *int
		lo   int
	}{{"prompt", &w.Prompt, 1}, {"batch", &w.Batch, 1}, {"ubatch", &w.UBatch, 0}} {
		v, err := req.intParam(p.name, p.lo, sim.MaxTokens)
		if err != nil {
			return nil, nil, err
		}
		*p.dst = v
	}
	w.Output = 2
	ctx, err := req.tokensParam("context")
	if err != nil {
		return nil, nil, err
	}
	if ctx == 0 {
		ctx = w.Prompt + 1
	}
	if ctx < 1 || ctx > sim.MaxTokens {
		return nil, nil, &RequestError{Input: "context", Msg: fmt.Sprintf("%d: want 1 … %d keys", ctx, sim.MaxTokens)}
	}
	res, err := env.Resolve(req.Setup)
	if err != nil {
		return nil, nil, err
	}
	s := res.Setup
	oa, err := s.Operators()
	if err != nil {
		return nil, nil, err
	}
	pre, err := oa.Prefill(w)
	if err != nil {
		return nil, nil, err
	}
	step, err := oa.Step(ctx, w.Batch)
	if err != nil {
		return nil, nil, err
	}
	in := s.Inputs
	roof := plots.Roof{Label: fmt.Sprintf("%s %s %s", in.Device, in.Engine, in.Precision), Peak: in.Peak, Bandwidth: in.Bandwidth}
	panels := []plots.OpsPanel{
		opsPanel(fmt.Sprintf("prefill of %d tokens × %d: TTFT %s", w.Prompt, pre.Batch, units.FormatDuration(pre.Time)), roof, pre),
		opsPanel(fmt.Sprintf("decode step at %d keys × %d: ITL %s", ctx, step.Batch, units.FormatDuration(step.Time)), roof, step),
	}
	for i, v := range []*sim.OpView{pre, step} {
		panels[i].Expected = plots.Roof{Label: fmt.Sprintf("expected in the %s: %.0f %% of the bandwidth, products at %.0f %% of the peak",
			[]string{"prefill", "decode step"}[i], 100*v.Bandwidth/in.Bandwidth, 100*v.ProductRate/in.Peak), Peak: v.ProductRate, Bandwidth: v.Bandwidth}
	}
	title := fmt.Sprintf("%s %s on %s (%s, %s): where the time goes, operator by operator", in.Model, in.Weights, in.Device, in.Engine, in.Runtime)
	f, err := plots.OperatorRoofline(title, OpKinds, panels)
	return f, append(res.Notes, "the operators' times are an attribution of the predicted time, not a measurement (docs/method.md §6)"), err
}

// opsPanel places a view's operators: an operator of several layer kinds
// that lands on one spot is one mark, named once; the note says what has
// no place on the chart (no FLOPs, the fixed costs).
func opsPanel(title string, roof plots.Roof, v *sim.OpView) plots.OpsPanel {
	pn := plots.OpsPanel{Title: title, Roof: roof}
	type spot struct {
		mark  plots.OpMark
		group string
		n     int
	}
	var spots []spot
	var off float64
	var offNames []string
	for _, o := range v.Ops {
		if !(o.FLOPs > 0 && o.Time > 0) {
			if o.Share > 0.0005 {
				off += o.Share
				offNames = append(offNames, o.Name)
			}
			continue
		}
		m := plots.OpMark{Kind: OpKindOf(o.Name), Label: o.Name, Intensity: o.Intensity(), FLOPPerS: o.FLOPs / o.Time, Share: o.Share}
		merged := false
		for i := range spots {
			sp := &spots[i]
			if sp.mark.Label == m.Label && math.Abs(math.Log(sp.mark.Intensity/m.Intensity)) < 0.05 && math.Abs(math.Log(sp.mark.FLOPPerS/m.FLOPPerS)) < 0.05 {
				sp.mark.Share += m.Share
				sp.n++
				merged = true
				break
			}
		}
		if !merged {
			spots = append(spots, spot{m, o.Group, 1})
		}
	}
	for _, sp := range spots {
		// Name the layer kind where the operator lands on several spots.
		for _, o := range spots {
			if o.mark.Label == sp.mark.Label && o.group != sp.group && sp.n == 1 && sp.group != "" {
				sp.mark.Label += " · " + sp.group
				break
			}
		}
		pn.Marks = append(pn.Marks, sp.mark)
	}
	if off > 0 {
		pn.Note = fmt.Sprintf("not drawn (no FLOPs, or fixed): %s, %.1f%% of the time", strings.Join(offNames, ", "), 100*off)
	}
	return pn
}
