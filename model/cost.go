package model

import (
	"fmt"
	"math"
	"slices"
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
	// Uncertain tensors have a type the format cannot be sure of: it
	// depends on the quantizer's version and options (see FitTo).
	Uncertain bool
}

// Cost is a model under a weight format and a KV format: every byte and FLOP
// figure roofline uses comes from its methods, so predictions, measured-run
// MBU, the planner and the plots share one accounting.
type Cost struct {
	Spec    *Spec
	Weights WeightFormat
	KV      KVFormat
	Layout  Layout
	Tensors []TensorCost

	ParamsTotal     float64 // all weights
	ParamsActive    float64 // weights used per token: total minus the routed experts a token skips
	ParamsEmbedding float64 // the input embedding table
	WeightBytes     float64 // bytes of all weights under the format
	// RecipeBytes is WeightBytes as the recipe gives it, before FitTo.
	RecipeBytes float64
	// UnlistedBytes are tensors of a model file that the inventory does
	// not list (vision towers, multi-token-prediction heads): they take
	// memory but no decode step reads them. Included in WeightBytes.
	UnlistedBytes float64

	sharedBytes  float64 // read once per pass: everything but the embedding, the head and routed experts
	headBytes    float64 // the output head (the tied embedding table when tied)
	headType     Storage // the storage type of the head's weights
	embdRowBytes float64 // one row of the input embedding
	embdBytes    float64 // the whole input embedding table when it is not the head
	expertBytes  float64 // one routed expert, summed over all MoE layers
	tied         bool    // the head reads the embedding table

	denseFLOPs  float64 // per token, matrix products except the head and the routed experts
	routedFLOPs float64 // per token, the routed experts it reaches
	headFLOPs   float64 // per token whose logits are computed
	actBytes    float64 // activation traffic per token
	actRead     float64 // the part of it products read (their inputs)
	ffnWidth    float64 // widest FFN intermediate per token
	noLogits    bool    // a part of the model without the head holds no logits (Cost.Slice)

	// productTypes is denseFLOPs and routedFLOPs by the storage type of
	// the weights (ProductTypes).
	productTypes []TypeFLOPs

	windows     []int    // distinct sliding windows, ascending
	kv          windowed // KV bytes per token by window, as attention reads them
	kvLayers    []WindowLayers
	attnPrefill windowed // attention FLOPs per (query, key) pair in prefill
	attnDecode  windowed // the same in decode (MLA uses the absorbed form)
	scores      windowed // attention scores per (query, key) pair: heads, over all layers

	// tiles is the matrix products by shape, for the bytes a tiled
	// kernel reads again (Matmuls.TileRereadBytes); nil before any.
	tiles *tileShapes

	memo *opsMemo // the operator lists asked for (Operators); nil for an operator's account
}

// Build prices model s under weight format w and KV format kv, laid out as
// the runtime lays it out (the zero Layout: as published).
func Build(s *Spec, w WeightFormat, kv KVFormat, l Layout) (*Cost, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("model %s: %w", s.Name, err)
	}
	return BuildFrom(s, s.Tensors(), w, kv, l)
}

// BuildFrom is Build with the tensor inventory of s already listed, for
// callers that price one model under many formats. s must be valid.
func BuildFrom(s *Spec, inventory []Tensor, w WeightFormat, kv KVFormat, l Layout) (*Cost, error) {
	return build(s, inventory, w, kv, l, true)
}

// BuildSums is BuildFrom without the list of tensors (Cost.Tensors is
// nil): the traffic and FLOP sums every prediction prices through, for a
// planner that holds thousands of costs.
func BuildSums(s *Spec, inventory []Tensor, w WeightFormat, kv KVFormat, l Layout) (*Cost, error) {
	return build(s, inventory, w, kv, l, false)
}

