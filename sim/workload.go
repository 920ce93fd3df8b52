package sim

import (
	"fmt"

	"github.com/roofline/roofline/limits"
)

// Workload is what one prediction asks of the device.
type Workload struct {
	Prompt int // P: new prompt tokens per sequence, ≥ 1
	Output int // G: tokens generated per sequence, the first by the prefill, ≥ 1
	Batch  int // B: concurrent sequences, ≥ 1
	Depth  int // D: tokens already cached per sequence (a prefix or earlier turns), ≥ 0
	// U: tokens per prefill pass across the batch (llama.cpp n_ubatch,
	// vLLM max_num_batched_tokens, TensorRT-LLM max_num_tokens); 0 for
	// the runtime's default on the device (Setup.Chunk).
	UBatch int
}

// DefaultWorkload is the workload of `roofline predict` without flags:
// the prefill in the runtime's own passes.
var DefaultWorkload = Workload{Prompt: 512, Output: 128, Batch: 1, Depth: 0, UBatch: 0}

// MaxTokens bounds every token count and batch of a workload.
const MaxTokens = limits.Tokens

// Context is the number of tokens per sequence at the end of generation.
func (w Workload) Context() int { return w.Depth + w.Prompt + w.Output }

// MidContext is the context of the workload's middle decode step: what a
// decode-step figure of the whole generation (speculative decoding, a
// decode operating point) is priced at.
func (w Workload) MidContext() int { return w.Depth + w.Prompt + max(w.Output/2, 1) }

// LastStepContext is the context the last decode step attends (the
// first output token comes from the prefill; with one output token, the
// step that would follow it).
func (w Workload) LastStepContext() int { return w.Depth + w.Prompt + max(w.Output-1, 1) }

// PassTokens is the number of tokens in the prompt's largest prefill
// pass: a full micro-batch, or the whole prompt of every sequence when it
// is shorter.
func (w Workload) PassTokens() int {
	return min(passTokens(w.Batch, w.UBatch), w.Batch*max(w.Prompt, 1))
}

// workloadFields are the fields Validate checks, in the order of
// Workload.values: a table built once, not per call (a plan validates
// millions of workloads).
var workloadFields = [...]struct {
	name string
	min  int
	unit string
}{{"Prompt", 1, "token"}, {"Output", 1, "token"}, {"Batch", 1, "sequence"}, {"Depth", 0, "token"}, {"UBatch", 0, "token"}}

func (w Workload) values() [len(workloadFields)]int {
	return [...]int{w.Prompt, w.Output, w.Batch, w.Depth, w.UBatch}
}

// Validate rejects impossible workloads with a *FieldError naming the
// field (Prompt, Output, Batch, Depth, UBatch; UBatch 0 is the runtime's
// default).
func (w Workload) Validate() error {
	for i, v := range w.values() {
		f := &workloadFields[i]
		switch {
		case v < f.min && f.min == 0:
			return &FieldError{f.name, fmt.Sprintf("must not be negative, got %d", v)}
		case v < f.min:
			return &FieldError{f.name, fmt.Sprintf("must be at least %d %s, got %d", f.min, f.unit, v)}
		case v > MaxTokens:
			return &FieldError{f.name, fmt.Sprintf("must be at most %d, got %d", MaxTokens, v)}
		}
	}
	return nil
}
