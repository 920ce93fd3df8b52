package sim

import (
	"fmt"
	"math"
)

// Workload is what one prediction asks of the device.
type Workload struct {
	Prompt int // P: new prompt tokens per sequence, ≥ 1
	Output int // G: tokens generated per sequence, the first by the prefill, ≥ 1
	Batch  int // B: concurrent sequences, ≥ 1
	Depth  int // D: tokens already cached per sequence (a prefix or earlier turns), ≥ 0
	UBatch int // U: tokens per prefill pass across the batch (llama.cpp n_ubatch), ≥ 1
}

// DefaultWorkload is the workload of `roofline predict` without flags.
var DefaultWorkload = Workload{Prompt: 512, Output: 128, Batch: 1, Depth: 0, UBatch: 512}

// Context is the number of tokens per sequence at the end of generation.
func (w Workload) Context() int { return w.Depth + w.Prompt + w.Output }

// Validate rejects impossible workloads; messages name the CLI flag.
func (w Workload) Validate() error {
	switch {
	case w.Prompt < 1:
		return fmt.Errorf("--prompt must be at least 1 token, got %d", w.Prompt)
	case w.Output < 1:
		return fmt.Errorf("--output must be at least 1 token, got %d", w.Output)
	case w.Batch < 1:
		return fmt.Errorf("--batch must be at least 1 sequence, got %d", w.Batch)
	case w.Depth < 0:
		return fmt.Errorf("--depth must not be negative, got %d", w.Depth)
	case w.UBatch < 1:
		return fmt.Errorf("--ubatch must be at least 1 token, got %d", w.UBatch)
	}
	const limit = 1 << 30
	if w.Prompt > limit || w.Output > limit || w.Batch > limit || w.Depth > limit || w.UBatch > limit {
		return fmt.Errorf("token counts and batch must be below %d", limit)
	}
	return nil
}

// DefaultRuntimeOverhead is the memory a runtime needs beyond weights, KV
// cache and activations (CUDA/Metal context, graph, allocator slack): an
// assumption of 256 MiB, stated in docs/method.md; override it per run.
const DefaultRuntimeOverhead = 256 << 20

// Options adjust a prediction.
type Options struct {
	// Engine names the compute engine; "" is the device's default.
	Engine string
	// BandwidthEfficiency and ComputeEfficiency replace the engine's
	// factors when positive.
	BandwidthEfficiency float64
	ComputeEfficiency   float64
	// RuntimeOverhead is memory reserved by the runtime, bytes.
	RuntimeOverhead float64
	// Cold adds the model load time to the first request.
	Cold bool
	// NoFlashAttention prices unfused attention, which reads each
	// sequence's KV cache once per query head (llama.cpp without -fa).
	NoFlashAttention bool
}

// DefaultOptions uses the engine's factors and DefaultRuntimeOverhead.
var DefaultOptions = Options{RuntimeOverhead: DefaultRuntimeOverhead}

func (o Options) validate() error {
	check := func(flag string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1 {
			return fmt.Errorf("%s must be in (0, 1], got %g", flag, v)
		}
		return nil
	}
	if err := check("--bw-efficiency", o.BandwidthEfficiency); err != nil {
		return err
	}
	if err := check("--compute-efficiency", o.ComputeEfficiency); err != nil {
		return err
	}
	if math.IsNaN(o.RuntimeOverhead) || math.IsInf(o.RuntimeOverhead, 0) || o.RuntimeOverhead < 0 {
		return fmt.Errorf("--overhead must be a non-negative size, got %g", o.RuntimeOverhead)
	}
	return nil
}
