package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/units"
)

// Pool is a memory a split model's tensors live in: a GPU's memory, its
// host's RAM, each device of a tensor-parallel group.
type Pool struct {
	Name   string
	Device *hardware.Device
	// Usable is the memory the runtime may use in it, B: the device's
	// usable memory times the runtime's share.
	Usable float64
	// Margin is what the placement rule keeps free in it, B (llama.cpp's
	// --fit target on a GPU); 0 for none.
	Margin float64
	// Devices is how many identical devices the pool stands for (a
	// tensor-parallel group): its figures are each device's.
	Devices int
	// Host is true for a host's RAM beside a discrete device.
	Host bool
}

// PoolUse is what a configuration needs in a pool, B.
type PoolUse struct {
	Pool
	Weights, KV, Activations, Overhead, Total float64
	Fits                                      bool
	Headroom                                  float64 // Usable − Total
}

// Stage is a part of a split model priced on one engine: what one device
// of it streams and computes per pass, at that engine's rates.
type Stage struct {
	Name   string // what it holds, in words
	Engine string // where it computes: "rtx-4090 gpu", "desktop-ddr5 cpu"
	Part   model.Part
	// Cost is the stage's share of the model: a slice, and under tensor
	// parallelism one device's shard of it.
	Cost *model.Cost
	// Pool holds its weights, KVPool its KV cache (-1: none); Compute is
	// the pool of the device it computes on (its compute buffer).
	Pool, KVPool, Compute int
	// Layers are the layers whose fixed cost it pays.
	Layers int
	setup  *Setup
	r      rates // expected
	ideal  rates
	// on is the engine it computes on, and over the link its weights
	// cross to it (nil: none; Stage.overLink).
	on   string
	over *hardware.Link
	// launched are a decode stage's expected rates for a step of more
	// sequences than its runtime replays as one graph
	// (Setup.decodeRates): a pass's fixed costs.
	launched rates
}

// decodeRates are the stage's expected rates for a decode step of
// `batch` sequences (Setup.decodeRates).
func (st *Stage) decodeRates(batch int) *rates {
	if g := st.setup.Inputs.GraphBatch; st.setup.Inputs.Graphless || (g > 0 && batch > g) {
		return &st.launched
	}
	return &st.r
}

// SplitKind is how a split spreads a model.
type SplitKind string

// Split kinds.
const (
	// Offload keeps part of the model in a host's memory beside a GPU
	// (llama.cpp -ngl, --n-cpu-moe).
	Offload SplitKind = "offload"
	// Parallel spreads the model over devices in one machine: tensor,
	// pipeline and expert parallel.
	Parallel SplitKind = "parallel"
	// Network spreads it over machines on a network (llama.cpp RPC).
	Network SplitKind = "network"
)

// Split is a model spread over engines and memories, priced by the same
// pass functions as one device (each stage's slice of the model at its
// engine's rates) plus what crosses the links: activations between
// stages and tensor-parallel collectives.
type Split struct {
	Kind SplitKind
	// Main is the first device's setup: the workload's rules, the
	// runtime, the warnings.
	Main  *Setup
	Pools []Pool
	// Prefill and Decode are the stages a prefill pass and a decode step
	// run, in order: they differ where a runtime runs host-resident
	// products on the GPU for large passes (llama.cpp's op offload).
	Prefill, Decode []*Stage
	// Link joins the stages; nil when nothing crosses one (unified
	// memory).
	Link *hardware.Link
	// Between is the link between the groups an NVLink Link joins when
	// the devices fill more than one (bridged pairs: the host's PCIe;
	// HGX boards: their nodes' network); nil when Link joins them all.
	// GroupStages are the consecutive pipeline stages each group holds:
	// the hop after stage i (from 0) crosses Between when (i+1) is a
	// multiple of it, the others stay on Link.
	Between     *hardware.Link
	GroupStages int
	// TP devices share every product, PP stages run one after another
	// on devices of their own; EP spreads whole experts over the TP
	// devices.
	TP, PP int
	EP     bool
	// PipelineBatches is how many micro-batches a decode step splits the
	// batch into when PP > 1, each stepping on its own (vLLM: one per
	// stage, its virtual engines). nil: the batch's passes of up to
	// UBatch sequences (UBatchPipeline), or one.
	PipelineBatches func(batch int) int
	// UBatchPipeline is true when a decode step of more sequences than a
	// pass takes (the workload's UBatch) runs as that many passes through
	// the stages, each stage starting the next as it sends the last on,
	// and the step ends when the last leaves the last stage (llama.cpp's
	// llama_decode splitting a batch into ubatches, its scheduler's
	// pipeline parallelism, PR #6017).
	UBatchPipeline bool
	// PipelinedPrefill is true when a prompt's passes follow each other
	// through the stages (llama.cpp's pipeline parallelism, vLLM's
	// chunks), rather than one pass at a time.
	PipelinedPrefill bool
	// Hops are the activation transfers a prefill pass and a decode step
	// make between stages, each of HopBytes per token; a prefill pass's
	// of PrefillHopBytes where it is not 0 (an offload's op-offloaded
	// passes, whose hops carry the host layers' new K and V rows).
	PrefillHops, DecodeHops   int
	HopBytes, PrefillHopBytes float64
	// HopRoundTrip is true when each transfer waits for a reply (an RPC
	// request): two latencies.
	HopRoundTrip bool
	// AllReduces per pass of CollectiveBytes per token (tensor parallel),
	// AllToAlls per pass of ExpertBytes per token (expert parallel).
	AllReduces, AllToAlls        int
	CollectiveBytes, ExpertBytes float64
	// Exchange is true when an all-reduce is each device sending its
	// slice of the partial output to every other (distributed-llama's
	// syncNodeSlices): (N−1) slices over each device's link in one
	// latency, not a ring's 2(N−1) steps.
	Exchange bool
	// GPULayers is the layers on the GPU as llama.cpp counts them (the
	// output layer is one), for an offload; Layers the model's plus one.
	GPULayers, Layers int
	// ExpertLayers are the layers whose routed experts stay in host
	// memory (offload).
	ExpertLayers int
	// Notes say how the placement was chosen.
	Notes []string
	// prefillSmall are the prefill stages of a pass too small for
	// llama.cpp to run host-resident products on the GPU (OpOffloadRows),
	// with smallHops transfers a pass; nil when Prefill serves every
	// pass.
	prefillSmall []*Stage
	smallHops    int
}

