package runtimes

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/units"
)

// Rule is one of a runtime's rules in words, with the source the profile
// cites for it: what `roofline show runtime` prints and the runtime table
// of docs/formats.md tabulates.
type Rule struct {
	// Key names the rule as the profile does ("layout.window_cache").
	Key string
	// Topic groups rules for a table: formats, engines, window, window
	// cache, MLA, head, embeddings, batching, memory, kernels.
	Topic string
	// Value is the rule in words.
	Value  string
	Source string
}

// Rule topics, in the order Rules lists them.
const (
	TopicFormats    = "formats"
	TopicEngines    = "engines"
	TopicWindow     = "sliding window"
	TopicWindowKV   = "window cache"
	TopicMLA        = "MLA cache"
	TopicHead       = "head"
	TopicEmbeddings = "embeddings"
	TopicFusion     = "fused products"
	TopicBatching   = "batching"
	TopicPrefill    = "prefill"
	TopicMemory     = "memory"
	TopicParallel   = "split"
	TopicKernels    = "kernel precision"
	TopicScheduler  = "scheduler"
	TopicGraphs     = "CUDA graphs"
)

// Rules lists the runtime's rules in words, each with its source. A
// layout rule the profile leaves out is priced as the model is published
// and listed as not stated, with no source; head and embedding storage
// then follow the weight format, whose source is the formats'.
func (r *Runtime) Rules() []Rule {
	var out []Rule
	add := func(key, topic, value string) {
		src, ok := r.Sources[key]
		switch {
		case ok:
		case key == "layout.head" || key == "layout.embedding":
			src = r.Sources["formats"]
		default:
			value = "not stated: " + value
		}
		out = append(out, Rule{Key: key, Topic: topic, Value: value, Source: src})
	}
	def := r.DefaultWeights
	if def == Native {
		def = "the model's checkpoint"
	}
	formats := fmt.Sprintf("weights %s (default %s); KV %s (default %s)", strings.Join(r.Weights, ", "), def, strings.Join(r.KV, ", "), r.DefaultKV)
	add("formats", TopicFormats, formats)
	if len(r.CheckpointWeights) > 0 {
		var pairs []string
		for from, to := range r.CheckpointWeights {
			pairs = append(pairs, fmt.Sprintf("a model published in %s runs as %s", from, to))
		}
		sort.Strings(pairs)
		add("checkpoint_weights", TopicFormats, strings.Join(pairs, "; "))
	}
	for i := range r.Engines {
		v, key := r.engineWords(i)
		add(key, TopicEngines, v)
	}
	add("layout.sliding_window", TopicWindow, r.windowText())
	add("layout.window_cache", TopicWindowKV, r.windowCacheText())
	add("layout.mla_cache", TopicMLA, mlaText(r.Layout.MLA))
	head := "as the weight format stores it"
	if h := r.Layout.Head; h.Name != "" {
		head = h.Name
	}
	add("layout.head", TopicHead, head)
	if len(r.HeadFormats) > 0 {
		var pairs []string
		for f, st := range r.HeadFormats {
			pairs = append(pairs, st.Name+" in "+f)
		}
		slices.Sort(pairs)
		add("layout.head_formats", TopicHead, strings.Join(pairs, "; "))
	}
	emb := "as the weight format stores it"
	if e := r.Layout.Embedding; e.Name != "" {
		emb = e.Name
		if r.Layout.UntieEmbedding {
			emb += ", a table of its own for tied models too"
		}
	}
	add("layout.embedding", TopicEmbeddings, emb)
	host := "on the device"
	if r.Layout.HostEmbedding {
		host = "an untied input table stays in host memory"
	}
	add("layout.host_embedding", TopicEmbeddings, host)
	add("layout.fused", TopicFusion, r.fusionText())
	batching := "continuous: requests join the running batch"
	switch {
	case !r.ContinuousBatching && r.Scheduler.Stated && r.Scheduler.Policy == Static:
		batching = "none: requests queue for a static batch"
	case !r.ContinuousBatching:
		batching = "none: requests queue, one sequence at a time"
	}
	add("continuous_batching", TopicBatching, batching)
	for _, p := range r.prefillRules() {
		add(p.Key, TopicPrefill, p.Value)
	}
	add("memory_overhead", TopicMemory, units.FormatBytes(r.MemoryOverhead, units.Binary)+" beyond weights, KV cache and activations")
	add("memory_share", TopicMemory, r.memoryText())
	if p := r.KVPool; p.On() {
		add("kv_pool", TopicMemory, fmt.Sprintf("the engine allocates at load the KV cache of its %d rows (%s, scheduler.max_seqs) of %d tokens (%s), and the scratch memory of a pass of %d prompts of %d tokens (%s), whatever a request asks; an engine built larger for a longer context allocates that",
			r.Scheduler.MaxSeqs, p.BatchFlag, p.Capacity, p.CapacityFlag, r.Scheduler.MaxSeqs, p.Input, p.InputFlag))
	}
	if sc := r.Scheduler; sc.Stated {
		policy := "continuous batching"
		switch sc.Policy {
		case FIFO:
			policy = "one request at a time, the others queued in arrival order"
		case Static:
			policy = "static batches: up to max_seqs queued requests padded to the longest prompt, prefilled together and decoded until the longest output ends, then the next batch"
		}
		add("scheduler.policy", TopicScheduler, policy)
		add("scheduler.max_seqs", TopicScheduler, fmt.Sprintf("at most %d requests running", sc.MaxSeqs))
		if sc.MaxTokens > 0 {
			add("scheduler.max_tokens", TopicScheduler, fmt.Sprintf("at most %d tokens a step", sc.MaxTokens))
		} else {
			add("scheduler.max_tokens", TopicScheduler, "a step prefills the prediction's chunk")
		}
		if sc.PassTokens > 0 {
			add("scheduler.pass_tokens", TopicScheduler, fmt.Sprintf("a step runs as forward passes of at most %d tokens", sc.PassTokens))
		}
		if l := sc.Large; l != nil {
			add("scheduler.large_devices", TopicScheduler, fmt.Sprintf("%d requests and %d tokens a step on devices of %s or more (except %s)", l.MaxSeqs, l.MaxTokens,
				units.FormatBytes(l.Memory, units.Binary), strings.Join(l.Except, ", ")))
		}
		chunked := "a prompt runs whole in one step"
		if sc.Chunked {
			chunked = "chunked prefill: a long prompt is split over steps"
		}
		add("scheduler.chunked_prefill", TopicScheduler, chunked)
		blocks := fmt.Sprintf("KV cache in blocks of %d tokens", sc.BlockSize)
		if sc.BlockSize == 1 {
			blocks = "KV cache in cells of one token"
		}
		add("scheduler.block_size", TopicScheduler, blocks)
		full := map[OnFull]string{Recompute: "when the cache is full the newest request is preempted and recomputed later",
			Reserve: "a request is admitted only with room for its whole cache", Fail: "a request that finds the cache full fails"}[sc.OnFull]
		add("scheduler.on_kv_full", TopicScheduler, full)
		prefix := "no prefix caching"
		if sc.PrefixCaching {
			prefix = "prefix caching: a cached shared prefix is not prefilled again"
		}
		add("scheduler.prefix_caching", TopicScheduler, prefix)
		if _, ok := r.Sources["scheduler.async_scheduling"]; ok {
			async := "a step is scheduled after the one before it ends"
			if sc.Async {
				async = "async scheduling: a step is scheduled while the one before it runs, so a request arriving meanwhile joins the step after"
			}
			add("scheduler.async_scheduling", TopicScheduler, async)
		}
		if _, ok := r.Sources["scheduler.frees_window"]; ok {
			win := "a sliding-window layer holds a block for every token"
			if sc.FreesWindow {
				win = "a sliding-window layer keeps only the blocks its window reaches: the blocks that fall out of it are freed for other requests"
			}
			add("scheduler.frees_window", TopicScheduler, win)
		}
		if _, ok := r.Sources["scheduler.slot_context"]; ok {
			ctx := "every slot may use the whole context"
			if sc.DividedContext {
				ctx = "each slot holds the context / slots"
			}
			add("scheduler.slot_context", TopicScheduler, ctx)
		}
	}
	if g := r.Graphs; g.On() {
		capture := fmt.Sprintf("replayed for steps of up to %d tokens", g.Capture)
		if g.PerSeq > 0 {
			capture = fmt.Sprintf("replayed for steps of up to min(%d × max_num_seqs, %d) tokens", g.PerSeq, g.Capture)
		}
		add("graphs.capture", TopicGraphs, capture)
		add("graphs.piecewise_layer", TopicGraphs, fmt.Sprintf("a step holding prompt tokens, piecewise: %s a layer more than a whole graph", units.FormatDuration(g.Piecewise)))
		add("graphs.eager_layer", TopicGraphs, fmt.Sprintf("a step beyond the largest graph, none: %s a layer more", units.FormatDuration(g.Eager)))
	}
	if len(r.Parallel) > 0 {
		add("parallel", TopicParallel, "splits a model by "+strings.Join(r.Parallel, ", "))
	} else {
		add("parallel", TopicParallel, "runs a model on one device only")
	}
	if m := r.MultiNode; m != nil && *m {
		add("multi_node", TopicParallel, "its device splits reach the GPUs of other machines over their network")
	} else if m != nil {
		add("multi_node", TopicParallel, "its device splits stay among the GPUs of one machine")
	}
	// The decode kernels that unpack every weight, per engine.
	for i, e := range r.Engines {
		on, key := r.engineWords(i)
		const bound = "unpack every weight to a float and multiply it in turn: their arithmetic, at the class's kquant_gemv share of the engine's FP32 peak (its products' peak where it states none), bounds a step beside its memory time"
		if e.KQuantUnpack {
			add(key+".kquant_unpack", TopicKernels, "decode on "+on+": products over K-quant weights "+bound)
		}
		if len(e.UnpackTypes) > 0 {
			add(key+".unpack_types", TopicKernels, "decode on "+on+": products over "+strings.Join(e.UnpackTypes, ", ")+" weights "+bound)
		}
	}
	for i, k := range r.Kernels {
		ps := make([]string, len(k.Compute))
		for j, p := range k.Compute {
			ps[j] = string(p)
		}
		add(fmt.Sprintf("kernel.%d", i), TopicKernels, fmt.Sprintf("%s on %s: %s", strings.Join(k.Formats, ", "), k.Kind, strings.Join(ps, " > ")))
		if k.NoDotFactor > 0 {
			add(fmt.Sprintf("kernel.%d.without_int8_dot", i), TopicKernels, fmt.Sprintf("%s on a %s without int8 dot products: int8 products at %.3g of its int8 peak", strings.Join(k.Formats, ", "), k.Kind, k.NoDotFactor))
		}
		if k.DotFactor > 0 {
			add(fmt.Sprintf("kernel.%d.with_int8_dot", i), TopicKernels, fmt.Sprintf("%s on a %s with int8 dot products: %.3g × the class's matrix efficiency", strings.Join(k.Formats, ", "), k.Kind, k.DotFactor))
		}
		if !k.Since.IsZero() {
			add(fmt.Sprintf("kernel.%d.since", i), TopicKernels, fmt.Sprintf("%s on %s: from build b%d (%s); older builds take the next rule", strings.Join(k.Formats, ", "), k.Kind, k.Since.LastBuild+1, k.Since.Until))
		}
		if k.Native {
			add(fmt.Sprintf("kernel.%d.native", i), TopicKernels, fmt.Sprintf("%s on %s: multiplied as stored, no dequantizing cost", strings.Join(k.Formats, ", "), k.Kind))
		}
	}
	return out
}

