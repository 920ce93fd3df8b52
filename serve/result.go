package serve

import (
	"math"
	"slices"
)

// Record is one request as it went: when it arrived, was first
// scheduled, got its first token and its last (or failed), its lengths,
// and how often it was preempted.
type Record struct {
	Arrival, Start, First, Finish float64 // s from the run's start
	Prompt, Output                int32
	// Generated is the tokens it produced (Output unless it failed).
	Generated   int32
	Preemptions int16
	Failed      bool
}

// TTFT is the time from arrival to the first token, s.
func (r *Record) TTFT() float64 { return r.First - r.Arrival }

// E2E is the time from arrival to the last token, s.
func (r *Record) E2E() float64 { return r.Finish - r.Arrival }

// Queue is the time from arrival to being scheduled first, s.
func (r *Record) Queue() float64 { return r.Start - r.Arrival }

// TPOT is the mean time between its output tokens, s; NaN with one.
func (r *Record) TPOT() float64 {
	if r.Output < 2 {
		return math.NaN()
	}
	return (r.Finish - r.First) / float64(r.Output-1)
}

// Stats summarise one latency over the requests that completed.
type Stats struct {
	N                             int
	Mean, P50, P90, P95, P99, Max float64
	Min                           float64
}

// Percentiles are the quantiles Stats holds, for tables.
var Percentiles = []float64{0.50, 0.90, 0.95, 0.99}

// statsOf summarises xs (reordered here), dropping NaN: the quantiles by
// the nearest-rank rule, found by selection rather than a sort (a million
// values each of five latencies).
func statsOf(xs []float64) Stats {
	xs = slices.DeleteFunc(xs, math.IsNaN)
	s := Stats{N: len(xs)}
	if s.N == 0 {
		nan := math.NaN()
		s.Mean, s.P50, s.P90, s.P95, s.P99, s.Max, s.Min = nan, nan, nan, nan, nan, nan, nan
		return s
	}
	sum := 0.0
	s.Min, s.Max = xs[0], xs[0]
	for _, x := range xs {
		sum += x
		s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
	}
	s.Mean = sum / float64(s.N)
	// From the highest quantile down: each selection leaves the values
	// below it in front, where the next one looks.
	hi := len(xs)
	for _, q := range []struct {
		p   float64
		dst *float64
	}{{0.99, &s.P99}, {0.95, &s.P95}, {0.90, &s.P90}, {0.50, &s.P50}} {
		i := rankIndex(len(xs), q.p)
		*q.dst = selectNth(xs[:hi], i)
		hi = i + 1
	}
	return s
}

// rankIndex is the index of the q-quantile among n sorted values by
// nearest rank: the smallest value with at least q of the values at or
// below it.
func rankIndex(n int, q float64) int {
	return min(max(int(math.Ceil(q*float64(n)))-1, 0), n-1)
}