// prefillStages are the stages of workload w's prefill passes, their
// hops and the bytes a token each hop carries.
func (sp *Split) prefillStages(w Workload) ([]*Stage, int, float64) {
	if sp.prefillSmall != nil && !sp.opOffload(w) {
		return sp.prefillSmall, sp.smallHops, sp.HopBytes
	}
	return sp.Prefill, sp.PrefillHops, sp.prefillHopBytes()
}

// prefillHopBytes is the bytes a token each hop of a pass of the Prefill
// stages carries.
func (sp *Split) prefillHopBytes() float64 {
	if sp.PrefillHopBytes > 0 {
		return sp.PrefillHopBytes
	}
	return sp.HopBytes
}

// SplitResult is what a split prediction adds to a Result.
type SplitResult struct {
	Kind   SplitKind
	Pools  []PoolUse
	Stages []StageTime
	// Link names the link between the stages ("" without one); Between
	// the link between the NVLink groups ("" when Link joins them all)
	// and BetweenHops how many of a step's hops cross it.
	Link, Between string
	BetweenHops   int
	// Transfer and collective time over the whole prefill and per decode
	// step (mean), s.
	TransferTTFT, TransferTPOT     float64
	CollectiveTTFT, CollectiveTPOT float64
	// BubbleTPOT is the pipeline's idle share of a decode step's time
	// (PP > 1): micro-batches fewer than stages, or stages whose own
	// times (layers, hop, collectives) differ.
	BubbleTPOT float64
	TP, PP     int
	EP         bool
	Devices    int
	GPULayers  int
	Layers     int
	// ExpertLayers are the layers whose routed experts stay in host memory.
	ExpertLayers int
	Notes        []string
	// IdealPrefill and IdealDecode are the largest part of each phase's
	// ideal time (Result.TTFTBound, Decode.IdealTime): where a split
	// model's ideal is spent, which the engine's peaks alone do not say
	// (an offloaded layer's weights crossing the link).
	IdealPrefill, IdealDecode IdealPart
}

// IdealPart is a part of a split phase's ideal time: what crosses a link
// at its datasheet rate, or what an engine's stages move through its
// memory or compute at its peaks.
type IdealPart struct {
	// Where names the link ("pcie4-x16") or the engine ("desktop-ddr5
	// cpu"); Link is true for a link.
	Where string
	Link  bool
	// Bound is memory (bytes moved; always on a link) or compute (FLOPs).
	Bound Bound
	// Amount is the bytes or FLOPs over the whole phase, Rate the B/s or
	// FLOP/s they go at, Time the part's ideal time over the phase, s.
	Amount, Rate, Time float64
}

// StageTime is one stage's share of a prediction.
type StageTime struct {
	Name, Pool string
	// PrefillEngine and DecodeEngine say where the stage computes in each
	// phase ("" when it takes no part in it): a host layer's products run
	// on the GPU in a large prefill pass.
	PrefillEngine, DecodeEngine string
	// Prefill is the stage's time over the whole prefill, Decode its mean
	// time per decode step, s.
	Prefill, Decode float64
}

// newStage is a stage of part p of the model on setup s's engine, its
// weights in pool, priced with the fixed cost of its layers (and the
// step's own when first).
func newStage(name string, s *Setup, c *model.Cost, p model.Part, pool, kvPool, compute int, first, prefill bool) *Stage {
	st := &Stage{Name: name, Engine: s.Device.Name + " " + s.Engine.Name, on: s.Device.Name + " " + s.Engine.Name, Part: p, Cost: c, Pool: pool, KVPool: kvPool, Compute: compute,
		Layers: p.Layers(), setup: s}
	in := &s.Inputs
	layers := float64(st.Layers) / float64(max(in.LayerUnits, 1))
	if prefill {
		st.r = s.rates.prefill
		st.r.overhead = in.stagePrefillOverhead(layers, first)
	} else {
		st.r = s.rates.decode
		st.r.overhead = layers * in.Clocked().LayerOverhead
		if first {
			st.r.overhead += in.Clocked().StepOverhead
		}
		st.launched = s.rates.launched
		st.launched.overhead = layers * in.Efficiency.LayerOverhead
		if first {
			st.launched.overhead += in.Efficiency.PassOverhead
		}
	}
	if in.Layers > 0 {
		f := float64(st.Layers) / float64(in.Layers)
		st.r.host *= f
		st.r.graphIn *= f
		st.r.graphOut *= f
		st.launched.host *= f
		st.launched.graphIn *= f
		st.launched.graphOut *= f
	}
	st.ideal = s.rates.ideal
	return st
}

