package model

import (
	"fmt"
	"math"
	"sort"
)

// ActivationBytesPerValue is the size of one activation value moved
// between kernels: 16-bit, as the fp16/bf16 compute paths keep them.
const ActivationBytesPerValue = 2

// ScratchBytesPerValue is the size of a value in the runtime's scratch
// buffers (logits and FFN intermediates are f32 in llama.cpp).
const ScratchBytesPerValue = 4

// TensorCost is one tensor with its storage type and size under a format.
type TensorCost struct {
	Tensor
	Type  Storage
	Bytes float64
}

// Cost is a model under a weight format and a KV format: every byte and FLOP
// figure roofline uses comes from its methods, so predictions, measured-run
// MBU, the planner and the plots share one accounting.
type Cost struct {
	Spec    *Spec
	Weights WeightFormat
	KV      KVFormat
	Tensors []TensorCost

	ParamsTotal     float64 // all weights
	ParamsActive    float64 // weights used per token: total minus the routed experts a token skips
	ParamsEmbedding float64 // the input embedding table
	WeightBytes     float64 // bytes of all weights under the format
	// RecipeBytes is WeightBytes as the recipe gives it, before ScaledTo.
	RecipeBytes float64

	sharedBytes  float64 // read once per pass: everything but the embedding, the head and routed experts
	headBytes    float64 // the output head (the tied embedding table when tied)
	embdRowBytes float64 // one row of the input embedding
	expertBytes  float64 // one routed expert, summed over all MoE layers

	linearFLOPs float64 // per token, matrix products except the head
	headFLOPs   float64 // per token whose logits are computed
	actBytes    float64 // activation traffic per token
	ffnWidth    float64 // widest FFN intermediate per token

	windows     []int    // distinct sliding windows, ascending
	kv          windowed // KV bytes per token by window
	attnPrefill windowed // attention FLOPs per (query, key) pair in prefill
	attnDecode  windowed // the same in decode (MLA uses the absorbed form)
}

// Build prices model s under weight format w and KV format kv.
func Build(s *Spec, w WeightFormat, kv KVFormat) (*Cost, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("model %s: %w", s.Name, err)
	}
	return BuildFrom(s, s.Tensors(), w, kv)
}

// BuildFrom is Build with the tensor inventory of s already listed, for
// callers that price one model under many formats. s must be valid.
func BuildFrom(s *Spec, inventory []Tensor, w WeightFormat, kv KVFormat) (*Cost, error) {
	c := &Cost{Spec: s, Weights: w, KV: kv}
	var headPerRow float64
	for _, t := range inventory {
		st := w.TypeOf(s, t)
		b := st.RowBytes(t.Cols) * float64(t.Rows) * float64(t.Experts)
		c.Tensors = append(c.Tensors, TensorCost{Tensor: t, Type: st, Bytes: b})
		n := float64(t.Elements())
		c.ParamsTotal += n
		c.WeightBytes += b
		share := 1.0
		if t.Routed {
			share = float64(s.MoE.Active) / float64(s.MoE.Experts)
		}
		c.ParamsActive += n * share
		switch {
		case t.Role == RoleTokenEmbd:
			c.ParamsEmbedding = n
			c.embdRowBytes = st.RowBytes(t.Cols)
			if s.TiedEmbeddings {
				c.headBytes = b
				headPerRow = float64(t.Cols)
			}
		case t.Role == RoleOutput:
			c.headBytes = b
			headPerRow = float64(t.Cols)
		case t.Routed:
			c.expertBytes += b / float64(s.MoE.Experts)
		default:
			c.sharedBytes += b
		}
		if t.Matmul && t.Role != RoleOutput {
			c.linearFLOPs += 2 * n * share
			perToken := float64(t.Cols + t.Rows)
			if t.Routed {
				perToken *= float64(s.MoE.Active)
			}
			c.actBytes += ActivationBytesPerValue * perToken
		}
	}
	c.RecipeBytes = c.WeightBytes
	c.headFLOPs = 2 * headPerRow * float64(s.Vocab)
	c.actBytes += ActivationBytesPerValue * float64(s.Hidden+s.Vocab)

	c.ffnWidth = 0
	if s.MoE == nil || s.MoE.DenseLayers > 0 {
		c.ffnWidth = float64(s.FFN)
	}
	if m := s.MoE; m != nil {
		c.ffnWidth = math.Max(c.ffnWidth, float64(m.Active*m.FFN+m.Shared*m.SharedFFN))
	}

	perLayerKV, err := kvPerTokenLayer(s, kv)
	if err != nil {
		return nil, err
	}
	prefillPair, decodePair := attentionPairFLOPs(s)
	for l := 0; l < s.Layers; l++ {
		win := s.Window(l)
		c.kv.add(win, perLayerKV)
		c.attnPrefill.add(win, prefillPair)
		c.attnDecode.add(win, decodePair)
	}
	for _, t := range c.kv.terms {
		if t.window > 0 {
			c.windows = append(c.windows, t.window)
		}
	}
	sort.Ints(c.windows)
	// A model file's own format prices the inventory by the file's types;
	// tensors the inventory lacks (vision towers, MTP heads) are spread
	// over the rest so the total is the file's exact size.
	if w.Family == "file" && s.FileBytes > 0 && c.WeightBytes != s.FileBytes {
		c = c.ScaledTo(s.FileBytes)
	}
	return c, nil
}

