package runtimes

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/units"
)

// Runtime is an inference runtime: what it runs, where, and the rules of
// layout and arithmetic that make the same model cost differently under it.
type Runtime struct {
	Name        string
	Aliases     []string
	Description string

	// Weights lists the weight formats it runs by name; "gguf" stands for
	// every GGUF file type and a GGUF file's own tensor types.
	Weights []string
	// KV lists the KV-cache formats it runs.
	KV []string
	// Engines says on which engines it runs.
	Engines []Support
	// DefaultWeights is the format it runs when none is given: a format
	// name, or Native for the model's published checkpoint.
	DefaultWeights string
	DefaultKV      string
	// CheckpointWeights maps a model's published checkpoint format to the
	// format the runtime runs such a model in by default, where that is
	// not DefaultWeights: llama.cpp runs gpt-oss (MXFP4 experts) as the
	// MXFP4_MOE file, not as a Q4_K_M recipe.
	CheckpointWeights map[string]string

	// WindowArchitectures lists the architectures (config.json model_type)
	// whose sliding windows it honours; every other model is priced with
	// full attention. AllArchitectures honours every model's window.
	WindowArchitectures []string
	// Layout holds the rest of the layout rules (window cache, MLA cache,
	// head and embedding storage, host embeddings).
	Layout model.Layout
	// HeadFormats stores the output head of a model in the named weight
	// formats in its own type, where it differs from Layout.Head (RKLLM
	// keeps an int8 head in w8a8 and an int4 one in w4a16): LayoutFor.
	HeadFormats map[string]model.Storage

	// Fusion says which products it runs as one kernel where the model
	// stores them apart (vLLM's qkv_proj and gate_up_proj): the operators
	// a per-operator view lists. It changes no byte or FLOP.
	Fusion model.Fusion

	// Kernels say at which precision its matrix products run, per format
	// and engine kind; formats without a rule run at their own preference
	// (model.WeightFormat.Compute).
	Kernels []Kernel

	// HostPrecisions, when set, say that it runs part of every layer on
	// the host CPU beside the engine (RKLLM's CPU operations between its
	// NPU products), at the first of these precisions the device's CPU
	// engine has a peak for: the efficiency's HostWork is priced there.
	HostPrecisions []units.Precision
	// LayerOverheadPerUnit is true when its fixed cost per layer is the
	// engine's units' time, which they share: a step or pass spends
	// layers · LayerOverhead / units on it (RKLLM drives each NPU core
	// from a host thread of its own).
	LayerOverheadPerUnit bool

	// Parallel lists the ways it splits a model that one device cannot
	// hold (SplitModes), from its profile's parallel rule.
	Parallel []string
	// MultiNode, when its profile states it (multi_node), says whether
	// its device splits (tensor, pipeline, expert) reach the GPUs of other
	// machines over their network (vLLM on a Ray cluster: true) or stay
	// among the GPUs of one machine (llama.cpp's -sm layer, gpt-fast's
	// torchrun ranks: false); nil when the profile does not say. Its
	// network modes (rpc, network-tensor) span machines whatever it says.
	MultiNode *bool `json:",omitempty"`

	// ContinuousBatching is true when it batches concurrent sequences
	// step by step (vLLM, llama-server); without it, requests queue.
	ContinuousBatching bool
	// MemoryOverhead is what it allocates beyond weights, KV cache and
	// activations (context, graphs, allocator slack), B.
	MemoryOverhead float64
	// MemoryShare is the share of the device's usable memory it lets a
	// model use (vLLM's gpu_memory_utilization), in (0, 1].
	MemoryShare float64
	// CacheShare is the share of the memory left free by the weights,
	// the activations and its own memory that its KV cache may take
	// (TensorRT-LLM's kv_cache_free_gpu_mem_fraction), in (0, 1]; 1 when
	// the cache may take all of it (MemoryShare bounds the rest).
	CacheShare float64
	// KVPool is the KV cache its engine allocates at load for the batch
	// and length it was built for (TensorRT Edge-LLM's linear cache);
	// zero when it sizes the cache for the request or by a share.
	KVPool KVPool `json:",omitzero"`

	// Prefill is how it feeds prompts to the engine by default: the
	// tokens of a pass, how a batch's prompts share passes, which logits
	// a pass computes.
	Prefill Prefill

	// Scheduler is how its server batches requests ([scheduler] in its
	// profile; Stated false when the profile has none).
	Scheduler Scheduler
	// FrontEnd is its server's front end ([front_end] in its profile,
	// fitted on published serving runs; Stated false when it has none).
	FrontEnd FrontEnd
	// Graphs is how its steps launch their kernels ([graphs] in its
	// profile: CUDA graphs up to a step size; zero when it has none).
	Graphs Graphs `json:",omitzero"`

	// Classes are its efficiencies per engine kind ("gpu", "cpu", "npu")
	// or per backend (a Support's Backend): fitted to published
	// measurements, or a stated prior where none exist.
	Classes map[string]*Class
	// Levels are how families of devices, and devices, with published
	// runs differ from their class, by LevelKey ("cuda/jetson",
	// "cuda/jetson/jetson-orin-nano-super-8gb"): ClassFor composes them.
	Levels map[string]*Level
	// SettingReference is what its classes were measured at ([settings]
	// in its profile: RKLLM's conversion context and clocks), and
	// SettingFactors, by class name, how much a run set up otherwise
	// differs (fitted; Factors).
	SettingReference SettingReference
	SettingFactors   map[string]*SettingFactors

	// Eras are the older eras of its builds, oldest first: spans of
	// releases whose kernels ran measurably differently, each with
	// classes of its own ("cuda@2024"). Build is the build a user named
	// (--runtime llama.cpp@b2000); "" is the current one.
	Eras  []Era
	Build string

	// Sources maps a rule's key to where it comes from.
	Sources    map[string]string
	References []string
	File       string
}

