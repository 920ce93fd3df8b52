// Package accuracy fits each runtime's efficiency per kind of engine to the
// published measurements kept in the repository, and scores the fit the
// honest way: every device's runs predicted by a fit that never saw that
// device (leave one device out). The same held-out ratios give each class
// its 80 % interval, and the coverage of those intervals is checked on
// devices they were not computed from.
package accuracy

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/fit"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
	"gonum.org/v1/gonum/stat/distuv"
)

// Case is one published run resolved to a setup.
type Case struct {
	Run      measured.Run
	Setup    *sim.Setup
	Class    Key
	Device   string
	Measured float64 // s, the whole test
}

// era is the era of the runtime's builds the case was measured on, for
// the class filed under key (a backend or an engine kind): 0 for the
// current builds, and for eras that do not concern key; k ≥ 1 for the
// k-th older era.
func (c Case) era(key string) int {
	rt := c.Setup.Runtime
	k, err := rt.EraOf(rt.Build)
	if err != nil || k == 0 || !rt.Eras[len(rt.Eras)-k].Applies(key) {
		return 0
	}
	return k
}

// Key names a class: a runtime on a kind of engine, or on one of its
// backends (llama.cpp's CUDA or Metal).
type Key struct {
	Runtime string
	Kind    hardware.Kind
	Backend string
}

func (k Key) String() string {
	if k.Backend != "" {
		return k.Runtime + " " + string(k.Kind) + " (" + k.Backend + ")"
	}
	return k.Runtime + " " + string(k.Kind)
}

// Name is the key a runtime profile files the class under: the backend,
// else the engine kind.
func (k Key) Name() string {
	if k.Backend != "" {
		return k.Backend
	}
	return string(k.Kind)
}

// Load resolves the scored runs. Runs that cannot be resolved come back as
// errors.
func Load(cat *profiles.Catalog, runs []measured.Run) ([]Case, []error) {
	ev := compare.New(cat, compare.Options{Sim: sim.DefaultOptions})
	var cases []Case
	var errs []error
	for _, r := range runs {
		// An e2e run mixes both phases: compare holds it against the
		// ideal bound; the classes are fitted per phase.
		if r.Exclude != "" || r.Test == measured.E2E {
			continue
		}
		// Priced at the runtime's reference settings: the fit applies the
		// settings' factors itself (settings.go), never the profile's.
		ref := r
		ref.MaxContext, ref.Clocks = 0, ""
		rs, err := ev.Resolve(ref)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s (%s): %w", r.Source(), r.Cited(), err))
			continue
		}
		s := rs.Setup
		k := Key{Runtime: s.Runtime.Name, Kind: s.Engine.Kind, Backend: s.Runtime.Backend(s.Device, s.Engine)}
		cases = append(cases, Case{Run: r, Setup: s, Class: k, Device: s.Device.Name, Measured: r.Seconds()})
	}
	return cases, errs
}

// Class is the fit of one class and its held-out error.
type Class struct {
	Key Key
	// HeldOut says what each held-out prediction left out: "device", or
	// "model" for a class measured on fewer than MinDevices devices.
	HeldOut string
	Cases   []Case
	Fit     *fit.Result
	Prior   fit.Prior
	Spread  runtimes.Spread // decode
	// PrefillSpread is the 80 % interval of prefill measured/predicted.
	PrefillSpread runtimes.Spread
	// Held are measured/predicted per case from the fit without its device.
	Held []float64
	// Covered is, per case, whether its measured time fell in the 80 %
	// interval computed without its device.
	Covered []bool
	// Scored is, per case, whether the class is the one the case is
	// scored under: a kind's class is also fitted on the runs of its
	// backends with classes of their own, which are scored there.
	Scored  []bool
	Devices int
	// Eras are the older eras of the runtime's builds the class was
	// fitted across (oldest first; Fit.Shifts holds what tells each from
	// the current builds), empty when its runs do not span them.
	Eras []runtimes.Era
	// EraSpreads are each older era's 80 % intervals (decode, prefill),
	// in the order of Eras.
	EraSpreads [][2]runtimes.Spread
	// eras is each case's era (0: current).
	eras []int
	// Families and DeviceLevels are the class's levels (levels.go), by
	// family and by device name.
	Families, DeviceLevels map[string]*Level
	// Settings are the runtime settings' factors fitted beside the level
	// of the device whose runs state them (settings.go); nil when none
	// does.
	Settings *Settings
	// RawCoverage is, per phase (PhaseIndex), the share of the phase's
	// held-out ratios the intervals covered as computed (each device
	// weighing the same), Widen the factor (in log, about their centre)
	// the phase's intervals were widened by to cover IntervalLevel
	// (calibratePhases).
	RawCoverage, Widen [2]float64
	// familyLevels is true when the class has family levels: measured on
	// MinDevices modules or more, on engines other than CPUs.
	familyLevels bool
	// deviceSpreads is the prior's spread of a device's level in this
	// class (fitLevels).
	deviceSpreads [fit.NShift]float64
	// family is each case's family index in the fit (fit.Point.Family; 0:
	// the reference family), families the names of indices 1, 2, …,
	// reference the reference family's name.
	family    []int
	families  []string
	reference string
}

