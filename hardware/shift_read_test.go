package hardware

import (
	"math"
	"testing"
)

// A level's bandwidth coordinate moves the share of the measured read a
// decode streams (uncapped, a log factor as the cap per unit) as it moves
// the datasheet's share (a logit shift).
func TestShiftedMovesReadShare(t *testing.T) {
	e := Efficiency{Bandwidth: 0.8, UnitBandwidth: 10e9, ReadShare: 0.9}
	got := e.Shifted(Shift{Bandwidth: 0.1})
	// 0.9 × e^0.1 = 0.9 × 1.10517 = 0.99465.
	if want := 0.9 * math.Exp(0.1); math.Abs(got.ReadShare-want) > 1e-12 {
		t.Errorf("read share %g, want %g", got.ReadShare, want)
	}
	// logit(0.8) = ln 4 = 1.38629; + 0.1 = 1.48629; share 1/(1+e^−1.48629) = 0.81548.
	if want := 1 / (1 + math.Exp(-(math.Log(4) + 0.1))); math.Abs(got.Bandwidth-want) > 1e-12 {
		t.Errorf("share %g, want %g", got.Bandwidth, want)
	}
	// No read share stays none.
	if got := (Efficiency{Bandwidth: 0.8}).Shifted(Shift{Bandwidth: 0.1}); got.ReadShare != 0 {
		t.Errorf("no read share became %g", got.ReadShare)
	}
}
