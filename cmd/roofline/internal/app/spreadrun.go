package app

import (
	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/sim"
)

// SpreadCheck is a measured run whose model was spread over devices or
// memories, priced as predict prices the same request: tokens/s measured,
// predicted and the 80 % interval of the prediction, and the prediction.
type SpreadCheck struct {
	Run                 measured.Run
	Measured, Predicted float64
	// Lo and Hi bound the predicted tokens/s (the interval of TTFT for a
	// prefill test, of TPOT for a decode test).
	Lo, Hi     float64
	Prediction *Prediction
}

// Covered reports whether the measured rate falls in the interval.
func (c SpreadCheck) Covered() bool { return c.Measured >= c.Lo && c.Measured <= c.Hi }

// CheckSpreadRun prices run r — a runs CSV row with spread columns
// (measured.Spread) — through Predict, as `roofline predict` with the
// same flags would: its model, runtime and build (as compare names them),
// file size and flash-attention setting, on r.Hardware spread as stated.
// A prefill test is its prompt on top of its depth, one pass after
// another; a decode test its Gen steps after its depth.
func (env *Env) CheckSpreadRun(r measured.Run) (*SpreadCheck, error) {
	ev := compare.New(env.Catalog, compare.Options{})
	sel := Selection{Model: r.Model, Hardware: r.Hardware, Runtime: ev.RuntimeOf(r), Engine: r.Engine,
		Weights: r.Weights, KV: r.KV, FileBytes: r.ModelBytes, Options: sim.DefaultOptions}
	sel.Options.NoFlashAttention = r.FlashAttn == "off"
	s := r.Spread
	sp := Spread{Devices: s.Devices, TP: s.TP, PP: s.PP, EP: s.EP, GPULayers: s.GPULayers, GPULayersSet: s.GPULayersSet,
		CPUMoE: s.CPUMoE, NCPUMoE: s.NCPUMoE, Host: s.Host, Link: s.Link}
	w := sim.Workload{Prompt: r.Prompt, Output: 1, Batch: r.Batch, Depth: r.Depth, UBatch: r.UBatch}
	if r.Test == measured.Decode {
		// Gen steps after the depth (a first step of depth+1 keys, as
		// compare prices it; an empty cache is a prompt of one token).
		w = sim.Workload{Prompt: max(r.Depth, 1), Output: r.Gen + 1, Batch: r.Batch, UBatch: r.UBatch}
	}
	p, err := env.Predict(PredictRequest{Setup: sel, Workload: w, Spread: sp})
	if err != nil {
		return nil, err
	}
	tokens := float64(r.Tokens())
	c := &SpreadCheck{Run: r, Measured: r.TokensPerS, Prediction: p}
	if r.Test == measured.Decode {
		c.Predicted = tokens / p.Decode.Time
		c.Lo, c.Hi = c.Predicted, c.Predicted
		if iv := p.TPOTInterval; iv != nil {
			c.Lo, c.Hi = float64(r.Batch)/iv.Hi, float64(r.Batch)/iv.Lo
		}
	} else {
		c.Predicted = tokens / p.TTFT
		c.Lo, c.Hi = c.Predicted, c.Predicted
		if iv := p.TTFTInterval; iv != nil {
			c.Lo, c.Hi = tokens/iv.Hi, tokens/iv.Lo
		}
	}
	return c, nil
}
