package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/units"
)

// Setup is a model resolved on one engine of a device under a runtime:
// the precision its kernels run at, the efficiency that applies, and the
// memory the runtime leaves the model. Predictions, measured-run
// comparison, planning and calibration all price through it.
type Setup struct {
	Model   *model.Cost
	Device  *hardware.Device
	Engine  *hardware.Engine
	Runtime *runtimes.Runtime
	Inputs  Inputs // Workload is left empty; read-only once resolved
	class   *runtimes.Class
	// rates are what every pass and step is priced at, resolved once from
	// Inputs (the achieved bandwidth alone takes a fourth root): a plan
	// prices millions of passes of one setup. NewSetup and WithEfficiency
	// set them.
	rates setupRates
	// kernelPrecision is the precision the runtime's kernels prefer for
	// the weights on this engine ("" when none): Precision falls back
	// from it when the engine lacks its peak.
	kernelPrecision units.Precision
}

// setupRates are a setup's rates: expected for prefill passes and decode
// steps (they differ in the fixed overhead), and ideal.
type setupRates struct {
	prefill, decode, ideal rates
	// launched are a decode step's rates when it holds more sequences
	// than the runtime replays as one graph (Inputs.GraphBatch): decode's
	// with a pass's fixed costs.
	launched rates
}

// resolveRates sets s.rates from s.Inputs.
func (s *Setup) resolveRates() {
	s.rates = setupRates{prefill: s.expected(s.Inputs.PrefillOverhead, true).slower(s.Inputs.PrefillFactor),
		decode: s.expected(s.Inputs.DecodeOverhead, false).slower(s.Inputs.DecodeFactor), ideal: s.idealRates()}
	s.rates.launched = s.rates.decode
	if s.Inputs.GraphBatch > 0 || s.Inputs.Graphless {
		s.rates.launched = s.expected(s.Inputs.LaunchedDecodeOverhead, false).slower(s.Inputs.DecodeFactor)
	}
}

// decodeRates are the rates of a decode step of `batch` rows: a graph's
// up to Inputs.GraphBatch, else one launched kernel by kernel.
func (s *Setup) decodeRates(batch int) *rates {
	if g := s.Inputs.GraphBatch; s.Inputs.Graphless || (g > 0 && batch > g) {
		return &s.rates.launched
	}
	return &s.rates.decode
}

// decodeOverhead is the fixed cost of a decode step of `batch` rows, as
// Inputs states it: a graph's, or a step's launched kernel by kernel.
func (s *Setup) decodeOverhead(batch int) float64 {
	if g := s.Inputs.GraphBatch; s.Inputs.Graphless || (g > 0 && batch > g) {
		return s.Inputs.LaunchedDecodeOverhead
	}
	return s.Inputs.DecodeOverhead
}

// slower is r with every term's time f times as long (f ≤ 0: 1): the
// settings' factors (Inputs.DecodeFactor) price a run whose clocks or
// conversion differ from the class's as the same work at rates 1/f.
// Every term is linear in them (the units' cap is a smooth minimum,
// homogeneous of degree one), so a step's time is exactly f times.
func (r rates) slower(f float64) rates {
	if f <= 0 || f == 1 {
		return r
	}
	r.bw /= f
	r.kv /= f
	r.vram /= f
	r.dequant /= f
	r.unpackPeak /= f
	r.eff.UnitCompute /= f
	r.attention /= f
	r.overhead *= f
	r.host *= f
	r.graphIn *= f
	r.graphOut *= f
	return r
}

