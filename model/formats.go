package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/roofline/roofline/units"
)

// WeightFormat is a quantization recipe: it gives every tensor of a model
// its storage type, and says which arithmetic the matrix products run at.
type WeightFormat struct {
	Name        string
	Aliases     []string
	Family      string // "gguf" or "checkpoint"
	Description string
	// Compute lists the arithmetic precisions the kernels for this format
	// use, in order of preference: an engine runs the first it has a peak
	// for. GGUF quantized types are priced at fp16: llama.cpp's MMQ kernels
	// issue int8 instructions, but unpacking and block scales hold them to
	// fp16-class rates (docs/method.md §6). Weight-only formats (w4a16)
	// dequantize to fp16.
	Compute []units.Precision
	assign  func(s *Spec, t Tensor) Storage
	// unsure reports tensors whose type the recipe cannot be sure of.
	unsure func(s *Spec, t Tensor) bool
	// quantized is true when the matrices are stored in a quantized type.
	quantized bool
}

// Quantized reports whether the format stores its matrices quantized.
func (f WeightFormat) Quantized() bool { return f.quantized }

// Ideal lists every precision some runtime's kernels may run the format
// at: its own preferences, and int8 dot products for quantized GGUF types
// (llama.cpp's MMQ and CPU kernels). The fastest of these an engine has is
// the bound no run can beat.
func (f WeightFormat) Ideal() []units.Precision {
	out := append([]units.Precision(nil), f.Compute...)
	if f.IsGGUF() && f.quantized && !slices.Contains(out, units.INT8) {
		out = append(out, units.INT8)
	}
	return out
}

// TypeOf is the storage type the recipe gives tensor t of model s.
func (f WeightFormat) TypeOf(s *Spec, t Tensor) Storage { return f.assign(s, t) }

func (f WeightFormat) uncertain(s *Spec, t Tensor) bool {
	if _, kept := keptNative(s, t); kept && f.IsGGUF() {
		return false // published quantized, kept as published: certain
	}
	return f.unsure != nil && f.unsure(s, t)
}

// IsFile reports whether the format is a model file's own tensor types.
func (f WeightFormat) IsFile() bool { return f.Family == "file" }

// IsGGUF reports whether the format is a llama.cpp GGUF file type (a
// recipe, or a file's own types).
func (f WeightFormat) IsGGUF() bool { return f.Family == "gguf" || f.Family == "file" }

// KVFormat is the element type of the KV cache. Block types are laid out
// along the head dimension, as llama.cpp does with -ctk/-ctv.
type KVFormat struct {
	Name        string
	Storage     Storage
	Description string
}

var (
	ggufQuant = []units.Precision{units.FP16, units.FP32}
	fp16Math  = []units.Precision{units.FP16, units.FP32}
	bf16Math  = []units.Precision{units.BF16, units.FP16, units.FP32}
)