// overLink makes a prefill stage whose weights live in host memory run
// on gpu's engine, its weights crossing link: llama.cpp offloads a
// product of 32 rows or more whose weights are in host memory to the GPU
// (ggml-cuda's offload_op), and ggml's scheduler runs the layer's other
// operations there too (ggml_backend_sched_split_graph's "expand gpu"
// passes), attention included, copying the weights and the layer's KV
// cache up as a split's inputs; only the writes of the pass's new K and
// V rows into the cache run on the CPU (the hops, Split.PrefillHopBytes).
// The products' activations stay in the GPU's memory, and attention runs
// at the GPU's rate, its cache read over the link.
func (st *Stage) overLink(gpu *Setup, link *hardware.Link, compute int) {
	st.r = gpu.rates.prefill
	st.r.overhead = gpu.Inputs.stagePrefillOverhead(float64(st.Layers)/float64(max(gpu.Inputs.LayerUnits, 1)), false)
	if n := gpu.Inputs.Layers; n > 0 { // its layers' share, as newStage's
		f := float64(st.Layers) / float64(n)
		st.r.host *= f
		st.r.graphIn *= f
		st.r.graphOut *= f
	}
	st.r.vram = st.r.bw
	st.r.bw = link.Rate()
	st.r.kv = link.Rate()
	st.ideal = gpu.rates.ideal
	st.ideal.vram = st.ideal.bw
	st.ideal.bw = link.Bandwidth
	st.ideal.kv = link.Bandwidth
	st.on, st.over = gpu.Device.Name+" "+gpu.Engine.Name, link
	st.Engine = st.on + " (weights over " + link.Name + ")"
	st.Compute = compute
	st.setup = gpu
}

// linkTime is what crosses the links over `passes` passes carrying
// `tokens` tokens in all: `hops` activation hops between stages of
// hopBytes a token each, and the tensor-parallel collectives, at the
// link's measured rate and latency (ideal: its datasheet rate, no
// latency). Transfers and collectives apart; between is the transfers'
// part on the link between groups (Split.Between).
func (sp *Split) linkTime(passes, hops int, hopBytes, tokens float64, ideal bool) (transfer, collective, between float64) {
	l := sp.Link
	if l == nil || passes <= 0 {
		return 0, 0, 0
	}
	rate, lat := l.Rate(), l.Latency
	if ideal {
		rate, lat = l.Bandwidth, 0
	}
	p := float64(passes)
	trips := 1.0
	if sp.HopRoundTrip {
		trips = 2
	}
	transfer = float64(hops) * hopTime(l, p, trips, tokens, hopBytes, ideal)
	if b := sp.betweenHops(hops); b > 0 {
		// Each hop runs on its own link, one after another: the hops
		// between groups at the groups' link's rate and latency.
		bt := hopTime(sp.Between, p, trips, tokens, hopBytes, ideal)
		transfer += float64(b) * (bt - hopTime(l, p, trips, tokens, hopBytes, ideal))
		between = float64(b) * bt
	}
	if n := sp.TP; n > 1 {
		k, fn := float64(n-1), float64(n)
		collective = float64(sp.AllReduces)*(p*2*k*lat+2*k/fn*tokens*sp.CollectiveBytes/rate) +
			float64(sp.AllToAlls)*(p*k*lat+k/fn*tokens*sp.ExpertBytes/rate)
		if sp.Exchange {
			collective = float64(sp.AllReduces) * (p*lat + k*tokens*sp.CollectiveBytes/rate)
		}
	}
	return transfer, collective, between
}

// betweenHops is how many of `hops` stage boundaries (a pass through a
// pipeline's PP − 1) cross the link between groups: one in every
// GroupStages.
func (sp *Split) betweenHops(hops int) int {
	if sp.Between == nil || sp.GroupStages < 1 {
		return 0
	}
	return hops / sp.GroupStages
}

// hopTime is one hop's transfers over link l in `passes` passes carrying
// `tokens` tokens in all, hopBytes a token, each pass of `trips`
// latencies (ideal: the datasheet rate, no latency).
func hopTime(l *hardware.Link, passes, trips, tokens, hopBytes float64, ideal bool) float64 {
	rate, lat := l.Rate(), l.Latency
	if ideal {
		rate, lat = l.Bandwidth, 0
	}
	return passes*trips*lat + tokens*hopBytes/rate
}

// StagePartNote is note (a setup's MoEDecodeNote) said of stage, the
// device and engine of one stage of a split ("rtx-3060 gpu"): its part of
// a decode step is what the note widens, not the whole step's.
func StagePartNote(stage, note string) string {
	return stage + ", its part of a decode step: " + note
}