// Inputs echoes everything a prediction resolved, so every number can be
// traced.
type Inputs struct {
	Model      string
	Device     string
	Engine     string
	EngineKind hardware.Kind
	Runtime    string
	Weights    string
	KV         string
	// Precision is what the runtime's kernels run at, Peak its dense peak.
	Precision units.Precision
	Peak      float64 // FLOP/s
	// PeakSource is where the peak comes from; "[D] …" marks a value
	// derived where no datasheet gives one.
	PeakSource string
	// PeakDerived is true when no datasheet gives the peak and the
	// profile derives it (its source is tagged [D]): the output says so.
	PeakDerived bool
	// Dequantizing is true when the kernels unpack quantized weights to
	// float arithmetic (Efficiency.Dequant applies); false for a format
	// the engine multiplies natively (runtimes.Kernel.Native).
	Dequantizing bool
	// KernelFactor is the share of Peak the runtime's products reach for
	// want of an instruction the peak counts (runtimes.Runtime.KernelFactor:
	// llama.cpp's int8 products on a core without int8 dot products), 1
	// otherwise; KernelNote says why. The ideal bound keeps the peak.
	KernelFactor float64
	KernelNote   string
	// IdealPrecision is the fastest precision the engine has for the
	// format under any kernel: the ideal bound uses its peak.
	IdealPrecision units.Precision
	IdealPeak      float64
	// Units is the engine's compute units (0: not stated): the
	// efficiency's caps per unit apply to that many. On a CPU run at
	// fewer threads than its cores (Threads), the cores used.
	Units int
	// Threads are the cores a CPU engine was set to run on (Options.
	// Threads), 0 when not set: every core its profile counts. The peaks
	// (Peak, IdealPeak) are those cores' share, of the Cores the engine's
	// profile counts. ThreadsNote says so in words, or why a thread count
	// set for an engine that is not a CPU changed nothing ("" when none
	// was set).
	Threads, Cores int
	ThreadsNote    string
	// UnitBandwidthNote says when decode rests on a bandwidth cap per unit
	// the class cannot pin down (Setup.unitBandwidthNote); "" otherwise.
	UnitBandwidthNote string
	// MoEDecodeNote says, for an MoE model on a class whose MoE decode
	// runs were held out of scope (runtimes.Class.MoEDecode), what they
	// measured and that the decode interval was widened to cover them;
	// "" otherwise.
	MoEDecodeNote string
	// NPUClockNote says, for a prediction at an NPU clock below its
	// maximum on a class whose runs at such clocks were held out of scope
	// (runtimes.Class.NPUClockDecode), what they measured and that the
	// decode interval was widened to cover them.
	NPUClockNote string
	// ClockRatio is the engine's clock over hardware.ReferenceClock
	// (hardware.Engine.ClockRatio; 1 when the profile gives none): the
	// class's per-unit caps and a decode step's fixed costs are priced at
	// it (hardware.Efficiency.AtClock), a calibration's too: it was
	// fitted at the same clock, which its profile keeps.
	ClockRatio float64
	// HostClockRatio is the clock of the device's CPU over
	// hardware.ReferenceClock where the engine is a GPU whose profile
	// states its clock and the device has a CPU engine with one (a
	// Jetson: the CPU that launches the GPU's work), else 0: a decode
	// step's cost per step is priced at it (hardware.Efficiency.AtClocks).
	HostClockRatio float64
	// HostPrecision and HostPeak are what the runtime's host operations
	// run at on the device's CPU engine (runtimes.Runtime.HostPrecisions),
	// FLOP/s; zero when the runtime has none, or the device no CPU engine
	// with a peak for them (HostNote says which).
	HostPrecision units.Precision
	HostPeak      float64
	HostNote      string
	Bandwidth     float64 // datasheet B/s
	// MeasuredBandwidth is a GPU's device's measured read, B/s
	// (hardware.Device.MeasuredBandwidth; 0: none): where the class fits
	// a read share (ReadShare), a decode streams that share of it.
	MeasuredBandwidth float64
	Efficiency        hardware.Efficiency
	// EfficiencyFrom says where the efficiency comes from.
	EfficiencyFrom string
	// Fitted is true when the efficiency was fitted to measurements (the
	// runtime's class, or a calibration); false for a prior.
	Fitted bool
	// Calibrated is true when it comes from the engine's calibration.
	Calibrated bool
	// FormatCalibrated is true when the bandwidth efficiency was fitted for
	// these weights.
	FormatCalibrated bool
	// FromFlags is true when flags replaced part of the efficiency.
	FromFlags bool
	// ClassIntervals names the phases ("prefill", "decode") whose interval
	// is the runtime class's although the efficiency is calibrated: the
	// calibration's runs did not measure them (sim.CalibratesPhase).
	ClassIntervals []string
	// Extrapolated says how a calibrated prediction reaches beyond what the
	// calibration measured (another weight format, a larger batch); its
	// intervals are widened.
	Extrapolated []string
	Layers       int
	// LayerUnits are the units that share the fixed cost per layer
	// (runtimes.Runtime.LayerOverheadPerUnit): the engine's, else 1.
	LayerUnits      int
	PrefillOverhead float64 // s per prefill pass
	DecodeOverhead  float64 // s per decode step
	// GraphBatch is the most sequences a decode step may hold and still
	// run as one graph of kernels (runtimes.Support.GraphBatch; 0: no
	// limit), LaunchedDecodeOverhead the fixed cost of a larger step,
	// whose kernels are launched one by one from the host as a prefill
	// pass's are: a pass's, s.
	GraphBatch             int
	LaunchedDecodeOverhead float64
	// Graphless is true when the runtime replays no decode step as a
	// graph on this engine (its compute capability is below what the
	// runtime's graphs need: runtimes.Support.GraphMinCC): every step
	// costs LaunchedDecodeOverhead, and so does DecodeOverhead.
	Graphless bool
	// LaunchedPrefill: the runtime launches a prefill pass's kernels one
	// by one from the host (runtimes.Support.LaunchedPrefill: llama.cpp's
	// CUDA backend), so the pass's fixed cost is per layer
	// (launchedPrefillOverhead).
	LaunchedPrefill bool
	// Graphs are the runtime's CUDA graphs (runtimes.Graphs; zero: none
	// stated), GraphCapture the largest step one is replayed for under
	// its default scheduler on this device: a pass of more rows, or one
	// holding prompt tokens, launches more from the host (rates.graph).
	Graphs       runtimes.Graphs
	GraphCapture int
	// SerialDecode is true when the runtime's decode kernels load their
	// weights and then multiply them (runtimes.Support.SerialDecode): a
	// step's products cost memory time plus compute time.
	SerialDecode bool
	// UnpackShare is the share of the products' FLOPs over weights the
	// runtime's decode kernels unpack each of to a float (K-quants under
	// runtimes.Support.KQuantUnpack, the types of Support.UnpackTypes):
	// the class's KQuantGEMV bounds a decode step by their arithmetic at
	// UnpackPeak. 0 elsewhere.
	UnpackShare float64
	// UnpackPeak is the peak that arithmetic runs at: the engine's FP32
	// peak, its vector units', where it states one below Peak (a matrix-
	// vector product runs on a GPU's CUDA cores, not its tensor cores;
	// an Apple GPU's FP16 and FP32 rates are one), else Peak.
	UnpackPeak float64
	// UnpackNote says so where the engine states no FP32 peak and
	// UnpackPeak falls back to Peak, a rate its unpacking kernels do not
	// reach; "" otherwise.
	UnpackNote string
	// PrefillTile is the most tokens one tile of the runtime's quantized
	// products takes (runtimes.Runtime.PrefillTile; 0: none stated, or
	// not these weights): a prefill pass of n tokens reads the layers'
	// weights ⌈n / PrefillTile⌉ times.
	PrefillTile int
	// TileRows is the rows of weights all the engine's units hold at once
	// under a prefill tile (runtimes.Support.TileRows × units; 0: the
	// whole matrix), and L2Cache the engine's cache
	// (hardware.Engine.L2Cache; 0: not stated): a tile's re-read of the
	// rows comes from the cache for what of them it holds, from memory
	// for the rest (model.Matmuls.TileRereadBytes).
	TileRows       float64
	L2Cache        float64
	FlashAttention bool // fused attention: the KV cache is read once per pass
	// ContinuousBatching is the runtime's: without it, sequences of a batch
	// run in static batches of up to StaticBatch, or (StaticBatch 0) queue
	// one after another.
	ContinuousBatching bool
	// StaticBatch is the most sequences a runtime without continuous
	// batching runs together as one static batch (its scheduler's MaxSeqs
	// under runtimes.Static: TensorRT Edge-LLM's maxBatchSize); 0 when it
	// runs one sequence at a time. See Together.
	StaticBatch      int
	StorageBandwidth float64
	Overhead         float64 // runtime memory, B
	Usable           float64 // memory the model may use, B
	// CacheShare is the share of the memory the weights, activations and
	// the runtime's own memory leave free that the KV cache may take
	// (TensorRT-LLM's kv_cache_free_gpu_mem_fraction); 1 for runtimes
	// whose cache may take all of it.
	CacheShare float64
	// PoolSeqs, PoolCapacity and PoolInput are the KV pool the runtime's
	// engine allocates at load whatever a request asks
	// (runtimes.KVPool, TensorRT Edge-LLM's linear cache): its rows, the
	// tokens of each and the prompt tokens of its prefill profile, as the
	// builder's defaults build them; 0 PoolSeqs: the runtime holds the
	// request's cache. PoolBuilt is the capacity the run's engine was
	// built with (--max-context, Options.Settings.MaxContext); 0: built
	// for the workload, at least PoolCapacity (Setup.poolContext).
	PoolSeqs, PoolCapacity, PoolInput, PoolBuilt int
	// PoolFlag is the builder's flag that sets the pool's length
	// (runtimes.KVPool.CapacityFlag), which messages name.
	PoolFlag string
	// MaxSeqs is the most sequences a runtime that runs static batches
	// runs at once as the run states it (--max-seqs, Options.MaxSeqs: the
	// rows TensorRT Edge-LLM's engine was built with, --maxBatchSize); 0:
	// its scheduler's max_seqs, the builder's default. StaticBatch and
	// PoolSeqs both follow it (setRows).
	MaxSeqs int
	// Chunk is the runtime's default tokens per prefill pass on this
	// device (0: each prompt in one pass), ChunkFrom why.
	Chunk     int
	ChunkFrom string
	// PrefillOrder is how the runtime's prefill passes take a batch's
	// prompts: in lockstep, or whole in order.
	PrefillOrder runtimes.PrefillOrder
	// LastLogits is true when a prefill pass computes logits for each
	// sequence's last prompt token only.
	LastLogits bool
	// PrefillFill is the most tokens one call of the runtime hands its
	// passes (runtimes.Prefill.Fill; 0: a whole prompt).
	PrefillFill int
	// UBatchFrom says where the workload's tokens per pass come from:
	// given, or the runtime's default (ChunkFrom).
	UBatchFrom string
	Workload   Workload
	Cold       bool
	// Settings are the run's runtime settings (RKLLM's conversion
	// context and clocks; zero: what the class was measured at), and
	// DecodeFactor and PrefillFactor the fitted multipliers on every
	// decode step's and prefill pass's time they bring
	// (runtimes.Runtime.Factors; 1 at the reference). SettingsNote says
	// so in words ("" for a runtime without settings).
	Settings                    runtimes.Settings
	DecodeFactor, PrefillFactor float64
	SettingsNote                string
}

