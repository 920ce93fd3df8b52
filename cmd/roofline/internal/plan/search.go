package plan

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// job is one group to evaluate: pointers only, so the plan keeps every
// one at little cost and can rebuild a group's setup on demand.
type job struct {
	dev     *hardware.Device
	engine  *hardware.Engine
	runtime *runtimes.Runtime
	cost    *model.Cost
	kv      string
	quality *model.Quality
	pair    int
	// devices is how many devices the group spreads the model over;
	// split is the spread above one (how, in words), nil for one device.
	devices   int
	split     *sim.Split
	splitName string
}

// Search is a space resolved into the groups to evaluate.
type Search struct {
	space             Space
	targets           sim.Targets
	contexts, batches []int
	jobs              []job
	pairs             []Pair
	skipped           []string
	// slices are the models' parts cut for placements: one per model,
	// format and layout, however many devices place it.
	slices *sim.Slices
}

// Prepare resolves the space into groups: every error a plan can meet is
// met here, before anything is evaluated or written.
func Prepare(sp Space, t sim.Targets) (*Search, error) {
	if len(sp.Devices) == 0 || len(sp.Models) == 0 {
		return nil, errors.New("empty search space: give at least one device and one model")
	}
	if err := checkCounts(sp); err != nil {
		return nil, err
	}
	if sp.RuntimeSet == nil {
		return nil, errors.New("plan: no runtime set")
	}
	if err := sp.Options.Validate(); err != nil {
		return nil, err
	}
	s := &Search{space: sp, targets: t, slices: sim.NewSlices()}
	for _, c := range sp.Contexts {
		if c >= sp.MinContext && c >= sp.Prompt+sp.Output {
			s.contexts = append(s.contexts, c)
		}
	}
	for _, b := range sp.Batches {
		if b >= sp.MinBatch {
			s.batches = append(s.batches, b)
		}
	}
	if len(s.contexts) == 0 {
		return nil, fmt.Errorf("no context length left: every --context is below --min-context %d or prompt + output %d", sp.MinContext, sp.Prompt+sp.Output)
	}
	if len(s.batches) == 0 {
		return nil, fmt.Errorf("no batch size left: every --batch is below --min-batch %d", sp.MinBatch)
	}
	pairs := map[[2]string]int{}
	for _, d := range sp.Devices {
		for _, m := range sp.Models {
			pairs[[2]string{d.Name, m.Name}] = len(s.pairs)
			s.pairs = append(s.pairs, Pair{Device: d.Name, Model: m.Name})
		}
	}
	// Choosing runtimes and pricing models takes as long as evaluating
	// them: the devices are resolved in two halves, one per core, each
	// with its own cache of costs, and joined in order.
	half := (len(sp.Devices) + 1) / 2
	var jobs [2][]job
	var skipped [2][]string
	var refused [2]*hardware.ThreadsError
	var errs [2]error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		jobs[1], skipped[1], refused[1], errs[1] = s.resolve(sp.Devices[half:], pairs)
	}()
	jobs[0], skipped[0], refused[0], errs[0] = s.resolve(sp.Devices[:half], pairs)
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			return nil, errs[i]
		}
	}
	s.jobs = append(jobs[0], jobs[1]...)
	// A thread count no engine can take is the option's error, as in
	// predict: a plan of nothing would blame the model or the formats.
	if len(s.jobs) == 0 {
		for _, te := range refused {
			if te != nil {
				return nil, &sim.FieldError{Field: "Threads", Msg: fmt.Sprintf("%d: %s", te.Threads, te.Msg)}
			}
		}
	}
	s.skipped = append(skipped[0], skipped[1]...)
	sort.Strings(s.skipped)
	s.skipped = dedupe(s.skipped)
	if err := s.Within(limits.PlanConfigs); err != nil {
		return nil, err
	}
	return s, nil
}