// WeightFormats lists the built-in weight formats.
var WeightFormats = []WeightFormat{
	ggufFloat("f32", F32, "32-bit floats; norms f32", []units.Precision{units.FP32}),
	ggufFloat("f16", F16, "16-bit floats (GGUF F16 or an fp16 checkpoint); norms f32", fp16Math),
	ggufFloat("bf16", BF16, "bfloat16 (GGUF BF16 or a bf16 checkpoint); norms f32", bf16Math),
	ggufMix("q8_0", Q8_0, "GGUF Q8_0: every matrix q8_0 (8.5 bpw)"),
	ggufMix("q4_0", Q4_0, "GGUF Q4_0: matrices q4_0 (4.5 bpw), output q6_k"),
	ggufMix("q4_1", Q4_1, "GGUF Q4_1: matrices q4_1 (5.0 bpw), output q6_k"),
	ggufMix("q5_0", Q5_0, "GGUF Q5_0: matrices q5_0 (5.5 bpw), output q6_k"),
	ggufMix("q5_1", Q5_1, "GGUF Q5_1: matrices q5_1 (6.0 bpw), output q6_k"),
	ggufMix("q2_k", Q2K, "GGUF Q2_K mix: q2_k base, attn_v q3_k/q4_k, ffn_down q3_k, output q6_k"),
	ggufMix("q3_k_s", Q3K, "GGUF Q3_K_S mix: q3_k base, output q6_k"),
	ggufMix("q3_k_m", Q3K, "GGUF Q3_K_M mix: q3_k base, attn_v q5_k/q4_k, ffn_down and attn_output q4_k"),
	ggufMix("q3_k_l", Q3K, "GGUF Q3_K_L mix: q3_k base, attn_v, ffn_down and attn_output q5_k"),
	ggufMix("q4_k_s", Q4K, "GGUF Q4_K_S mix: q4_k base, first attn_v and ffn_down layers q5_k"),
	ggufMix("q4_k_m", Q4K, "GGUF Q4_K_M mix: q4_k base, half of attn_v and ffn_down q6_k, output q6_k"),
	ggufMix("q5_k_s", Q5K, "GGUF Q5_K_S mix: q5_k base, output q6_k"),
	ggufMix("q5_k_m", Q5K, "GGUF Q5_K_M mix: q5_k base, half of attn_v and ffn_down q6_k"),
	ggufMix("q6_k", Q6K, "GGUF Q6_K: every matrix q6_k (6.5625 bpw)"),
	ggufMix("iq4_nl", IQ4NL, "GGUF IQ4_NL mix: non-linear 4-bit (4.5 bpw), attn_v q5_k with GQA"),
	ggufMix("iq4_xs", IQ4XS, "GGUF IQ4_XS mix: 4.25 bpw, attn_v q5_k with GQA"),
	ggufMix("mxfp4_moe", MXFP4, "GGUF MXFP4_MOE: expert tensors mxfp4 (4.25 bpw), other matrices q8_0"),
	ggufPure("q3_k", Q3K),
	ggufPure("q4_k", Q4K),
	ggufPure("q5_k", Q5K),
	{
		Name: "mxfp4", Family: "checkpoint", Compute: []units.Precision{units.FP4, units.FP16, units.FP32}, quantized: true,
		Description: "native MXFP4 checkpoint (gpt-oss): routed experts mxfp4, everything else bf16",
		assign: func(s *Spec, t Tensor) Storage {
			if t.Routed && t.Matmul {
				return fallback(MXFP4, t.Cols)
			}
			return BF16
		},
		unsure: headOrEmbedding,
	},
	checkpoint("w4a16", []string{"gptq-int4", "awq-int4", "int4-g128", "rkllm-w4a16"}, Int4G128, F16, fp16Math,
		"4-bit weights, group 128, fp16 scale + 4-bit zero (GPTQ/AWQ, RKLLM w4a16); embedding and lm_head fp16; fp16 math"),
	checkpoint("mlx-q4", []string{"mlx-4bit", "mlx-community-4bit"}, MLXQ4, F16, fp16Math,
		"MLX affine 4-bit: groups of 64 with a 16-bit scale and bias (4.5 bpw); embedding and lm_head quantized too; fp16/bf16 math"),
	checkpoint("mlx-q8", []string{"mlx-8bit"}, MLXQ8, F16, fp16Math,
		"MLX affine 8-bit: groups of 64 with a 16-bit scale and bias (8.5 bpw); embedding and lm_head quantized too; fp16/bf16 math"),
	checkpoint("q4f16_1", []string{"mlc-q4f16_1"}, Int4G32, F16, fp16Math,
		"MLC q4f16_1: 4-bit weights, group 32, fp16 scale; embedding and lm_head quantized too; fp16 math"),
	{
		Name: "q4f16_ft", Aliases: []string{"mlc-q4f16_ft"}, Family: "checkpoint", Compute: fp16Math, quantized: true,
		Description: "MLC q4f16_ft (FasterTransformer, CUDA): 4-bit weights with an fp16 scale per output row; embedding, lm_head and rows not a multiple of 8 fall back to q4f16_1; fp16 math",
		assign:      ftAssign,
		unsure:      headOrEmbedding,
	},
	checkpoint("w8a8", []string{"int8", "int8-w8a8", "smoothquant", "rkllm-w8a8"}, Int8PerChannel, F16, []units.Precision{units.INT8},
		"8-bit weights with per-channel fp16 scales and 8-bit activations (SmoothQuant, RKLLM w8a8); int8 math"),
	checkpoint("w8a16", []string{"int8-weight-only", "int8wo"}, Int8PerChannel, F16, fp16Math,
		"8-bit weights with per-channel fp16 scales, dequantized to fp16 math (weight-only int8: gpt-fast, TensorRT-LLM, vLLM)"),
	checkpoint("fp8", []string{"fp8-e4m3", "w8a8-fp8"}, FP8, BF16, []units.Precision{units.FP8, units.FP16},
		"fp8 weights (e4m3) with per-tensor scales; embedding and lm_head bf16; fp8 math where the engine has it, else fp16 (weight-only fp8)"),
}