// The ways a runtime splits a model (its profile's parallel rule).
const (
	// SplitOffload keeps some layers in host memory and runs them on the
	// host's CPU (llama.cpp -ngl).
	SplitOffload = "offload"
	// SplitOffloadExperts keeps routed experts in host memory (llama.cpp
	// --cpu-moe, --n-cpu-moe).
	SplitOffloadExperts = "offload-experts"
	// SplitTensor splits every product across devices (vLLM --tensor-parallel-size).
	SplitTensor = "tensor"
	// SplitPipeline gives each device a run of layers (vLLM
	// --pipeline-parallel-size, llama.cpp --split-mode layer).
	SplitPipeline = "pipeline"
	// SplitExpert spreads whole experts across the tensor-parallel
	// devices (vLLM --enable-expert-parallel).
	SplitExpert = "expert"
	// SplitRPC gives each host on a network a run of layers (llama.cpp's
	// RPC backend).
	SplitRPC = "rpc"
	// SplitNetworkTensor splits every product across machines on a
	// network, each sending its slice of a layer's partial output to
	// every other (distributed-llama).
	SplitNetworkTensor = "network-tensor"
)

// SplitModes lists the modes a runtime profile may name.
var SplitModes = []string{SplitOffload, SplitOffloadExperts, SplitTensor, SplitPipeline, SplitExpert, SplitRPC, SplitNetworkTensor}

// Splits reports whether the runtime splits a model in mode m.
func (r *Runtime) Splits(m string) bool { return slices.Contains(r.Parallel, m) }

// OneMachine reports whether its profile keeps its device splits among
// the GPUs of one machine (multi_node = false).
func (r *Runtime) OneMachine() bool { return r.MultiNode != nil && !*r.MultiNode }

// SpansMachines reports whether its profile says it runs one model over
// the devices of several machines (multi_node = true).
func (r *Runtime) SpansMachines() bool { return r.MultiNode != nil && *r.MultiNode }

// Native is DefaultWeights for runtimes that run the model's published
// checkpoint.
const Native = "native"

// AllArchitectures in WindowArchitectures honours every model's window.
const AllArchitectures = "*"

// GGUF in Weights stands for every GGUF file type.
const GGUF = "gguf"