// NewSetup resolves model m on engine e of device d under runtime rt.
func NewSetup(m *model.Cost, d *hardware.Device, e *hardware.Engine, rt *runtimes.Runtime, o Options) (*Setup, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	clkNote, npuTop, clk := "", e.Clock, o.Clocks
	if !clk.IsZero() {
		var err error
		if d, e, err = d.AtClocks(e, clk); err != nil {
			return nil, withHint(&FieldError{"Clocks", err.Error()}, err)
		}
		// The clocks it runs at: the memory's step and the NPU's clock
		// AtClocks matched (2399.9 MHz is the 2400 MHz step).
		if clk.Memory > 0 {
			clk.Memory = d.MemoryClock
		}
		if clk.NPU > 0 {
			clk.NPU = e.Clock
		}
		clkNote = clocksNote(d, clk, npuTop)
	}
	cores := e.Units
	if o.Threads > 0 && e.Kind == hardware.CPU {
		te, err := d.WithThreads(e, o.Threads)
		if err != nil {
			msg := err.Error()
			if t, ok := err.(*hardware.ThreadsError); ok {
				msg = fmt.Sprintf("%d: %s", t.Threads, t.Msg)
			}
			return nil, &FieldError{"Threads", msg}
		}
		e = te
	}
	prec, peak, ok := rt.Precision(m.Weights, e)
	if !ok {
		return nil, fmt.Errorf("the %s engine of %s has no peak for %s (weights %s under %s); it has %s: choose another format or engine",
			e.Name, d.Name, joinPrecisions(rt.KernelPrecisions(m.Weights, e.Kind)), m.Weights.Name, rt.Name, joinPrecisions(e.Precisions()))
	}
	peakSource := d.Sources["engine."+e.Name+".peak."+string(prec)]
	iprec, ipeak, _ := runtimes.IdealPrecision(m.Weights, e)
	if ipeak < peak {
		iprec, ipeak = prec, peak
	}
	in := Inputs{
		Model: m.Spec.Name, Device: d.Name, Engine: e.Name, EngineKind: e.Kind, Runtime: rt.Name,
		Weights: m.Weights.Name, KV: m.KV.Name, Precision: prec, Peak: peak, Dequantizing: m.Weights.Quantized() && prec.Float() && rt.Unpacks(m.Weights, e.Kind), IdealPrecision: iprec, IdealPeak: ipeak,
		PeakSource: peakSource, PeakDerived: hardware.IsDerived(peakSource),
		Bandwidth: d.Bandwidth, Layers: m.Spec.Layers, FlashAttention: !o.NoFlashAttention,
		ContinuousBatching: rt.ContinuousBatching, StorageBandwidth: d.StorageBandwidth, Cold: o.Cold,
		Overhead: rt.MemoryOverhead, Usable: d.Usable * rt.MemoryShare, Units: e.Units, LayerUnits: 1,
		CacheShare: rt.CacheFraction(), PrefillOrder: rt.Order(), LastLogits: rt.Prefill.LastLogits, PrefillFill: rt.Prefill.Fill,
	}
	sch := rt.SchedulerFor(d)
	if o.MaxSeqs > 0 && StaticRows(rt, sch) {
		// The rows the run's engine was built with (--max-seqs: Edge-LLM's
		// --maxBatchSize) in place of its builder's default.
		in.MaxSeqs, sch.MaxSeqs = o.MaxSeqs, o.MaxSeqs
	}
	if p := rt.KVPool; p.On() {
		in.PoolCapacity, in.PoolInput, in.PoolBuilt = p.Capacity, p.Input, o.Settings.MaxContext
		in.PoolFlag = p.CapacityFlag
	}
	in.setRows(rt, sch.MaxSeqs)
	in.ClockRatio = e.ClockRatio()
	in.HostClockRatio = hostClockRatio(d, e)
	if e.Kind == hardware.GPU {
		in.MeasuredBandwidth = d.MeasuredBandwidth
	}
	if o.Threads > 0 {
		in.Threads, in.Cores = o.Threads, cores
	}
	in.GraphBatch, in.Graphless = rt.GraphBatch(d, e)
	in.LaunchedPrefill = rt.LaunchedPrefill(d, e)
	in.SerialDecode = rt.SerialDecode(d, e)
	if in.Dequantizing {
		var rows int
		in.PrefillTile, rows = rt.PrefillTile(d, e)
		if rows > 0 && e.Units > 0 {
			in.TileRows = float64(rows * e.Units)
		}
		in.L2Cache = e.L2Cache
	}
	in.KernelFactor, in.KernelNote = rt.KernelFactor(m.Weights, m.ProductTypes(), e, prec)
	if kq, types := rt.Unpacked(d, e); in.Dequantizing && (kq || len(types) > 0) {
		// A decode step computes every token's logits: the head's work
		// counts at its own type.
		in.UnpackShare = model.UnpackShare(append(slices.Clone(m.ProductTypes()), m.HeadProduct()), kq, types)
		in.UnpackPeak = peak
		if v := e.Peaks[units.FP32]; v > 0 && v < peak {
			in.UnpackPeak = v
		} else if !(v > 0) {
			in.UnpackNote = fmt.Sprintf("the %s engine of %s states no FP32 peak: %s's decode kernels unpack %.0f %% of %s's product work weight by weight on its vector units, priced here at its %s peak (%s), which overstates them",
				e.Name, d.Name, rt.Name, 100*in.UnpackShare, m.Weights.Name, prec, units.FormatRate(peak, prec.RateUnit()))
		}
	}
	in.Chunk, in.ChunkFrom = rt.ChunkFor(d)
	if g := rt.Graphs; g.On() {
		in.Graphs, in.GraphCapture = g, g.CaptureFor(sch.MaxSeqs)
	}
	if rt.LayerOverheadPerUnit && e.Units > 0 {
		in.LayerUnits = e.Units
	}
	in.HostPrecision, in.HostPeak, in.HostNote = hostPeak(rt, d)
	if o.RuntimeOverhead >= 0 {
		in.Overhead = o.RuntimeOverhead
	}
	class := rt.ClassFor(d, e)
	in.Efficiency, in.Fitted = class.Efficiency, class.Fitted
	in.EfficiencyFrom = "runtime " + rt.Name + " on " + string(e.Kind) + " engines: " + class.Basis
	if c := e.Calibration; c != nil && c.Runtime == rt.Name {
		in.Efficiency, in.Fitted, in.Calibrated = c.Efficiency, true, true
		in.Efficiency.Bandwidth, in.FormatCalibrated = c.BandwidthFor(m.Weights.Name)
		in.EfficiencyFrom = fmt.Sprintf("calibrated on %s (%d decode, %d prefill runs under %s)", c.Device, c.DecodePoints, c.PrefillPoints, c.Runtime)
		for _, prefill := range []bool{true, false} {
			if !CalibratesPhase(c, prefill) {
				in.ClassIntervals = append(in.ClassIntervals, map[bool]string{true: "prefill", false: "decode"}[prefill])
			}
		}
		if len(c.Formats) > 0 && !slices.Contains(c.Formats, m.Weights.Name) {
			in.Extrapolated = append(in.Extrapolated, fmt.Sprintf("weights %s were not among the calibration's (%s)", m.Weights.Name, strings.Join(c.Formats, ", ")))
		}
	} else if c != nil {
		in.EfficiencyFrom += fmt.Sprintf("; the engine's calibration is for %s, not %s", c.Runtime, rt.Name)
	}
	if o.BandwidthEfficiency > 0 {
		// The flag is a share of the datasheet's bandwidth, decode's
		// too: no share of a measured read (decodeBandwidth) stands in
		// for it.
		in.Efficiency.Bandwidth, in.FormatCalibrated, in.FromFlags = o.BandwidthEfficiency, false, true
		in.Efficiency.ReadShare = 0
	}
	if o.ComputeEfficiency > 0 {
		in.Efficiency.ComputeMax, in.FromFlags = o.ComputeEfficiency, true
	}
	if in.FromFlags {
		in.ClassIntervals = nil // no interval at all: nothing measured stands behind flags
		in.EfficiencyFrom = "flags, the rest from " + in.EfficiencyFrom
	}
	in.setOverheads()
	in.ThreadsNote = in.threadsNote()
	in.Settings, in.DecodeFactor, in.PrefillFactor = o.Settings, 1, 1
	if rt.HasSettings() {
		key := string(e.Kind)
		if b := rt.Backend(d, e); b != "" && rt.Classes[b] != nil {
			key = b
		}
		if !in.Calibrated && !in.FromFlags {
			in.DecodeFactor, in.PrefillFactor = rt.Factors(key, o.Settings)
			class = rt.WithSettings(key, class, o.Settings)
		}
		in.SettingsNote = rt.DescribeSettings(key, o.Settings)
	} else if ignored := o.Settings; !ignored.IsZero() {
		// A plan or figure over several runtimes sets them for those
		// that have them; the others say they took none. Clocks the
		// board is pinned at (o.Clocks, which make the setting
		// "pinned") apply to every runtime: clkNote says them.
		what := "settings of a conversion's context or clocks: they do"
		if !o.Clocks.IsZero() {
			ignored.Clocks = ""
			what = "setting of a conversion's context: it does"
		}
		if in.PoolBuilt > 0 {
			// An engine built for a context: its KV pool's rows hold it.
			in.SettingsNote = fmt.Sprintf("%s's engine built with %s %d: its KV cache holds %d tokens in each of its %s whatever a request asks", rt.Name, in.PoolFlag, in.PoolBuilt, in.PoolBuilt, Rows(in.PoolSeqs))
			if ignored.Clocks != "" {
				in.SettingsNote += "; a clocks setting does not apply to it"
			}
		} else if !ignored.IsZero() {
			in.SettingsNote = fmt.Sprintf("%s has no %s not apply to it", rt.Name, what)
		}
	}
	if clkNote != "" {
		in.SettingsNote = strings.TrimPrefix(in.SettingsNote+"; "+clkNote, "; ")
	}
	if o.MaxSeqs > 0 && in.MaxSeqs == 0 {
		// A plan or figure over several runtimes states the rows for
		// those that run static batches; the others say they took none.
		in.SettingsNote = strings.TrimPrefix(fmt.Sprintf("%s; %s runs no static batches of a built size: the limit of %d sequences at once does not apply to it, which runs the batch as asked", in.SettingsNote, rt.Name, o.MaxSeqs), "; ")
	}
	class, in.MoEDecodeNote = moeDecodeClass(class, m, in)
	class, in.NPUClockNote = npuClockClass(class, in, clk, npuTop)
	s := &Setup{Model: m, Device: d, Engine: e, Runtime: rt, Inputs: in, class: class}
	s.Inputs.UnitBandwidthNote = s.unitBandwidthNote()
	if want := rt.KernelPrecisions(m.Weights, e.Kind); len(want) > 0 {
		s.kernelPrecision = want[0]
	}
	s.resolveRates()
	return s, nil
}

