package sim_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/sim"
)

// TestServingStepsOneStage: a tensor-parallel group serves as one device
// holding its shard — a quarter of Llama-3.1-70B's bf16 weights on each of
// 4 H100s, a quarter of each token's cache (327,680 B / 4 = 81,920 B) —
// with every pass adding its all-reduces: 2 × 80 layers of (2 × 3 ring
// steps × 3 µs) = 2.88 ms a decode token on NVLink 4 at its latency alone.
// A split whose passes run stages in turn (pipeline stages, layers on the
// host, RPC boards) is refused, saying why.
func TestServingStepsOneStage(t *testing.T) {
	s := splitSetup(t, "llama-3.1-70b", "bf16", "h100-sxm", "", "vllm")
	tp, err := sim.NewParallel(s, link(t, "nvlink4"), sim.ParallelOptions{TP: 4, PP: 1})
	if err != nil {
		t.Fatal(err)
	}
	shard, l, err := tp.Serving()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := shard.Model.WeightBytes, s.Model.WeightBytes/4; !near(got, want, 1e-12) {
		t.Errorf("a device's weights %v B, want a quarter of %v", got, s.Model.WeightBytes)
	}
	if got := shard.Model.KVBytesPerToken(); got != 81920 {
		t.Errorf("a device's KV per token %v B, want 81,920", got)
	}
	if l.DecodePass < 2.88e-3 || l.DecodePass > 2.88e-3*(1+1e-9) || !(l.DecodeToken > 0) {
		t.Errorf("a decode pass's links %v s + %v s a token, want 2.88 ms + the bytes' share", l.DecodePass, l.DecodeToken)
	}
	pp, err := sim.NewParallel(s, link(t, "nvlink4"), sim.ParallelOptions{TP: 2, PP: 2})
	if err != nil {
		t.Fatal(err)
	}
	var fe *sim.FieldError
	if _, _, err := pp.Serving(); !errors.As(err, &fe) || !strings.Contains(err.Error(), "2 pipeline stages") {
		t.Errorf("a pipeline served: %v", err)
	}
	gpu := splitSetup(t, "llama-3.1-70b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	host := splitSetup(t, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	off, err := sim.NewOffload(gpu, host, link(t, "pcie4-x16"), sim.OffloadOptions{GPULayers: sim.AutoLayers}, sim.DefaultWorkload)
	if err != nil || off == nil {
		t.Fatalf("no offload: %v", err)
	}
	if _, _, err := off.Serving(); err == nil || !strings.Contains(err.Error(), "host") {
		t.Errorf("an offload served: %v", err)
	}
}

// TestOffloadStepPricer: an offload is served stage by stage. At -ngl 30
// the GPU holds the output layer and layers 51–79 (29 layers), the host
// layers 0–50 (51); a token's f16 cache is 8 KV heads × 128 × 2 × 2 B =
// 4,096 B a layer: 29 × 4,096 = 118,784 B in the GPU's memory, 51 × 4,096
// = 208,896 B in the host's. The pool is what the memory that fills
// first leaves over its own bytes a token. A pipeline's stages overlap
// micro-batches: refused, saying so.
func TestOffloadStepPricer(t *testing.T) {
	gpu := splitSetup(t, "llama-3.1-70b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	host := splitSetup(t, "llama-3.1-70b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	off, err := sim.NewOffload(gpu, host, link(t, "pcie4-x16"), sim.OffloadOptions{GPULayers: 30}, sim.DefaultWorkload)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := off.StepPricer()
	if err != nil || !pr.Staged() {
		t.Fatalf("no staged pricer: %v", err)
	}
	per := map[int]float64{}
	for _, st := range off.Decode {
		if st.KVPool >= 0 {
			per[st.KVPool] += st.Cost.KVBytesPerToken()
		}
	}
	if per[0] != 118784 || per[1] != 208896 {
		t.Fatalf("KV a token: GPU %v B, host %v B; want 118,784 and 208,896", per[0], per[1])
	}
	// Memory caps a pass at its context's tokens (passUBatch): the
	// pool beside passes of 512 tokens is taken at a context of 512.
	want := math.Inf(1)
	for i, p := range off.Memory(512, 1, 512) {
		want = math.Min(want, math.Floor((p.Usable-p.Weights-p.Activations-p.Overhead)/per[i]))
	}
	if got, _, _ := off.KVTokens(512); got != want || !(got > 1000) {
		t.Errorf("KV pool %v tokens, want %v", got, want)
	}
	// A pass of 512 tokens needs a larger compute buffer than one of a
	// single token: less is left for the cache.
	if big, one := pool(off.KVTokens(512)), pool(off.KVTokens(1)); !(big < one) {
		t.Errorf("KV pool beside passes of 512 tokens %v, of 1 token %v: want fewer", big, one)
	}
	// Not through Memory, as the pool above is: with every layer on the
	// GPU (-ngl 33 of Llama-3.1-8B's 32 and its output layer; the host
	// keeps only the token embeddings) the GPU's pool is the one the
	// device alone leaves beside passes of 512 tokens (Setup.KVBudget):
	// 20,583,555,072 B over 131,072 B a token (32 layers × 8 KV heads ×
	// 128 × 2 × 2 B) = 157,040 tokens.
	g8 := splitSetup(t, "llama-3.1-8b", "q4_k_m", "rtx-4090", "", "llama.cpp")
	h8 := splitSetup(t, "llama-3.1-8b", "q4_k_m", "desktop-ddr5", "cpu", "llama.cpp")
	whole, err := sim.NewOffload(g8, h8, link(t, "pcie4-x16"), sim.OffloadOptions{GPULayers: 33}, sim.DefaultWorkload)
	if err != nil {
		t.Fatal(err)
	}
	if got, budget, name := whole.KVTokens(512); got != math.Floor(g8.KVBudget(512)/131072) || budget != g8.KVBudget(512) || name != "rtx-4090 memory" {
		t.Errorf("every layer on the GPU: a pool of %v tokens (%v B left in %s), want the device's own, %v B: %v tokens", got, budget, name, g8.KVBudget(512), math.Floor(g8.KVBudget(512)/131072))
	}
	// llama.cpp takes a larger -ngl as every layer (src/llama-model.cpp,
	// load_tensors: act_gpu_layers = min(n_gpu_layers, n_layer + 1)):
	// -ngl 99, as users type it, is -ngl 33 here, and says so.
	all, err := sim.NewOffload(g8, h8, link(t, "pcie4-x16"), sim.OffloadOptions{GPULayers: 99}, sim.DefaultWorkload)
	if err != nil {
		t.Fatal(err)
	}
	if all.GPULayers != 33 || all.Layers != whole.Layers || len(all.Notes) != len(whole.Notes)+1 || !strings.Contains(all.Notes[len(all.Notes)-1], "-ngl 99 is every layer") {
		t.Errorf("-ngl 99: %d of %d layers on the GPU, notes %q; want 33 of %d and a note", all.GPULayers, all.Layers, all.Notes, whole.Layers)
	}
	if _, err := sim.NewOffload(g8, h8, link(t, "pcie4-x16"), sim.OffloadOptions{GPULayers: -2}, sim.DefaultWorkload); err == nil || !strings.Contains(err.Error(), "must be 0 or more (33 for all 32 layers") {
		t.Errorf("-ngl -2: %v", err)
	}
	// A decode step through the stages costs more than the GPU's alone.
	if a, b := pr.Pass(1, 1, false, pr.Decode(1000)), gpu.StepPricer().Pass(1, 1, false, gpu.StepPricer().Decode(1000)); !(a > b) {
		t.Errorf("an offloaded decode step %v s, the whole model on the GPU %v s", a, b)
	}
	s := splitSetup(t, "llama-3.1-70b", "bf16", "h100-sxm", "", "vllm")
	pp, err := sim.NewParallel(s, link(t, "nvlink4"), sim.ParallelOptions{TP: 2, PP: 2})
	if err != nil {
		t.Fatal(err)
	}
	// A pipeline is priced stage by stage: vLLM's micro-batches in
	// flight, each stage's own time (its layers, its hop, its share of
	// the all-reduces) adding up to a pass alone through them.
	ppr, err := pp.StepPricer()
	if err != nil {
		t.Fatal(err)
	}
	if ppr.Overlap() != sim.VirtualEngines || ppr.Stages() != 2 || ppr.MicroBatches(5) != 2 || ppr.MicroBatches(1) != 1 {
		t.Errorf("pipeline pricer: overlap %v, %d stages, %d and %d micro-batches; want virtual engines, 2, 2 and 1", ppr.Overlap(), ppr.Stages(), ppr.MicroBatches(5), ppr.MicroBatches(1))
	}
	for _, c := range []struct {
		tokens  int
		prefill bool
		a       sim.Attention
	}{{8, false, ppr.Decode(1000).Scale(8)}, {512, true, ppr.Chunk(0, 512)}} {
		own := make([]float64, 2)
		ppr.PipelineStage(own, c.tokens, 1, c.prefill, c.a)
		if whole := ppr.Pass(c.tokens, 1, c.prefill, c.a); math.Abs(own[0]+own[1]-whole) > 1e-12*whole || own[0] <= 0 || own[1] <= 0 {
			t.Errorf("%d tokens: stages' own times %v, a pass %v", c.tokens, own, whole)
		}
	}
}

// pool is KVTokens' tokens, its budget and pool dropped.
func pool(tokens, _ float64, _ string) float64 { return tokens }
