package model

import (
	"errors"
	"fmt"

	"github.com/roofline/roofline/limits"
)

// MLP names the feed-forward block's shape.
type MLP string

const (
	// Gated is SwiGLU/GeGLU: gate and up projections, then down (3·H·I).
	Gated MLP = "gated"
	// Plain is up then down (2·H·I), as in GPT-2-style blocks.
	Plain MLP = "plain"
)

// LayerKind says how far back a layer's attention reaches.
type LayerKind string

const (
	// Full attention sees the whole context.
	Full LayerKind = "full"
	// Sliding attention sees the last SlidingWindow tokens only, so its
	// KV cache stops growing at the window.
	Sliding LayerKind = "sliding"
)

// Spec describes a transformer decoder by the numbers that fix its tensor
// shapes. Field names follow Hugging Face config.json where one exists.
type Spec struct {
	Name    string
	Aliases []string
	// Architecture is the config.json model_type family, e.g. "llama".
	Architecture string
	// Source says where the numbers come from.
	Source string
	// Checkpoint is the weight format the model is published in.
	Checkpoint string
	// Published holds parameter counts stated by the model's authors, to
	// check the tensor inventory against.
	Published Published

	Hidden  int // hidden_size, H
	Layers  int // num_hidden_layers, L
	Heads   int // num_attention_heads, n_q
	KVHeads int // num_key_value_heads, n_kv (GQA/MQA); ignored under MLA
	HeadDim int // head_dim, d_h; may differ from H/n_q (Qwen3, Gemma)
	FFN     int // intermediate_size, I (dense layers)
	Vocab   int // vocab_size, V

	TiedEmbeddings bool // the output head reuses the token-embedding table
	MLP            MLP
	// NormsPerLayer counts the H-wide norm vectors in a block: 2 for
	// Llama-style blocks, 4 for Gemma 2/3 (pre and post norms).
	NormsPerLayer int
	QKNorm        bool // per-head RMSNorm on q and k (Qwen3, Gemma 3)
	QKVBias       bool // biases on q, k, v (Qwen2, gpt-oss)
	OutBias       bool // bias on the attention output projection (gpt-oss)
	FusedQKV      bool // q, k, v stored as one tensor (Phi-3)
	FusedGateUp   bool // gate and up stored as one tensor (Phi-3)
	AttnSinks     bool // one learned sink logit per head (gpt-oss)

	// MaxContext is max_position_embeddings: the longest context the
	// model was configured for.
	MaxContext int

	// SlidingWindow is the window of sliding layers, 0 for none.
	SlidingWindow int
	// LayerPattern repeats over the layers; empty means every layer is
	// sliding when SlidingWindow > 0 and full otherwise.
	LayerPattern []LayerKind

	MoE *MoE // nil for dense models
	MLA *MLA // nil for multi-head / grouped-query attention

	// A model read from a weights file (GGUF) carries that file's
	// per-tensor types and exact size.
	FileWeights *WeightFormat
	FileBytes   float64
	// FileNotes say what roofline assumed in reading the model's file (a
	// GGUF header, a config.json): shown with the model and its
	// predictions.
	FileNotes []string

	// Named is what the name the model was given says beyond its shape
	// (an Ollama tag: the runtime that serves it and its weight
	// format); nil for a plain name.
	Named *NameImplies
}

// NameImplies is what a model's name says of how it runs: an Ollama tag
// such as llama3.2:3b names a model, the runtime Ollama serves it with
// and the quantization of the tag's file.
type NameImplies struct {
	// Runtime is the runtime the name implies ("llama.cpp"), used when
	// none is given; RuntimeWhy says why, in words.
	Runtime, RuntimeWhy string
	// Weights is the weight format the name implies, used when none is
	// given.
	Weights string
	// Explicit says the name itself spells the format (a -q8_0 suffix):
	// another format given beside it is a contradiction, not a choice.
	Explicit bool
	// Why says in words where Weights comes from (the tag's suffix, a
	// source, or an assumption) and how sure it is: "the quantization of
	// Ollama's llama3.2:3b (source)".
	Why string
}

// Published parameter counts (0 when not stated).
type Published struct {
	Params       float64
	ActiveParams float64
	Source       string
}