// engineWords is the engines r.Engines[i] names in words ("gpu through
// metal (apple)") and the key its rules' sources are under (EngineKey).
func (r *Runtime) engineWords(i int) (words, key string) {
	e := &r.Engines[i]
	words = string(e.Kind)
	if e.Backend != "" {
		words += " through " + e.Backend
	}
	if len(e.Families) > 0 {
		words += " (" + strings.Join(e.Families, ", ") + ")"
	}
	if e.MinCC > 0 {
		words += fmt.Sprintf(", compute capability %.1f and later", e.MinCC)
	}
	return words, EngineKey(r.Engines, i)
}

// EngineKey is the key the sources of engines[i]'s rules are under:
// "engine." and its backend, else its kind ("engine.metal",
// "engine.gpu"). One whose key an earlier engine holds adds its
// families ("engine.gpu(amd,apple)"), so that each engine's sources are
// its own (MLC's CUDA GPUs and its others are both "gpu").
func EngineKey(engines []Support, i int) string {
	base := func(e *Support) string {
		if e.Backend != "" {
			return "engine." + e.Backend
		}
		return "engine." + string(e.Kind)
	}
	key := base(&engines[i])
	for j := range i {
		if base(&engines[j]) == key {
			return key + "(" + strings.Join(engines[i].Families, ",") + ")"
		}
	}
	return key
}

