package hardware

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/roofline/roofline/limits"
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

// Families are the vendor lines runtimes are matched against.
var Families = []string{"nvidia", "jetson", "amd", "apple", "intel", "rockchip", "raspberry-pi", "cpu"}

// Device is one piece of hardware in one power mode.
type Device struct {
	Name        string
	Aliases     []string
	Description string
	// Family is the vendor line (nvidia, jetson, apple, amd, rockchip,
	// raspberry-pi, cpu): runtimes say which families they run on.
	Family string
	// Segment is the market the device is built for (datacenter,
	// workstation, consumer, edge): it decides the usual runtime.
	Segment string
	// VariantOf names the base device when this is a power mode or a
	// smaller configuration of it.
	VariantOf string
	// PowerMode names the power mode the figures are for, as the vendor
	// names it (nvpmodel's "15W", "MAXN_SUPER"); ModeTable names the
	// table of modes it comes from where a module has several (JetPack
	// 5's and the Super modes of a Jetson): a mode named by its power
	// budget is looked up in the named device's table first.
	PowerMode string
	ModeTable string

	Memory float64 // capacity, B
	// Usable is the memory a model may use, B, as UsableMemory decides it
	// (the profile decoder sets it).
	Usable float64
	// UsableGiven is a profile's own usable_memory, B; 0 lets the rule of
	// the device's memory class decide (UsableMemory).
	UsableGiven float64
	// Reserved is what the platform keeps before a model loads, B:
	// firmware carveouts and the OS on a board, the driver's reservation
	// and ECC on a discrete GPU; 0 when the profile gives no figure.
	Reserved          float64
	Unified           bool    // memory shared by CPU and accelerators (and the OS)
	Bandwidth         float64 // datasheet peak, B/s
	MeasuredBandwidth float64 // measured (STREAM-like), B/s; 0 when unknown
	StorageBandwidth  float64 // read rate of the model's storage, B/s
	// MemoryClocks are the clocks the memory can run at (the DDR
	// controller's steps, ascending), Hz, the last the one Bandwidth is
	// of; nil when the profile gives none (AtClocks). MemoryClock is the
	// step a device made by AtClocks runs at, 0 for the highest.
	MemoryClocks []float64
	MemoryClock  float64
	// HostLink names the link (Links) between a discrete device and its
	// host's memory, "" when the profile gives none or the memory is
	// unified.
	HostLink string
	// NVLink names the NVLink (Links, kind nvlink) the device's peers
	// can be joined by, "" when the profile gives none: a GPU without
	// NVLink exchanges with its peers over PCIe or a network.
	NVLink string
	// NoGPUHost is set when the profile says no discrete GPU can be
	// joined to this computer to be its host (a Mac with Apple silicon
	// takes no eGPU); Sources["discrete_gpu_host"] says where from.
	NoGPUHost bool

	Engines       []Engine
	DefaultEngine string

	// Sources maps a field key ("bandwidth", "engine.gpu.peak.fp16", …) to
	// where its number comes from.
	Sources    map[string]string
	References []string
	File       string // the profile file it was read from
}

// Module is the physical device d describes: the base device of a power
// mode or a smaller configuration (VariantOf), else d itself.
func (d *Device) Module() string {
	if d.VariantOf != "" {
		return d.VariantOf
	}
	return d.Name
}

