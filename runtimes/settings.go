package runtimes

import (
	"fmt"
	"math"
	"strings"
)

// Settings are how a run was set up beyond its model, format and device:
// knobs a user knows of their own setup that change its speed where the
// runtime's profile has fitted how much (SettingFactors). The zero value
// is the runtime's reference: what its class was measured at.
type Settings struct {
	// MaxContext is the context the model was converted for and its KV
	// cache allocated for (RKLLM's llm.build(max_context=…) and
	// max_context_len), tokens; 0: the runtime's reference.
	MaxContext int
	// Clocks is how the board's clocks were set: ClocksPinned (every
	// clock at its maximum, as a vendor's benchmark script sets them),
	// ClocksDefault (the governors the board image leaves), "" for the
	// runtime's reference.
	Clocks string
}

// The values of Settings.Clocks.
const (
	ClocksPinned  = "pinned"
	ClocksDefault = "default"
)

// ClockSettings lists the values Settings.Clocks may take.
var ClockSettings = []string{ClocksPinned, ClocksDefault}

// Validate checks the settings' values.
func (s Settings) Validate() error {
	if s.MaxContext < 0 {
		return fmt.Errorf("max context %d: must be a positive number of tokens (0: the runtime's)", s.MaxContext)
	}
	if s.Clocks != "" && s.Clocks != ClocksPinned && s.Clocks != ClocksDefault {
		return fmt.Errorf("clocks %q: must be %s", s.Clocks, strings.Join(ClockSettings, " or "))
	}
	return nil
}

// IsZero reports whether the settings are the runtime's reference.
func (s Settings) IsZero() bool { return s == Settings{} }

// SettingReference is what a runtime's classes were measured at, each
// with its source ([settings] in its profile): a run set up otherwise is
// priced with the fitted SettingFactors.
type SettingReference struct {
	MaxContext       int
	MaxContextSource string
	Clocks           string
	ClocksSource     string
}

// SettingFactors are how much the settings change a phase's time, fitted
// to published runs that state them (or whose defaults the runs CSV
// says) beside the class's reference runs: log factors on the time of
// every decode step and prefill pass. Zero factors change nothing.
type SettingFactors struct {
	// ContextDecode and ContextPrefill are per doubling of MaxContext
	// above the reference's (none below it: a smaller context is not
	// measured).
	ContextDecode, ContextPrefill float64
	// ClocksDecode and ClocksPrefill apply with Clocks "default" where
	// the reference is pinned.
	ClocksDecode, ClocksPrefill float64
	// Decode and Prefill are 80 % intervals of measured over predicted
	// time for runs set up away from the reference, each model predicted
	// by factors fitted without it; zero when too few (the level's or
	// class's apply).
	Decode, Prefill Spread
	// MeasuredContext is the largest MaxContext of the runs fitted: the
	// factors extrapolate beyond it.
	MeasuredContext int
	// Basis says what the factors were fitted on.
	Basis string
}

// Factors are the multipliers on decode and prefill time for settings s
// (1, 1 at the reference or without fitted factors).
func (r *Runtime) Factors(class string, s Settings) (decode, prefill float64) {
	f := r.SettingFactors[class]
	if f == nil || s.IsZero() {
		return 1, 1
	}
	d, p := f.Logs(r.SettingReference, s)
	return math.Exp(d), math.Exp(p)
}

// WithSettings is class c (of key class) as settings s price it. Set up
// away from the reference, its intervals are those of the runs set up so,
// where the fit gave them, on a measured device (c.OwnDevice); on a device
// no run measured they span those and the class's, which alone say how
// far an unmeasured board lands from the class. With the clocks unstated the prediction is the
// reference's, but the board may be one left to its governors: each
// interval's slow end reaches that board's (GovernorsSlowEnd), so that the
// interval holds what either measures.
func (r *Runtime) WithSettings(class string, c *Class, s Settings) *Class {
	f := r.SettingFactors[class]
	if f == nil || c == nil {
		return c
	}
	out := *c
	if d, p := r.Factors(class, s); d != 1 || p != 1 {
		if f.Decode.Low > 0 {
			out.Decode = settingsSpread(c.Decode, f.Decode, c.OwnDevice)
		}
		if f.Prefill.Low > 0 {
			out.Prefill = settingsSpread(c.Prefill, f.Prefill, c.OwnDevice)
		}
	}
	if s.Clocks == "" && r.SettingReference.Clocks == ClocksPinned {
		out.Decode.High = GovernorsSlowEnd(out.Decode.High, f.Decode.High, f.ClocksDecode)
		out.Prefill.High = GovernorsSlowEnd(out.Prefill.High, f.Prefill.High, f.ClocksPrefill)
	}
	return &out
}

// settingsSpread is the interval of a prediction set up away from the
// reference: the runs set up so (runs) on a measured device, or on one
// no run measured the span of those and the class's (class).
func settingsSpread(class, runs Spread, own bool) Spread {
	if own || class.Low <= 0 {
		return runs
	}
	return Spread{Low: min(class.Low, runs.Low), High: max(class.High, runs.High)}
}

