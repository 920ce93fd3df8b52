package app

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// Spread is how a request spreads a model over more than one device or
// memory; the zero value asks for one device, offloading to the host as
// the runtime does when the model does not fit it.
type Spread struct {
	// GPULayers is llama.cpp's -ngl (the output layer counted); set only
	// when GPULayersSet.
	GPULayers    int
	GPULayersSet bool
	CPUMoE       bool
	NCPUMoE      int
	// Host names the host device of an offload ("": the device's
	// default, hardware.Device.DefaultHost).
	Host string
	// Devices, TP and PP spread the model over devices like the one
	// named (0: not given); EP spreads whole experts over the TP devices.
	Devices, TP, PP int
	EP              bool
	// Link names the link between devices or to the host ("": the
	// system's, else defaultPeerLink); LinkRate and LinkLatency,
	// when LinkRate > 0, describe one instead.
	Link                  string
	LinkRate, LinkLatency float64
	// systemLink is set when Link is a system's own (system), not given.
	systemLink bool
	// trainBus is set on a plan's spread (busOf): an offload's PCIe link
	// runs as it trains with the card's bus, where predict refuses one
	// that would not run as given (hostLink). notBus says why a plan's
	// link that cannot be a card's bus was set aside ("": none was).
	trainBus bool
	notBus   string
	// anyBetween prices the hop between NVSwitch boards on their own
	// NVLink when no link between them is given: smallestFit asks only
	// for the memory.
	anyBetween bool
}

// any reports whether the spread asks for more than the default.
func (sp Spread) parallel() bool { return sp.Devices > 1 || sp.TP > 1 || sp.PP > 1 || sp.EP }
func (sp Spread) offload() bool  { return sp.GPULayersSet || sp.CPUMoE || sp.NCPUMoE > 0 }

// everyLayer reports whether the spread places every layer of setup s's
// model on the GPU, with no routed expert in host memory: nothing is
// offloaded (--gpu-layers 99 as users type it).
func (sp Spread) everyLayer(s *sim.Setup) bool {
	return sp.GPULayersSet && !sp.CPUMoE && sp.NCPUMoE == 0 && sim.EveryLayer(s.Model.Spec.Layers, sp.GPULayers)
}

// everyLayerAdvice is the hint for a model that does not fit its GPU with
// every layer on it, as the spread asked.
func (sp Spread) everyLayerAdvice(s *sim.Setup) string {
	return fmt.Sprintf("--gpu-layers %d places every layer on the GPU, whose memory does not hold them: a smaller --gpu-layers offloads the rest to the host (left out, llama.cpp's --fit places as many as fit)", sp.GPULayers)
}

// offloadAdvice is what would hold an offload whose memories r's
// prediction finds short ("" when every pool holds its part, or when the
// placement was llama.cpp's own): a host with more memory, or, the GPU's
// memory short, a placement keeping more of the model in host memory than
// the flags given do. predict says it as a note (or its smallest, for the
// host) and serve as its hint: one advice for one placement.
func (sp Spread) offloadAdvice(r *sim.Result) string {
	if need := hostNeed(r); need > 0 {
		return fmt.Sprintf("a host with %s of usable memory would hold its part (--host)", units.FormatBytes(need, units.Binary))
	}
	s := r.Split
	if s == nil || s.Kind != sim.Offload || r.Memory.Fits {
		return ""
	}
	var ways []string
	if sp.GPULayersSet && s.GPULayers > 0 {
		ways = append(ways, fmt.Sprintf("a --gpu-layers below %d offloads more layers to the host", s.GPULayers))
	}
	if sp.NCPUMoE > 0 && !sp.CPUMoE {
		ways = append(ways, fmt.Sprintf("a --n-cpu-moe above %d (or --cpu-moe) keeps more layers' routed experts in host memory", sp.NCPUMoE))
	}
	for _, p := range s.Pools {
		if !p.Fits && !p.Host && len(ways) > 0 {
			return fmt.Sprintf("%s is short of its part: %s (left out, llama.cpp's --fit places as many as fit)", p.Name, strings.Join(ways, ", "))
		}
	}
	return ""
}

