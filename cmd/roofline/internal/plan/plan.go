// Package plan searches devices × engines × models × formats × contexts ×
// batches for the configurations that fit in memory and meet latency
// targets, and answers the inverse questions (the longest context that fits
// or meets TPOT, the longest prompt that meets TTFT, the most sequences that
// fit) directly. Every configuration is priced by sim with the shared cost
// model.
package plan

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// Space is what to search.
type Space struct {
	Devices []*hardware.Device
	Engines []string // empty: every engine of each device
	// Runtimes keeps to these runtimes; empty: the runtime the rule
	// chooses for each device engine and format (runtimes.Set.Choose).
	Runtimes []string
	Models   []*model.Spec
	Weights  []string // empty: each runtime's default format
	KV       []string
	Contexts []int
	Batches  []int
	Prompt   int
	Output   int
	UBatch   int
	// MinContext and MinBatch drop smaller values from the lists.
	MinContext, MinBatch int
	Options              sim.Options
	// RuntimeSet is the catalog's runtime set the rule chooses from.
	RuntimeSet *runtimes.Set
}

// Group is one device engine running one model in one format.
type Group struct {
	Device  string
	Family  string
	Engine  string
	Runtime string
	Model   string
	Weights string
	KV      string
	BPW     float64 // file-level bits per weight
	Usable  float64 // usable memory after the headroom, B
	Prompt  int
	Output  int
	Configs []sim.Config
	Limits  sim.Limits
	// TTFTSpread and TPOTSpread are how far the setup's predictions may be
	// off (its runtime class or calibration): verdicts and margins are
	// weighed against them.
	TTFTSpread, TPOTSpread sim.Spread
}

// Result is a whole plan.
type Result struct {
	Groups []Group
	// Skipped lists device engines that cannot run a requested format.
	Skipped   []string
	Evaluated int
}

// ParseList splits a comma-separated list, dropping empty items.
func ParseList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ResolveDevices expands names, "all" and globs; every unknown name is
// reported at once.
func ResolveDevices(cat *profiles.Catalog, items []string) ([]*hardware.Device, error) {
	var out []*hardware.Device
	var errs []error
	seen := map[string]bool{}
	for _, it := range items {
		ds, err := cat.DevicesMatching(it)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, d := range ds {
			if !seen[d.Name] {
				seen[d.Name] = true
				out = append(out, d)
			}
		}
	}
	return out, errors.Join(errs...)
}

// ResolveModels expands names and "all".
func ResolveModels(cat *profiles.Catalog, items []string) ([]*model.Spec, error) {
	var out []*model.Spec
	var errs []error
	seen := map[string]bool{}
	for _, it := range items {
		var ms []*model.Spec
		if it == "all" {
			ms = cat.Models()
		} else if m, err := cat.Model(it); err != nil {
			errs = append(errs, err)
			continue
		} else {
			ms = []*model.Spec{m}
		}
		for _, m := range ms {
			if !seen[m.Name] {
				seen[m.Name] = true
				out = append(out, m)
			}
		}
	}
	return out, errors.Join(errs...)
}

// AllWeights is every built-in weight format name.
func AllWeights() []string {
	var out []string
	for _, f := range model.WeightFormats {
		out = append(out, f.Name)
	}
	return out
}

type job struct {
	dev     *hardware.Device
	engine  *hardware.Engine
	runtime *runtimes.Runtime
	cost    *model.Cost
	kv      string
}

// Run evaluates the space against targets, group by group in a fixed
// order.
func Run(sp Space, t sim.Targets) (*Result, error) {
	if len(sp.Devices) == 0 || len(sp.Models) == 0 {
		return nil, errors.New("empty search space: give at least one device and one model")
	}
	var contexts, batches []int
	for _, c := range sp.Contexts {
		if c >= sp.MinContext && c >= sp.Prompt+sp.Output {
			contexts = append(contexts, c)
		}
	}
	for _, b := range sp.Batches {
		if b >= sp.MinBatch {
			batches = append(batches, b)
		}
	}
	if len(contexts) == 0 {
		return nil, fmt.Errorf("no context length left: every --context is below --min-context %d or prompt + output %d", sp.MinContext, sp.Prompt+sp.Output)
	}
	if len(batches) == 0 {
		return nil, fmt.Errorf("no batch size left: every --batch is below --min-batch %d", sp.MinBatch)
	}
	kvs := sp.KV
	if len(kvs) == 0 {
		kvs = []string{""}
	}
	if sp.RuntimeSet == nil {
		return nil, errors.New("plan: no runtime set")
	}
	// Each model is priced once per format and layout (resolve.Costs).
	costs := resolve.NewCosts()
	runtimeNames := sp.Runtimes
	if len(runtimeNames) == 0 {
		runtimeNames = []string{""}
	}
	weightNames := sp.Weights
	if len(weightNames) == 0 {
		weightNames = []string{""}
	}
	res := &Result{}
	var jobs []job
	seen := map[string]bool{}
	for _, d := range sp.Devices {
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
									res.Skipped = append(res.Skipped, fmt.Sprintf("%s/%s: %v", d.Name, en, err))
									continue
								}
								continue // no runtime for this engine and the defaults
							}
							key := strings.Join([]string{d.Name, ch.Engine.Name, ch.Runtime.Name, m.Name, ch.Weights.Name, ch.KV}, "|")
							if seen[key] {
								continue
							}
							seen[key] = true
							c, err := costs.Cost(m, ch.Weights, ch.KV, ch.Runtime)
							if err != nil {
								return nil, err
							}
							if _, _, ok := ch.Runtime.Precision(c.Weights, ch.Engine); !ok {
								res.Skipped = append(res.Skipped, fmt.Sprintf("%s/%s cannot run %s", d.Name, en, ch.Weights.Name))
								continue
							}
							jobs = append(jobs, job{d, ch.Engine, ch.Runtime, c, ch.KV})
						}
					}
				}
			}
		}
	}
	// One core: spreading the groups over two cores measured no faster
	// (the work is allocation- and memory-bound), so the order stays simple.
	res.Groups = make([]Group, len(jobs))
	for i, j := range jobs {
		g, err := runGroup(j, sp, contexts, batches, t)
		if err != nil {
			return nil, err
		}
		res.Groups[i] = g
		res.Evaluated += len(g.Configs)
	}
	sort.Strings(res.Skipped)
	res.Skipped = dedupe(res.Skipped)
	return res, nil
}

