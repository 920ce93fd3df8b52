package hardware

import (
	"errors"
	"math"
	"testing"
)

// KQuantDecode joins a decode step's product time t and the K-quant
// arithmetic a = F_K / (P·KQuantGEMV) through (t⁴ + a⁴)^¼.
func TestKQuantDecode(t *testing.T) {
	for _, c := range []struct {
		name           string
		k, t, flops, p float64
		want           float64
	}{
		// 15 GFLOP at 10 TFLOP/s × 0.1: a = 15 ms; (20⁴ + 15⁴)^¼ ms =
		// (160000 + 50625)^¼ = √458.94 = 21.4229 ms.
		{"both", 0.1, 20e-3, 15e9, 10e12, 21.4229e-3},
		// a = t: 2^¼ × t.
		{"equal", 0.1, 15e-3, 15e9, 10e12, 15e-3 * 1.189207},
		// No bound, no K-quant work, no peak: t.
		{"unset", 0, 20e-3, 15e9, 10e12, 20e-3},
		{"no work", 0.1, 20e-3, 0, 10e12, 20e-3},
		{"no peak", 0.1, 20e-3, 15e9, 0, 20e-3},
	} {
		e := Efficiency{KQuantGEMV: c.k}
		if got := e.KQuantDecode(c.t, c.flops, c.p); math.Abs(got/c.want-1) > 1e-5 {
			t.Errorf("%s: %.6g s, want %.6g s", c.name, got, c.want)
		}
	}
}

// kquant_gemv is a share: 0 means none, above 1 or negative is refused
// by the profile's key.
func TestKQuantGEMVValidate(t *testing.T) {
	base := Efficiency{Bandwidth: 0.8, ComputeMax: 0.5, Attention: 0.3, HalfRows: 10, StepOverhead: 1e-4, PassOverhead: 1e-4, LayerOverhead: 1e-5}
	for _, c := range []struct {
		k  float64
		ok bool
	}{{0, true}, {0.08, true}, {1, true}, {1.5, false}, {-0.1, false}, {math.NaN(), false}} {
		e := base
		e.KQuantGEMV = c.k
		err := e.Validate()
		if (err == nil) != c.ok {
			t.Errorf("kquant_gemv %g: error %v, want ok %v", c.k, err, c.ok)
		}
		if err != nil && !c.ok {
			var ke *KeyError
			if !errors.As(err, &ke) || ke.Key != "kquant_gemv" {
				t.Errorf("kquant_gemv %g: error %v does not name the key", c.k, err)
			}
		}
	}
	// Parameters and EfficiencyOf carry it, named as profiles spell it.
	e := base
	e.KQuantGEMV, e.ReadShare = 0.08, 0.9
	p := e.Parameters()
	if len(p) != len(ParameterNames) || ParameterNames[len(p)-2] != "kquant_gemv" || ParameterNames[len(p)-1] != "read_share" || EfficiencyOf(p) != e {
		t.Errorf("parameters %v (%v) do not round-trip %+v", p, ParameterNames, e)
	}
}

// read_share, the share of a measured read a GPU's decode streams, is 0
// (none) or 1 % to 4, and an error names the key.
func TestReadShareValidate(t *testing.T) {
	base := Efficiency{Bandwidth: 0.7, ComputeMax: 0.5, HalfRows: 100, Attention: 0.3, StepOverhead: 1e-4, PassOverhead: 1e-4, LayerOverhead: 1e-5}
	for _, c := range []struct {
		s  float64
		ok bool
	}{{0, true}, {0.9, true}, {1.2, true}, {0.005, false}, {5, false}, {-0.5, false}} {
		e := base
		e.ReadShare = c.s
		err := e.Validate()
		if (err == nil) != c.ok {
			t.Errorf("read_share %g: error %v, want ok %v", c.s, err, c.ok)
		}
		var ke *KeyError
		if err != nil && (!errors.As(err, &ke) || ke.Key != "read_share") {
			t.Errorf("read_share %g: error %v does not name the key", c.s, err)
		}
	}
}