// stageSums are a stage's phase: expected and ideal.
type stageSums struct {
	exp, ideal sums
	// bytes and flops of the ideal sums at the stage's ideal rates; over
	// the bytes of them a stage over a link reads over it (its weights).
	bytes, over, flops float64
	overhead           float64
	// link and idealLink are the stage's own share of the links over the
	// phase (a pipeline's decode): the hop its output takes to the next
	// stage and its layers' collectives (Split.ownLinks).
	link, idealLink float64
}

// Predict prices workload w on the split: every stage's prefill passes
// and decode steps by the pass functions of one device (newPhases, at the
// stage's rates), added in the order they run, plus the links.
func (sp *Split) Predict(w Workload) (*Result, error) {
	r, _, err := sp.predict(w, true)
	return r, err
}

// splitParts are a split prediction's stage sums and link times: what
// weighs each stage's spread into the whole's (Split.bounds).
type splitParts struct {
	prefill       []*Stage
	pre, dec      []stageSums
	preLink, link float64
}

// predict is Predict; full adds the longest context every pool holds
// (a search over the pools' memory), the stages' times, the cold start,
// the warnings and the intervals, which a planner, checking the contexts
// it plans and judging at its own factors, does without: the figures it
// keeps are the same.
func (sp *Split) predict(w Workload, full bool) (*Result, *splitParts, error) {
	if err := w.Validate(); err != nil {
		return nil, nil, err
	}
	s := sp.Main
	w, from := sp.resolve(w)
	if sp.queues(w) {
		// Batches one after another (Setup.predictQueued's rule).
		n, size, last := s.Inputs.batches(w.Batch)
		one := w
		one.Batch = size
		r, parts, err := sp.predict(one, full)
		if err != nil {
			return nil, nil, err
		}
		ttft, e2e := r.TTFT, r.E2E
		if last != size {
			one.Batch = last
			rl, _, err := sp.predict(one, false)
			if err != nil {
				return nil, nil, err
			}
			ttft, e2e = rl.TTFT, rl.E2E
		}
		r.Inputs.Workload, r.Queued = w, true
		r.LastTTFT, r.LastE2E = queuedTimes(n, r.E2E, ttft, e2e)
		return r, parts, nil
	}
	r := &Result{Inputs: s.Inputs}
	in := &r.Inputs
	in.Workload, in.UBatchFrom = w, from
	r.Ridge = in.Peak / in.Bandwidth
	sr := &SplitResult{Kind: sp.Kind, TP: sp.TP, PP: sp.PP, EP: sp.EP, GPULayers: sp.GPULayers, Layers: sp.Layers,
		ExpertLayers: sp.ExpertLayers, Notes: sp.Notes, Devices: sp.devices()}
	if sp.Link != nil {
		sr.Link = sp.Link.Name
	}
	if sp.Between != nil {
		sr.Between, sr.BetweenHops = sp.Between.Name, sp.betweenHops(sp.DecodeHops)
	}
	q := sp.newSplitPricing(w, true, nil)
	ph := q.at()
	if len(q.pre) > 0 {
		// Every stage lays the batch out alike: the rows its products see.
		r.PrefillRows = q.pre[0].passRows()
	}

	// Prefill: the prompt's passes through every stage.
	prefill, pre, tr, co := q.prefill, q.preSums, q.tr, q.co
	tokens := float64(w.Batch * w.Prompt)
	sr.TransferTTFT, sr.CollectiveTTFT = tr, co
	r.Prefill = ph.prefill
	r.TTFT, r.TTFTBound = r.Prefill.Time, r.Prefill.IdealTime
	r.PrefillTokensPerS = tokens / r.TTFT

	// Decode: every step through every stage, the batch in micro-batches
	// through a pipeline.
	steps, dec := q.steps, q.decSums
	r.TPOT, r.ITLFirst, r.ITLLast, r.TPOTBound = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if steps > 0 {
		sr.TransferTPOT, sr.CollectiveTPOT = q.dtr/float64(steps), q.dco/float64(steps)
		r.Decode = ph.decode
		if sp.PP > 1 {
			sr.BubbleTPOT = sp.bubble(dec, q.micro, r.Decode.Time)
		}
		r.TPOT = r.Decode.Time / float64(steps)
		r.TPOTBound = r.Decode.IdealTime / float64(steps)
		r.ITLFirst, r.ITLLast = q.itl(&ph)
		r.DecodeTokensPerS = 1 / r.TPOT
		r.ThroughputTokensPerS = float64(w.Batch) / r.TPOT
	} else {
		r.warn("no-decode", "one output token: the prefill yields it, so TPOT and ITL are undefined")
	}
	r.E2E = r.TTFT + r.Decode.Time
	r.E2EBound = r.TTFTBound + r.Decode.IdealTime
	r.LastTTFT, r.LastE2E = r.TTFT, r.E2E
	parts := &splitParts{prefill: prefill, pre: pre, dec: dec, preLink: tr + co}
	if steps > 0 {
		parts.link = math.Max(r.Decode.Time-sumTimes(dec), 0)
	}
	if !full {
		sr.Pools = sp.Memory(w.Context(), w.Batch, w.UBatch)
		r.Memory = sp.memoryTotal(sr.Pools, w.Batch, w.UBatch, false)
		r.Split = sr
		return r, parts, nil
	}

	for i, st := range prefill {
		sr.Stages = append(sr.Stages, StageTime{Name: st.Name, PrefillEngine: st.Engine, Pool: sp.poolName(st.Pool), Prefill: pre[i].exp.time})
	}
	for i, st := range sp.Decode {
		t := 0.0
		if steps > 0 {
			t = dec[i].exp.time / float64(steps)
		}
		found := false
		for j := range sr.Stages {
			if sr.Stages[j].Name == st.Name {
				sr.Stages[j].Decode, sr.Stages[j].DecodeEngine, found = t, st.Engine, true
			}
		}
		if !found {
			sr.Stages = append(sr.Stages, StageTime{Name: st.Name, DecodeEngine: st.Engine, Pool: sp.poolName(st.Pool), Decode: t})
		}
	}
	sr.Pools = sp.Memory(w.Context(), w.Batch, w.UBatch)
	r.Memory = sp.memoryTotal(sr.Pools, w.Batch, w.UBatch, full)
	r.Split = sr
	cold := s.ColdStart(r.TTFT)
	r.LoadTime = cold.Load
	if in.Cold {
		r.ColdTTFT = cold.TTFT
	}
	sr.IdealPrefill = sp.idealPart(prefill, pre, q.itr+q.ico, q.ibetween)
	if steps > 0 {
		sr.IdealDecode = sp.idealPart(sp.Decode, dec, q.ditr+q.dico, q.dibetween)
	}
	sp.warnings(r)
	sp.intervals(r, prefill, pre, dec, tr+co, steps)
	return r, parts, nil
}

