package limits

import (
	"fmt"
	"math"
	"strconv"
)

// Range is the physical range of one kind of quantity a user or a file
// gives: a flag, a profile key, a field of a measured run. Outside it no
// device answers, and the figures derived from it (a time, an energy, a
// count of answers) stop being readable: an efficiency of 10⁻³⁰⁰ made
// every time 10³⁰⁰ s and the energy per token NaN. Every such quantity is
// checked against its range where it enters (Check), so no output can
// hold NaN, an infinity or a number of hundreds of digits.
type Range struct {
	Name     string  // as docs/profiles.md lists it
	Min, Max float64 // inclusive
	// Zero allows 0 below Min: "none" (no overhead, no idle draw).
	Zero bool
	Unit string // "", "%", "B", "B/s", "FLOP/s", "s", "W", "Wh", "tokens/s", "FLOP"
}

// The ranges. Each sits well outside every real device and run (the
// comments say by how much); docs/profiles.md lists them.
var (
	// Share is an efficiency, a share of a peak a kernel reaches, or a
	// duty cycle: 0.01 % to 100 % (the worst published MBU is a few per
	// cent, a duty cycle of an assistant spoken to once a day 0.1 %).
	Share = Range{Name: "efficiencies and shares (bandwidth, compute, attention, dequant, duty cycle)", Min: 1e-4, Max: 1}
	// ReadShare is the share of a device's measured read a decode
	// streams at: 1 % to 4 (a decode above its read is a benchmark that
	// missed the memory's best; the fitted shares sit near 1).
	ReadShare = Range{Name: "shares of a measured read", Min: 0.01, Max: 4}
	// Bandwidth is a memory, storage or per-unit bandwidth: 1 kB/s (below
	// it a model takes months to load) to 100 TB/s (the fastest HBM
	// device: 8 TB/s).
	Bandwidth = Range{Name: "bandwidths (memory, measured, storage, per unit)", Min: 1e3, Max: 1e14, Unit: "B/s"}
	// Compute is a dense peak or a per-unit rate: 1 MFLOP/s to 10
	// EFLOP/s (the largest single device: 20 PFLOP/s of fp4).
	Compute = Range{Name: "compute peaks and per-unit rates", Min: 1e6, Max: 1e19, Unit: "FLOP/s"}
	// Memory is a device's memory: 1 MiB to 1 PiB (the largest unified
	// memory of one device: 512 GiB).
	Memory = Range{Name: "memory sizes", Min: 1 << 20, Max: 1 << 50, Unit: "B"}
	// Overhead is a runtime's memory beyond weights, KV cache and
	// activations, or memory a platform reserves: none up to 1 PiB.
	Overhead = Range{Name: "memory overheads and reservations", Min: 1, Max: 1 << 50, Zero: true, Unit: "B"}
	// PowerDraw is a draw while answering or idling: 1 mW to 1 MW (the
	// largest accelerator boards draw 1.2 kW, a rack 130 kW).
	PowerDraw = Range{Name: "power draws", Min: 1e-3, Max: 1e6, Unit: "W"}
	// Battery is a battery's capacity: 1 mWh to 1 MWh (a car's: 100 kWh).
	Battery = Range{Name: "battery capacity", Min: 1e-3, Max: 1e6, Unit: "Wh"}
	// Latency is a time target (TTFT, TPOT) or a measured time: 1 µs to
	// one day.
	Latency = Range{Name: "latency targets and measured times", Min: 1e-6, Max: 86400, Unit: "s"}
	// FixedCost is a fixed cost a runtime adds per pass, step or layer:
	// none up to 10 s (llama.cpp's are tens of µs to a few ms).
	FixedCost = Range{Name: "fixed costs per pass, step or layer", Min: 1e-9, Max: 10, Zero: true, Unit: "s"}
	// Rate is a measured or required rate: 0.001 to 10¹² tokens/s (the
	// fastest published aggregate rates are near 10⁶).
	Rate = Range{Name: "token rates (measured, required)", Min: 1e-3, Max: TokensPerS, Unit: "tokens/s"}
	// HalfRows is the rows at which a product reaches half its
	// efficiency: none up to 10⁶ (fitted values: tens to thousands).
	HalfRows = Range{Name: "half_rows", Min: 1e-3, Max: 1e6, Zero: true}
	// HostWork is a runtime's host work per token and layer: none up to
	// 10¹² FLOP (RKLLM's: about 10⁶).
	HostWork = Range{Name: "host_work per token and layer", Min: 1, Max: 1e12, Zero: true, Unit: "FLOP"}
	// Units is an engine's count of compute units: none up to 10⁶ (the
	// largest GPU: 160 SMs).
	Units = Range{Name: "compute units of an engine", Min: 1, Max: 1e6, Zero: true}
	// Clock is an engine's clock in a power mode: none, or 1 MHz to
	// 100 GHz.
	Clock = Range{Name: "engine clocks", Min: 1e6, Max: 1e11, Zero: true, Unit: "Hz"}
	// Cache bounds an engine's on-chip cache (a GPU's L2: 256 KiB on the
	// Jetson Nano's Maxwell, 126 MB on a B200); 0: not stated.
	Cache = Range{Name: "on-chip cache sizes", Min: 1 << 10, Max: 1 << 40, Zero: true, Unit: "B"}
)

