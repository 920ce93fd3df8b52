package serve

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/roofline/roofline/sim"
)

// Ranged is a run at the expected step times beside runs at the fast and
// slow ends of the step-time interval (the prediction's interval at
// Level, sim.Setup.StepSpread): a percentile's range is [Fast, Slow]. Fast
// and Slow are nil when nothing stands behind an interval (flags replaced
// the efficiency).
type Ranged struct {
	Expected   *Result
	Fast, Slow *Result
	Level      float64
}

// Span is the range of one figure over the runs: the fast end, the slow
// end and the expected run. The expected figure usually lies between the
// ends, but not always: in a closed loop, or wherever the step times
// change which requests share a step, a percentile need not move with the
// step time (faster answers bring users back sooner, into fuller
// batches), so the range holds all three runs. ok is false without ends.
func (r *Ranged) Span(get func(*Result) float64) (lo, hi float64, ok bool) {
	if r.Fast == nil || r.Slow == nil {
		return 0, 0, false
	}
	e, f, s := get(r.Expected), get(r.Fast), get(r.Slow)
	return min(e, f, s), max(e, f, s), true
}

// RunInterval runs the workload at the expected step times and at the
// interval's ends. The ends keep their summaries, not their records.
func (sv *Server) RunInterval(w Workload, tg Targets, level float64) (*Ranged, error) {
	res, err := sv.Run(w, tg)
	if err != nil {
		return nil, err
	}
	out := &Ranged{Expected: res, Level: level}
	plo, phi, dlo, dhi := sv.stepSpread(w, level)
	if sv.spreadless(plo, phi, dlo, dhi) {
		return out, nil
	}
	for _, end := range []struct {
		dst    **Result
		pf, df float64
		i      int
	}{{&out.Fast, plo, dlo, 0}, {&out.Slow, phi, dhi, 1}} {
		r, err := sv.scaled(end.pf, end.df, end.i).Run(w, tg)
		if err != nil {
			return nil, err
		}
		r.Records, r.Series = nil, nil
		*end.dst = r
	}
	return out, nil
}

// stepSpread is the step-time interval's factors at level
// (sim.Setup.StepSpread). A split model (offloaded to the host, pipeline
// stages, RPC boards) takes each stage's class weighted by its share of
// the time of the workload's mean request run alone (sim.Split.StepSpread,
// sim.Split.Bounds), as predict's interval for the split weighs them: the
// GPU's class alone would hold the host's layers, most of an offloaded
// step, to the GPU's narrower spread. A pipeline's stages all run on the
// split's one setup, so their weighted factors are its class's.
//
// The fast ends are raised as predict raises its intervals' (sim.IdealFloor:
// no run beats the ideal): to the ideal bound of that mean request alone,
// as a share of its expected TTFT and TPOT, so that request alone ends
// where predict's interval does. A class's spread about a figure near the
// bound (a compute-bound prefill, a decode at high bandwidth use) would
// otherwise serve faster than the hardware can: Llama-3.2-3B f16 under
// TensorRT Edge-LLM on a Jetson AGX Orin decoded at 15.4 ms a step, half
// its 31.7 ms of weights at the datasheet bandwidth.
func (sv *Server) stepSpread(w Workload, level float64) (plo, phi, dlo, dhi float64) {
	req := sim.Workload{Prompt: max(1, int(math.Round(w.MeanPrompt()))), Output: max(2, int(math.Round(w.MeanOutput()))), Batch: 1, UBatch: sv.PassTokens}
	if sp := sv.Split; sp != nil {
		plo, phi, dlo, dhi = sp.StepSpread(req, level)
	} else {
		plo, phi, dlo, dhi = sv.Setup.StepSpread(level)
	}
	if plo >= 1 && dlo >= 1 {
		return
	}
	p, err := sv.Predict(req)
	if err != nil {
		return
	}
	if p.TTFT > 0 {
		plo = sim.IdealFloor(plo*p.TTFT, p.TTFTBound, p.TTFT) / p.TTFT
	}
	if p.TPOT > 0 {
		dlo = sim.IdealFloor(dlo*p.TPOT, p.TPOTBound, p.TPOT) / p.TPOT
	}
	return
}

