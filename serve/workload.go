package serve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// DistKind is the shape of a length distribution.
type DistKind uint8

// The shapes.
const (
	Fixed     DistKind = iota // A
	Uniform                   // whole numbers from A to B
	Normal                    // mean A, standard deviation B
	LogNormal                 // mean A, standard deviation B of the lengths themselves
)

var distNames = [...]string{Fixed: "fixed", Uniform: "uniform", Normal: "normal", LogNormal: "lognormal"}

// Dist is a distribution of token counts. Draws are whole numbers of at
// least 1; a normal or log-normal draw beyond the largest a request may
// hold is clamped there (Result.Clamped counts them).
type Dist struct {
	Kind DistKind
	A, B float64
}

func (d Dist) String() string {
	switch d.Kind {
	case Fixed:
		return strconv.FormatFloat(d.A, 'g', -1, 64)
	case Uniform:
		return fmt.Sprintf("uniform:%g:%g", d.A, d.B)
	}
	return fmt.Sprintf("%s:%g:%g", distNames[d.Kind], d.A, d.B)
}

// ParseDist reads a length distribution: "512" (fixed), "uniform:128:1024",
// "normal:512:128" (mean, deviation) or "lognormal:512:256" (the mean and
// deviation of the lengths, not of their logarithm).
func ParseDist(s string) (Dist, error) {
	s = strings.TrimSpace(s)
	name, rest, has := strings.Cut(s, ":")
	if !has {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v != math.Trunc(v) {
			return Dist{}, fmt.Errorf("%q: want a token count such as 512, or uniform:LO:HI, normal:MEAN:SD, lognormal:MEAN:SD", s)
		}
		d := Dist{Kind: Fixed, A: v}
		return d, d.Validate()
	}
	var d Dist
	switch strings.ToLower(name) {
	case "uniform":
		d.Kind = Uniform
	case "normal":
		d.Kind = Normal
	case "lognormal", "log-normal":
		d.Kind = LogNormal
	default:
		return Dist{}, fmt.Errorf("%q: unknown distribution %q (fixed count, uniform, normal or lognormal)", s, name)
	}
	a, b, ok := strings.Cut(rest, ":")
	if !ok {
		return Dist{}, fmt.Errorf("%q: want %s:%s", s, name, map[DistKind]string{Uniform: "LO:HI", Normal: "MEAN:SD", LogNormal: "MEAN:SD"}[d.Kind])
	}
	var err1, err2 error
	d.A, err1 = strconv.ParseFloat(strings.TrimSpace(a), 64)
	d.B, err2 = strconv.ParseFloat(strings.TrimSpace(b), 64)
	if err1 != nil || err2 != nil {
		return Dist{}, fmt.Errorf("%q: the parameters must be numbers", s)
	}
	return d, d.Validate()
}

// Validate checks the parameters: positive, finite, whole bounds for
// uniform, at most MaxLength.
func (d Dist) Validate() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	switch {
	case bad(d.A) || bad(d.B):
		return fmt.Errorf("%s: parameters must be finite", d)
	case d.Kind == Fixed && (d.A < 1 || d.A > MaxLength):
		return fmt.Errorf("%s: a length must be 1 … %d tokens", d, MaxLength)
	case d.Kind == Uniform && (d.A < 1 || d.B < d.A || d.B > MaxLength || d.A != math.Trunc(d.A) || d.B != math.Trunc(d.B)):
		return fmt.Errorf("%s: want whole bounds 1 ≤ LO ≤ HI ≤ %d", d, MaxLength)
	case (d.Kind == Normal || d.Kind == LogNormal) && (d.A < 1 || d.A > MaxLength || d.B < 0 || d.B > MaxLength):
		return fmt.Errorf("%s: want a mean of 1 … %d tokens and a deviation of 0 … %d", d, MaxLength, MaxLength)
	}
	return nil
}

// Mean is the distribution's mean (before clamping).
func (d Dist) Mean() float64 {
	if d.Kind == Uniform {
		return (d.A + d.B) / 2
	}
	return d.A
}

