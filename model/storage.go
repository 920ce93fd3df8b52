package model

import "math"

// Storage is how one tensor's weights are laid out in memory: blocks of
// BlockSize weights along a row take BlockBits bits each, and every row
// carries RowBits more (per-channel scales). The ggml types come from the
// block structs in ggml/src/ggml-common.h.
type Storage struct {
	Name      string
	BlockSize int
	BlockBits int
	RowBits   int
}

// BitsPerWeight is the storage cost of one weight in a long row.
func (s Storage) BitsPerWeight() float64 {
	return float64(s.BlockBits) / float64(s.BlockSize)
}

// RowBytes is the size of one row of cols weights. A row that does not fill
// its last block still pays for it, as group-quantized checkpoints do.
func (s Storage) RowBytes(cols int) float64 {
	blocks := math.Ceil(float64(cols) / float64(s.BlockSize))
	return (blocks*float64(s.BlockBits) + float64(s.RowBits)) / 8
}

// Fits reports whether rows of cols weights fill whole blocks, which ggml
// requires of its quantized types.
func (s Storage) Fits(cols int) bool { return cols%s.BlockSize == 0 }

// ggml tensor types: block size in weights and block size in bytes (×8 bits).
var (
	F32    = Storage{"f32", 1, 32, 0}
	F16    = Storage{"f16", 1, 16, 0}
	BF16   = Storage{"bf16", 1, 16, 0}
	Q8_0   = Storage{"q8_0", 32, 34 * 8, 0}  // fp16 d + 32 × int8
	Q4_0   = Storage{"q4_0", 32, 18 * 8, 0}  // fp16 d + 16 B nibbles
	Q4_1   = Storage{"q4_1", 32, 20 * 8, 0}  // fp16 d, m + 16 B
	Q5_0   = Storage{"q5_0", 32, 22 * 8, 0}  // fp16 d + 4 B high bits + 16 B
	Q5_1   = Storage{"q5_1", 32, 24 * 8, 0}  // fp16 d, m + 4 B + 16 B
	Q2K    = Storage{"q2_k", 256, 84 * 8, 0} // 16 B scales + 64 B quants + fp16 d, dmin
	Q3K    = Storage{"q3_k", 256, 110 * 8, 0}
	Q4K    = Storage{"q4_k", 256, 144 * 8, 0}
	Q5K    = Storage{"q5_k", 256, 176 * 8, 0}
	Q6K    = Storage{"q6_k", 256, 210 * 8, 0}
	IQ1S   = Storage{"iq1_s", 256, 50 * 8, 0}
	IQ1M   = Storage{"iq1_m", 256, 56 * 8, 0}
	IQ2XXS = Storage{"iq2_xxs", 256, 66 * 8, 0}
	IQ2XS  = Storage{"iq2_xs", 256, 74 * 8, 0}
	IQ2S   = Storage{"iq2_s", 256, 82 * 8, 0}
	IQ3XXS = Storage{"iq3_xxs", 256, 98 * 8, 0}
	IQ3S   = Storage{"iq3_s", 256, 110 * 8, 0}
	IQ4NL  = Storage{"iq4_nl", 32, 18 * 8, 0}
	IQ4XS  = Storage{"iq4_xs", 256, 136 * 8, 0}
	TQ1_0  = Storage{"tq1_0", 256, 54 * 8, 0}
	TQ2_0  = Storage{"tq2_0", 256, 66 * 8, 0}
	MXFP4  = Storage{"mxfp4", 32, 17 * 8, 0} // E8M0 scale + 32 × E2M1
)

// Layouts of non-GGUF checkpoints.
var (
	// Int4G128 is GPTQ/AWQ 4-bit with group 128: per group an fp16 scale and
	// a packed 4-bit zero point (AutoGPTQ QuantLinear qzeros/scales buffers).
	Int4G128 = Storage{"int4-g128", 128, 128*4 + 16 + 4, 0}
	// Int4G32 is MLC's q4f16_1: int4 with one fp16 scale per 32 weights.
	Int4G32 = Storage{"int4-g32", 32, 32*4 + 16, 0}
	// Int8PerChannel is int8 weights with one fp16 scale per output row.
	Int8PerChannel = Storage{"int8-per-channel", 1, 8, 16}
	// Int4PerChannel is MLC's q4f16_ft (FasterTransformer): int4 weights
	// with one fp16 scale per output row (mlc-ai/mlc-llm
	// python/mlc_llm/quantization/ft_quantization.py: group_size None, a
	// scale of shape (1, out_features)).
	Int4PerChannel = Storage{"int4-per-channel", 1, 4, 16}
	// FP8 is e4m3/e5m2 with a per-tensor scale (negligible).
	FP8 = Storage{"fp8", 1, 8, 0}
	// MLXQ4 is MLX's affine 4-bit: groups of 64 with a 16-bit scale and a
	// 16-bit bias each (mlx.core.quantize defaults).
	MLXQ4 = Storage{"mlx-q4", 64, 64*4 + 32, 0}
	// MLXQ8 is the same at 8 bits.
	MLXQ8 = Storage{"mlx-q8", 64, 64*8 + 32, 0}
)