// kvPerTokenLayer is the KV cache one token adds to one layer: K and V for
// every KV head (GQA/MQA), or the compressed latent plus the shared rope key
// under MLA.
func kvPerTokenLayer(s *Spec, kv KVFormat) (float64, error) {
	st := kv.Storage
	if a := s.MLA; a != nil {
		w := a.KVLoraRank + a.QKRopeDim
		if !st.Fits(w) {
			return 0, fmt.Errorf("KV format %s needs the cached latent width (%d) to be a multiple of %d", kv.Name, w, st.BlockSize)
		}
		return st.RowBytes(w), nil
	}
	if !st.Fits(s.HeadDim) {
		return 0, fmt.Errorf("KV format %s needs head_dim (%d) to be a multiple of %d", kv.Name, s.HeadDim, st.BlockSize)
	}
	return 2 * st.RowBytes(s.KVHeads*s.HeadDim), nil
}

// attentionPairFLOPs is the cost of one query attending one key in one
// layer: scores (q·k) plus the weighted sum of values, 2 FLOP per
// multiply-add, over the query heads (GQA saves KV memory, not FLOPs).
// MLA prefill runs the expanded heads (qk = nope + rope, v); MLA decode runs
// the absorbed form over the cached latent (DeepSeek-V3 attn_impl "absorb").
func attentionPairFLOPs(s *Spec) (prefill, decode float64) {
	nq := float64(s.Heads)
	if a := s.MLA; a != nil {
		prefill = 2 * nq * float64(a.QKNopeDim+a.QKRopeDim+a.VHeadDim)
		decode = 2*nq*float64(a.KVLoraRank+a.QKRopeDim) + 2*nq*float64(a.KVLoraRank)
		return prefill, decode
	}
	p := 4 * nq * float64(s.HeadDim)
	return p, p
}

// DistinctExperts is the expected number of different routed experts a
// layer reads when tokens are routed independently and uniformly:
// N·(1 − ((N−k)/N)^tokens). It is 0 for dense models.
func (c *Cost) DistinctExperts(tokens int) float64 {
	m := c.Spec.MoE
	if m == nil || tokens <= 0 {
		return 0
	}
	N, k := float64(m.Experts), float64(m.Active)
	return N * (1 - math.Pow((N-k)/N, float64(tokens)))
}

// StreamedBytes is the weight traffic of one forward pass over `tokens`
// tokens (a decode step of a batch, or a prefill chunk): every shared tensor
// once, the input embedding one row per token, the routed experts those
// tokens reach, and the output head when withHead (a pass that computes
// logits).
func (c *Cost) StreamedBytes(tokens int, withHead bool) float64 {
	if tokens <= 0 {
		return 0
	}
	b := c.sharedBytes + c.expertBytes*c.DistinctExperts(tokens)
	rows := math.Min(float64(tokens), float64(c.Spec.Vocab)) * c.embdRowBytes
	switch {
	case withHead:
		b += c.headBytes
		if !c.Spec.TiedEmbeddings {
			b += rows
		}
	default:
		b += rows
	}
	return b
}