// RatePoint is one arrival rate the max-rate search ran.
type RatePoint struct {
	Rate                   float64
	TTFT, TPOT, E2E, Queue Stats
	Throughput, Goodput    float64
	Completed, Failed      int
	Preemptions            int
	Meets                  bool
	// Misses names the targets the rate misses ("ttft", "tpot",
	// "failures").
	Misses []string
}

// RateSearch is the largest arrival rate whose p99 TTFT and p99 TPOT meet
// the targets, found by running the workload at rates doubling from what
// one request at a time sustains, then bisecting between the last that
// meets and the first that does not.
type RateSearch struct {
	MaxRate float64 // 0 when not even the lowest rate tried meets
	// Bound is what the next rate fails: its Misses.
	Bound  []string
	Points []RatePoint // by rate
	// Capped is true when the search stopped at MaxRate meeting.
	Capped bool
}

// DefaultSearchRuns is how many rates a search runs at most.
const DefaultSearchRuns = 20

// SearchPrecision is where the search stops: the rate that fails is
// within this share of the one that meets.
const SearchPrecision = 0.005

// ErrNoTargets is a search without a TTFT or TPOT target.
var ErrNoTargets = errors.New("the max-rate search needs a TTFT or TPOT target")

// MaxRate searches the largest rate of w's arrival process whose p99 TTFT
// and p99 TPOT meet tg, in at most runs runs, with every request
// completing. Every run sends the same requests (the same seed), their
// gaps scaled to the rate.
func (sv *Server) MaxRate(w Workload, tg Targets, runs int) (*RateSearch, error) {
	if tg.TTFT <= 0 && tg.TPOT <= 0 {
		return nil, ErrNoTargets
	}
	if w.Arrival == Closed {
		return nil, &WorkloadError{"Arrival", "a closed loop has no arrival rate to search: choose poisson, constant, gamma or a trace"}
	}
	if runs < 4 || runs > 200 {
		return nil, &WorkloadError{"Runs", fmt.Sprintf("must be 4 … 200, got %d", runs)}
	}
	// One request at a time sustains 1 / E2E of a mean request.
	p, err := sv.Predict(sim.Workload{Prompt: max(1, int(math.Round(w.MeanPrompt()))), Output: max(1, int(math.Round(w.MeanOutput()))), Batch: 1, UBatch: sv.PassTokens})
	if err != nil {
		return nil, err
	}
	s := &RateSearch{}
	eval := func(rate float64) (bool, error) {
		w.Rate = rate
		res, err := sv.Run(w, tg)
		if err != nil {
			return false, err
		}
		pt := RatePoint{Rate: rate, TTFT: res.TTFT, TPOT: res.TPOT, E2E: res.E2E, Queue: res.Queue, Throughput: res.Throughput, Goodput: res.Goodput,
			Completed: res.Completed, Failed: res.Failed, Preemptions: res.Preemptions}
		if tg.TTFT > 0 && !(res.TTFT.P99 <= tg.TTFT) {
			pt.Misses = append(pt.Misses, "ttft")
		}
		if tg.TPOT > 0 && res.TPOT.N > 0 && !(res.TPOT.P99 <= tg.TPOT) {
			pt.Misses = append(pt.Misses, "tpot")
		}
		if res.Failed > 0 {
			pt.Misses = append(pt.Misses, "failures")
		}
		pt.Meets = len(pt.Misses) == 0
		s.Points = append(s.Points, pt)
		return pt.Meets, nil
	}
	r := math.Min(1/p.E2E, MaxRate)
	floor := float64(w.count()) / MaxSpan // the slowest rate a run takes
	r = math.Max(r, floor)
	ok, err := eval(r)
	if err != nil {
		return nil, err
	}
	lo, hi := 0.0, math.Inf(1)
	if ok {
		lo = r
	} else {
		hi = r
	}
	n := 1
	// Bracket: double up while meeting, halve down while not.
	for ; n < runs && (lo == 0 || math.IsInf(hi, 1)); n++ {
		switch {
		case lo > 0 && lo >= MaxRate:
			s.Capped = true
			n = runs
			continue
		case lo > 0:
			r = math.Min(2*lo, MaxRate)
		case hi/2 < floor:
			// No slower run is priced: its arrivals would span more
			// than MaxSpan (Workload.Validate).
			n = runs
			continue
		default:
			r = hi / 2
		}
		if ok, err = eval(r); err != nil {
			return nil, err
		}
		if ok {
			lo = r
		} else {
			hi = r
		}
	}
	// Bisect geometrically between the bracket's ends, to 0.5 %.
	for ; n < runs && lo > 0 && !math.IsInf(hi, 1) && hi/lo > 1+SearchPrecision; n++ {
		r = math.Sqrt(lo * hi)
		if ok, err = eval(r); err != nil {
			return nil, err
		}
		if ok {
			lo = r
		} else {
			hi = r
		}
	}
	s.MaxRate = lo
	slices.SortFunc(s.Points, func(a, b RatePoint) int {
		switch {
		case a.Rate < b.Rate:
			return -1
		case a.Rate > b.Rate:
			return 1
		}
		return 0
	})
	for _, p := range s.Points {
		if p.Rate > lo && !p.Meets {
			s.Bound = p.Misses
			break
		}
	}
	return s, nil
}