// Max is the largest draw before clamping: ∞ for the unbounded shapes.
func (d Dist) Max() float64 {
	switch d.Kind {
	case Fixed:
		return d.A
	case Uniform:
		return d.B
	}
	return math.Inf(1)
}

// draw is one length, clamped to [1, most]; clamped says a draw was cut.
func (d Dist) draw(r *rand.Rand, most int) (n int, clamped bool) {
	var v float64
	switch d.Kind {
	case Fixed:
		v = d.A
	case Uniform:
		v = d.A + float64(r.IntN(int(d.B-d.A)+1))
	case Normal:
		v = math.Round(d.A + d.B*r.NormFloat64())
	case LogNormal:
		// Mean m and deviation s of the lengths: σ² = ln(1 + s²/m²),
		// μ = ln m − σ²/2.
		s2 := math.Log1p(d.B * d.B / (d.A * d.A))
		v = math.Round(math.Exp(math.Log(d.A) - s2/2 + math.Sqrt(s2)*r.NormFloat64()))
	}
	switch {
	case v < 1:
		return 1, d.Kind == Normal
	case v > float64(most):
		return most, true
	}
	return int(v), false
}

// ArrivalKind is how requests arrive.
type ArrivalKind uint8

// The arrival processes.
const (
	Poisson  ArrivalKind = iota // exponential gaps at Rate
	Constant                    // one request every 1/Rate s
	Gamma                       // gamma gaps at Rate with coefficient of variation CV (bursty above 1)
	Closed                      // Users users, each sending, waiting for the whole answer, thinking, sending again
	Trace                       // the timestamps of a trace file
)

var arrivalNames = [...]string{Poisson: "poisson", Constant: "constant", Gamma: "gamma", Closed: "closed", Trace: "trace"}

func (k ArrivalKind) String() string { return arrivalNames[k] }

// ParseArrival reads an arrival process's name.
func ParseArrival(s string) (ArrivalKind, error) {
	for k, n := range arrivalNames {
		if strings.EqualFold(s, n) {
			return ArrivalKind(k), nil
		}
	}
	return 0, fmt.Errorf("%q: unknown arrival process (poisson, constant, gamma, closed or trace)", s)
}

// Ceilings of a workload: beyond them no server answers, or the
// simulation's memory would not be bounded.
const (
	// MaxRate bounds an arrival rate, requests/s: a million a second is
	// beyond any single server's admission.
	MaxRate = 1e6
	// MaxRequests bounds the requests of one run (a run holds 40 B of
	// results per request: 400 MB at the cap).
	MaxRequests = 10_000_000
	// MaxLength bounds a prompt or output length, tokens.
	MaxLength = 1 << 24
	// MaxUsers bounds a closed loop's users.
	MaxUsers = 1 << 20
	// MaxThink bounds a closed loop's think time, s (a day).
	MaxThink = 86400
	// MaxCV bounds a gamma process's coefficient of variation.
	MaxCV = 100
	// MaxSpan bounds the time a run's arrivals span at their rate, s
	// (about 3 years): at 10⁸ s a float64 clock still resolves 15 ns,
	// where at 10³⁰⁰ s (--rate 1e-300) a request's arrival and its
	// answer were the same instant and every latency read 0 s.
	MaxSpan = 1e8
)

// Workload is what arrives at a server: how many requests, when, and how
// long their prompts and answers are. Runs are seeded: the same workload
// gives the same requests.
type Workload struct {
	Arrival ArrivalKind
	// Rate is requests per second (Poisson, Constant, Gamma; for a trace,
	// a rate to rescale its timestamps to, 0 to replay them as recorded).
	Rate float64
	CV   float64 // Gamma's coefficient of variation of the gaps
	// Users and Think are a closed loop's: each user waits Think s
	// (exponentially distributed with that mean) after an answer.
	Users int
	Think float64
	// Requests is how many requests arrive (for a trace, at most this many
	// of its rows; 0 for all of them).
	Requests int
	Prompt   Dist
	Output   Dist
	// SharedPrefix is tokens of a system prompt every request's prompt
	// begins with (prefix caching reuses them).
	SharedPrefix int
	Seed         uint64
	// Rows are a trace's requests (Arrival Trace, or lengths only when
	// the arrivals are synthetic and FromFile is true).
	Rows     []Row
	FromFile bool
	// File names the trace in errors.
	File string
}