// Ranges lists every range, in the order docs/profiles.md gives them.
func Ranges() []Range {
	return []Range{Share, Bandwidth, Compute, Memory, Overhead, PowerDraw, Battery, Latency, FixedCost, Rate, HalfRows, HostWork, Units, Clock, Cache}
}

// Check returns an error when v is not a number within r (0 too when
// r.Zero): what it says reads after the name of the flag or key, "must
// be …, got …".
func (r Range) Check(v float64) error {
	if r.Contains(v) {
		return nil
	}
	return &RangeError{Range: r, Value: v}
}

// Contains reports whether v lies within r.
func (r Range) Contains(v float64) bool {
	return v >= r.Min && v <= r.Max || r.Zero && v == 0
}

// RangeError is a quantity outside its range.
type RangeError struct {
	Range Range
	Value float64
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("must be %s, got %s", e.Range.Text(), Quantity(e.Value, e.Range.Unit))
}

// Text is the range as docs/profiles.md and messages write it: "0.01 %
// to 100 %", "1 kB/s to 100 TB/s", "0 (none) or 1 ns to 10 s".
func (r Range) Text() string {
	s := Quantity(r.Min, r.Unit) + " to " + Quantity(r.Max, r.Unit)
	if r.Zero {
		s = "0 (none) or " + s
	}
	return s
}

// Quantity writes v in unit u with a decimal prefix (binary for bytes)
// and at most six significant digits: 1 kB/s, 100 TB/s, 1 PiB, 1e-300 W.
// A value far outside every prefix keeps its exponent, never hundreds of
// digits.
func Quantity(v float64, u string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	join := func(n, u string) string {
		if u == "" {
			return n
		}
		if u == "%" {
			return n + " %"
		}
		return n + " " + u
	}
	switch u {
	case "%":
		return join(num(v*100), u)
	case "B":
		for _, p := range []struct {
			name  string
			scale float64
		}{{"PiB", 1 << 50}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
			if a := math.Abs(v); a >= p.scale && a < 1024*p.scale {
				return join(num(v/p.scale), p.name)
			}
		}
		return join(num(v), u)
	case "s":
		for _, p := range []struct {
			name  string
			scale float64
		}{{"s", 1}, {"ms", 1e-3}, {"µs", 1e-6}, {"ns", 1e-9}} {
			if a := math.Abs(v); a >= p.scale && a < 1000*p.scale || p.name == "s" && a >= 1 && a < 1e6 {
				return join(num(v/p.scale), p.name)
			}
		}
		return join(num(v), u)
	case "", "tokens/s":
		return join(num(v), u)
	}
	for _, p := range []struct {
		prefix string
		scale  float64
	}{{"E", 1e18}, {"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}, {"", 1}, {"m", 1e-3}} {
		if a := math.Abs(v); a >= p.scale && a < 1000*p.scale {
			return join(num(v/p.scale), p.prefix+u)
		}
	}
	return join(num(v), u)
}

// Named is an error about one quantity, worded after its name ("--power",
// "engine.gpu.power").
func Named(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s %w", name, err)
}
