package hardware

import (
	"errors"
	"fmt"
	"math"

	"github.com/roofline/roofline/limits"
)

// Efficiency is how close a runtime's kernels come to an engine's peaks,
// and what fixed costs they add: the parameters of roofline's time model
// (docs/method.md §6). A runtime profile holds one per engine kind, fitted
// to published measurements; a calibrated engine holds its own.
//
// Each forward pass is priced by operation class, each class bounded by its
// own roofline and the classes added:
//
//	matrix products  max(weight bytes / (B·Bandwidth), FLOPs / (P·Matmul(M)))
//	attention        max(KV bytes / (B·Bandwidth), FLOPs / (P·Attention))
//	fixed            StepOverhead + layers · LayerOverhead  (decode step)
//	                 PassOverhead + layers · LayerOverhead  (prefill pass)
//
//	host work        tokens · layers · HostWork / P_host  (runtimes that run
//	                 operations on the host CPU beside the engine)
//
// and a decode step's products over weights its kernels unpack one by one
// (K-quants on llama.cpp's Metal, MLC's int4 groups on CUDA) are held,
// beside their roofline, by the arithmetic that unpacks them
// (KQuantGEMV): the step's product time t becomes
// (t⁴ + (F_K / (P·KQuantGEMV))⁴)^¼, F_K the FLOPs of one row of those
// products and P the peak that arithmetic runs at (KQuantDecode).
//
// where B is the datasheet bandwidth, P the peak at the kernels' precision
// and M the rows a product sees: the tokens of the pass (for routed experts,
// the tokens each reached expert receives). The bandwidth a pass reaches is
// the datasheet's share, capped smoothly by UnitBandwidth times the
// engine's compute units (AchievedBandwidth); the rate of the products,
// P·Matmul(M), is capped the same way by UnitCompute times the units
// (AchievedCompute). P_host is the host CPU's peak at the precision the
// runtime's host operations run at.
type Efficiency struct {
	// Bandwidth is the share of datasheet bandwidth a pass streaming
	// weights and KV cache achieves (MBU), in (0, 1].
	Bandwidth float64
	// ComputeMax is the share of the peak a large matrix product reaches,
	// in (0, 1].
	ComputeMax float64
	// HalfRows sets how the matrix efficiency rises with the rows M a
	// product sees, on an engine of ReferencePeak: it climbs from half of
	// ComputeMax at one row towards ComputeMax as
	// (M + h) / (M + 2h), h = HalfRows · peak / ReferencePeak. A product
	// must give every unit of the engine work to reach its peak, so the
	// rows it needs grow with the engine's size; with few rows it is a
	// bandwidth kernel (split over the weights, not the rows) whose
	// arithmetic still runs at half the large-product share, so its
	// compute time per row never grows with the rows and a batch never
	// makes a product with an intensity below the engine's ridge
	// compute-bound (docs/method.md §6).
	HalfRows float64
	// Attention is the share of the peak attention reaches in prefill, in
	// (0, 1].
	Attention float64
	// StepOverhead is a fixed cost per decode step (sampling, scheduling,
	// synchronisation), s.
	StepOverhead float64
	// PassOverhead is a fixed cost per prefill pass, s.
	PassOverhead float64
	// LayerOverhead is a fixed cost per layer per pass or step (kernel
	// launches), s.
	LayerOverhead float64
	// UnitBandwidth caps the bandwidth a matrix-vector kernel reaches per
	// compute unit (SM, CU, GPU core) of the engine, B/s: Little's law
	// with the bytes one unit keeps in flight. 0: no cap.
	UnitBandwidth float64
	// Dequant is the share of a float product's matrix efficiency a
	// kernel reaches when it dequantizes its weights on the fly (weights
	// stored quantized, arithmetic in floating point: GGUF k-quants,
	// w4a16), in (0, 1]; 0 when unset (no penalty).
	Dequant float64
	// UnitCompute caps the rate matrix products reach per compute unit
	// of the engine (an NPU core), FLOP/s: a runtime whose kernels are
	// held by what one core moves per clock, not by the rated MAC array,
	// reaches the same rate per core on chips whose rated peaks per core
	// differ. 0: no cap.
	UnitCompute float64
	// HostWork is the work a runtime does on the host CPU per token and
	// layer beside the engine's (RKLLM's CPU operations between its NPU
	// products), FLOP at the host's peak: a pass of n tokens spends
	// n·layers·HostWork / P_host on it. 0: none.
	HostWork float64
	// KQuantGEMV is the share of the peak at which a decode step's
	// products run when the kernels unpack every weight to a float and
	// multiply it in turn: K-quant weights (Q2_K to Q6_K) in llama.cpp's
	// Metal mul_mv kernels, MLC's int4 groups on CUDA
	// (runtimes.Support.UnpackTypes). Their arithmetic time,
	// F_K / (P·KQuantGEMV), bounds the step beside its memory time through
	// a smooth corner (KQuantDecode). In (0, 1]; 0: no such bound. Named,
	// as its profile key kquant_gemv is, for the K-quants it first priced:
	// a rename would break the profiles users have written.
	KQuantGEMV float64
	// ReadShare is the share s_R of its device's measured read
	// (Device.MeasuredBandwidth) a GPU's decode streams its bytes at:
	// s_R × the read, capped by the datasheet's bandwidth alone (the read
	// already met the units' limits; above 1 where the decode outruns the
	// benchmark, never past the memory's peak). Used on a GPU of
	// a device with a read; 0: none (the datasheet's bandwidth through
	// Bandwidth and UnitBandwidth).
	ReadShare float64
}