func build(s *Spec, inventory []Tensor, w WeightFormat, kv KVFormat, l Layout, list bool) (*Cost, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	c := &Cost{Spec: s, Weights: w, KV: kv, Layout: l, tied: s.TiedEmbeddings && !l.UntieEmbedding}
	if list {
		c.Tensors = make([]TensorCost, 0, len(inventory)+1)
		c.memo = &opsMemo{}
	}
	var headPerRow float64
	add := func(t Tensor, st Storage) {
		b := st.RowBytes(t.Cols) * float64(t.Rows) * float64(t.Experts)
		tc := TensorCost{Tensor: t, Type: st, Bytes: b, Uncertain: w.uncertain(s, t)}
		if list {
			c.Tensors = append(c.Tensors, tc)
		}
		c.account(&tc)
		c.addWhole(&tc)
		switch {
		case t.Role == RoleTokenEmbd:
			c.ParamsEmbedding = float64(t.Elements())
			if c.tied {
				headPerRow = float64(t.Cols)
			}
		case t.Role == RoleOutput:
			headPerRow = float64(t.Cols)
		}
	}
	for _, t := range inventory {
		st := w.TypeOf(s, t)
		switch {
		case l.Head.Name != "" && (t.Role == RoleOutput || (c.tied && t.Role == RoleTokenEmbd)):
			st = l.Head
		case l.Embedding.Name != "" && t.Role == RoleTokenEmbd:
			st = l.Embedding
		}
		add(t, st)
		if t.Role == RoleTokenEmbd && s.TiedEmbeddings && l.UntieEmbedding {
			// The runtime keeps its own head beside the embedding table.
			head := Tensor{Name: "output.weight", Role: RoleOutput, Layer: -1, Cols: t.Cols, Rows: t.Rows, Experts: 1, Matmul: true}
			hs := w.TypeOf(s, head)
			if l.Head.Name != "" {
				hs = l.Head
			}
			add(head, hs)
		}
	}
	c.RecipeBytes = c.WeightBytes
	c.headFLOPs = 2 * headPerRow * float64(s.Vocab)
	c.headWork()

	c.ffnWidth = 0
	if s.MoE == nil || s.MoE.DenseLayers > 0 {
		c.ffnWidth = float64(s.FFN)
	}
	if m := s.MoE; m != nil {
		c.ffnWidth = math.Max(c.ffnWidth, float64(m.Active*m.FFN+m.Shared*m.SharedFFN))
	}

	perLayerKV, err := kvPerTokenLayer(s, kv, l.MLA)
	if err != nil {
		return nil, err
	}
	prefillPair, decodePair := attentionPairFLOPs(s)
	for i := 0; i < s.Layers; i++ {
		win := s.Window(i)
		if l.IgnoreWindows {
			win = 0
		}
		c.kv.add(win, perLayerKV)
		c.addKVLayer(win)
		c.attnPrefill.add(win, prefillPair)
		c.attnDecode.add(win, decodePair)
		c.scores.add(win, float64(s.Heads))
	}
	for _, t := range c.kv.terms {
		if t.window > 0 {
			c.windows = append(c.windows, t.window)
		}
	}
	sort.Ints(c.windows)
	// A model file's own format prices the inventory by the file's types;
	// tensors the inventory lacks (vision towers, MTP heads) take memory
	// but are not read per token.
	if w.Family == "file" && s.FileBytes > c.WeightBytes {
		c.UnlistedBytes = s.FileBytes - c.WeightBytes
		c.WeightBytes = s.FileBytes
	}
	return c, nil
}

// addWhole adds tensor t to a model's (or a part's) sums: its
// parameters and bytes, and its FLOPs and activation traffic per token
// (work).
func (c *Cost) addWhole(t *TensorCost) {
	n := float64(t.Elements())
	c.ParamsTotal += n
	c.WeightBytes += t.Bytes
	share := 1.0
	if t.Routed {
		share = float64(c.Spec.MoE.Active) / float64(c.Spec.MoE.Experts)
	}
	c.ParamsActive += n * share
	c.work(&t.Tensor)
	if t.Matmul && t.Role != RoleOutput {
		c.addProduct(t.Type, 2*n*share)
	}
}

// TypeFLOPs is the matrix-product work per token whose weights are
// stored in one type.
type TypeFLOPs struct {
	Type  Storage
	FLOPs float64
}

// addProduct adds flops per token of products over weights of type st.
func (c *Cost) addProduct(st Storage, flops float64) {
	for i := range c.productTypes {
		if c.productTypes[i].Type.Name == st.Name {
			c.productTypes[i].FLOPs += flops
			return
		}
	}
	c.productTypes = append(c.productTypes, TypeFLOPs{Type: st, FLOPs: flops})
}

// ProductTypes is the work per token of the matrix products (the head
// aside; routed experts at the share a token reaches) by the storage type
// of their weights, in the order the types first appear: a file of one
// format mixes types (llama.cpp's recipes, and its fallbacks for rows its
// blocks do not divide), and a runtime whose kernels differ by type
// prices each share at its own (runtimes.Runtime.KernelFactor).
func (c *Cost) ProductTypes() []TypeFLOPs { return c.productTypes }