// Points turns cases into fit points.
func Points(cases []Case) []fit.Point {
	pts := make([]fit.Point, len(cases))
	for i, c := range cases {
		c := c
		ph := fit.Prefill
		if c.Run.Test == measured.Decode {
			ph = fit.Decode
		}
		pts[i] = fit.Point{Measured: c.Measured, Phase: ph, Group: module(c.Setup.Device), Shared: c.Device,
			Predict: func(e hardware.Efficiency) float64 { return compare.Phase(c.Setup.WithEfficiency(e), c.Run).Time }}
	}
	return pts
}

// FitClasses fits every class the cases fall in, from a weak prior around
// runtimes.Prior: each runtime on each kind of engine over all its runs,
// and each backend measured on at least MinDevices devices over its own.
// A run is scored under its backend's class when there is one, else under
// its kind's.
func FitClasses(cases []Case) ([]*Class, error) {
	devices := map[Key]map[string]bool{}
	for _, c := range cases {
		if devices[c.Class] == nil {
			devices[c.Class] = map[string]bool{}
		}
		devices[c.Class][c.Device] = true
	}
	byKey := map[Key][]Case{}
	scoredBy := map[Key][]bool{}
	for _, c := range cases {
		kind := Key{Runtime: c.Class.Runtime, Kind: c.Class.Kind}
		own := c.Class.Backend != "" && len(devices[c.Class]) >= MinDevices
		if own {
			byKey[c.Class] = append(byKey[c.Class], c)
			scoredBy[c.Class] = append(scoredBy[c.Class], true)
		}
		c.Class = kind
		byKey[kind] = append(byKey[kind], c)
		scoredBy[kind] = append(scoredBy[kind], !own)
	}
	keys := make([]Key, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	var out []*Class
	for _, k := range keys {
		c, err := fitClass(k, byKey[k], true)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		c.Scored = scoredBy[k]
		if err := c.fitLevels(c.points()); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// DeviceSpread is the scatter of a device's bias about its class (its
// clocks, power limit and memory, which no figure in its profile tells),
// relative to the scatter of one run: both about 10 %. The fit counts a
// device's runs of a phase as draws around that bias (fit.Prior.
// SharedSpread): a device measured fifty times weighs about as much as
// two measured once in the class's level, and in full in how its runs
// differ (models, depths, batches). Chosen among 0, 1, 2 and 4 by the
// held-out error with each device weighing the same (docs/accuracy.md,
// "Devices measured many times"): 1 gives the lowest decode MdAPE and
// P90 and the lowest prefill P90.
const DeviceSpread = 1

// MinDevices is the fewest devices a class's held-out error is measured
// across; with fewer, models are left out instead (within the device).
const MinDevices = 3

// MinReadDevices is the fewest devices with a measured read
// (hardware.Device.MeasuredBandwidth) a GPU class fits its decode's share
// s_R of the read from; PriorReadShare is the prior's centre for s_R (uncapped:
// a share above 1 is a decode faster than the read), its spread 1 in
// its logarithm (docs/method.md §6, "Decode with a measured read").
const (
	MinReadDevices = 3
	PriorReadShare = 0.9
)

func fitClass(k Key, cases []Case, eras bool) (*Class, error) {
	prior := fit.WeakPrior(runtimes.Prior(k.Kind).Efficiency)
	prior.SharedSpread = DeviceSpread
	units, host, kquant := false, false, false
	for _, cs := range cases {
		in := cs.Setup.Inputs
		kquant = kquant || in.UnpackShare > 0
		if k.Kind == hardware.CPU {
			// A CPU's cores each pull a share of the bandwidth; the cap
			// per core is told apart from the datasheet's share only by
			// runs on fewer cores than the chip has (Options.Threads).
			units = units || (in.Threads > 0 && in.Threads < in.Cores)
		} else {
			units = units || cs.Setup.Engine.Units > 0
		}
		host = host || in.HostPeak > 0
	}
	if !units || k.Kind == hardware.NPU {
		// Nothing measured on engines with a unit count: no cap. Nor on
		// NPUs: RKLLM's decode reaches the same share of the DRAM's
		// bandwidth on the RK3588's three cores and the RK3576's two
		// (docs/accuracy.md), where a cap per core would tell them apart.
		prior.Center.UnitBandwidth, prior.Spread[fit.PUnitBandwidth] = 0, 0
	}
	if !units || k.Kind != hardware.NPU {
		// A cap on the products per unit is fitted for NPUs alone: a
		// GPU's peak is its units' at a stated clock, which the matrix
		// efficiency already scales, where the RKNPU's rated TOPS are
		// not what its cores reach (docs/method.md §6).
		prior.Center.UnitCompute, prior.Spread[fit.PUnitCompute] = 0, 0
	}
	if k.Kind == hardware.GPU {
		// A GPU's decode streams a share s_R of the device's measured
		// read (hardware.Efficiency.ReadShare), fitted with the class
		// where three of its devices have one.
		reads := map[string]bool{}
		for _, cs := range cases {
			if cs.Setup.Device.MeasuredBandwidth > 0 {
				reads[cs.Device] = true
			}
		}
		if len(reads) >= MinReadDevices {
			prior.Center.ReadShare, prior.Spread[fit.PReadShare] = PriorReadShare, 1
		}
	}
	if kquant {
		// The class's decode kernels unpack weights one by one (K-quants
		// under runtimes.Support.KQuantUnpack, the types of
		// Support.UnpackTypes) and its runs hold such files: their
		// arithmetic's share of the peak is fitted.
		prior.Center.KQuantGEMV, prior.Spread[fit.PKQuantGEMV] = fit.PriorKQuantGEMV, 1.5
	}
	if !host {
		// The runtime runs nothing on the host CPU, or no run's device
		// has a CPU peak to price it at.
		prior.Center.HostWork, prior.Spread[fit.PHostWork] = 0, 0
	}
	if attentionShare(cases) < MinAttentionShare {
		// No run tells attention from the products: a fit would spend the
		// parameter on whatever else the runs differ in, and its quadratic
		// growth with the context would carry that far past the data.
		prior.Spread[fit.PAttention] = 0
	}
	pts := Points(cases)
	devices, modules := map[string]bool{}, map[string]bool{}
	for _, cs := range cases {
		devices[cs.Device] = true
		modules[module(cs.Setup.Device)] = true
	}
	heldOut := "device"
	if len(modules) < MinDevices {
		heldOut = "model"
		for i := range pts {
			pts[i].Group = cases[i].Setup.Model.Spec.Name
		}
	}
	c := &Class{Key: k, HeldOut: heldOut, Cases: cases, Covered: make([]bool, len(cases)), eras: make([]int, len(cases))}
	c.Devices = len(devices)
	// A family names a product line (jetson, raspberry-pi, rockchip). On a
	// GPU or NPU it shares the host that launches the kernels and the
	// clocks they run at; a CPU engine is its own host, and a family's CPU
	// boards share no core (the 2019 Jetson Nano's Cortex-A57s, the Orin's
	// A78AEs). With family levels the reference family's boards set the
	// CPU class's centre alone and a held-out board of another family is
	// priced at it (docs/method.md "Families and devices").
	c.familyLevels = heldOut == "device" && k.Kind != hardware.CPU
	// Older builds are told apart only where both they and the current
	// builds were measured on MinDevices devices: a shift between eras
	// needs devices on both sides to be told from one device's bias.
	if rt := cases[0].Setup.Runtime; eras && len(rt.Eras) > 0 {
		byEra := map[int]map[string]bool{}
		for i, cs := range cases {
			e := cs.era(k.Name())
			c.eras[i] = e
			if byEra[e] == nil {
				byEra[e] = map[string]bool{}
			}
			byEra[e][cs.Device] = true
		}
		oldest := 0
		for e := range byEra {
			oldest = max(oldest, e)
		}
		spanned := oldest > 0 && len(byEra[0]) >= MinDevices
		for e := 1; e <= oldest; e++ {
			spanned = spanned && len(byEra[e]) >= MinDevices
		}
		if spanned {
			prior.Eras = oldest
			c.Eras = rt.Eras[len(rt.Eras)-oldest:]
		} else {
			clear(c.eras)
		}
	}
	c.assignFamilies(&prior)
	for i := range pts {
		pts[i].Era, pts[i].Family = c.eras[i], c.family[i]
	}
	f, err := fit.Fit(pts, prior)
	if err != nil {
		return nil, err
	}
	c.Fit, c.Prior = f, prior
	held, err := holdOut(pts, prior)
	if err != nil {
		return nil, err
	}
	c.Held = held
	// Coverage on devices the interval did not see, and the widening
	// that brings it to the interval's level.
	lodo := make([]runtimes.Spread, len(pts))
	for i, p := range pts {
		lodo[i] = c.spread(p.Phase, p.Group, c.eras[i])
	}
	c.RawCoverage, c.Widen = calibratePhases(held, lodo, pts)
	for i, p := range pts {
		s := widen(lodo[i], c.Widen[PhaseIndex(p.Phase)])
		c.Covered[i] = held[i] >= s.Low && held[i] <= s.High
	}
	kd, kp := c.Widen[PhaseIndex(fit.Decode)], c.Widen[PhaseIndex(fit.Prefill)]
	c.Spread = widen(c.spread(fit.Decode, "", 0), kd)
	c.PrefillSpread = widen(c.spread(fit.Prefill, "", 0), kp)
	for e := len(c.Eras); e >= 1; e-- {
		c.EraSpreads = append(c.EraSpreads, [2]runtimes.Spread{widen(c.spread(fit.Decode, "", e), kd), widen(c.spread(fit.Prefill, "", e), kp)})
	}
	return c, nil
}

// PhaseIndex is the index of phase ph in a Class's per-phase figures
// (RawCoverage, Widen): 0 decode, 1 prefill.
func PhaseIndex(ph fit.Phase) int {
	if ph == fit.Prefill {
		return 1
	}
	return 0
}

// MinCalibrationGroups is the fewest groups (devices, or models where
// models are held out) a phase's held-out ratios must span for the phase
// to be calibrated on its own (calibratePhases); a phase measured on
// fewer takes at least the factor of both phases pooled.
const MinCalibrationGroups = MinDevices

// calibratePhases calibrates each phase's intervals on that phase's
// held-out ratios alone (calibrateWidth, each device weighing the same
// within the phase): a class's decode and prefill scatter differ (the
// llama.cpp cpu class's prefill misses by device what its decode does
// not), and one factor for both widened the phase that already covered
// to make up for the one that did not. It returns each phase's coverage
// as computed and its factor, indexed by PhaseIndex.
//
// The floor: a phase whose ratios span fewer than MinCalibrationGroups
// groups (or fewer than MinSpreadPoints ratios) says little about its
// own coverage (two devices both inside is a coin's worth of evidence),
// so it takes the larger of its own factor and the one calibrated on
// both phases pooled, as every phase did before; never the narrower.
func calibratePhases(held []float64, iv []runtimes.Spread, pts []fit.Point) (raw, k [2]float64) {
	pooled := calibrateWidth(held, iv, pts)
	for _, ph := range []fit.Phase{fit.Decode, fit.Prefill} {
		var h []float64
		var s []runtimes.Spread
		var p []fit.Point
		groups := map[string]bool{}
		for i, pt := range pts {
			if pt.Phase == ph {
				h, s, p = append(h, held[i]), append(s, iv[i]), append(p, pt)
				groups[pt.Group] = true
			}
		}
		j := PhaseIndex(ph)
		if len(p) == 0 {
			raw[j], k[j] = 1, pooled
			continue
		}
		raw[j], k[j] = coverage(h, s, p, 1), calibrateWidth(h, s, p)
		if len(groups) < MinCalibrationGroups || len(p) < MinSpreadPoints {
			k[j] = math.Max(k[j], pooled)
		}
	}
	return raw, k
}

// widen scales interval s by k about its centre in log, bracketing 1.
func widen(s runtimes.Spread, k float64) runtimes.Spread {
	if k == 1 || s.Low <= 0 {
		return s
	}
	lo, hi := math.Log(s.Low), math.Log(s.High)
	mid, half := (lo+hi)/2, k*(hi-lo)/2
	return runtimes.Spread{Low: math.Min(math.Exp(mid-half), 1), High: math.Max(math.Exp(mid+half), 1)}
}

// coverage is the share of held-out ratios inside their intervals
// widened by k, each device (group) weighing the same.
func coverage(held []float64, iv []runtimes.Spread, pts []fit.Point, k float64) float64 {
	n := map[string]int{}
	for _, p := range pts {
		n[p.Group]++
	}
	in, total := 0.0, 0.0
	for i, p := range pts {
		w := 1 / float64(n[p.Group])
		total += w
		if s := widen(iv[i], k); held[i] >= s.Low && held[i] <= s.High {
			in += w
		}
	}
	if total == 0 {
		return 1
	}
	return share(in, total)
}

// share is in / total kept to 1e-12. Weights of 1/n summed in floating
// point land a few ulps off their exact share (three devices of four in,
// 6, 3, 2 and 17 runs: 2.9999999999999964 / 3.9999999999999964 =
// 0.7499999999999998; four of five, 1, 1, 1, 3 and 7 runs:
// 0.7999999999999995), which a guard or the interval level at that share
// would refuse.
func share(in, total float64) float64 {
	return math.Round(in/total*1e12) / 1e12
}

// calibrateWidth is the widening of a class's intervals that makes them
// cover IntervalLevel of the held-out ratios, each device weighing the
// same, when the intervals as computed cover less (issue 28: a verdict
// "80 % sure" must rest on intervals that held 80 % on devices they did
// not see); 1 when they already do. At most 4.
func calibrateWidth(held []float64, iv []runtimes.Spread, pts []fit.Point) float64 {
	if coverage(held, iv, pts, 1) >= runtimes.IntervalLevel {
		return 1
	}
	lo, hi := 1.0, 4.0
	if coverage(held, iv, pts, hi) < runtimes.IntervalLevel {
		return hi
	}
	for hi-lo > 0.005 {
		mid := (lo + hi) / 2
		if coverage(held, iv, pts, mid) >= runtimes.IntervalLevel {
			hi = mid
		} else {
			lo = mid
		}
	}
	return math.Ceil(hi*100) / 100
}

// points are the class's fit points, each at its era and family.
func (c *Class) points() []fit.Point {
	pts := Points(c.Cases)
	for i := range pts {
		pts[i].Era, pts[i].Family = c.eras[i], c.family[i]
	}
	return pts
}

// WithoutEras is the class fitted as if every build ran alike: the
// comparison that shows what telling builds apart gains. Its Eras are
// empty; EraOf still says each case's era.
func (c *Class) WithoutEras() (*Class, error) {
	w, err := fitClass(c.Key, c.Cases, false)
	if err != nil {
		return nil, err
	}
	w.Scored = c.Scored
	copy(w.eras, c.eras)
	return w, nil
}

// EraOf is the era of the builds case i ran (0: current; see Eras).
func (c *Class) EraOf(i int) int { return c.eras[i] }

// spread is the class's 80 % interval of phase ph for the builds of era
// e, leaving out group `without`: from that era's held-out ratios where
// it has MinSpreadPoints on two groups or more, else from every era's
// (the eras shift the prediction, not, as far as the data can tell, its
// scatter).
func (c *Class) spread(ph fit.Phase, without string, e int) runtimes.Spread {
	pts := Points(c.Cases)
	if c.HeldOut == "model" {
		for i := range pts {
			pts[i].Group = c.Cases[i].Setup.Model.Spec.Name
		}
	}
	if len(c.Eras) > 0 {
		var r []float64
		var p []fit.Point
		groups := map[string]bool{}
		for i, pt := range pts {
			if c.eras[i] == e && pt.Phase == ph && pt.Group != without {
				r, p = append(r, c.Held[i]), append(p, pt)
				groups[pt.Group] = true
			}
		}
		if len(r) >= MinSpreadPoints && len(groups) >= 2 {
			return spread(r, p, ph, without)
		}
	}
	return spread(c.Held, pts, ph, without)
}

// MinSpreadPoints is the fewest held-out ratios an interval is computed
// from; with fewer, the class's interval is the prior's.
const MinSpreadPoints = 5

// spread is the 80 % interval of held-out measured/predicted of a phase,
// leaving out group `without`: the 10th–90th percentiles, widened about
// their centre (in log) for the next device being one more draw from
// the g devices seen — Student's t at g − 1 degrees of freedom instead of
// the normal quantile, times √(1 + 1/g) — and to bracket 1. With few
// devices the spread between them is poorly known, and the interval says
// so.
func spread(ratios []float64, pts []fit.Point, ph fit.Phase, without string) runtimes.Spread {
	var v []float64
	var dev []string
	groups := map[string]int{}
	for i, p := range pts {
		if p.Phase == ph && p.Group != without {
			v, dev = append(v, ratios[i]), append(dev, p.Group)
			groups[p.Group]++
		}
	}
	if len(v) < MinSpreadPoints || len(groups) < 2 {
		pr := runtimes.Prior(hardware.GPU)
		if ph == fit.Decode {
			return pr.Decode
		}
		return pr.Prefill
	}
	// Each device weighs the same, as in the fit (DeviceSpread): a device
	// its sources measured sixty times must not set the interval of the
	// next one alone.
	w := make([]float64, len(v))
	for i, d := range dev {
		w[i] = 1 / float64(groups[d])
	}
	lo, hi := math.Log(weightedQuantile(v, w, 0.10)), math.Log(weightedQuantile(v, w, 0.90))
	g := float64(len(groups))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: g - 1}.Quantile(0.90)
	k := t / distuv.UnitNormal.Quantile(0.90) * math.Sqrt(1+1/g)
	mid, half := (lo+hi)/2, k*(hi-lo)/2
	return runtimes.Spread{Low: math.Min(math.Exp(mid-half), 1), High: math.Max(math.Exp(mid+half), 1)}
}

// Stat is the held-out error of a set of cases.
type Stat struct {
	N        int
	MdAPE    float64 // median |predicted/measured − 1|... of time
	P90      float64 // 90th percentile of the same
	Bias     float64 // median measured/predicted
	Coverage float64 // share inside the 80 % interval
}

// Summarize scores held-out ratios.
func Summarize(ratios []float64, covered []bool) Stat {
	s := Stat{N: len(ratios)}
	if s.N == 0 {
		return s
	}
	ape := make([]float64, len(ratios))
	in := 0
	for i, r := range ratios {
		// APE of the predicted rate against the measured rate, as
		// compare reports it: |measured time / predicted time − 1|.
		ape[i] = math.Abs(r - 1)
		if covered[i] {
			in++
		}
	}
	s.MdAPE, s.P90, s.Bias = fit.Quantile(ape, 0.5), fit.Quantile(ape, 0.9), fit.Quantile(ratios, 0.5)
	s.Coverage = float64(in) / float64(s.N)
	return s
}

// Phase selects the held-out ratios of one phase of a class.
func (c *Class) Phase(ph measured.Test) ([]float64, []bool) {
	var r []float64
	var cov []bool
	for i, cs := range c.Cases {
		if cs.Run.Test == ph && c.Scored[i] {
			r = append(r, c.Held[i])
			cov = append(cov, c.Covered[i])
		}
	}
	return r, cov
}

// HeldOutSpread is the 80 % interval of phase ph that the class gives a
// run of the current builds on device module g held out: the interval its
// Covered was judged against (spread without g, widened by the phase's
// Widen).
func (c *Class) HeldOutSpread(ph measured.Test, g string) runtimes.Spread {
	p := fit.Prefill
	if ph == measured.Decode {
		p = fit.Decode
	}
	return widen(c.spread(p, g, 0), c.Widen[PhaseIndex(p)])
}

// Basis says in words what a class was fitted on.
func (c *Class) Basis(data string) string {
	nd, np := c.Fit.N[fit.Decode], c.Fit.N[fit.Prefill]
	s := fmt.Sprintf("fitted on %d decode and %d prefill tests on %d device", nd, np, c.Devices)
	if c.Devices != 1 {
		s += "s"
	}
	s += " (" + data + ")"
	if len(c.Eras) > 0 {
		e := c.Eras[len(c.Eras)-1]
		s += fmt.Sprintf("; %d of them ran builds after b%d and %d older builds, whose difference is fitted beside (the %s classes)", c.eraDevices(0), e.LastBuild, c.eraDevices(-1), runtimes.EraClassKey(c.Key.Name(), "…"))
	}
	if c.HeldOut == "model" {
		s += "; one device: the interval leaves one model out and says nothing of other boards"
	}
	return s
}

// eraDevices counts the devices measured on builds of era e (-1: of
// every older era).
func (c *Class) eraDevices(e int) int {
	d := map[string]bool{}
	for i, cs := range c.Cases {
		if c.eras[i] == e || (e < 0 && c.eras[i] > 0) {
			d[cs.Device] = true
		}
	}
	return len(d)
}

// Runtime returns the class's runtime class for a profile: the fitted
// efficiency with its standard errors and intervals.
func (c *Class) Runtime(data string) runtimes.Class {
	rc := runtimes.Class{Efficiency: c.Fit.Efficiency, Decode: c.Spread, Prefill: c.PrefillSpread, Fitted: true, Basis: c.Basis(data)}
	rc.SE = append([]float64(nil), c.Fit.SE[:]...)
	return rc
}

// EraClasses are the classes of the older eras the class was fitted
// across, by the key a profile files them under ("cuda@pre-2024-06"):
// the current efficiency moved by the era's fitted shift, with that
// era's intervals. Standard errors add the shift's to the current
// parameters' (their covariance is left out).
func (c *Class) EraClasses(data string) map[string]runtimes.Class {
	out := map[string]runtimes.Class{}
	n := len(c.Eras)
	for i, e := range c.Eras {
		k := n - i // era index: 1 is the newest older era
		eff := c.Fit.EfficiencyFor(k)
		sh := c.Fit.ShiftSE[k-1]
		se := append([]float64(nil), c.Fit.SE[:]...)
		add := func(p int, d float64) { se[p] = math.Hypot(se[p], d) }
		add(fit.PStepOverhead, eff.StepOverhead*sh.Overhead)
		add(fit.PPassOverhead, eff.PassOverhead*sh.Overhead)
		add(fit.PLayerOverhead, eff.LayerOverhead*sh.Overhead)
		add(fit.PBandwidth, eff.Bandwidth*(1-eff.Bandwidth)*sh.Bandwidth)
		add(fit.PUnitBandwidth, eff.UnitBandwidth*sh.Bandwidth)
		add(fit.PDequant, eff.Dequant*(1-eff.Dequant)*sh.Matmul)
		sp := c.EraSpreads[i]
		basis := fmt.Sprintf("builds up to b%d (era %s): the %s class, fitted on %d decode and %d prefill tests on %d devices (%s), %d of them on builds of this era, moved by the era's fitted difference",
			e.LastBuild, e.Name, c.Key.Name(), c.Fit.N[fit.Decode], c.Fit.N[fit.Prefill], c.Devices, data, c.eraDevices(k))
		out[runtimes.EraClassKey(c.Key.Name(), e.Name)] = runtimes.Class{Efficiency: eff, SE: se, Decode: sp[0], Prefill: sp[1], Fitted: true, Basis: basis}
	}
	return out
}

// MinAttentionShare is the share of a prefill run's FLOPs its attention
// must hold, in at least one of a class's runs, for the class to fit its
// attention efficiency; below it the efficiency stays at the prior.
// RKLLM's runs (128-token prompts on an empty cache, about 1 %) fall below;
// llama-bench's pp4096 runs (about 10 %) above.
const MinAttentionShare = 0.05

// attentionShare is the largest share of a prefill run's FLOPs that its
// attention holds, over the cases.
func attentionShare(cases []Case) float64 {
	best := 0.0
	for _, cs := range cases {
		r := cs.Run
		if r.Test != measured.Prefill {
			continue
		}
		m := cs.Setup.Model
		a := m.AttentionPrefillFLOPs(r.Depth, r.Prompt)
		p := m.Matmuls(r.Prompt, 1).FLOPs()
		best = math.Max(best, a/(a+p))
	}
	return best
}

// WithoutModel predicts the class's runs of one model by a fit that never
// saw that model on any device: the check of what the class carries from
// one model to the next, where leaving a device out cannot tell (a model
// measured on one device of the class). It returns measured / predicted
// per case of the model, by case index.
func (c *Class) WithoutModel(model string) (map[int]float64, error) {
	pts := c.points()
	var train []fit.Point
	for i := range pts {
		if c.Cases[i].Setup.Model.Spec.Name != model {
			train = append(train, pts[i])
		}
	}
	out := map[int]float64{}
	if len(train) == len(pts) {
		return out, nil
	}
	f, err := fit.Fit(train, c.Prior)
	if err != nil {
		return nil, fmt.Errorf("%s without %s: %w", c.Key, model, err)
	}
	for i, p := range pts {
		if c.Cases[i].Setup.Model.Spec.Name == model {
			out[i] = p.Measured / p.Predict(f.EfficiencyAt(p.Era, p.Family))
		}
	}
	return out, nil
}

// SummarizeByDevice scores held-out ratios with every device weighing
// the same, each of its n runs 1/n: what to expect on a device, whatever
// the number of runs its sources published. Quantiles interpolate between
// the sorted errors, each placed at the middle of its weight.
func SummarizeByDevice(ratios []float64, covered []bool, devices []string) Stat {
	n := map[string]int{}
	for _, d := range devices {
		n[d]++
	}
	w := make([]float64, len(ratios))
	for i, d := range devices {
		w[i] = 1 / float64(n[d])
	}
	return SummarizeWeighted(ratios, covered, w)
}

// SummarizeByGroup scores held-out ratios with every group of devices
// weighing the same, and within a group every device: the mission's
// boards against the rest, say, however many devices each holds.
func SummarizeByGroup(ratios []float64, covered []bool, devices []string, group func(device string) int) Stat {
	n, perGroup := map[string]int{}, map[int]map[string]bool{}
	for _, d := range devices {
		n[d]++
		g := group(d)
		if perGroup[g] == nil {
			perGroup[g] = map[string]bool{}
		}
		perGroup[g][d] = true
	}
	w := make([]float64, len(ratios))
	for i, d := range devices {
		w[i] = 1 / float64(n[d]) / float64(len(perGroup[group(d)]))
	}
	return SummarizeWeighted(ratios, covered, w)
}

// SummarizeWeighted scores held-out ratios, test i weighing w[i].
func SummarizeWeighted(ratios []float64, covered []bool, w []float64) Stat {
	s := Stat{N: len(ratios)}
	if s.N == 0 {
		return s
	}
	ape := make([]float64, len(ratios))
	in, total := 0.0, 0.0
	for i, r := range ratios {
		ape[i] = math.Abs(r - 1)
		total += w[i]
		if covered[i] {
			in += w[i]
		}
	}
	s.MdAPE, s.P90, s.Bias = weightedQuantile(ape, w, 0.5), weightedQuantile(ape, w, 0.9), weightedQuantile(ratios, w, 0.5)
	s.Coverage = share(in, total)
	return s
}

// weightedQuantile is the q-quantile of v with weights w: the sorted
// values sit at (S_i − w_i/2 − w_1/2) / (W − w_1/2 − w_n/2), S_i the
// weights up to and including value i and W their sum, and the quantile
// interpolates between them; with equal weights it is fit.Quantile.
func weightedQuantile(v, w []float64, q float64) float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	n := len(v)
	if n == 1 {
		return v[0]
	}
	total := 0.0
	for _, x := range w {
		total += x
	}
	first, last := w[idx[0]], w[idx[n-1]]
	span := total - first/2 - last/2
	s, prevPos, prevVal := 0.0, 0.0, v[idx[0]]
	for k, i := range idx {
		s += w[i]
		pos := (s - w[i]/2 - first/2) / span
		if k > 0 && pos >= q {
			if pos == prevPos {
				return v[i]
			}
			return prevVal + (v[i]-prevVal)*(q-prevPos)/(pos-prevPos)
		}
		prevPos, prevVal = pos, v[i]
	}
	return v[idx[n-1]]
}

// Exclusion is one reason the data set gives for not scoring runs, with
// each source it excludes cited once and the tests it gave.
type Exclusion struct {
	Reason  string
	Sources []ExcludedSource
}

// ExcludedSource is one source's excluded tests under one reason.
type ExcludedSource struct {
	// Source is the data set's id (a citation's first word), Where the
	// places in it ("row 133", "dgx-spark.md @4c7e9893"), each once, in
	// the order they appear; a run with no citation is its file:line.
	Source          string
	Where           []string
	Prefill, Decode int
}

// String cites the source once with its places and tests: "XD-GPUBENCH
// rows 133, 134 (4 tests: 2 prefill, 2 decode)".
func (s ExcludedSource) String() string {
	var rows, other []string
	for _, w := range s.Where {
		if n, ok := strings.CutPrefix(w, "row "); ok {
			rows = append(rows, n)
		} else {
			other = append(other, w)
		}
	}
	where := other
	switch len(rows) {
	case 0:
	case 1:
		where = append(where, "row "+rows[0])
	default:
		where = append(where, "rows "+strings.Join(rows, ", "))
	}
	text := strings.TrimSpace(s.Source + " " + strings.Join(where, ", "))
	n := s.Prefill + s.Decode
	plural := "s"
	if n == 1 {
		plural = ""
	}
	switch {
	case s.Prefill > 0 && s.Decode > 0:
		return fmt.Sprintf("%s (%d tests: %d prefill, %d decode)", text, n, s.Prefill, s.Decode)
	case s.Prefill > 0:
		return fmt.Sprintf("%s (%d prefill test%s)", text, n, plural)
	}
	return fmt.Sprintf("%s (%d decode test%s)", text, n, plural)
}

// Excluded groups the runs the data set excludes from scoring by reason,
// in the order of the reasons' text, each source cited once per reason
// in the order it first appears; excluded and scored count the runs.
func Excluded(runs []measured.Run) (out []Exclusion, excluded, scored int) {
	byReason := map[string]*Exclusion{}
	for _, r := range runs {
		if r.Exclude == "" {
			scored++
			continue
		}
		excluded++
		src, where := r.Source(), ""
		if id := strings.SplitN(r.Cited(), " ", 4); len(id) >= 3 {
			src, where = id[0], strings.Join(id[1:3], " ")
		}
		e := byReason[r.Exclude]
		if e == nil {
			e = &Exclusion{Reason: r.Exclude}
			byReason[r.Exclude] = e
		}
		i := slices.IndexFunc(e.Sources, func(s ExcludedSource) bool { return s.Source == src })
		if i < 0 {
			e.Sources = append(e.Sources, ExcludedSource{Source: src})
			i = len(e.Sources) - 1
		}
		es := &e.Sources[i]
		if where != "" && !slices.Contains(es.Where, where) {
			es.Where = append(es.Where, where)
		}
		if r.Test == measured.Prefill {
			es.Prefill++
		} else {
			es.Decode++
		}
	}
	for _, e := range byReason {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reason < out[j].Reason })
	return out, excluded, scored
}