// Row is one request of a trace: when it arrived (s, relative to the
// trace's first request; ignored unless the trace's timestamps are
// replayed), its prompt and output tokens, and the line it came from.
type Row struct {
	At             float64
	Prompt, Output int
	// Line is the row's line (Entry its index in a JSON array).
	Line, Entry int
}

// WorkloadError is a workload value out of range; Field names it as the
// Go field, so commands map it to their flags.
type WorkloadError struct {
	Field, Msg string
}

func (e *WorkloadError) Error() string { return e.Field + " " + e.Msg }

// Validate checks the workload's values.
func (w Workload) Validate() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	rows := len(w.Rows) > 0
	switch {
	case (w.Requests < 0 || w.Requests > MaxRequests) && rows:
		return &WorkloadError{"Requests", fmt.Sprintf("must be 0 (every row of the trace) or 1 … %d, got %d", MaxRequests, w.Requests)}
	case w.Requests < 0 || w.Requests > MaxRequests:
		return &WorkloadError{"Requests", fmt.Sprintf("must be 1 … %d, got %d", MaxRequests, w.Requests)}
	case w.Requests == 0 && !rows:
		return &WorkloadError{"Requests", "must be at least 1 without a trace (0 is every row of one)"}
	case w.Arrival == Trace && !rows:
		return &WorkloadError{"Arrival", "trace arrivals need a trace file with timestamps"}
	case w.Arrival != Closed && w.Arrival != Trace && (bad(w.Rate) || w.Rate <= 0 || w.Rate > MaxRate):
		return &WorkloadError{"Rate", fmt.Sprintf("must be a rate above 0 and at most %g requests/s, got %g", float64(MaxRate), w.Rate)}
	case w.Arrival == Trace && (bad(w.Rate) || w.Rate < 0 || w.Rate > MaxRate):
		return &WorkloadError{"Rate", fmt.Sprintf("must be 0 (replay the trace's timestamps) or a rate up to %g requests/s, got %g", float64(MaxRate), w.Rate)}
	case w.Arrival != Closed && w.Rate > 0 && float64(w.count())/w.Rate > MaxSpan:
		return &WorkloadError{"Rate", fmt.Sprintf("%g requests/s sends %d requests over about %.3g s, more than a run may span (%g s, about 3 years, where its clock still resolves a step): give a rate of at least %.3g requests/s, or fewer requests", w.Rate, w.count(), float64(w.count())/w.Rate, float64(MaxSpan), float64(w.count())/MaxSpan)}
	case w.Arrival == Gamma && (bad(w.CV) || w.CV <= 0 || w.CV > MaxCV):
		return &WorkloadError{"CV", fmt.Sprintf("must be a coefficient of variation above 0 and at most %d, got %g", MaxCV, w.CV)}
	case w.Arrival == Closed && (w.Users < 1 || w.Users > MaxUsers):
		return &WorkloadError{"Users", fmt.Sprintf("must be 1 … %d users, got %d", MaxUsers, w.Users)}
	case w.Arrival == Closed && (bad(w.Think) || w.Think < 0 || w.Think > MaxThink):
		return &WorkloadError{"Think", fmt.Sprintf("must be 0 … %d s, got %g", MaxThink, w.Think)}
	case w.SharedPrefix < 0 || w.SharedPrefix > MaxLength:
		return &WorkloadError{"SharedPrefix", fmt.Sprintf("must be 0 … %d tokens, got %d", MaxLength, w.SharedPrefix)}
	}
	if !rows || !w.FromFile && w.Arrival != Trace {
		if err := w.Prompt.Validate(); err != nil {
			return &WorkloadError{"Prompt", err.Error()}
		}
		if err := w.Output.Validate(); err != nil {
			return &WorkloadError{"Output", err.Error()}
		}
		if float64(w.SharedPrefix) >= w.Prompt.Max() {
			return &WorkloadError{"SharedPrefix", fmt.Sprintf("%d tokens must be shorter than every prompt (the longest is %g)", w.SharedPrefix, w.Prompt.Max())}
		}
	}
	return nil
}