// Within is a *TooLargeError when the search evaluates more than max
// configurations.
func (s *Search) Within(max int64) error {
	// Each device count is a group of its own: the counts multiply.
	if _, ok := limits.Mul(max, int64(len(s.jobs)), int64(len(s.contexts)), int64(len(s.batches))); !ok {
		return &TooLargeError{Groups: len(s.jobs), Contexts: len(s.contexts), Batches: len(s.batches), Limit: max}
	}
	return nil
}

// TooLargeError is a search of more configurations than a plan
// evaluates (limits.PlanConfigs): it is refused before any is evaluated.
type TooLargeError struct {
	Groups, Contexts, Batches int
	Limit                     int64
}

func (e *TooLargeError) Error() string {
	n := int64(e.Groups) * int64(e.Contexts) * int64(e.Batches) // each below 2^31: no overflow
	return fmt.Sprintf("%d context lengths × %d batch sizes × %d device engine, model and format groups make %d configurations; at most %d (%s) are planned: give fewer context lengths or batch sizes, or fewer devices, models or formats",
		e.Contexts, e.Batches, e.Groups, n, e.Limit, limits.Count(float64(e.Limit)))
}

// groupKey names a group: a device engine running a model in one format
// under one runtime.
type groupKey struct {
	device, engine, runtime, model, weights, kv string
}

// resolve chooses, for each device engine, model and format asked, the
// runtime that runs it, and prices the model: the groups to evaluate, and
// the combinations skipped with the reason. pairs indexes device and model
// pairs; it is only read.
func (s *Search) resolve(devices []*hardware.Device, pairs map[[2]string]int) ([]job, []string, *hardware.ThreadsError, error) {
	sp := s.space
	// Each model is priced once per format and layout, without its list
	// of tensors (resolve.NewSumCosts).
	costs := resolve.NewSumCosts()
	qualities := map[string]*model.Quality{}
	quality := func(w string) (*model.Quality, error) {
		if q, ok := qualities[w]; ok {
			return q, nil
		}
		q, err := model.FormatQuality(w)
		if err != nil {
			return nil, err
		}
		qualities[w] = &q
		return &q, nil
	}
	one := func(l []string) []string {
		if len(l) == 0 {
			return []string{""}
		}
		return l
	}
	runtimeNames, weightNames, kvs := one(sp.Runtimes), one(sp.Weights), one(sp.KV)
	var jobs []job
	var skipped []string
	var refused *hardware.ThreadsError
	seen := map[groupKey]bool{}
	for _, d := range devices {
		engines := sp.Engines
		if len(engines) == 0 {
			engines = d.EngineNames()
		}
		for _, en := range engines {
			if _, err := d.Engine(en); err != nil {
				continue // a listed engine this device does not have
			}
			for _, m := range sp.Models {
				for _, rn := range runtimeNames {
					for _, w := range weightNames {
						for _, kvName := range kvs {
							ch, err := sp.RuntimeSet.Choose(m, d, runtimes.Request{Runtime: rn, Weights: w, Engine: en, KV: kvName})
							if err != nil {
								var ue *runtimes.UnsupportedError
								if errors.As(err, &ue) || w != "" || rn != "" {
									skipped = append(skipped, fmt.Sprintf("%s/%s: %v", d.Name, en, err))
								}
								continue // no runtime for this engine and the defaults
							}
							key := groupKey{d.Name, ch.Engine.Name, ch.Runtime.Name, m.Name, ch.Weights.Name, ch.KV}
							if seen[key] {
								continue
							}
							seen[key] = true
							c, err := costs.Cost(m, ch.Weights, ch.KV, ch.Runtime)
							if err != nil {
								return nil, nil, nil, err
							}
							if n := sp.Options.Threads; n > 0 && ch.Engine.Kind == hardware.CPU {
								var te *hardware.ThreadsError
								if _, err := d.WithThreads(ch.Engine, n); errors.As(err, &te) {
									skipped = append(skipped, fmt.Sprintf("%s/%s: --threads %d: %s", d.Name, en, n, te.Msg))
									if refused == nil {
										refused = te
									}
									continue
								}
							}
							if _, _, ok := ch.Runtime.Precision(c.Weights, ch.Engine); !ok {
								skipped = append(skipped, fmt.Sprintf("%s/%s cannot run %s", d.Name, en, ch.Weights.Name))
								continue
							}
							q, err := quality(ch.Weights.Name)
							if err != nil {
								return nil, nil, nil, err
							}
							one := job{dev: d, engine: ch.Engine, runtime: ch.Runtime, cost: c, kv: ch.KV, quality: q, pair: pairs[[2]string{d.Name, m.Name}], devices: 1}
							for _, n := range counts(sp) {
								if n == 1 {
									jobs = append(jobs, one)
									continue
								}
								j, why, err := s.spread(one, n)
								if err != nil {
									return nil, nil, nil, err
								}
								if why != "" {
									skipped = append(skipped, fmt.Sprintf("%s/%s × %d %s: %s", d.Name, en, n, m.Name, why))
									continue
								}
								jobs = append(jobs, j)
							}
						}
					}
				}
			}
		}
	}
	return jobs, skipped, refused, nil
}