// Support is a kind of engine a runtime runs on, limited to some device
// families (empty: every family).
type Support struct {
	Kind     hardware.Kind
	Families []string
	// Backend names the code the runtime runs these engines with
	// (llama.cpp's CUDA, Metal, ROCm): kernels and launch costs differ
	// between backends, so a backend measured on enough devices carries a
	// class of its own. "" when the runtime names none.
	Backend string
	// Weights, when set, are the only weight formats it runs on these
	// engines (MLX's CUDA backend has no products for MXFP4 prompts).
	Weights []string
	// GraphBatch, when set, is the most sequences a decode step may hold
	// and still be replayed as one graph of kernels (llama.cpp's CUDA
	// graphs: a step of one sequence): its fixed costs are the engine's
	// cycles (hardware.Efficiency.AtClock). A larger step launches its
	// kernels one by one from the host, as a prefill pass does, and costs
	// a pass's fixed costs. 0: the runtime states no such limit, and
	// every decode step costs a step's.
	GraphBatch int
	// GraphBuilds, when set, are the builds GraphBatch holds for: a build
	// named up to them is limited to it, a later one and the current build
	// (none named) replay steps of any batch as graphs (llama.cpp since
	// its pull request #19645). Zero: GraphBatch holds for every build.
	GraphBuilds Builds `json:",omitzero"`
	// SerialDecode is true when a decode step's products load their
	// weights and then multiply them, one after the other, rather than
	// overlapping the two (llama.cpp's CUDA kernels): a step's products
	// cost their memory time plus their compute time, not the larger.
	SerialDecode bool `json:",omitzero"`
	// KQuantUnpack is true when a decode step's products over K-quant
	// weights unpack every weight to a float and multiply it in turn
	// (llama.cpp's Metal mul_mv kernels), so their arithmetic can hold
	// the step beside its memory time (hardware.Efficiency.KQuantGEMV).
	KQuantUnpack bool `json:",omitzero"`
	// LaunchedPrefill is true when a prefill pass launches its kernels
	// one by one from the host, with no graph (llama.cpp's CUDA backend):
	// its fixed costs are per layer (sim.Inputs.LaunchedPrefill). A
	// backend that replays its kernels as graphs (MLX's CUDA command
	// encoder) pays a pass's.
	LaunchedPrefill bool `json:",omitzero"`
	// UnpackTypes are further weight types (model.Storage names) whose
	// decode products unpack every weight to a float and multiply it in
	// turn (MLC's q4f16_1 groups on CUDA: a shift, a mask and an
	// integer-to-float conversion a weight), priced as KQuantUnpack
	// prices the K-quants.
	UnpackTypes []string `json:",omitzero"`
	// GraphMinCC, when set, is the lowest compute capability its graphs
	// run on (llama.cpp turns CUDA graphs off on older GPUs): on an
	// engine below it every decode step launches its kernels one by one.
	// An engine whose profile states no compute capability is taken to
	// meet it.
	GraphMinCC float64
	// MinCC, when set, is the lowest compute capability the runtime runs
	// on at all (TensorRT Edge-LLM: 8.0): an engine whose profile states a
	// lower one is not covered (a Jetson Nano's 5.3). An engine that
	// states none is taken to meet it. MinCCSource says where it comes
	// from.
	MinCC       float64 `json:",omitzero"`
	MinCCSource string  `json:",omitzero"`
	// PrefillTile, when set, is the most tokens one tile of the runtime's
	// quantized matrix products takes (llama.cpp's MMQ: mmq_x ≤ 128): a
	// pass of more tokens multiplies each tile of weights with one tile
	// of tokens after another, and each block reads its weights again for
	// every tile of tokens, so a pass of n tokens reads the layers'
	// weights ⌈n / PrefillTile⌉ times. It holds for the current builds
	// (an older era of the backend's builds ran other kernels) on engines
	// of compute capability TileMinCC or more (or none stated).
	PrefillTile int     `json:",omitzero"`
	TileMinCC   float64 `json:",omitzero"`
	// TileRows is the rows of weights one unit's tile takes (llama.cpp's
	// mmq_y, 128): the units together hold TileRows × units rows of a
	// matrix at once, and what of them the engine's cache holds is
	// re-read from there rather than from memory (hardware.Engine.L2Cache).
	TileRows int `json:",omitzero"`
}

// Kernel is the precision a runtime's matrix products run at for some
// formats on one engine kind, in order of preference: the first the
// engine has a peak for.
type Kernel struct {
	Formats []string // names, or "gguf-quant", "gguf-float" for GGUF classes
	Kind    hardware.Kind
	Compute []units.Precision
	// NoDotFactor is the share of an engine's int8 peak these kernels'
	// products reach on an engine without int8 dot-product instructions
	// (hardware.Engine.NoInt8Dot), where they form each dot product from
	// more instructions than the peak counts; 0 when the rule says
	// nothing (1). NoDotSource says where it comes from.
	NoDotFactor float64
	NoDotSource string
	// DotFactor is the factor on the class's matrix efficiency these
	// kernels' int8 products reach on an engine with int8 dot products,
	// where the runtime runs them through kernels faster (or slower) than
	// the ones its class was fitted on (llama.cpp's repacked Q4_0 GEMM);
	// 0 when the rule says nothing (1). DotSource says where it comes from.
	DotFactor float64
	DotSource string
	// Native is true when the engine multiplies weights of these formats
	// as stored, by a matrix type of its own (the RKNPU's int4 × fp16):
	// nothing unpacks them in a kernel, so the class's dequantizing
	// factor (hardware.Efficiency.Dequant) does not apply. NativeSource
	// says where it comes from.
	Native       bool
	NativeSource string
	// Since, when stated, are the builds before these kernels existed
	// (up to Since.LastBuild, or dated before Since.Until): the rule does
	// not hold for a run or prediction naming such a build, and the next
	// rule covering the format decides (llama.cpp's repacked K-quant
	// GEMMs from b7175). The current build, and one named by none,
	// runs them.
	Since Builds `json:",omitzero"`
}