// npuClockClass is class with its decode interval widened to cover the
// class's decode runs at an NPU clock below its maximum held out of scope
// (runtimes.Class.NPUClockDecode) when clocks put the NPU below top, its
// maximum, with a note saying so; the class itself and "" otherwise.
func npuClockClass(class *runtimes.Class, in Inputs, clocks hardware.Clocks, top float64) (*runtimes.Class, string) {
	iv := class.NPUClockDecode
	if !(clocks.NPU > 0 && clocks.NPU < top) || !(iv.High > 0) || in.Calibrated || in.FromFlags {
		return class, ""
	}
	out := widenDecode(class, iv)
	note := fmt.Sprintf("%s's decode at an NPU clock below its maximum (%g of %g MHz) is priced through the NPU's peaks alone, which a one-token step barely uses: %s (docs/accuracy.md, \"Held out of scope\"); this decode's interval is widened to %.3g-%.3g × the predicted time to cover them",
		in.Runtime, clocks.NPU/1e6, top/1e6, class.NPUClockDecodeBasis, out.Decode.Low, out.Decode.High)
	return out, note
}

// widenDecode is class with its decode interval joined with iv, the full
// range of runs held out of scope: its lower end the lower of the two,
// its upper the higher.
func widenDecode(class *runtimes.Class, iv runtimes.Spread) *runtimes.Class {
	out := *class
	out.Decode.Low = math.Min(out.Decode.Low, iv.Low)
	out.Decode.High = math.Max(out.Decode.High, iv.High)
	return &out
}

