package app

import (
	"fmt"
	"slices"

	"github.com/roofline/roofline/sim"
)

// OpsRequest asks for a prediction operator by operator.
type OpsRequest struct {
	// At lists contexts (keys a decode query attends) whose single steps
	// are shown beside the first and the last; none: the longest context
	// the setup holds, so that the view spans what it can reach.
	At []int
}

// Ops is a prediction operator by operator: the prefill (its operators
// add up to TTFT), the mean decode step (to TPOT), and single decode
// steps (each to its ITL).
type Ops struct {
	Prefill *sim.OpView
	Decode  *sim.OpView // nil with one output token
	Steps   []Step
}

// Step is one decode step's view and why it is shown.
type Step struct {
	*sim.OpView
	// Label says which step: "first", "last", "longest" (the largest
	// context the model and memory hold) or "asked" (--ops-at).
	Label string
}

// The labels of Step.
const (
	StepFirst   = "first"
	StepLast    = "last"
	StepLongest = "longest"
	StepAsked   = "asked"
)

// operators prices r's workload operator by operator on s.
func operators(s *sim.Setup, r *sim.Result, req OpsRequest) (*Ops, error) {
	oa, err := s.Operators()
	if err != nil {
		return nil, err
	}
	w := r.Inputs.Workload
	out := &Ops{}
	if out.Prefill, err = oa.Prefill(w); err != nil {
		return nil, err
	}
	if out.Decode, err = oa.Decode(w); err != nil {
		return nil, err
	}
	type at struct {
		ctx   int
		label string
	}
	var steps []at
	if out.Decode != nil {
		first := w.Depth + w.Prompt + 1
		steps = append(steps, at{first, StepFirst})
		if last := w.LastStepContext(); last != first {
			steps = append(steps, at{last, StepLast})
		}
	}
	if len(req.At) == 0 {
		if longest := longestContext(s, r); longest > 0 && (len(steps) == 0 || longest > steps[len(steps)-1].ctx) {
			steps = append(steps, at{longest, StepLongest})
		}
	}
	for _, c := range req.At {
		if c < 1 || c > sim.MaxTokens {
			return nil, &sim.FieldError{Field: "OpsAt", Msg: fmt.Sprintf("must be between 1 and %d keys, got %d", sim.MaxTokens, c)}
		}
		if !slices.ContainsFunc(steps, func(a at) bool { return a.ctx == c }) {
			steps = append(steps, at{c, StepAsked})
		}
	}
	slices.SortStableFunc(steps, func(a, b at) int { return a.ctx - b.ctx })
	for _, st := range steps {
		v, err := oa.Step(st.ctx, w.Batch)
		if err != nil {
			return nil, err
		}
		out.Steps = append(out.Steps, Step{v, st.label})
	}
	return out, nil
}

// longestContext is the largest context the prediction's setup holds: the
// model's maximum, or less where memory holds less at its batch.
func longestContext(s *sim.Setup, r *sim.Result) int {
	n := s.Model.Spec.MaxContext
	if m := r.Memory.MaxContext; m > 0 && m < n {
		n = m
	}
	return n
}

// OpShare is one operator, summed over its layer kinds, in a prefill and
// in a mean decode step.
type OpShare struct {
	Name string
	// Prefill and Decode are its time, s; PrefillShare and DecodeShare
	// its share of TTFT and TPOT; InPrefill and InDecode say whether it
	// is a row of that view (the pass overhead is not a decode row).
	Prefill, PrefillShare, Decode, DecodeShare float64
	InPrefill, InDecode                        bool
}

// ByName is the prefill and the mean decode step by operator name, in the
// order of a pass: what a summary of many predictions keeps of each.
func (o *Ops) ByName() []OpShare {
	var out []OpShare
	at := map[string]int{}
	add := func(v *sim.OpView, decode bool) {
		if v == nil {
			return
		}
		for _, op := range v.Ops {
			i, ok := at[op.Name]
			if !ok {
				i = len(out)
				at[op.Name] = i
				out = append(out, OpShare{Name: op.Name})
			}
			r := &out[i]
			if decode {
				r.Decode, r.DecodeShare, r.InDecode = r.Decode+op.Time, r.DecodeShare+op.Share, true
			} else {
				r.Prefill, r.PrefillShare, r.InPrefill = r.Prefill+op.Time, r.PrefillShare+op.Share, true
			}
		}
	}
	add(o.Prefill, false)
	add(o.Decode, true)
	return out
}