// HeadProduct is the head's matrix-product work per token whose logits
// are computed, with the storage type of its weights (zero without a
// head): ProductTypes leaves it aside, as a pass computes the logits of
// some of its tokens only. Its type may differ from the layers' (a GGUF
// file's Q6_K head, MLC q4f16_ft's head in q4f16_1's groups).
func (c *Cost) HeadProduct() TypeFLOPs {
	if c.headFLOPs == 0 {
		return TypeFLOPs{}
	}
	return TypeFLOPs{Type: c.headType, FLOPs: c.headFLOPs}
}

// work adds tensor t's FLOPs and activation traffic per token: a matrix
// product costs 2 FLOP per weight it reads and moves its input and output
// row once (the head is added by headWork).
func (c *Cost) work(t *Tensor) {
	if !t.Matmul || t.Role == RoleOutput {
		return
	}
	n := float64(t.Elements())
	in, out := float64(t.Cols), float64(t.Rows)
	if t.Routed {
		m := c.Spec.MoE
		share := float64(m.Active) / float64(m.Experts)
		c.routedFLOPs += 2 * n * share
		in *= float64(m.Active)
		out *= float64(m.Active)
	} else {
		c.denseFLOPs += 2 * n
	}
	c.actBytes += ActivationBytesPerValue * (in + out)
	c.actRead += ActivationBytesPerValue * in
}

// headWork adds the head's activation traffic per token: it reads the
// hidden state and writes the logits.
func (c *Cost) headWork() {
	H, V := float64(c.Spec.Hidden), float64(c.Spec.Vocab)
	c.actBytes += ActivationBytesPerValue * (H + V)
	c.actRead += ActivationBytesPerValue * H
}

// kvPerTokenLayer is the KV cache one token adds to one layer.
func kvPerTokenLayer(s *Spec, kv KVFormat, mla MLACache) (float64, error) {
	k, v, err := kvPartsPerTokenLayer(s, kv, mla)
	return k + v, err
}

// kvPartsPerTokenLayer is kvPerTokenLayer split into what the query-key
// product reads (K, or the compressed latent and the shared rope key under
// MLA) and what the value product reads besides (V; under MLA's latent
// cache nothing, the latent serves both, unless the runtime caches V too).
func kvPartsPerTokenLayer(s *Spec, kv KVFormat, mla MLACache) (k, v float64, err error) {
	st := kv.Storage
	if a := s.MLA; a != nil {
		switch mla {
		case MLAExpanded:
			k, v := s.Heads*(a.QKNopeDim+a.QKRopeDim), s.Heads*a.VHeadDim
			if !st.Fits(a.QKNopeDim+a.QKRopeDim) || !st.Fits(a.VHeadDim) {
				return 0, 0, fmt.Errorf("KV format %s needs the per-head widths (%d, %d) to be multiples of %d", kv.Name, a.QKNopeDim+a.QKRopeDim, a.VHeadDim, st.BlockSize)
			}
			return st.RowBytes(k), st.RowBytes(v), nil
		}
		w := a.KVLoraRank + a.QKRopeDim
		if !st.Fits(w) {
			return 0, 0, fmt.Errorf("KV format %s needs the cached latent width (%d) to be a multiple of %d", kv.Name, w, st.BlockSize)
		}
		if mla == MLALatentV {
			return st.RowBytes(w), st.RowBytes(a.KVLoraRank), nil
		}
		return st.RowBytes(w), 0, nil
	}
	if !st.Fits(s.HeadDim) {
		return 0, 0, fmt.Errorf("KV format %s needs head_dim (%d) to be a multiple of %d", kv.Name, s.HeadDim, st.BlockSize)
	}
	half := st.RowBytes(s.KVHeads * s.HeadDim)
	return half, half, nil
}

// attentionPairFLOPs is the cost of one query attending one key in one
// layer: scores (q·k) plus the weighted sum of values.
func attentionPairFLOPs(s *Spec) (prefill, decode float64) {
	ps, pv, ds, dv := attentionPairParts(s)
	return ps + pv, ds + dv
}