// Class is the efficiency of a runtime on one kind of engine, and how far
// its predictions are from measurements.
type Class struct {
	hardware.Efficiency
	// SE holds the standard errors of the parameters in the order of
	// hardware.ParameterNames; zero where a parameter was held at its
	// prior.
	SE []float64
	// Decode and Prefill are the 80 % intervals of measured time over
	// predicted time, from leave-one-device-out residuals.
	Decode, Prefill Spread
	// Fitted is false for a prior: no published measurements of this
	// runtime on this engine kind.
	Fitted bool
	// Basis says what the class was fitted on, or why it is a prior.
	Basis string
	// MoEDecode, when High > 0, is the interval of measured over predicted
	// time that covers the class's MoE decode runs held out of scope: a
	// cost of the expert path no sourced term prices (docs/accuracy.md,
	// "Held out of scope"). A prediction of an MoE model's decode on the
	// class takes it as its decode interval where it is wider
	// (sim.Setup); MoEDecodeBasis says which runs it was derived from.
	MoEDecode      Spread
	MoEDecodeBasis string
	// NPUClockDecode, when High > 0, is likewise the interval that covers
	// the class's decode runs at an NPU clock below the engine's maximum,
	// held out of scope (the NPU's clock is priced through its peaks
	// alone): a prediction at such a clock (sim.Options.Clocks) takes it
	// where it is wider; NPUClockDecodeBasis says which runs.
	NPUClockDecode      Spread
	NPUClockDecodeBasis string
	// OwnDevice is true where the class is a measured device's level
	// (ClassFor): its intervals are that board's. Otherwise they are
	// the class's, held out by device, and carry how boards differ.
	OwnDevice bool `json:"-"`
}

// Spread is an interval of measured/predicted: the time is expected in
// [Low·t, High·t] with probability Level.
type Spread struct {
	Low, High float64
}

// IntervalLevel is the coverage of the intervals runtime classes carry.
const IntervalLevel = 0.80

// Runs reports whether the runtime runs on engine e of device d.
func (r *Runtime) Runs(d *hardware.Device, e *hardware.Engine) bool {
	return r.support(d, e) != nil
}

// support is the first of the runtime's engines that covers engine e of
// device d, nil when none does.
func (r *Runtime) support(d *hardware.Device, e *hardware.Engine) *Support {
	for i := range r.Engines {
		s := &r.Engines[i]
		if s.Kind == e.Kind && (len(s.Families) == 0 || slices.Contains(s.Families, d.Family)) && !s.below(e) {
			return s
		}
	}
	return nil
}

// below reports whether engine e states a compute capability under the
// lowest the runtime runs on there (Support.MinCC).
func (s *Support) below(e *hardware.Engine) bool {
	return s.MinCC > 0 && e.ComputeCapability > 0 && e.ComputeCapability < s.MinCC
}

// tooOld says why the runtime runs on no engine of device d when that is
// because of their compute capability ("" otherwise): the engine of a
// kind and family it runs on, whose compute capability is below its
// Support.MinCC.
func (r *Runtime) tooOld(d *hardware.Device) string {
	for i := range d.Engines {
		e := &d.Engines[i]
		for j := range r.Engines {
			s := &r.Engines[j]
			if s.Kind == e.Kind && (len(s.Families) == 0 || slices.Contains(s.Families, d.Family)) && s.below(e) {
				return fmt.Sprintf("its %s engine is of compute capability %.1f, below the %.1f it runs on", e.Name, e.ComputeCapability, s.MinCC)
			}
		}
	}
	return ""
}

// RunsOn says which engines the runtime runs on, as its [[engine]]
// entries state them: "gpu engines of jetson devices (compute capability
// 8.0 and later)"; "" when it states none.
func (r *Runtime) RunsOn() string {
	var on []string
	for _, s := range r.Engines {
		w := string(s.Kind) + " engines"
		if len(s.Families) > 0 {
			w += " of " + strings.Join(s.Families, ", ") + " devices"
		}
		if s.MinCC > 0 {
			w += fmt.Sprintf(" (compute capability %.1f and later)", s.MinCC)
		}
		if !slices.Contains(on, w) {
			on = append(on, w)
		}
	}
	return strings.Join(on, "; ")
}

// runsWeightsOn reports whether the engines of the runtime that cover
// engine e of device d run weight format w (every format the runtime
// runs, unless they list their own).
func (r *Runtime) runsWeightsOn(d *hardware.Device, e *hardware.Engine, w model.WeightFormat) bool {
	s := r.support(d, e)
	return s == nil || len(s.Weights) == 0 || runsName(s.Weights, w)
}

// weightsOn lists the weight formats the runtime runs on engine e of
// device d: its engine's own list where it has one, else all of them.
func (r *Runtime) weightsOn(d *hardware.Device, e *hardware.Engine) []string {
	if s := r.support(d, e); s != nil && len(s.Weights) > 0 {
		return s.Weights
	}
	return r.Weights
}

// RunsWeights reports whether the runtime runs weight format w.
func (r *Runtime) RunsWeights(w model.WeightFormat) bool { return runsName(r.Weights, w) }