// KVFormats lists the built-in KV-cache formats.
var KVFormats = []KVFormat{
	{"f16", F16, "16-bit floats (default of llama.cpp and most servers)"},
	{"bf16", BF16, "bfloat16"},
	{"f32", F32, "32-bit floats"},
	{"fp8", FP8, "fp8 e4m3/e5m2 with per-tensor scale (vLLM --kv-cache-dtype fp8)"},
	{"q8_0", Q8_0, "llama.cpp q8_0 blocks of 32 along the head (8.5 bits)"},
	{"q5_1", Q5_1, "llama.cpp q5_1 (6.0 bits)"},
	{"q5_0", Q5_0, "llama.cpp q5_0 (5.5 bits)"},
	{"q4_1", Q4_1, "llama.cpp q4_1 (5.0 bits)"},
	{"q4_0", Q4_0, "llama.cpp q4_0 (4.5 bits)"},
	{"iq4_nl", IQ4NL, "llama.cpp iq4_nl (4.5 bits)"},
}

// LookupWeightFormat finds a weight format by name or alias, ignoring case.
func LookupWeightFormat(name string) (WeightFormat, error) {
	n := normalizeFormat(name)
	for _, f := range WeightFormats {
		if f.Name == n {
			return f, nil
		}
		for _, a := range f.Aliases {
			if a == n {
				return f, nil
			}
		}
	}
	names := make([]string, len(WeightFormats))
	for i, f := range WeightFormats {
		names[i] = f.Name
	}
	return WeightFormat{}, &UnknownError{Kind: "weight format", Name: name, Known: names}
}

// LookupKVFormat finds a KV-cache format by name, ignoring case; "" is
// the default, f16.
func LookupKVFormat(name string) (KVFormat, error) {
	n := normalizeFormat(name)
	if n == "fp16" || n == "" {
		n = "f16"
	}
	for _, f := range KVFormats {
		if f.Name == n {
			return f, nil
		}
	}
	names := make([]string, len(KVFormats))
	for i, f := range KVFormats {
		names[i] = f.Name
	}
	return KVFormat{}, &UnknownError{Kind: "KV format", Name: name, Known: names}
}

func normalizeFormat(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-k-", "_k_")
}

// UnknownError reports a name that is not in a list; Known feeds a
// "did you mean" hint.
type UnknownError struct {
	Kind  string
	Name  string
	Known []string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown %s %q", e.Kind, e.Name)
}

func ggufFloat(name string, st Storage, desc string, compute []units.Precision) WeightFormat {
	return WeightFormat{Name: name, Family: "gguf", Description: desc, Compute: compute,
		assign: func(s *Spec, t Tensor) Storage {
			if native, ok := keptNative(s, t); ok {
				return native
			}
			if quantizable(t) {
				return st
			}
			return F32
		}, unsure: headOrEmbedding}
}

func ggufPure(name string, base Storage) WeightFormat {
	return WeightFormat{Name: name, Family: "gguf", Compute: ggufQuant, quantized: true,
		Description: fmt.Sprintf("GGUF quantized with --pure: every matrix %s (%.4g bpw) where rows allow, llama.cpp fallbacks elsewhere", base.Name, base.BitsPerWeight()),
		assign: func(s *Spec, t Tensor) Storage {
			if native, ok := keptNative(s, t); ok {
				return native
			}
			if !quantizable(t) {
				return F32
			}
			return fallback(base, t.Cols)
		}, unsure: headOrEmbedding}
}

// keptNative is the type llama.cpp's quantizer keeps whatever the target
// file type: tensors published in MXFP4 (gpt-oss's experts) are never
// requantized.
func keptNative(s *Spec, t Tensor) (Storage, bool) {
	if s.Checkpoint != "mxfp4" || !t.Routed || !t.Matmul {
		return Storage{}, false
	}
	return fallback(MXFP4, t.Cols), true
}

