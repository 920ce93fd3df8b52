// Package plan searches devices × engines × models × formats × contexts ×
// batches for the configurations that fit in memory and meet latency
// targets, ranks them into an answer a user can deploy, and answers the
// inverse questions (the longest context that fits or meets TPOT, the
// longest prompt that meets TTFT, the most sequences that fit) directly.
// Every configuration is priced by sim with the shared cost model.
//
// A search runs in two steps so that a caller can stream it: Prepare
// resolves the space and meets every error, then Search.Run evaluates the
// groups one by one, handing each to the caller before it forgets its
// configurations; what the answer needs (each group's pick, limits and
// reference point) is kept, a few hundred bytes a group.
package plan

import (
	"errors"
	"strings"

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
	// Rank orders the answer, and Tolerance is the quality loss within
	// which formats count as equal (DefaultTolerance when 0).
	Rank      Rank
	Tolerance float64
}

// Group is one device engine running one model in one format.
type Group struct {
	Device     string
	Family     string
	Engine     string
	EngineKind hardware.Kind
	Runtime    string
	Model      string
	Weights    string
	KV         string
	BPW        float64 // file-level bits per weight
	Usable     float64 // usable memory after the headroom, B (sim.Targets.Usable)
	// MemoryUsable is the usable memory before the headroom: what the
	// runtime lets the model use on the device engine, B.
	MemoryUsable float64
	Prompt       int
	Output       int
	// Quality is the weight format's published quality loss.
	Quality *model.Quality
	// Configs are every configuration evaluated, by batch then context;
	// nil once a streaming search has handed the group on.
	Configs []sim.Config
	// Reference is the configuration at the smallest context and batch
	// planned: groups compare their speed there.
	Reference sim.Config
	// Pick is the group's best configuration under the plan's rank: the
	// feasible one it ranks first, or the one that misses least.
	Pick sim.Config
	// Evaluated counts the group's configurations, Meeting those that
	// meet the targets as predicted, and Sure those whose verdict is
	// meets (the slow end of the interval meets them too).
	Evaluated, Meeting, Sure int
	Limits                   sim.Limits
	// TTFTSpread and TPOTSpread are how far the setup's predictions may be
	// off (its runtime class or calibration): verdicts and margins are
	// weighed against them.
	TTFTSpread, TPOTSpread sim.Spread
	// The spreads' fast- and slow-end factors at the targets' confidence.
	ttftLo, ttftHi, tpotLo, tpotHi float64
	job                            *job
}

// Result is a whole plan.
type Result struct {
	Groups []Group
	// Skipped lists device engines that cannot run a requested format.
	Skipped []string
	// Evaluated counts configurations over all groups, Meeting those
	// that meet the targets as predicted and Sure those judged to meet
	// them at the targets' confidence (Group).
	Evaluated, Meeting, Sure int
	Targets                  sim.Targets
	Rank                     Rank
	Tolerance                float64
	// EnginesAsked is true when the space named its engines: every one of
	// them then belongs in the answer.
	EnginesAsked bool
	// Pairs are the devices and models searched, in order, with the
	// groups of each.
	Pairs   []Pair
	options sim.Options
	ubatch  int
}

// Pair is one device and model with the indices of its groups in
// Result.Groups.
type Pair struct {
	Device, Model string
	Groups        []int
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

func dedupe(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
