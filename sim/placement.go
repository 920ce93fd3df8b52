package sim

import (
	"fmt"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/units"
)

// FitMargin is what llama.cpp's automatic fitting keeps free on each
// device: -fitt, --fit-target's default, 1024 MiB (common/arg.cpp;
// common/fit.cpp compares each device's use with its free memory less
// this margin).
const FitMargin = 1024 << 20

// OpOffloadRows is the pass size from which llama.cpp runs a product
// whose weights are in host memory on the GPU, copying the weights over
// the bus: ggml-cuda's offload_op, min_batch_size 32 (rows of a
// MUL_MAT, tokens of a MUL_MAT_ID).
const OpOffloadRows = 32

// ActivationHopBytes is one value of the hidden state as llama.cpp copies
// it between backends (f32), and as vLLM's collectives move it (bf16).
const (
	ActivationHopBytes    = 4
	ActivationWireBytes16 = 2
)

// OffloadOptions place a model between a GPU and its host as llama.cpp
// does.
type OffloadOptions struct {
	// GPULayers is -ngl: the output layer and the last GPULayers-1
	// layers on the GPU, counting the output layer as llama.cpp does
	// (Layers+1: all of them; 1: the output layer alone); -1 is
	// llama.cpp's automatic fitting (--fit, the default).
	GPULayers int
	// CPUMoE keeps every layer's routed experts in host memory
	// (--cpu-moe); NCPUMoE those of the first NCPUMoE layers
	// (--n-cpu-moe).
	CPUMoE  bool
	NCPUMoE int
}

// AutoLayers asks for llama.cpp's automatic fitting.
const AutoLayers = -1

// offloadPlace is one placement: the GPU layers as llama.cpp counts them
// and the layers whose routed experts stay in host memory.
type offloadPlace struct {
	ngl                  int
	expFirst, expEnd     int
	auto                 bool
	autoExperts, autoNGL bool
}

// expertsField is the option that asked for experts in host memory:
// CPUMoE, else NCPUMoE.
func (o OffloadOptions) expertsField() string {
	if o.CPUMoE {
		return "CPUMoE"
	}
	return "NCPUMoE"
}

// NewOffload places model gpu.Model between the GPU of setup gpu and the
// host of setup host (the host's CPU engine: another device, or the same
// device when its memory is unified) as llama.cpp does: the output layer
// and -ngl's last layers but one on the GPU, the rest and the embedding
// table in host memory and run on the host's CPU; routed experts kept in
// host memory by --cpu-moe/--n-cpu-moe run there too. A prefill pass of
// OpOffloadRows tokens or more runs the host layers on the GPU, their
// weights and KV cache crossing link (llama.cpp keeps a layer's KV cache
// on the layer's device, and ggml's scheduler runs the operations around
// an offloaded product on the GPU too; Stage.overLink). Without an explicit placement it fits as llama.cpp's --fit
// does (common/fit.cpp), keeping FitMargin free on the GPU for workload
// w: a dense model takes whole layers back to front, the output layer
// first; a MoE model takes every layer's dense tensors first, its routed
// experts in host memory, then whole layers front to back. It returns nil
// when the whole model fits on the GPU as it is (predict's plain answer).
func NewOffload(gpu, host *Setup, link *hardware.Link, o OffloadOptions, w Workload) (*Split, error) {
	m := gpu.Model
	L := m.Spec.Layers
	switch {
	case o.GPULayers < AutoLayers:
		return nil, &FieldError{"GPULayers", fmt.Sprintf("must be 0 or more (%d for all %d layers and the output layer, as llama.cpp counts them), got %d", L+1, L, o.GPULayers)}
	case o.NCPUMoE < 0 || o.NCPUMoE > L:
		return nil, &FieldError{"NCPUMoE", fmt.Sprintf("must be from 0 to the model's %d layers, got %d", L, o.NCPUMoE)}
	case (o.CPUMoE || o.NCPUMoE > 0) && m.Spec.MoE == nil:
		return nil, &FieldError{o.expertsField(), fmt.Sprintf("%s has no routed experts to keep in host memory", m.Spec.Name)}
	case (o.CPUMoE || o.NCPUMoE > 0) && !gpu.Runtime.Splits(runtimes.SplitOffloadExperts):
		return nil, &FieldError{o.expertsField(), gpu.Runtime.Name + " does not keep routed experts in host memory"}
	case !gpu.Runtime.Splits(runtimes.SplitOffload):
		return nil, &FieldError{"GPULayers", gpu.Runtime.Name + " does not offload layers to the host (its profile's parallel rule)"}
	case link != nil:
		if err := link.Validate(); err != nil {
			return nil, &FieldError{"Link", err.Error()}
		}
	}
	// llama.cpp takes a larger -ngl as every layer (load_tensors:
	// act_gpu_layers = min(n_gpu_layers, n_layer + 1)), so -ngl 99, as
	// users type it, is all of them.
	clamped := EveryLayerNote(L, o.GPULayers)
	if o.GPULayers > L+1 {
		o.GPULayers = L + 1
	}
	pl := offloadPlace{ngl: o.GPULayers}
	switch {
	case o.CPUMoE:
		pl.expFirst, pl.expEnd = 0, L
	case o.NCPUMoE > 0:
		pl.expFirst, pl.expEnd = 0, o.NCPUMoE
	}
	if o.GPULayers == AutoLayers {
		if o.CPUMoE || o.NCPUMoE > 0 {
			pl.ngl = L + 1
			sp, err := offloadSplit(gpu, host, link, pl, gpu.Model.Slice)
			if err != nil {
				return nil, err
			}
			return sp, nil
		}
		if gpu.Memory(w.Context(), w.Batch, w.UBatch).Fits {
			return nil, nil
		}
		sp, note, err := fitOffload(gpu, w, func(pl offloadPlace) (*Split, error) { return offloadSplit(gpu, host, link, pl, gpu.Model.Slice) })
		if err != nil {
			return nil, err
		}
		sp.Notes = append(sp.Notes, fitNote(note))
		return sp, nil
	}
	sp, err := offloadSplit(gpu, host, link, pl, gpu.Model.Slice)
	if err != nil {
		return nil, err
	}
	if clamped != "" {
		sp.Notes = append(sp.Notes, clamped)
	}
	return sp, nil
}