// Engine is one compute unit of a device: a GPU, a CPU cluster, an NPU.
type Engine struct {
	Name  string
	Kind  Kind
	Peaks map[units.Precision]float64 // dense peak, FLOP/s or OP/s
	// Power is the draw of the device while this engine runs flat out, W;
	// 0 when no public figure exists (PowerDraw says so).
	Power float64
	// IdlePower is the draw of the device idling with this engine ready,
	// W; 0 when no public figure exists.
	IdlePower float64
	// Units is the engine's number of compute units (streaming
	// multiprocessors, compute units, GPU cores): the bandwidth its
	// kernels reach can be capped per unit (Efficiency.UnitBandwidth).
	// 0 when unknown.
	Units int
	// Clock is the engine's maximum clock in the device's power mode, Hz;
	// 0 when the profile does not give it (ClockRatio).
	Clock float64
	// MinClock is the lowest clock the engine can be set to, Hz (an
	// NPU's devfreq range): with Clock it bounds a clock a user states
	// (Device.AtClocks). 0 when the profile does not give it.
	MinClock float64
	// ComputeCapability is an NVIDIA GPU's CUDA compute capability (5.3
	// for the 2019 Jetson Nano's Maxwell, 8.7 for Orin): what a runtime's
	// kernels and graphs may use on it. 0 when the profile does not give
	// it.
	ComputeCapability float64
	// L2Cache is the engine's last-level on-chip cache shared by its
	// units (a GPU's L2), bytes: what a kernel that reads the same
	// weights again within one product finds there instead of in memory
	// (sim: llama.cpp's MMQ tiles). 0 when the profile does not give it.
	L2Cache float64
	// NoInt8Dot is true when the engine has no int8 dot-product
	// instruction, so its int8 peak is a widening multiply's: an ARMv8.0
	// core (Cortex-A53, A57, A72) has no SDOT and forms a dot product from
	// SMULL and pairwise adds. A runtime whose kernels issue more
	// instructions per product there says so (runtimes.Kernel.NoDotFactor).
	NoInt8Dot bool
	// Calibration is set when the engine's efficiency under one runtime
	// was fitted to measured runs (roofline calibrate); it replaces that
	// runtime's class for runs on this engine.
	Calibration *Calibration
}

// Calibration is an engine's efficiency under one runtime, fitted to
// measured runs, with what a prediction needs to carry an interval and to
// say what the fit is valid for.
type Calibration struct {
	Runtime string // the runtime the runs were measured under
	Efficiency
	// FormatBandwidth holds bandwidth efficiencies fitted per weight
	// format (dequantizing kernels differ); others use Bandwidth.
	FormatBandwidth map[string]float64
	// Cov is the covariance of the fitted parameters in the order of
	// ParameterNames (a square matrix, row-major); zero rows were held.
	Cov []float64
	// Sigma is the relative scatter of a new run about the fit, per
	// phase, and DOF the degrees of freedom behind it.
	DecodeSigma, PrefillSigma float64
	DecodeDOF, PrefillDOF     int

	// What the fit is valid for.
	Device, PowerMode, Engine, Build, Date string
	Files                                  []string
	Formats                                []string // weight formats the runs used
	MaxBatch                               int      // the largest batch measured
	DecodePoints, PrefillPoints            int
	R2Decode, R2Prefill                    float64
	LOODecode, LOOPrefill                  float64 // leave-one-out MdAPE
	// Prior names the runtime class the fit started from, and Shift how
	// far the board sits from it (fitted/prior time of a reference run).
	Prior                     string
	DecodeShift, PrefillShift float64
}

// BandwidthFor is the bandwidth efficiency for weight format f.
func (c *Calibration) BandwidthFor(f string) (float64, bool) {
	if v, ok := c.FormatBandwidth[f]; ok {
		return v, true
	}
	return c.Bandwidth, false
}

// ReferenceClock is the clock the runtime classes' clock-bound terms are
// stated at for a GPU whose profile gives its clock, 1 GHz
// (Efficiency.AtClock).
const ReferenceClock = 1e9

// ClockRatio is a GPU's clock over ReferenceClock, or 1 when the profile
// gives no clock or the engine is not a GPU: the engine runs the classes'
// clock-bound terms as fitted. The rule rests on GPU kernels replayed as
// one graph (llama.cpp's CUDA graphs) and on per-SM caps; a CPU's clock
// is shown, but the CPU classes are fitted on boards whose profiles give
// none, so it moves nothing.
func (e *Engine) ClockRatio() float64 {
	if e.Clock > 0 && e.Kind == GPU {
		return e.Clock / ReferenceClock
	}
	return 1
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
	return nil, &NoEngineError{Device: d.Name, Engine: name, Engines: d.EngineNames()}
}

// NoEngineError is an engine a device does not have: a bad value of
// whatever chose it.
type NoEngineError struct {
	Device, Engine string
	Engines        []string
}

func (e *NoEngineError) Error() string {
	return fmt.Sprintf("device %s has no engine %q (engines: %s)", e.Device, e.Engine, strings.Join(e.Engines, ", "))
}