// hostFlags names the flags given that describe an offload's host and
// link ("": none), for a note when nothing is offloaded.
func (sp Spread) hostFlags() string {
	var out []string
	if sp.Host != "" {
		out = append(out, "--host "+sp.Host)
	}
	if sp.Link != "" && !sp.systemLink {
		out = append(out, "--link "+sp.Link)
	} else if sp.LinkRate > 0 {
		out = append(out, "--link")
	}
	return strings.Join(out, " and ")
}

// unoffloaded says why setup s offloads nothing unasked (fits: the model
// fits its memory), and which flags would offload where its runtime can.
func unoffloaded(s *sim.Setup, fits bool) string {
	d := s.Device
	switch {
	case !s.Runtime.Splits(runtimes.SplitOffload):
		return s.Runtime.Name + " does not offload layers to a host"
	case fits:
		return "the model fits " + d.Name + "'s memory; --gpu-layers or --n-cpu-moe offload"
	}
	return d.Name + "'s memory is unified: it offloads only when asked; --gpu-layers or --n-cpu-moe offload"
}

// offloadInput is the offload flag the spread was given, first of
// --gpu-layers, --cpu-moe, --n-cpu-moe.
func (sp Spread) offloadInput() string {
	switch {
	case sp.GPULayersSet:
		return "GPULayers"
	case sp.CPUMoE:
		return "CPUMoE"
	}
	return "NCPUMoE"
}

// system resolves a system's name in sel: its device becomes the
// hardware, its devices and link the spread's defaults.
func (sp *Spread) system(sel *Selection) (string, bool) {
	sys, ok := hardware.LookupSystem(sel.Hardware)
	if !ok {
		return "", false
	}
	sel.Hardware = sys.Device
	if sp.Devices == 0 {
		sp.Devices = sys.Count
	}
	if sp.Link == "" && sp.LinkRate == 0 {
		sp.Link, sp.systemLink = sys.Link, sys.Link != ""
	}
	return fmt.Sprintf("%s: %s (%s)", sys.Name, sys.Description, sys.Source), true
}

// link is the link the spread names, else def ("" for none).
func (sp Spread) link(def string) (*hardware.Link, error) {
	if sp.LinkRate > 0 || sp.LinkLatency != 0 {
		// Named by its rate, as the output speaks of it ("over a 25 GB/s
		// link"), where a built-in link is named by its name.
		name := "a " + units.FormatBandwidth(sp.LinkRate) + " link"
		if sp.LinkLatency != 0 {
			name += ", " + units.FormatDuration(sp.LinkLatency) + " a transfer"
		}
		l := hardware.Link{Name: name, Kind: hardware.Custom, Description: "the link given",
			Bandwidth: sp.LinkRate, Latency: sp.LinkLatency, Sources: map[string]string{"bandwidth": "given", "latency": "given"}}
		if err := l.Validate(); err != nil {
			return nil, &RequestError{Input: "Link", Msg: err.Error()}
		}
		return &l, nil
	}
	name := sp.Link
	if name == "" {
		name = def
	}
	if name == "" {
		return nil, nil
	}
	l, err := hardware.LookupLink(name)
	if err != nil {
		return nil, &RequestError{Input: "Link", Msg: err.Error()}
	}
	return &l, nil
}

// defaultPeerLink is the link between devices like d: the NVLink of the
// board d sits on (an SXM part's NVSwitch, hardware.Device.BoardNVLink),
// else d's host link (PCIe through the host).
func defaultPeerLink(d *hardware.Device) string {
	if l := d.BoardNVLink(); l != "" {
		return l
	}
	return d.HostLink
}

