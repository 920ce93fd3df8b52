package plan

import (
	"errors"
	"fmt"
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"sort"
	"sync"

	"github.com/roofline/roofline/hardware"
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
}

// Search is a space resolved into the groups to evaluate.
type Search struct {
	space             Space
	targets           sim.Targets
	contexts, batches []int
	jobs              []job
	pairs             []Pair
	skipped           []string
}

// Prepare resolves the space into groups: every error a plan can meet is
// met here, before anything is evaluated or written.
func Prepare(sp Space, t sim.Targets) (*Search, error) {
	if len(sp.Devices) == 0 || len(sp.Models) == 0 {
		return nil, errors.New("empty search space: give at least one device and one model")
	}
	if sp.RuntimeSet == nil {
		return nil, errors.New("plan: no runtime set")
	}
	if err := sp.Options.Validate(); err != nil {
		return nil, err
	}
	s := &Search{space: sp, targets: t}
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
	var errs [2]error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		jobs[1], skipped[1], errs[1] = s.resolve(sp.Devices[half:], pairs)
	}()
	jobs[0], skipped[0], errs[0] = s.resolve(sp.Devices[:half], pairs)
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			return nil, errs[i]
		}
	}
	s.jobs = append(jobs[0], jobs[1]...)
	s.skipped = append(skipped[0], skipped[1]...)
	sort.Strings(s.skipped)
	s.skipped = dedupe(s.skipped)
	return s, nil
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
func (s *Search) resolve(devices []*hardware.Device, pairs map[[2]string]int) ([]job, []string, error) {
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
								return nil, nil, err
							}
							if _, _, ok := ch.Runtime.Precision(c.Weights, ch.Engine); !ok {
								skipped = append(skipped, fmt.Sprintf("%s/%s cannot run %s", d.Name, en, ch.Weights.Name))
								continue
							}
							q, err := quality(ch.Weights.Name)
							if err != nil {
								return nil, nil, err
							}
							jobs = append(jobs, job{d, ch.Engine, ch.Runtime, c, ch.KV, q, pairs[[2]string{d.Name, m.Name}]})
						}
					}
				}
			}
		}
	}
	return jobs, skipped, nil
}

// Groups is how many groups the search evaluates.
func (s *Search) Groups() int { return len(s.jobs) }

// Run evaluates every group in a fixed order. emit, when not nil, is
// handed each group with its configurations as soon as it is evaluated;
// the result keeps the configurations only when keep is set (a streaming
// caller has written them already).
func (s *Search) Run(emit func(*Group) error, keep bool) (*Result, error) {
	sp := s.space
	tol := sp.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	res := &Result{Skipped: s.skipped, Targets: s.targets, Rank: sp.Rank, Tolerance: tol, EnginesAsked: len(sp.Engines) > 0,
		options: sp.Options, ubatch: sp.UBatch, Groups: make([]Group, len(s.jobs))}
	res.Pairs = make([]Pair, len(s.pairs))
	copy(res.Pairs, s.pairs)
	switch {
	case emit == nil:
		return res, s.parallel(res, keep)
	case keep:
		for i := range s.jobs {
			if _, err := s.evaluate(res, i, nil); err != nil {
				return nil, err
			}
			if err := emit(&res.Groups[i]); err != nil {
				return nil, err
			}
		}
		return res, nil
	}
	return res, s.pipeline(res, emit)
}