// moeDecodeClass is class with its decode interval widened to cover the
// class's MoE decode runs held out of scope (runtimes.Class.MoEDecode)
// when m is an MoE model priced on the class, with a note saying so; the
// class itself and "" otherwise. A calibration that measured decode gives
// its own interval and flags none: they are left alone, the widening is
// the class's. A calibration that measured no decode keeps the class's
// decode interval (CalibratesPhase, Inputs.ClassIntervals), widened.
func moeDecodeClass(class *runtimes.Class, m *model.Cost, in Inputs) (*runtimes.Class, string) {
	iv := class.MoEDecode
	classDecode := !in.Calibrated || slices.Contains(in.ClassIntervals, "decode")
	if m.Spec.MoE == nil || !(iv.High > 0) || !classDecode || in.FromFlags {
		return class, ""
	}
	out := widenDecode(class, iv)
	which := "this decode's interval is"
	if in.Calibrated {
		which = "the class's 80 % decode interval, which the calibration keeps for want of decode runs, is"
	}
	note := fmt.Sprintf("%s's MoE decode on this engine is not fully modelled: %s (docs/accuracy.md, \"Held out of scope\"); %s widened to %.3g-%.3g × the predicted time to cover them (the class's interval joined with their full range: it holds more than its level says)",
		in.Runtime, class.MoEDecodeBasis, which, out.Decode.Low, out.Decode.High)
	return out, note
}

// setOverheads sets the fixed costs per pass and step from the
// efficiency, a decode step's at the engine's clock (Clocked): each
// layer's shared by LayerUnits. A decode step of more sequences than a
// graph holds (GraphBatch) costs a pass's: its kernels are launched from
// the host, and the clock rule does not apply to them.
func (in *Inputs) setOverheads() {
	layers := float64(in.Layers) / float64(max(in.LayerUnits, 1))
	in.PrefillOverhead = in.Efficiency.PrefillOverhead(layers)
	if in.LaunchedPrefill {
		in.PrefillOverhead = in.launchedPrefillOverhead(layers)
	}
	in.DecodeOverhead = in.Clocked().DecodeOverhead(layers)
	in.LaunchedDecodeOverhead = 0
	if in.GraphBatch > 0 || in.Graphless {
		in.LaunchedDecodeOverhead = in.PrefillOverhead
	}
	if in.Graphless {
		in.DecodeOverhead = in.LaunchedDecodeOverhead
	}
}

// threadsNote says what a thread count set for the run did: which cores
// run and what they are priced at, or that an engine other than a CPU
// does not take one.
func (in *Inputs) threadsNote() string {
	switch {
	case in.Threads == 0:
		return ""
	case in.EngineKind != hardware.CPU:
		return fmt.Sprintf("the thread count is ignored: threads set the cores of a CPU engine, and the %s engine of %s is not one", in.Engine, in.Device)
	case in.Threads == in.Cores:
		return fmt.Sprintf("%d threads: every core the %s engine's profile counts", in.Threads, in.Engine)
	}
	out := fmt.Sprintf("%d of the %d cores the %s engine's profile counts: peaks %d/%d of its", in.Threads, in.Cores, in.Engine, in.Threads, in.Cores)
	if e := in.Clocked(); e.UnitBandwidth > 0 {
		cores := "cores"
		if in.Units == 1 {
			cores = "core"
		}
		out += fmt.Sprintf("; bandwidth %s: %.2f of the datasheet's, capped by %d %s × %s",
			units.FormatBandwidth(e.AchievedBandwidth(in.Bandwidth, in.Units)), e.Bandwidth, in.Units, cores, units.FormatBandwidth(e.UnitBandwidth))
	} else {
		out += "; no cap on the bandwidth a core pulls is fitted for this class, so the datasheet's share applies"
	}
	return out
}

// unitBandwidthNote says when decode rests on a bandwidth cap per unit
// its class cannot pin down: the cap binds (the units pull less than the
// datasheet's share by more than a tenth: a CPU on a few of its cores, a
// GPU in a low-clock power mode, since the cap scales with the clock) and
// the fit's standard error of the cap is at least the cap itself, as when
// the class's devices stream too little per unit for it to bind on them.
// The interval, the class's spread on those devices, does not carry that
// uncertainty; the note says so. Calibrated and flag-set efficiencies are
// the user's own: no note.
func (s *Setup) unitBandwidthNote() string {
	in := &s.Inputs
	c := s.class
	k := slices.Index(hardware.ParameterNames, "unit_bandwidth")
	if in.Calibrated || in.FromFlags || c == nil || k < 0 || len(c.SE) <= k {
		return ""
	}
	e := in.Clocked()
	share := e.Bandwidth * in.Bandwidth
	got := e.AchievedBandwidth(in.Bandwidth, in.Units)
	if e.UnitBandwidth <= 0 || got >= 0.9*share {
		return ""
	}
	if c.SE[k] < c.UnitBandwidth {
		// Pinned down, but on a CPU only where the class's boards ran:
		// their cores each stream a few GB/s and the cap binds on few of
		// them or none. A cap that would still cut the share with every
		// core of the engine running prices cores no run of the class
		// resembles (an Apple P core streams 36.5 GB/s on one thread,
		// LCPP-11390-M4PRO in docs/accuracy.md).
		all := in.Units
		if in.Threads > 0 && in.Cores > 0 {
			all = in.Cores
		}
		if in.EngineKind != hardware.CPU || e.AchievedBandwidth(in.Bandwidth, all) >= 0.9*share {
			return ""
		}
		return fmt.Sprintf("decode streams at %s, set by a cap per core (%d × %s) that would bind with all %d of the engine's cores running: the class's boards are fitted where it binds on few cores or none, so this is an extrapolation the interval does not carry; without the cap the share of the datasheet would give %s",
			units.FormatBandwidth(got), in.Units, units.FormatBandwidth(e.UnitBandwidth), all, units.FormatBandwidth(share))
	}
	return fmt.Sprintf("decode streams at %s, set by a cap per compute unit (%d × %s) that its class's runs do not pin down (standard error %s): the interval does not carry that uncertainty; without the cap the share of the datasheet would give %s",
		units.FormatBandwidth(got), in.Units, units.FormatBandwidth(e.UnitBandwidth), units.FormatBandwidth(c.SE[k]*e.UnitBandwidth/max(c.UnitBandwidth, 1)), units.FormatBandwidth(share))
}