// split resolves the spread of a request on setup res: nil when the model
// runs on one device as it is.
func (env *Env) split(res *resolve.Resolved, sel Selection, sp Spread, w sim.Workload, notes []string) (*sim.Split, []string, error) {
	s := res.Setup
	if sp.parallel() && sp.offload() {
		return nil, nil, &RequestError{Msg: "--gpu-layers, --cpu-moe and --n-cpu-moe place a model between one GPU and its host; they do not combine with --devices, --tp, --pp or --ep"}
	}
	if sp.parallel() {
		return env.parallel(s, sp, notes)
	}
	d := s.Device
	if sp.offload() && s.Inputs.EngineKind == hardware.CPU {
		// A CPU engine is the host: there is no GPU to place layers on
		// (llama.cpp's -ngl does nothing in a CPU build).
		what := "places layers on a GPU, the rest on its host's CPU"
		if !sp.GPULayersSet {
			what = "keeps routed experts in host memory beside a GPU that runs the rest"
		}
		return nil, nil, &RequestError{Input: sp.offloadInput(), Msg: fmt.Sprintf("%s; %s's %s engine is a CPU, which runs every layer from host memory already", what, d.Name, s.Inputs.Engine),
			Hint: "drop the flag, or choose a GPU engine with --engine (roofline show hardware " + d.Name + " lists its engines)"}
	}
	// Offloading helps only where the host's memory is another pool: a
	// device whose memory is unified offloads only when asked.
	fits := s.Memory(w.Context(), w.Batch, w.UBatch).Fits
	if !sp.offload() && (d.Unified || fits || !s.Runtime.Splits(runtimes.SplitOffload)) {
		if given := sp.hostFlags(); given != "" {
			// Said, not dropped in silence: the user asked for a host.
			notes = append(notes, fmt.Sprintf("%s not used: nothing is offloaded to the host (%s)", given, unoffloaded(s, fits)))
		}
		return nil, notes, nil
	}
	if !s.Runtime.Splits(runtimes.SplitOffload) {
		return nil, nil, &RequestError{Input: sp.offloadInput(), Msg: fmt.Sprintf("%s does not offload layers or experts to the host (runtime profile's parallel rule): choose --runtime llama.cpp", s.Runtime.Name)}
	}
	if sp.everyLayer(s) {
		// Every layer on the GPU and no expert in host memory: the plain
		// answer, as llama.cpp runs it (the token embeddings it keeps in
		// host memory are read a row a token).
		if n := sim.EveryLayerNote(s.Model.Spec.Layers, sp.GPULayers); n != "" {
			notes = append(notes, n)
		}
		if given := sp.hostFlags(); given != "" {
			notes = append(notes, fmt.Sprintf("%s not used: nothing is offloaded to the host (--gpu-layers %d places every layer on the GPU)", given, sp.GPULayers))
		}
		if !fits {
			notes = append(notes, sp.everyLayerAdvice(s))
		}
		return nil, notes, nil
	}
	host, link, hostName, why, err := env.offloadHost(s, sel, sp)
	if err != nil {
		return nil, nil, err
	}
	if host == nil {
		return nil, append(notes, why+" (--host)"), nil // no host: DOES NOT FIT as it is
	}
	n := sim.AutoLayers
	if sp.GPULayersSet {
		n = sp.GPULayers
	}
	split, err := sim.NewOffload(s, host, link, sim.OffloadOptions{GPULayers: n, CPUMoE: sp.CPUMoE, NCPUMoE: sp.NCPUMoE}, w)
	if err != nil {
		return nil, nil, err
	}
	if split == nil {
		return nil, notes, nil
	}
	notes = append(notes, fmt.Sprintf("host: %s (%s)", hostName, why))
	if sp.CPUMoE && sp.NCPUMoE > 0 {
		// llama.cpp's --cpu-moe keeps every layer's experts on the host,
		// which --n-cpu-moe's first N are among.
		notes = append(notes, fmt.Sprintf("--n-cpu-moe %d not used: --cpu-moe keeps the routed experts of every layer in host memory", sp.NCPUMoE))
	}
	if link != nil {
		notes = append(notes, linkNote(link, "to the host"))
	}
	return split, notes, nil
}

