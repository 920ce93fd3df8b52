package hardware

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/units"
)

// Clocks are the clocks a board runs at below its profile's maxima, as a
// user states them (--clocks ddr=1968MHz,npu=800MHz): Memory is the DDR
// controller's clock (the RK3588's DMC, /sys/class/devfreq/dmc), NPU the
// NPU's, Hz; 0: the profile's maximum.
type Clocks struct {
	Memory, NPU float64
}

// IsZero reports whether c states no clock.
func (c Clocks) IsZero() bool { return c == Clocks{} }

// String is c as ParseClocks reads it ("ddr=1968MHz,npu=800MHz"); "" for
// no clock.
func (c Clocks) String() string {
	var parts []string
	if c.Memory > 0 {
		parts = append(parts, "ddr="+mhz(c.Memory))
	}
	if c.NPU > 0 {
		parts = append(parts, "npu="+mhz(c.NPU))
	}
	return strings.Join(parts, ",")
}

func mhz(hz float64) string { return fmt.Sprintf("%gMHz", hz/1e6) }

// ClockKeys are the clocks ParseClocks reads.
var ClockKeys = []string{"ddr", "npu"}

// ParseClocks reads clocks stated as KEY=FREQ pairs joined by commas:
// ddr (the memory's clock) and npu, each at most once, each a frequency
// with its unit ("1968MHz", "0.8GHz"). Whether the board has that clock
// is the device's to say (Device.AtClocks).
func ParseClocks(s string) (Clocks, error) {
	var c Clocks
	if strings.TrimSpace(s) == "" {
		return c, fmt.Errorf("no clocks: want KEY=FREQ pairs such as ddr=1968MHz,npu=800MHz")
	}
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			return Clocks{}, fmt.Errorf("%q has an empty pair (a comma too many): want KEY=FREQ pairs joined by single commas, such as ddr=1968MHz,npu=800MHz", strings.TrimSpace(s))
		}
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok {
			return Clocks{}, fmt.Errorf("%q is not KEY=FREQ: want ddr=… or npu=… with a frequency, such as ddr=1968MHz", strings.TrimSpace(part))
		}
		var dst *float64
		switch k {
		case "ddr":
			dst = &c.Memory
		case "npu":
			dst = &c.NPU
		default:
			return Clocks{}, fmt.Errorf("%q: no clock %q (want %s)", strings.TrimSpace(part), k, strings.Join(ClockKeys, " or "))
		}
		if *dst != 0 {
			return Clocks{}, fmt.Errorf("%s given twice", k)
		}
		v = strings.TrimSpace(v)
		if v != "" && strings.Trim(v, "0123456789.eE+-") == "" {
			return Clocks{}, fmt.Errorf("%s=%s has no unit: give one, such as %s=%sMHz", k, v, k, v)
		}
		f, err := units.Parse(v, units.DimFrequency)
		if err != nil {
			return Clocks{}, fmt.Errorf("%s=%s: %v (want a frequency such as 800MHz)", k, v, err)
		}
		if !(f >= limits.Clock.Min && f <= limits.Clock.Max) {
			return Clocks{}, fmt.Errorf("%s=%s: a clock is from %s to %s", k, v, mhz(limits.Clock.Min), mhz(limits.Clock.Max))
		}
		*dst = f
	}
	return c, nil
}

// ClocksError is a clock the device cannot run at, with what it can:
// Advice is a value it takes (Device.ClocksAdvice).
type ClocksError struct{ Msg, Advice string }

func (e *ClocksError) Error() string { return e.Msg }

// Hint is the advice: clocks the device does run at.
func (e *ClocksError) Hint() string { return e.Advice }

// ClocksAdvice says which clocks d can be priced at below its maxima with
// engine e priced (nil: any engine): an example value ParseClocks reads
// and AtClocks takes, and the memory's steps and the NPU's range it was
// drawn from; where the profile gives neither, that the maxima are all it
// knows. The memory's example is the step below the highest, the NPU's
// the clock halfway between its lowest and highest, rounded down to 100
// MHz (at least the lowest).
func (d *Device) ClocksAdvice(e *Engine) string {
	var ex, has []string
	if n := len(d.MemoryClocks); n > 0 {
		ex = append(ex, "ddr="+mhz(d.MemoryClocks[max(n-2, 0)]))
		has = append(has, "memory steps "+joinMHz(d.MemoryClocks))
	}
	for i := range d.Engines {
		x := &d.Engines[i]
		if x.Kind != NPU || x.Clock <= 0 || x.MinClock <= 0 || (e != nil && x.Name != e.Name) {
			continue
		}
		mid := max(math.Floor((x.MinClock+x.Clock)/2/100e6)*100e6, x.MinClock)
		ex = append(ex, "npu="+mhz(mid))
		has = append(has, fmt.Sprintf("NPU %s to %s", mhz(x.MinClock), mhz(x.Clock)))
		break
	}
	if len(ex) == 0 {
		what := "any engine"
		if e != nil {
			what = "its " + e.Name + " engine"
		}
		return fmt.Sprintf("%s's profile gives no clocks to set below its maxima for %s (memory_clocks, an NPU's min_clock): leave ddr and npu out", d.Name, what)
	}
	return fmt.Sprintf("%s runs at %s, for example (%s)", d.Name, strings.Join(ex, ","), strings.Join(has, "; "))
}

