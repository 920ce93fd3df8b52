package render

import (
	"math"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/sim"
)

// Over the catalog — every model on every device under its runtime, and
// models of every kind (windows, MoE, MLA) under every runtime that runs
// them there — the operators of predict --ops add up to predict's TTFT,
// TPOT and ITLs to the last digit it prints, and to 1e-12 at full
// precision: the view is the prediction, attributed, not a second model.
func TestOpsAddUpOverTheCatalog(t *testing.T) {
	env, err := app.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	workloads := []sim.Workload{
		sim.DefaultWorkload,
		// Crosses Gemma's and gpt-oss's windows in prefill and decode,
		// in several passes, at a batch; then the runtime's own passes,
		// whole prompts in order under vLLM and TensorRT-LLM.
		{Prompt: 3000, Output: 1500, Batch: 3, Depth: 200, UBatch: 1024},
		{Prompt: 700, Output: 64, Batch: 5, UBatch: 0},
	}
	kinds := map[string]bool{"gemma-2-2b": true, "qwen3-30b-a3b": true, "deepseek-v3": true, "gpt-oss-20b": true, "llama-3.1-8b": true, "phi-3-mini": true}
	checked := 0
	for _, d := range env.Catalog.Devices() {
		for _, m := range env.Catalog.Models() {
			for _, rt := range append([]string{""}, runtimeNames(env)...) {
				if rt != "" && !kinds[m.Name] {
					continue
				}
				for wi, w := range workloads {
					if wi > 0 && rt != "" {
						continue // the long workload under each device's own runtime
					}
					p, err := env.Predict(app.PredictRequest{Setup: app.Selection{Model: m.Name, Hardware: d.Name, Runtime: rt, Options: sim.DefaultOptions},
						Workload: w, Ops: &app.OpsRequest{}})
					if err != nil || p.Ops == nil {
						continue // the runtime does not run there, or not this model; or the model is spread over memories (no operator view)
					}
					name := m.Name + " on " + d.Name + " under " + p.Inputs.Runtime
					checkView(t, name+" prefill", p.Ops.Prefill, p.TTFT, p.TTFTBound)
					if p.Ops.Decode != nil {
						checkView(t, name+" decode", p.Ops.Decode, p.TPOT, p.TPOTBound)
					}
					for _, s := range p.Ops.Steps {
						switch s.Label {
						case app.StepFirst:
							checkView(t, name+" first step", s.OpView, p.ITLFirst, math.NaN())
						case app.StepLast:
							checkView(t, name+" last step", s.OpView, p.ITLLast, math.NaN())
						}
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d predictions checked", checked)
	if checked < 500 {
		t.Errorf("only %d predictions checked", checked)
	}
}

func runtimeNames(env *app.Env) []string {
	var out []string
	for _, r := range env.Catalog.Runtimes().All() {
		out = append(out, r.Name)
	}
	return out
}

func checkView(t *testing.T, name string, v *sim.OpView, want, wantIdeal float64) {
	t.Helper()
	var sum, ideal float64
	for _, o := range v.Ops {
		sum += o.Time
		ideal += o.IdealTime
	}
	if Duration(sum) != Duration(want) || math.Abs(sum-want) > 1e-12*want {
		t.Errorf("%s: Σ operators %s (%.17g), predicted %s (%.17g)", name, Duration(sum), sum, Duration(want), want)
	}
	if !math.IsNaN(wantIdeal) && (Duration(ideal) != Duration(wantIdeal) || math.Abs(ideal-wantIdeal) > 1e-12*wantIdeal) {
		t.Errorf("%s: Σ operators' ideal %.17g, predicted %.17g", name, ideal, wantIdeal)
	}
}
