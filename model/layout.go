package model

import "fmt"

// Layout is how an inference runtime lays a model out, where runtimes
// differ: whether it honours the model's sliding windows and how many
// tokens its window cache holds, how it stores the MLA cache, and whether
// it stores the output head and the input embedding table in formats of
// their own. The zero Layout is the model as published: every window
// honoured with a cache of exactly the window, the MLA latent cache, head
// and embeddings as the weight format stores them.
type Layout struct {
	// IgnoreWindows prices every layer as full attention: the runtime
	// does not implement this model's sliding window (llama.cpp and
	// Mistral-7B v0.1).
	IgnoreWindows bool
	// WindowCache says how many tokens a sliding layer's cache holds
	// beyond its window: nothing, or one micro-batch (llama.cpp's SWA
	// cache keeps window + n_ubatch cells).
	WindowCache WindowCache
	// WindowOffset is added to the window before the micro-batch: vLLM
	// holds the last window − 1 computed tokens plus the scheduled ones.
	WindowOffset int
	// WindowPad rounds the cache of a sliding layer up to a multiple of
	// this many tokens (0 or 1: no rounding): llama.cpp's 256 cells,
	// vLLM's 16-token blocks.
	WindowPad int
	// WindowExtraBlocks adds whole pads after rounding: vLLM reserves one
	// block more because a window need not start at a block boundary.
	WindowExtraBlocks int
	// MLA is the cache layout of multi-head latent attention.
	MLA MLACache
	// Head, when set (non-empty Name), stores the output head in this
	// type whatever the weight format says (RKLLM int8).
	Head Storage
	// Embedding, when set, stores the input embedding table in this type.
	Embedding Storage
	// UntieEmbedding keeps a separate embedding table for a model whose
	// head reuses it (RKLLM): the file holds both.
	UntieEmbedding bool
	// HostEmbedding keeps an untied input embedding table in host memory
	// (llama.cpp): on a device with its own memory it does not count
	// against that memory.
	HostEmbedding bool
}

// WindowCache is the extra a sliding layer's cache holds beyond its window.
type WindowCache string

// Window cache rules.
const (
	// WindowOnly caches exactly the window.
	WindowOnly WindowCache = ""
	// WindowPlusUBatch caches the window plus one micro-batch of tokens.
	WindowPlusUBatch WindowCache = "window+ubatch"
	// WindowFull caches every token although attention reads only the
	// window: the runtime sizes its cache for the whole context.
	WindowFull WindowCache = "full"
)

// MLACache is how a runtime caches multi-head latent attention.
type MLACache string

// MLA cache layouts.
const (
	// MLALatent caches the compressed latent and the shared rope key:
	// kv_lora_rank + qk_rope_head_dim values per token and layer.
	MLALatent MLACache = ""
	// MLALatentV also caches V at the latent width: 2·kv_lora_rank +
	// qk_rope_head_dim values (llama.cpp builds of 2025).
	MLALatentV MLACache = "latent+v"
	// MLAExpanded caches K and V per head like multi-head attention:
	// heads · (qk_nope + qk_rope + v_head_dim) values.
	MLAExpanded MLACache = "expanded"
)

// Validate checks the layout's enumerations.
func (l Layout) Validate() error {
	switch l.WindowCache {
	case WindowOnly, WindowPlusUBatch, WindowFull:
	default:
		return fmt.Errorf("unknown window cache rule %q (want %q, %q or %q)", l.WindowCache, "window", WindowPlusUBatch, WindowFull)
	}
	switch l.MLA {
	case MLALatent, MLALatentV, MLAExpanded:
	default:
		return fmt.Errorf("unknown MLA cache layout %q (want latent, %s or %s)", l.MLA, MLALatentV, MLAExpanded)
	}
	if l.WindowPad < 0 || l.WindowExtraBlocks < 0 {
		return fmt.Errorf("window padding and extra blocks must not be negative, got %d and %d", l.WindowPad, l.WindowExtraBlocks)
	}
	if l.WindowOffset < -1 || l.WindowOffset > 1 {
		return fmt.Errorf("window offset must be -1, 0 or 1, got %d", l.WindowOffset)
	}
	return nil
}

// windowCacheTokens is what a sliding layer of window w holds at its
// fullest, for passes of ubatch tokens; 0 when it holds every token.
// llama.cpp: pad₂₅₆(w + ubatch) (src/llama-kv-cache-iswa.cpp); vLLM:
// (⌈(w − 1 + ubatch)/16⌉ + 1)·16 (SlidingWindowSpec).
func (l Layout) windowCacheTokens(w, ubatch int) int {
	if w <= 0 || l.WindowCache == WindowFull {
		return 0
	}
	n := w
	if l.WindowCache == WindowPlusUBatch {
		n += l.WindowOffset + max(ubatch, 1)
	}
	if p := l.WindowPad; p > 1 {
		n = (n+p-1)/p*p + l.WindowExtraBlocks*p
	}
	return n
}
