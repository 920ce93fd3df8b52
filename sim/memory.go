package sim

import "fmt"

// Memory is the memory-fit account, bytes.
type Memory struct {
	// Weights resident on the device: all of them, less an embedding
	// table the runtime keeps in host memory on a device with its own.
	Weights float64
	KV      float64 // the KV cache the runtime holds
	// KVRows and KVTokens are the sequences whose KV cache is allocated
	// and the tokens of each: those held at the context asked, or every
	// row of an engine's pool at the length it is built for (Pool).
	KVRows, KVTokens int
	Pool             bool
	Activations      float64 // the peak of a prefill pass's scratch buffers
	Overhead         float64 // the runtime's own
	// Reserve is the free memory the runtime leaves unallocated beside
	// its KV cache: a cache that takes a share f of the memory left free
	// (TensorRT-LLM's kv_cache_free_gpu_mem_fraction) needs KV / f of it,
	// so (1/f − 1)·KV more than the cache itself; 0 for other runtimes.
	Reserve  float64
	Total    float64
	Usable   float64
	Fits     bool
	Headroom float64 // Usable − Total; negative when it does not fit
	// MaxContext is the longest context per sequence that fits at this
	// batch, capped at the model's own maximum (max_position_embeddings):
	// no runtime runs a model beyond it. -1 only for a model that states
	// no maximum and whose every layer is windowed.
	MaxContext int
	// ContextBound says what bounds MaxContext: "memory", or "model" when
	// the model's maximum is reached first.
	ContextBound string
	// cacheShare is Inputs.CacheShare, which Reserve follows.
	cacheShare float64
}

// Context bounds of Memory.ContextBound.
const (
	BoundByMemory = "memory"
	BoundByModel  = "model"
	// BoundByBuild: the context the engine was built for (a KV pool's
	// capacity, --max-context) is reached first.
	BoundByBuild = "engine build"
)

// Memory is the one memory rule: for `batch` sequences of ctx tokens each
// with prefill passes of ubatch tokens (0: the runtime's, Setup.Chunk),
// the weights resident on the device, the KV cache as the runtime holds
// it (sliding layers hold their window cache), the peak activations of a
// pass, the runtime's overhead, and what the runtime leaves free beside
// its cache, against the memory the runtime lets the model use.
func (s *Setup) Memory(ctx, batch, ubatch int) Memory {
	ubatch = s.Chunk(ubatch, ctx*s.resident(batch))
	mem := s.need(ctx, batch, ubatch)
	mem.Usable = s.Usable()
	mem.Fits = mem.Total <= mem.Usable
	mem.Headroom = mem.Usable - mem.Total
	mem.MaxContext, mem.ContextBound = s.modelBound(s.maxContext(mem.Usable, batch, ubatch))
	return mem
}

// buildBound holds the longest context memory and the model allow to the
// one the engine was built for (Inputs.PoolBuilt), saying so.
func (s *Setup) buildBound(ctx int, bound string) (int, string) {
	if b := s.Inputs.PoolBuilt; b > 0 && s.Inputs.PoolSeqs > 0 && (ctx < 0 || ctx > b) {
		return b, BoundByBuild
	}
	return ctx, bound
}

// modelBound holds the longest context memory allows (-1: any) to the
// model's own maximum, saying which bound it is: predict's and plan's one
// rule.
func (s *Setup) modelBound(memory int) (int, string) {
	if lim := s.Model.Spec.MaxContext; lim > 0 && (memory < 0 || memory > lim) {
		return s.buildBound(lim, BoundByModel)
	}
	return s.buildBound(memory, BoundByMemory)
}

// MemoryNeed is Memory's total.
func (s *Setup) MemoryNeed(ctx, batch, ubatch int) float64 {
	return s.need(ctx, batch, s.Chunk(ubatch, ctx*s.resident(batch))).Total
}