// idealPart is the largest part of a phase's ideal time, its stages
// st (their sums ss) and link the links' ideal time: each stage's time
// goes to the term that dominates it, its engine's compute or the memory
// its weights come from (its own, or the link they cross), and the links'
// transfers to the link (between: the part of link's time on the link
// between groups).
func (sp *Split) idealPart(st []*Stage, ss []stageSums, link, between float64) IdealPart {
	var parts []IdealPart
	add := func(p IdealPart) {
		for i := range parts {
			if q := &parts[i]; q.Where == p.Where && q.Bound == p.Bound && q.Rate == p.Rate {
				q.Amount, q.Time = q.Amount+p.Amount, q.Time+p.Time
				return
			}
		}
		parts = append(parts, p)
	}
	if l := sp.Between; l != nil && between > 0 {
		add(IdealPart{Where: l.Name, Link: true, Bound: MemoryBound, Amount: between * l.Bandwidth, Rate: l.Bandwidth, Time: between})
		link -= between
	}
	if l := sp.Link; l != nil && link > 0 {
		add(IdealPart{Where: l.Name, Link: true, Bound: MemoryBound, Amount: link * l.Bandwidth, Rate: l.Bandwidth, Time: link})
	}
	for i, s := range st {
		id := &ss[i]
		switch {
		case id.ideal.compute > id.ideal.memory:
			add(IdealPart{Where: s.on, Bound: ComputeBound, Amount: id.flops, Rate: s.ideal.peak, Time: id.ideal.time})
		case s.over != nil:
			add(IdealPart{Where: s.over.Name, Link: true, Bound: MemoryBound, Amount: id.over, Rate: s.ideal.bw, Time: id.over / s.ideal.bw})
		default:
			add(IdealPart{Where: s.on, Bound: MemoryBound, Amount: id.bytes, Rate: s.ideal.bw, Time: id.ideal.time})
		}
	}
	var best IdealPart
	for _, p := range parts {
		if p.Time > best.Time {
			best = p
		}
	}
	return best
}

// combine adds the stages of a phase of n units: in sequence, or through
// a pipeline of PP stages — decode steps with `micro` micro-batches in
// flight, prefill passes one after another, `micro` of them a fill of
// the pipeline (0: all n) — plus the links' time.
func (sp *Split) combine(st []stageSums, n, micro int, link, idealLink float64, prefill bool) Phase {
	ph := Phase{Steps: n}
	var exp, ideal sums
	for _, s := range st {
		exp.add(s.exp)
		ideal.add(s.ideal)
		ph.Bytes += s.bytes
		ph.FLOPs += s.flops
		ph.OverheadTime += s.overhead
	}
	ph.Time, ph.IdealTime = exp.time+link, ideal.time+idealLink
	switch {
	case sp.PP <= 1 || n <= 0:
	case !prefill && micro > 1:
		ph.Time = sp.round(st, micro, ph.Time, false)
		ph.IdealTime = sp.round(st, micro, ph.IdealTime, true)
	case prefill && sp.PipelinedPrefill && n > 1:
		// The passes follow each other through the stages, `micro` of
		// them a call (0: all n) that fills the pipeline once, as a
		// decode step's ubatches do (pipelineFills; the stage sums and
		// the links are over all n passes, so one pass's trip is the
		// whole's 1/n). As in decode, a stage is busy with a pass for
		// its layers and its own hop and collectives (Split.ownLinks):
		// a pass's hops are in its trip, and each next pass leaves a
		// slowest such stage later, not a stage and every hop later.
		// The ideal runtime fills it once.
		k := float64(n)
		ph.IdealTime = pipelineFills(ph.IdealTime/k, ownSlowest(st, true)/k, n, 0)
		ph.Time = pipelineFills(ph.Time/k, ownSlowest(st, false)/k, n, micro)
	}
	ph.MemoryTime, ph.ComputeTime, ph.ComputeBoundSteps = exp.memory, exp.compute, exp.computeBound
	if ph.Bytes > 0 {
		ph.Intensity = ph.FLOPs / ph.Bytes
	}
	ph.Bound = MemoryBound
	if exp.compute > exp.memory {
		ph.Bound = ComputeBound
	}
	return ph
}