// counts are the space's device counts: 1 when it gives none.
func counts(sp Space) []int {
	if len(sp.Counts) == 0 {
		return []int{1}
	}
	return sp.Counts
}

// checkCounts refuses device counts below 1 or above limits.Devices, a
// count twice, and counts above 1 without a Spread.
func checkCounts(sp Space) error {
	seen := map[int]bool{}
	for _, n := range sp.Counts {
		switch {
		case n < 1 || n > limits.Devices:
			return &CountError{Count: n, Msg: fmt.Sprintf("want from 1 to %d devices", limits.Devices)}
		case seen[n]:
			return &CountError{Count: n, Msg: "given twice"}
		case n > 1 && sp.Spread == nil:
			return &CountError{Count: n, Msg: "this search does not spread models over devices"}
		}
		seen[n] = true
	}
	return nil
}

// Unsplittable is a device count a group's runtime cannot spread its
// model over, by a rule of its split (the heads tensor parallelism
// divides, a layer or more per device, distributed-llama's powers of
// two): Space.Spread returns it, and the group is skipped saying why.
type Unsplittable struct{ Reason string }

func (e *Unsplittable) Error() string { return e.Reason }

// CountError is a device count a plan cannot search.
type CountError struct {
	Count int
	Msg   string
}

func (e *CountError) Error() string { return fmt.Sprintf("%d: %s", e.Count, e.Msg) }

// spread is job one spread over n devices: the reason the runtime cannot
// spread it so (a rule of the split: the heads a tensor-parallel group
// divides, the layers a pipeline spreads, the boards distributed-llama
// takes) when it cannot, else the group.
func (s *Search) spread(one job, n int) (job, string, error) {
	st, err := s.fullSetup(&one)
	if err != nil {
		return job{}, "", err
	}
	split, name, err := s.space.Spread(st, n)
	var un *Unsplittable
	if errors.As(err, &un) {
		return job{}, un.Reason, nil
	} else if err != nil {
		return job{}, "", err
	}
	one.devices, one.split, one.splitName = n, split, name
	return one, "", nil
}

// fullSetup is job j's setup with its model's tensor list, which a split
// places stage by stage: a plan prices the rest from the sums alone
// (resolve.NewSumCosts).
func (s *Search) fullSetup(j *job) (*sim.Setup, error) {
	c, err := resolve.Cost(j.cost.Spec, j.cost.Weights, j.kv, j.runtime)
	if err != nil {
		return nil, err
	}
	return sim.NewSetup(c, j.dev, j.engine, j.runtime, s.space.Options)
}

// Groups is how many groups the search evaluates.
func (s *Search) Groups() int { return len(s.jobs) }

// Configs is how many configurations the search evaluates: its groups ×
// context lengths × batch sizes, at most limits.PlanConfigs (Prepare).
func (s *Search) Configs() int64 {
	return int64(len(s.jobs)) * int64(len(s.contexts)) * int64(len(s.batches))
}

// Batches are the batch sizes the search evaluates, in order.
func (s *Search) Batches() []int { return s.batches }