// attentionPairParts is attentionPairFLOPs split into the query-key
// product (scores) and the value product, in prefill and in decode: 2 FLOP
// per multiply-add, over the query heads (GQA saves KV memory, not FLOPs).
// MLA prefill runs the expanded heads (qk = nope + rope, v); MLA decode runs
// the absorbed form over the cached latent (DeepSeek-V3 attn_impl "absorb").
// Every part is an integer well below 2⁵³, so the sums are exact.
func attentionPairParts(s *Spec) (prefillScores, prefillValues, decodeScores, decodeValues float64) {
	nq := float64(s.Heads)
	if a := s.MLA; a != nil {
		return 2 * nq * float64(a.QKNopeDim+a.QKRopeDim), 2 * nq * float64(a.VHeadDim),
			2 * nq * float64(a.KVLoraRank+a.QKRopeDim), 2 * nq * float64(a.KVLoraRank)
	}
	p := 2 * nq * float64(s.HeadDim)
	return p, p, p, p
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
	return c.denseStreamed(tokens, withHead) + c.expertBytes*c.DistinctExperts(tokens)
}

// denseStreamed is StreamedBytes without the routed experts.
func (c *Cost) denseStreamed(tokens int, withHead bool) float64 {
	b := c.sharedBytes
	rows := min(float64(tokens), float64(c.Spec.Vocab)) * c.embdRowBytes
	switch {
	case withHead:
		b += c.headBytes
		if !c.tied {
			b += rows
		}
	default:
		b += rows
	}
	return b
}

// StreamedBytesPerToken is the weight traffic of one decode step at batch 1.
func (c *Cost) StreamedBytesPerToken() float64 { return c.StreamedBytes(1, true) }

// Matmuls is the matrix-product side of one forward pass, split as the
// time model prices it: the dense products (attention projections, dense
// and shared feed-forward blocks, the head when the pass computes logits)
// with the embedding rows the pass reads, and the routed experts the pass
// reaches. Bytes are weights streamed; activations are separate
// (ActivationBytes).
type Matmuls struct {
	Rows        float64 // tokens the dense products see
	DenseBytes  float64
	DenseFLOPs  float64
	ExpertRows  float64 // tokens each reached expert receives on average
	ExpertBytes float64
	ExpertFLOPs float64
	// Activations is the part of DenseBytes that is the products'
	// activation traffic (ActivationBytes), where a caller adds it to a
	// pass (a prefill pass's): an engine whose weights cross a link to it
	// keeps its activations in its own memory.
	Activations float64
	// tiles is the pass's products by shape (TileRereadBytes).
	tiles *tileShapes
	// experts and active are the MoE layers' routed experts N and the
	// experts k each token is routed to, reached the experts of a layer
	// the pass's tokens reach (DistinctExperts): ExpertTilePadding.
	experts, active, reached float64
}

// Bytes is the pass's weight and activation traffic.
func (m Matmuls) Bytes() float64 { return m.DenseBytes + m.ExpertBytes }

// FLOPs is the pass's matrix-product work.
func (m Matmuls) FLOPs() float64 { return m.DenseFLOPs + m.ExpertFLOPs }

// Matmuls prices the matrix products of a pass over `tokens` tokens of
// which `logits` get logits (the last prefill position, or every decode
// token).
func (c *Cost) Matmuls(tokens, logits int) Matmuls {
	if tokens <= 0 {
		return Matmuls{}
	}
	n := float64(tokens)
	m := Matmuls{
		Rows:       n,
		DenseBytes: c.denseStreamed(tokens, logits > 0),
		tiles:      c.tiles,
		DenseFLOPs: n*c.denseFLOPs + float64(logits)*c.headFLOPs,
	}
	if moe := c.Spec.MoE; moe != nil && (c.expertBytes > 0 || c.routedFLOPs > 0) { // an operator's account may have no experts
		reached := c.DistinctExperts(tokens)
		m.ExpertBytes = c.expertBytes * reached
		m.ExpertFLOPs = n * c.routedFLOPs
		// Each of the tokens' k routings lands on one of the reached
		// experts of each MoE layer.
		m.ExpertRows = max(1, n*float64(moe.Active)/reached)
		m.experts, m.active, m.reached = float64(moe.Experts), float64(moe.Active), reached
	}
	return m
}