// EveryLayer reports whether -ngl n places every layer of a model of L
// layers and its output layer on the GPU (n >= L+1; llama.cpp takes a
// larger count as all of them).
func EveryLayer(L, n int) bool { return n >= L+1 }

// EveryLayerNote says how llama.cpp takes -ngl n beyond a model's L layers
// and its output layer ("" when n is not beyond them).
func EveryLayerNote(L, n int) string {
	if n <= L+1 {
		return ""
	}
	return fmt.Sprintf("-ngl %d is every layer: llama.cpp takes at most the %d layers and the output layer, %d", n, L, L+1)
}

// fitOffload is llama.cpp's --fit for one GPU (common/fit.cpp,
// common_params_fit_impl, steps 3 and 4), each placement tried built by
// build: the split it chooses and the rule it followed (fitNote says it
// in a sentence).
func fitOffload(gpu *Setup, w Workload, build func(offloadPlace) (*Split, error)) (*Split, string, error) {
	L := gpu.Model.Spec.Layers
	// Fit the pass Predict prices and shows (Split.resolve): with no
	// ubatch given, the pools would hold a one-token compute buffer and
	// the placement could leave less than FitMargin free at the real one.
	w, _ = gpu.resolveUBatch(w)
	var pools []PoolUse // each placement's memory, checked in one storage
	fits := func(pl offloadPlace) (*Split, bool, error) {
		sp, err := build(pl)
		if err != nil {
			return nil, false, err
		}
		pools = sp.memoryInto(pools, w.Context(), w.Batch, w.UBatch)
		u := pools[0]
		return sp, u.Total <= u.Usable-u.Margin, nil
	}
	// largestFit is the largest k in 0 … hi whose placement fits: memory
	// grows with k.
	largestFit := func(hi int, at func(int) offloadPlace) (*Split, error) {
		var best *Split
		lo := 0
		sp, ok, err := fits(at(0))
		if err != nil {
			return nil, err
		}
		best = sp
		if !ok {
			return best, nil
		}
		for hi > lo {
			mid := (lo + hi + 1) / 2
			sp, ok, err := fits(at(mid))
			if err != nil {
				return nil, err
			}
			if ok {
				lo, best = mid, sp
			} else {
				hi = mid - 1
			}
		}
		return best, nil
	}
	var sp *Split
	var err error
	note := ""
	if gpu.Model.Spec.MoE == nil {
		sp, err = largestFit(L+1, func(n int) offloadPlace { return offloadPlace{ngl: n, auto: true, autoNGL: true} })
		note = "whole layers back to front, the output layer first"
	} else {
		dense := offloadPlace{ngl: L + 1, expFirst: 0, expEnd: L, auto: true}
		if _, ok, e := fits(dense); e != nil {
			return nil, "", e
		} else if ok {
			// Step 4: every dense tensor fits; whole layers from the
			// front, the back layers' experts in host memory.
			sp, err = largestFit(L, func(k int) offloadPlace {
				return offloadPlace{ngl: L + 1, expFirst: k, expEnd: L, auto: true, autoExperts: true}
			})
			note = "every layer's dense tensors, then whole layers front to back, the other layers' routed experts in host memory"
		} else {
			// Step 3: dense-only layers back to front, every routed
			// expert in host memory.
			sp, err = largestFit(L+1, func(n int) offloadPlace {
				return offloadPlace{ngl: n, expFirst: 0, expEnd: L, auto: true, autoNGL: true}
			})
			note = "the dense tensors of whole layers back to front, every routed expert in host memory"
		}
	}
	if err != nil {
		return nil, "", err
	}
	return sp, note, nil
}