// part is how many configurations are evaluated and handed on at once:
// a search holds a few buffers of it, however many configurations it
// evaluates.
const partSize = 4096

// Run evaluates every group in a fixed order. emit, when not nil, is
// handed each group in parts as they are evaluated: a copy of the group
// whose Configs are its next configurations (its counts, pick and limits
// are final only in the Result). The result keeps every configuration
// only when keep is set; a streaming caller has written them already.
func (s *Search) Run(emit func(*Group) error, keep bool) (*Result, error) {
	sp := s.space
	tol := sp.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	res := &Result{Skipped: s.skipped, Targets: s.targets, Rank: sp.Rank, Tolerance: tol, EnginesAsked: len(sp.Engines) > 0,
		options: sp.Options, ubatch: sp.UBatch, Groups: make([]Group, len(s.jobs)), search: s}
	res.Pairs = make([]Pair, len(s.pairs))
	copy(res.Pairs, s.pairs)
	switch {
	case emit == nil:
		return res, s.parallel(res, keep)
	case keep:
		for i := range s.jobs {
			g := &res.Groups[i]
			if _, err := s.runGroup(i, g, make([]sim.Config, 0, s.perGroup()), true, nil); err != nil {
				return nil, err
			}
			s.account(res, i)
			if err := emit(g); err != nil {
				return nil, err
			}
		}
		return res, nil
	}
	return res, s.pipeline(res, emit)
}

// perGroup is how many configurations one group evaluates.
func (s *Search) perGroup() int { return len(s.contexts) * len(s.batches) }

// parallel evaluates the groups on two cores, each taking the next group
// not yet taken (an offloaded or spread group costs far more than one on
// a device alone), and counts them in order afterwards: the result is the
// serial one's.
func (s *Search) parallel(res *Result, keep bool) error {
	const workers = 2
	errs := make([]error, workers)
	// Kept, every group's configurations share one allocation: tens of
	// thousands of buffers would each be taken and cleared in turn.
	per := s.perGroup()
	var slab []sim.Config
	if keep {
		slab = make([]sim.Config, len(s.jobs)*per)
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]sim.Config, 0, min(per, partSize))
			for i := int(next.Add(1) - 1); i < len(s.jobs) && errs[w] == nil; i = int(next.Add(1) - 1) {
				if keep {
					buf = slab[i*per : i*per : (i+1)*per] // the group owns its part
				}
				_, errs[w] = s.runGroup(i, &res.Groups[i], buf, keep, nil)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i := range s.jobs {
		s.account(res, i)
	}
	return nil
}

// inFlight is how many evaluated parts may wait for the writer.
const inFlight = 64

// pipeline evaluates the groups on one goroutine while emit writes them on
// this one, in order: on two cores the writing (formatting numbers) no
// longer waits for the pricing, nor the pricing for the writing. Memory
// stays bounded: inFlight buffers of a part each go round.
func (s *Search) pipeline(res *Result, emit func(*Group) error) error {
	ready := make(chan *Group, inFlight)
	free := make(chan []sim.Config, inFlight)
	for range inFlight {
		free <- make([]sim.Config, 0, min(s.perGroup(), partSize))
	}
	stop := make(chan struct{})
	var evalErr error
	go func() {
		defer close(ready)
		for i := range s.jobs {
			g := &res.Groups[i]
			send := func(next func([]sim.Config) []sim.Config) bool {
				var buf []sim.Config
				select {
				case buf = <-free:
				case <-stop:
					return false
				}
				configs := next(buf[:0])
				cp := *g // the writer reads the copy while g is tallied
				cp.Configs = configs
				ready <- &cp
				return true
			}
			if evalErr = s.evalGroup(i, g, send); evalErr != nil {
				return
			}
			s.account(res, i)
		}
	}()
	var err error
	for g := range ready {
		if err == nil {
			if err = emit(g); err != nil {
				close(stop)
			}
		}
		free <- g.Configs
	}
	if err != nil {
		return err
	}
	return evalErr // read after ready closed: the evaluator has returned
}