// EngineNames lists the engines in profile order.
func (d *Device) EngineNames() []string {
	n := make([]string, len(d.Engines))
	for i, e := range d.Engines {
		n[i] = e.Name
	}
	return n
}

// ErrNoPowerFigure is returned, wrapped, when a profile has no power
// figure for an engine: energy cannot be estimated without one, and a
// caller should say so rather than leave the answer out.
var ErrNoPowerFigure = errors.New("no published power figure")

// PowerDraw is the engine's draw while it runs and while the device idles,
// W, with where each comes from. It returns an error wrapping
// ErrNoPowerFigure when the profile has no running power; idle is 0 (and
// idleSource empty) when only the running power is known.
func (d *Device) PowerDraw(engine string) (run, idle float64, runSource, idleSource string, err error) {
	e, err := d.Engine(engine)
	if err != nil {
		return 0, 0, "", "", err
	}
	if e.Power <= 0 {
		return 0, 0, "", "", fmt.Errorf("the %s engine of %s: %w (add power to the profile, or give the draw yourself)", e.Name, d.Name, ErrNoPowerFigure)
	}
	key := "engine." + e.Name
	if e.IdlePower > 0 {
		idleSource = d.Sources[key+".idle_power"]
	}
	return e.Power, e.IdlePower, d.Sources[key+".power"], idleSource, nil
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

// Validate checks physical sense: every figure within its physical range
// (package limits), usable memory within capacity, efficiencies in their
// range, a default engine that exists, and a source for every number.
// An error about one figure is a *KeyError naming its key.
func (d *Device) Validate() error {
	var errs []error
	in := func(key string, r limits.Range, v float64) bool {
		if err := r.Check(v); err != nil {
			errs = append(errs, &KeyError{Key: key, Err: err})
			return false
		}
		return true
	}
	memOK := in("memory", limits.Memory, d.Memory)
	if memOK && (!(d.Usable > 0) || d.Usable > d.Memory) {
		errs = append(errs, &KeyError{"usable_memory", fmt.Errorf("must be positive and at most memory (%s), got %s", units.FormatBytes(d.Memory, units.Binary), units.FormatBytes(d.Usable, units.Binary))})
	}
	if in("reserved_memory", limits.Overhead, d.Reserved) && memOK && d.Reserved >= d.Memory {
		errs = append(errs, &KeyError{"reserved_memory", fmt.Errorf("must be less than memory (%s), got %s", units.FormatBytes(d.Memory, units.Binary), units.FormatBytes(d.Reserved, units.Binary))})
	}
	bwOK := in("bandwidth", limits.Bandwidth, d.Bandwidth)
	if d.MeasuredBandwidth != 0 && in("measured_bandwidth", limits.Bandwidth, d.MeasuredBandwidth) && bwOK && d.MeasuredBandwidth > d.Bandwidth*1.05 {
		errs = append(errs, &KeyError{"measured_bandwidth", fmt.Errorf("(%s) must not be above the datasheet bandwidth (%s)", units.FormatBandwidth(d.MeasuredBandwidth), units.FormatBandwidth(d.Bandwidth))})
	}
	in("storage_bandwidth", limits.Bandwidth, d.StorageBandwidth)
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
		for _, p := range slices.Sorted(maps.Keys(e.Peaks)) {
			in("engine."+e.Name+".peak."+string(p), limits.Compute, e.Peaks[p])
		}
		in("engine."+e.Name+".units", limits.Units, float64(e.Units))
		in("engine."+e.Name+".clock", limits.Clock, e.Clock)
		in("engine."+e.Name+".l2_cache", limits.Cache, e.L2Cache)
		if cc := e.ComputeCapability; cc != 0 && !(cc >= 1 && cc < 100) {
			errs = append(errs, &KeyError{"engine." + e.Name + ".compute_capability", fmt.Errorf("must be a CUDA compute capability such as 5.3 or 8.7, got %g", cc)})
		}
		powerOK := e.Power == 0 || in("engine."+e.Name+".power", limits.PowerDraw, e.Power)
		if e.IdlePower != 0 && in("engine."+e.Name+".idle_power", limits.PowerDraw, e.IdlePower) && powerOK && e.Power > 0 && e.IdlePower > e.Power {
			errs = append(errs, &KeyError{"engine." + e.Name + ".idle_power", fmt.Errorf("must be at most power (%g W), got %g W", e.Power, e.IdlePower)})
		}
		if c := e.Calibration; c != nil {
			if err := c.Efficiency.Validate(); err != nil {
				for _, x := range unjoin(err) {
					var ke *KeyError
					if errors.As(x, &ke) {
						x = &KeyError{"engine." + e.Name + ".calibration." + ke.Key, ke.Err}
					}
					errs = append(errs, x)
				}
			}
			if s := c.Efficiency.ReadShare; s > 0 && (e.Kind != GPU || d.MeasuredBandwidth == 0) {
				// A share of the measured read a GPU's decode streams at
				// (sim.Inputs.ReadBandwidth): without one it moves nothing.
				what := "the device gives no measured_bandwidth (a variant states its own: a read is of its clocks)"
				if e.Kind != GPU {
					what = fmt.Sprintf("engine %s is a %s, and only a GPU's decode streams at a share of the measured read", e.Name, e.Kind)
				}
				errs = append(errs, &KeyError{"engine." + e.Name + ".calibration.read_share", fmt.Errorf("= %g is a share of the device's measured read, but %s: it would change no prediction; give the device's measured_bandwidth with its source, or remove read_share (bandwidth is then decode's share of the datasheet's)", s, what)})
			}
			for _, f := range slices.Sorted(maps.Keys(c.FormatBandwidth)) {
				in("engine."+e.Name+".calibration.format_bandwidth."+f, limits.Share, c.FormatBandwidth[f])
			}
			if n := len(ParameterNames); len(c.Cov) != 0 && len(c.Cov) != n*n {
				errs = append(errs, fmt.Errorf("engine %s: calibration covariance must have %d entries, got %d", e.Name, len(ParameterNames)*len(ParameterNames), len(c.Cov)))
			}
		}
	}
	if !slices.Contains(Families, d.Family) {
		errs = append(errs, fmt.Errorf("family must be one of %s, got %q", strings.Join(Families, ", "), d.Family))
	}
	switch d.Segment {
	case "datacenter", "workstation", "consumer", "edge":
	default:
		errs = append(errs, fmt.Errorf("segment must be datacenter, workstation, consumer or edge, got %q", d.Segment))
	}
	if _, err := d.Engine(""); err != nil {
		errs = append(errs, fmt.Errorf("default_engine: %w", err))
	}
	for _, k := range d.NumberKeys() {
		if strings.TrimSpace(d.Sources[k]) == "" {
			errs = append(errs, &KeyError{k, errors.New("has no source")})
		}
	}
	return errors.Join(errs...)
}

