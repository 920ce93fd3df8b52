package runtimes

import (
	"fmt"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/units"
)

// Prefill is how a runtime feeds prompts to its engine by default: the
// most tokens one forward pass carries, and how the prompts of a batch
// share passes. It decides how often a prefill re-reads the weights, so
// an ideal priced in another runtime's passes is no bound.
type Prefill struct {
	// Chunk is the most tokens a prefill pass carries by default
	// (llama.cpp's n_ubatch, vLLM's max_num_batched_tokens, TensorRT-LLM's
	// max_num_tokens, MLC's prefill_chunk_size, MLX's prefill_step_size);
	// WholePrompt when every prompt goes through in one pass (gpt-fast).
	Chunk int
	// Large replaces Chunk on devices with at least LargeMemory bytes of
	// memory whose name contains none of LargeExcept: vLLM's larger
	// defaults for H100-class GPUs. 0 when the runtime has none.
	Large       int
	LargeMemory float64
	LargeExcept []string
	// Order is how the prompts of a batch share passes.
	Order PrefillOrder
	// Name is what the runtime calls its chunk ("n_ubatch",
	// "max_num_tokens"); "" for "prefill chunk".
	Name string
	// LastLogits is true when a pass computes logits only for each
	// sequence's last prompt token (vLLM, TensorRT-LLM, MLC, MLX), false
	// when it reserves them for every token of the pass (llama.cpp's
	// compute buffer, gpt-fast's forward): the activations' largest term.
	LastLogits bool
	// Fill is the most tokens one call of the runtime hands its passes
	// (llama.cpp's n_batch): over a pipeline of devices a call's passes
	// follow each other through the stages and the next call's start
	// after them, so a prompt fills the pipeline once per Fill tokens;
	// 0 when a prompt's passes fill it once.
	Fill int
}

// WholePrompt is Prefill.Chunk for a runtime that runs every prompt in
// one pass.
const WholePrompt = 0

// DefaultChunk is the chunk of a runtime profile that states none:
// llama.cpp's n_ubatch, the rule roofline applied to every runtime before
// runtime profiles carried their own.
const DefaultChunk = 512

// PrefillOrder is how the prompts of a batch share prefill passes.
type PrefillOrder string

// The orders.
const (
	// Lockstep: every sequence of the batch advances ⌊chunk / batch⌋
	// tokens per pass (llama.cpp splits a multi-sequence batch into equal
	// shares per sequence).
	Lockstep PrefillOrder = "lockstep"
	// InOrder: prompts go whole, one after another, as many as fit a pass;
	// a prompt longer than the chunk goes alone in chunks (TensorRT-LLM's
	// and vLLM's schedulers, first come first served).
	InOrder PrefillOrder = "prompts"
)

// ChunkFor is the prefill chunk the runtime uses by default on device d,
// with the reason in words: its profile's rule, or WholePrompt.
func (r *Runtime) ChunkFor(d *hardware.Device) (int, string) {
	p := r.Prefill
	what := r.chunkName()
	if p.Large > 0 && d != nil && d.Memory >= p.LargeMemory && !nameContainsAny(d.Name, p.LargeExcept) {
		except := ""
		if len(p.LargeExcept) > 0 {
			except = " not named " + strings.Join(p.LargeExcept, " or ")
		}
		return p.Large, fmt.Sprintf("%s's default %s on a device of %s or more%s", r.Name, what,
			units.FormatBytes(p.LargeMemory, units.Binary), except)
	}
	if _, ok := r.Sources["prefill.chunk"]; !ok {
		return DefaultChunk, fmt.Sprintf("%s states no prefill chunk: llama.cpp's n_ubatch", r.Name)
	}
	if p.Chunk == WholePrompt {
		return WholePrompt, r.Name + " runs each prompt in one pass"
	}
	return p.Chunk, fmt.Sprintf("%s's default %s", r.Name, what)
}

