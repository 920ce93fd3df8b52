package units

import "fmt"

// Precision names the arithmetic a kernel runs at. It links a weight format
// (which arithmetic it needs) to a compute engine (its peak at that
// arithmetic).
type Precision string

// The precisions a profile may give a peak for.
const (
	FP32 Precision = "fp32"
	FP16 Precision = "fp16"
	BF16 Precision = "bf16"
	FP8  Precision = "fp8"
	INT8 Precision = "int8"
	FP4  Precision = "fp4"
	INT4 Precision = "int4"
)

// Precisions lists every known precision, widest first.
var Precisions = []Precision{FP32, FP16, BF16, FP8, INT8, FP4, INT4}

// ParsePrecision checks that s names a known precision.
func ParsePrecision(s string) (Precision, error) {
	for _, p := range Precisions {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown precision %q (known: fp32, fp16, bf16, fp8, int8, fp4, int4)", s)
}

// RateUnit is "OP/s" for integer precisions and "FLOP/s" otherwise.
func (p Precision) RateUnit() string {
	if p == INT8 || p == INT4 {
		return "OP/s"
	}
	return "FLOP/s"
}

// Float reports whether p is a 16- or 32-bit floating-point arithmetic,
// the kind a kernel that dequantizes its weights computes in.
func (p Precision) Float() bool {
	switch p {
	case FP32, FP16, BF16:
		return true
	}
	return false
}