// clockMatch is how near a stated clock must be to a profile's step to be
// that step: a part in 10⁴ (528 MHz is not 534 MHz; "2.4GHz" is 2400 MHz).
const clockMatch = 1e-4

// AtClocks is d with engine e run at clocks c: the memory at a step of
// the profile's memory_clocks, the bandwidth (and a measured read) scaled
// by that step over the highest — the data rate of the same bus — and an
// NPU engine at a clock within its profile's min_clock to clock, its peaks
// scaled by the clock over its clock (the profile's peak is at its
// clock). The copy shares nothing mutable with d; its Engine for e is
// returned beside it. A clock the profile gives no steps or range for is
// refused, naming what the device has.
func (d *Device) AtClocks(e *Engine, c Clocks) (*Device, *Engine, error) {
	if c.IsZero() {
		return d, e, nil
	}
	cp := *d
	cp.Engines = make([]Engine, len(d.Engines))
	idx := -1
	for i, x := range d.Engines {
		x.Peaks = maps.Clone(x.Peaks)
		cp.Engines[i] = x
		if e != nil && x.Name == e.Name {
			idx = i
		}
	}
	if c.Memory > 0 {
		steps := d.MemoryClocks
		if len(steps) == 0 {
			return nil, nil, d.clocksError(e, fmt.Sprintf("ddr=%s: %s's profile gives no memory clock steps (memory_clocks), so its bandwidth is known only at its maximum: leave ddr out", mhz(c.Memory), d.Name))
		}
		top := steps[len(steps)-1]
		i := slices.IndexFunc(steps, func(s float64) bool { return math.Abs(s-c.Memory) <= clockMatch*s })
		if i < 0 {
			return nil, nil, d.clocksError(e, fmt.Sprintf("ddr=%s: %s's memory runs at %s only (its profile's memory_clocks)", mhz(c.Memory), d.Name, joinMHz(steps)))
		}
		// The step matched, not the figure as typed: 2399.9 MHz is the
		// 2400 MHz step, at its bandwidth.
		r := steps[i] / top
		cp.Bandwidth *= r
		cp.MeasuredBandwidth *= r
		cp.MemoryClock = steps[i]
	}
	if c.NPU > 0 {
		if idx < 0 || cp.Engines[idx].Kind != NPU {
			name := "none"
			if e != nil {
				name = e.Name
				if e.Name != string(e.Kind) {
					name += " (" + string(e.Kind) + ")"
				}
			}
			return nil, nil, d.clocksError(e, fmt.Sprintf("npu=%s: the engine priced is %s, not an NPU: leave npu out, or price the NPU engine", mhz(c.NPU), name))
		}
		x := &cp.Engines[idx]
		if x.Clock <= 0 || x.MinClock <= 0 {
			return nil, nil, d.clocksError(e, fmt.Sprintf("npu=%s: %s's NPU profile gives no clock range (min_clock to clock): leave npu out", mhz(c.NPU), d.Name))
		}
		if c.NPU < x.MinClock*(1-clockMatch) || c.NPU > x.Clock*(1+clockMatch) {
			return nil, nil, d.clocksError(e, fmt.Sprintf("npu=%s: %s's NPU runs from %s to %s (min_clock, clock)", mhz(c.NPU), d.Name, mhz(x.MinClock), mhz(x.Clock)))
		}
		// Within the range: a clock a part in 10⁴ past an end is that end.
		clk := min(max(c.NPU, x.MinClock), x.Clock)
		r := clk / x.Clock
		for p, v := range x.Peaks {
			x.Peaks[p] = v * r
		}
		x.Clock = clk
	}
	if idx < 0 {
		return &cp, e, nil
	}
	return &cp, &cp.Engines[idx], nil
}

// clocksError is a refusal of clocks on d, engine e priced, with advice.
func (d *Device) clocksError(e *Engine, msg string) *ClocksError {
	return &ClocksError{Msg: msg, Advice: d.ClocksAdvice(e)}
}

func joinMHz(fs []float64) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = mhz(f)
	}
	return strings.Join(s, ", ")
}