// account counts evaluated group i into the result's totals and pairs;
// groups are counted in order.
func (s *Search) account(res *Result, i int) {
	g := &res.Groups[i]
	res.Evaluated += g.Evaluated
	res.Meeting += g.Meeting
	res.Sure += g.Sure
	pair := &res.Pairs[s.jobs[i].pair]
	pair.Groups = append(pair.Groups, i)
}

// Run evaluates the space against the targets, keeping every
// configuration.
func Run(sp Space, t sim.Targets) (*Result, error) {
	s, err := Prepare(sp, t)
	if err != nil {
		return nil, err
	}
	return s.Run(nil, true)
}

// runGroup evaluates group i into g. Kept, its configurations are
// appended to buf (which holds them all) and stay in g.Configs; else buf
// is reused for each part and g.Configs is nil. each, when not nil, is
// handed each part as it is evaluated.
func (s *Search) runGroup(i int, g *Group, buf []sim.Config, keep bool, each func([]sim.Config) error) ([]sim.Config, error) {
	var eachErr error
	err := s.evalGroup(i, g, func(next func([]sim.Config) []sim.Config) bool {
		if keep {
			n := len(buf)
			buf = next(buf)
			if each != nil {
				eachErr = each(buf[n:])
			}
		} else {
			buf = next(buf[:0])
			if each != nil {
				eachErr = each(buf)
			}
		}
		return eachErr == nil
	})
	if eachErr != nil {
		err = eachErr
	}
	g.Configs = nil
	if keep {
		g.Configs = buf
	}
	return buf, err
}

// errStopped is a search whose caller stopped taking its parts.
var errStopped = errors.New("plan: stopped")

// evalGroup evaluates group i into g part by part: for each, it calls
// part with a function that evaluates the next part into a buffer; the
// group's counts and pick are tallied as the parts come. part returns
// false to stop the evaluation.
func (s *Search) evalGroup(i int, g *Group, part func(next func([]sim.Config) []sim.Config) bool) error {
	j := &s.jobs[i]
	sp, t := s.space, s.targets
	st, err := sim.NewSetup(j.cost, j.dev, j.engine, j.runtime, sp.Options)
	if err != nil {
		return err
	}
	*g = Group{Device: j.dev.Name, Family: j.dev.Family, Engine: j.engine.Name, EngineKind: j.engine.Kind, Runtime: j.runtime.Name, Model: j.cost.Spec.Name,
		Weights: j.cost.Weights.Name, KV: j.kv, BPW: j.cost.BitsPerWeight(), Usable: t.Usable(st), MemoryUsable: st.Usable(), Prompt: sp.Prompt, Output: sp.Output,
		Quality: j.quality, Devices: j.devices, Split: j.splitName, job: j}
	g.TTFTSpread, g.TPOTSpread = st.Spread(true), st.Spread(false)
	g.MoEDecodeNote = st.Inputs.MoEDecodeNote
	g.atOnce = st.Together(math.MaxInt)
	conf := t.ConfidenceLevel()
	g.ttftLo, g.ttftHi = g.TTFTSpread.Bounds(conf)
	g.tpotLo, g.tpotHi = g.TPOTSpread.Bounds(conf)
	ev, err := s.evaluator(j, st, g, t)
	if err != nil {
		return err
	}
	// One function evaluates every part, its batch and contexts set
	// before each: a closure made per part cost three allocations each,
	// half of a whole-catalog plan's.
	var (
		b        int
		contexts []int
		evalErr  error
	)
	next := func(buf []sim.Config) []sim.Config {
		n := len(buf)
		buf, evalErr = ev.contexts(contexts, b, buf)
		ev.offloaded(g, t)
		s.tally(g, buf[n:])
		return buf
	}
	for _, b = range s.batches {
		for lo := 0; lo < len(s.contexts); lo += partSize {
			contexts = s.contexts[lo:min(lo+partSize, len(s.contexts))]
			ok := part(next)
			if evalErr != nil {
				return evalErr
			}
			if !ok {
				return errStopped
			}
		}
	}
	if ev.split != nil {
		g.Limits, err = ev.split.Limits(s.batches[0], s.contexts[0])
		return err
	}
	g.Limits = st.PlanLimits(s.batches[0], s.contexts[0], sp.Prompt, sp.Output, sp.UBatch, t)
	return nil
}