// need is the one account of what a setup needs: what does not depend on
// the context (fixed), and the KV cache of the sequences it holds.
func (s *Setup) need(ctx, batch, ubatch int) Memory {
	ubatch = s.passUBatch(ctx, batch, ubatch)
	mem := s.fixed(batch, ubatch)
	mem.KV = s.kvHeld(ctx, batch, ubatch)
	mem.KVRows, mem.KVTokens, mem.Pool = s.kvRows(batch), s.poolContext(ctx), s.Inputs.PoolSeqs > 0
	mem.Reserve = mem.reserveFor(mem.KV)
	mem.Total = mem.totalWith(mem.KV)
	return mem
}

// kvHeld is the KV cache the sequences of a batch hold at ctx tokens: an
// engine that allocates its pool at load (Inputs.PoolSeqs) holds all its
// rows at the length it was built for, whatever the batch and context.
func (s *Setup) kvHeld(ctx, batch, ubatch int) float64 {
	return float64(s.kvRows(batch)) * s.Model.KVCacheBytes(s.poolContext(ctx), ubatch)
}

// kvRows is how many sequences' caches are allocated: those held
// (resident), or every row of an engine's pool.
func (s *Setup) kvRows(batch int) int { return max(s.resident(batch), s.Inputs.PoolSeqs) }

// poolContext is the tokens each row of the cache is allocated for at a
// context of ctx: ctx, or an engine pool's capacity: the one it was
// built with (PoolBuilt), else one built for the workload, the
// builder's default or more (PoolCapacity). [E10][E11] in
// profiles/runtimes/tensorrt-edge-llm.toml.
func (s *Setup) poolContext(ctx int) int {
	in := &s.Inputs
	switch {
	case in.PoolSeqs == 0:
		return ctx
	case in.PoolBuilt > 0:
		return in.PoolBuilt
	}
	return max(ctx, in.PoolCapacity)
}

// PoolRow is the tokens each row of an engine's pool holds for a server
// sent requests of up to longest tokens, prompt and output: the capacity
// it was built with (PoolBuilt), else one built for the workload, the
// builder's default raised to hold the longest request, as poolContext
// holds a prediction's context. 0 without a pool.
func (s *Setup) PoolRow(longest int) int {
	in := &s.Inputs
	switch {
	case in.PoolSeqs == 0:
		return 0
	case in.PoolBuilt > 0:
		return in.PoolBuilt
	}
	return max(in.PoolCapacity, longest)
}

// BeyondBuild is a context longer than the engine was built for
// (Inputs.PoolBuilt): the runtime cuts the reply at it. nil otherwise.
func (s *Setup) BeyondBuild(ctx int) error {
	in := &s.Inputs
	if in.PoolSeqs == 0 || in.PoolBuilt == 0 || ctx <= in.PoolBuilt {
		return nil
	}
	flag := in.PoolFlag
	return &FieldError{"MaxContext", fmt.Sprintf("%d: a context of %d tokens a sequence (prompt and reply) exceeds the %d the engine was built for (%s %d), and %s cuts the reply there; build the engine with %s %d and price that build, or shorten the prompt or reply",
		in.PoolBuilt, ctx, in.PoolBuilt, flag, in.PoolBuilt, s.Runtime.Name, flag, ctx)}
}

// totalWith is the total of the fixed memory m (Setup.fixed) with kv
// bytes of KV cache and the free memory left beside it: a planner
// computes the fixed part once per batch.
func (m *Memory) totalWith(kv float64) float64 {
	return m.Weights + kv + m.reserveFor(kv) + m.Activations + m.Overhead
}

// reserveFor is the free memory the runtime leaves beside kv bytes of
// cache (Memory.Reserve).
func (m *Memory) reserveFor(kv float64) float64 {
	if m.cacheShare <= 0 || m.cacheShare >= 1 {
		return 0
	}
	return kv * (1/m.cacheShare - 1)
}