// AtClock is the efficiency on an engine clocked at r times
// ReferenceClock (Engine.ClockRatio): a Jetson's power modes cap its GPU
// at 306 MHz to 1.3 GHz. A compute unit issues its loads and its
// arithmetic per cycle, so the per-unit caps (UnitBandwidth,
// UnitCompute) scale with the clock; a decode step replayed as one
// graph of kernels (llama.cpp's CUDA graphs, on every Orin) spends its
// fixed costs per layer in the engine's front end and the gaps between
// its kernels, cycles of the engine, so they scale with the clock's
// inverse, and so does its cost per step unless the host's clock is
// known (AtClocks). A prefill pass launches its kernels one by one from
// the host CPU (no graph for more than one row), so its fixed costs
// (PrefillOverhead) do not move: AtClock leaves PassOverhead, and the
// prefill's layer cost is priced from the unscaled efficiency. The
// shares of the datasheet (Bandwidth, ComputeMax, Attention) do not
// move either: the peaks they are shares of follow the mode's clock
// already. r ≤ 0 or 1: e unchanged.
func (e Efficiency) AtClock(r float64) Efficiency {
	return e.AtClocks(r, 0)
}

// AtClocks is AtClock on a device whose host CPU runs at host times
// ReferenceClock (0: not stated): a decode step's cost per step is the
// host's work — building the step's graph, checking every node against
// the graph replayed last and launching it, waiting for the logits
// (llama.cpp's CUDA graphs: docs/method.md "Power modes and clocks") —
// so StepOverhead scales with the host clock's inverse; with no host
// clock, with the engine's as AtClock says.
func (e Efficiency) AtClocks(r, host float64) Efficiency {
	if !(host > 0) {
		host = r
	}
	if r > 0 && r != 1 {
		e.UnitBandwidth *= r
		e.UnitCompute *= r
		e.LayerOverhead /= r
	}
	if host > 0 && host != 1 {
		e.StepOverhead /= host
	}
	return e
}

// ReferencePeak is the engine size HalfRows is stated at, 100 TFLOP/s.
const ReferencePeak = 100e12

// Matmul is the share of the peak a matrix product over `rows` rows
// reaches on an engine of `peak` FLOP/s:
// ComputeMax · (rows + h) / (rows + 2h), h = HalfRows · peak / ReferencePeak.
// Its compute time per row, rows / Matmul, never grows with the rows:
// batching never makes a step slower per token on the compute side.
func (e Efficiency) Matmul(rows, peak float64) float64 {
	h := e.HalfRows * peak / ReferencePeak
	if h <= 0 {
		return e.ComputeMax
	}
	rows = max(rows, 0)
	return e.ComputeMax * (rows + h) / (rows + 2*h)
}