// offloadHost is the host setup s's runtime offloads to (its CPU engine,
// in sel's options), the link to it (nil for unified memory), the host's
// name and why it is the host; a nil host, with why in words, when the
// device has none and the spread does not ask to offload.
func (env *Env) offloadHost(s *sim.Setup, sel Selection, sp Spread) (*sim.Setup, *hardware.Link, string, string, error) {
	d := s.Device
	hostName, why := sp.Host, "given: --host"
	if hostName == "" {
		hostName, why = d.DefaultHost()
		if hostName != "" && !d.Unified {
			why += ": --host names another"
		}
	}
	if hostName == "" {
		if sp.offload() {
			return nil, nil, "", "", &RequestError{Input: "Host", Msg: "is needed: " + why}
		}
		return nil, nil, "", why, nil
	}
	if sp.systemLink {
		// A system's link joins its GPUs to one another, not to a host.
		sp.Link = ""
	}
	if err := env.hostDevice(d, hostName, sp); err != nil {
		return nil, nil, "", "", err
	}
	hsel := sel
	hsel.Hardware, hsel.Engine, hsel.Runtime, hsel.Weights, hsel.KV = hostName, "cpu", s.Runtime.Name, s.Model.Weights.Name, s.Model.KV.Name
	hres, err := env.Resolve(hsel)
	if err != nil {
		var ie *resolve.InputError
		if errors.As(err, &ie) {
			err = ie.Err // the host's, not the request's, hardware or weights
		}
		return nil, nil, "", "", &RequestError{Input: "Host", Msg: hostName + ": " + err.Error()}
	}
	if d.Unified && hres.Setup.Device.Module() != d.Module() {
		// The layers a unified-memory device offloads stay in its memory
		// and run on its own CPU: another machine's CPU would read them
		// over a link no profile of the device gives.
		return nil, nil, "", "", &RequestError{Input: "Host", Msg: fmt.Sprintf("%s: %s's memory is unified, so the layers it offloads stay in it and run on its own CPU, not on another device's", hostName, d.Name),
			Hint: "leave --host out (or give --host " + d.Name + ")"}
	}
	if d.Unified && hostName == d.Name {
		why = "the device's own CPU, from the same unified memory"
	}
	var link *hardware.Link
	if !d.Unified {
		if link, err = sp.link(d.HostLink); err != nil {
			return nil, nil, "", "", err
		}
		if link == nil {
			return nil, nil, "", "", &RequestError{Input: "Link", Msg: fmt.Sprintf("is needed: %s's profile gives no host_link (e.g. --link pcie4-x16)", d.Name)}
		}
		if sp.trainBus {
			link = trained(d, link) // a plan's link, as the slot runs it
		}
		if err := hostLink(d, link); err != nil {
			return nil, nil, "", "", err
		}
	} else if given := (Spread{Link: sp.Link, LinkRate: sp.LinkRate}).hostFlags(); given != "" {
		// Said, not dropped in silence: no link is crossed.
		why += fmt.Sprintf("; %s not used: nothing crosses a link to it", given)
	}
	return hres.Setup, link, hostName, why, nil
}

// hostDevice checks that the device named hostName can be discrete
// device d's host: a computer with a CPU engine, whose slot the link
// describes. A unified device is its own host (offloadHost).
func (env *Env) hostDevice(d *hardware.Device, hostName string, sp Spread) error {
	if d.Unified {
		return nil
	}
	hd, err := env.Catalog.Device(hostName)
	if err != nil {
		return &RequestError{Input: "Host", Msg: hostName + ": " + err.Error(), Hint: "roofline list hardware names the devices; desktop-ddr5 is a desktop host"}
	}
	if hd.NoGPUHost {
		// Said before its engines: a Mac with Apple silicon takes no
		// eGPU, whatever --link describes.
		return &RequestError{Input: "Host", Msg: fmt.Sprintf("%s: its profile says no discrete GPU such as %s can be joined to it, in a slot or as an eGPU (discrete_gpu_host = false: %s)", hostName, d.Name, hd.Sources["discrete_gpu_host"]),
			Hint: "leave --host out (a desktop host: desktop-ddr5), or run the model on " + hostName + " itself with --hardware " + hostName}
	}
	var engines []string
	for _, e := range hd.Engines {
		if e.Kind == hardware.CPU {
			engines = nil
			break
		}
		engines = append(engines, string(e.Kind))
	}
	if engines != nil {
		return &RequestError{Input: "Host", Msg: fmt.Sprintf("%s: has no CPU engine (engines: %s), so it cannot be the computer %s sits in, whose CPU runs the layers %s does not hold", hostName, strings.Join(engines, ", "), d.Name, d.Name),
			Hint: "leave --host out, or name a computer with a CPU engine such as desktop-ddr5"}
	}
	if hd.Family != "cpu" && sp.Link == "" && sp.LinkRate == 0 {
		// A board or a laptop is not a generic host: its profile gives no
		// slot, and d's own bus is what the link would default to. A
		// plan's link set aside is said, not taken for none given.
		notBus := ""
		if sp.notBus != "" {
			notBus = "; " + sp.notBus
		}
		return &RequestError{Input: "Host", Msg: fmt.Sprintf("%s: a %s device, not a desktop or server host (family cpu); its profile gives no slot for %s, so the link to it cannot default to %s's own bus (%s)", hostName, hd.Family, d.Name, d.Name, d.HostLink),
			Hint: "give the link of the slot " + d.Name + " sits in with --link (a PCIe link such as pcie4-x4, or a rate such as 2GB/s" + notBus + "), or leave --host out"}
	}
	return nil
}