func runsName(names []string, w model.WeightFormat) bool {
	for _, n := range names {
		if n == w.Name || (n == GGUF && w.IsGGUF()) {
			return true
		}
	}
	return false
}

// RunsKV reports whether the runtime runs KV-cache format k.
func (r *Runtime) RunsKV(k string) bool { return slices.Contains(r.KV, k) }

// HonoursWindow reports whether the runtime implements the sliding window
// of a model of architecture arch.
func (r *Runtime) HonoursWindow(arch string) bool {
	return slices.Contains(r.WindowArchitectures, AllArchitectures) || slices.Contains(r.WindowArchitectures, arch)
}

// LayoutFor is the layout of model s in weight format weights under the
// runtime.
func (r *Runtime) LayoutFor(s *model.Spec, weights string) model.Layout {
	l := r.Layout
	if h, ok := r.HeadFormats[weights]; ok {
		l.Head = h
	}
	l.IgnoreWindows = s.SlidingWindow > 0 && !r.HonoursWindow(s.Architecture)
	return l
}

// WeightsFor is the weight format the runtime runs model s in when the
// user names none: a model file's own types, the model's checkpoint for
// runtimes that run checkpoints, else the runtime's usual format.
func (r *Runtime) WeightsFor(s *model.Spec) string {
	if s.FileWeights != nil {
		return model.FileWeightsName
	}
	native := s.NativeFormat()
	if r.DefaultWeights == Native {
		return native
	}
	if w, ok := r.CheckpointWeights[native]; ok {
		return w
	}
	return r.DefaultWeights
}

// Precision is the precision the runtime's matrix products run at for
// weight format w on engine e, with its peak; ok is false when the engine
// has a peak for none of them.
func (r *Runtime) Precision(w model.WeightFormat, e *hardware.Engine) (units.Precision, float64, bool) {
	return e.Pick(r.KernelPrecisions(w, e.Kind))
}

// KernelFactor is the factor on engine e's matrix efficiency at precision
// p that the runtime's int8 products of format w get from the kernels
// they run there: below 1 for want of an instruction the peak counts
// (NoDotFactor: a core without int8 dot products) or for a kernel slower
// than the class's, above 1 for a faster one (DotFactor: a core with
// them), and the reason; 1 and "" when the rules say nothing. types is
// the products' work by the storage type of their weights
// (model.Cost.ProductTypes): each type's share is priced at the rule for
// that type, as llama.cpp picks a kernel per tensor (a Q4_K_M file whose
// rows its blocks do not divide holds Q5_0 tensors, which run Q5_0's
// kernel), and the factor is their work-weighted harmonic mean. Without
// types the rule for w applies to the whole.
func (r *Runtime) KernelFactor(w model.WeightFormat, types []model.TypeFLOPs, e *hardware.Engine, p units.Precision) (float64, string) {
	if p != units.INT8 {
		return 1, ""
	}
	if len(types) == 0 {
		return r.kernelRule(e, func(names []string) bool { return kernelCovers(names, w) })
	}
	type share struct {
		name     string
		flops, f float64
	}
	var total, time float64
	var shares []share
	var notes []string
	for _, t := range types {
		if t.FLOPs <= 0 {
			continue
		}
		f, note := 1.0, ""
		if t.Type.GGMLQuantized() {
			f, note = r.kernelRule(e, func(names []string) bool { return kernelCoversType(names, t.Type) })
		}
		total += t.FLOPs
		time += t.FLOPs / f
		shares = append(shares, share{t.Type.Name, t.FLOPs, f})
		if note != "" && !slices.Contains(notes, note) {
			notes = append(notes, note)
		}
	}
	if total <= 0 || len(notes) == 0 {
		return 1, ""
	}
	f := total / time
	same := true
	for _, sh := range shares {
		same = same && sh.f == shares[0].f
	}
	if same {
		return f, notes[0]
	}
	parts := make([]string, len(shares))
	for i, sh := range shares {
		pct := fmt.Sprintf("%.0f %%", 100*sh.flops/total)
		if sh.flops/total < 0.005 {
			pct = "<1 %"
		}
		parts[i] = fmt.Sprintf("%s %s × %.3g", sh.name, pct, sh.f)
	}
	return f, "by weight type, " + strings.Join(parts, ", ") + fmt.Sprintf(" = %.3g: ", f) + strings.Join(notes, "; ")
}

