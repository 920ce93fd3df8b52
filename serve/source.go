package serve

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// source yields a workload's requests in arrival order. Arrival gaps and
// lengths come from separate seeded streams, so that the same workload at
// another rate sends the same lengths with the gaps scaled: a search over
// rates compares like with like.
type source struct {
	w       Workload
	limit   int // most tokens a request may hold
	n, sent int
	gaps    *rand.Rand
	lengths *rand.Rand
	think   *rand.Rand
	next    float64 // the next open-loop arrival, +Inf when none
	scale   float64 // a trace's time scale
	clamped int
	// pending are a closed loop's users' next arrivals.
	pending userHeap
}

// newSource checks the workload's lengths against the longest request
// the server holds: a trace's rows beyond it are errors at their line.
func newSource(w Workload, limit int) (*source, error) {
	s := &source{w: w, limit: limit, n: w.count(), next: math.Inf(1), scale: 1,
		gaps: rand.New(rand.NewPCG(w.Seed, 1)), lengths: w.lengthStream(), think: rand.New(rand.NewPCG(w.Seed, 3))}
	if len(w.Rows) > 0 && (w.FromFile || w.Arrival == Trace) {
		for _, r := range w.Rows[:s.n] {
			if r.Prompt+r.Output > limit {
				return nil, &RowError{File: w.File, Line: r.Line, Entry: r.Entry, Msg: fmt.Sprintf("prompt %d + output %d tokens exceed the %d tokens a request may hold", r.Prompt, r.Output, limit)}
			}
			if r.Prompt <= w.SharedPrefix {
				return nil, &RowError{File: w.File, Line: r.Line, Entry: r.Entry, Msg: fmt.Sprintf("a prompt of %d tokens does not hold the %d-token shared prefix", r.Prompt, w.SharedPrefix)}
			}
		}
	} else if w.SharedPrefix+1 >= limit {
		return nil, &WorkloadError{"SharedPrefix", fmt.Sprintf("%d tokens leave no room in the %d tokens a request may hold", w.SharedPrefix, limit)}
	}
	switch w.Arrival {
	case Closed:
		for u := range min(w.Users, s.n) {
			s.pending.push(userArrival{0, int32(u)})
		}
	case Trace:
		if w.Rate > 0 && s.n > 1 {
			if span := w.Rows[s.n-1].At - w.Rows[0].At; span > 0 {
				// Rescale to the rate asked: n − 1 gaps over the span.
				s.scale = float64(s.n-1) / w.Rate / span
			}
		}
		s.next = 0
	default:
		s.next = s.gap()
	}
	return s, nil
}

// RowError is a trace row the server cannot take, at its file and line
// (or, in a JSON array, its entry).
type RowError struct {
	File  string
	Line  int
	Entry int
	Msg   string
	Err   error // what it wraps (a *safeio.JSONError and its hint), if anything
	hint  string
}

func (e *RowError) Unwrap() error { return e.Err }

// Hint is advice on the error: the row's own, else that of the error it
// wraps ("": none).
func (e *RowError) Hint() string {
	var h interface{ Hint() string }
	if e.hint == "" && errors.As(e.Err, &h) {
		return h.Hint()
	}
	return e.hint
}

func (e *RowError) Error() string {
	if e.Line == 0 && e.Entry > 0 {
		return fmt.Sprintf("%s: entry %d: %s", e.File, e.Entry, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// gap is the time to the next open-loop arrival.
func (s *source) gap() float64 {
	w := s.w
	switch w.Arrival {
	case Constant:
		return 1 / w.Rate
	case Gamma:
		k := 1 / (w.CV * w.CV)
		return gammaDraw(s.gaps, k) / (k * w.Rate)
	}
	return s.gaps.ExpFloat64() / w.Rate
}

// peek is the time of the next arrival, +Inf when none is left.
func (s *source) peek() float64 {
	if s.sent >= s.n {
		return math.Inf(1)
	}
	switch s.w.Arrival {
	case Closed:
		if len(s.pending) == 0 {
			return math.Inf(1)
		}
		return s.pending[0].at
	case Trace:
		r := s.w.Rows
		return (r[s.sent].At - r[0].At) * s.scale
	}
	return s.next
}

// pop takes the next arrival: its time, lengths and user (closed loop).
func (s *source) pop() (at float64, prompt, output int, user int32) {
	at = s.peek()
	switch s.w.Arrival {
	case Closed:
		user = s.pending.pop().user
	case Poisson, Constant, Gamma:
		s.next += s.gap()
	}
	i := s.sent
	s.sent++
	if len(s.w.Rows) > 0 && (s.w.FromFile || s.w.Arrival == Trace) {
		r := s.w.Rows[i]
		return at, r.Prompt, r.Output, user
	}
	p, c1 := s.w.Prompt.draw(s.lengths, s.limit-1)
	p = max(p, s.w.SharedPrefix+1)
	o, c2 := s.w.Output.draw(s.lengths, s.limit-p)
	if c1 || c2 {
		s.clamped++
	}
	return at, p, o, user
}

// done is a closed-loop user's answer ending at t: the user sends again
// after thinking.
func (s *source) done(user int32, t float64) {
	if s.w.Arrival != Closed || s.sent+len(s.pending) >= s.n {
		return
	}
	think := 0.0
	if s.w.Think > 0 {
		think = s.think.ExpFloat64() * s.w.Think
	}
	s.pending.push(userArrival{t + think, user})
}

type userArrival struct {
	at   float64
	user int32
}

// userHeap is a min-heap of users' next arrivals, by time then user.
type userHeap []userArrival

func (h userHeap) less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].user < h[j].user
}

func (h *userHeap) push(x userArrival) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *userHeap) pop() userArrival {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && s.less(l, m) {
			m = l
		}
		if r < n && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// gammaDraw is a Gamma(k, 1) variate (Marsaglia and Tsang, 2000; for
// k < 1 the boost Gamma(k) = Gamma(k + 1)·U^(1/k)).
func gammaDraw(r *rand.Rand, k float64) float64 {
	if k < 1 {
		return gammaDraw(r, k+1) * math.Pow(1-r.Float64(), 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - r.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}
