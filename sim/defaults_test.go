package sim_test

import (
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// builtinSetup resolves a built-in model on a built-in device under a
// built-in runtime, as predict does (runtimes.Choose, the runtime's
// layout); weights and kv "" take the runtime's defaults.
func builtinSetup(t testing.TB, cat *profiles.Catalog, modelName, device, runtime, weights, kv string) *sim.Setup {
	t.Helper()
	return chosenSetup(t, cat, modelName, device, runtimes.Request{Runtime: runtime, Weights: weights, KV: kv})
}

// chosenSetup resolves a built-in model on a built-in device as the
// request chooses (runtimes.Choose), predict's way.
func chosenSetup(t testing.TB, cat *profiles.Catalog, modelName, device string, req runtimes.Request) *sim.Setup {
	t.Helper()
	return chosenSetupWith(t, cat, modelName, device, req, sim.DefaultOptions)
}

// chosenSetupWith is chosenSetup under options o.
func chosenSetupWith(t testing.TB, cat *profiles.Catalog, modelName, device string, req runtimes.Request, o sim.Options) *sim.Setup {
	t.Helper()
	spec, err := cat.Model(modelName)
	if err != nil {
		t.Fatal(err)
	}
	d, err := cat.Device(device)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cat.Runtimes().Choose(spec, d, req)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.BuildNamed(spec, c.Weights.Name, c.KV, c.Runtime.LayoutFor(spec, c.Weights.Name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.NewSetup(m, d, c.Engine, c.Runtime, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func builtin(t testing.TB) *profiles.Catalog {
	t.Helper()
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// A workload without UBatch is priced in the runtime's own passes, and
// the result says which and why; --ubatch still overrides.
func TestRuntimePrefillDefaults(t *testing.T) {
	cat := builtin(t)
	cases := []struct {
		name, model, device, runtime, weights, kv string
		w                                         sim.Workload
		ubatch, passes, rows                      int
		from                                      string
	}{
		// TensorRT-LLM's max_num_tokens 8192 holds ⌊8192/2048⌋ = 4 whole
		// prompts: 80 prompts in 20 passes of 8192 rows (not llama.cpp's
		// 512-token micro-batches: 342 passes re-reading the weights).
		{"tensorrt-llm", "llama-2-7b", "h100-sxm", "tensorrt-llm", "fp8", "fp8", sim.Workload{Prompt: 2048, Output: 128, Batch: 80}, 8192, 20, 8192, "max_num_tokens"},
		// --ubatch 1024 is shorter than a prompt: each prompt alone in
		// ⌈2048/1024⌉ = 2 passes, 160 in all.
		{"tensorrt-llm given", "llama-2-7b", "h100-sxm", "tensorrt-llm", "fp8", "fp8", sim.Workload{Prompt: 2048, Output: 128, Batch: 80, UBatch: 1024}, 1024, 160, 1024, "given"},
		// vLLM serve: 8192 on an H100 (80 GiB, not an A100), 2048 on an
		// A100 and on a 24 GiB RTX 4090; 3000-token prompts outgrow 2048,
		// each alone in ⌈3000/2048⌉ = 2 passes: 16 for 8 prompts; 8192
		// holds 2 of them: ⌈8/2⌉ = 4 passes of 6000 rows.
		{"vllm h100", "llama-3.1-8b", "h100-sxm", "vllm", "", "", sim.Workload{Prompt: 3000, Output: 2, Batch: 8}, 8192, 4, 6000, "70.0 GiB or more not named a100"},
		{"vllm a100", "llama-3.1-8b", "a100-80gb-sxm", "vllm", "", "", sim.Workload{Prompt: 3000, Output: 2, Batch: 8}, 2048, 16, 2048, "max_num_batched_tokens"},
		{"vllm 4090", "llama-3.1-8b", "rtx-4090", "vllm", "w4a16", "", sim.Workload{Prompt: 3000, Output: 2, Batch: 8}, 2048, 16, 2048, "max_num_batched_tokens"},
		// llama.cpp's n_ubatch 512 in lockstep: ⌊512/2⌋ = 256 tokens of
		// each sequence per pass, ⌈1000/256⌉ = 4 passes of 512 rows.
		{"llama.cpp", "llama-3.1-8b", "rtx-4090", "llama.cpp", "", "", sim.Workload{Prompt: 1000, Output: 2, Batch: 2}, 512, 4, 512, "n_ubatch"},
		// gpt-fast runs the whole prompt in one pass.
		{"gpt-fast", "llama-3.1-8b", "h100-sxm", "gpt-fast", "", "", sim.Workload{Prompt: 3000, Output: 2, Batch: 1}, 3000, 1, 3000, "each prompt in one pass"},
		// MLX's prefill_step_size 2048: ⌈5000/2048⌉ = 3 passes.
		{"mlx", "llama-3.1-8b", "apple-m2-ultra", "mlx", "", "", sim.Workload{Prompt: 5000, Output: 2, Batch: 1}, 2048, 3, 2048, "prefill_step_size"},
		// RKLLM states no chunk: llama.cpp's 512, said so.
		{"rkllm", "qwen2.5-1.5b", "rk3588", "rkllm", "", "", sim.Workload{Prompt: 1000, Output: 2, Batch: 1}, 512, 2, 512, "states no prefill chunk"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := builtinSetup(t, cat, c.model, c.device, c.runtime, c.weights, c.kv)
			r, err := s.Predict(c.w)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Inputs.Workload.UBatch; got != c.ubatch {
				t.Errorf("ubatch %d, want %d", got, c.ubatch)
			}
			if r.Prefill.Steps != c.passes || r.PrefillRows != c.rows {
				t.Errorf("%d passes of %d rows, want %d of %d", r.Prefill.Steps, r.PrefillRows, c.passes, c.rows)
			}
			if !strings.Contains(r.Inputs.UBatchFrom, c.from) {
				t.Errorf("ubatch from %q, want it to say %q", r.Inputs.UBatchFrom, c.from)
			}
		})
	}
}

// Whole prompts in order, group after group, priced in closed form, are
// the passes priced one by one.
func TestInOrderMatchesLoop(t *testing.T) {
	cases := []struct {
		model, weights, device string
		w                      sim.Workload
	}{
		// 4 prompts a pass, 20 groups.
		{"llama-2-7b", "fp8", "h100-sxm", sim.Workload{Prompt: 2048, Output: 128, Batch: 80, UBatch: 8192}},
		// 3 prompts a pass: 7 groups of 3 and one of 2.
		{"llama-3.1-8b", "bf16", "h100-sxm", sim.Workload{Prompt: 2700, Output: 50, Batch: 23, Depth: 100, UBatch: 8192}},
		// Prompts longer than the pass: each alone in 3 passes.
		{"gemma-2-2b", "bf16", "rtx-4090", sim.Workload{Prompt: 5000, Output: 20, Batch: 5, Depth: 1000, UBatch: 2048}},
		// More prompts than the pass holds tokens of: one token each would
		// not do; whole prompts of 1 token, 1000 a pass.
		{"qwen2.5-0.5b", "bf16", "h100-sxm", sim.Workload{Prompt: 1, Output: 2, Batch: 2500, UBatch: 1000}},
	}
	for _, c := range cases {
		m, d := setup(t, c.model, c.weights, "f16", c.device)
		rt := testRuntime()
		rt.Prefill = runtimes.Prefill{Chunk: 4096, Order: runtimes.InOrder}
		e, err := d.Engine("")
		if err != nil {
			t.Fatal(err)
		}
		s, err := sim.NewSetup(m, d, e, rt, sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		for _, eff := range []hardware.Efficiency{legacy, fitted} {
			r, err := s.WithEfficiency(eff).Predict(c.w)
			if err != nil {
				t.Fatal(err)
			}
			ttft, e2e := loopPredictOrder(m, d, c.w, eff, r.Inputs.Peak, false, true)
			if !near(r.TTFT, ttft, 1e-9) || !near(r.E2E, e2e, 1e-9) {
				t.Errorf("%s %+v: closed form TTFT %.9g E2E %.9g, loop %.9g %.9g", c.model, c.w, r.TTFT, r.E2E, ttft, e2e)
			}
		}
	}
}

// The ideal is a bound for every runtime on every device the catalog
// has: no setting of the runtime (any tokens per pass, either order of a
// batch's prompts) priced at 100 % of every rate with no fixed cost
// beats it, prefill or decode.
func TestIdealBoundsEverySetting(t *testing.T) {
	cat := builtin(t)
	perfect := hardware.Efficiency{Bandwidth: 1, ComputeMax: 1, Attention: 1, Dequant: 1}
	workloads := []sim.Workload{
		{Prompt: 2048, Output: 64, Batch: 16},
		{Prompt: 300, Output: 8, Batch: 1, Depth: 700},
	}
	models := []string{"llama-3.1-8b", "llama-2-7b", "qwen3-30b-a3b", "gemma-3-4b", "gpt-oss-20b", "qwen2.5-1.5b"}
	checked := 0
	for _, rt := range cat.Runtimes().All() {
		for _, d := range cat.Devices() {
			for _, name := range models {
				spec, err := cat.Model(name)
				if err != nil {
					t.Fatal(err)
				}
				c, err := cat.Runtimes().Choose(spec, d, runtimes.Request{Runtime: rt.Name})
				if err != nil {
					continue // the runtime does not run this model there
				}
				m, err := model.BuildNamed(spec, c.Weights.Name, c.KV, c.Runtime.LayoutFor(spec, c.Weights.Name))
				if err != nil {
					continue
				}
				s, err := sim.NewSetup(m, d, c.Engine, c.Runtime, sim.DefaultOptions)
				if err != nil {
					continue
				}
				best := s.WithEfficiency(perfect)
				for _, w := range workloads {
					r, err := s.Predict(w)
					if err != nil {
						t.Fatal(err)
					}
					for _, u := range []int{1, 64, 512, 2048, 8192, w.Prompt * w.Batch} {
						for _, order := range []runtimes.PrefillOrder{runtimes.Lockstep, runtimes.InOrder} {
							b := best
							if order != s.Inputs.PrefillOrder {
								b = reordered(t, m, d, c, perfect, order)
							}
							wu := w
							wu.UBatch = u
							q, err := b.Predict(wu)
							if err != nil {
								t.Fatal(err)
							}
							if r.TTFTBound > q.TTFT*(1+1e-12) {
								t.Errorf("%s on %s under %s, %+v: ideal TTFT %.6g s beats %s passes of %d tokens at 100 %%: %.6g s",
									name, d.Name, rt.Name, w, r.TTFTBound, order, u, q.TTFT)
							}
							if w.Output > 1 && r.TPOTBound > q.TPOT*(1+1e-12) {
								t.Errorf("%s on %s under %s: ideal TPOT %.6g s beats %.6g s at 100 %%", name, d.Name, rt.Name, r.TPOTBound, q.TPOT)
							}
						}
					}
					checked++
				}
			}
		}
	}
	if checked < 200 {
		t.Errorf("only %d configurations checked", checked)
	}
}

// reordered is the setup of choice c with its runtime's prompts taken in
// another order, at efficiency e.
func reordered(t testing.TB, m *model.Cost, d *hardware.Device, c *runtimes.Choice, e hardware.Efficiency, order runtimes.PrefillOrder) *sim.Setup {
	t.Helper()
	rt := *c.Runtime
	rt.Prefill.Order = order
	s, err := sim.NewSetup(m, d, c.Engine, &rt, sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	return s.WithEfficiency(e)
}

// Each runtime sizes memory by its own rule. TensorRT-LLM's cache takes
// 90 % of what the weights and activations leave free, so the three
// configurations NVIDIA published that one usable-memory rule called
// DOES NOT FIT fit; vLLM keeps 10 % of the device; llama.cpp allocates
// what the context needs, as before.
func TestRuntimeMemoryRules(t *testing.T) {
	cat := builtin(t)
	const gib = 1 << 30
	t.Run("tensorrt-llm", func(t *testing.T) {
		for _, c := range []struct {
			model, device, weights, kv string
			prompt, output, batch      int
		}{
			// Llama-2-70B FP8 on one H200 (Falcon180B-H200.md): 64.7 GiB
			// of weights, 192 × 2176 × 163,840 B = 63.75 GiB of FP8 cache;
			// 141 − 64.7 − 1.13 (activations) = 75.2 GiB free, 90 % of it
			// 67.6 GiB ≥ 63.75.
			{"llama-2-70b", "h200", "fp8", "fp8", 128, 2048, 192},
			// Llama-2-7B FP8 on an L40S (45.0 GiB usable): 64 × 2176 ×
			// 262,144 B = 34.0 GiB of cache; (45.0 − 6.52 − 0.47) × 0.9 =
			// 34.2 GiB.
			{"llama-2-7b", "l40s", "fp8", "fp8", 128, 2048, 64},
			// Llama-2-70B 96 × (128 + 4096): 61.9 GiB of cache.
			{"llama-2-70b", "h200", "fp8", "fp8", 128, 4096, 96},
		} {
			s := builtinSetup(t, cat, c.model, c.device, "tensorrt-llm", c.weights, c.kv)
			r, err := s.Predict(sim.Workload{Prompt: c.prompt, Output: c.output, Batch: c.batch})
			if err != nil {
				t.Fatal(err)
			}
			mem := r.Memory
			free := mem.Usable - mem.Weights - mem.Activations - mem.Overhead
			if !mem.Fits || mem.KV > 0.9*free*(1+1e-12) {
				t.Errorf("%s on %s at %d × %d: KV %.2f GiB of 90 %% of %.2f GiB free: fits %v", c.model, c.device, c.batch, c.prompt+c.output, mem.KV/gib, free/gib, mem.Fits)
			}
			// What stays free is 10 % of it: KV / 0.9 − KV.
			if want := mem.KV/0.9 - mem.KV; !near(mem.Reserve, want, 1e-9) {
				t.Errorf("reserve %.4g B, want %.4g B", mem.Reserve, want)
			}
		}
	})
	t.Run("llama.cpp unchanged", func(t *testing.T) {
		// Llama-3.1-8B Q4_K_M on an RTX 4090 (24 GiB, all usable), 4 ×
		// 8192 tokens: 4.58 GiB of weights less the 0.49 GiB embedding
		// table kept in host memory, 4 × 8192 × 131,072 B = 4 GiB of f16
		// cache, activations of a 512-token pass with f32 logits for all
		// of them: 4 B × 512 × (128,256 + 4096 + 14,336) = 286.5 MiB,
		// 256 MiB of overhead; nothing held back.
		s := builtinSetup(t, cat, "llama-3.1-8b", "rtx-4090", "llama.cpp", "q4_k_m", "f16")
		mem := s.Memory(8192, 4, 0)
		if want := 4.0 * 8192 * 131072; mem.KV != want {
			t.Errorf("KV %.0f B, want %.0f", mem.KV, want)
		}
		if want := 4.0 * 512 * (128256 + 4096 + 14336); mem.Activations != want {
			t.Errorf("activations %.0f B, want %.0f", mem.Activations, want)
		}
		if mem.Reserve != 0 || mem.Usable != s.Device.Usable || mem.Total != mem.Weights+mem.KV+mem.Activations+mem.Overhead {
			t.Errorf("llama.cpp holds nothing back: %+v", mem)
		}
	})
	t.Run("vllm", func(t *testing.T) {
		// gpu_memory_utilization 0.9 of the device's usable memory.
		s := builtinSetup(t, cat, "llama-3.1-8b", "h100-sxm", "vllm", "", "")
		if mem := s.Memory(4096, 8, 0); mem.Usable != 0.9*s.Device.Usable || mem.Reserve != 0 {
			t.Errorf("usable %.4g of %.4g, reserve %.4g", mem.Usable, s.Device.Usable, mem.Reserve)
		}
	})
}