// fitNote says how fitOffload placed a model, from the rule it followed
// (its note): a planner, which places millions, does not ask.
func fitNote(how string) string {
	return fmt.Sprintf("placed as llama.cpp's --fit does (common/fit.cpp): %s, keeping %s free on the GPU (-fitt's default)",
		how, units.FormatBytes(FitMargin, units.Binary))
}

// offloadSplit builds the stages and pools of one placement, the model's
// parts cut by slice (model.Cost.Slice, or its sums alone).
func offloadSplit(gpu, host *Setup, link *hardware.Link, pl offloadPlace, slice func(model.Part) (*model.Cost, error)) (*Split, error) {
	m := gpu.Model
	L := m.Spec.Layers
	ngl := pl.ngl
	// llama.cpp's load_tensors counts the output layer as layer L and
	// puts layers i_gpu_start = max(L+1-ngl, 0) … L on the GPU: -ngl 1 is
	// the output layer alone, -ngl N the output layer and the last N-1
	// layers (ggml-org/llama.cpp#18148, December 2025; before it
	// i_gpu_start was L-ngl and the output layer went last, at L+1).
	g := L - max(ngl-1, 0) // the first GPU layer: llama.cpp's i_gpu_start
	headOnGPU := ngl >= 1
	unified := host.Device == gpu.Device
	sp := &Split{Kind: Offload, Main: gpu, Link: link, TP: 1, PP: 1, GPULayers: ngl, Layers: L + 1, HopBytes: ActivationHopBytes * float64(m.Spec.Hidden)}
	if unified {
		sp.Link = nil
	}
	sp.Pools = []Pool{{Name: gpu.Device.Name + " memory", Device: gpu.Device, Usable: gpu.Usable(), Margin: FitMargin, Devices: 1}}
	hp := 0
	if !unified {
		sp.Pools = append(sp.Pools, Pool{Name: "host memory (" + host.Device.Name + ")", Device: host.Device, Usable: host.Usable(), Devices: 1, Host: true})
		hp = 1
	}
	// The layers whose experts stay in host memory though the layers are
	// on the GPU.
	ea, eb := max(pl.expFirst, g), pl.expEnd
	if eb <= ea {
		ea, eb = 0, 0
	}
	sp.ExpertLayers = eb - ea
	type part struct {
		name string
		p    model.Part
		gpu  bool
		kv   bool
	}
	var parts []part
	parts = append(parts, part{name: "embedding table", p: model.Part{Embedding: true}})
	if g > 0 {
		parts = append(parts, part{name: layerRange(0, g-1), p: model.Part{First: 0, End: g, Dense: true, Experts: true}, kv: true})
	}
	if g < L || headOnGPU {
		name := layerRange(g, L-1)
		if g >= L {
			name = ""
		}
		if headOnGPU {
			name = joinWords(name, "output layer")
		}
		if eb > ea {
			name += " (routed experts of " + span(ea, eb-1) + " in host memory)"
		}
		parts = append(parts, part{name: name, p: model.Part{First: g, End: L, Dense: true, Experts: true, Head: headOnGPU, SkipFirst: ea, SkipEnd: eb}, gpu: true, kv: true})
	}
	if eb > ea {
		parts = append(parts, part{name: "routed experts of " + layerRange(ea, eb-1), p: model.Part{First: ea, End: eb, Experts: true}})
	}
	if !headOnGPU {
		parts = append(parts, part{name: "output layer", p: model.Part{Head: true}})
	}
	gpuFirst := g < L || headOnGPU
	for i, pt := range parts {
		c, err := slice(pt.p)
		if err != nil {
			return nil, err
		}
		pool, kv := hp, -1
		on := host
		if pt.gpu {
			pool, on = 0, gpu
		}
		if pt.kv {
			kv = pool
		}
		first := pt.gpu || (!gpuFirst && i == 0)
		sp.Decode = append(sp.Decode, newStage(pt.name, on, c, pt.p, pool, kv, pool, first, false))
		sp.prefillSmall = append(sp.prefillSmall, newStage(pt.name, on, c, pt.p, pool, kv, pool, first, true))
		st := newStage(pt.name, on, c, pt.p, pool, kv, pool, first, true)
		// A host part's products run on the GPU when the pass is large
		// enough (op offload): not the embedding lookup nor the head,
		// whose one row of logits stays on the CPU.
		if !pt.gpu && !unified && link != nil && (pt.p.Layers() > 0) {
			st.overLink(gpu, link, 0)
		}
		sp.Prefill = append(sp.Prefill, st)
	}
	// A decode step crosses the bus twice for every layer whose experts
	// are in host memory (the hidden state to the CPU and the experts'
	// output back). An op-offloaded prefill pass keeps the hidden state on
	// the GPU and crosses twice for every host layer with a KV cache: its
	// new K and V rows, f32, down to the CPU, which writes them into the
	// layer's cache in host memory (ggml_set_rows on a tensor of a CPU
	// buffer runs there), and the cache back up to the GPU's attention
	// (priced with attention, Stage.overLink). The crossings a GPU-only
	// step makes (the embeddings in, the logits out) are in its fitted
	// fixed cost, and a split with host layers crosses as often.
	if sp.Link != nil {
		sp.DecodeHops = 2 * sp.ExpertLayers
		sp.smallHops = sp.DecodeHops
		kvLayers := 0
		for _, st := range sp.Prefill {
			if st.over != nil {
				for _, l := range st.Cost.KVLayers() {
					kvLayers += l.Layers
				}
			}
		}
		if kvLayers > 0 {
			row, err := m.KVRowBytes(model.F32)
			if err != nil {
				return nil, err
			}
			sp.PrefillHops = 2 * kvLayers
			sp.PrefillHopBytes = row / 2 // a layer's rows, over its two crossings
		}
	}
	return sp, nil
}