// ExpertTilePadding is the ratio of the columns a kernel that multiplies
// each expert's tokens in whole tiles of `width` columns computes to the
// tokens routed (Rows·k): Σ over the N experts of ⌈X/width⌉·width, over
// Rows·k, with each expert's tokens X ~ Binomial(Rows, k/N) for tokens
// routed independently and uniformly. E⌈X/w⌉ = Σ_{j≥0} P(X > j·w): the
// j = 0 term is exact, 1 − (1 − k/N)^Rows (DistinctExperts / N), the others the normal
// approximation with continuity correction. It is 1 without routed
// experts or a width, and at least 1 (a tile never computes fewer
// columns than it is given).
func (m Matmuls) ExpertTilePadding(width float64) float64 {
	if m.experts == 0 || m.Rows <= 0 || width <= 0 {
		return 1
	}
	n, N, k := m.Rows, m.experts, m.active
	p := k / N
	mu, sd := n*p, math.Sqrt(n*p*(1-p))
	tiles := m.reached / N // P(X > 0): the share of experts reached
	if sd > 0 {
		for j := 1.0; j*width <= mu+8*sd; j++ {
			tiles += 0.5 * math.Erfc((j*width+0.5-mu)/(sd*math.Sqrt2))
		}
	}
	return max(1, N*width*tiles/(n*k))
}

// KVRowBytes is one token's K and V rows of one layer (the cached latent
// and rope key under MLA) in storage st: llama.cpp computes them in f32
// and writes them into the cache's own type (ggml_set_rows), so
// KVRowBytes(F32) is what a layer whose cache is in another memory than
// its compute sends there each token.
func (c *Cost) KVRowBytes(st Storage) (float64, error) {
	return kvPerTokenLayer(c.Spec, KVFormat{Name: st.Name, Storage: st}, c.Layout.MLA)
}

// KVBytesPerToken is the KV cache one token adds across all layers, while
// the context is within every sliding window.
func (c *Cost) KVBytesPerToken() float64 { return c.kv.slope() }

// KVBytes is the KV cache attention reads for one sequence holding ctx
// tokens; sliding layers read at most their window.
func (c *Cost) KVBytes(ctx int) float64 { return c.kv.at(ctx) }

// KVBytesSum is Σ KVBytes(s) for s = from … to, in closed form.
func (c *Cost) KVBytesSum(from, to int) float64 { return c.kv.sum(from, to) }

// KVCacheBytes is the memory the KV cache of one sequence holding ctx
// tokens takes, for passes of ubatch tokens: sliding layers hold what the
// runtime's window cache holds (the window, or the window and a
// micro-batch).
func (c *Cost) KVCacheBytes(ctx, ubatch int) float64 {
	if ctx <= 0 {
		return 0
	}
	var v float64
	for _, t := range c.kv.terms {
		n := ctx
		if w := c.Layout.windowCacheTokens(t.window, ubatch); w > 0 {
			n = min(n, w)
		}
		v += t.per * float64(n)
	}
	return v
}

// WindowLayers is how many layers attend within one window (0: every
// token, full attention).
type WindowLayers struct {
	Window, Layers int
}

func (c *Cost) addKVLayer(win int) {
	for i := range c.kvLayers {
		if c.kvLayers[i].Window == win {
			c.kvLayers[i].Layers++
			return
		}
	}
	c.kvLayers = append(c.kvLayers, WindowLayers{win, 1})
}

// KVLayers counts the layers of each window the KV account holds, in the
// order the layers first use them: one entry {0, Layers} for a model
// without sliding windows (or a runtime that ignores them). A serving
// pool that frees a sliding layer's out-of-window blocks prices each
// entry's layers by KVPerLayerToken. The slice is shared: do not modify it.
func (c *Cost) KVLayers() []WindowLayers { return c.kvLayers }

// KVPerLayerToken is the KV one token adds to one of the layers that
// hold KV (KVLayers; all are alike in the supported architectures): the
// KV per token over those layers, not over every layer of the model, of
// which some may hold none (linear attention, a shared cache) or belong
// to another device's slice.
func (c *Cost) KVPerLayerToken() float64 {
	n := 0
	for _, l := range c.kvLayers {
		n += l.Layers
	}
	if n == 0 {
		return 0
	}
	return c.kv.slope() / float64(n)
}

// LinearFLOPsPerToken is 2 × the active matrix weights a token passes
// through, without the output head.
func (c *Cost) LinearFLOPsPerToken() float64 { return c.denseFLOPs + c.routedFLOPs }

// HeadFLOPs is the cost of the logits of one token, 2·V·H.
func (c *Cost) HeadFLOPs() float64 { return c.headFLOPs }

