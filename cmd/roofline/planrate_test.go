package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/serve"
	"github.com/roofline/roofline/sim"
)

// TestPlanRate: plan --rate R searches the recommended configurations'
// largest Poisson rate within --ttft and --tpot with serve's own search
// (the same requests, so the same answer as the serve command), shows it
// as a MAX RATE column and max_rate in JSON, and exits 0 only when one
// sustains R (3 naming the rate when the latencies are met but not the
// rate); without --rate or --detail nothing is searched; a bad rate is a
// usage error at the flag.
func TestPlanRate(t *testing.T) {
	args := []string{"plan", "--hardware", "rk3588,jetson-orin-nano-super-8gb", "--model", "qwen2.5-1.5b", "--ttft", "2s", "--tpot", "200ms", "--prompt", "200", "--output-tokens", "100"}
	out, errOut, code := runCLI(append(args, "--rate", "0.05")...)
	if code != 0 || !strings.Contains(out, "MAX RATE") || !strings.Contains(out, "1 sustains the 0.05 req/s asked for") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = runCLI(append(args, "--rate", "0.05", "--format", "json")...)
	var j struct {
		Best []struct {
			Hardware string   `json:"hardware"`
			Weights  string   `json:"weights"`
			Runtime  string   `json:"runtime"`
			Engine   string   `json:"engine"`
			Place    int      `json:"place"`
			MaxRate  *float64 `json:"max_rate"`
		} `json:"best"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 || len(j.Best) != 2 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	env, err := app.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range j.Best {
		if b.MaxRate == nil {
			t.Fatalf("%s: no max_rate", b.Hardware)
		}
		// serve --max-rate on the same configuration and requests.
		a, err := env.Serve(app.ServeRequest{
			Setup:      app.Selection{Model: "qwen2.5-1.5b", Hardware: b.Hardware, Runtime: b.Runtime, Engine: b.Engine, Weights: b.Weights, Options: sim.DefaultOptions},
			Workload:   serve.Workload{Arrival: serve.Poisson, Rate: 1, Requests: app.PlanRateRequests, Prompt: serve.Dist{Kind: serve.Fixed, A: 200}, Output: serve.Dist{Kind: serve.Fixed, A: 100}, Seed: 1},
			Targets:    serve.Targets{TTFT: 2, TPOT: 0.2},
			SearchRuns: app.PlanRateRuns,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := *b.MaxRate, a.Search.MaxRate; math.Abs(got-want) > 1e-12*want {
			t.Errorf("%s: plan's max rate %v, serve's %v", b.Hardware, got, want)
		}
	}
	_, errOut, code = runCLI(append(args, "--rate", "5")...)
	if code != 3 || !strings.Contains(errOut, "sustains 5 requests/s") {
		t.Errorf("--rate 5: exit %d, %s", code, errOut)
	}
	out, _, _ = runCLI(args...)
	if strings.Contains(out, "MAX RATE") {
		t.Errorf("a max rate without --rate or --detail:\n%s", out)
	}
	for _, bad := range []string{"-1", "NaN", "2e6"} {
		if _, errOut, code := runCLI(append(args, "--rate", bad)...); code != 2 || !strings.Contains(errOut, "--rate") {
			t.Errorf("--rate %s: exit %d, %s", bad, code, errOut)
		}
	}
	// A rate without a latency target has nothing to be held to.
	if _, errOut, code := runCLI("plan", "--hardware", "rk3588", "--model", "qwen2.5-1.5b", "--rate", "1"); code != 2 || !strings.Contains(errOut, "give --ttft, --tpot or both") {
		t.Errorf("--rate without targets: exit %d, %s", code, errOut)
	}
}

// TestPlanRateTensorParallel: a configuration spread over a tensor-
// parallel group has its rate searched as serve --tp searches it.
func TestPlanRateTensorParallel(t *testing.T) {
	out, errOut, code := runCLI("plan", "--hardware", "h100-sxm", "--model", "llama-3.1-70b", "--runtime", "vllm", "--weights", "bf16", "--devices", "2",
		"--ttft", "1s", "--tpot", "100ms", "--prompt", "512", "--output-tokens", "128", "--rate", "1", "--format", "json")
	var j struct {
		Best []struct {
			Devices int      `json:"devices"`
			MaxRate *float64 `json:"max_rate"`
		} `json:"best"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 || len(j.Best) != 1 || j.Best[0].Devices != 2 || j.Best[0].MaxRate == nil {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errOut)
	}
	env, err := app.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	a, err := env.Serve(app.ServeRequest{
		Setup:      app.Selection{Model: "llama-3.1-70b", Hardware: "h100-sxm", Runtime: "vllm", Weights: "bf16", Options: sim.DefaultOptions},
		Spread:     app.Spread{Devices: 2},
		Workload:   serve.Workload{Arrival: serve.Poisson, Rate: 1, Requests: app.PlanRateRequests, Prompt: serve.Dist{Kind: serve.Fixed, A: 512}, Output: serve.Dist{Kind: serve.Fixed, A: 128}, Seed: 1},
		Targets:    serve.Targets{TTFT: 1, TPOT: 0.1},
		SearchRuns: app.PlanRateRuns,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := *j.Best[0].MaxRate, a.Search.MaxRate; !(want > 0) || math.Abs(got-want) > 1e-12*want {
		t.Errorf("plan's max rate on 2 devices %v, serve --devices 2's %v", got, want)
	}
}

// TestPlanRatePipeline: a configuration spread over pipeline stages has
// its rate searched as serve --devices searches it (it was left
// unsearched, —): Llama-3.1-70B Q4_K_M over two RTX 4090s under
// llama.cpp, two stages of layers (40 GB of weights, 24 GB a card), each
// step going through them as serve steps it (sim.Through).
func TestPlanRatePipeline(t *testing.T) {
	out, errOut, code := runCLI("plan", "--hardware", "rtx-4090", "--model", "llama-3.1-70b", "--weights", "q4_k_m", "--devices", "2",
		"--ttft", "2s", "--tpot", "100ms", "--prompt", "512", "--output-tokens", "128", "--rate", "0.05", "--format", "json")
	var j struct {
		Best []struct {
			Devices int      `json:"devices"`
			MaxRate *float64 `json:"max_rate"`
		} `json:"best"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 || len(j.Best) != 1 || j.Best[0].Devices != 2 || j.Best[0].MaxRate == nil {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errOut)
	}
	env, err := app.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	a, err := env.Serve(app.ServeRequest{
		Setup:      app.Selection{Model: "llama-3.1-70b", Hardware: "rtx-4090", Weights: "q4_k_m", Options: sim.DefaultOptions},
		Spread:     app.Spread{Devices: 2},
		Workload:   serve.Workload{Arrival: serve.Poisson, Rate: 1, Requests: app.PlanRateRequests, Prompt: serve.Dist{Kind: serve.Fixed, A: 512}, Output: serve.Dist{Kind: serve.Fixed, A: 128}, Seed: 1},
		Targets:    serve.Targets{TTFT: 2, TPOT: 0.1},
		SearchRuns: app.PlanRateRuns,
	})
	if err != nil {
		t.Fatal(err)
	}
	if a.Server.Split == nil || a.Server.Split.PP != 2 {
		t.Fatalf("serve --devices 2: not a pipeline of 2 stages")
	}
	if got, want := *j.Best[0].MaxRate, a.Search.MaxRate; !(want > 0) || math.Abs(got-want) > 1e-12*want {
		t.Errorf("plan's max rate over 2 stages %v, serve --devices 2's %v", got, want)
	}
}

// TestPlanRateOffload: a configuration offloaded to the host has its rate
// searched on the server serve steps for the same placement (serve
// --gpu-layers N --n-cpu-moe E, the plan's layers and experts): plan's
// MAX RATE is serve's (to 1e-12), not skipped (—) and not priced a
// second way. The rows are the worked example of docs/planning.md.
//
// Hand check of the bound: a server of MaxSeqs slots cannot finish
// requests faster than MaxSeqs lone requests run side by side, each
// taking TTFT + (output−1)·TPOT alone (a batched step is never faster
// than a lone one), so max rate < MaxSeqs / E2E(alone). For Llama-3.1-70B
// q4_k_m 43/81 on the RTX 4090 (serve's single request: TTFT 2.56 s,
// TPOT 399 ms, 128 tokens): E2E ≈ 2.56 + 127 × 0.399 = 53.2 s, four
// llama.cpp slots: < 4 / 53.2 = 0.075 requests/s; the search answers
// 0.00145 (p99 TPOT 499 ms against 500 ms: the offloaded lone step is
// 399 ms, a second request in the batch pushes it past the target).
func TestPlanRateOffload(t *testing.T) {
	const prompt, output = 512, 128
	cases := []struct {
		hardware, model, context string
		layers, experts          int // the plan's placement (split "offload L/N[, experts of E in host]")
	}{
		{"rtx-4090", "llama-3.1-70b", "8k", 43, 0},
		{"rtx-3060", "qwen3-30b-a3b", "32k", 49, 29},
	}
	env, err := app.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.hardware+"/"+c.model, func(t *testing.T) {
			out, errOut, code := runCLI("plan", "--hardware", c.hardware, "--model", c.model, "--weights", "q4_k_m", "--context", c.context,
				"--prompt", fmt.Sprint(prompt), "--output-tokens", fmt.Sprint(output), "--ttft", "20s", "--tpot", "500ms", "--rate", "0.001", "--format", "json")
			var j struct {
				Best []struct {
					Split   string   `json:"split"`
					MaxRate *float64 `json:"max_rate"`
				} `json:"best"`
			}
			if err := json.Unmarshal([]byte(out), &j); err != nil || len(j.Best) != 1 || (code != 0 && code != 3) {
				t.Fatalf("exit %d, %v: %s%s", code, err, out, errOut)
			}
			b := j.Best[0]
			var layers, experts int
			if n, _ := fmt.Sscanf(b.Split, "offload %d/", &layers); n != 1 || layers != c.layers {
				t.Fatalf("split %q: want offload %d/…", b.Split, c.layers)
			}
			if i := strings.Index(b.Split, "experts of "); i >= 0 {
				fmt.Sscanf(b.Split[i:], "experts of %d", &experts)
			}
			if experts != c.experts {
				t.Fatalf("split %q: want the experts of %d layers in host memory", b.Split, c.experts)
			}
			if b.MaxRate == nil {
				t.Fatalf("offloaded configuration %s: no max_rate (not searched)", b.Split)
			}
			a, err := env.Serve(app.ServeRequest{
				Setup:      app.Selection{Model: c.model, Hardware: c.hardware, Weights: "q4_k_m", Options: sim.DefaultOptions},
				Spread:     app.Spread{GPULayers: c.layers, GPULayersSet: true, NCPUMoE: c.experts},
				Workload:   serve.Workload{Arrival: serve.Poisson, Rate: 1, Requests: app.PlanRateRequests, Prompt: serve.Dist{Kind: serve.Fixed, A: prompt}, Output: serve.Dist{Kind: serve.Fixed, A: output}, Seed: 1},
				Targets:    serve.Targets{TTFT: 20, TPOT: 0.5},
				SearchRuns: app.PlanRateRuns,
			})
			if err != nil {
				t.Fatal(err)
			}
			if a.Server.Split == nil {
				t.Fatal("serve --gpu-layers: not offloaded")
			}
			got, want := *b.MaxRate, a.Search.MaxRate
			if !(want > 0) || math.Abs(got-want) > 1e-12*want {
				t.Errorf("plan's max rate %v, serve --gpu-layers %d --n-cpu-moe %d's %v", got, c.layers, c.experts, want)
			}
			// The bound of the comment above, from serve's lone request.
			e2e := a.Single.TTFT + float64(output-1)*a.Single.TPOT
			if bound := float64(a.Scheduler.MaxSeqs) / e2e; !(got < bound) {
				t.Errorf("max rate %v ≥ %d slots / E2E alone %.3g s = %v", got, a.Scheduler.MaxSeqs, e2e, bound)
			}
		})
	}
}

// TestPlanRateKeepsHeadroom: plan --rate searches the rate on a server
// that keeps --headroom of its memory free, as the plan's memory check
// does: vLLM on an RTX 4090 with Llama-3.1-8B fp8 at 20 % headroom has
// 20 % of its 0.9 × usable memory less for the KV cache, so it sustains
// less than at none (1.14 against 1.36 requests/s: the pool, not the
// latencies, bounds it), and the same as serve's server keeping 20 %
// free (it searched the rate at none, whatever --headroom said).
func TestPlanRateKeepsHeadroom(t *testing.T) {
	args := []string{"plan", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--weights", "fp8", "--runtime", "vllm", "--context", "4k",
		"--prompt", "2000", "--output-tokens", "500", "--ttft", "2s", "--tpot", "50ms", "--rate", "1", "--format", "json"}
	rate := func(headroom string) float64 {
		out, errOut, code := runCLI(append(args, "--headroom", headroom)...)
		var j struct {
			Best []struct {
				MaxRate *float64 `json:"max_rate"`
			} `json:"best"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 || len(j.Best) != 1 || j.Best[0].MaxRate == nil {
			t.Fatalf("--headroom %s: exit %d, %v: %s%s", headroom, code, err, out, errOut)
		}
		return *j.Best[0].MaxRate
	}
	none, kept := rate("0%"), rate("20%")
	if !(kept < none) {
		t.Errorf("max rate %v at 20%% headroom, %v at none: want less", kept, none)
	}
	env, err := app.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	a, err := env.Serve(app.ServeRequest{
		Setup:      app.Selection{Model: "llama-3.1-8b", Hardware: "rtx-4090", Runtime: "vllm", Weights: "fp8", Options: sim.DefaultOptions},
		Workload:   serve.Workload{Arrival: serve.Poisson, Rate: 1, Requests: app.PlanRateRequests, Prompt: serve.Dist{Kind: serve.Fixed, A: 2000}, Output: serve.Dist{Kind: serve.Fixed, A: 500}, Seed: 1},
		Targets:    serve.Targets{TTFT: 2, TPOT: 0.05},
		Headroom:   0.2,
		SearchRuns: app.PlanRateRuns,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := a.Search.MaxRate; math.Abs(kept-want) > 1e-12*want {
		t.Errorf("plan's max rate at 20%% headroom %v, serve's keeping 20%% free %v", kept, want)
	}
}
