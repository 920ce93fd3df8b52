package hardware

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/roofline/roofline/units"
)

func TestParseClocks(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Clocks
	}{
		{"ddr=1968MHz,npu=800MHz", Clocks{Memory: 1968e6, NPU: 800e6}},
		{" npu = 0.8GHz , ddr=534MHz", Clocks{Memory: 534e6, NPU: 800e6}},
		{"DDR=2400MHz", Clocks{Memory: 2400e6}},
		{"npu=300MHz", Clocks{NPU: 300e6}},
	} {
		got, err := ParseClocks(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseClocks(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		// String reads back as the same clocks.
		if back, err := ParseClocks(got.String()); err != nil || back != got {
			t.Errorf("ParseClocks(%q.String() = %q) = %+v, %v", c.in, got.String(), back, err)
		}
	}
}

func TestParseClocksRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "no clocks"},
		{"ddr", "not KEY=FREQ"},
		{"gpu=800MHz", `no clock "gpu" (want ddr or npu)`},
		{"ddr=534MHz,ddr=1320MHz", "ddr given twice"},
		{"ddr=1968", "has no unit: give one, such as ddr=1968MHz"},
		{"npu=fast", "want a frequency"},
		{"npu=800GB/s", "want a frequency"},
		{"npu=-800MHz", "a clock is from 1MHz"},
		{"npu=0MHz", "a clock is from 1MHz"},
		{"ddr=1e300GHz", "ddr=1e300GHz"},
		{"npu=800MHz,", `"npu=800MHz," has an empty pair (a comma too many)`},
		{",npu=800MHz", "has an empty pair"},
		{"ddr=534MHz,,npu=800MHz", "has an empty pair"},
		{" , ", "has an empty pair"},
	} {
		_, err := ParseClocks(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseClocks(%q) = %v, want an error with %q", c.in, err, c.want)
		}
	}
}

func FuzzParseClocks(f *testing.F) {
	for _, s := range []string{"ddr=1968MHz,npu=800MHz", "npu=0.3GHz", "ddr=", "=,=", "ddr=1e400Hz", "npu=NaNMHz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseClocks(s)
		if err != nil {
			return
		}
		for _, v := range []float64{c.Memory, c.NPU} {
			if v != 0 && !(v >= 1e6 && v <= 1e11) || math.IsNaN(v) {
				t.Fatalf("ParseClocks(%q) = %+v: a clock outside 1 MHz-100 GHz", s, c)
			}
		}
		if c.IsZero() {
			t.Fatalf("ParseClocks(%q) states no clock without an error", s)
		}
	})
}

// clockedBoard is an RK3588-like board: LPDDR5 steps 534-2400 MHz at
// 38.4 GB/s, a 6 TOP/s NPU at 1 GHz (300 MHz at the lowest), a CPU.
func clockedBoard() *Device {
	return &Device{Name: "board", Bandwidth: 38.4e9, MemoryClocks: []float64{534e6, 1320e6, 1968e6, 2400e6},
		Sources: map[string]string{"memory_clocks": "[test]"},
		Engines: []Engine{
			{Name: "cpu", Kind: CPU, Peaks: map[units.Precision]float64{units.FP16: 307.2e9}},
			{Name: "npu", Kind: NPU, Clock: 1e9, MinClock: 300e6, Peaks: map[units.Precision]float64{units.INT8: 6e12}},
		}}
}

func TestAtClocks(t *testing.T) {
	for _, c := range []struct {
		clk                Clocks
		engine             string
		bandwidth, npuPeak float64
	}{
		// 38.4 GB/s × 534 / 2400 = 8.544 GB/s; 6 TOP/s × 0.8 = 4.8 TOP/s.
		{Clocks{Memory: 534e6, NPU: 800e6}, "npu", 8.544e9, 4.8e12},
		// 38.4 × 1968 / 2400 = 31.488 GB/s; the NPU at its 1 GHz.
		{Clocks{Memory: 1968e6}, "npu", 31.488e9, 6e12},
		// 6 × 0.3 = 1.8 TOP/s; the memory at its top step.
		{Clocks{NPU: 300e6}, "npu", 38.4e9, 1.8e12},
		// The CPU engine priced: the memory's clock still moves its bandwidth
		// (38.4 × 1320 / 2400 = 21.12 GB/s).
		{Clocks{Memory: 1320e6}, "cpu", 21.12e9, 6e12},
		// A part in 10⁴ off a step or past an end is the step or the end:
		// 2399.9 MHz is 2400 MHz (38.4 GB/s exactly), 1000.05 MHz 1 GHz.
		{Clocks{Memory: 2399.9e6, NPU: 1000.05e6}, "npu", 38.4e9, 6e12},
		{Clocks{Memory: 534.05e6, NPU: 299.99e6}, "npu", 8.544e9, 1.8e12},
	} {
		d := clockedBoard()
		e, _ := d.Engine(c.engine)
		got, ge, err := d.AtClocks(e, c.clk)
		if err != nil {
			t.Fatalf("%+v: %v", c.clk, err)
		}
		if ge.Name != c.engine {
			t.Errorf("%+v: engine %s, want %s", c.clk, ge.Name, c.engine)
		}
		npu, _ := got.Engine("npu")
		if math.Abs(got.Bandwidth/c.bandwidth-1) > 1e-12 || math.Abs(npu.Peaks[units.INT8]/c.npuPeak-1) > 1e-12 {
			t.Errorf("%+v: bandwidth %g, NPU peak %g; want %g, %g", c.clk, got.Bandwidth, npu.Peaks[units.INT8], c.bandwidth, c.npuPeak)
		}
		// The clocks it runs at are a step and within the range.
		if c.clk.Memory > 0 && !slices.Contains(d.MemoryClocks, got.MemoryClock) {
			t.Errorf("%+v: memory clock %g, not a step", c.clk, got.MemoryClock)
		}
		if npu.Clock < 300e6 || npu.Clock > 1e9 {
			t.Errorf("%+v: NPU clock %g, outside 300 MHz-1 GHz", c.clk, npu.Clock)
		}
		// The board it came from is untouched.
		if n, _ := d.Engine("npu"); d.Bandwidth != 38.4e9 || n.Peaks[units.INT8] != 6e12 || n.Clock != 1e9 {
			t.Errorf("%+v: AtClocks changed the device it copies", c.clk)
		}
	}
}

