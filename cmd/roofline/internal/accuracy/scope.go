package accuracy

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// ScopePrefix begins the exclude reason of a run held out of scope: a
// case the model has no sourced term for, kept out of the fit and the
// scores like any excluded run, but predicted and shown (docs/accuracy.md,
// "Held out of scope"), and, for the MoE decodes among them, the interval
// every MoE decode of their class is widened to (runtimes.Class.MoEDecode).
const ScopePrefix = "scope: "

// InScope reports whether run r is held out of scope (ScopePrefix).
func InScope(r measured.Run) bool { return strings.HasPrefix(r.Exclude, ScopePrefix) }

// ScopeRow is one run held out of scope beside its prediction.
type ScopeRow struct {
	Run              measured.Run
	Class            Key
	Model, Device    string
	MoE              bool
	Measured         float64 // tokens/s
	Predicted        float64 // tokens/s, the built-in profiles'
	MeasuredOverPred float64 // of the rate: Measured / Predicted
}

// TimeRatio is the run's measured time over its predicted time.
func (r ScopeRow) TimeRatio() float64 { return r.Predicted / r.Measured }

// ScopeRows predicts the runs held out of scope with the built-in
// profiles of cat, as `roofline compare` does. A run that cannot be
// resolved is an error.
func ScopeRows(cat *profiles.Catalog, runs []measured.Run) ([]ScopeRow, error) {
	ev := compare.New(cat, compare.Options{Sim: sim.DefaultOptions})
	var out []ScopeRow
	for _, r := range runs {
		if !InScope(r) || r.Test == measured.E2E {
			continue
		}
		rs, err := ev.Resolve(r)
		if err != nil {
			return nil, fmt.Errorf("%s (%s): %w", r.Source(), r.Cited(), err)
		}
		s := rs.Setup
		k := Key{Runtime: s.Runtime.Name, Kind: s.Engine.Kind, Backend: s.Runtime.Backend(s.Device, s.Engine)}
		pred := float64(r.Tokens()) / compare.Phase(s, r).Time
		out = append(out, ScopeRow{Run: r, Class: k, Model: s.Model.Spec.Name, Device: s.Device.Name, MoE: s.Model.Spec.MoE != nil,
			Measured: r.TokensPerS, Predicted: pred, MeasuredOverPred: r.TokensPerS / pred})
	}
	return out, nil
}

// ScopeSpreads are, by class, the runs held out of scope that keep
// selects reduced to the interval that covers them: measured over
// predicted time from the fastest run's to the slowest's, with a basis
// naming what they are (what: "MoE decode tests held out of scope"). A
// class with none is absent. The MoE decodes (MoEDecodes) give a class
// its runtimes.Class.MoEDecode, the decodes at an NPU clock below its
// maximum (NPUClockDecodes) its NPUClockDecode.
func ScopeSpreads(rows []ScopeRow, keep func(ScopeRow) bool, what string) map[Key]ScopeSpread {
	by := map[Key][]ScopeRow{}
	for _, r := range rows {
		if keep(r) {
			by[r.Class] = append(by[r.Class], r)
		}
	}
	out := map[Key]ScopeSpread{}
	for k, rs := range by {
		out[k] = scopeSpread(rs, what)
	}
	return out
}

// The runs ScopeSpreads reduces, and what its basis calls them.
const (
	MoEDecodesWhat      = "MoE decode tests held out of scope"
	NPUClockDecodesWhat = "decode tests at an NPU clock below its maximum held out of scope"
)

// MoEDecodes keeps the decodes of an MoE model (runtimes.Class.MoEDecode).
func MoEDecodes(r ScopeRow) bool { return r.MoE && r.Run.Test == measured.Decode }

// NPUClockDecodes keeps the decodes at an NPU clock below the engine's
// maximum (a runs CSV's clocks column, npu=…; runtimes.Class.NPUClockDecode).
func NPUClockDecodes(r ScopeRow) bool {
	return r.Run.BoardClocks.NPU > 0 && r.Run.Test == measured.Decode
}

// ScopeSpread is an interval covering runs held out of scope and what
// they are: runtimes.Class's MoEDecode and MoEDecodeBasis, or its
// NPUClockDecode and NPUClockDecodeBasis.
type ScopeSpread struct {
	Spread runtimes.Spread
	Basis  string
}

// scopeSpread is the interval covering runs rs held out of scope, what
// says what they are.
func scopeSpread(rs []ScopeRow, what string) ScopeSpread {
	lo, hi := math.Inf(1), math.Inf(-1)
	var models, devices, sources []string
	for _, r := range rs {
		t := r.TimeRatio()
		lo, hi = math.Min(lo, t), math.Max(hi, t)
		models = appendNew(models, r.Model)
		devices = appendNew(devices, r.Device)
		sources = appendNew(sources, strings.SplitN(r.Run.Cited(), " ", 2)[0])
	}
	sort.Strings(models)
	sort.Strings(devices)
	sort.Strings(sources)
	basis := fmt.Sprintf("%d %s (%s on %s; %s): measured at %.2f-%.2f of the predicted rate",
		len(rs), what, strings.Join(models, ", "), strings.Join(devices, ", "), strings.Join(sources, ", "), 1/hi, 1/lo)
	// Rounded outward to the 4 digits a profile keeps, so that the
	// interval read back still covers every run.
	return ScopeSpread{Spread: runtimes.Spread{Low: sig4(lo, math.Floor), High: sig4(hi, math.Ceil)}, Basis: basis}
}

// sig4 rounds v > 0 to 4 significant digits with round (math.Floor or
// math.Ceil).
func sig4(v float64, round func(float64) float64) float64 {
	p := math.Pow(10, 3-math.Floor(math.Log10(v)))
	return round(v*p) / p
}

func appendNew(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
