package hardware

import (
	"fmt"
	"strings"

	"github.com/roofline/roofline/units"
)

// WithThreads is CPU engine e of d running n threads, one a core (llama.cpp's
// -t): the engine its profile describes has e.Units cores, the ones its peaks
// count (the big cores of a big.LITTLE chip: the RK3588's four Cortex-A76,
// not its Cortex-A55s), and n of them work. Its peaks are the n cores'
// share, n/Units of each, and its Units are n, so a runtime class's cap on
// the bandwidth per unit (Efficiency.UnitBandwidth) caps what those n cores
// pull from memory (Efficiency.AchievedBandwidth). Its power stays the
// profile's: no source says what part of it the idle cores save.
//
// n = 0 or n = Units is e as it is. A thread count is refused (a
// *ThreadsError) on an engine that is not a CPU, on a CPU whose profile
// states no core count, and beyond the cores the profile counts: a thread
// on a core it does not count (a little core, a second hardware thread of
// an SMT core) adds work at a rate no profile states.
func (d *Device) WithThreads(e *Engine, n int) (*Engine, error) {
	if n == 0 {
		return e, nil
	}
	fail := func(format string, args ...any) (*Engine, error) {
		return nil, &ThreadsError{Threads: n, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case n < 0:
		return fail("a thread count is a whole number of cores from 1, got %d", n)
	case e.Kind != CPU:
		return fail("threads are the cores a CPU engine runs on; the %s engine of %s is a %s (choose its cpu engine, or leave threads out)", e.Name, d.Name, e.Kind)
	case e.Units <= 0:
		return fail("the profile of %s states no core count for its %s engine (engine units), so %d threads cannot be priced: add units = { value = N, source = … } to it", d.Name, e.Name, n)
	case n > e.Units:
		counted := ""
		if s := d.Sources["engine."+e.Name+".units"]; s != "" {
			counted = " (" + strings.TrimSpace(s) + ")"
		}
		return fail("the %s engine of %s prices %d cores%s: at most %d threads, one a core", e.Name, d.Name, e.Units, counted, e.Units)
	case n == e.Units:
		return e, nil
	}
	c := *e
	c.Units = n
	c.Peaks = make(map[units.Precision]float64, len(e.Peaks))
	share := float64(n) / float64(e.Units)
	for p, v := range e.Peaks {
		c.Peaks[p] = v * share
	}
	return &c, nil
}

// ThreadsError is a thread count an engine cannot run (Device.WithThreads).
type ThreadsError struct {
	Threads int
	Msg     string
}

func (e *ThreadsError) Error() string { return fmt.Sprintf("%d threads: %s", e.Threads, e.Msg) }