// GovernorsSlowEnd is the slow end of an interval priced at pinned clocks
// (high, measured over predicted time) made to hold a board left to its
// governors too: the larger of high and that board's own slow end, the
// clocks' log factor k (none if negative) times the slow end of the runs
// measured so (runs; 0 where the fit gave none: high stands for it). The
// interval so spans both setups, its fast end the pinned one's.
func GovernorsSlowEnd(high, runs, k float64) float64 {
	if runs <= 0 {
		runs = high
	}
	_, end := governorsEnd(k, runs)
	return max(high, end)
}

// governorsEnd is the slow end of a board left to its governors: the
// clocks' factor exp(k) (none if k is negative) and its product with
// runs, the slow end of the runs measured so.
func governorsEnd(k, runs float64) (clocks, end float64) {
	clocks = math.Exp(max(k, 0))
	return clocks, clocks * runs
}

// Logs are the log factors on decode and prefill time of settings s
// against reference ref.
func (f *SettingFactors) Logs(ref SettingReference, s Settings) (decode, prefill float64) {
	x := ContextDoublings(ref, s)
	decode, prefill = x*f.ContextDecode, x*f.ContextPrefill
	if ClocksOff(ref, s) {
		decode += f.ClocksDecode
		prefill += f.ClocksPrefill
	}
	return decode, prefill
}

// ContextDoublings is how many doublings s's max context lies above the
// reference's (0 at or below it, or when either is unstated).
func ContextDoublings(ref SettingReference, s Settings) float64 {
	if s.MaxContext <= ref.MaxContext || ref.MaxContext <= 0 {
		return 0
	}
	return math.Log2(float64(s.MaxContext) / float64(ref.MaxContext))
}

// ClocksOff reports whether s's clocks differ from the reference's.
func ClocksOff(ref SettingReference, s Settings) bool {
	return s.Clocks != "" && ref.Clocks != "" && s.Clocks != ref.Clocks
}

// HasSettings reports whether the runtime's profile says what its classes
// were measured at (a [settings] table): only then do Settings apply.
func (r *Runtime) HasSettings() bool {
	return r.SettingReference.MaxContext > 0 || r.SettingReference.Clocks != ""
}

// DescribeSettings says what settings s are priced at, for a
// prediction's notes: "" for a runtime without settings.
func (r *Runtime) DescribeSettings(class string, s Settings) string {
	if !r.HasSettings() {
		return ""
	}
	ref := r.SettingReference
	ctx := s.MaxContext
	if ctx == 0 {
		ctx = ref.MaxContext
	}
	f := r.SettingFactors[class]
	d, p := r.Factors(class, s)
	switch {
	case d != 1 || p != 1:
		clocks := s.Clocks
		if clocks == "" {
			clocks = ref.Clocks
		}
		out := fmt.Sprintf("max context %d, clocks %s: decode %.2f×, prefill %.2f× the time at %d and %s, %s", ctx, clocks, d, p, ref.MaxContext, ref.Clocks, f.Basis)
		if f.MeasuredContext > 0 && s.MaxContext > f.MeasuredContext {
			out += fmt.Sprintf("; beyond the largest context measured (%d): extrapolated", f.MeasuredContext)
		}
		return out
	case f == nil && (ContextDoublings(ref, s) > 0 || ClocksOff(ref, s)):
		return fmt.Sprintf("max context %d, clocks %s: priced as at %d and %s, what %s's %s class was measured at: nothing fitted says how these settings change it", ctx, s.Clocks, ref.MaxContext, ref.Clocks, r.Name, class)
	case s.Clocks == "" && f != nil && ref.Clocks == ClocksPinned && (f.ClocksDecode > 0 || f.ClocksPrefill > 0):
		return fmt.Sprintf("max context %d, clocks not stated: priced %s, as %s's class was measured; the intervals' slow ends reach a board left to its governors (decode %s, prefill %s)",
			ctx, ref.Clocks, r.Name, governorsReach(f.ClocksDecode, f.Decode.High), governorsReach(f.ClocksPrefill, f.Prefill.High))
	}
	clocks := s.Clocks
	if clocks == "" {
		clocks = ref.Clocks
	}
	return fmt.Sprintf("max context %d, clocks %s: as %s's class was measured", ctx, clocks, r.Name)
}

// governorsReach says how far GovernorsSlowEnd puts a phase's slow end for
// a board left to its governors: its clocks factor exp(k) times the slow
// end of the runs measured so (runs), a multiple of the time priced, or
// of the pinned slow end where no runs' interval was fitted.
func governorsReach(k, runs float64) string {
	c, end := governorsEnd(k, runs)
	if runs <= 0 {
		return fmt.Sprintf("%.2f× the pinned slow end", c)
	}
	return fmt.Sprintf("%.2f× the time priced (%.2f× for the clocks, × %.2f where the runs measured so end)", end, c, runs)
}