// groupEvaluator evaluates a group's configurations: on one device, on
// one device offloading what it does not hold, or spread over devices.
type groupEvaluator struct {
	one   *sim.Evaluator
	off   *sim.OffloadEvaluator
	split *sim.SplitEvaluator
}

// offloaded gives group g what its offloaded configurations are judged
// and measured against once one has been: the factors and the host's
// usable memory.
func (e groupEvaluator) offloaded(g *Group, t sim.Targets) {
	if e.off == nil {
		return
	}
	if lo, hi, dlo, dhi, ok := e.off.Factors(); ok {
		g.offLo, g.offHi, g.offTPOTLo, g.offTPOTHi = lo, hi, dlo, dhi
	}
	if h := e.off.Host(); h != nil {
		g.HostUsable = t.Usable(h)
	}
}

func (e groupEvaluator) contexts(contexts []int, batch int, out []sim.Config) ([]sim.Config, error) {
	switch {
	case e.split != nil:
		return e.split.Contexts(contexts, batch, out)
	case e.off != nil:
		return e.off.Contexts(contexts, batch, out)
	}
	return e.one.Contexts(contexts, batch, out), nil
}

// evaluator resolves group g's evaluator. A spread group is judged at its
// split's factors at the reference point (the smallest context and
// batch); its usable memory is every pool's.
func (s *Search) evaluator(j *job, st *sim.Setup, g *Group, t sim.Targets) (groupEvaluator, error) {
	sp := s.space
	if j.split != nil {
		w := sim.PlanWorkload(s.contexts[0], s.batches[0], sp.Prompt, max(sp.Output, 2), sp.UBatch)
		var err error
		g.ttftLo, g.ttftHi, g.tpotLo, g.tpotHi, err = j.split.Bounds(w, t.ConfidenceLevel())
		if err != nil {
			return groupEvaluator{}, err
		}
		g.Usable = 0
		for _, p := range j.split.Pools {
			g.Usable += float64(max(p.Devices, 1)) * p.Usable * (1 - t.Headroom)
		}
		return groupEvaluator{split: j.split.Evaluator(sp.Prompt, sp.Output, sp.UBatch, t, g.ttftLo, g.ttftHi, g.tpotLo, g.tpotHi)}, nil
	}
	if sp.Host != nil && j.devices == 1 && !j.dev.Unified && j.runtime.Splits(runtimes.SplitOffload) {
		place := func() (func() (*model.Cost, error), *sim.Setup, *hardware.Link, error) {
			host, link, err := sp.Host(st)
			if err != nil || host == nil {
				return nil, nil, nil, err
			}
			var full *model.Cost
			return func() (*model.Cost, error) {
				var err error
				if full == nil { // once, and only for parts no group has cut
					full, err = resolve.Cost(j.cost.Spec, j.cost.Weights, j.kv, j.runtime)
				}
				return full, err
			}, host, link, nil
		}
		return groupEvaluator{off: st.OffloadEvaluator(place, s.slices, sp.Prompt, sp.Output, sp.UBatch, t)}, nil
	}
	return groupEvaluator{one: st.Evaluator(sp.Prompt, sp.Output, sp.UBatch, t)}, nil
}

// tally counts configurations of group g as evaluated, in order.
func (s *Search) tally(g *Group, cs []sim.Config) {
	for _, c := range cs {
		if g.Evaluated == 0 {
			g.Reference, g.Pick = c, c
		} else if s.space.Rank.pickBetter(g, c, g.Pick, s.targets) {
			g.Pick = c
		}
		g.Evaluated++
		if c.Feasible {
			g.Meeting++
		}
		if c.Verdict == sim.Meets {
			g.Sure++
		}
	}
}