// MoE describes the mixture-of-experts feed-forward blocks.
type MoE struct {
	Experts     int  // routed experts per MoE layer, N
	Active      int  // routed experts per token, k
	FFN         int  // expert intermediate size
	Shared      int  // shared experts, always active
	SharedFFN   int  // intermediate size of each shared expert
	DenseLayers int  // leading layers with a dense FFN (DeepSeek first_k_dense_replace)
	RouterBias  bool // the router has a bias vector (gpt-oss)
	ExpertBias  bool // expert projections have biases (gpt-oss)
	// ScoreBias is DeepSeek-V3's per-expert score-correction vector.
	ScoreBias bool
}

// MLA describes DeepSeek-style multi-head latent attention.
type MLA struct {
	QLoraRank  int // q_lora_rank; 0 means q is projected directly
	KVLoraRank int // kv_lora_rank: the cached latent width
	QKNopeDim  int // qk_nope_head_dim
	QKRopeDim  int // qk_rope_head_dim: the shared rope key, also cached
	VHeadDim   int // v_head_dim
}

// LayerKindOf reports the attention kind of layer i (0-based).
func (s *Spec) LayerKindOf(i int) LayerKind {
	if s.SlidingWindow <= 0 {
		return Full
	}
	if len(s.LayerPattern) == 0 {
		return Sliding
	}
	return s.LayerPattern[i%len(s.LayerPattern)]
}

// Window is the number of past tokens layer i attends to, 0 for unlimited.
func (s *Spec) Window(i int) int {
	if s.LayerKindOf(i) == Sliding {
		return s.SlidingWindow
	}
	return 0
}

// SlidingLayers counts the layers that attend a sliding window.
func (s *Spec) SlidingLayers() int {
	n := 0
	for l := 0; l < s.Layers; l++ {
		if s.Window(l) > 0 {
			n++
		}
	}
	return n
}

// IsMoELayer reports whether layer i has routed experts.
func (s *Spec) IsMoELayer(i int) bool {
	return s.MoE != nil && i >= s.MoE.DenseLayers
}

// GQAGroup is n_q / n_kv, the number of query heads per KV head.
func (s *Spec) GQAGroup() int {
	if s.KVHeads <= 0 {
		return 1
	}
	return s.Heads / s.KVHeads
}

// MaxLayers bounds num_hidden_layers.
const MaxLayers = limits.Layers

