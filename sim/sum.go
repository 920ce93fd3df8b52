package sim

import (
	"math"
	"slices"
)

// unitCost is what one prefill pass or decode step costs, in seconds at
// the rates in force: the matrix-product classes, constant over a run of
// alike units, and attention, which grows with the context.
type unitCost struct {
	fixed float64 // Σ over the matrix classes of max(memory, compute), plus the overhead
	fm    float64 // Σ of the matrix classes' memory terms
	fc    float64 // Σ of their compute terms
	am    float64 // attention's memory term
	ac    float64 // attention's compute term
}

func (u unitCost) time() float64 { return u.fixed + max(u.am, u.ac) }

// attnTerms are attention's memory and compute terms of one unit: the
// part of its cost that grows with the context. Pricing a pass or step
// yields them alone, two values that stay in registers, beside the unit's
// matrix-product terms (its base), which a run of alike units shares.
type attnTerms struct {
	am, ac float64
}

// with is the unit of matrix-product terms u and attention a.
func (u unitCost) with(a attnTerms) unitCost {
	u.am, u.ac = a.am, a.ac
	return u
}

// timeWith is u.with(a).time() without the copy.
func (u *unitCost) timeWith(a attnTerms) float64 { return u.fixed + max(a.am, a.ac) }

// sums accumulates a phase over its units.
type sums struct {
	time         float64 // Σ unit time
	memory       float64 // Σ memory terms
	compute      float64 // Σ compute terms
	computeBound int     // units whose compute terms exceed their memory terms
}

func (s *sums) add(o sums) {
	s.time += o.time
	s.memory += o.memory
	s.compute += o.compute
	s.computeBound += o.computeBound
}

// scale is n runs of s one after another.
func (s *sums) scale(n int) {
	f := float64(n)
	s.time *= f
	s.memory *= f
	s.compute *= f
	s.computeBound *= n
}

// sumsWith is the sums of the one unit u.with(a).
func (u *unitCost) sumsWith(a attnTerms) sums {
	s := sums{time: u.timeWith(a), memory: u.fm + a.am, compute: u.fc + a.ac}
	if s.compute > s.memory {
		s.computeBound = 1
	}
	return s
}

// runStarts splits x = lo … hi at cut points, where a unit's cost may
// change slope, into runs over which every term is linear in x, so that
// each run is summed from its endpoints (sums.addRun): the work depends on
// the number of cuts, not on hi − lo, and a 128k-token generation costs
// what a 128-token one does. Run i is starts[i] … runEnd(starts, i, hi);
// a run may be empty (a repeated cut). buf is the storage for the starts.
func runStarts(lo, hi int, cuts []int, buf []int) []int {
	if hi < lo {
		return buf[:0]
	}
	starts := append(buf[:0], lo)
	for _, c := range cuts {
		if c > lo && c <= hi {
			starts = append(starts, c)
		}
	}
	if len(starts) > 2 { // starts[0] = lo is below every cut
		slices.Sort(starts[1:])
	}
	return starts
}

// runEnd is the last unit of run i of runStarts.
func runEnd(starts []int, i, hi int) int {
	if i+1 < len(starts) {
		return starts[i+1] - 1
	}
	return hi
}

// addRun adds a run of n units of matrix-product terms u whose attention
// is linear from a (the first unit's) to b (the last's).
func (t *sums) addRun(n int, u *unitCost, a, b attnTerms) {
	t.time += float64(n)*u.fixed + sumMaxLinear(n, a.am, b.am, a.ac, b.ac)
	t.memory += float64(n) * (u.fm + a.am + u.fm + b.am) / 2
	t.compute += float64(n) * (u.fc + a.ac + u.fc + b.ac) / 2
	t.computeBound += countAbove(n, u.fm+a.am, u.fm+b.am, u.fc+a.ac, u.fc+b.ac)
}

// sumMaxLinear is Σ max(f(i), g(i)) for i = 0 … n−1 where f and g are
// linear from f0, g0 at i = 0 to f1, g1 at i = n−1.
func sumMaxLinear(n int, f0, f1, g0, g1 float64) float64 {
	if n <= 0 {
		return 0
	}
	if n == 1 {
		return max(f0, g0)
	}
	d0, d1 := f0-g0, f1-g1
	N := float64(n)
	switch {
	case d0 >= 0 && d1 >= 0:
		return N * (f0 + f1) / 2
	case d0 <= 0 && d1 <= 0:
		return N * (g0 + g1) / 2
	}
	// The two cross once: split after the last i on the first side.
	k := int(math.Floor(float64(n-1) * d0 / (d0 - d1)))
	k = min(max(k, 0), n-2)
	at := func(v0, v1 float64, i int) float64 { return v0 + (v1-v0)*float64(i)/float64(n-1) }
	return sumMaxLinear(k+1, f0, at(f0, f1, k), g0, at(g0, g1, k)) +
		sumMaxLinear(n-k-1, at(f0, f1, k+1), f1, at(g0, g1, k+1), g1)
}

// countAbove counts i = 0 … n−1 where the linear g exceeds the linear f.
func countAbove(n int, f0, f1, g0, g1 float64) int {
	if n <= 0 {
		return 0
	}
	if n == 1 {
		if g0 > f0 {
			return 1
		}
		return 0
	}
	d0, d1 := g0-f0, g1-f1
	switch {
	case d0 > 0 && d1 > 0:
		return n
	case d0 <= 0 && d1 <= 0:
		return 0
	}
	// d(i) = d0 + (d1 − d0)·i/(n−1) crosses zero at i* = d0·(n−1)/(d0 − d1).
	x := d0 * float64(n-1) / (d0 - d1)
	if d0 > 0 { // above up to i*
		c := int(math.Floor(x)) + 1
		if math.Floor(x) == x {
			c-- // exactly zero at i*: not above
		}
		return min(max(c, 0), n)
	}
	c := n - (int(math.Floor(x)) + 1)
	return min(max(c, 0), n)
}