// busOf is the spread a plan offloads d's layers with: a plan's --link
// joins its devices to one another (boards on a network, GPUs on
// NVLink), and a card it cannot be the bus of offloads over its own
// (host_link); a PCIe link runs as it trains with the card's own bus
// (Spread.trainBus, offloadHost).
func (sp Spread) busOf(d *hardware.Device) Spread {
	l, err := sp.link("")
	if err != nil || l == nil || d.Unified {
		return sp
	}
	switch l.Kind {
	case hardware.PCIe:
		sp.trainBus = true
	case hardware.Custom:
	case hardware.NVLink:
		sp.Link, sp.systemLink, sp.notBus = "", false, "--link "+l.Name+" joins GPUs to one another, not that slot"
	default:
		sp.Link, sp.systemLink, sp.notBus = "", false, "--link "+l.Name+" is a network between computers, not that slot"
	}
	return sp
}

// trained is link as it runs in discrete device d's bus (hardware.Link.
// TrainedWith; link itself where d's profile gives no bus).
func trained(d *hardware.Device, link *hardware.Link) *hardware.Link {
	bus, err := hardware.LookupLink(d.HostLink)
	if err != nil {
		return link
	}
	t := link.TrainedWith(&bus)
	return &t
}

// hostLink checks that link can join discrete device d to its host: a
// PCIe link that trains to itself in d's bus (no faster than it by
// generation or width), or a rate given.
func hostLink(d *hardware.Device, link *hardware.Link) error {
	hint := "leave --link out, or give a PCIe link or the rate the slot reaches, such as 12GB/s"
	if d.HostLink != "" {
		hint = fmt.Sprintf("leave --link out (%s's bus: %s), or give a slower PCIe link or the rate the slot reaches, such as 12GB/s", d.Name, d.HostLink)
	}
	switch link.Kind {
	case hardware.PCIe:
	case hardware.Custom:
		return nil
	case hardware.NVLink:
		return &RequestError{Input: "Link", Msg: fmt.Sprintf("%s: joins GPUs to one another, not %s to its host's memory and CPU", link.Name, d.Name), Hint: hint}
	default:
		return &RequestError{Input: "Link", Msg: fmt.Sprintf("%s: a network between computers, not the bus between %s and the host it sits in (boards over a network: --devices)", link.Name, d.Name), Hint: hint}
	}
	bus, err := hardware.LookupLink(d.HostLink)
	if err != nil {
		return nil // the profile gives no bus to train with
	}
	t := link.TrainedWith(&bus)
	if t.Name == link.Name {
		return nil
	}
	// Said with what it runs as: a slot of another generation or width
	// need not be faster (PCIe 3.0 x16 on a PCIe 4.0 x8 card: 15.75 GB/s
	// by the bus each, 7.88 as trained).
	if _, err := hardware.LookupLink(t.Name); t.Name == bus.Name {
		hint = fmt.Sprintf("leave --link out: in that slot %s runs on its own bus, %s", d.Name, bus.Name)
	} else if err == nil {
		hint = fmt.Sprintf("give --link %s, the link it runs as", t.Name)
	} else {
		hint = fmt.Sprintf("give the rate it runs at: --link %.3gGB/s --link-latency %.3gus (%d/16 of PCIe %d.0 x16's measured rate)", t.Rate()/1e9, t.Latency*1e6, t.Lanes, t.Gen)
	}
	return &RequestError{Input: "Link", Msg: fmt.Sprintf("%s: %s's bus is %s, and a PCIe link trains to the generation and width both its ends support: %s runs as %s (%s reached)", link.Name, d.Name, bus.Description, link.Name, t.Description, units.FormatBandwidth(t.Rate())), Hint: hint}
}

// ErrCount is what the error of a device count the runtime's mode does
// not split wraps (parallel): plan leaves that count of that device out
// (planSpread), and fails on any other error.
var ErrCount = errors.New("the runtime's mode does not split this count of devices")

// newParallel is sim.NewParallel, a variable so that a test can count
// the splits parallel builds.
var newParallel = sim.NewParallel

