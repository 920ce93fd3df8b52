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
	"fmt"
	"strconv"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
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
	// Counts are the device counts to spread each model over (empty: 1);
	// each count above 1 is a group of its own, built by Spread.
	Counts []int
	// Spread spreads setup s's model over n devices like s's, as predict
	// does (--devices N): the split and its mode in a few words. Needed
	// when a count is above 1.
	Spread func(s *sim.Setup, n int) (*sim.Split, string, error)
	// Host is where setup s's runtime offloads the layers its device does
	// not hold (the host's CPU setup and the link to it, nil for unified
	// memory), as predict's default --gpu-layers does; a nil host when
	// the device has none. Nil: no configuration is offloaded.
	Host func(s *sim.Setup) (*sim.Setup, *hardware.Link, error)
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
	// Devices is how many devices the group spreads the model over and
	// Split says how ("" for one device); HostUsable is the host memory
	// an offloaded configuration may use besides Usable, B.
	Devices    int
	Split      string
	HostUsable float64
	// Quality is the weight format's published quality loss.
	Quality *model.Quality
	// MoEDecodeNote is sim.Inputs.MoEDecodeNote of the group's setup: why
	// its TPOT interval was widened ("" when it was not).
	MoEDecodeNote string
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
	// The factors offloaded configurations are judged at (sim.Split.Bounds).
	offLo, offHi, offTPOTLo, offTPOTHi float64
	// atOnce is the most sequences that share a step (sim.Inputs.Together
	// of any batch; 0: no limit): beyond it, they queue.
	atOnce int
	job    *job
}

// UsableFor is the memory configuration c may use, B: the device's (every
// device's of a spread group), and the host's too when c is offloaded.
func (g *Group) UsableFor(c sim.Config) float64 {
	if c.Offloaded() {
		return g.Usable + g.HostUsable
	}
	return g.Usable
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
	search  *Search
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
// reported at once. A glob or all may take in a device another item
// names; two names of one device (an alias, or a profile file of a
// built-in's name) are a *TwiceError: its rows would be drawn once, and
// the second spelling is most often a slip for another device.
func ResolveDevices(cat *profiles.Catalog, items []string) ([]*hardware.Device, error) {
	var out []*hardware.Device
	var errs []error
	named := names{}
	for _, it := range items {
		ds, err := cat.DevicesMatching(it)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		single := len(ds) == 1 && !isPattern(it)
		for _, d := range ds {
			if isNew, err := named.add(it, d.Name, single); err != nil {
				errs = append(errs, err)
			} else if isNew {
				out = append(out, d)
			}
		}
	}
	return out, errors.Join(errs...)
}

// ResolveModels expands names and "all"; two names of one model are a
// *TwiceError, as in ResolveDevices.
func ResolveModels(cat *profiles.Catalog, items []string) ([]*model.Spec, error) {
	var out []*model.Spec
	var errs []error
	named := names{}
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
			if isNew, err := named.add(it, m.Name, it != "all"); err != nil {
				errs = append(errs, err)
			} else if isNew {
				out = append(out, m)
			}
		}
	}
	return out, errors.Join(errs...)
}

// isPattern reports a device item that may stand for several: all or a glob.
func isPattern(item string) bool { return item == "all" || strings.ContainsAny(item, "*?[") }

// TwiceError is a list that names one device or model twice, by two
// spellings: an alias and its name, or a profile file and a name.
type TwiceError struct {
	Name          string // the profile's name
	First, Second string // the items, in the order given
}

func (e *TwiceError) Error() string {
	switch e.Name {
	case e.First:
		return fmt.Sprintf("names %s twice (%s is %s): name each once", e.Name, e.Second, e.Name)
	case e.Second:
		return fmt.Sprintf("names %s twice (%s is %s): name each once", e.Name, e.First, e.Name)
	}
	return fmt.Sprintf("names %s twice (%s and %s are both %s): name each once", e.Name, e.First, e.Second, e.Name)
}

// names follows each profile a list resolved to: the item that named
// it alone (not a glob or all; "": none), and whether it is listed.
type names map[string]*nameBy

type nameBy struct {
	item   string
	listed bool
}

// add records that item resolved to profile name (single: the item
// names that profile alone), refusing a second single item, and reports
// whether the profile is new to the list.
func (n names) add(item, name string, single bool) (bool, error) {
	by := n[name]
	if by == nil {
		by = &nameBy{}
		n[name] = by
	}
	if single {
		if by.item != "" && by.item != item {
			return false, &TwiceError{Name: name, First: by.item, Second: item}
		}
		by.item = item
	}
	isNew := !by.listed
	by.listed = true
	return isNew, nil
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

// ParseCounts reads a list of device counts: "1,2,4,8", a range "1..8",
// or both ("1,2..4,8"), in increasing order once each; every count from
// 1 to limits.Devices.
func ParseCounts(s string) ([]int, error) {
	var out []int
	for _, item := range ParseList(s) {
		lo, hi, isRange := strings.Cut(item, "..")
		a, err := count(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = count(hi); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("%q: a range runs from the smaller count to the larger (%d..%d)", item, b, a)
			}
		}
		for n := a; n <= b; n++ {
			if len(out) > 0 && n <= out[len(out)-1] {
				return nil, fmt.Errorf("%q: give each count once, in increasing order", s)
			}
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q: no device count (e.g. 1,2,4,8 or 1..8)", s)
	}
	return out, nil
}

// count is one device count from 1 to limits.Devices.
func count(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > limits.Devices {
		return 0, fmt.Errorf("%q: a device count is a whole number from 1 to %d", s, limits.Devices)
	}
	return n, nil
}

// SplitText says how configuration c of the group spreads its model, in
// a few words: the group's split over devices ("tp 4, nvlink4"), an
// offload's layers on the GPU as llama.cpp counts them ("offload 27/81",
// "offload 49/49, experts of 20 in host"), "" for one device alone.
func (g *Group) SplitText(c sim.Config) string {
	if g.Devices > 1 {
		return g.Split
	}
	if n, experts, ok := c.Offload(); ok {
		out := fmt.Sprintf("offload %d/%d", n, g.job.cost.Spec.Layers+1)
		if experts > 0 {
			out += fmt.Sprintf(", experts of %d in host", experts)
		}
		return out
	}
	return ""
}
