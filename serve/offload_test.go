package serve

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/sim"
)

// offloaded is Llama-3.1-70B Q4_K_M (about 42.5 GB) under llama.cpp on an
// RTX 4090 (24 GB) with the rest of its layers in a DDR5 desktop's RAM
// over PCIe 4.0 x16, placed at -ngl gpuLayers (sim.AutoLayers: --fit).
func offloaded(t *testing.T, gpuLayers int) (*sim.Setup, *sim.Split) {
	t.Helper()
	gpu := setup(t, "llama-3.1-70b", "q4_k_m", "rtx-4090", "gpu", "llama.cpp")
	host := setup(t, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	link, err := hardware.LookupLink("pcie4-x16")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sim.NewOffload(gpu, host, &link, sim.OffloadOptions{GPULayers: gpuLayers}, sim.Workload{Prompt: 1000, Output: 100, Batch: 4, UBatch: 512})
	if err != nil || sp == nil {
		t.Fatalf("no offload: %v", err)
	}
	return gpu, sp
}

// TestOffloadAloneIsSplitPredict: a request served with nothing else
// running passes through the host's layers and the GPU's in turn, each
// pass as Split.Predict prices it: TTFT, TPOT and E2E are the split's at
// batch 1. Prompts are whole passes of 512 tokens or end in a pass of 32
// or more (1000 = 512 + 488; 2080 = 4 × 512 + 32), where llama.cpp runs
// the host layers' products on the GPU, their weights over PCIe, as
// Split.Predict prices every pass of a prompt whose passes hold 32 tokens
// or more; a 20-token prompt (one pass of 20 rows) keeps them on the CPU.
// Decode steps run the host's layers on the CPU: the links add 0 hops
// for a dense model. The GPU holds 30 of the 81 layers llama.cpp counts
// (-ngl 30: the output layer and layers 51-79).
func TestOffloadAloneIsSplitPredict(t *testing.T) {
	for _, ngl := range []int{30, sim.AutoLayers} {
		gpu, sp := offloaded(t, ngl)
		sv, err := New(gpu, gpu.Runtime.SchedulerFor(gpu.Device), Options{Split: sp})
		if err != nil {
			t.Fatal(err)
		}
		if sv.PassTokens != 512 {
			t.Fatalf("passes of %d tokens, want llama.cpp's 512", sv.PassTokens)
		}
		for _, c := range []struct{ prompt, output int }{{1000, 100}, {2080, 40}, {512, 2}, {20, 30}} {
			res, err := sv.Run(Workload{Arrival: Closed, Users: 1, Requests: 1, Prompt: Dist{A: float64(c.prompt)}, Output: Dist{A: float64(c.output)}}, Targets{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := sp.Predict(sim.Workload{Prompt: c.prompt, Output: c.output, Batch: 1, UBatch: 512})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Records[0]
			if !near(r.TTFT(), p.TTFT, 1e-9) || !near(r.TPOT(), p.TPOT, 1e-9) || !near(r.E2E(), p.E2E, 1e-9) {
				t.Errorf("-ngl %d, %d+%d tokens: TTFT %v TPOT %v E2E %v; Split.Predict %v %v %v", ngl, c.prompt, c.output, r.TTFT(), r.TPOT(), r.E2E(), p.TTFT, p.TPOT, p.E2E)
			}
		}
	}
}

// TestAskedPoolFitsMemory: a KV pool asked for (llama.cpp -c, --kv-tokens)
// is allocated beside the weights. It does not make weights fit that do
// not (Llama-3.1-8B in bf16, 16 GB, on an 8 GB Jetson Orin Nano; -ngl 81
// of a 70B Q4_K_M on a 24 GB RTX 4090: both were served), nor holds more
// than the memory they leave: 8B Q4_K_M on the 4090 leaves about 19.6 GB,
// 131,072 B a token (32 layers × 8 KV heads × 128 × 2 × 2 B): about
// 150,000 tokens, so 10 M is refused; -ngl 30 is bounded by the GPU's
// 29 layers (118,784 B a token) in what it leaves. 1,000 tokens are taken.
func TestAskedPoolFitsMemory(t *testing.T) {
	small := setup(t, "llama-3.1-8b", "bf16", "jetson-orin-nano-8gb", "gpu", "llama.cpp")
	var nf *NotFitError
	if _, err := New(small, small.Runtime.SchedulerFor(small.Device), Options{KVTokens: 1000}); !errors.As(err, &nf) || nf.Budget >= 0 {
		t.Errorf("16 GB of weights on 8 GB with a pool asked for: %v", err)
	}
	gpu := setup(t, "llama-3.1-8b", "q4_k_m", "rtx-4090", "gpu", "llama.cpp")
	var we *WorkloadError
	if _, err := New(gpu, gpu.Runtime.SchedulerFor(gpu.Device), Options{KVTokens: 10_000_000}); !errors.As(err, &we) || we.Field != "KVTokens" || !strings.Contains(err.Error(), "room for 15") {
		t.Errorf("10 M tokens on a 4090: %v", err)
	}
	if sv, err := New(gpu, gpu.Runtime.SchedulerFor(gpu.Device), Options{KVTokens: 1000}); err != nil || sv.KVTokens() != 1000 {
		t.Errorf("1,000 tokens on a 4090: %v", err)
	}
	for _, c := range []struct {
		ngl, kv int
		want    string
	}{{81, 1000, "in rtx-4090 memory: the weights, activations and runtime overhead need"}, {30, 10_000_000, "rtx-4090 memory leaves"}, {30, 1000, ""}} {
		g, sp := offloaded(t, c.ngl)
		_, err := New(g, g.Runtime.SchedulerFor(g.Device), Options{Split: sp, KVTokens: c.kv})
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("-ngl %d, %d tokens asked: %v; want %q", c.ngl, c.kv, err, c.want)
		}
	}
}

// TestOffloadStepSpread: an offloaded step's interval weighs each
// stage's class by its share of the step, as predict's does: the decode
// factors lie between the GPU's and the host CPU's, and away from the
// GPU's alone (at -ngl 30, 51 of 81 layers decode on the host, most of a
// step's time). A server that took its GPU's class would narrow the
// interval of a step mostly spent on the CPU.
func TestOffloadStepSpread(t *testing.T) {
	gpu, sp := offloaded(t, 30)
	sv, err := New(gpu, gpu.Runtime.SchedulerFor(gpu.Device), Options{Split: sp})
	if err != nil {
		t.Fatal(err)
	}
	host := setup(t, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	w := Workload{Arrival: Closed, Users: 1, Requests: 1, Prompt: Dist{A: 1000}, Output: Dist{A: 100}}
	_, _, dlo, dhi := sv.stepSpread(w, 0.8)
	_, _, glo, ghi := gpu.StepSpread(0.8)
	_, _, hlo, hhi := host.StepSpread(0.8)
	between := func(x, a, b float64) bool { return x > min(a, b) && x < max(a, b) }
	if !between(dlo, glo, hlo) || !between(dhi, ghi, hhi) {
		t.Errorf("decode factors %.3f–%.3f, want between the GPU's %.3f–%.3f and the host's %.3f–%.3f", dlo, dhi, glo, ghi, hlo, hhi)
	}
	if math.Abs(dhi/ghi-1) < 0.01 && math.Abs(dlo/glo-1) < 0.01 {
		t.Errorf("decode factors %.3f–%.3f are the GPU's alone (%.3f–%.3f)", dlo, dhi, glo, ghi)
	}
	t.Logf("decode: offload %.3f–%.3f, GPU %.3f–%.3f, host %.3f–%.3f", dlo, dhi, glo, ghi, hlo, hhi)
}

// TestOffloadHeadroom: an offload keeping 10 % of every memory free has
// a KV pool of what the memory that fills first leaves of the rest: the
// same memory bounds it (Llama-3.1-70B with 30 layers on an RTX 4090),
// its budget 10 % of that memory's usable bytes less.
func TestOffloadHeadroom(t *testing.T) {
	gpu, sp := offloaded(t, 30)
	sch := gpu.Runtime.SchedulerFor(gpu.Device)
	all, err := New(gpu, sch, Options{Split: sp})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := New(gpu, sch, Options{Split: sp, Headroom: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	_, budget0, pool0 := sp.KVTokens(all.PassTokens)
	_, budget1, pool1 := sp.WithHeadroom(0.1).KVTokens(all.PassTokens)
	usable := 0.0
	for _, p := range sp.Memory(1, 1, 1) {
		if p.Name == pool0 {
			usable = p.Usable
		}
	}
	if pool0 != pool1 || !(usable > 0) || math.Abs(budget0-budget1-0.1*usable) > 1 {
		t.Errorf("budget %v in %s, %v in %s with 10%% kept free; want %v less in the same", budget0, pool0, budget1, pool1, 0.1*usable)
	}
	if !(kept.KVTokens() < all.KVTokens()) {
		t.Errorf("KV pool %d tokens with 10%% kept free, %d without", kept.KVTokens(), all.KVTokens())
	}
}
