package compare

import (
	"math"
	"sort"

	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/sim"
)

// OpGap is one operator (summed over its layer kinds) of a measured test:
// its predicted time, that time scaled to the measurement, and how much
// it alone would have to change to explain the gap. An attribution of
// the prediction, not a measurement of the operator.
type OpGap struct {
	Name  string
	Class string
	// Predicted is its predicted time, s (per step for decode); Share its
	// share of the prediction; Scaled its time scaled to the measured
	// total (every operator by the same factor).
	Predicted, Share, Scaled float64
	// Alone is the factor on its time that would explain the gap by
	// itself: (predicted + measured − predicted total) / predicted; NaN
	// when no change of it can (the run is faster than everything else
	// alone would take).
	Alone float64
}

// OpAttribution is a measured test's gap operator by operator.
type OpAttribution struct {
	// Predicted and Measured are the test's time, s: per pass of
	// prefill in all (prefill) or per decode step (decode).
	Predicted, Measured float64
	Ops                 []OpGap // largest predicted share first
}

// attribute is the operators of run r's test on s, scaled to its
// measured time.
func attribute(s *sim.Setup, r measured.Run, measuredTime float64) (*OpAttribution, error) {
	oa, err := s.Operators()
	if err != nil {
		return nil, err
	}
	var v *sim.OpView
	if r.Test == measured.Prefill {
		v, err = oa.PrefillPhase(r.Prompt, r.Depth, r.Batch, r.UBatch)
	} else {
		v, err = oa.DecodePhase(r.Depth+1, r.Gen, r.Batch)
		measuredTime /= float64(r.Gen)
	}
	if err != nil {
		return nil, err
	}
	a := &OpAttribution{Predicted: v.Time, Measured: measuredTime}
	at := map[string]int{}
	for _, o := range v.Ops {
		i, ok := at[o.Name]
		if !ok {
			i = len(a.Ops)
			at[o.Name] = i
			a.Ops = append(a.Ops, OpGap{Name: o.Name, Class: o.Class})
		}
		a.Ops[i].Predicted += o.Time
		a.Ops[i].Share += o.Share
	}
	gap := measuredTime - v.Time
	for i := range a.Ops {
		g := &a.Ops[i]
		g.Scaled = g.Predicted * measuredTime / v.Time
		g.Alone = math.NaN()
		if g.Predicted > 0 && g.Predicted+gap > 0 {
			g.Alone = (g.Predicted + gap) / g.Predicted
		}
	}
	sort.SliceStable(a.Ops, func(i, j int) bool { return a.Ops[i].Share > a.Ops[j].Share })
	return a, nil
}