// kernelRule is the factor of the first kernel rule for engine e's kind
// whose formats cover (covers) and its source: the rule's NoDotFactor on
// an engine without int8 dot products, its DotFactor on one with them; 1
// and "" when that rule states none, or no rule covers.
func (r *Runtime) kernelRule(e *hardware.Engine, covers func([]string) bool) (float64, string) {
	for _, kr := range r.Kernels {
		if kr.Kind != e.Kind || !covers(kr.Formats) || !r.runs(kr) {
			continue
		}
		switch {
		case e.NoInt8Dot && kr.NoDotFactor > 0:
			return kr.NoDotFactor, kr.NoDotSource
		case !e.NoInt8Dot && kr.DotFactor > 0:
			return kr.DotFactor, kr.DotSource
		}
		return 1, ""
	}
	return 1, ""
}

// runs reports whether r's build runs kernel rule kr: every build when
// the rule names none, else those after its Since builds.
func (r *Runtime) runs(kr Kernel) bool {
	return kr.Since.IsZero() || !r.builtBy(kr.Since)
}

// Unpacks reports whether the runtime's products of quantized format w
// on an engine of kind k unpack the weights to float arithmetic in a
// kernel, which the class's dequantizing factor prices: true unless the
// first kernel rule covering w there says the engine multiplies them
// natively (Kernel.Native).
func (r *Runtime) Unpacks(w model.WeightFormat, k hardware.Kind) bool {
	for _, kr := range r.Kernels {
		if kr.Kind == k && kernelCovers(kr.Formats, w) && r.runs(kr) {
			return !kr.Native
		}
	}
	return true
}

// KernelPrecisions is the preference list of precisions for format w on
// an engine of kind k.
func (r *Runtime) KernelPrecisions(w model.WeightFormat, k hardware.Kind) []units.Precision {
	for _, kr := range r.Kernels {
		if kr.Kind == k && kernelCovers(kr.Formats, w) && r.runs(kr) {
			return kr.Compute
		}
	}
	return w.Compute
}

// kernelCoversType reports whether a kernel rule's formats cover tensors
// stored in ggml type st: by its name (a GGUF format of one type shares
// its type's name), or as a quantized GGUF type.
func kernelCoversType(names []string, st model.Storage) bool {
	for _, n := range names {
		if n == st.Name || (n == "gguf-quant" && st.GGMLQuantized()) {
			return true
		}
	}
	return false
}

func kernelCovers(names []string, w model.WeightFormat) bool {
	for _, n := range names {
		switch {
		case n == w.Name:
			return true
		case n == "gguf-quant" && w.IsGGUF() && w.Quantized():
			return true
		case n == "gguf-float" && w.IsGGUF() && !w.Quantized():
			return true
		}
	}
	return false
}

// IdealPrecision is the precision of the fastest peak engine e has for
// format w under any kernel: the bound no run of w on e can beat.
func IdealPrecision(w model.WeightFormat, e *hardware.Engine) (units.Precision, float64, bool) {
	var best units.Precision
	peak := 0.0
	for _, p := range w.Ideal() {
		if v := e.Peaks[p]; v > peak {
			best, peak = p, v
		}
	}
	return best, peak, peak > 0
}

// Class is the runtime's efficiency on engines of kind k. A kind without
// a class of its own falls back to the widest stated prior (Prior).
func (r *Runtime) Class(k hardware.Kind) *Class {
	if c, ok := r.Classes[string(k)]; ok {
		return c
	}
	c := Prior(k)
	return &c
}

// Backend is the backend the runtime runs engine e of device d with; ""
// when its profile names none.
func (r *Runtime) Backend(d *hardware.Device, e *hardware.Engine) string {
	if s := r.support(d, e); s != nil {
		return s.Backend
	}
	return ""
}

// GraphBatch is the most sequences a decode step on engine e of device d
// may hold and still be replayed as one graph (Support.GraphBatch); 0
// when the runtime states no limit, or limits only builds up to
// Support.GraphBuilds and r's build (Build) is later or current. graphless is true when the engine's
// compute capability is below what the runtime's graphs need
// (Support.GraphMinCC): no step runs as a graph.
func (r *Runtime) GraphBatch(d *hardware.Device, e *hardware.Engine) (batch int, graphless bool) {
	s := r.support(d, e)
	if s == nil {
		return 0, false
	}
	cc := e.ComputeCapability
	batch = s.GraphBatch
	if batch > 0 && !s.GraphBuilds.IsZero() && !r.builtBy(s.GraphBuilds) {
		batch = 0
	}
	return batch, s.GraphMinCC > 0 && cc > 0 && cc < s.GraphMinCC
}

// LaunchedPrefill reports whether a prefill pass on engine e of device d
// launches its kernels one by one from the host (Support.LaunchedPrefill).
func (r *Runtime) LaunchedPrefill(d *hardware.Device, e *hardware.Engine) bool {
	s := r.support(d, e)
	return s != nil && s.LaunchedPrefill
}

// SerialDecode reports whether a decode step's products on engine e of
// device d load and multiply one after the other (Support.SerialDecode).
func (r *Runtime) SerialDecode(d *hardware.Device, e *hardware.Engine) bool {
	s := r.support(d, e)
	return s != nil && s.SerialDecode
}