// count is the requests the workload sends.
func (w Workload) count() int {
	if len(w.Rows) > 0 && (w.Requests == 0 || w.Requests > len(w.Rows)) && (w.Arrival == Trace || w.FromFile) {
		return len(w.Rows)
	}
	return w.Requests
}

// LongestPrompt is the longest prompt the workload sends, tokens: of
// the rows it sends, for a trace; else of its seeded draws (the lengths
// every run of it sends, at any rate: a search's runs send the same), at
// least its shared prefix and one token more. A normal or log-normal
// shape has no upper end, but the draws a run sends do: 1000 prompts of
// lognormal:500:300 reach about its 99.9th percentile, 2377 tokens, not
// the model's context. Draws are taken before any clamp to what a request
// may hold (the source cuts them there), so it may exceed a server's
// context.
func (w Workload) LongestPrompt() int {
	if w.Prompt.Kind == Fixed && (len(w.Rows) == 0 || w.Arrival != Trace && !w.FromFile) {
		return max(int(w.Prompt.A), w.SharedPrefix+1)
	}
	return max(w.longest(func(p, _ int) int { return p }), w.SharedPrefix+1)
}

// LongestRequest is the most tokens a request of the workload holds,
// its prompt and its output together, found as LongestPrompt finds the
// prompt: the length an engine built for the workload gives each row of
// its KV cache (sim.Setup.PoolRow; TensorRT Edge-LLM's builder sizes
// maxKVCacheCapacity as maxInputLen plus the expected output).
func (w Workload) LongestRequest() int {
	return w.longest(func(p, o int) int { return max(p, w.SharedPrefix+1) + o })
}

// longest is the largest f(prompt, output) over the requests the
// workload sends: of its rows, for a trace; else of its seeded draws.
func (w Workload) longest(f func(prompt, output int) int) int {
	n := 0
	if len(w.Rows) > 0 && (w.Arrival == Trace || w.FromFile) {
		for i, r := range w.Rows {
			if i == w.count() {
				break
			}
			n = max(n, f(r.Prompt, r.Output))
		}
		return n
	}
	if w.Prompt.Kind == Fixed && w.Output.Kind == Fixed {
		return f(int(w.Prompt.A), int(w.Output.A))
	}
	// The stream source.pop draws from, in its order: a prompt, then an
	// output, per request (a draw takes the same numbers whatever it is
	// clamped to).
	r := w.lengthStream()
	for range w.count() {
		p, _ := w.Prompt.draw(r, MaxLength)
		o, _ := w.Output.draw(r, MaxLength)
		n = max(n, f(p, o))
	}
	return n
}

// lengthStream is the seeded stream of a workload's drawn lengths.
func (w Workload) lengthStream() *rand.Rand { return rand.New(rand.NewPCG(w.Seed, 2)) }

// MeanPrompt and MeanOutput are the workload's mean lengths (of the rows
// it sends, for a trace).
func (w Workload) MeanPrompt() float64 { return w.mean(func(r Row) int { return r.Prompt }, w.Prompt) }

// MeanOutput is the mean output length.
func (w Workload) MeanOutput() float64 { return w.mean(func(r Row) int { return r.Output }, w.Output) }

func (w Workload) mean(f func(Row) int, d Dist) float64 {
	if len(w.Rows) == 0 || !w.FromFile && w.Arrival != Trace {
		return d.Mean()
	}
	n := w.count()
	s := 0.0
	for _, r := range w.Rows[:n] {
		s += float64(f(r))
	}
	return s / float64(n)
}