// headOrEmbedding marks the output head and the embedding table: their
// types depend on the quantizer's options.
func headOrEmbedding(s *Spec, t Tensor) bool {
	return t.Role == RoleOutput || t.Role == RoleTokenEmbd
}

// mixRaised marks what a GGUF mix decides by rule, which changes between
// llama.cpp versions and with an importance matrix: the head and
// embedding, and the projections a mix raises (attn_v, attn_output,
// ffn_down and their fused or expert forms).
func mixRaised(s *Spec, t Tensor) bool {
	switch t.Role {
	case RoleOutput, RoleTokenEmbd, RoleAttnV, RoleAttnQKV, RoleAttnKVB, RoleAttnOut,
		RoleFFNDown, RoleExpertDown, RoleSharedDown:
		return true
	case RoleAttnK:
		return s.MoE != nil && s.MoE.Experts == 8
	}
	return false
}

func checkpoint(name string, aliases []string, st, keep Storage, compute []units.Precision, desc string) WeightFormat {
	// MLC and MLX quantize the embedding and the final projection too.
	quantEmbd := st == Int4G32 || st == MLXQ4 || st == MLXQ8
	return WeightFormat{Name: name, Aliases: aliases, Family: "checkpoint", Description: desc, Compute: compute, quantized: st.BitsPerWeight() < 16,
		assign: func(s *Spec, t Tensor) Storage {
			switch {
			case !t.Is2D() || !strings.HasSuffix(t.Name, ".weight"):
				return keep
			case t.Role == RoleRouter:
				return keep
			case (st == MLXQ4 || st == MLXQ8) && !st.Fits(t.Cols):
				return keep // mlx_lm quantizes only rows divisible by the group
			case t.Role == RoleTokenEmbd || t.Role == RoleOutput:
				if quantEmbd {
					return st
				}
				return keep
			}
			return st
		}, unsure: headOrEmbedding}
}

// ftAssign follows MLC's FTQuantize.quantize_model (mlc-ai/mlc-llm
// python/mlc_llm/quantization/ft_quantization.py @01ced331): every
// nn.Linear is stored per channel for the CUTLASS FasterTransformer kernel,
// except the final projection and a layer whose out_features is not a
// multiple of 8 (CUTLASS's requirement for int4), which fall back to
// GroupQuantize with group 32 (q4f16_1); the embedding falls back too.
// Modules it does not visit (the MoE router, the stacked experts, norms)
// stay in the model's float16.
func ftAssign(s *Spec, t Tensor) Storage {
	switch {
	case !t.Is2D() || !strings.HasSuffix(t.Name, ".weight") || t.Role == RoleRouter || t.Routed:
		return F16
	case t.Role == RoleTokenEmbd || t.Role == RoleOutput || t.Rows%8 != 0:
		return Int4G32
	}
	return Int4PerChannel
}

// quantizable follows llama.cpp's tensor_allows_quantization: matrices whose
// name ends in "weight", except norms and the MoE router.
func quantizable(t Tensor) bool {
	return t.Is2D() && strings.HasSuffix(t.Name, ".weight") && t.Role != RoleRouter
}

// ggufMix reproduces llama_tensor_get_type_impl of llama.cpp
// (src/llama-quant.cpp) for the named file types without an importance
// matrix.
func ggufMix(ftype string, base Storage, desc string) WeightFormat {
	return WeightFormat{Name: ftype, Family: "gguf", Description: desc, Compute: ggufQuant, quantized: true,
		assign: func(s *Spec, t Tensor) Storage {
			if native, ok := keptNative(s, t); ok {
				return native
			}
			if !quantizable(t) {
				return F32
			}
			return fallback(mixType(ftype, base, s, t), t.Cols)
		}, unsure: mixRaised}
}

func useMoreBits(i, n int) bool {
	return i < n/8 || i >= 7*n/8 || (i-n/8)%3 == 2
}