// opOffload reports whether a split's prefill runs host-resident
// products on the GPU for workload w (its passes carry OpOffloadRows
// tokens or more); when not, the prefill stages are the decode ones.
func (sp *Split) opOffload(w Workload) bool {
	return w.PassTokens() >= OpOffloadRows
}

// layerRange names layers a to b: "layer 79", "layers 0–34".
func layerRange(a, b int) string {
	if a == b {
		return "layer " + span(a, b)
	}
	return "layers " + span(a, b)
}

func span(a, b int) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d–%d", a, b)
}

func joinWords(a, b string) string {
	if a == "" {
		return b
	}
	return a + " and " + b
}

// ParallelOptions spread a model over identical devices of one machine.
type ParallelOptions struct {
	TP, PP int
	// EP spreads whole routed experts over the TP devices (vLLM
	// --enable-expert-parallel) instead of splitting each.
	EP bool
	// Between is the link between the groups of devices an NVLink joins
	// (its Devices) when TP × PP fill more than one: each tensor-parallel
	// group sits in one, as many whole stages in each as it holds, and a
	// stage boundary between groups crosses Between (Split.Between). nil
	// when the link joins every device.
	Between *hardware.Link
}

// RuntimeSplits refuses the modes o asks for (TP above one, PP above one,
// EP) that runtime rt does not split a model in (its profile's parallel
// rule): the refusal NewParallel gives, for a caller that checks the
// modes a user named before pricing where the devices sit.
func (o ParallelOptions) RuntimeSplits(rt *runtimes.Runtime) error {
	switch {
	case o.TP > 1 && !rt.Splits(runtimes.SplitTensor):
		return &FieldError{"TP", rt.Name + " does not split layers across devices (tensor parallel; its profile's parallel rule)"}
	case o.PP > 1 && !rt.Splits(runtimes.SplitPipeline):
		return &FieldError{"PP", rt.Name + " does not give devices runs of layers (pipeline parallel; its profile's parallel rule)"}
	case o.EP && !rt.Splits(runtimes.SplitExpert):
		return &FieldError{"EP", rt.Name + " does not spread experts over devices (expert parallel; its profile's parallel rule)"}
	}
	return nil
}