// Unpacked reports which weight types a decode step's products on
// engine e of device d unpack each weight of to a float: the K-quants
// when kquants (Support.KQuantUnpack), and types (Support.UnpackTypes).
func (r *Runtime) Unpacked(d *hardware.Device, e *hardware.Engine) (kquants bool, types []string) {
	s := r.support(d, e)
	if s == nil {
		return false, nil
	}
	return s.KQuantUnpack, s.UnpackTypes
}

// PrefillTile is the most tokens a tile of the runtime's quantized
// products on engine e of device d takes (Support.PrefillTile); 0 when
// it states none, r's build is of an older era of the engine's backend,
// or the engine's compute capability is below Support.TileMinCC.
// rows is the rows of weights a unit's tile takes (Support.TileRows).
func (r *Runtime) PrefillTile(d *hardware.Device, e *hardware.Engine) (tokens, rows int) {
	s := r.support(d, e)
	if s == nil || s.PrefillTile == 0 || !r.currentFor(s.Backend, e.Kind) {
		return 0, 0
	}
	if cc := e.ComputeCapability; cc > 0 && cc < s.TileMinCC {
		return 0, 0
	}
	return s.PrefillTile, s.TileRows
}

// ClassFor is the runtime's efficiency on engine e of device d: its
// backend's class when it has one, else its engine kind's (Class); for a
// named older build (Build), that era's class where the profile has one.
// For the current builds, a family of devices and a device with
// published runs move the class by their fitted Levels (withLevels).
func (r *Runtime) ClassFor(d *hardware.Device, e *hardware.Engine) *Class {
	if b := r.Backend(d, e); b != "" {
		if c, ok := r.Classes[b]; ok {
			if ec := r.eraClass(b); ec != nil {
				return ec
			}
			return r.withLevels(b, c, d)
		}
	}
	if ec := r.eraClass(string(e.Kind)); ec != nil {
		return ec
	}
	if c, ok := r.Classes[string(e.Kind)]; ok {
		return r.withLevels(string(e.Kind), c, d)
	}
	return r.Class(e.Kind)
}

// Level is how a family of devices, or one device, differs from its
// class: fitted to its published runs and shrunk toward the class
// (docs/method.md §6, "Families and devices").
type Level struct {
	Shift hardware.Shift
	// Decode and Prefill are the level's own 80 % intervals of measured
	// over predicted time (a device's: each model predicted by a fit
	// without it; a family's: each device by a fit without it); zero
	// when its runs are too few to give one, and the class's apply.
	Decode, Prefill Spread
	// Basis says what the level was fitted on.
	Basis string
}

// LevelKey is the key a level of class `class` is filed under: the
// family's ("cuda/jetson"), or with a device the device's module's
// ("cuda/jetson/jetson-orin-nano-8gb": its power modes share it).
func LevelKey(class, family, device string) string {
	k := class + "/" + family
	if device != "" {
		k += "/" + device
	}
	return k
}

// withLevels is class c (filed under key) moved by the levels of d's
// family and of d where the profile has them: the efficiency shifted by
// each, the most specific level's intervals where it has them, and a
// basis that says which.
func (r *Runtime) withLevels(key string, c *Class, d *hardware.Device) *Class {
	fam, dev := r.Levels[LevelKey(key, d.Family, "")], r.Levels[LevelKey(key, d.Family, d.Module())]
	out := *c
	out.Basis = c.Basis
	for _, l := range []*Level{fam, dev} {
		if l == nil {
			continue
		}
		out.Efficiency = out.Efficiency.Shifted(l.Shift)
		if l.Decode.Low > 0 {
			out.Decode = l.Decode
		}
		if l.Prefill.Low > 0 {
			out.Prefill = l.Prefill
		}
		out.Basis = l.Basis
	}
	if dev == nil && c.Fitted {
		out.Basis += "; no published run of " + d.Module() + " is in its fit"
	}
	out.OwnDevice = dev != nil
	return &out
}

