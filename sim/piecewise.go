package sim

import (
	"math"
	"sort"
)

// unit gives the bytes moved and FLOPs done by full prefill pass x, or by
// the decode step whose queries attend x keys. It is a method with a flag
// rather than a func value so that the phases can stay on the stack.
func (p *phases) unit(decode bool, x int) (bytes, flops float64) {
	if decode {
		return p.decodeStep(x)
	}
	return p.prefillPass(x)
}

// sums accumulates a phase over its units.
type sums struct {
	time         float64 // Σ max(memory, compute)
	memory       float64 // Σ memory terms
	compute      float64 // Σ compute terms
	computeBound int     // units whose compute term exceeds the memory term
}

func (s *sums) add(o sums) {
	s.time += o.time
	s.memory += o.memory
	s.compute += o.compute
	s.computeBound += o.computeBound
}

// sumMax sums max(bytes/bw, flops/peak) over x = lo … hi, given cut points
// at which the cost functions may change slope: between cuts bytes and
// FLOPs are linear in x, so each piece is summed from its endpoints (split
// once where the two terms cross). The work depends on the number of cuts,
// not on hi − lo.
func (p *phases) sumMax(decode bool, lo, hi int, cuts []int, bw, peak float64) sums {
	var total sums
	if hi < lo {
		return total
	}
	var buf [16]int
	starts := append(buf[:0], lo)
	for _, c := range cuts {
		if c > lo && c <= hi {
			starts = append(starts, c)
		}
	}
	sort.Ints(starts)
	for i, s := range starts {
		e := hi
		if i+1 < len(starts) {
			e = starts[i+1] - 1
		}
		if e >= s {
			total.add(p.linearPiece(decode, s, e, bw, peak))
		}
	}
	return total
}

// linearPiece sums a piece on which bytes and FLOPs are linear in x.
func (p *phases) linearPiece(decode bool, lo, hi int, bw, peak float64) sums {
	b0, f0 := p.unit(decode, lo)
	m0, c0 := b0/bw, f0/peak
	if hi == lo {
		return point(m0, c0)
	}
	b1, f1 := p.unit(decode, hi)
	m1, c1 := b1/bw, f1/peak
	d0, d1 := m0-c0, m1-c1
	n := float64(hi - lo + 1)
	mem, comp := n*(m0+m1)/2, n*(c0+c1)/2
	switch {
	case d0 >= 0 && d1 >= 0:
		return sums{time: mem, memory: mem, compute: comp}
	case d0 <= 0 && d1 <= 0:
		cb := hi - lo + 1
		if d0 == 0 {
			cb--
		}
		if d1 == 0 {
			cb--
		}
		return sums{time: comp, memory: mem, compute: comp, computeBound: cb}
	}
	if hi-lo < 2 {
		s := point(m0, c0)
		s.add(point(m1, c1))
		return s
	}
	// The terms cross once: split after the last x on the first side.
	k := lo + int(math.Floor(float64(hi-lo)*d0/(d0-d1)))
	if k < lo {
		k = lo
	}
	if k >= hi {
		k = hi - 1
	}
	s := p.linearPiece(decode, lo, k, bw, peak)
	s.add(p.linearPiece(decode, k+1, hi, bw, peak))
	return s
}

func point(m, c float64) sums {
	if c > m {
		return sums{time: c, memory: m, compute: c, computeBound: 1}
	}
	return sums{time: m, memory: m, compute: c}
}
