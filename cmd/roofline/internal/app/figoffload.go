package app

import (
	"fmt"

	"github.com/roofline/roofline/cmd/roofline/internal/plots"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/sim"
)

// figGPULayers sweeps llama.cpp's -ngl from 0 to every layer: decode and
// prefill tokens/s against the layers on the GPU, the layers that fit
// (memory runs out past them: the cliff) and the placement llama.cpp's
// --fit chooses marked.
func figGPULayers(env *Env, req *FigureRequest) (*plots.Figure, []string, error) {
	w := sim.DefaultWorkload
	var err error
	if w.Prompt, err = req.intParam("prompt", 1, sim.MaxTokens); err != nil {
		return nil, nil, err
	}
	if w.Output, err = req.intParam("output-tokens", 2, sim.MaxTokens); err != nil {
		return nil, nil, err
	}
	sel := req.Setup
	res, err := env.Resolve(sel)
	if err != nil {
		return nil, nil, err
	}
	if in := res.Setup.Inputs; in.EngineKind == hardware.CPU {
		return nil, nil, &RequestError{Input: "hardware", Msg: fmt.Sprintf("%s's %s engine is a CPU: every layer runs from host memory, with no GPU to place layers on", in.Device, in.Engine), Hint: "choose a GPU engine with --engine"}
	}
	L := res.Setup.Model.Spec.Layers
	spread := Spread{Host: req.param("host"), GPULayersSet: true}
	dec := plots.Curve{Label: "decode", SwitchLabel: "llama.cpp --fit's choice"}
	pre := plots.Curve{Label: "prefill", SwitchLabel: "llama.cpp --fit's choice"}
	var notes []string
	fitsUpTo := -1
	for n := 0; n <= L+1; n++ {
		spread.GPULayers = n
		split, ns, err := env.split(res, sel, spread, w, nil)
		if err != nil {
			return nil, nil, err
		}
		var r *sim.Result
		switch {
		case split == nil && n <= L:
			return nil, nil, &RequestError{Input: "hardware", Msg: res.Setup.Device.Name + " keeps every layer in one memory: nothing to offload"}
		case split == nil:
			// Every layer on the GPU: predict's plain answer.
			r, err = res.Setup.Predict(w)
		default:
			notes = ns
			r, err = split.Predict(w)
		}
		if err != nil {
			return nil, nil, err
		}
		x := float64(n)
		dec.X, pre.X = append(dec.X, x), append(pre.X, x)
		dec.Expected = append(dec.Expected, r.DecodeTokensPerS)
		pre.Expected = append(pre.Expected, r.PrefillTokensPerS)
		dec.Ideal = append(dec.Ideal, 1/r.TPOTBound)
		pre.Ideal = append(pre.Ideal, float64(w.Batch*w.Prompt)/r.TTFTBound)
		if r.Memory.Fits {
			fitsUpTo = n
		}
	}
	if fit, _, err := env.split(res, sel, Spread{Host: spread.Host}, w, nil); err == nil && fit != nil {
		dec.Switch, pre.Switch = float64(fit.GPULayers), float64(fit.GPULayers)
	}
	if fitsUpTo >= 0 && fitsUpTo < L+1 {
		dec.Limit, pre.Limit = float64(fitsUpTo)+0.5, float64(fitsUpTo)+0.5
	}
	in := res.Setup.Inputs
	title := fmt.Sprintf("Layers on the GPU: %s (%s) on %s, the rest on its host's CPU\nprompt %d, output %d; memory runs out past %d of %d layers (llama.cpp's count, the output layer one)",
		in.Model, in.Weights, in.Device, w.Prompt, w.Output, fitsUpTo, L+1)
	f, err := plots.Stacked(title, "layers on the GPU (-ngl)", false,
		plots.Panel{YLabel: "decode tokens/s", Curves: []plots.Curve{dec}, Scale: plots.LogY},
		plots.Panel{YLabel: "prefill tokens/s", Curves: []plots.Curve{pre}, Scale: plots.LogY})
	return f, notes, err
}
