package runtimes

import (
	"fmt"
	"math"
)

// Graphs is how a runtime launches a step's kernels, as its profile
// states it ([graphs]): vLLM V1 replays a CUDA graph captured for each
// step size up to a largest one (cudagraph_capture_sizes, up to
// max_cudagraph_capture_size), a whole graph for a decode-only step and
// a piecewise one, attention launched between the pieces, for a step
// that holds prompt tokens; a step of more tokens than the largest graph
// runs without one, every kernel launched from the host. The zero Graphs
// is none stated: every step is priced alike, as the class was fitted.
type Graphs struct {
	// Capture is the most tokens a step replays a graph for; PerSeq, when
	// positive, caps it at PerSeq × max_num_seqs (vLLM: min(2 ×
	// max_num_seqs, 512)).
	Capture, PerSeq int
	// Piecewise is the time per layer a step holding prompt tokens adds
	// within Capture (attention launched between the graph's pieces);
	// Eager the time per layer any step beyond Capture adds (every kernel
	// launched from the host), s.
	Piecewise, Eager float64
}

// On says whether the profile states graphs.
func (g Graphs) On() bool { return g.Capture > 0 }

// CaptureFor is the largest step, in tokens, a graph is replayed for
// under a scheduler of maxSeqs sequences.
func (g Graphs) CaptureFor(maxSeqs int) int {
	if g.PerSeq > 0 && maxSeqs > 0 {
		return min(g.Capture, g.PerSeq*maxSeqs)
	}
	return g.Capture
}

// PerLayer is the time per layer a step of `tokens` tokens adds beyond
// a whole graph's replay, with graphs captured up to capture tokens;
// prompt says the step holds prompt tokens.
func (g Graphs) PerLayer(tokens float64, capture int, prompt bool) float64 {
	switch {
	case !g.On():
		return 0
	case tokens > float64(capture):
		return g.Eager
	case prompt:
		return g.Piecewise
	}
	return 0
}

// maxGraphLayer bounds a time per layer: 10 ms a layer is far beyond any
// host's launches.
const maxGraphLayer = 0.01

// Validate checks the figures: a positive capture, times of 0 … 10 ms
// a layer, piecewise no costlier than eager.
func (g Graphs) Validate() error {
	if g == (Graphs{}) {
		return nil
	}
	if g.Capture <= 0 || g.Capture > 1<<20 || g.PerSeq < 0 {
		return fmt.Errorf("graphs capture: want 1 … %d tokens (and seqs ≥ 0), got %d (seqs %d)", 1<<20, g.Capture, g.PerSeq)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"piecewise_layer", g.Piecewise}, {"eager_layer", g.Eager}} {
		if !(c.v >= 0 && c.v <= maxGraphLayer) || math.IsNaN(c.v) {
			return fmt.Errorf("graphs %s: want a time of 0 … %g s a layer, got %g", c.name, maxGraphLayer, c.v)
		}
	}
	if g.Piecewise > g.Eager {
		return fmt.Errorf("graphs piecewise_layer (%g s) exceeds eager_layer (%g s): a piecewise graph launches fewer kernels than none", g.Piecewise, g.Eager)
	}
	return nil
}