// Validate checks that the spec describes a buildable model, with every
// count within its ceiling (package limits) so that building its tensor
// inventory stays small. Errors name the offending field by its TOML key.
func (s *Spec) Validate() error {
	var errs []error
	pos := func(key string, v, max int) {
		switch {
		case v <= 0:
			errs = append(errs, fmt.Errorf("%s must be a positive integer, got %s", key, limits.Echo(v)))
		case v > max:
			errs = append(errs, fmt.Errorf("%s %s exceeds the limit of %s", key, limits.Echo(v), limits.Count(float64(max))))
		}
	}
	upTo := func(key string, v, max int) {
		if err := limits.CheckCount(key, v, max); err != nil {
			errs = append(errs, err)
		}
	}
	pos("hidden_size", s.Hidden, limits.Hidden)
	// The deepest published models have ~130 layers; a bound keeps a
	// corrupt file from allocating a per-layer inventory of billions.
	pos("num_hidden_layers", s.Layers, limits.Layers)
	if len(s.LayerPattern) > limits.LayerPattern {
		errs = append(errs, fmt.Errorf("layer_pattern has %d entries (limit %d)", len(s.LayerPattern), limits.LayerPattern))
	}
	pos("num_attention_heads", s.Heads, limits.Heads)
	pos("vocab_size", s.Vocab, limits.Vocab)
	pos("max_position_embeddings", s.MaxContext, limits.Context)
	if s.MLA == nil {
		pos("num_key_value_heads", s.KVHeads, limits.Heads)
		pos("head_dim", s.HeadDim, limits.HeadDim)
		if s.KVHeads > 0 && s.Heads%s.KVHeads != 0 {
			errs = append(errs, fmt.Errorf("num_attention_heads (%s) must be a multiple of num_key_value_heads (%s)", limits.Echo(s.Heads), limits.Echo(s.KVHeads)))
		}
	}
	if s.MoE == nil || s.MoE.DenseLayers > 0 {
		pos("intermediate_size", s.FFN, limits.FFN)
	} else {
		upTo("intermediate_size", s.FFN, limits.FFN)
	}
	switch s.MLP {
	case Gated, Plain:
	default:
		errs = append(errs, fmt.Errorf("mlp must be %q or %q, got %q", Gated, Plain, s.MLP))
	}
	upTo("norms_per_layer", s.NormsPerLayer, limits.NormsPerLayer)
	upTo("sliding_window", s.SlidingWindow, limits.Context)
	for _, k := range s.LayerPattern {
		if k != Full && k != Sliding {
			errs = append(errs, fmt.Errorf("layer_pattern entries must be %q or %q, got %q", Full, Sliding, k))
			break
		}
	}
	if len(s.LayerPattern) > 0 && s.SlidingWindow == 0 {
		errs = append(errs, errors.New("layer_pattern needs sliding_window > 0"))
	}
	if m := s.MoE; m != nil {
		pos("moe.experts", m.Experts, limits.Experts)
		pos("moe.active", m.Active, limits.Experts)
		pos("moe.intermediate_size", m.FFN, limits.FFN)
		if m.Active > m.Experts {
			errs = append(errs, fmt.Errorf("moe.active (%s) exceeds moe.experts (%s)", limits.Echo(m.Active), limits.Echo(m.Experts)))
		}
		if m.Shared < 0 || m.DenseLayers < 0 || m.DenseLayers > s.Layers {
			errs = append(errs, fmt.Errorf("moe.shared_experts and moe.dense_layers must be in range (dense_layers ≤ %d layers)", s.Layers))
		}
		upTo("moe.shared_experts", m.Shared, limits.SharedExperts)
		if m.Shared > 0 {
			pos("moe.shared_intermediate_size", m.SharedFFN, limits.FFN)
		}
	}
	if a := s.MLA; a != nil {
		pos("mla.kv_lora_rank", a.KVLoraRank, limits.HeadDim)
		pos("mla.qk_rope_head_dim", a.QKRopeDim, limits.HeadDim)
		pos("mla.qk_nope_head_dim", a.QKNopeDim, limits.HeadDim)
		pos("mla.v_head_dim", a.VHeadDim, limits.HeadDim)
		upTo("mla.q_lora_rank", a.QLoraRank, limits.HeadDim)
	}
	if len(errs) == 0 {
		if p := s.paramsBound(); p > limits.Params {
			errs = append(errs, fmt.Errorf("the shape implies %.3g parameters (limit %.0e): a count is wrong", p, limits.Params))
		}
	}
	return errors.Join(errs...)
}

// paramsBound is an upper bound of the parameter count, in floating point
// so that no product of counts can wrap: every matrix of the inventory,
// ignoring norms and biases (which are smaller than the matrices they
// sit beside).
func (s *Spec) paramsBound() float64 {
	f := func(v int) float64 { return float64(v) }
	H, L := f(s.Hidden), f(s.Layers)
	p := 2 * H * f(s.Vocab)
	attn := 2*H*f(s.Heads)*f(s.HeadDim) + 2*H*f(s.KVHeads)*f(s.HeadDim)
	if a := s.MLA; a != nil {
		qk := f(a.QKNopeDim + a.QKRopeDim)
		attn = H*f(a.QLoraRank) + (H+f(a.QLoraRank))*f(s.Heads)*qk + H*f(a.KVLoraRank+a.QKRopeDim) +
			f(a.KVLoraRank)*f(s.Heads)*f(a.QKNopeDim+a.VHeadDim) + f(s.Heads)*f(a.VHeadDim)*H
	}
	ffn := 3 * H * f(s.FFN)
	if m := s.MoE; m != nil {
		ffn += H*f(m.Experts) + 3*H*f(m.FFN)*f(m.Experts) + 3*H*f(m.Shared)*f(m.SharedFFN)
	}
	return p + L*(attn+ffn+f(s.NormsPerLayer)*H)
}