// parallel evaluates the groups on two cores, each taking every other
// group, and counts them in order afterwards: the result is the serial
// one's.
func (s *Search) parallel(res *Result, keep bool) error {
	const workers = 2
	errs := make([]error, workers)
	// Kept, every group's configurations share one allocation: tens of
	// thousands of buffers would each be taken and cleared in turn.
	per := len(s.contexts) * len(s.batches)
	var slab []sim.Config
	if keep {
		slab = make([]sim.Config, len(s.jobs)*per)
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []sim.Config
			for i := w; i < len(s.jobs) && errs[w] == nil; i += workers {
				g := &res.Groups[i]
				if keep {
					buf = slab[i*per : i*per : (i+1)*per] // the group owns its part
				}
				if buf, errs[w] = s.runGroup(&s.jobs[i], g, buf[:0]); !keep {
					g.Configs = nil
				}
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

// inFlight is how many evaluated groups may wait for the writer.
const inFlight = 64

// pipeline evaluates the groups on one goroutine while emit writes them on
// this one, in order: on two cores the writing (formatting numbers) no
// longer waits for the pricing, nor the pricing for the writing. Memory
// stays bounded: inFlight buffers of configurations go round.
func (s *Search) pipeline(res *Result, emit func(*Group) error) error {
	ready := make(chan int, inFlight)
	free := make(chan []sim.Config, inFlight)
	for range inFlight {
		free <- nil
	}
	stop := make(chan struct{})
	var evalErr error
	go func() {
		defer close(ready)
		for i := range s.jobs {
			var buf []sim.Config
			select {
			case buf = <-free:
			case <-stop:
				return
			}
			if _, evalErr = s.evaluate(res, i, buf[:0]); evalErr != nil {
				return
			}
			ready <- i
		}
	}()
	var err error
	for i := range ready {
		g := &res.Groups[i]
		if err == nil {
			if err = emit(g); err != nil {
				close(stop)
			}
		}
		free <- g.Configs
		g.Configs = nil
	}
	if err != nil {
		return err
	}
	return evalErr // read after ready closed: the evaluator has returned
}

// evaluate runs group i of the search into res, its configurations in
// buf.
func (s *Search) evaluate(res *Result, i int, buf []sim.Config) ([]sim.Config, error) {
	buf, err := s.runGroup(&s.jobs[i], &res.Groups[i], buf)
	if err != nil {
		return buf, err
	}
	s.account(res, i)
	return buf, nil
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

// runGroup evaluates one group into g, its configurations in buf.
func (s *Search) runGroup(j *job, g *Group, buf []sim.Config) ([]sim.Config, error) {
	sp, t := s.space, s.targets
	st, err := sim.NewSetup(j.cost, j.dev, j.engine, j.runtime, sp.Options)
	if err != nil {
		return buf, err
	}
	*g = Group{Device: j.dev.Name, Family: j.dev.Family, Engine: j.engine.Name, EngineKind: j.engine.Kind, Runtime: j.runtime.Name, Model: j.cost.Spec.Name,
		Weights: j.cost.Weights.Name, KV: j.kv, BPW: j.cost.BitsPerWeight(), Usable: t.Usable(st), MemoryUsable: st.Usable(), Prompt: sp.Prompt, Output: sp.Output,
		Quality: j.quality, job: j}
	g.TTFTSpread, g.TPOTSpread = st.Spread(true), st.Spread(false)
	conf := t.ConfidenceLevel()
	g.ttftLo, g.ttftHi = g.TTFTSpread.Bounds(conf)
	g.tpotLo, g.tpotHi = g.TPOTSpread.Bounds(conf)
	if cap(buf) == 0 {
		buf = make([]sim.Config, 0, len(s.contexts)*len(s.batches))
	}
	ev := st.Evaluator(sp.Prompt, sp.Output, sp.UBatch, t)
	for _, b := range s.batches {
		buf = ev.Contexts(s.contexts, b, buf)
	}
	g.Configs = buf
	g.Evaluated = len(buf)
	g.Reference = buf[0]
	for i, c := range buf {
		if c.Feasible {
			g.Meeting++
		}
		if c.Verdict == sim.Meets {
			g.Sure++
		}
		if i == 0 || sp.Rank.pickBetter(g, c, g.Pick, t) {
			g.Pick = c
		}
	}
	g.Limits = st.PlanLimits(s.batches[0], s.contexts[0], sp.Prompt, sp.Output, sp.UBatch, t)
	return buf, nil
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

// Judge is Judgements by value, for writers of millions of rows: without
// a target the judgement meets with infinite margins.
func (g *Group) Judge(c sim.Config, t sim.Targets) (ttft, tpot sim.Judgement) {
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
	s, err := r.Setup(g)
	if err != nil {
		return sim.ConcurrencyLimit{}, err
	}
	return s.MaxConcurrent(c.Context, g.Prompt, g.Output, r.ubatch, r.Targets), nil
}