// AttentionDecodeFLOPs is the attention work of one decode token whose
// query attends ctx keys.
func (c *Cost) AttentionDecodeFLOPs(ctx int) float64 { return c.attnDecode.at(ctx) }

// ScoreBytesPerValue is the traffic of one attention score in unfused
// attention: the query-key product writes it in f32, the softmax reads and
// rewrites it, the value product reads it (llama.cpp without flash
// attention, src/llama-graph.cpp build_attn_mha): 4 accesses × 4 B.
const ScoreBytesPerValue = 16

// ScoreBytesDecode is the score-matrix traffic of one decode token whose
// query attends ctx keys, when attention is not fused: one score per query
// head per key per layer. Fused (flash) attention keeps scores on chip.
func (c *Cost) ScoreBytesDecode(ctx int) float64 { return ScoreBytesPerValue * c.scores.at(ctx) }

// ScoreBytesPrefill is the same for n new tokens on top of past cached
// ones, causal.
func (c *Cost) ScoreBytesPrefill(past, n int) float64 {
	if n <= 0 {
		return 0
	}
	return ScoreBytesPerValue * c.scores.sum(past+1, past+n)
}

// AttentionDecodeFLOPsSum is Σ AttentionDecodeFLOPs(s) for s = from … to.
func (c *Cost) AttentionDecodeFLOPsSum(from, to int) float64 { return c.attnDecode.sum(from, to) }

// AttentionPrefillFLOPs is the attention work of n new tokens of one
// sequence on top of past cached ones, causal.
func (c *Cost) AttentionPrefillFLOPs(past, n int) float64 {
	if n <= 0 {
		return 0
	}
	return c.attnPrefill.sum(past+1, past+n)
}

// DecodeFLOPs is the work of generating one token whose query attends ctx
// keys (the tokens already cached plus itself).
func (c *Cost) DecodeFLOPs(ctx int) float64 {
	return c.LinearFLOPsPerToken() + c.headFLOPs + c.attnDecode.at(ctx)
}

// AttentionFLOPsPerContextToken is what one more token of context adds to
// a decode step's work (below any sliding window).
func (c *Cost) AttentionFLOPsPerContextToken() float64 { return c.DecodeFLOPs(2) - c.DecodeFLOPs(1) }

// DecodeFLOPsSum is Σ DecodeFLOPs(s) for s = from … to, in closed form.
func (c *Cost) DecodeFLOPsSum(from, to int) float64 {
	if to < from {
		return 0
	}
	return float64(to-from+1)*(c.LinearFLOPsPerToken()+c.headFLOPs) + c.attnDecode.sum(from, to)
}

// PrefillFLOPs is the work of processing n new tokens of one sequence on
// top of past cached tokens, with causal attention (token i attends past+i
// keys, so the score and value products cover half the square) and logits
// for `logits` positions (1 when only the last position is sampled).
func (c *Cost) PrefillFLOPs(past, n, logits int) float64 {
	if n <= 0 {
		return 0
	}
	return float64(n)*c.LinearFLOPsPerToken() + float64(logits)*c.headFLOPs + c.attnPrefill.sum(past+1, past+n)
}

// ResidentWeightBytes is the weight memory the device holding the model
// needs: all of it, except an input embedding table the runtime keeps in
// host memory when the device has memory of its own.
func (c *Cost) ResidentWeightBytes(unified bool) float64 {
	if c.Layout.HostEmbedding && !unified && !c.tied {
		return c.WeightBytes - c.embdBytes
	}
	return c.WeightBytes
}

// ActivationBytes is the activation traffic of a pass over `tokens` tokens:
// each matrix product reads its input and writes its output once.
func (c *Cost) ActivationBytes(tokens int) float64 { return float64(tokens) * c.actBytes }

// ActivationReadBytes is the part of ActivationBytes the products read:
// their inputs; the rest they write.
func (c *Cost) ActivationReadBytes(tokens int) float64 { return float64(tokens) * c.actRead }

// ActivationPeakBytes is the scratch memory a pass over `tokens` tokens
// needs at its peak: f32 logits for every token plus the widest FFN
// intermediate and the hidden state. For Llama-3.1-8B at 512 tokens this is
// 286.5 MiB, against the 296 MiB compute buffer llama.cpp logs.
func (c *Cost) ActivationPeakBytes(tokens int) float64 {
	return c.ActivationPeakBytesLogits(tokens, tokens)
}

