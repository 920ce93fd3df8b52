package hardware

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/roofline/roofline/units"
)

// Kind is the class of a compute engine.
type Kind string

// Engine kinds.
const (
	GPU Kind = "gpu"
	CPU Kind = "cpu"
	NPU Kind = "npu"
)

// Device is one piece of hardware in one power mode.
type Device struct {
	Name        string
	Aliases     []string
	Description string
	Family      string
	// VariantOf names the base device when this is a power mode or a
	// smaller configuration of it.
	VariantOf string
	PowerMode string

	Memory            float64 // capacity, B
	Usable            float64 // share of Memory a model may use, B
	Unified           bool    // memory shared by CPU and accelerators (and the OS)
	Bandwidth         float64 // datasheet peak, B/s
	MeasuredBandwidth float64 // measured (STREAM-like), B/s; 0 when unknown
	StorageBandwidth  float64 // read rate of the model's storage, B/s

	Engines       []Engine
	DefaultEngine string

	// Sources maps a field key ("bandwidth", "engine.gpu.peak.fp16", …) to
	// where its number comes from.
	Sources    map[string]string
	References []string
	File       string // the profile file it was read from
}

// Engine is one compute unit of a device: a GPU, a CPU cluster, an NPU.
type Engine struct {
	Name  string
	Kind  Kind
	Peaks map[units.Precision]float64 // dense peak, FLOP/s or OP/s
	Power float64                     // rated draw of the device while this engine runs, W; 0 when unknown
	// DefaultWeights and DefaultKV are the formats this engine is usually
	// run with (e.g. w8a8 on an RKNPU, q4_k_m under llama.cpp); "" means
	// the model's own checkpoint format and f16.
	DefaultWeights string
	DefaultKV      string
	Tuning
	// Defaulted lists the Tuning fields that came from DefaultTuning
	// rather than from the profile.
	Defaulted []string
	// Calibration is set when the tuning was fitted to measured runs.
	Calibration *Calibration
}

// Tuning holds the factors between a peak and an expected speed.
type Tuning struct {
	// BandwidthEfficiency is the share of datasheet bandwidth a
	// memory-bound pass achieves (MBU).
	BandwidthEfficiency float64
	// ComputeEfficiency is the share of the peak a compute-bound pass
	// achieves (MFU).
	ComputeEfficiency float64
	// StepOverhead is a fixed cost per forward pass (scheduling, sampling,
	// synchronisation), s.
	StepOverhead float64
	// LayerOverhead is a fixed cost per layer per pass (kernel launches), s.
	LayerOverhead float64
	// Fitted overheads from a calibration replace the step + layer rule:
	// DecodeOverhead per decode step, PrefillOverhead per prefill pass, s.
	Fitted          bool
	DecodeOverhead  float64
	PrefillOverhead float64
	// FormatBandwidthEfficiency holds bandwidth efficiencies fitted per
	// weight format (dequantizing kernels differ); others use
	// BandwidthEfficiency.
	FormatBandwidthEfficiency map[string]float64
}

// Overheads is the fixed cost of a prefill pass and of a decode step for a
// model of `layers` layers.
func (t Tuning) Overheads(layers int) (prefill, decode float64) {
	if t.Fitted {
		return t.PrefillOverhead, t.DecodeOverhead
	}
	o := t.StepOverhead + float64(layers)*t.LayerOverhead
	return o, o
}

// Calibration records how an engine's tuning was fitted to measured runs,
// so predictions can carry an interval and say what they are valid for.
type Calibration struct {
	// What the fit is valid for.
	Device, PowerMode, Engine, Runtime, Build, Date string
	Files                                           []string

	DecodePoints, PrefillPoints int
	// Covariance of (overhead [s], 1/efficiency) for each phase, as
	// [var(overhead), cov, var(1/efficiency)]; zero rows were not fitted.
	DecodeCov, PrefillCov [3]float64
	// FormatDecodeCov is the same per weight format of
	// Tuning.FormatBandwidthEfficiency.
	FormatDecodeCov map[string][3]float64
	// Relative residual standard deviation and degrees of freedom.
	DecodeSigma, PrefillSigma float64
	DecodeDOF, PrefillDOF     int
	R2Decode, R2Prefill       float64
	LOODecode, LOOPrefill     float64 // leave-one-out MdAPE
}