func runGroup(j job, sp Space, contexts, batches []int, t sim.Targets) (Group, error) {
	s, err := sim.NewSetup(j.cost, j.dev, j.engine, j.runtime, sp.Options)
	if err != nil {
		return Group{}, err
	}
	g := Group{Device: j.dev.Name, Family: j.dev.Family, Engine: j.engine.Name, Runtime: j.runtime.Name, Model: j.cost.Spec.Name, Weights: j.cost.Weights.Name,
		KV: j.kv, BPW: j.cost.BitsPerWeight(), Usable: t.Usable(s), Prompt: sp.Prompt, Output: sp.Output}
	g.TTFTSpread, g.TPOTSpread = s.Spread(true), s.Spread(false)
	g.Configs = make([]sim.Config, 0, len(contexts)*len(batches))
	for _, b := range batches {
		g.Configs = s.EvaluateContexts(contexts, b, sp.Prompt, sp.Output, sp.UBatch, t, g.Configs)
	}
	g.Limits = s.PlanLimits(batches[0], contexts[0], sp.Prompt, sp.Output, sp.UBatch, t)
	return g, nil
}

func dedupe(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// Choice is one (device, model) answer: the best feasible configuration, or
// the one that came closest and why it fails.
type Choice struct {
	Device, Model string
	Group         *Group
	Config        sim.Config
	Feasible      bool
}

// Best ranks, per device and model, the feasible configurations: highest
// precision weights, then longest context, then largest batch. When none
// is feasible it returns the configuration that misses least.
func (r *Result) Best() []Choice {
	type key struct{ d, m string }
	best := map[key]*Choice{}
	var order []key
	for gi := range r.Groups {
		g := &r.Groups[gi]
		k := key{g.Device, g.Model}
		ch, ok := best[k]
		if !ok {
			ch = &Choice{Device: g.Device, Model: g.Model}
			best[k] = ch
			order = append(order, k)
		}
		for _, c := range g.Configs {
			if better(g, c, ch) {
				ch.Group, ch.Config, ch.Feasible = g, c, c.Feasible
			}
		}
	}
	out := make([]Choice, 0, len(order))
	for _, k := range order {
		out = append(out, *best[k])
	}
	return out
}

func better(g *Group, c sim.Config, cur *Choice) bool {
	switch {
	case cur.Group == nil:
		return true
	case c.Feasible != cur.Feasible:
		return c.Feasible
	case !c.Feasible:
		return c.Excess < cur.Config.Excess
	case g.BPW != cur.Group.BPW:
		return g.BPW > cur.Group.BPW
	case c.Context != cur.Config.Context:
		return c.Context > cur.Config.Context
	}
	return c.Batch > cur.Config.Batch
}

// ParetoPoint is one format on the quality-speed frontier.
type ParetoPoint struct {
	Device, Engine, Model, Weights string
	BPW                            float64
	TokensPerS                     float64 // decode, per sequence, at the smallest planned context and batch
}

// Pareto returns, per device and model, the formats no other format beats
// on both bits per weight and decode speed (among those that fit).
func (r *Result) Pareto() []ParetoPoint {
	type key struct{ d, m string }
	pts := map[key][]ParetoPoint{}
	var order []key
	for _, g := range r.Groups {
		if len(g.Configs) == 0 || !g.Configs[0].Fits {
			continue
		}
		k := key{g.Device, g.Model}
		if _, ok := pts[k]; !ok {
			order = append(order, k)
		}
		pts[k] = append(pts[k], ParetoPoint{g.Device, g.Engine, g.Model, g.Weights, g.BPW, 1 / g.Configs[0].TPOT})
	}
	var out []ParetoPoint
	for _, k := range order {
		ps := pts[k]
		for i, p := range ps {
			dominated := false
			for j, q := range ps {
				if i != j && q.BPW >= p.BPW && q.TokensPerS >= p.TokensPerS && (q.BPW > p.BPW || q.TokensPerS > p.TokensPerS) {
					dominated = true
					break
				}
			}
			if !dominated {
				out = append(out, p)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Device != b.Device || a.Model != b.Model {
			return false
		}
		return a.BPW > b.BPW
	})
	return out
}