// parallel spreads the model over devices like s's.
func (env *Env) parallel(s *sim.Setup, sp Spread, notes []string) (*sim.Split, []string, error) {
	rt := s.Runtime
	n := sp.Devices
	tp, pp := sp.TP, sp.PP
	switch {
	case n < 0 || tp < 0 || pp < 0:
		return nil, nil, &RequestError{Input: "Devices", Msg: "counts must be positive", Err: ErrCount}
	case n == 0:
		n = max(tp, 1) * max(pp, 1)
	}
	if sp.Host != "" {
		// Said, not dropped in silence: devices like s's hold every layer.
		notes = append(notes, fmt.Sprintf("--host %s not used: --devices, --tp and --pp spread the model over devices like %s, which hold every layer; --host names where --gpu-layers offloads them", sp.Host, s.Device.Name))
	}
	def := defaultPeerLink(s.Device)
	link, err := sp.link(def)
	if err != nil {
		return nil, nil, err
	}
	if link == nil {
		return nil, nil, &RequestError{Input: "Link", Msg: fmt.Sprintf("is needed: %s has no link to its peers in its profile (e.g. --link 1gbe for boards on gigabit Ethernet)", s.Device.Name)}
	}
	network := overEthernet(s.Device, link)
	spans := env.Catalog.Runtimes().SpanMachines(s.Device, s.Engine)
	if network && rt.Splits(runtimes.SplitNetworkTensor) {
		if pp > 1 || (tp > 0 && tp != n) {
			return nil, nil, &RequestError{Input: "Devices", Msg: fmt.Sprintf("%s splits every layer over all %d machines: --tp is the device count and --pp is 1", rt.Name, n), Err: ErrCount}
		}
		split, err := sim.NewNetworkTensor(s, link, n)
		if err != nil {
			return nil, nil, err
		}
		return split, append(notes, linkNote(link, "between the machines")), nil
	}
	// A mode the runtime does not split in at all, named by its flag, is
	// said before where the devices sit: --tp 16 under llama.cpp is --tp's
	// refusal, not one of the 16 devices --tp implies.
	if err := (sim.ParallelOptions{TP: tp, PP: pp, EP: sp.EP}).RuntimeSplits(rt); err != nil {
		return nil, nil, err
	}
	if network && rt.Splits(runtimes.SplitRPC) && tp <= 1 && !onBoard(s.Device, n) {
		// Devices that one NVSwitch board holds run in one process over
		// its NVLink, the network unused (groups says so), as under a
		// runtime that splits every layer.
		if err := rpcBoards(rt, s.Device, link, sp, n, spans); err != nil {
			return nil, nil, err
		}
		split, err := sim.NewNetwork(s, link, n)
		if err != nil {
			return nil, nil, err
		}
		return split, append(notes, linkNote(link, "between the boards")), nil
	}
	if err := oneMachine(rt, s.Device, link, sp, n, spans); err != nil {
		return nil, nil, err
	}
	given := link
	link, between, groupNotes, missing := groups(s.Device, given, sp, n, sp.TP)
	var split *sim.Split // the groups' split, when the search built it
	switch {
	case tp == 0 && pp == 0 && rt.Splits(runtimes.SplitTensor):
		// Every layer over the devices the link joins, the groups in a
		// pipeline: 16 H100s are two HGX boards of 8 on NVLink.
		tp = tensorGroup(s.Device, link, n)
		pp = n / tp
		for g := tp; g >= 1 && tp < n; g-- {
			// Groups in a pipeline: the largest the model splits evenly
			// (12 H100s: tp 4 × pp 3, as 64 heads do not split 6 ways).
			if n%g != 0 {
				continue
			}
			if sg, err := newParallel(s, link, sim.ParallelOptions{TP: g, PP: n / g, EP: sp.EP, Between: between}); err == nil {
				tp, pp, split = g, n/g, sg
				break
			}
		}
	case tp == 0 && pp == 0:
		tp, pp = 1, n
	case tp == 0:
		tp = max(1, n/pp)
	case pp == 0:
		pp = max(1, n/tp)
	}
	if tp != sp.TP {
		// The groups hold whole tensor-parallel groups of the size chosen.
		_, _, groupNotes, missing = groups(s.Device, given, sp, n, tp)
	}
	if sp.anyBetween {
		missing = nil // the memory alone is asked
	}
	// A group larger than the link joins before a count that does not
	// match: no --devices mends it, and the count's hint would lead to it.
	if err := peerLink(s.Device, link, sp, tp, pp); err != nil {
		return nil, nil, err
	}
	if tp*pp != n {
		return nil, nil, &RequestError{Input: "Devices", Msg: fmt.Sprintf("%d: --tp %d × --pp %d runs on %d devices", n, tp, pp, tp*pp),
			Hint: fmt.Sprintf("give --devices %d, or a --tp and --pp whose product is %d", tp*pp, n), Err: ErrCount}
	}
	if split != nil && missing != nil {
		return nil, nil, missing // said once the counts hold: their errors come first
	}
	if split != nil {
		return split, append(append(notes, linkNote(link, "between the devices")), groupNotes...), nil
	}
	split, err = newParallel(s, link, sim.ParallelOptions{TP: tp, PP: pp, EP: sp.EP, Between: between})
	var fe *sim.FieldError
	if errors.As(err, &fe) && (fe.Field == "PP" && sp.PP == 0 || fe.Field == "TP" && sp.TP == 0) {
		// The count came from --devices, not --pp or --tp: say so.
		return nil, nil, &RequestError{Input: "Devices", Msg: fmt.Sprintf("%d: %s runs them as --tp %d × --pp %d; --%s %s", n, rt.Name, tp, pp, strings.ToLower(fe.Field), fe.Msg), Err: ErrCount}
	}
	if err != nil {
		return nil, nil, err
	}
	if missing != nil {
		return nil, nil, missing
	}
	return split, append(append(notes, linkNote(link, "between the devices")), groupNotes...), nil
}