// DefaultTuning is the one rule for efficiencies and overheads an engine
// profile does not state. It depends on the engine kind only:
//
//   - bandwidth efficiency 0.70 for GPUs and NPUs, 0.60 for CPUs: MBU of
//     55–60 % (TensorRT-LLM, batch 1, A100/H100, Databricks 2023) and ≈ 70 %
//     (MLC on RTX 4090, llm-perf-bench) for accelerator stacks, ≈ 67 %
//     for llama.cpp on a DDR5 desktop CPU (llama.cpp issue #34), rounded
//     down for CPUs whose cores rarely saturate the controller;
//   - compute efficiency 0.40: prefill MFU ≈ 48 % for MPT-7B on A100
//     (Databricks), lower for the int8 MMQ and edge paths;
//   - overheads 126 µs per pass plus 32 µs per layer: the fixed terms
//     inference-sim (BLIS) fitted to vLLM step times
//     (docs/guide/latency-models.md).
func DefaultTuning(k Kind) Tuning {
	t := Tuning{BandwidthEfficiency: 0.70, ComputeEfficiency: 0.40, StepOverhead: 126e-6, LayerOverhead: 32e-6}
	if k == CPU {
		t.BandwidthEfficiency = 0.60
	}
	return t
}

// Engine returns the named engine, or the default one for "".
func (d *Device) Engine(name string) (*Engine, error) {
	if name == "" {
		name = d.DefaultEngine
	}
	for i := range d.Engines {
		if d.Engines[i].Name == name {
			return &d.Engines[i], nil
		}
	}
	return nil, fmt.Errorf("device %s has no engine %q (engines: %s)", d.Name, name, strings.Join(d.EngineNames(), ", "))
}

// EngineNames lists the engines in profile order.
func (d *Device) EngineNames() []string {
	n := make([]string, len(d.Engines))
	for i, e := range d.Engines {
		n[i] = e.Name
	}
	return n
}

// Pick returns the first precision of prefs this engine has a peak for.
func (e *Engine) Pick(prefs []units.Precision) (units.Precision, float64, bool) {
	for _, p := range prefs {
		if v, ok := e.Peaks[p]; ok && v > 0 {
			return p, v, true
		}
	}
	return "", 0, false
}

// Precisions lists the precisions the engine has peaks for, in the order
// of units.Precisions.
func (e *Engine) Precisions() []units.Precision {
	var ps []units.Precision
	for _, p := range units.Precisions {
		if _, ok := e.Peaks[p]; ok {
			ps = append(ps, p)
		}
	}
	return ps
}

// Ridge is the arithmetic intensity (FLOP per byte) above which a pass at
// precision p is compute-bound: peak / datasheet bandwidth.
func (d *Device) Ridge(e *Engine, p units.Precision) float64 {
	return e.Peaks[p] / d.Bandwidth
}