func TestAtClocksRefuses(t *testing.T) {
	bare := clockedBoard()
	bare.MemoryClocks = nil
	bare.Engines[1].MinClock = 0
	for _, c := range []struct {
		d      *Device
		engine string
		clk    Clocks
		want   string
	}{
		{clockedBoard(), "npu", Clocks{Memory: 528e6}, "memory runs at 534MHz, 1320MHz, 1968MHz, 2400MHz only"},
		{clockedBoard(), "npu", Clocks{Memory: 3000e6}, "only (its profile's memory_clocks)"},
		{clockedBoard(), "npu", Clocks{NPU: 200e6}, "NPU runs from 300MHz to 1000MHz"},
		{clockedBoard(), "npu", Clocks{NPU: 1100e6}, "NPU runs from 300MHz to 1000MHz"},
		{clockedBoard(), "cpu", Clocks{NPU: 800e6}, "the engine priced is cpu, not an NPU"},
		{bare, "npu", Clocks{Memory: 534e6}, "gives no memory clock steps"},
		{bare, "npu", Clocks{NPU: 800e6}, "gives no clock range"},
	} {
		e, _ := c.d.Engine(c.engine)
		_, _, err := c.d.AtClocks(e, c.clk)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v on %s: %v, want an error with %q", c.clk, c.engine, err, c.want)
		}
		// Every refusal carries the advice for the engine priced.
		if ce, ok := err.(*ClocksError); !ok || ce.Hint() != c.d.ClocksAdvice(e) {
			t.Errorf("%+v on %s: %v carries no advice", c.clk, c.engine, err)
		}
	}
}

// TestClocksAdvice: the example is the memory step below the highest
// (1968 MHz of 534, 1320, 1968, 2400) and the NPU clock halfway between
// its lowest and highest rounded down to 100 MHz ((300 + 1000) / 2 = 650
// -> 600 MHz), a value AtClocks takes; the NPU only where it is priced
// (or no engine is named); a board without steps or range says so.
func TestClocksAdvice(t *testing.T) {
	d := clockedBoard()
	npu, _ := d.Engine("npu")
	cpu, _ := d.Engine("cpu")
	one := clockedBoard()
	one.MemoryClocks = []float64{2400e6}
	one.Engines[1].MinClock, one.Engines[1].Clock = 950e6, 1e9 // 975 -> 900, below the lowest: 950
	bare := clockedBoard()
	bare.MemoryClocks, bare.Engines[1].MinClock = nil, 0
	for _, c := range []struct {
		d            *Device
		e            *Engine
		want, clocks string
	}{
		{d, npu, "board runs at ddr=1968MHz,npu=600MHz, for example (memory steps 534MHz, 1320MHz, 1968MHz, 2400MHz; NPU 300MHz to 1000MHz)", "ddr=1968MHz,npu=600MHz"},
		{d, nil, "board runs at ddr=1968MHz,npu=600MHz, for example", "ddr=1968MHz,npu=600MHz"},
		{d, cpu, "board runs at ddr=1968MHz, for example (memory steps 534MHz, 1320MHz, 1968MHz, 2400MHz)", "ddr=1968MHz"},
		{one, npu, "board runs at ddr=2400MHz,npu=950MHz, for example (memory steps 2400MHz; NPU 950MHz to 1000MHz)", "ddr=2400MHz,npu=950MHz"},
		{bare, npu, "board's profile gives no clocks to set below its maxima for its npu engine", ""},
		{bare, nil, "board's profile gives no clocks to set below its maxima for any engine", ""},
	} {
		got := c.d.ClocksAdvice(c.e)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%q, want %q", got, c.want)
		}
		if c.clocks == "" {
			continue
		}
		clk, err := ParseClocks(c.clocks)
		e := c.e
		if e == nil {
			e, _ = c.d.Engine("npu")
		}
		if err == nil {
			_, _, err = c.d.AtClocks(e, clk)
		}
		if err != nil {
			t.Errorf("the example %s is refused: %v", c.clocks, err)
		}
	}
}
