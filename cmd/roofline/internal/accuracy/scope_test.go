package accuracy

import (
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/hardware"
)

// TestScopeSpreads: the MoE decodes held out of scope give their
// class the interval of measured over predicted time that covers them,
// rounded outward to 4 digits; dense and prefill runs give none. Hand
// values: 187.25 t/s against 290.6 predicted is 290.6 / 187.25 = 1.55194
// of the time (floored: 1.551); 163.48 against 372.7 is 2.27979 (ceiled:
// 2.280); the rates are 0.64 and 0.44 of the predicted.
func TestScopeSpreads(t *testing.T) {
	cuda := Key{Runtime: "llama.cpp", Kind: hardware.GPU, Backend: "cuda"}
	row := func(model string, moe bool, test measured.Test, meas, pred float64) ScopeRow {
		return ScopeRow{Run: measured.Run{Test: test, Origin: "LCPP-TG #16834"}, Class: cuda, Model: model, Device: "rtx-4090", MoE: moe,
			Measured: meas, Predicted: pred, MeasuredOverPred: meas / pred}
	}
	moe := func(rows ...ScopeRow) map[Key]ScopeSpread { return ScopeSpreads(rows, MoEDecodes, MoEDecodesWhat) }
	got := moe(
		row("gpt-oss-20b", true, measured.Decode, 187.25, 290.6),
		row("qwen3-30b-a3b", true, measured.Decode, 163.48, 372.7),
		row("llama-2-7b", false, measured.Decode, 100, 400),
		row("qwen3-30b-a3b", true, measured.Prefill, 100, 400),
	)
	sp, ok := got[cuda]
	if len(got) != 1 || !ok {
		t.Fatalf("spreads %+v, want the cuda class's only", got)
	}
	if sp.Spread.Low != 1.551 || sp.Spread.High != 2.28 {
		t.Errorf("interval %v-%v, want 1.551-2.28", sp.Spread.Low, sp.Spread.High)
	}
	for _, want := range []string{"2 MoE decode tests", "gpt-oss-20b, qwen3-30b-a3b on rtx-4090", "LCPP-TG", "0.44-0.64 of the predicted rate"} {
		if !strings.Contains(sp.Basis, want) {
			t.Errorf("basis %q lacks %q", sp.Basis, want)
		}
	}
	if len(moe(row("llama-2-7b", false, measured.Decode, 100, 400))) != 0 {
		t.Error("a dense decode gave its class an MoE interval")
	}
	// The NPU-clock decodes: a decode at npu=300MHz is kept, one at the
	// maxima (no clocks stated) and a prefill at 300 MHz are not. 12.67
	// t/s against 34.0 predicted: 34 / 12.67 = 2.68350 of the time (the
	// only run: floored 2.683, ceiled 2.684), a rate of 0.37.
	slow := row("tinyllama-1.1b", false, measured.Decode, 12.67, 34.0)
	slow.Run.BoardClocks = hardware.Clocks{NPU: 300e6}
	slowPrefill := slow
	slowPrefill.Run.Test = measured.Prefill
	npu := ScopeSpreads([]ScopeRow{slow, slowPrefill, row("tinyllama-1.1b", false, measured.Decode, 24, 34)}, NPUClockDecodes, NPUClockDecodesWhat)
	if sp, ok := npu[cuda]; len(npu) != 1 || !ok || sp.Spread.Low != 2.683 || sp.Spread.High != 2.684 ||
		!strings.HasPrefix(sp.Basis, "1 decode tests at an NPU clock below its maximum held out of scope (tinyllama-1.1b on rtx-4090; LCPP-TG): measured at 0.37-0.37") {
		t.Errorf("NPU-clock spreads %+v, want the one decode at 300 MHz: 2.683-2.684", npu)
	}
}

// TestInScope: only an exclude reason that begins with ScopePrefix holds
// a run out of scope; any other exclusion does not.
func TestInScope(t *testing.T) {
	for _, c := range []struct {
		exclude string
		want    bool
	}{{"scope: MoE decode", true}, {"MoE decode; scope: x", false}, {"", false}, {"output length not stated", false}} {
		if got := InScope(measured.Run{Exclude: c.exclude}); got != c.want {
			t.Errorf("%q: %v, want %v", c.exclude, got, c.want)
		}
	}
}