// Clocked is the efficiency at the engine's clock (ClockRatio) and the
// host's (HostClockRatio; hardware.Efficiency.AtClocks): the per-unit
// caps every pass runs at, and a decode step's fixed costs.
func (in *Inputs) Clocked() hardware.Efficiency {
	return in.Efficiency.AtClocks(in.ClockRatio, in.HostClockRatio)
}

// decodeBandwidth is the bandwidth a decode step streams its bytes at,
// B/s: s_R × the measured read (hardware.Efficiency.ReadShare) where the
// GPU's device has one and its class fits s_R, under no cap but the
// datasheet's (the read already met the units' limits), else the
// datasheet's through the efficiency's share and units' cap.
func (in *Inputs) decodeBandwidth(e hardware.Efficiency) float64 {
	if r := in.ReadBandwidth(); r > 0 {
		return r
	}
	return e.AchievedBandwidth(in.Bandwidth, in.Units)
}

// ReadBandwidth is what a decode step streams its bytes at from the
// device's measured read, B/s: s_R × the read where the GPU's device has
// one and the efficiency a read share (decodeBandwidth), at most the
// datasheet's bandwidth (no memory streams faster than its peak: the
// IDEAL bound); 0 where decode takes the datasheet's bandwidth.
func (in *Inputs) ReadBandwidth() float64 {
	r, _ := in.readBandwidth()
	return r
}

// ReadCapped reports whether ReadBandwidth is the datasheet's bandwidth,
// below the share of the measured read it caps.
func (in *Inputs) ReadCapped() bool {
	_, capped := in.readBandwidth()
	return capped
}

// readBandwidth is ReadBandwidth and whether the datasheet caps it.
func (in *Inputs) readBandwidth() (r float64, capped bool) {
	if sr := in.Efficiency.ReadShare; sr > 0 && in.MeasuredBandwidth > 0 {
		r := sr * in.MeasuredBandwidth
		if in.Bandwidth > 0 && in.Bandwidth < r {
			return in.Bandwidth, true
		}
		return r, false
	}
	return 0, false
}

// stagePrefillOverhead is the fixed cost of a prefill pass's layers
// layers run as one stage of a split, s: each layer's LayerOverhead and,
// on the first stage, the pass's PassOverhead; where the runtime launches
// the pass's kernels from the host, every layer's launched cost
// (launchedPrefillOverhead) on every stage.
func (in *Inputs) stagePrefillOverhead(layers float64, first bool) float64 {
	if in.LaunchedPrefill {
		return in.launchedPrefillOverhead(layers)
	}
	t := layers * in.Efficiency.LayerOverhead
	if first {
		t += in.Efficiency.PassOverhead
	}
	return t
}

// launchedPrefillOverhead is the fixed cost of a prefill pass whose
// kernels the host launches one by one, s, over layers layers: each layer
// costs LayerOverhead at the GPU's clock (Clocked) and, in a pass over
// quantized weights (Dequantizing: more kernels per layer), PassOverhead
// at the host's, r_host the CPU's clock ratio as decode's launched costs
// use (HostClockRatio), the GPU's where the device gives no CPU clock:
// layers·(PassOverhead/r_host + LayerOverhead/r_gpu).
func (in *Inputs) launchedPrefillOverhead(layers float64) float64 {
	pass, layer := in.LaunchedPrefillLayer()
	return layers * (layer + pass)
}

// LaunchedPrefillLayer is what each layer of a prefill pass launched from
// the host costs (launchedPrefillOverhead), s: the pass's cost at the
// host's clock (0 over float weights) and the layer's at the GPU's.
func (in *Inputs) LaunchedPrefillLayer() (pass, layer float64) {
	layer = in.Clocked().LayerOverhead
	if in.Dequantizing {
		pt, hr := in.Efficiency.PassOverhead, in.HostClockRatio
		if !(hr > 0) {
			hr = in.ClockRatio
		}
		if hr > 0 {
			pt /= hr
		}
		pass = pt
	}
	return pass, layer
}

// hostPeak is the peak the runtime's host operations run at on d's CPU
// engine: the first of its host precisions the engine has a peak for.
func hostPeak(rt *runtimes.Runtime, d *hardware.Device) (units.Precision, float64, string) {
	if len(rt.HostPrecisions) == 0 {
		return "", 0, ""
	}
	for i := range d.Engines {
		if e := &d.Engines[i]; e.Kind == hardware.CPU {
			if p, peak, ok := e.Pick(rt.HostPrecisions); ok {
				return p, peak, ""
			}
			return "", 0, fmt.Sprintf("%s runs part of every layer on the CPU, but the %s engine of %s has no peak for %s: that work is not priced", rt.Name, e.Name, d.Name, joinPrecisions(rt.HostPrecisions))
		}
	}
	return "", 0, fmt.Sprintf("%s runs part of every layer on the CPU, but %s has no CPU engine: that work is not priced", rt.Name, d.Name)
}

// Class is the runtime's efficiency class the setup's intervals come from.
func (s *Setup) Class() *runtimes.Class { return s.class }