// selectNth reorders xs so that xs[k] is the value a sort would put there,
// with no larger value before it, and returns it (quickselect with a
// median-of-three pivot; a sort for short ranges).
func selectNth(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for hi-lo > 16 {
		mid := lo + (hi-lo)/2
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		pivot := xs[mid]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	slices.Sort(xs[lo : hi+1])
	return xs[k]
}

// Quantile is the stats' value at q (one of Percentiles, 0 for the mean).
func (s Stats) Quantile(q float64) float64 {
	switch q {
	case 0.50:
		return s.P50
	case 0.90:
		return s.P90
	case 0.95:
		return s.P95
	case 0.99:
		return s.P99
	}
	return s.Mean
}

// histogram counts durations in buckets 0.5 % wide (log scale) from 1 ns
// to 10⁵ s: the inter-token latencies of a million requests are hundreds
// of millions of values, which no run keeps one by one.
type histogram struct {
	counts []float64
	n, sum float64
	lo, hi float64
}

const (
	histBase  = 1.005
	histFloor = 1e-9
	histBins  = 7400 // ln(1e14)/ln(1.005) ≈ 6462, with room
)

func newHistogram() *histogram {
	return &histogram{counts: make([]float64, histBins), lo: math.Inf(1), hi: math.Inf(-1)}
}

func histBin(x float64) int {
	if x <= histFloor {
		return 0
	}
	return min(int((fastLog(x)-lnFloor)*invLnBase), histBins-1)
}

var (
	lnFloor   = math.Log(histFloor)
	invLnBase = 1 / math.Log(histBase)
)

// fastLog is ln x for a positive normal x to within 2·10⁻⁵, a twentieth
// of a bucket: x = m·2^e, ln m = 2·atanh((m − 1)/(m + 1)) by its series
// to z⁷ with |z| ≤ 1/3. math.Log per step was a fifth of a run's time.
func fastLog(x float64) float64 {
	// math.Frexp's m in [0.5, 1) and e, read from the bits of a normal x
	// (its branches for zero, infinities, NaN and subnormals are not
	// needed above histFloor).
	b := math.Float64bits(x)
	e := int(b>>52&0x7ff) - 1022
	m := math.Float64frombits(b&^(0x7ff<<52) | 1022<<52)
	z := (m - 1) / (m + 1)
	z2 := z * z
	return float64(e)*math.Ln2 + 2*z*(1+z2*(1.0/3+z2*(1.0/5+z2*(1.0/7))))
}

// add counts weight values of x.
func (h *histogram) add(x, weight float64) {
	if weight <= 0 || math.IsNaN(x) {
		return
	}
	h.counts[histBin(x)] += weight
	h.n += weight
	h.sum += x * weight
	h.lo, h.hi = math.Min(h.lo, x), math.Max(h.hi, x)
}

// stats are the histogram's summary: quantiles at the centre of their
// bucket (within 0.25 %), clamped to the values seen.
func (h *histogram) stats() Stats {
	s := Stats{N: int(math.Round(h.n))}
	if h.n == 0 {
		nan := math.NaN()
		s.Mean, s.P50, s.P90, s.P95, s.P99, s.Max, s.Min = nan, nan, nan, nan, nan, nan, nan
		return s
	}
	s.Mean = h.sum / h.n
	q := func(p float64) float64 {
		target := p * h.n
		acc := 0.0
		for i, c := range h.counts {
			acc += c
			if acc >= target-1e-9*h.n && c > 0 {
				v := histFloor * math.Pow(histBase, float64(i)+0.5)
				return math.Min(math.Max(v, h.lo), h.hi)
			}
		}
		return h.hi
	}
	s.P50, s.P90, s.P95, s.P99 = q(0.50), q(0.90), q(0.95), q(0.99)
	s.Min, s.Max = h.lo, h.hi
	return s
}

// Sample is the server's state at one moment of a run.
type Sample struct {
	T       float64 // s
	Waiting int     // requests queued
	Running int     // requests holding a KV cache
	// KVUse is the share of the KV-cache pool held (reserved, under a
	// reserving scheduler).
	KVUse float64
	// Preemptions are those so far.
	Preemptions int
}

// series keeps at most 2·cap samples of a run whose length is not known
// in advance: when full, every other sample is dropped and the interval
// doubles.
type series struct {
	points   []Sample
	every    float64
	next     float64
	capacity int
}

func newSeries(every float64, capacity int) *series {
	return &series{every: every, capacity: capacity, points: make([]Sample, 0, 2*capacity+1)}
}

func (s *series) record(p Sample) {
	if p.T < s.next {
		return
	}
	s.points = append(s.points, p)
	s.next = p.T + s.every
	if len(s.points) >= 2*s.capacity {
		k := 0
		for i := 0; i < len(s.points); i += 2 {
			s.points[k] = s.points[i]
			k++
		}
		s.points = s.points[:k]
		s.every *= 2
		s.next = s.points[k-1].T + s.every
	}
}

// Result is one serving run.
type Result struct {
	Requests  int // sent
	Completed int
	Failed    int // ended with an error (a KV cache full under a failing scheduler)
	// Clamped counts drawn lengths cut at the longest a request may hold.
	Clamped int
	// Duration is from the first arrival to the last completion, s.
	Duration float64
	// OfferedRate is requests sent per second of arrivals (first to last).
	OfferedRate float64

	TTFT, TPOT, ITL, E2E, Queue Stats

	// Throughput is output tokens per second over Duration; RequestRate
	// completions per second; Goodput completions meeting both targets
	// per second (NaN without targets).
	Throughput, RequestRate, Goodput float64
	// MeetingShare is the share of completed requests meeting both targets.
	MeetingShare float64

	Preemptions int
	// MeanInSystem is the time average of the requests in the system
	// (waiting or running) over Duration; MeanRunning of those running.
	MeanInSystem, MeanRunning float64
	// FrontEnd is the front end the requests passed (zero: none), and
	// FrontEndUse the share of Duration it was busy.
	FrontEnd    FrontEnd
	FrontEndUse float64
	// MaxKVUse is the largest share of the KV pool held at once.
	MaxKVUse float64
	Steps    int

	Series  []Sample
	Records []Record
}