// prefillRules are the runtime's prefill defaults in words.
func (r *Runtime) prefillRules() []Rule {
	p := r.Prefill
	name := ""
	if p.Name != "" {
		name = " (" + p.Name + ")"
	}
	chunk := fmt.Sprintf("%d tokens per pass%s", p.Chunk, name)
	if p.Chunk == WholePrompt {
		chunk = "the whole prompt in one pass"
	}
	out := []Rule{{Key: "prefill.chunk", Value: chunk}}
	if p.Large > 0 {
		v := fmt.Sprintf("%d tokens per pass on a device of %s or more", p.Large, units.FormatBytes(p.LargeMemory, units.Binary))
		if len(p.LargeExcept) > 0 {
			v += " not named " + strings.Join(p.LargeExcept, " or ")
		}
		out = append(out, Rule{Key: "prefill.large_chunk", Value: v})
	}
	order := "lockstep: every sequence of a batch advances chunk ÷ batch tokens per pass"
	if r.Order() == InOrder {
		order = "whole prompts one after another, as many as fit a pass; a longer prompt alone, in chunks"
	}
	out = append(out, Rule{Key: "prefill.order", Value: order})
	logits := "logits reserved for every token of a pass"
	if p.LastLogits {
		logits = "logits for each sequence's last prompt token only"
	}
	return append(out, Rule{Key: "prefill.logits", Value: logits})
}