// rates are the speeds a pass is priced at: expected, or ideal.
type rates struct {
	bw       float64 // B/s
	peak     float64 // FLOP/s before the matrix efficiency
	eff      hardware.Efficiency
	dequant  float64 // factor on the matrix efficiency (Efficiency.Dequant when dequantizing, × Inputs.KernelFactor)
	ideal    bool
	overhead float64 // s per unit
	// attention is the rate attention's FLOPs run at, peak · eff.Attention.
	attention float64
	// units are the engine's compute units the products' rate is capped
	// by (eff.UnitCompute each).
	units int
	// host is the host work's time per token of a pass, s: layers ·
	// HostWork / the host's peak.
	host float64
	// kv is the rate attention reads the KV cache at, B/s, where it is
	// not bw: a split model's layer whose products run on a GPU over the
	// link while its cache stays in host memory (0: bw).
	kv float64
	// vram is the rate, B/s, a stage whose weights cross a link
	// (Stage.overLink) reads in its GPU's own memory: its products'
	// activations and a tiled kernel's re-reads of the weights copied
	// there (0: bw, as every other engine reads them).
	vram float64
	// graphIn and graphOut are the time a pass of up to graphCap rows
	// and of more adds to a whole CUDA graph's replay (Inputs.Graphs):
	// a piecewise graph's launches for a prefill pass within the
	// capture, none for a decode step; every kernel's beyond it.
	graphCap          float64
	graphIn, graphOut float64
	// serial is true when the products' memory and compute terms add
	// rather than overlap (Inputs.SerialDecode, decode steps only).
	serial bool
	// unpack is the share of a decode step's product FLOPs over weights
	// its kernels unpack weight by weight (Inputs.UnpackShare;
	// 0 in prefill), and unpackPeak the peak their arithmetic runs at.
	unpack, unpackPeak float64
	// tile is the most tokens a tile of the products takes
	// (Inputs.PrefillTile, prefill passes only; 0: no limit): a pass of
	// more reads the layers' weights once per tile of tokens.
	tile float64
	// tileRows and l2 are Inputs.TileRows (0: unbounded) and L2Cache.
	tileRows, l2 float64
}

// products is the time of a class of products whose memory term is m
// and compute term c: the larger, or their sum when the kernels load
// and multiply one after the other.
func (r *rates) products(m, c float64) float64 {
	if r.serial {
		return m + c
	}
	return max(m, c)
}

// graph is the time a pass of `rows` rows adds for its launches beyond
// a whole CUDA graph's replay.
func (r *rates) graph(rows float64) float64 {
	if rows > r.graphCap {
		return r.graphOut
	}
	return r.graphIn
}

// kvRate is the rate attention reads the KV cache at.
func (r *rates) kvRate() float64 {
	if r.kv > 0 {
		return r.kv
	}
	return r.bw
}

// vramRate is the rate a pass's activations and a tiled kernel's weight
// re-reads are read at (rates.vram).
func (r *rates) vramRate() float64 {
	if r.vram > 0 {
		return r.vram
	}
	return r.bw
}

func (s *Setup) expected(overhead float64, prefill bool) rates {
	in := s.Inputs
	dq := 1.0
	if in.Dequantizing && in.Efficiency.Dequant > 0 {
		dq = in.Efficiency.Dequant
	}
	if in.KernelFactor > 0 {
		dq *= in.KernelFactor
	}
	host := 0.0
	if in.HostPeak > 0 {
		host = float64(in.Layers) * in.Efficiency.HostWork / in.HostPeak
	}
	e := in.Clocked()
	bw := e.AchievedBandwidth(in.Bandwidth, in.Units)
	if !prefill {
		bw = in.decodeBandwidth(e)
	}
	r := rates{bw: bw, peak: in.Peak, eff: e, overhead: overhead,
		dequant: dq, attention: in.Peak * e.Attention, units: in.Units, host: host, graphCap: math.Inf(1),
		serial: !prefill && in.SerialDecode}
	if !prefill {
		r.unpack, r.unpackPeak = in.UnpackShare, in.UnpackPeak
	}
	if prefill {
		r.tile, r.tileRows, r.l2 = float64(in.PrefillTile), in.TileRows, in.L2Cache
		if r.tileRows == 0 {
			r.tileRows = math.Inf(1)
		}
	}
	if g := in.Graphs; g.On() {
		L := float64(in.Layers)
		r.graphCap, r.graphOut = float64(in.GraphCapture), L*g.PerLayer(math.Inf(1), in.GraphCapture, prefill)
		r.graphIn = L * g.PerLayer(0, in.GraphCapture, prefill)
	}
	return r
}

func (s *Setup) idealRates() rates {
	return rates{bw: s.Inputs.Bandwidth, peak: s.Inputs.IdealPeak, ideal: true}
}

// Usable is the memory the model may use: the device's usable memory
// less what the runtime keeps for itself (vLLM's memory utilisation).
func (s *Setup) Usable() float64 { return s.Inputs.Usable }

func joinPrecisions(ps []units.Precision) string {
	out := ""
	for i, p := range ps {
		if i > 0 {
			out += ", "
		}
		out += string(p)
	}
	return out
}

// Options adjust a prediction.
type Options struct {
	// BandwidthEfficiency and ComputeEfficiency replace the efficiency's
	// bandwidth share and its matrix-product maximum when positive; the
	// bandwidth share is of the datasheet's in both phases (no read share).
	BandwidthEfficiency float64
	ComputeEfficiency   float64
	// RuntimeOverhead is memory reserved by the runtime, bytes; negative
	// uses the runtime's.
	RuntimeOverhead float64
	// Cold adds the model load time to the first request.
	Cold bool
	// NoFlashAttention prices unfused attention, which reads each
	// sequence's KV cache once per query head (llama.cpp without -fa).
	NoFlashAttention bool
	// Settings are the runtime's settings of the run (RKLLM's
	// --max-context and --clocks); zero: what its class was measured at.
	Settings runtimes.Settings
	// Clocks are the clocks the board runs at below its profile's maxima
	// (--clocks ddr=…,npu=…; hardware.Device.AtClocks): the memory's
	// bandwidth and the NPU's peaks at them. Zero: the maxima.
	Clocks hardware.Clocks
	// Threads are the cores a CPU engine runs the model on, one thread
	// each (llama.cpp's -t; hardware.Device.WithThreads): its peaks are
	// theirs and its bandwidth what they pull. 0: every core its profile
	// counts. An engine that is not a CPU runs as it is, and says so.
	Threads int
	// MaxSeqs is the most sequences a runtime that runs static batches
	// runs at once (--max-seqs): the rows its engine was built with
	// (TensorRT Edge-LLM's --maxBatchSize), which its static batch and
	// its KV pool both hold. 0: its scheduler's max_seqs. A runtime that
	// batches continuously or runs one sequence at a time runs --batch as
	// asked, and says it took none (serve's scheduler takes it there).
	MaxSeqs int
}

