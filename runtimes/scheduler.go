package runtimes

import (
	"fmt"
	"strings"

	"github.com/roofline/roofline/hardware"
)

// Policy is how a runtime's server shares the engine between requests.
type Policy string

// The policies.
const (
	// Continuous batching: every step decodes one token of each running
	// request and fills the rest of its token budget with prompt chunks
	// (vLLM, SGLang, TensorRT-LLM in-flight batching, llama.cpp's server
	// slots).
	Continuous Policy = "continuous"
	// FIFO: one request at a time, the others wait in arrival order
	// (RKLLM, gpt-fast).
	FIFO Policy = "fifo"
	// Static batching: an idle server takes up to MaxSeqs queued
	// requests as one batch, pads their prompts to the longest and
	// prefills them together, decodes every row until the longest output
	// ends (a finished sequence keeps its row), then takes the next
	// (TensorRT Edge-LLM's llm_inference).
	Static Policy = "static"
)

// OnFull is what a scheduler does when the KV cache has no room for the
// tokens of a step.
type OnFull string

// The rules.
const (
	// Recompute preempts the most recently admitted request, frees its
	// blocks and puts it back at the head of the queue, to be prefilled
	// again with what it generated (vLLM v1).
	Recompute OnFull = "recompute"
	// Reserve admits a request only when the blocks of its whole prompt
	// and output are free, so nothing is ever preempted (TensorRT-LLM's
	// GUARANTEED_NO_EVICT).
	Reserve OnFull = "reserve"
	// Fail ends the request with an error (llama.cpp's server: "failed to
	// find free space in the KV cache").
	Fail OnFull = "fail"
)

// Scheduler is a runtime's server as serving simulations price it: the
// knobs of its batching with their defaults, each overridable per run.
type Scheduler struct {
	Policy Policy
	// MaxSeqs is the most requests running at once: vLLM max_num_seqs,
	// llama.cpp --parallel slots, TensorRT-LLM max_batch_size, a static
	// batch's rows (TensorRT Edge-LLM maxBatchSize); 1 for FIFO.
	MaxSeqs int
	// MaxTokens is the most tokens one step processes: vLLM
	// max_num_batched_tokens, llama.cpp -b, TensorRT-LLM max_num_tokens;
	// 0 for the prefill chunk a prediction uses.
	MaxTokens int
	// PassTokens splits a step into forward passes of at most this many
	// tokens (llama.cpp -ub); 0: a step is one pass.
	PassTokens int
	// Chunked is true when a prompt longer than the room left in a step is
	// split over steps (chunked prefill); false when it waits until it fits
	// whole.
	Chunked bool
	// BlockSize is the tokens of one KV-cache block (vLLM 16, TensorRT-LLM
	// 32); 1 for a cache of cells (llama.cpp).
	BlockSize int
	OnFull    OnFull
	// PrefixCaching is true when a prompt's cached prefix (a shared system
	// prompt) is reused rather than prefilled again.
	PrefixCaching bool
	// DividedContext is true when each of MaxSeqs slots holds 1/MaxSeqs of
	// the context (llama.cpp without a unified KV cache); false when every
	// request may use the whole cache.
	DividedContext bool
	// Async is true when the server schedules a step while the one before
	// it runs (vLLM's async scheduling): a request that reaches it while a
	// step runs joins the step after next, whose scheduling starts when
	// the running one ends; an idle server takes it at once.
	Async bool
	// FreesWindow is true when a sliding-window layer's cache keeps only
	// the blocks its window reaches and frees the blocks that fall out of
	// it, in a pool shared with the full-attention layers' blocks (vLLM's
	// hybrid KV cache manager); false when every layer holds a block for
	// every token of a request.
	FreesWindow bool
	// Large replaces MaxSeqs and MaxTokens on devices with at least
	// Large.Memory bytes of memory (vLLM's larger defaults on H100-class
	// GPUs); nil when the runtime has none.
	Large *LargeDevice
	// Stated is false for a runtime whose profile has no [scheduler]: the
	// scheduler is then DefaultScheduler's guess, and serving results say so.
	Stated bool
}

// LargeDevice is a scheduler's defaults on devices with much memory.
type LargeDevice struct {
	Memory    float64 // bytes of device memory from which they apply
	Except    []string
	MaxSeqs   int
	MaxTokens int
}

