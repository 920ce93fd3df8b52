package render

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/sim"
)

// planRequests are plans whose streams are checked against the JSON and
// CSV built in memory: margins with and without targets, a throughput
// floor (excess on every configuration), configurations that do not fit,
// several batches, a format of unknown quality (mlx-q4, quality_loss
// null), the feasible-only filter, and models spread over boards or
// offloaded.
func planRequests() map[string]app.PlanRequest {
	base := app.PlanRequest{Devices: []string{"jetson-orin-nano-super-8gb", "rk3588", "apple-m2"}, Models: []string{"llama-3.2-3b", "qwen2.5-1.5b"},
		Weights: []string{"q4_k_m", "w8a8", "f32", "mlx-q4"}, Contexts: []int{2048, 8192, 32768}, Batches: []int{1, 4}, Prompt: 200, Output: 100,
		UBatch: 512, MinBatch: 1, Options: sim.DefaultOptions, Targets: sim.Targets{TTFT: 1, TPOT: 0.2, Headroom: 0.1}}
	noTargets := base
	noTargets.Targets = sim.Targets{}
	floor := base
	floor.Targets = sim.Targets{TPOT: 0.05, MinThroughput: 40}
	only := base
	only.Show.FeasibleOnly = true
	// Spread over boards (devices, split), offloaded to a desktop's
	// memory, and one that nothing holds (smallest_that_fits).
	spread := app.PlanRequest{Devices: []string{"raspberry-pi-5-8gb", "rtx-4090"}, Models: []string{"llama-3.1-8b", "llama-3.1-70b"}, Weights: []string{"q4_0"},
		Contexts: []int{1024, 8192}, Batches: []int{1, 2}, Prompt: 128, Output: 128, MinBatch: 1, Options: sim.DefaultOptions,
		Targets: sim.Targets{TPOT: 0.2}, Counts: []int{1, 2, 4}, Spread: app.Spread{Link: "1gbe"}}
	spread.Show.Top = 3
	spread.Detail = true
	return map[string]app.PlanRequest{"targets": base, "no targets": noTargets, "throughput floor": floor, "feasible only": only, "spread": spread}
}

func TestPlanStreamMatchesInMemory(t *testing.T) {
	env, err := app.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	for name, req := range planRequests() {
		kept, err := env.Plan(req)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := WriteJSON(&want, NewPlanJSON(kept)); err != nil {
			t.Fatal(err)
		}
		for _, f := range []Format{JSON, CSV} {
			p, err := env.PlanSearch(req)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := Write(&got, &bytes.Buffer{}, f, Plan(p)); err != nil {
				t.Fatal(err)
			}
			if p.Groups[0].Configs != nil {
				t.Errorf("%s %s: a streamed plan kept its configurations", name, f)
			}
			w := want.Bytes()
			if f == CSV {
				w = planCSV(kept)
			}
			if !bytes.Equal(got.Bytes(), w) {
				t.Errorf("%s %s: the stream differs from the answer built in memory:\n%s\nwant\n%s", name, f, head(got.Bytes()), head(w))
			}
		}
	}
}

// planCSV is plan's CSV written by encoding/csv from the kept
// configurations.
func planCSV(p *app.Plan) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(planCSVHead)
	t := p.Targets
	for _, g := range p.Groups {
		for _, c := range g.Configs {
			if !c.Feasible && p.Request.Show.FeasibleOnly {
				continue
			}
			ttft, tpot := g.Judge(c, t)
			margin := func(on bool, v float64) string {
				if !on {
					return ""
				}
				return fmt.Sprint(v - 1)
			}
			widened := ""
			if t.TPOT > 0 && g.MoEDecodeNote != "" {
				widened = "tpot"
			}
			_ = w.Write([]string{g.Device, g.Engine, g.Runtime, g.Model, g.Weights, g.KV, fmt.Sprint(g.BPW), fmt.Sprint(c.Context), fmt.Sprint(c.Batch),
				fmt.Sprint(g.Prompt), fmt.Sprint(g.Output), fmt.Sprint(c.TTFT), fmt.Sprint(c.TPOT), fmt.Sprint(c.Throughput), fmt.Sprint(c.Memory),
				fmt.Sprint(g.UsableFor(c)), fmt.Sprint(c.Fits), fmt.Sprint(c.Feasible), c.Limit.String(), c.Verdict.String(), fmt.Sprint(g.Devices), g.SplitText(c),
				margin(t.TTFT > 0, ttft.Margin), margin(t.TPOT > 0, tpot.Margin), margin(t.TTFT > 0, ttft.MarginLo), margin(t.TTFT > 0, ttft.MarginHi),
				margin(t.TPOT > 0, tpot.MarginLo), margin(t.TPOT > 0, tpot.MarginHi), fmt.Sprint(t.ConfidenceLevel()), widened})
		}
	}
	w.Flush()
	return b.Bytes()
}

func head(b []byte) []byte {
	if len(b) > 2000 {
		return b[:2000]
	}
	return b
}

func TestAppendJSONFloatAndString(t *testing.T) {
	// Each is written as encoding/json writes it.
	for _, v := range []float64{0, 1, -1, 0.1, 1e-6, 9.99e-7, 1.5e-7, 1e20, 1e21, 1.234e22, 123456789.125, -3e-9, 5e-324} {
		var want bytes.Buffer
		_ = WriteJSON(&want, v)
		if got := string(appendJSONFloat(nil, v)) + "\n"; got != want.String() {
			t.Errorf("%g: %q, want %q", v, got, want.String())
		}
	}
	for _, s := range []string{"", "rk3588", `a"b`, `back\slash`, "tab\there", "µ-board", "<html>&"} {
		var want bytes.Buffer
		_ = WriteJSON(&want, s)
		if got := string(appendJSONString(nil, s)) + "\n"; got != want.String() {
			t.Errorf("%q: %q, want %q", s, got, want.String())
		}
	}
	for _, s := range []string{"", "a,b", `q"uote`, " lead", `\.`, "line\nbreak", "plain"} {
		var want bytes.Buffer
		w := csv.NewWriter(&want)
		_ = w.Write([]string{s, "x"})
		w.Flush()
		if got := string(appendCSVField(nil, s)) + ",x\n"; got != want.String() {
			t.Errorf("%q: %q, want %q", s, got, want.String())
		}
	}
}