// NewParallel spreads s's model over TP × PP devices like s's, joined by
// link: PP stages of consecutive layers (the first with the embedding
// table, the last with the head), each split TP ways (model.Cost.Shard),
// every layer adding two all-reduces of its activations (after attention
// and after the feed-forward block; with EP an all-to-all dispatching the
// tokens to their experts and one combining them instead of the second),
// every stage boundary one transfer of the activations, over link, or
// over o.Between where it leaves a group of the NVLink link.
func NewParallel(s *Setup, link *hardware.Link, o ParallelOptions) (*Split, error) {
	m := s.Model
	spec := m.Spec
	rt := s.Runtime
	switch {
	case o.TP < 1:
		return nil, &FieldError{"TP", fmt.Sprintf("must be at least 1, got %d", o.TP)}
	case o.PP < 1:
		return nil, &FieldError{"PP", fmt.Sprintf("must be at least 1, got %d", o.PP)}
	}
	if err := o.RuntimeSplits(rt); err != nil {
		return nil, err
	}
	switch {
	case o.EP && spec.MoE == nil:
		return nil, &FieldError{"EP", spec.Name + " has no routed experts to spread"}
	case o.EP && o.TP < 2:
		return nil, &FieldError{"EP", "expert parallel spreads the experts over the tensor-parallel devices: it needs a tensor-parallel size of 2 or more"}
	case spec.Heads%o.TP != 0:
		return nil, &FieldError{"TP", fmt.Sprintf("must divide the model's %d attention heads (each device takes whole heads), got %d", spec.Heads, o.TP)}
	case spec.MLA == nil && spec.KVHeads%o.TP != 0 && o.TP%spec.KVHeads != 0:
		return nil, &FieldError{"TP", fmt.Sprintf("must divide the model's %d KV heads or be a multiple of them (replicated beyond), got %d", spec.KVHeads, o.TP)}
	case o.PP > spec.Layers:
		return nil, &FieldError{"PP", fmt.Sprintf("%d pipeline stages for a model of %d layers: at most one stage per layer", o.PP, spec.Layers)}
	case link == nil && o.TP*o.PP > 1:
		return nil, &FieldError{"Link", "devices need a link between them"}
	}
	if link != nil {
		if err := link.Validate(); err != nil {
			return nil, &FieldError{"Link", err.Error()}
		}
	}
	groupStages := 0
	if b := o.Between; b != nil && o.PP > 1 {
		if link == nil || link.Kind != hardware.NVLink || link.Devices < o.TP {
			return nil, &FieldError{"Between", "a link between groups joins groups of an NVLink that holds each tensor-parallel group"}
		}
		if err := b.Validate(); err != nil {
			return nil, &FieldError{"Between", err.Error()}
		}
		if groupStages = link.Devices / o.TP; groupStages >= o.PP {
			groupStages = 0 // every stage in one group
		}
	}
	sp := &Split{Kind: Parallel, Main: s, Link: link, TP: o.TP, PP: o.PP, EP: o.EP, Layers: spec.Layers,
		HopBytes: ActivationWireBytes16 * float64(spec.Hidden), CollectiveBytes: ActivationWireBytes16 * float64(spec.Hidden), PipelinedPrefill: true}
	if groupStages > 0 {
		sp.Between, sp.GroupStages = o.Between, groupStages
	}
	if rt.Splits(runtimes.SplitTensor) {
		// A serving engine keeps a micro-batch per stage in flight
		// (vLLM's virtual engines, one per pipeline stage).
		sp.PipelineBatches = func(b int) int { return min(b, o.PP) }
	} else {
		// A runtime that splits layers only (llama.cpp) runs a step of
		// more sequences than a ubatch as ubatches through the stages.
		sp.UBatchPipeline = true
	}
	moeLayers := 0
	if mo := spec.MoE; mo != nil {
		moeLayers = spec.Layers - mo.DenseLayers
		sp.ExpertBytes = ActivationWireBytes16 * float64(spec.Hidden*mo.Active)
	}
	if o.TP > 1 {
		sp.AllReduces = 2 * spec.Layers
		if o.EP {
			sp.AllReduces = 2*spec.Layers - moeLayers
			sp.AllToAlls = 2 * moeLayers
		}
	}
	sp.PrefillHops, sp.DecodeHops = o.PP-1, o.PP-1
	// A runtime that keeps an untied embedding table in host memory
	// (llama.cpp) reads its rows there: a stage of its own in no device's
	// pool.
	hostTable := m.Layout.HostEmbedding && !s.Device.Unified && !spec.TiedEmbeddings
	if hostTable {
		p := model.Part{Embedding: true}
		c, err := m.Slice(p)
		if err != nil {
			return nil, err
		}
		sp.Prefill = append(sp.Prefill, newStage("embedding table (host memory)", s, c, p, -1, -1, -1, false, true))
		sp.Decode = append(sp.Decode, newStage("embedding table (host memory)", s, c, p, -1, -1, -1, false, false))
	}
	per, extra := spec.Layers/o.PP, spec.Layers%o.PP
	first := 0
	for i := 0; i < o.PP; i++ {
		n := per
		if i >= o.PP-extra {
			n++ // the last stages take the remainder
		}
		p := model.Part{First: first, End: first + n, Dense: true, Experts: true, Embedding: i == 0 && !hostTable, Head: i == o.PP-1}
		first += n
		c, err := m.Slice(p)
		if err != nil {
			return nil, err
		}
		c = c.Shard(o.TP)
		name := fmt.Sprintf("layers %d–%d", p.First, p.End-1)
		poolName := fmt.Sprintf("%s memory", s.Device.Name)
		if o.TP > 1 {
			name += fmt.Sprintf(", 1/%d of each", o.TP)
			poolName = fmt.Sprintf("%s memory, each of %d", s.Device.Name, o.TP)
		}
		if o.PP > 1 {
			poolName = fmt.Sprintf("stage %d: %s", i+1, poolName)
		}
		sp.Pools = append(sp.Pools, Pool{Name: poolName, Device: s.Device, Usable: s.Usable(), Devices: o.TP})
		pool := len(sp.Pools) - 1
		sp.Prefill = append(sp.Prefill, newStage(name, s, c, p, pool, pool, pool, i == 0, true))
		sp.Decode = append(sp.Decode, newStage(name, s, c, p, pool, pool, pool, i == 0, false))
	}
	return sp, nil
}