// For is the scheduler on device d: its large-device defaults where they
// apply.
func (s Scheduler) For(d *hardware.Device) Scheduler {
	if l := s.Large; l != nil && d != nil && d.Memory >= l.Memory {
		for _, e := range l.Except {
			if strings.Contains(strings.ToLower(d.Name), strings.ToLower(e)) {
				return s
			}
		}
		s.MaxSeqs, s.MaxTokens = l.MaxSeqs, l.MaxTokens
	}
	return s
}

// SchedulerFor is the runtime's scheduler, or, where its profile states
// none, the guess DefaultScheduler makes from whether it batches.
func (r *Runtime) SchedulerFor(d *hardware.Device) Scheduler {
	if r.Scheduler.Stated {
		return r.Scheduler.For(d)
	}
	return DefaultScheduler(r.ContinuousBatching)
}

// DefaultScheduler is the scheduler assumed for a runtime whose profile
// states none: vLLM's defaults on smaller GPUs if it batches, FIFO if not.
func DefaultScheduler(batching bool) Scheduler {
	if !batching {
		return Scheduler{Policy: FIFO, MaxSeqs: 1, BlockSize: 1, OnFull: Fail}
	}
	return Scheduler{Policy: Continuous, MaxSeqs: 256, MaxTokens: 2048, Chunked: true, BlockSize: 16, OnFull: Recompute}
}

// MaxSchedulerSeqs and MaxSchedulerTokens bound what a scheduler may
// state: far above every runtime's default (TensorRT-LLM's 2048 requests
// and vLLM's 16384 tokens).
const (
	MaxSchedulerSeqs   = 1 << 16
	MaxSchedulerTokens = 1 << 22
	MaxBlockSize       = 1 << 12
)

// Validate checks the scheduler's values: a *SchedulerError names the
// knob.
func (s Scheduler) Validate() error {
	switch {
	case s.Policy != Continuous && s.Policy != FIFO && s.Policy != Static:
		return &SchedulerError{"policy", fmt.Sprintf("must be %q, %q or %q, got %q", Continuous, FIFO, Static, s.Policy)}
	case s.MaxSeqs < 1 || s.MaxSeqs > MaxSchedulerSeqs:
		return &SchedulerError{"max_seqs", fmt.Sprintf("must be 1 … %d requests, got %d", MaxSchedulerSeqs, s.MaxSeqs)}
	case s.Policy == FIFO && s.MaxSeqs != 1:
		return &SchedulerError{"max_seqs", fmt.Sprintf("a FIFO server runs one request at a time, got %d", s.MaxSeqs)}
	case s.Policy == Static && s.Chunked:
		return &SchedulerError{"chunked_prefill", "a static batch prefills its padded prompts whole, in one pass: chunked prefill must be false"}
	case s.Policy == Static && s.PrefixCaching:
		return &SchedulerError{"prefix_caching", "a static batch is simulated without prefix caching: it must be false"}
	case s.MaxTokens < 0 || s.MaxTokens > MaxSchedulerTokens:
		return &SchedulerError{"max_tokens", fmt.Sprintf("must be 1 … %d tokens (0: the prediction's prefill chunk), got %d", MaxSchedulerTokens, s.MaxTokens)}
	case s.Policy == Continuous && s.MaxTokens > 0 && s.MaxTokens < s.MaxSeqs:
		return &SchedulerError{"max_tokens", fmt.Sprintf("a step of %d tokens cannot decode %d requests (vLLM refuses max_num_batched_tokens < max_num_seqs)", s.MaxTokens, s.MaxSeqs)}
	case s.PassTokens < 0 || s.PassTokens > MaxSchedulerTokens:
		return &SchedulerError{"pass_tokens", fmt.Sprintf("must be 0 … %d tokens, got %d", MaxSchedulerTokens, s.PassTokens)}
	case s.BlockSize < 1 || s.BlockSize > MaxBlockSize:
		return &SchedulerError{"block_size", fmt.Sprintf("must be 1 … %d tokens, got %d", MaxBlockSize, s.BlockSize)}
	case s.OnFull != Recompute && s.OnFull != Reserve && s.OnFull != Fail:
		return &SchedulerError{"on_kv_full", fmt.Sprintf("must be %q, %q or %q, got %q", Recompute, Reserve, Fail, s.OnFull)}
	}
	return nil
}

// SchedulerError is a scheduler knob out of range; Knob names it as the
// profile's key, which commands map to their flags.
type SchedulerError struct {
	Knob, Msg string
}

func (e *SchedulerError) Error() string { return e.Knob + " " + e.Msg }