// ActivationPeakBytesLogits is ActivationPeakBytes for a pass that
// computes logits for `logits` of its tokens only (vLLM and TensorRT-LLM
// compute them at each sequence's last prompt token); a part of a model
// without its head computes none.
func (c *Cost) ActivationPeakBytesLogits(tokens, logits int) float64 {
	per := float64(c.Spec.Hidden) + c.ffnWidth
	vocab := 0.0
	if !c.noLogits {
		vocab = float64(min(logits, tokens)) * float64(c.Spec.Vocab)
	}
	return ScratchBytesPerValue * (float64(tokens)*per + vocab)
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
// one sequence with passes of ubatch tokens, or -1 when every layer is
// windowed and any context fits.
func (c *Cost) MaxContext(budget float64, ubatch int) int {
	if budget <= 0 {
		return 0
	}
	held := windowed{terms: make([]windowTerm, len(c.kv.terms))}
	for i, t := range c.kv.terms {
		t.window = c.Layout.windowCacheTokens(t.window, ubatch)
		held.terms[i] = t
	}
	return held.inverse(budget)
}

// FileFit says how a priced model was matched to the exact size of its
// file.
type FileFit struct {
	FileBytes   float64 // the file's size
	RecipeBytes float64 // the recipe's size
	// Within is true when the file is within FileTolerance of the recipe:
	// the recipe is kept as it is.
	Within bool
	// Absorbed is true when the tensors whose type the recipe cannot be
	// sure of took up the difference; false when they could not within a
	// factor of MaxFitFactor, and the recipe's size was kept.
	Absorbed bool
	Tensors  int     // tensors rescaled
	Factor   float64 // their scale
	Roles    []Role  // their roles, in inventory order
	// Changes says how much each role absorbed, in inventory order.
	Changes []RoleChange
	// Untied is true when the file of a model that ties its head to its
	// embedding table holds the head apart (output.weight beside
	// token_embd) and was priced so: the head read per token, the table one
	// row per token. UntiedBytes is that reading's recipe.
	Untied      bool
	UntiedBytes float64
}

// RoleChange is what the tensors of one role absorbed when a cost was
// matched to its file: their bytes before and after.
type RoleChange struct {
	Role     Role
	Tensors  int
	From, To float64 // bytes
}

// MaxFitFactor bounds how far FitTo rescales the uncertain tensors.
const MaxFitFactor = 2.0

// FileTolerance is how far a file's size may differ from its recipe and
// still be taken as the recipe: the rounding of a size printed in GiB with
// two decimals (llama-bench's table).
const FileTolerance = 0.005

// FitTo prices c to a file of total bytes. A recipe is exact for the
// tensors whose type follows from the format alone (the base type of a
// GGUF mix, the quantized matrices of a checkpoint); the types of the rest
// (output head, embedding, and the tensors a GGUF mix raises by rule, such
// as attn_v and ffn_down) depend on the quantizer's version and options.
// Those absorb the difference, scaled together, so bytes per token stay
// exact where the format is certain. When they would have to change by
// more than MaxFitFactor, the recipe is kept and Absorbed is false: the
// format is probably not the file's. A file within FileTolerance of the
// recipe is the recipe (Within): c is kept.
//
// A model that ties its head to its embedding table may be stored untied:
// a converter that writes output.weight beside token_embd gives a file
// one embedding table larger, whose head llama.cpp reads from
// output.weight while it gathers rows of token_embd. Such a file is read
// untied (Untied) when its size is nearer the untied recipe (the same
// format with the head a tensor of its own, at the type the format gives
// an output head) than the tied one, and the uncertain tensors of that
// reading absorb what is left: the extra table is not streamed per token.
// This is the one rule of matching a file, for every command.
func (c *Cost) FitTo(total float64) (*Cost, FileFit) {
	fit := FileFit{FileBytes: total, RecipeBytes: c.WeightBytes, Factor: 1}
	if total <= 0 || c.WeightBytes == 0 || math.Abs(total/c.WeightBytes-1) <= FileTolerance {
		fit.Within = true
		return c, fit
	}
	recipe := c
	if u := c.untied(); u != nil && math.Abs(math.Log(total/u.WeightBytes)) < math.Abs(math.Log(total/c.WeightBytes)) {
		fit.Untied, fit.UntiedBytes = true, u.WeightBytes
		if math.Abs(total/u.WeightBytes-1) <= FileTolerance {
			fit.Absorbed = true
			return u, fit
		}
		c = u
	}
	var unsure float64
	for _, t := range c.Tensors {
		if t.Uncertain {
			unsure += t.Bytes
		}
	}
	k := 0.0
	if unsure > 0 {
		k = (unsure + total - c.WeightBytes) / unsure
	}
	if !(k >= 1/MaxFitFactor && k <= MaxFitFactor) {
		fit.Factor, fit.Untied, fit.UntiedBytes = k, false, 0
		return recipe, fit
	}
	o := *c
	o.memo = &opsMemo{} // its operators are its own
	o.Tensors = make([]TensorCost, len(c.Tensors))
	o.sharedBytes, o.headBytes, o.embdRowBytes, o.embdBytes, o.expertBytes = 0, 0, 0, 0, 0
	o.tiles = nil
	seen := map[Role]int{}
	for i, t := range c.Tensors {
		if t.Uncertain {
			from := t.Bytes
			t.Bytes *= k
			fit.Tensors++
			j, ok := seen[t.Role]
			if !ok {
				j = len(fit.Changes)
				seen[t.Role] = j
				fit.Roles = append(fit.Roles, t.Role)
				fit.Changes = append(fit.Changes, RoleChange{Role: t.Role})
			}
			fit.Changes[j].Tensors++
			fit.Changes[j].From += from
			fit.Changes[j].To += t.Bytes
		}
		o.Tensors[i] = t
		o.account(&t)
	}
	o.WeightBytes = total
	fit.Absorbed, fit.Factor = true, k
	return &o, fit
}

// untied is c read as a file that stores its output head apart from the
// embedding table (FitTo): nil when c does not tie them, or holds no
// tensor list.
func (c *Cost) untied() *Cost {
	if !c.tied || c.Tensors == nil || c.Layout.UntieEmbedding {
		return nil
	}
	// The model as a file that stores output.weight: llama.cpp's quantizer
	// then types token_embd as any embedding table and output.weight as
	// the head (it gives token_embd the head's type only in a file without
	// output.weight).
	s := *c.Spec
	s.TiedEmbeddings = false
	u, err := build(&s, s.Tensors(), c.Weights, c.KV, c.Layout, true)
	if err != nil {
		return nil
	}
	return u
}

// account adds tensor t's bytes to the traffic groups.
func (c *Cost) account(t *TensorCost) {
	switch {
	case t.Role == RoleTokenEmbd:
		c.embdRowBytes = t.Bytes / float64(t.Rows)
		if c.tied {
			c.headBytes, c.headType = t.Bytes, t.Type
		} else {
			c.embdBytes = t.Bytes
		}
	case t.Role == RoleOutput:
		c.headBytes, c.headType = t.Bytes, t.Type
	case t.Routed:
		c.expertBytes += t.Bytes / float64(c.Spec.MoE.Experts)
	default:
		c.sharedBytes += t.Bytes
	}
	if t.Role != RoleTokenEmbd && t.Role != RoleOutput {
		if c.tiles == nil {
			c.tiles = &tileShapes{}
		}
		c.tiles.add(t)
	}
}

// inverse is the largest s with at(s) ≤ v, or -1 if at(s) stays ≤ v for
// every s (all terms capped).
func (w windowed) inverse(v float64) int {
	var buf [8]int
	ws := buf[:0]
	for _, t := range w.terms {
		if t.window > 0 {
			ws = append(ws, t.window)
		}
	}
	if len(ws) > 1 {
		sort.Ints(ws)
	}
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

// UnpackShare is the share of the products' work in types a runtime's
// decode kernels unpack weight by weight (hardware.Efficiency.KQuantGEMV):
// the K-quants (Q2_K to Q6_K, 256-weight super-blocks with sub-block
// scales) when kquants, as llama.cpp's Metal kernels do, and the types
// named in others (Storage names: MLC's int4-g32 on CUDA). 0 without
// work.
func UnpackShare(types []TypeFLOPs, kquants bool, others []string) float64 {
	var total, k float64
	for _, t := range types {
		total += t.FLOPs
		if (kquants && t.Type.KQuant()) || slices.Contains(others, t.Type.Name) {
			k += t.FLOPs
		}
	}
	if !(total > 0) {
		return 0
	}
	return k / total
}