// memoryText is the runtime's memory rule in words.
func (r *Runtime) memoryText() string {
	switch r.Memory() {
	case MemoryOfBuild:
		return "allocates what its engine was built for (kv_pool), all of usable memory available"
	case MemoryOfDevice:
		return fmt.Sprintf("weights, activations, its own memory and the KV cache share %.0f %% of usable memory", 100*r.MemoryShare)
	case MemoryOfFree:
		v := fmt.Sprintf("the KV cache gets %.0f %% of the memory the weights, activations and its own memory leave free; the rest stays unallocated", 100*r.CacheFraction())
		if r.MemoryShare < 1 {
			v += fmt.Sprintf(" (of %.0f %% of usable memory)", 100*r.MemoryShare)
		}
		return v
	}
	return "allocates what the configuration needs: the KV cache for the context asked, all of usable memory available"
}

// ClassLabels lists the classes the runtime's efficiency comes from, in
// the order of its engines: a backend with a class of its own (cuda,
// metal), else the engine kind (gpu, cpu, npu), each once.
func (r *Runtime) ClassLabels() []string {
	var out []string
	for _, e := range r.Engines {
		l := string(e.Kind)
		if _, ok := r.Classes[e.Backend]; ok && e.Backend != "" {
			l = e.Backend
		}
		if !containsString(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// ClassByLabel is the class ClassLabels names: a backend's, or an engine
// kind's (its prior when not fitted).
func (r *Runtime) ClassByLabel(label string) *Class {
	if c, ok := r.Classes[label]; ok {
		return c
	}
	return r.Class(hardware.Kind(label))
}

func (r *Runtime) windowText() string {
	if containsString(r.WindowArchitectures, AllArchitectures) {
		return "honoured for every model"
	}
	if len(r.WindowArchitectures) == 0 {
		return "never honoured: full attention"
	}
	return "honoured for " + strings.Join(r.WindowArchitectures, ", ") + "; full attention for other models"
}

func (r *Runtime) windowCacheText() string {
	l := r.Layout
	switch l.WindowCache {
	case model.WindowFull:
		return "every token (sized for the whole context)"
	case model.WindowPlusUBatch:
		v := "window + micro-batch"
		switch {
		case l.WindowOffset < 0:
			v = fmt.Sprintf("window − %d + micro-batch", -l.WindowOffset)
		case l.WindowOffset > 0:
			v = fmt.Sprintf("window + %d + micro-batch", l.WindowOffset)
		}
		if l.WindowPad > 1 {
			v += fmt.Sprintf(", rounded up to %d", l.WindowPad)
		}
		if l.WindowExtraBlocks > 0 {
			v += fmt.Sprintf(", plus %d × %d", l.WindowExtraBlocks, l.WindowPad)
		}
		return v
	}
	return "the window"
}

func mlaText(m model.MLACache) string {
	switch m {
	case model.MLALatentV:
		return "latent and V (kv_lora_rank + rope + kv_lora_rank)"
	case model.MLAExpanded:
		return "expanded per-head K and V"
	}
	return "latent (kv_lora_rank + rope)"
}

// refTag matches a reference tag such as [L1] or [V10].
var refTag = regexp.MustCompile(`\[[A-Z][A-Z0-9]*\]`)

// Tags lists the reference tags a source cites, in order, once each.
func Tags(source string) []string {
	var out []string
	for _, t := range refTag.FindAllString(source, -1) {
		if !containsString(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fusionText says which products the runtime fuses (Fusion).
func (r *Runtime) fusionText() string {
	f := r.Fusion
	switch {
	case f.QKV && f.GateUp:
		return "q, k and v as one product, gate and up as one"
	case f.QKV:
		return "q, k and v as one product"
	case f.GateUp:
		return "gate and up as one product"
	}
	return "none: each product as the model stores it"
}
