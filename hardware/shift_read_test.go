package hardware

import (
	"math"
	"testing"
)

// A level's read coordinate moves the share of the measured read a
// decode streams (uncapped, a log factor) and nothing else; its
// bandwidth coordinate moves the datasheet's share (a logit shift) and
// leaves the read's alone (a device's decode and prefill apart).
func TestShiftedMovesReadShare(t *testing.T) {
	e := Efficiency{Bandwidth: 0.8, UnitBandwidth: 10e9, ReadShare: 0.9}
	got := e.Shifted(Shift{Read: 0.1})
	// 0.9 × e^0.1 = 0.9 × 1.10517 = 0.99465.
	if want := 0.9 * math.Exp(0.1); math.Abs(got.ReadShare-want) > 1e-12 {
		t.Errorf("read share %g, want %g", got.ReadShare, want)
	}
	if got.Bandwidth != 0.8 {
		t.Errorf("the read coordinate moved the datasheet share to %g", got.Bandwidth)
	}
	got = e.Shifted(Shift{Bandwidth: 0.1})
	// logit(0.8) = ln 4 = 1.38629; + 0.1 = 1.48629; share 1/(1+e^−1.48629) = 0.81548.
	if want := 1 / (1 + math.Exp(-(math.Log(4) + 0.1))); math.Abs(got.Bandwidth-want) > 1e-12 {
		t.Errorf("share %g, want %g", got.Bandwidth, want)
	}
	if got.ReadShare != 0.9 {
		t.Errorf("the bandwidth coordinate moved the read share to %g", got.ReadShare)
	}
	// No read share stays none.
	if got := (Efficiency{Bandwidth: 0.8}).Shifted(Shift{Read: 0.1}); got.ReadShare != 0 {
		t.Errorf("no read share became %g", got.ReadShare)
	}
}