// round is a pipeline's decode over the phase with `micro` micro-batches
// in flight, trip being one micro-batch's way through every stage and
// every hop (a token's latency). A stage is busy with a micro-batch for
// its own time plus its own link (Split.ownLinks: the hop it sends its
// output on, whose copy runs on its stream, and its layers'
// collectives), so the pipeline passes micro-batches no faster than one
// per slowest such stage — not per stage on average: a stage holding
// more layers, or whose hop leaves a board, sets the pace. Micro-batches
// that step on their own (vLLM's virtual engines) keep the stages busy
// when micro such stage times outlast a trip, else wait on the trip;
// passes of one step (llama.cpp's ubatches, UBatchPipeline) fill the
// pipeline once a step: one trip and a slowest stage for each other pass.
func (sp *Split) round(st []stageSums, micro int, trip float64, ideal bool) float64 {
	slowest := ownSlowest(st, ideal)
	if sp.PipelineBatches == nil && sp.UBatchPipeline {
		return pipelineFills(trip, slowest, micro, 0)
	}
	return max(trip, float64(micro)*slowest)
}

// ownSlowest is the largest of the stages' own times over a phase: its
// layers plus its own hop and collectives (Split.ownLinks), at the
// expected or the ideal rates.
func ownSlowest(st []stageSums, ideal bool) float64 {
	slowest := 0.0
	for _, s := range st {
		if ideal {
			slowest = max(slowest, s.ideal.time+s.idealLink)
		} else {
			slowest = max(slowest, s.exp.time+s.link)
		}
	}
	return slowest
}

// pipelineFills is the time of `passes` passes handed to a pipeline
// perFill at a time (0: all at once), trip being one pass's way through
// every stage and slowest the slowest stage's time a pass: each call
// fills the pipeline once, its first pass taking a trip and each next
// one a slowest stage more (llama.cpp's llama_decode: a call's ubatches
// through its scheduler's stages, ggml-org/llama.cpp PR #6017; a decode
// step is one call, a prompt one call per n_batch tokens). A last call
// that holds fewer passes, r, fills the pipeline on its own: a trip and
// r − 1 slowest stages.
func pipelineFills(trip, slowest float64, passes, perFill int) float64 {
	if passes <= 0 {
		return 0
	}
	k := passes
	if perFill > 0 && perFill < passes {
		k = perFill
	}
	call := func(n int) float64 { return trip + float64(n-1)*slowest }
	t := float64(passes/k) * call(k)
	if r := passes % k; r > 0 {
		t += call(r)
	}
	return t
}

// ownLinks sets each stage's own link time in a pipeline's phase
// (stageSums.link, and idealLink when ideal) over `passes` passes of
// `tokens` tokens in all, each hop carrying hopBytes a token: the hop
// after the k-th stage that holds layers goes to the next over Link, or
// over Between where it leaves a group (Split.betweenHops), the last
// stage sends none; the collectives (collective, idealCollective) go to
// the stages in proportion to the layers they hold. They add up to
// linkTime's transfers and collectives.
func (sp *Split) ownLinks(st []stageSums, stages []*Stage, passes int, tokens, hopBytes, collective, idealCollective float64, ideal bool) {
	layers := 0
	for _, s := range stages {
		layers += s.Part.End - s.Part.First
	}
	trips := 1.0
	if sp.HopRoundTrip {
		trips = 2
	}
	p := float64(passes)
	k := 0
	for i, s := range stages {
		st[i].link, st[i].idealLink = 0, 0
		n := s.Part.End - s.Part.First
		if n <= 0 || layers == 0 {
			continue
		}
		share := float64(n) / float64(layers)
		st[i].link = share * collective
		st[i].idealLink = share * idealCollective
		if k < sp.PP-1 && sp.Link != nil {
			l := sp.Link
			if sp.Between != nil && sp.GroupStages > 0 && (k+1)%sp.GroupStages == 0 {
				l = sp.Between
			}
			st[i].link += hopTime(l, p, trips, tokens, hopBytes, false)
			if ideal {
				st[i].idealLink += hopTime(l, p, trips, tokens, hopBytes, true)
			}
		}
		k++
	}
}

// passLinks sets pass[i] and token[i] to stage i's own link time in one
// pass through stages (ownLinks), its fixed part and its part a token of
// the pass: the hop it sends the pass on, each of the pass's `hops`
// carrying hopBytes a token, and its layers' share of the collectives.
// linkTime is linear in the tokens, so a pass of t tokens adds pass[i] +
// t·token[i]. own is scratch of len(stages).
func (sp *Split) passLinks(own []stageSums, stages []*Stage, hops int, hopBytes float64, pass, token []float64) {
	_, c0, _ := sp.linkTime(1, hops, hopBytes, 0, false)
	sp.ownLinks(own, stages, 1, 0, hopBytes, c0, 0, false)
	for i := range stages {
		pass[i] = own[i].link
	}
	_, c1, _ := sp.linkTime(1, hops, hopBytes, 1, false)
	sp.ownLinks(own, stages, 1, 1, hopBytes, c1, 0, false)
	for i := range stages {
		token[i] = own[i].link - pass[i]
	}
}