// StreamedBytesPerToken is the weight traffic of one decode step at batch 1.
func (c *Cost) StreamedBytesPerToken() float64 { return c.StreamedBytes(1, true) }

// KVBytesPerToken is the KV cache one token adds across all layers, while
// the context is within every sliding window.
func (c *Cost) KVBytesPerToken() float64 { return c.kv.slope() }

// KVBytes is the KV cache of one sequence holding ctx tokens; sliding
// layers hold at most their window.
func (c *Cost) KVBytes(ctx int) float64 { return c.kv.at(ctx) }

// KVBytesSum is Σ KVBytes(s) for s = from … to, in closed form.
func (c *Cost) KVBytesSum(from, to int) float64 { return c.kv.sum(from, to) }

// KVPerLayerToken is the KV one token adds to one layer (all layers are
// alike in the supported architectures).
func (c *Cost) KVPerLayerToken() float64 {
	if c.Spec.Layers == 0 {
		return 0
	}
	return c.kv.slope() / float64(c.Spec.Layers)
}

// LinearFLOPsPerToken is 2 × the active matrix weights a token passes
// through, without the output head.
func (c *Cost) LinearFLOPsPerToken() float64 { return c.linearFLOPs }

// HeadFLOPs is the cost of the logits of one token, 2·V·H.
func (c *Cost) HeadFLOPs() float64 { return c.headFLOPs }

// DecodeFLOPs is the work of generating one token whose query attends ctx
// keys (the tokens already cached plus itself).
func (c *Cost) DecodeFLOPs(ctx int) float64 {
	return c.linearFLOPs + c.headFLOPs + c.attnDecode.at(ctx)
}

// DecodeFLOPsSum is Σ DecodeFLOPs(s) for s = from … to, in closed form.
func (c *Cost) DecodeFLOPsSum(from, to int) float64 {
	if to < from {
		return 0
	}
	return float64(to-from+1)*(c.linearFLOPs+c.headFLOPs) + c.attnDecode.sum(from, to)
}

// PrefillFLOPs is the work of processing n new tokens of one sequence on
// top of past cached tokens, with causal attention (token i attends past+i
// keys, so the score and value products cover half the square) and logits
// for `logits` positions (1 when only the last position is sampled).
func (c *Cost) PrefillFLOPs(past, n, logits int) float64 {
	if n <= 0 {
		return 0
	}
	return float64(n)*c.linearFLOPs + float64(logits)*c.headFLOPs + c.attnPrefill.sum(past+1, past+n)
}

// ActivationBytes is the activation traffic of a pass over `tokens` tokens:
// each matrix product reads its input and writes its output once.
func (c *Cost) ActivationBytes(tokens int) float64 { return float64(tokens) * c.actBytes }

// ActivationPeakBytes is the scratch memory a pass over `tokens` tokens
// needs at its peak: f32 logits for every token plus the widest FFN
// intermediate and the hidden state. For Llama-3.1-8B at 512 tokens this is
// 286.5 MiB, against the 296 MiB compute buffer llama.cpp logs.
func (c *Cost) ActivationPeakBytes(tokens int) float64 {
	per := float64(c.Spec.Vocab+c.Spec.Hidden) + c.ffnWidth
	return ScratchBytesPerValue * float64(tokens) * per
}

// BitsPerWeight is the file-level average: weight bytes × 8 / parameters.
func (c *Cost) BitsPerWeight() float64 { return 8 * c.WeightBytes / c.ParamsTotal }

// TypeHistogram counts parameters and bytes per storage type, largest
// share first.
func (c *Cost) TypeHistogram() []TypeShare {
	idx := map[string]int{}
	var out []TypeShare
	for _, t := range c.Tensors {
		i, ok := idx[t.Type.Name]
		if !ok {
			i = len(out)
			idx[t.Type.Name] = i
			out = append(out, TypeShare{Type: t.Type.Name})
		}
		out[i].Tensors++
		out[i].Params += float64(t.Elements())
		out[i].Bytes += t.Bytes
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Bytes > out[b].Bytes })
	return out
}