// NumberKeys lists the keys of every sourced figure the device has.
func (d *Device) NumberKeys() []string {
	keys := []string{"memory", "bandwidth", "storage_bandwidth"}
	if d.UsableGiven > 0 {
		keys = append(keys, "usable_memory")
	}
	if d.Reserved > 0 {
		keys = append(keys, "reserved_memory")
	}
	if d.MeasuredBandwidth > 0 {
		keys = append(keys, "measured_bandwidth")
	}
	if d.HostLink != "" {
		keys = append(keys, "host_link")
	}
	if d.NVLink != "" {
		keys = append(keys, "nvlink")
	}
	for _, e := range d.Engines {
		if e.Power > 0 {
			keys = append(keys, "engine."+e.Name+".power")
		}
		if e.IdlePower > 0 {
			keys = append(keys, "engine."+e.Name+".idle_power")
		}
		if e.Clock > 0 {
			keys = append(keys, "engine."+e.Name+".clock")
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

// KeyError is a figure of a device or an efficiency outside its range:
// Key names it as a profile does (bandwidth, engine.gpu.power,
// half_rows), so a reader can point at its line.
type KeyError struct {
	Key string
	Err error
}

func (e *KeyError) Error() string { return e.Key + " " + e.Err.Error() }
func (e *KeyError) Unwrap() error { return e.Err }

// unjoin lists the errors errors.Join joined.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