// NewNetwork spreads s's model over n boards like s's device joined by a
// network link, as llama.cpp's RPC backend does: each board (an
// rpc-server, the first beside the client) holds a run of consecutive
// layers, in equal shares since the boards are alike (llama.cpp splits by
// free memory), and a pass visits them in turn; each visit sends the
// board its input activations and fetches its output, each a request and
// its reply.
func NewNetwork(s *Setup, link *hardware.Link, n int) (*Split, error) {
	spec := s.Model.Spec
	switch {
	case !s.Runtime.Splits(runtimes.SplitRPC):
		return nil, &FieldError{"Devices", s.Runtime.Name + " does not spread a model over machines on a network (its profile's parallel rule)"}
	case n < 2:
		return nil, &FieldError{"Devices", fmt.Sprintf("a network split needs 2 boards or more, got %d", n)}
	case n > spec.Layers:
		return nil, &FieldError{"Devices", fmt.Sprintf("%d boards for a model of %d layers: each board takes at least a layer", n, spec.Layers)}
	case link == nil:
		return nil, &FieldError{"Link", "boards need a network link between them"}
	}
	if err := link.Validate(); err != nil {
		return nil, &FieldError{"Link", err.Error()}
	}
	sp, err := NewParallel(withSplits(s, runtimes.SplitPipeline), link, ParallelOptions{TP: 1, PP: n})
	if err != nil {
		return nil, err
	}
	sp.Kind = Network
	sp.PipelineBatches, sp.UBatchPipeline = nil, false
	sp.PipelinedPrefill = false
	sp.HopBytes = ActivationHopBytes * float64(spec.Hidden)
	sp.HopRoundTrip = true
	sp.PrefillHops, sp.DecodeHops = 2*n, 2*n
	for i := range sp.Pools {
		sp.Pools[i].Name = fmt.Sprintf("board %d: %s memory", i+1, s.Device.Name)
	}
	sp.Notes = append(sp.Notes, fmt.Sprintf("llama.cpp RPC: %d boards of %s on %s, each a run of layers; a pass visits them in turn, sending each its input and fetching its output (two requests and their replies per board)", n, s.Device.Name, link.Name))
	return sp, nil
}

