package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// widenedCUDA is the built-in catalogue, llama.cpp with its device levels
// removed and its cuda class's decode interval set to [0.9, 1.25] and its
// MoE decode interval to [1.5, 2.5] (the hand values of the tests below),
// and the RTX 4090, which takes that class's interval.
func widenedCUDA(t *testing.T) (*profiles.Catalog, runtimes.Runtime, *hardware.Device) {
	t.Helper()
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	base, err := cat.Runtime("llama.cpp")
	if err != nil {
		t.Fatal(err)
	}
	rt := *base
	rt.Levels = nil
	rt.Classes = map[string]*runtimes.Class{}
	for k, c := range base.Classes {
		rt.Classes[k] = c
	}
	cuda := *base.Classes["cuda"]
	cuda.Decode = runtimes.Spread{Low: 0.9, High: 1.25}
	cuda.MoEDecode, cuda.MoEDecodeBasis = runtimes.Spread{Low: 1.5, High: 2.5}, "6 held-out runs"
	rt.Classes["cuda"] = &cuda
	d, err := cat.Device("rtx-4090")
	if err != nil {
		t.Fatal(err)
	}
	return cat, rt, d
}

// TestMoEDecodeWidening: an MoE model's decode on a class whose MoE decode
// runs were held out of scope (runtimes.Class.MoEDecode) takes the
// interval that covers them where it is wider, and says so; a dense
// model, or a prediction from flags, does not. Hand values: llama.cpp's
// cuda class with its decode interval set to [0.9, 1.25] and MoEDecode to
// [1.5, 2.5] (the device levels removed, so that the class's interval is
// the one the RTX 4090 takes): gpt-oss-20b's TPOT interval is
// [min(0.9, 1.5), max(1.25, 2.5)] = [0.9, 2.5] × TPOT, Llama-2-7B's stays
// [0.9, 1.25] × TPOT.
func TestMoEDecodeWidening(t *testing.T) {
	cat, rt, d := widenedCUDA(t)
	w := sim.Workload{Prompt: 512, Output: 128, Batch: 1}
	for _, tc := range []struct {
		model, weights string
		flags          bool
		lo, hi         float64 // × TPOT; 0: no interval
		warned         bool
	}{
		{"gpt-oss-20b", "mxfp4_moe", false, 0.9, 2.5, true},
		{"qwen3-30b-a3b", "q4_0", false, 0.9, 2.5, true},
		{"llama-2-7b", "q4_0", false, 0.9, 1.25, false},
		{"gpt-oss-20b", "mxfp4_moe", true, 0, 0, false},
	} {
		spec, err := cat.Model(tc.model)
		if err != nil {
			t.Fatal(err)
		}
		m, err := model.BuildNamed(spec, tc.weights, "f16", rt.LayoutFor(spec, tc.weights))
		if err != nil {
			t.Fatal(err)
		}
		o := sim.DefaultOptions
		if tc.flags {
			o.BandwidthEfficiency = 0.8
		}
		s, err := sim.NewSetup(m, d, &d.Engines[0], &rt, o)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		warned := false
		for _, wn := range r.Warnings {
			if wn.Code == "moe-decode-unmodelled" {
				warned = strings.Contains(wn.Message, "6 held-out runs")
			}
		}
		if warned != tc.warned {
			t.Errorf("%s (flags %v): warned %v, want %v: %v", tc.model, tc.flags, warned, tc.warned, r.Warnings)
		}
		iv := r.TPOTInterval
		if tc.hi == 0 {
			if iv != nil {
				t.Errorf("%s (flags): an interval %+v, want none", tc.model, *iv)
			}
			continue
		}
		if iv == nil {
			t.Fatalf("%s: no TPOT interval", tc.model)
		}
		if lo, hi := iv.Lo/r.TPOT, iv.Hi/r.TPOT; math.Abs(lo-tc.lo) > 1e-9 || math.Abs(hi-tc.hi) > 1e-9 {
			t.Errorf("%s: TPOT interval %.4g-%.4g × TPOT, want %.4g-%.4g", tc.model, lo, hi, tc.lo, tc.hi)
		}
	}
}