// Validate checks physical sense: positive finite capacities and rates,
// usable memory within capacity, efficiencies in (0, 1], a default engine
// that exists, and a source for every number.
func (d *Device) Validate() error {
	var errs []error
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 }
	if bad(d.Memory) {
		errs = append(errs, fmt.Errorf("memory must be positive, got %g", d.Memory))
	}
	if bad(d.Usable) || d.Usable > d.Memory {
		errs = append(errs, fmt.Errorf("usable_memory must be positive and at most memory (%s), got %g", units.FormatBytes(d.Memory, units.Binary), d.Usable))
	}
	if bad(d.Bandwidth) {
		errs = append(errs, fmt.Errorf("bandwidth must be positive, got %g", d.Bandwidth))
	}
	if d.MeasuredBandwidth < 0 || d.MeasuredBandwidth > d.Bandwidth*1.05 {
		errs = append(errs, fmt.Errorf("measured_bandwidth (%s) must be positive and not above the datasheet bandwidth (%s)", units.FormatBandwidth(d.MeasuredBandwidth), units.FormatBandwidth(d.Bandwidth)))
	}
	if bad(d.StorageBandwidth) {
		errs = append(errs, fmt.Errorf("storage_bandwidth must be positive, got %g", d.StorageBandwidth))
	}
	if len(d.Engines) == 0 {
		errs = append(errs, errors.New("a device needs at least one [[engine]]"))
	}
	seen := map[string]bool{}
	for _, e := range d.Engines {
		if seen[e.Name] {
			errs = append(errs, fmt.Errorf("engine %q is defined twice", e.Name))
		}
		seen[e.Name] = true
		if e.Kind != GPU && e.Kind != CPU && e.Kind != NPU {
			errs = append(errs, fmt.Errorf("engine %s: kind must be gpu, cpu or npu, got %q", e.Name, e.Kind))
		}
		if len(e.Peaks) == 0 {
			errs = append(errs, fmt.Errorf("engine %s: needs at least one peak", e.Name))
		}
		for p, v := range e.Peaks {
			if bad(v) {
				errs = append(errs, fmt.Errorf("engine %s: peak.%s must be positive, got %g", e.Name, p, v))
			}
		}
		if e.Power < 0 || math.IsNaN(e.Power) || math.IsInf(e.Power, 0) {
			errs = append(errs, fmt.Errorf("engine %s: power must be positive, got %g", e.Name, e.Power))
		}
		t := e.Tuning
		for f, v := range t.FormatBandwidthEfficiency {
			if bad(v) || v > 1 {
				errs = append(errs, fmt.Errorf("engine %s: format_bandwidth_efficiency.%s must be in (0, 1], got %g", e.Name, f, v))
			}
		}
		if bad(t.BandwidthEfficiency) || t.BandwidthEfficiency > 1 {
			errs = append(errs, fmt.Errorf("engine %s: bandwidth_efficiency must be in (0, 1], got %g", e.Name, t.BandwidthEfficiency))
		}
		if bad(t.ComputeEfficiency) || t.ComputeEfficiency > 1 {
			errs = append(errs, fmt.Errorf("engine %s: compute_efficiency must be in (0, 1], got %g", e.Name, t.ComputeEfficiency))
		}
		if t.StepOverhead < 0 || t.LayerOverhead < 0 || t.DecodeOverhead < 0 || t.PrefillOverhead < 0 ||
			math.IsNaN(t.StepOverhead+t.LayerOverhead+t.DecodeOverhead+t.PrefillOverhead) {
			errs = append(errs, fmt.Errorf("engine %s: overheads must not be negative", e.Name))
		}
	}
	if _, err := d.Engine(""); err != nil {
		errs = append(errs, fmt.Errorf("default_engine: %w", err))
	}
	for _, k := range d.NumberKeys() {
		if strings.TrimSpace(d.Sources[k]) == "" {
			errs = append(errs, fmt.Errorf("%s has no source", k))
		}
	}
	return errors.Join(errs...)
}

// NumberKeys lists the keys of every sourced figure the device has.
func (d *Device) NumberKeys() []string {
	keys := []string{"memory", "bandwidth", "storage_bandwidth"}
	if d.MeasuredBandwidth > 0 {
		keys = append(keys, "measured_bandwidth")
	}
	for _, e := range d.Engines {
		if e.Power > 0 {
			keys = append(keys, "engine."+e.Name+".power")
		}
		var ps []string
		for p := range e.Peaks {
			ps = append(ps, "engine."+e.Name+".peak."+string(p))
		}
		sort.Strings(ps)
		keys = append(keys, ps...)
	}
	return keys
}