// withSplits is s with a runtime that also splits in mode m: an RPC
// split is a pipeline of boards whatever the runtime calls it.
func withSplits(s *Setup, m string) *Setup {
	if s.Runtime.Splits(m) {
		return s
	}
	o := *s
	rt := *s.Runtime
	rt.Parallel = append(append([]string(nil), rt.Parallel...), m)
	o.Runtime = &rt
	return &o
}

// Q80SyncBytes is one value of distributed-llama's q80 synchronisation
// buffer: blocks of 32 int8 values and an f16 scale, 34 B per 32 values
// (its q40 weights require it: src/app.cpp; the f32 weights sync in f32).
const Q80SyncBytes = 34.0 / 32

// NewNetworkTensor spreads s's model over n machines like s's device on a
// network link as distributed-llama does: every layer's products split n
// ways by rows and columns (model.Cost.Shard), and per layer two
// exchanges of the hidden-size partial output, each machine sending its
// slice to every other (src/llm.cpp: two SYNC_NODE_SLICES; q80 for q40
// weights); once per pass the root sends the input to every worker and
// gathers the logits slices (f32). n must be a power of two and at most
// the model's KV heads (its README's limitations).
func NewNetworkTensor(s *Setup, link *hardware.Link, n int) (*Split, error) {
	spec := s.Model.Spec
	switch {
	case !s.Runtime.Splits(runtimes.SplitNetworkTensor):
		return nil, &FieldError{"Devices", s.Runtime.Name + " does not split layers over machines on a network (its profile's parallel rule)"}
	case n < 2:
		return nil, &FieldError{"Devices", fmt.Sprintf("a network split needs 2 machines or more, got %d", n)}
	case n&(n-1) != 0:
		return nil, &FieldError{"Devices", fmt.Sprintf("%s runs on 2, 4, 8 … machines (a power of two), got %d", s.Runtime.Name, n)}
	case spec.MLA == nil && n > spec.KVHeads:
		return nil, &FieldError{"Devices", fmt.Sprintf("%s runs on at most as many machines as the model's %d KV heads, got %d", s.Runtime.Name, spec.KVHeads, n)}
	case link == nil:
		return nil, &FieldError{"Link", "machines need a network link between them"}
	}
	if err := link.Validate(); err != nil {
		return nil, &FieldError{"Link", err.Error()}
	}
	sp, err := NewParallel(withSplits(s, runtimes.SplitTensor), link, ParallelOptions{TP: n, PP: 1})
	if err != nil {
		return nil, err
	}
	sync := Q80SyncBytes
	if s.Model.Weights.Name == "f32" {
		sync = 4
	}
	k := float64(n - 1)
	sp.Kind = Network
	sp.Exchange = true
	sp.CollectiveBytes = sync * float64(spec.Hidden)
	// The root's input to each worker and the logits slices it gathers,
	// f32: two transfers a pass of these bytes per token together.
	sp.PrefillHops, sp.DecodeHops = 2, 2
	sp.HopBytes = (k*4*float64(spec.Hidden) + k/float64(n)*4*float64(spec.Vocab)) / 2
	for i := range sp.Pools {
		sp.Pools[i].Name = fmt.Sprintf("%s memory, each of %d machines", s.Device.Name, n)
	}
	sp.Notes = append(sp.Notes, fmt.Sprintf("%s: %d machines of %s on %s, each a 1/%d slice of every layer; per layer two exchanges of the partial output (each machine sends its slice to every other), per pass the input sent to every worker and the logits gathered", s.Runtime.Name, n, s.Device.Name, link.Name, n))
	return sp, nil
}