// TestSplitSaysItsMoEDecodeWidening: an offloaded MoE model's GPU stage
// is priced on the widened class (moeDecodeClass: llama.cpp's cuda class,
// decode 0.723-1.139 widened to 0.723-2.298 for its held-out MoE runs),
// so its part of the TPOT interval is widened; the split's warnings say
// so, as one device's do (they said nothing, while plan printed the note
// for the same configuration). gpt-oss-120b MXFP4 on an RTX 4090 at
// --n-cpu-moe 24 over PCIe 4.0 x16; the host's CPU class has no MoE
// interval, so the note is the GPU stage's alone, once.
func TestSplitSaysItsMoEDecodeWidening(t *testing.T) {
	gpu := splitSetup(t, "gpt-oss-120b", "mxfp4_moe", "rtx-4090", "", "llama.cpp")
	host := splitSetup(t, "gpt-oss-120b", "mxfp4_moe", "desktop-ddr5", "cpu", "llama.cpp")
	if gpu.Inputs.MoEDecodeNote == "" {
		t.Fatal("the GPU's setup has no MoE decode note: the test's premise fails")
	}
	w := sim.Workload{Prompt: 512, Output: 64, Batch: 1}
	sp, err := sim.NewOffload(gpu, host, link(t, "pcie4-x16"), sim.OffloadOptions{GPULayers: sim.AutoLayers, NCPUMoE: 24}, w)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sp.Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, wn := range r.Warnings {
		if wn.Code == "moe-decode-unmodelled" {
			n++
			if !strings.Contains(wn.Message, gpu.Inputs.MoEDecodeNote) || !strings.Contains(wn.Message, "rtx-4090") {
				t.Errorf("warning %q does not give the GPU stage's note", wn.Message)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d moe-decode-unmodelled warnings, want 1: %v", n, r.Warnings)
	}
	// Output 1: no decode step, no decode interval to widen, no warning.
	w.Output = 1
	if r, err = sp.Predict(w); err != nil {
		t.Fatal(err)
	}
	for _, wn := range r.Warnings {
		if wn.Code == "moe-decode-unmodelled" {
			t.Errorf("no decode step, yet warned %q", wn.Message)
		}
	}
}

// TestMoEDecodeWideningUnderPrefillCalibration: a calibration that
// measured no decode (DecodeDOF 0) keeps the class's decode interval
// (CalibratesPhase), so an MoE model's decode under it takes the widened
// one, as without the calibration; one that measured decode gives its own
// and is left alone. Hand values, llama.cpp's cuda class set as in
// TestMoEDecodeWidening (decode [0.9, 1.25], MoE decode [1.5, 2.5]) and
// read at the calibration's 90 % (one-sided 95 %, z = 1.644854):
//
//	widened [0.9, 2.5]: mu = (ln 0.9 + ln 2.5)/2 = 0.405465,
//	  sigma = (ln 2.5 − ln 0.9)/(2 × 1.281552) = 0.398599,
//	  hi = exp(0.405465 + 1.644854 × 0.398599) = 2.8896
//	class [0.9, 1.25]: mu = 0.058892, sigma = 0.128166,
//	  hi = exp(0.058892 + 1.644854 × 0.128166) = 1.3096 (before this test)
func TestMoEDecodeWideningUnderPrefillCalibration(t *testing.T) {
	cat, rt, d := widenedCUDA(t)
	spec, err := cat.Model("gpt-oss-20b")
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.BuildNamed(spec, "mxfp4_moe", "f16", rt.LayoutFor(spec, "mxfp4_moe"))
	if err != nil {
		t.Fatal(err)
	}
	w := sim.Workload{Prompt: 512, Output: 128, Batch: 1}
	for _, tc := range []struct {
		decodeDOF int
		hi        float64 // × TPOT
		warned    bool
	}{
		{0, 2.8896, true}, // prefill only: the class's decode interval, widened
		{5, 0, false},     // decode measured: the calibration's own
	} {
		e := d.Engines[0]
		e.Calibration = &hardware.Calibration{Runtime: "llama.cpp", Device: d.Name, Efficiency: rt.Classes["cuda"].Efficiency,
			PrefillDOF: 5, PrefillSigma: 0.05, DecodeDOF: tc.decodeDOF, DecodeSigma: 0.05}
		s, err := sim.NewSetup(m, d, &e, &rt, sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		warned := false
		for _, wn := range r.Warnings {
			warned = warned || wn.Code == "moe-decode-unmodelled"
		}
		if warned != tc.warned {
			t.Errorf("decode DOF %d: warned %v, want %v: %v", tc.decodeDOF, warned, tc.warned, r.Warnings)
		}
		if tc.hi == 0 {
			continue
		}
		if iv := r.TPOTInterval; iv == nil || math.Abs(iv.Hi/r.TPOT-tc.hi) > 1e-4 {
			t.Errorf("decode DOF %d: TPOT interval %+v of %.4g, want its slow end %.4g × TPOT", tc.decodeDOF, iv, r.TPOT, tc.hi)
		}
	}
}