// AchievedBandwidth is the bandwidth a pass streaming weights and KV cache
// reaches on an engine of datasheet bandwidth b with n compute units: the
// share Bandwidth·b, capped by n·UnitBandwidth — what the units can keep in
// flight (Little's law) — through a smooth corner,
// (x⁻⁴ + y⁻⁴)^(−¼), so that a fit sees both limits. Without a unit count
// or a cap it is Bandwidth·b.
func (e Efficiency) AchievedBandwidth(b float64, n int) float64 {
	x := e.Bandwidth * b
	if n <= 0 || e.UnitBandwidth <= 0 {
		return x
	}
	return smoothMin(x, float64(n)*e.UnitBandwidth)
}

// AchievedCompute is the rate matrix products reach at r FLOP/s (the
// peak times the matrix efficiency) on an engine of n compute units: r,
// capped by n·UnitCompute through the same smooth corner as
// AchievedBandwidth. Without a unit count or a cap it is r.
func (e Efficiency) AchievedCompute(r float64, n int) float64 {
	if n <= 0 || e.UnitCompute <= 0 || r <= 0 {
		return r
	}
	return smoothMin(r, float64(n)*e.UnitCompute)
}

// KQuantDecode is the time of a decode step's products whose roofline
// time is t, s, when flops of them are over weights the kernels unpack
// one by one (KQuantGEMV), their arithmetic at peak P FLOP/s: t and the
// unpacking arithmetic's F_K / (P·KQuantGEMV) through the smooth corner
// the caps use, (t⁴ + a⁴)^¼, so that a fit sees the bound before it
// binds. t unchanged without the bound or such products.
func (e Efficiency) KQuantDecode(t, flops, peak float64) float64 {
	if e.KQuantGEMV <= 0 || !(flops > 0) || !(peak > 0) {
		return t
	}
	a := flops / (peak * e.KQuantGEMV)
	return 1 / smoothMin(1/t, 1/a)
}

// smoothMin is (x⁻⁴ + y⁻⁴)^(−¼): the smaller of x and y, through a
// smooth corner a fit can follow.
func smoothMin(x, y float64) float64 {
	x4, y4 := x*x*x*x, y*y*y*y
	return 1 / math.Sqrt(math.Sqrt(1/x4+1/y4))
}

// DecodeOverhead is the fixed cost of one decode step of a model with
// `layers` layers (a runtime whose engine's units share the cost per
// layer counts layers / units).
func (e Efficiency) DecodeOverhead(layers float64) float64 {
	return e.StepOverhead + layers*e.LayerOverhead
}

// PrefillOverhead is the fixed cost of one prefill pass.
func (e Efficiency) PrefillOverhead(layers float64) float64 {
	return e.PassOverhead + layers*e.LayerOverhead
}

// Validate checks that every share and cost lies in its physical range
// (package limits); each error is a *KeyError naming the parameter as a
// profile does.
func (e Efficiency) Validate() error {
	var errs []error
	in := func(key string, r limits.Range, v float64) {
		if err := r.Check(v); err != nil {
			errs = append(errs, &KeyError{Key: key, Err: err})
		}
	}
	in("bandwidth", limits.Share, e.Bandwidth)
	in("compute_max", limits.Share, e.ComputeMax)
	in("attention", limits.Share, e.Attention)
	if e.Dequant != 0 { // 0: unset, no penalty
		in("dequant", limits.Share, e.Dequant)
	}
	in("half_rows", limits.HalfRows, e.HalfRows)
	in("step_overhead", limits.FixedCost, e.StepOverhead)
	in("pass_overhead", limits.FixedCost, e.PassOverhead)
	in("layer_overhead", limits.FixedCost, e.LayerOverhead)
	if e.UnitBandwidth != 0 { // 0: no cap
		in("unit_bandwidth", limits.Bandwidth, e.UnitBandwidth)
	}
	if e.UnitCompute != 0 {
		in("unit_compute", limits.Compute, e.UnitCompute)
	}
	in("host_work", limits.HostWork, e.HostWork)
	if e.KQuantGEMV != 0 { // 0: no bound
		in("kquant_gemv", limits.Share, e.KQuantGEMV)
	}
	if e.ReadShare != 0 { // 0: none
		in("read_share", limits.ReadShare, e.ReadShare)
	}
	return errors.Join(errs...)
}