// Check says why the runtime cannot run format w with KV format kv on
// engine e of device d, nil when it can.
func (r *Runtime) Check(d *hardware.Device, e *hardware.Engine, w model.WeightFormat, kv string) error {
	if !r.Runs(d, e) {
		return &UnsupportedError{Runtime: r.Name, What: fmt.Sprintf("the %s engine of %s (%s)", e.Name, d.Name, d.Family), Choose: []string{"engine", "runtime"}}
	}
	if !r.RunsWeights(w) {
		return &UnsupportedError{Runtime: r.Name, What: "weight format " + w.Name, Hint: "it runs " + strings.Join(r.Weights, ", ")}
	}
	if s := r.support(d, e); !r.runsWeightsOn(d, e, w) {
		on := string(e.Kind)
		if s.Backend != "" {
			on = s.Backend
		}
		return &UnsupportedError{Runtime: r.Name, What: fmt.Sprintf("weight format %s on %s (%s)", w.Name, d.Name, on),
			Hint: "there it runs " + strings.Join(s.Weights, ", ")}
	}
	if kv != "" {
		if _, err := model.LookupKVFormat(kv); err != nil {
			return err // no runtime runs a format that does not exist
		}
	}
	if kv != "" && !r.RunsKV(kv) {
		return &UnsupportedError{Runtime: r.Name, What: "KV format " + kv, Hint: "it runs " + strings.Join(r.KV, ", ")}
	}
	if _, _, ok := r.Precision(w, e); !ok {
		var want []string
		for _, p := range r.KernelPrecisions(w, e.Kind) {
			want = append(want, string(p))
		}
		var has []string
		for _, p := range e.Precisions() {
			has = append(has, string(p))
		}
		return &UnsupportedError{Runtime: r.Name, What: fmt.Sprintf("%s on the %s engine of %s, which has no peak for %s (it has %s)", w.Name, e.Name, d.Name, strings.Join(want, " or "), strings.Join(has, ", ")),
			Choose: []string{"weights", "engine"}}
	}
	return nil
}

// UnsupportedError is a combination a runtime does not run.
type UnsupportedError struct {
	Runtime string
	What    string
	Hint    string
	// Choose names the inputs to choose again ("engine", "runtime") when
	// that is the way out; a command names them as its flags (Message).
	Choose []string
}

func (e *UnsupportedError) Error() string {
	return e.Message(func(input string) string { return input })
}

// Message is Error with each input of Choose named by name: the words a
// library says, the flags a command says.
func (e *UnsupportedError) Message(name func(input string) string) string {
	hint := e.Hint
	if len(e.Choose) > 0 {
		var in []string
		for _, c := range e.Choose {
			in = append(in, name(c))
		}
		hint = "choose another " + strings.Join(in, " or ")
	}
	return fmt.Sprintf("runtime %s does not run %s (%s)", e.Runtime, e.What, hint)
}

// Validate checks the runtime's rules for sense.
func (r *Runtime) Validate() error {
	var errs []string
	if len(r.Weights) == 0 || len(r.KV) == 0 || len(r.Engines) == 0 {
		errs = append(errs, "a runtime needs weights, kv and at least one [[engine]]")
	}
	if r.MemoryShare <= 0 || r.MemoryShare > 1 || math.IsNaN(r.MemoryShare) {
		errs = append(errs, fmt.Sprintf("memory_share must be in (0, 1], got %g", r.MemoryShare))
	}
	if r.CacheShare <= 0 || r.CacheShare > 1 || math.IsNaN(r.CacheShare) {
		errs = append(errs, fmt.Sprintf("the cache's share of free memory must be in (0, 1], got %g", r.CacheShare))
	}
	if p := r.Prefill; p.Chunk < 0 || p.Large < 0 || (p.Order != Lockstep && p.Order != InOrder) {
		errs = append(errs, fmt.Sprintf("prefill: chunk %d, large %d and order %q must be whole token counts ≥ 0 and %q or %q", p.Chunk, p.Large, p.Order, Lockstep, InOrder))
	}
	if r.MemoryOverhead < 0 || math.IsNaN(r.MemoryOverhead) || math.IsInf(r.MemoryOverhead, 0) {
		errs = append(errs, fmt.Sprintf("memory_overhead must not be negative, got %g", r.MemoryOverhead))
	}
	if err := r.Layout.Validate(); err != nil {
		errs = append(errs, err.Error())
	}
	if err := r.KVPool.Validate(); err != nil {
		errs = append(errs, err.Error())
	} else if r.KVPool.On() && (!r.Scheduler.Stated || r.Scheduler.Policy != Static || r.Scheduler.MaxSeqs < 1 || r.ContinuousBatching) {
		errs = append(errs, "kv_pool: a pool sized by the build needs a [scheduler] of policy \"static\" whose max_seqs is the build's batch, and no continuous batching")
	}
	if err := r.Graphs.Validate(); err != nil {
		errs = append(errs, err.Error())
	}
	if r.Scheduler.Stated {
		if err := r.Scheduler.Validate(); err != nil {
			errs = append(errs, "scheduler "+err.Error())
		}
	}
	for k, c := range r.Classes {
		if err := c.Efficiency.Validate(); err != nil {
			errs = append(errs, fmt.Sprintf("efficiency for %s engines: %v", k, err))
		}
		if !(c.Decode.Low > 0 && c.Decode.Low <= 1 && c.Decode.High >= 1) || !(c.Prefill.Low > 0 && c.Prefill.Low <= 1 && c.Prefill.High >= 1) {
			errs = append(errs, fmt.Sprintf("efficiency for %s engines: interval factors must bracket 1", k))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}