// chunkName is what the runtime calls its chunk.
func (r *Runtime) chunkName() string {
	if n := r.Prefill.Name; n != "" {
		return n
	}
	return "prefill chunk"
}

func nameContainsAny(name string, parts []string) bool {
	n := strings.ToLower(name)
	for _, p := range parts {
		if p != "" && strings.Contains(n, strings.ToLower(p)) {
			return true
		}
	}
	return false
}

// MemoryRule is how a runtime sizes the memory a model may use.
type MemoryRule string

// The memory rules.
const (
	// MemoryExact: the runtime allocates what the configuration needs
	// (llama.cpp sizes the cache for the context it is asked for).
	MemoryExact MemoryRule = "exact"
	// MemoryOfDevice: weights, activations, its own memory and the cache
	// share MemoryShare of the device's usable memory (vLLM's
	// gpu_memory_utilization, MLC's).
	MemoryOfDevice MemoryRule = "device"
	// MemoryOfFree: the cache gets MemoryShare of what the weights,
	// activations and its own memory leave free (TensorRT-LLM's
	// kv_cache_free_gpu_mem_fraction); the rest stays unallocated.
	MemoryOfFree MemoryRule = "free"
	// MemoryOfBuild: the engine allocates its KV cache at load for the
	// rows and length it was built for (TensorRT Edge-LLM's maxBatchSize
	// × maxKVCacheCapacity), whatever a request asks (KVPool).
	MemoryOfBuild MemoryRule = "build"
)

// KVPool is the KV cache an engine allocates at load for the batch and
// length it was built for ([kv_pool] in its profile; zero when the
// runtime sizes its cache otherwise): Scheduler.MaxSeqs rows (its
// maxBatchSize) of Capacity tokens each, and the scratch memory of a
// prefill pass of MaxSeqs prompts of Input tokens.
type KVPool struct {
	// Capacity is each row's tokens, prompt and reply (maxKVCacheCapacity),
	// and Input the longest prompt (maxInputLen), of an engine built with
	// the builder's defaults, tokens.
	Capacity, Input int
	// CapacityFlag and InputFlag are the builder's flags that set them
	// (--maxKVCacheCapacity, --maxInputLen), BatchFlag the one that sets
	// the rows (--maxBatchSize), named by the messages.
	CapacityFlag, InputFlag, BatchFlag string
}

// On reports whether the runtime allocates a build-sized KV pool.
func (p KVPool) On() bool { return p.Capacity > 0 }

// Validate checks the pool's sizes and flags.
func (p KVPool) Validate() error {
	if !p.On() {
		return nil
	}
	if p.Input < 1 || p.Input > p.Capacity {
		return fmt.Errorf("kv_pool: input %d must be from 1 to capacity %d (a prompt is held in the row's cache)", p.Input, p.Capacity)
	}
	if p.CapacityFlag == "" || p.InputFlag == "" || p.BatchFlag == "" {
		return fmt.Errorf("kv_pool: capacity_flag, input_flag and batch_flag must name the builder's flags")
	}
	return nil
}

// Memory is the runtime's memory rule.
func (r *Runtime) Memory() MemoryRule {
	switch {
	case r.KVPool.On():
		return MemoryOfBuild
	case r.CacheFraction() < 1:
		return MemoryOfFree
	case r.MemoryShare > 0 && r.MemoryShare < 1:
		return MemoryOfDevice
	}
	return MemoryExact
}

// CacheFraction is the share of the memory left free that the KV cache
// may take: CacheShare, or 1 when unset.
func (r *Runtime) CacheFraction() float64 {
	if r.CacheShare > 0 && r.CacheShare < 1 {
		return r.CacheShare
	}
	return 1
}

// Order is how the runtime's prefill passes take a batch's prompts:
// Prefill.Order, lockstep when unset.
func (r *Runtime) Order() PrefillOrder {
	if r.Prefill.Order == InOrder {
		return InOrder
	}
	return Lockstep
}