// TypeShare is one row of a storage-type histogram.
type TypeShare struct {
	Type    string
	Tensors int
	Params  float64
	Bytes   float64
}

// windowed is a per-token quantity summed over layers whose reach may be
// capped by a sliding window: f(s) = Σ_w per_w · min(s, w), with w = 0
// meaning no cap.
type windowed struct {
	terms []windowTerm
}

type windowTerm struct {
	window int
	per    float64
}

func (w *windowed) add(window int, per float64) {
	for i := range w.terms {
		if w.terms[i].window == window {
			w.terms[i].per += per
			return
		}
	}
	w.terms = append(w.terms, windowTerm{window, per})
}

func (w windowed) slope() float64 {
	var s float64
	for _, t := range w.terms {
		s += t.per
	}
	return s
}

func (w windowed) at(s int) float64 {
	if s <= 0 {
		return 0
	}
	var v float64
	for _, t := range w.terms {
		n := s
		if t.window > 0 && n > t.window {
			n = t.window
		}
		v += t.per * float64(n)
	}
	return v
}

// sum is Σ at(s) for s = a … b in closed form.
func (w windowed) sum(a, b int) float64 {
	if a < 1 {
		a = 1
	}
	if b < a {
		return 0
	}
	var v float64
	for _, t := range w.terms {
		v += t.per * sumMin(a, b, t.window)
	}
	return v
}

// sumMin is Σ_{s=a}^{b} min(s, w) for 1 ≤ a ≤ b, w = 0 meaning no cap.
func sumMin(a, b, w int) float64 {
	A, B, W := float64(a), float64(b), float64(w)
	arith := func(x, y float64) float64 { return (x + y) * (y - x + 1) / 2 }
	switch {
	case w == 0 || b <= w:
		return arith(A, B)
	case a > w:
		return W * (B - A + 1)
	}
	return arith(A, W) + W*(B-W)
}

// Windows lists the distinct sliding windows of the model, ascending; the
// byte and FLOP functions of a context are linear between them. The slice
// is shared: do not modify it.
func (c *Cost) Windows() []int { return c.windows }

// MaxContext is the longest context whose KV cache fits in budget bytes for
// one sequence, or -1 when every layer is windowed and any context fits.
func (c *Cost) MaxContext(budget float64) int {
	if budget <= 0 {
		return 0
	}
	return c.kv.inverse(budget)
}

// inverse is the largest s with at(s) ≤ v, or -1 if at(s) stays ≤ v for
// every s (all terms capped).
func (w windowed) inverse(v float64) int {
	ws := []int{}
	for _, t := range w.terms {
		if t.window > 0 {
			ws = append(ws, t.window)
		}
	}
	sort.Ints(ws)
	lo := 0
	for _, b := range append(ws, 0) {
		// On [lo, b] (b = 0: unbounded) at(s) = base + slope·s.
		slope, base := 0.0, 0.0
		for _, t := range w.terms {
			if t.window > 0 && t.window <= lo {
				base += t.per * float64(t.window)
			} else {
				slope += t.per
			}
		}
		if slope == 0 {
			return -1
		}
		s := int(math.Floor((v - base) / slope))
		if b == 0 || s < b {
			if s < lo {
				s = lo
			}
			// Guard against rounding at the edge.
			for s > 0 && w.at(s) > v {
				s--
			}
			return s
		}
		lo = b
	}
	return -1
}

// ScaledTo returns a copy whose weight bytes are scaled to total, for a
// file whose recipe differs from the format's (an importance matrix, an
// older llama.cpp, a mixed upload). Every tensor keeps its share; the KV
// cache and FLOPs are unchanged.
func (c *Cost) ScaledTo(total float64) *Cost {
	if total <= 0 || c.WeightBytes == 0 {
		return c
	}
	k := total / c.WeightBytes
	o := *c
	o.Tensors = make([]TensorCost, len(c.Tensors))
	for i, t := range c.Tensors {
		t.Bytes *= k
		o.Tensors[i] = t
	}
	o.WeightBytes = total
	o.sharedBytes *= k
	o.headBytes *= k
	o.embdRowBytes *= k
	o.expertBytes *= k
	return &o
}