// tensorGroup is the tensor-parallel group n devices like d form over
// link: all n, or where d's own NVLink joins fewer, the most of them it
// joins that divide n.
func tensorGroup(d *hardware.Device, link *hardware.Link, n int) int {
	if link.Kind != hardware.NVLink || link.Devices == 0 || n <= link.Devices || d.NVLink != link.Name {
		return n
	}
	g := link.Devices
	for n%g != 0 {
		g--
	}
	return g
}

// peerLink refuses a link devices like d cannot be joined by, tp of them
// splitting every layer in each of pp stages (hardware.Device.JoinsPeers):
// an NVLink d does not have, or one joining fewer devices than the
// tensor-parallel group. A link the user gave is --link's error; the
// devices' own, for a larger group than it joins, is --tp's (or --pp's).
func peerLink(d *hardware.Device, link *hardware.Link, sp Spread, tp, pp int) error {
	err := d.JoinsPeers(link, tp)
	var pe *hardware.PeerLinkError
	if !errors.As(err, &pe) {
		return err
	}
	bus := "PCIe through the host"
	if d.HostLink != "" {
		bus = d.HostLink + " through the host"
	}
	re := &RequestError{Input: "Link", Msg: pe.Error(), Err: err}
	more := "with --pp for more devices"
	switch {
	case pe.Joins > 0 && (sp.Link == "" || sp.systemLink):
		// The link is the devices' own, not given: the group is the
		// flag's error (--tp, else the --pp that left it).
		re.Input, re.Msg = "TP", fmt.Sprintf("%d: the devices' link, %s", tp, pe.Error())
		if sp.TP == 0 {
			re.Input, re.Msg = "PP", fmt.Sprintf("%d leaves %d devices in each stage: the devices' link, %s", pp, tp, pe.Error())
		}
		re.Hint = fmt.Sprintf("--tp %d (%s), or name a link that joins %d with --link (such as %s, or a rate)", pe.Joins, more, tp, d.HostLink)
	case pe.Joins > 0:
		re.Hint = fmt.Sprintf("--tp %d (%s), or a link that joins %d devices, such as %s", pe.Joins, more, tp, d.HostLink)
	case pe.Has != "":
		re.Hint = fmt.Sprintf("give --link %s (%s's own), or leave --link out", pe.Has, d.Name)
	default:
		re.Hint = fmt.Sprintf("leave --link out (%s's peers: %s), or give a PCIe link, a network such as 10gbe, or a rate such as 25GB/s", d.Name, bus)
	}
	return re
}