// Judgements hold a configuration's latencies against the targets at
// their confidence (sim.Judge); nil without a target.
func (g *Group) Judgements(c sim.Config, t sim.Targets) (ttft, tpot *sim.Judgement) {
	a, b := g.Judge(c, t)
	if t.TTFT > 0 {
		ttft = &a
	}
	if t.TPOT > 0 {
		tpot = &b
	}
	return ttft, tpot
}

// Widened names the intervals held to targets t that are widened beyond
// their level (["tpot"]: an MoE decode's, MoEDecodeNote, against a TPOT
// target), nil when none is: what JSON and CSV say as intervals_widened.
func (g *Group) Widened(t sim.Targets) []string {
	if t.TPOT > 0 && g.MoEDecodeNote != "" {
		return []string{"tpot"}
	}
	return nil
}

// Judge is Judgements by value, for writers of millions of rows: without
// a target the judgement meets with infinite margins.
func (g *Group) Judge(c sim.Config, t sim.Targets) (ttft, tpot sim.Judgement) {
	if c.Offloaded() {
		return sim.JudgeWithin(c.TTFT, t.TTFT, g.offLo, g.offHi), sim.JudgeWithin(c.TPOT, t.TPOT, g.offTPOTLo, g.offTPOTHi)
	}
	return sim.JudgeWithin(c.TTFT, t.TTFT, g.ttftLo, g.ttftHi), sim.JudgeWithin(c.TPOT, t.TPOT, g.tpotLo, g.tpotHi)
}

// Setup rebuilds the group's setup, for questions the plan answers only
// for the configurations it shows (the concurrency limit).
func (r *Result) Setup(g *Group) (*sim.Setup, error) {
	return sim.NewSetup(g.job.cost, g.job.dev, g.job.engine, g.job.runtime, r.options)
}

// Concurrency is how many sequences of the configuration's context the
// group serves within the targets, by the rule chat follows too.
func (r *Result) Concurrency(g *Group, c sim.Config) (sim.ConcurrencyLimit, error) {
	if g.job.split != nil || c.Offloaded() {
		return r.spreadConcurrency(g, c)
	}
	s, err := r.Setup(g)
	if err != nil {
		return sim.ConcurrencyLimit{}, err
	}
	return s.MaxConcurrent(c.Context, g.Prompt, g.Output, r.ubatch, r.Targets), nil
}

// spreadConcurrency is Concurrency for a configuration spread over
// devices or offloaded, by the same rule (sim.Setup.MaxConcurrent) over
// the group's own evaluation: the most sequences that fit, and the most
// that fit and meet the targets' ceilings.
func (r *Result) spreadConcurrency(g *Group, c sim.Config) (sim.ConcurrencyLimit, error) {
	st, err := r.Setup(g)
	if err != nil {
		return sim.ConcurrencyLimit{}, err
	}
	t := r.Targets
	t.MinThroughput = 0
	var scratch Group
	ev, err := r.search.evaluator(g.job, st, &scratch, t)
	if err != nil {
		return sim.ConcurrencyLimit{}, err
	}
	var evalErr error
	var buf [1]sim.Config
	eval := func(n int) sim.Config {
		out, err := ev.contexts([]int{c.Context}, n, buf[:0])
		if err != nil || len(out) == 0 {
			evalErr = errors.Join(evalErr, err)
			return sim.Config{Limit: sim.LimitMemory}
		}
		return out[0]
	}
	l := sim.ConcurrencyLimit{Context: c.Context}
	hi := st.Together(sim.MaxPlanTokens) // the most that run at once
	l.Fit = sim.Largest(min(hi, sim.MaxQueued), func(n int) bool { return eval(n).Fits })
	hi = l.Fit
	queues := st.Together(sim.MaxQueued) < sim.MaxQueued
	if queues {
		hi = sim.MaxQueued // the others wait: time bounds them, not memory
	}
	l.Meeting = sim.Largest(hi, func(n int) bool { return eval(n).Limit == sim.LimitNone })
	if !queues || l.Meeting < hi {
		l.Fails = eval(l.Meeting + 1).Limit
	}
	return l, evalErr
}