// bubble is the share of a decode round the pipeline's stages idle:
// each of the PP stages is busy with its share of the stages' own times
// (their layers, their hop and collectives, Split.ownLinks) `micro`
// times over a round of time round.
func (sp *Split) bubble(st []stageSums, micro int, round float64) float64 {
	if round <= 0 {
		return 0
	}
	own := 0.0
	for _, s := range st {
		own += s.exp.time + s.link
	}
	busy := float64(micro) * own / float64(sp.PP)
	return math.Max(0, 1-busy/round)
}

func sumTimes(st []stageSums) float64 {
	t := 0.0
	for _, s := range st {
		t += s.exp.time
	}
	return t
}

// devices counts the devices the split runs on (a host counts as one).
func (sp *Split) devices() int {
	n := 0
	for _, p := range sp.Pools {
		n += max(p.Devices, 1)
	}
	return n
}

func (sp *Split) poolName(i int) string {
	if i < 0 || i >= len(sp.Pools) {
		return ""
	}
	return sp.Pools[i].Name
}

// Memory is what each pool needs for `batch` sequences of ctx tokens in
// passes of ubatch tokens: the weights placed in it, the KV cache of the
// layers whose cache it holds, the compute buffer of the engine that
// computes from it (the largest of its stages'), and the runtime's
// overhead on a device it computes on.
func (sp *Split) Memory(ctx, batch, ubatch int) []PoolUse {
	return sp.memoryInto(nil, ctx, batch, ubatch)
}

// memoryInto is Memory in out's storage, grown when short: a planner
// checks millions of configurations' pools.
func (sp *Split) memoryInto(out []PoolUse, ctx, batch, ubatch int) []PoolUse {
	s := sp.Main
	ubatch = s.passUBatch(ctx, batch, ubatch)
	seqs := s.resident(batch)
	tokens, logits := passTokens(seqs, ubatch), passTokens(seqs, ubatch)
	if s.Inputs.LastLogits {
		logits = seqs
	}
	out = slices.Grow(out[:0], len(sp.Pools))[:len(sp.Pools)]
	for i, p := range sp.Pools {
		if out[i].Pool != p { // a pool's name and device are written once
			out[i].Pool = p
		}
		u := &out[i]
		u.Weights, u.KV, u.Activations, u.Overhead = 0, 0, 0, 0
	}
	for _, st := range sp.Decode {
		if st.Pool >= 0 {
			out[st.Pool].Weights += st.Cost.WeightBytes
		}
		if st.KVPool >= 0 {
			out[st.KVPool].KV += float64(seqs) * st.Cost.KVCacheBytes(ctx, ubatch)
		}
	}
	// Which pools an engine computes from: a few, marked in a word when
	// they fit one.
	var mark uint64
	var marks []bool
	if len(out) > 64 {
		marks = make([]bool, len(out))
	}
	for _, list := range [][]*Stage{sp.Prefill, sp.prefillSmall, sp.Decode} {
		for _, st := range list {
			if c := st.Compute; c >= 0 {
				out[c].Activations = max(out[c].Activations, st.Cost.ActivationPeakBytesLogits(tokens, logits))
				if marks != nil {
					marks[c] = true
				} else {
					mark |= 1 << c
				}
			}
		}
	}
	for i := range out {
		u := &out[i]
		computes := mark&(1<<i) != 0
		if marks != nil {
			computes = marks[i]
		}
		if computes && !u.Host {
			u.Overhead = s.Inputs.Overhead
		}
		u.Total = u.Weights + u.KV + u.Activations + u.Overhead
		u.Headroom = u.Usable - u.Total
		u.Fits = u.Total <= u.Usable
	}
	return out
}

// fits reports whether every pool holds what it needs, each less its
// margin when withMargin.
func fitsAll(pools []PoolUse, withMargin bool) bool {
	for _, p := range pools {
		limit := p.Usable
		if withMargin {
			limit -= p.Margin
		}
		if p.Total > limit {
			return false
		}
	}
	return true
}

// memoryTotal is the split's memory account as one Memory: the sums over
// the pools (each device of a group once), fitting when every pool does,
// and the longest context every pool holds.
func (sp *Split) memoryTotal(pools []PoolUse, batch, ubatch int, full bool) Memory {
	var m Memory
	m.Fits = true
	for _, p := range pools {
		n := float64(max(p.Devices, 1))
		m.Weights += n * p.Weights
		m.KV += n * p.KV
		m.Activations += n * p.Activations
		m.Overhead += n * p.Overhead
		m.Usable += n * p.Usable
		m.Fits = m.Fits && p.Fits
	}
	m.Total = m.Weights + m.KV + m.Activations + m.Overhead
	m.Headroom = m.Usable - m.Total
	if !m.Fits {
		// The headroom of the pool that misses most, as a shortfall.
		worst := 0.0
		for _, p := range pools {
			worst = math.Min(worst, p.Headroom)
		}
		m.Headroom = worst
	}
	if !full {
		return m
	}
	fits := func(c int) bool { return fitsAll(sp.Memory(c, batch, ubatch), false) }
	hi := MaxPlanTokens
	if lim := sp.Main.Model.Spec.MaxContext; lim > 0 {
		hi = lim + 1
	}
	best := largest(hi, fits)
	m.MaxContext, m.ContextBound = sp.Main.modelBound(best)
	return m
}