func mixType(ftype string, base Storage, s *Spec, t Tensor) Storage {
	nExpert := 0
	if s.MoE != nil {
		nExpert = s.MoE.Experts
	}
	gqa := s.GQAGroup()
	if s.MLA != nil {
		gqa = 1
	}
	is70B := s.Architecture == "llama" && s.Layers == 80 && s.KVHeads != s.Heads
	i, n := t.Layer, s.Layers

	switch {
	case t.Role == RoleOutput || (s.TiedEmbeddings && t.Role == RoleTokenEmbd):
		switch {
		case ftype == "mxfp4_moe" || !base.Fits(t.Cols):
			return Q8_0
		case base != Q8_0:
			return Q6K
		}
		return base
	case ftype == "mxfp4_moe":
		if t.Experts > 1 {
			return MXFP4
		}
		return Q8_0
	case t.Role == RoleTokenEmbd:
		return base
	case t.Role == RoleAttnV || t.Role == RoleAttnQKV || t.Role == RoleAttnKVB:
		nt := base
		switch {
		case ftype == "q2_k":
			nt = Q3K
			if gqa >= 4 {
				nt = Q4K
			}
		case ftype == "q3_k_m":
			nt = Q4K
			if i < 2 {
				nt = Q5K
			}
		case ftype == "q3_k_l":
			nt = Q5K
		case (ftype == "iq4_nl" || ftype == "iq4_xs") && gqa >= 4:
			nt = Q5K
		case (ftype == "q4_k_m" || ftype == "q5_k_m") && useMoreBits(i, n):
			nt = Q6K
		case ftype == "q4_k_s" && i < 4:
			nt = Q5K
		}
		if is70B && (nt == Q3K || nt == Q4K) {
			nt = Q5K
		}
		if nExpert == 8 {
			nt = Q8_0
		}
		return nt
	case t.Role == RoleAttnK:
		if nExpert == 8 {
			return Q8_0
		}
	case t.Role == RoleFFNDown || t.Role == RoleExpertDown || t.Role == RoleSharedDown:
		switch {
		case ftype == "q2_k":
			return Q3K
		case ftype == "q3_k_m":
			if i < n/16 {
				return Q5K
			}
			return Q4K
		case ftype == "q3_k_l":
			return Q5K
		case ftype == "q4_k_m" && useMoreBits(i, n):
			return Q6K
		case (ftype == "iq4_nl" || ftype == "iq4_xs") && i < n/8:
			return Q5K
		case ftype == "q5_k_m" && useMoreBits(i, n):
			return Q6K
		case ftype == "q4_k_s" && i < n/8:
			return Q5K
		}
	case t.Role == RoleAttnOut:
		if nExpert == 8 {
			switch ftype {
			case "q2_k", "q3_k_s", "q3_k_m", "iq4_nl", "q4_k_s", "q4_k_m", "iq4_xs":
				return Q5K
			}
			return base
		}
		switch ftype {
		case "q2_k":
			return Q3K
		case "q3_k_m":
			return Q4K
		case "q3_k_l":
			return Q5K
		}
	}
	return base
}

// DefaultCheckpoint is the format a model is taken to be published in when
// its profile does not say: bf16, as most checkpoints on Hugging Face are.
const DefaultCheckpoint = "bf16"

// FileWeightsName names a model file's own per-tensor types as a format.
const FileWeightsName = "file"

// NativeFormat is the weight format the model is published in (its
// checkpoint): gpt-oss's MXFP4 experts with bf16 elsewhere, bf16 for most
// models, a model file's own tensor types. It is the default of every
// runtime that runs checkpoints, and of show and list.
func (s *Spec) NativeFormat() string {
	if s.FileWeights != nil {
		return FileWeightsName
	}
	if s.Checkpoint == "" {
		return DefaultCheckpoint
	}
	return s.Checkpoint
}

// WeightsFor resolves a weight format for s: "file" is the model file's
// own tensor types (GGUF), "" the model's native format.
func (s *Spec) WeightsFor(name string) (WeightFormat, error) {
	if name == "" {
		name = s.NativeFormat()
	}
	if name == FileWeightsName {
		if s.FileWeights == nil {
			return WeightFormat{}, fmt.Errorf("model %s has no weights file: give a weight format", s.Name)
		}
		return *s.FileWeights, nil
	}
	return LookupWeightFormat(name)
}

// BuildNamed prices s under the named formats and layout: an empty weight
// format is the model's native format; an empty KV format is f16.
func BuildNamed(s *Spec, weights, kv string, l Layout) (*Cost, error) {
	w, err := s.WeightsFor(weights)
	if err != nil {
		return nil, err
	}
	k, err := LookupKVFormat(kv) // "" is f16
	if err != nil {
		return nil, err
	}
	return Build(s, w, k, l)
}