// DefaultOptions uses the runtime's efficiency and memory overhead.
var DefaultOptions = Options{RuntimeOverhead: -1}

// FieldError is an option or workload value out of range; Field names it
// as the Go field, so callers can map it to their own flag or key.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + " " + e.Msg }

// hinted is an error with advice on what to try instead (Hint), which
// a caller finds with errors.As beside the error it wraps.
type hinted struct {
	error
	hint string
}

func (e *hinted) Unwrap() error { return e.error }
func (e *hinted) Hint() string  { return e.hint }

// withHint is err carrying cause's Hint, if it has one.
func withHint(err, cause error) error {
	var h interface{ Hint() string }
	if errors.As(cause, &h) && h.Hint() != "" {
		return &hinted{err, h.Hint()}
	}
	return err
}

// Validate checks the options.
func (o Options) Validate() error {
	for _, c := range []struct {
		field string
		v     float64
	}{{"BandwidthEfficiency", o.BandwidthEfficiency}, {"ComputeEfficiency", o.ComputeEfficiency}} {
		if c.v != 0 { // 0: the engine's
			if err := limits.Share.Check(c.v); err != nil {
				return &FieldError{c.field, err.Error()}
			}
		}
	}
	if err := o.Settings.Validate(); err != nil {
		return &FieldError{"Settings", err.Error()}
	}
	if o.Settings.MaxContext > limits.Tokens {
		return &FieldError{"Settings", fmt.Sprintf("max context %d: at most %d tokens", o.Settings.MaxContext, limits.Tokens)}
	}
	if o.Threads != 0 {
		if err := limits.Units.Check(float64(o.Threads)); err != nil {
			return &FieldError{"Threads", fmt.Sprintf("%d: a thread count is a whole number of cores from 1", o.Threads)}
		}
	}
	if o.RuntimeOverhead != -1 { // -1: the runtime's
		if err := limits.Overhead.Check(o.RuntimeOverhead); err != nil {
			return &FieldError{"RuntimeOverhead", err.Error()}
		}
	}
	return nil
}

// WithEfficiency is a copy of s priced at efficiency e, for fitting.
func (s *Setup) WithEfficiency(e hardware.Efficiency) *Setup {
	o := *s
	o.Inputs.Efficiency = e
	o.Inputs.setOverheads()
	o.resolveRates()
	return &o
}

// WithHeadroom is s with share h of its usable memory kept free (plan's
// --headroom, Targets.Usable): its memory, and the KV cache a server's
// pool holds, are checked against the rest. s itself for h = 0.
func (s *Setup) WithHeadroom(h float64) *Setup {
	if h == 0 {
		return s
	}
	o := *s
	o.Inputs.Usable = s.Inputs.Usable * (1 - h)
	return &o
}

// WithMaxSeqs is s under a scheduler of maxSeqs sequences: the largest
// step its CUDA graphs are captured for follows it (vLLM: min(2 ×
// max_num_seqs, 512)), and so do a static batch's limit and an engine
// pool's rows (setRows). s itself when none of them changes.
func (s *Setup) WithMaxSeqs(maxSeqs int) *Setup {
	g := s.Inputs.Graphs
	rows := s.Inputs
	rows.setRows(s.Runtime, maxSeqs)
	graphs := g.On() && g.CaptureFor(maxSeqs) != s.Inputs.GraphCapture
	if !graphs && rows.StaticBatch == s.Inputs.StaticBatch && rows.PoolSeqs == s.Inputs.PoolSeqs {
		return s
	}
	o := *s
	o.Inputs.StaticBatch, o.Inputs.PoolSeqs = rows.StaticBatch, rows.PoolSeqs
	if graphs {
		o.Inputs.GraphCapture = g.CaptureFor(maxSeqs)
		o.resolveRates()
	}
	return &o
}

// StaticRows reports whether rt under scheduler sch runs static batches
// whose rows a run may state (Options.MaxSeqs): no continuous batching,
// a static policy.
func StaticRows(rt *runtimes.Runtime, sch runtimes.Scheduler) bool {
	return !rt.ContinuousBatching && sch.Policy == runtimes.Static
}

// setRows sets the static batch's limit and the engine pool's rows from
// one number, the scheduler's maxSeqs: a batch larger than the engine
// was built for queues (Together) and its pool holds that many rows.
func (in *Inputs) setRows(rt *runtimes.Runtime, maxSeqs int) {
	in.StaticBatch = 0
	if sch := rt.Scheduler; StaticRows(rt, sch) && maxSeqs > 1 {
		in.StaticBatch = maxSeqs
	}
	if rt.KVPool.On() {
		in.PoolSeqs = max(maxSeqs, 1)
	}
}

// Scheduler is the runtime's scheduler on the setup's device with the
// rows the run states (Inputs.MaxSeqs): serve's and plan --rate's
// server starts from it.
func (s *Setup) Scheduler() runtimes.Scheduler {
	sch := s.Runtime.SchedulerFor(s.Device)
	if s.Inputs.MaxSeqs > 0 {
		sch.MaxSeqs = s.Inputs.MaxSeqs
	}
	return sch
}

// clocksNote says what a board run at clocks c (hardware.Device.AtClocks)
// is priced with: d is the device at them, top the engine's clock at its
// maximum.
func clocksNote(d *hardware.Device, c hardware.Clocks, top float64) string {
	var parts []string
	if c.Memory > 0 {
		parts = append(parts, fmt.Sprintf("memory at %g MHz, %.3g GB/s (the bus at that step's data rate)", c.Memory/1e6, d.Bandwidth/1e9))
	}
	if c.NPU > 0 && top > 0 {
		parts = append(parts, fmt.Sprintf("NPU at %g MHz, its peaks × %.3g", c.NPU/1e6, c.NPU/top))
	}
	return "board clocks " + c.String() + ", pinned: " + strings.Join(parts, "; ")
}

// hostClockRatio is the clock of d's CPU engine over
// hardware.ReferenceClock when e is a GPU with a stated clock and d has
// a CPU engine with one (Inputs.HostClockRatio), else 0.
func hostClockRatio(d *hardware.Device, e *hardware.Engine) float64 {
	if e.Kind != hardware.GPU || e.Clock <= 0 {
		return 0
	}
	for i := range d.Engines {
		if c := &d.Engines[i]; c.Kind == hardware.CPU && c.Clock > 0 {
			return c.Clock / hardware.ReferenceClock
		}
	}
	return 0
}