func linkNote(l *hardware.Link, where string) string {
	rate := units.FormatBandwidth(l.Rate())
	if l.Measured > 0 {
		rate += " measured (" + units.FormatBandwidth(l.Bandwidth) + " datasheet)"
	}
	return fmt.Sprintf("link %s: %s, %s, %s a transfer", where, l.Description, rate, units.FormatDuration(l.Latency))
}

// BoardLink is the link a DOES NOT FIT answer assumes between devices
// whose profile names none (single-board computers): Gigabit Ethernet,
// the port every such board has.
const BoardLink = "1gbe"

// smallestFit finds the fewest devices like s's that hold its model for
// workload w, each count spread as predict's --devices N spreads it over
// the link sp names (else the devices' peer link, else BoardLink) in the
// runtime's multi-device mode, for a DOES NOT FIT answer: the count, the
// flags that ask for it and the split they make, 0 when no count up to
// limits.Devices does.
func (env *Env) smallestFit(s *sim.Setup, sp Spread, w sim.Workload) (int, string, *sim.Split) {
	sp.TP, sp.PP, sp.EP = 0, 0, false
	sp.GPULayers, sp.GPULayersSet, sp.CPUMoE, sp.NCPUMoE = 0, false, false, 0
	sp.anyBetween = true
	linkFlag := ""
	if sp.Link == "" && sp.LinkRate == 0 && defaultPeerLink(s.Device) == "" {
		sp.Link = BoardLink
	}
	if sp.Link != "" && sp.Link != defaultPeerLink(s.Device) {
		linkFlag = " --link " + sp.Link
	}
	holds := func(n int) (bool, string, *sim.Split) {
		sp.Devices = n
		split, _, err := env.parallel(s, sp, nil)
		if err != nil || !fitsAll(split.Memory(w.Context(), w.Batch, w.UBatch)) {
			return false, "", nil // a count the runtime's mode does not take, or too few
		}
		if split.Kind == sim.Parallel && split.PP > 1 && split.Link != nil && split.Link.Devices > split.TP && s.Runtime.Splits(runtimes.SplitTensor) {
			// Stages of partly filled link groups (22 H100s as tp 2 ×
			// pp 11 beside HGX boards of 8): the answer counts whole
			// groups, as devices are bought and joined (24: tp 8 × pp 3).
			// A runtime that splits no layer has no group to fill: its
			// stages are single devices (llama.cpp: --pp 2).
			return false, "", nil
		}
		flags := fmt.Sprintf("--devices %d", n)
		if split.Kind == sim.Parallel && split.TP > 1 {
			flags += fmt.Sprintf(" --tp %d", split.TP)
		}
		if split.Kind == sim.Parallel && split.PP > 1 {
			flags += fmt.Sprintf(" --pp %d", split.PP)
		}
		if split.Between == split.Link && split.Between != nil {
			// Boards with no network given between them (groups).
			return true, flags + " --link RATE (the boards' network)", split
		}
		return true, flags + linkFlag, split
	}
	// Each device's part shrinks as devices are added: the first power of
	// two that holds the model bounds the count, and the counts between
	// the power before it and it are tried in turn.
	lo := 1
	for hi := 2; hi <= limits.Devices; hi *= 2 {
		if ok, flags, split := holds(hi); ok {
			for n := lo + 1; n < hi; n++ {
				if ok, f, sp := holds(n); ok {
					return n, f, sp
				}
			}
			return hi, flags, split
		}
		lo = hi
	}
	return 0, "", nil
}

// peerless says why devices like d cannot be joined by the link sp
// names, whatever their count ("" when they can): an NVLink d lacks. A
// DOES NOT FIT answer says it where smallestFit finds no count.
func peerless(d *hardware.Device, sp Spread) string {
	l, err := sp.link(defaultPeerLink(d))
	if err != nil || l == nil {
		return ""
	}
	if err := d.JoinsPeers(l, 1); err != nil {
		return "--link " + err.Error()
	}
	return ""
}

func fitsAll(pools []sim.PoolUse) bool {
	for _, p := range pools {
		if !p.Fits {
			return false
		}
	}
	return true
}

// hostNeed is how much usable memory a host would need to hold an
// offload's host part (0 when it fits).
func hostNeed(r *sim.Result) float64 {
	if r.Split == nil {
		return 0
	}
	need := 0.0
	for _, p := range r.Split.Pools {
		if p.Host && !p.Fits {
			need = math.Max(need, p.Total)
		}
	}
	return need
}