// fixed is the memory whatever the context: the weights resident on the
// device, the peak activations of a full pass, the runtime's overhead.
func (s *Setup) fixed(batch, ubatch int) Memory {
	m := s.Model
	seqs := s.resident(batch)
	tokens, logits := passTokens(seqs, ubatch), passTokens(seqs, ubatch)
	if in := &s.Inputs; in.PoolSeqs > 0 {
		// The engine's scratch memory is sized at load for its prefill
		// profile's largest pass: every row's longest prompt.
		seqs = max(seqs, in.PoolSeqs)
		tokens = max(tokens, in.PoolSeqs*in.PoolInput)
		logits = max(logits, tokens)
	}
	if s.Inputs.LastLogits {
		logits = seqs
	}
	return Memory{
		Weights:     m.ResidentWeightBytes(s.Device.Unified),
		Activations: m.ActivationPeakBytesLogits(tokens, logits),
		Overhead:    s.Inputs.Overhead,
		cacheShare:  s.Inputs.CacheShare,
	}
}

// passUBatch is the micro-batch a pass over sequences of ctx tokens
// holds: llama.cpp caps n_ubatch at n_batch and n_batch at n_ctx (the
// cache of the sequences held), so a pass never holds more tokens than
// the cache does; the activations and a sliding layer's window cache
// follow it (--ubatch 64k on a 110-token context is 110 tokens' worth).
func (s *Setup) passUBatch(ctx, batch, ubatch int) int {
	return max(1, min(ubatch, ctx*s.resident(batch)))
}

// maxContext is the longest context per sequence whose memory fits in
// usable at this batch: 0 when nothing fits, -1 when any context fits.
// Past ubatch tokens of cache the fixed part is the full pass's and the
// KV cache inverts in closed form; below it the pass shrinks with the
// context (passUBatch), and the longest fitting context is bisected.
func (s *Setup) maxContext(usable float64, batch, ubatch int) int {
	f := s.fixed(batch, ubatch)
	m := s.maxContextWith(&f, usable, batch, ubatch)
	r := s.resident(batch)
	if m < 0 || m*r >= ubatch {
		// An engine's pool: the longest capacity it could be built
		// with, its fixed part the full pass's.
		return m
	}
	// A pass longer than the context's own (a whole-prompt runtime's
	// pass of all the tokens, Setup.Chunk): the longest context whose own
	// pass fits, an engine's pool held at max(context, its capacity)
	// (Setup.need).
	below := largest((ubatch+r-1)/r, func(c int) bool { return s.need(c, batch, ubatch).Total <= usable })
	return max(m, below)
}

// maxContextWith is maxContext with the fixed memory f (Setup.fixed) of
// the batch already worked out.
func (s *Setup) maxContextWith(f *Memory, usable float64, batch, ubatch int) int {
	free := usable - (f.Weights + f.Activations + f.Overhead)
	if f.cacheShare > 0 && f.cacheShare < 1 && free > 0 {
		free *= f.cacheShare // the cache's share of what is left (Memory.Reserve)
	}
	return s.Model.MaxContext(free/float64(s.kvRows(batch)), ubatch)
}

// resident is how many sequences hold a KV cache at once: those that run
// together (Together: the batch under continuous batching, a static
// batch's rows, one when requests queue); the others wait, holding none.
func (s *Setup) resident(batch int) int { return s.Together(batch) }

// passTokens is the number of tokens in a full prefill pass of `batch`
// sequences in passes of ubatch tokens: ⌊ubatch / batch⌋ per sequence, at
// least one.
func passTokens(batch, ubatch int) int { return max(batch*max(1, ubatch/batch), batch) }

// KVBudget is the memory left for the KV cache by a runtime whose passes
// hold up to passTokens tokens: usable memory less the resident weights,
// the activations of such a pass and the runtime's overhead (the one
// memory rule, Setup.Memory, with no cache). Negative when even those do
// not fit.
func (s *Setup) KVBudget(passTokens int) float64 {
	f := s.fixed(1, max(passTokens, 1))
	return s.Usable() - f.totalWith(0)
}