// warnings says what a split prediction rests on.
func (sp *Split) warnings(r *Result) {
	in := &r.Inputs
	for _, p := range r.Split.Pools {
		if !p.Fits {
			r.warn("does-not-fit", "%s does not hold its part: needs %s of %s usable (%s short)", p.Name,
				units.FormatBytes(p.Total, units.Binary), units.FormatBytes(p.Usable, units.Binary), units.FormatBytes(-p.Headroom, units.Binary))
		}
	}
	if ctx := in.Workload.Context(); ctx > sp.Main.Model.Spec.MaxContext {
		r.warn("context-beyond-model", "context %d tokens exceeds the model's maximum of %d (max_position_embeddings)", ctx, sp.Main.Model.Spec.MaxContext)
	}
	seen := map[string]bool{}
	for _, list := range [][]*Stage{sp.Prefill, sp.Decode} {
		for _, st := range list {
			s := st.setup
			key := s.Device.Name + "/" + s.Engine.Name
			if !seen[key] && !s.Inputs.Fitted && !s.Inputs.FromFlags {
				r.warn("prior", "no published measurements of %s on %s engines: the %s's part is priced at a wide prior, and so is its interval", s.Inputs.Runtime, s.Inputs.EngineKind, st.Engine)
			}
			seen[key] = true
		}
	}
	// A decode stage priced on a class widened for its MoE decode
	// (moeDecodeClass) widens its part of the TPOT interval: said once
	// for each setup, as one device's prediction says it.
	said := map[string]bool{}
	for _, st := range sp.Decode {
		if n := st.setup.Inputs.MoEDecodeNote; n != "" && !said[n] && !math.IsNaN(r.TPOT) {
			said[n] = true
			r.warn("moe-decode-unmodelled", "%s", StagePartNote(st.on, n))
		}
	}
	if sp.Main.Inputs.PeakDerived {
		r.warn("derived-peak", "the %s engine's %s peak is derived, not a datasheet figure: %s", sp.Main.Engine.Name, in.Precision, hardware.DerivedReason(in.PeakSource))
	}
}

// intervals widens each stage's time by its own class's spread and adds
// them (the cautious sum, as E2E's bounds are added): a part priced at a
// wide prior (a CPU without published runs) widens the whole. The links
// take the first device's spread.
func (sp *Split) intervals(r *Result, prefill []*Stage, pre, dec []stageSums, preLink float64, steps int) {
	if r.Inputs.FromFlags {
		return
	}
	bound := func(st []*Stage, ss []stageSums, link, total, ideal float64, prefill bool) (lo, hi float64) {
		main := sp.Main.class.Decode
		if prefill {
			main = sp.Main.class.Prefill
		}
		for i, s := range st {
			c := s.setup.class.Decode
			if prefill {
				c = s.setup.class.Prefill
			}
			lo += c.Low * ss[i].exp.time
			hi += c.High * ss[i].exp.time
		}
		lo += main.Low * link
		hi += main.High * link
		// A pipeline's total is not the sum of its stages: scale.
		if sum := sumTimes(ss) + link; sum > 0 {
			lo, hi = lo*total/sum, hi*total/sum
		}
		return IdealFloor(lo, ideal, total), hi
	}
	level := 0.80
	lo, hi := bound(prefill, pre, preLink, r.TTFT, r.TTFTBound, true)
	r.TTFTInterval = r.interval(0, Interval{Lo: lo, Hi: hi, Level: level})
	elo, ehi := lo, hi
	if steps > 0 {
		link := r.Decode.Time - sumTimes(dec)
		dlo, dhi := bound(sp.Decode, dec, math.Max(link, 0), r.Decode.Time, r.Decode.IdealTime, false)
		k := float64(steps)
		r.TPOTInterval = r.interval(1, Interval{Lo: dlo / k, Hi: dhi / k, Level: level})
		elo, ehi = lo+dlo, hi+dhi
		x := r.ThroughputTokensPerS * r.TPOT
		r.ThroughputInterval = r.interval(3, Interval{Lo: x / (dhi / k), Hi: x / (dlo / k), Level: level})
	}
	r.E2EInterval = r.interval(2, Interval{Lo: elo, Hi: ehi, Level: level})
	for _, st := range sp.Decode {
		if st.setup.Inputs.MoEDecodeNote != "" && steps > 0 {
			r.widenedDecode()
		}
	}
}

// Describe says where each part of the model is, in words: a line per
// stage of a decode step.
func (sp *Split) Describe() []string {
	var out []string
	for _, st := range sp.Decode {
		out = append(out, fmt.Sprintf("%s: %s, in %s", st.Name, st.Engine, sp.poolName(st.Pool)))
	}
	return out
}