// AloneMisses names the targets ("ttft", "tpot", "failures") that one
// request of prompt and output tokens misses served alone. No arrival
// rate of requests of those fixed lengths meets a target it misses: a
// request that shares the server's steps is never faster than alone
// (each step holds its tokens and the others'), so every p99 is at least
// the lone request's. A search over such requests can stop there (plan
// --rate does, before MaxRate's runs at ever lower rates).
func (sv *Server) AloneMisses(prompt, output int, tg Targets) ([]string, error) {
	res, err := sv.Run(Workload{Arrival: Closed, Users: 1, Requests: 1, Prompt: Dist{Kind: Fixed, A: float64(prompt)}, Output: Dist{Kind: Fixed, A: float64(output)}, Seed: 1}, tg)
	if err != nil {
		return nil, err
	}
	var misses []string
	if tg.TTFT > 0 && !(res.TTFT.P99 <= tg.TTFT) {
		misses = append(misses, "ttft")
	}
	if tg.TPOT > 0 && res.TPOT.N > 0 && !(res.TPOT.P99 <= tg.TPOT) {
		misses = append(misses, "tpot")
	}
	if res.Failed > 0 {
		misses = append(misses, "failures")
	}
	return misses, nil
}

// RateRange is a max-rate search at the expected step times beside the
// same search with every step at the fast and the slow end of the
// step-time interval (Ranged's ends): the largest rate's range is
// [Slow.MaxRate, Fast.MaxRate]. Fast and Slow are nil when nothing
// stands behind an interval.
type RateRange struct {
	Expected   *RateSearch
	Fast, Slow *RateSearch
	Level      float64
}

// MaxRateInterval runs MaxRate at the expected step times and at the ends
// of the interval at level: three searches of at most runs runs each.
func (sv *Server) MaxRateInterval(w Workload, tg Targets, runs int, level float64) (*RateRange, error) {
	s, err := sv.MaxRate(w, tg, runs)
	if err != nil {
		return nil, err
	}
	out := &RateRange{Expected: s, Level: level}
	plo, phi, dlo, dhi := sv.stepSpread(w, level)
	if sv.spreadless(plo, phi, dlo, dhi) {
		return out, nil
	}
	if out.Fast, err = sv.scaled(plo, dlo, 0).MaxRate(w, tg, runs); err != nil {
		return nil, err
	}
	if out.Slow, err = sv.scaled(phi, dhi, 1).MaxRate(w, tg, runs); err != nil {
		return nil, err
	}
	return out, nil
}