// Parameters lists the efficiency as a vector, in the order of
// ParameterNames, for fitting and for covariances.
func (e Efficiency) Parameters() []float64 {
	return []float64{e.Bandwidth, e.StepOverhead, e.LayerOverhead, e.ComputeMax, e.HalfRows, e.Attention, e.PassOverhead, e.UnitBandwidth, e.Dequant, e.UnitCompute, e.HostWork, e.KQuantGEMV, e.ReadShare}
}

// ParameterNames names the entries of Parameters as profiles spell them.
var ParameterNames = []string{"bandwidth", "step_overhead", "layer_overhead", "compute_max", "half_rows", "attention", "pass_overhead", "unit_bandwidth", "dequant", "unit_compute", "host_work", "kquant_gemv", "read_share"}

// EfficiencyOf is the inverse of Parameters.
func EfficiencyOf(p []float64) Efficiency {
	e := Efficiency{Bandwidth: p[0], StepOverhead: p[1], LayerOverhead: p[2], ComputeMax: p[3], HalfRows: p[4], Attention: p[5], PassOverhead: p[6]}
	if len(p) > 7 {
		e.UnitBandwidth = p[7]
	}
	if len(p) > 8 {
		e.Dequant = p[8]
	}
	if len(p) > 10 {
		e.UnitCompute, e.HostWork = p[9], p[10]
	}
	if len(p) > 11 {
		e.KQuantGEMV = p[11]
	}
	if len(p) > 12 {
		e.ReadShare = p[12]
	}
	return e
}

// Shift is how one family of devices, or one device, differs from the
// efficiency of its runtime's class, fitted where that family or device
// has published runs (shrunk toward the class): a log factor on every
// fixed cost (the host that launches the kernels, the clocks they run
// at), a logit shift of the bandwidth share with a log factor on the cap
// per compute unit (the memory's timings and controller), and a logit
// shift of the matrix and attention efficiencies (the clocks and power
// limit under load). The zero Shift changes nothing.
type Shift struct {
	Overhead, Bandwidth, Compute float64
	// Read is a log factor on ReadShare: a GPU's decode against its
	// measured read, apart from prefill's datasheet share (Bandwidth).
	Read float64
}

// Shifted is e as a family or device that differs from it by s runs it.
func (e Efficiency) Shifted(s Shift) Efficiency {
	if s == (Shift{}) {
		return e
	}
	f := math.Exp(s.Overhead)
	e.StepOverhead *= f
	e.PassOverhead *= f
	e.LayerOverhead *= f
	e.Bandwidth = logitShift(e.Bandwidth, s.Bandwidth)
	e.UnitBandwidth *= math.Exp(s.Bandwidth)
	e.ReadShare *= math.Exp(s.Read)
	e.ComputeMax = logitShift(e.ComputeMax, s.Compute)
	e.Attention = logitShift(e.Attention, s.Compute)
	return e
}

// Validate checks that the shift is finite and within a factor of e⁵
// either way (a shift that large is a wrong profile, not a device).
func (s Shift) Validate() error {
	for _, v := range []float64{s.Overhead, s.Bandwidth, s.Compute, s.Read} {
		if math.IsNaN(v) || math.Abs(v) > 5 {
			return fmt.Errorf("a shift must be finite and within ±5, got %+v", s)
		}
	}
	return nil
}

// logitShift moves share p by d in logit coordinates.
func logitShift(p, d float64) float64 {
	if d == 0 || p <= 0 {
		return p
	}
	p = math.Min(p, 1-1e-9)
	return 1 / (1 + math.Exp(-(math.Log(p/(1-p)) + d)))
}