// StorageTypes lists every storage type by name.
var StorageTypes = []Storage{
	F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2K, Q3K, Q4K, Q5K, Q6K,
	IQ1S, IQ1M, IQ2XXS, IQ2XS, IQ2S, IQ3XXS, IQ3S, IQ4NL, IQ4XS, TQ1_0, TQ2_0, MXFP4,
	Int4G128, Int4G32, Int4PerChannel, Int8PerChannel, FP8, MLXQ4, MLXQ8,
}

// LookupStorage is the storage type of that name (StorageTypes).
func LookupStorage(name string) (Storage, bool) {
	for _, st := range StorageTypes {
		if st.Name == name {
			return st, true
		}
	}
	return Storage{}, false
}

// fallback is llama.cpp's tensor_type_fallback: the type used when a row
// length is not a multiple of the wanted type's block size.
func fallback(want Storage, cols int) Storage {
	if want.Fits(cols) {
		return want
	}
	var alt Storage
	switch want {
	case IQ1S, IQ1M, IQ2XXS, IQ2XS, IQ2S, IQ3XXS, IQ3S, IQ4XS:
		alt = IQ4NL
	case Q2K, Q3K, TQ1_0, TQ2_0:
		alt = Q4_0
	case Q4K:
		alt = Q5_0
	case Q5K:
		alt = Q5_1
	case Q6K:
		alt = Q8_0
	default:
		alt = F16
	}
	if !alt.Fits(cols) {
		return F16
	}
	return alt
}

// ggmlTypes maps ggml_type ids (ggml.h) to storage types.
var ggmlTypes = map[uint32]Storage{
	0: F32, 1: F16, 2: Q4_0, 3: Q4_1, 6: Q5_0, 7: Q5_1, 8: Q8_0, 10: Q2K, 11: Q3K, 12: Q4K, 13: Q5K, 14: Q6K,
	16: IQ2XXS, 17: IQ2XS, 18: IQ3XXS, 19: IQ1S, 20: IQ4NL, 21: IQ3S, 22: IQ2S, 23: IQ4XS,
	24: {"i8", 1, 8, 0}, 25: {"i16", 1, 16, 0}, 26: {"i32", 1, 32, 0}, 27: {"i64", 1, 64, 0}, 28: {"f64", 1, 64, 0},
	29: IQ1M, 30: BF16, 34: TQ1_0, 35: TQ2_0, 39: MXFP4,
}

// StorageOfGGMLType is the storage type of a ggml_type id, as GGUF tensor
// tables record it.
func StorageOfGGMLType(id uint32) (Storage, bool) {
	s, ok := ggmlTypes[id]
	return s, ok
}

// FileFormat is the weight format of one file whose tensors have known
// types: a recipe that looks each tensor up by name (GGUF names), and
// fallback for tensors the file does not list.
func FileFormat(types map[string]Storage, fallback Storage) WeightFormat {
	compute := fp16Math
	quant := 0
	for _, st := range types {
		if st.BlockSize > 1 {
			quant++
		}
	}
	switch {
	case quant > 0:
		compute = ggufQuant
	case fallback == BF16:
		compute = bf16Math
	}
	return WeightFormat{Name: FileWeightsName, Family: "file", Compute: compute, quantized: quant > 0,
		Description: "the tensor types recorded in the model file",
		assign: func(s *Spec, t Tensor) Storage {
			if st, ok := types[t.Name]; ok {
				return st
			}
			return fallback
		}}
}

// GGMLTypeOf is the ggml_type id GGUF records for a storage type.
func GGMLTypeOf(s Storage) (uint32, bool) {
	for id, st := range ggmlTypes {
		if st.Name == s.Name {
			return id, true
		}
	}
	return 0, false
}

// GGMLQuantized reports whether s is one of ggml's block-quantized types
// (q4_0, q4_k, iq4_nl, …): weights llama.cpp multiplies with quantized
// activations, not a float type.
func (s Storage) GGMLQuantized() bool { return ggmlQuantized[s.Name] }

// KQuant reports whether s is one of ggml's K-quants (q2_k to q6_k).
func (s Storage) KQuant() bool {
	switch s.Name {
	case Q2K.Name, Q3K.Name, Q4K.Name, Q5K.Name, Q6K.Name:
		return true
	}
	return false
}

// ggmlQuantized holds the names of ggml's block-quantized types.
var ggmlQuantized = func() map[string]bool {
	m := map[string]bool{}
	for _, st := range ggmlTypes {
		if st.BlockSize > 1 {
			m[st.Name] = true
		}
	}
	return m
}()
