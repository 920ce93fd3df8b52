package hardware

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Link is a connection between two memories or two devices: the PCIe
// bus between a discrete GPU and its host, NVLink between GPUs, a network
// between boards. Bandwidth is per direction, the bus or line rate after
// its encoding (a datasheet figure); Measured is what transfers reach on
// it where a measurement is published (0: none, the datasheet rate is
// used); Latency is the cost of one synchronised transfer, or one step of
// a collective, whatever its size.
type Link struct {
	Name        string
	Kind        LinkKind
	Description string
	Bandwidth   float64 // B/s per direction, datasheet
	Measured    float64 // B/s per direction, measured; 0 when none is published
	Latency     float64 // s per transfer
	// Gen and Lanes are a PCIe link's generation and width (0 for other
	// kinds): a link trains to the highest generation and the widest
	// width both of its ends support (PCI Express Base Specification,
	// link training), so a card runs no faster than its own bus.
	Gen, Lanes int
	// Devices is the most devices an NVLink joins (the GPUs of an HGX
	// board on its NVSwitches, the two cards of a bridge); 0 for a link
	// that joins any number (PCIe through the host, a network).
	Devices int
	// Apart is how the groups of Devices an NVLink joins meet one another
	// when there are more of them (Groups): ApartHost for a bridge between
	// cards in one computer, ApartNetwork for an NVSwitch board that is a
	// computer of its own; "" for a link that joins any number.
	Apart Apart
	// Network is the built-in link an NVLink's boards (ApartNetwork) meet
	// over when none is given: the network adapter per GPU NVIDIA's DGX of
	// that board ships with ("" for none). It is the cluster's, not the
	// board's, so a split that takes it says so (GroupLink).
	Network string
	// Sources says where each figure comes from: "bandwidth", "measured",
	// "latency", "devices", "apart", "network".
	Sources map[string]string
}

// Apart is where the groups an NVLink joins meet (Link.Apart).
type Apart string

// How an NVLink's groups meet.
const (
	// ApartHost: cards bridged in pairs in one computer; the pairs
	// exchange over their PCIe bus through the host (the device's
	// host_link).
	ApartHost Apart = "host"
	// ApartNetwork: the GPUs of an NVSwitch board (HGX); boards are
	// computers of their own and meet over the nodes' network: by default
	// the InfiniBand adapter per GPU of the board's DGX (Link.Network).
	ApartNetwork Apart = "network"
)

// LinkKind is the class of a link.
type LinkKind string

// Link kinds.
const (
	PCIe        LinkKind = "pcie"
	NVLink      LinkKind = "nvlink"
	Ethernet    LinkKind = "ethernet"
	Thunderbolt LinkKind = "thunderbolt"
	// InfiniBand is a network adapter per GPU between the boards of a
	// cluster (NVIDIA ConnectX, GPUDirect RDMA).
	InfiniBand LinkKind = "infiniband"
	// Custom is a link a user describes by its rate and latency.
	Custom LinkKind = "custom"
)

// Rate is what transfers reach on the link: the measured rate where one
// is published, else the datasheet's.
func (l *Link) Rate() float64 {
	if l.Measured > 0 {
		return l.Measured
	}
	return l.Bandwidth
}

// Transfer is the time to send b bytes over the link at rate r (Rate or
// Bandwidth) in one synchronised transfer.
func (l *Link) Transfer(b, r float64) float64 { return l.Latency + b/r }

// AllReduce is a ring all-reduce of b bytes over n devices at rate r:
// each device sends and receives 2(n−1)/n of the bytes, in 2(n−1) steps
// of one latency each (NCCL's ring; docs/method.md §11). 0 for one device.
func (l *Link) AllReduce(b float64, n int, r float64) float64 {
	if n <= 1 {
		return 0
	}
	k := float64(n - 1)
	return 2*k/float64(n)*b/r + 2*k*l.Latency
}

// AllToAll is an all-to-all of b bytes held by each of n devices at rate
// r: each sends (n−1)/n of them, one message to each peer. 0 for one
// device.
func (l *Link) AllToAll(b float64, n int, r float64) float64 {
	if n <= 1 {
		return 0
	}
	k := float64(n - 1)
	return k/float64(n)*b/r + k*l.Latency
}

// Validate checks that the rates are positive and finite and the latency
// finite and not negative.
func (l *Link) Validate() error {
	var errs []error
	if !(l.Bandwidth > 0) || math.IsInf(l.Bandwidth, 0) {
		errs = append(errs, fmt.Errorf("link %s: bandwidth must be a positive rate, got %g B/s", l.Name, l.Bandwidth))
	}
	if l.Measured < 0 || math.IsNaN(l.Measured) || math.IsInf(l.Measured, 0) || l.Measured > l.Bandwidth*1.05 {
		errs = append(errs, fmt.Errorf("link %s: the measured rate must be positive and not above the datasheet's, got %g B/s", l.Name, l.Measured))
	}
	if !(l.Latency >= 0) || math.IsInf(l.Latency, 0) {
		errs = append(errs, fmt.Errorf("link %s: latency must be a finite, non-negative duration, got %g s", l.Name, l.Latency))
	}
	return errors.Join(errs...)
}

// Sources of the built-in links, cited in Links.
const (
	srcPCIeMeasured = "[S] ZaidQureshi/bam issue #54 (msharmavikram, the BaM authors): an A100 reaches 25 GB/s of its PCIe 4.0 x16 and a V100 12 GB/s of its PCIe 3.0 x16, measured peaks (command processing and packet overheads)"
	srcPCIeLatency  = "[S] kekzl/imp pull request #1357: a device-to-host copy of 8 KiB and a synchronise take a median 45.4 µs, a copy each way 86.2 µs (300 repetitions on an idle GPU, the same from 8 KiB to 1 MiB): 43 µs per synchronised transfer"
	srcNVLinkShare  = "[S] NVIDIA/nccl-tests issue #212 (sjeaugey, NCCL): \"450GB/s is the line rate. With the protocol overhead (~20%) NCCL can get an effective NVLink bandwidth of 370GB/s\" on an H100"
	srcNVLinkStep   = "[S] NVIDIA/nccl issue #1259: a small all-reduce over two H100s of an HGX node takes about 6 µs, two ring steps: 3 µs a step"
	srcEthLatency   = "[S] geerlingguy/raspberry-pi-pcie-devices issue #337: hping round trips of 0.1 ms minimum and 0.5 ms average between a Compute Module 4 board and a Mac on a gigabit LAN: half the average, 0.25 ms a message"
	srcHGXA100      = "[V] NVIDIA A100 Tensor Core GPU datasheet: HGX A100 8-GPU with NVSwitch; GPUs of two boards meet over the nodes' network (Link.Network: ib-hdr unless another is given)"
	srcBridgeApart  = "[V] NVIDIA RTX A6000 and A40 datasheets: the NVLink bridge connects two GPUs; any other card in the computer exchanges with them over PCIe (peers through the host: the workstation-4x-rtx-4090 system)"
	srcBoardApart   = "[V] NVIDIA DGX H100 datasheet: the 8 GPUs of a system share its NVSwitches, and systems connect over their network adapters (8x ConnectX-7): the network link (Link.Network) unless another is given"
	// The InfiniBand adapters of NVIDIA's DGX systems, one per GPU.
	srcDGXHopperNet = "[V] NVIDIA DGX BasePOD reference architecture, Core Components (docs.nvidia.com/dgx-basepod): DGX H200 and H100: \"Four OSFP ports serving eight single-port NVIDIA ConnectX-7 VPI ... up to 400 Gb/s InfiniBand/Ethernet\", the compute fabric: one 400 Gb/s adapter per GPU"
	srcDGXB200Net   = "[V] NVIDIA DGX BasePOD reference architecture, Core Components: DGX B200: \"4x OSFP ports serving 8x single-port NVIDIA ConnectX-7 VPI, up to 400Gb/s InfiniBand/Ethernet\", the compute fabric: one 400 Gb/s adapter per GPU (ConnectX-8 at 800 Gb/s is not what a DGX B200 ships with)"
	srcA100Net      = "[V] NVIDIA's MLPerf Inference submission documentation, \"DGX-A100 System Architecture\" (mlcommons inference_results, closed/NVIDIA, after the DGX A100 system architecture white paper): \"Each pair of A100 GPUs in the system is connected to a PCIe-Gen4 bridge, which is also connected to two Mellanox CX6 NICs\", one ConnectX-6 per GPU; the DGX A100 datasheet's networking row, \"8x Single-Port Mellanox ConnectX-6 VPI 200Gb/s HDR InfiniBand\" (read as transcribed, with a link to nvidia.com/en-us/data-center/dgx-a100, by GMU ORC's DGX A100 documentation: the datasheet itself is not in the stored copies)"
	srcNDRMeasured  = "[S] NVIDIA/nccl-tests issue #290 (AddyLaddy, NVIDIA): \"For NDR @ 400Gbps you should see 46-48GB/s per NIC\": 47 GB/s, the middle"
	srcIBLatency    = "[A] 12 µs a transfer, from NCCL's own tuning model (src/graph/tuning.cc as quoted in NVIDIA/nccl issue #1334): a base latency of 6.6–6.8 µs (LL protocol) plus 5.0 µs a step over the network (tree, LL); a model's figure, not a measurement of a GPU-to-GPU send across boards"
	srcTBLatency    = "[S] anthony-chaudhary/fak issue #12596: clustering Macs over TCP/IP costs 250-350 µs of synchronisation per exchange (RDMA over Thunderbolt 5, macOS 26.2, under 50 µs): 300 µs a message over IP"
)

// pcie is a PCIe link of `lanes` lanes at gen's transfer rate, 128b/130b
// encoded (generations 3 to 5).
func pcie(gen, lanes int, measured float64, measuredSrc string) Link {
	gt := map[int]float64{3: 8e9, 4: 16e9, 5: 32e9}[gen]
	bw := gt * 128 / 130 * float64(lanes) / 8
	name := fmt.Sprintf("pcie%d-x%d", gen, lanes)
	return Link{Name: name, Kind: PCIe, Description: fmt.Sprintf("PCI Express %d.0 x%d", gen, lanes),
		Bandwidth: bw, Measured: measured, Latency: 43e-6, Gen: gen, Lanes: lanes,
		Sources: map[string]string{
			"bandwidth": fmt.Sprintf("[D] %.0f GT/s × 128/130 × %d lanes / 8 = %.2f GB/s per direction (PCI Express Base Specification)", gt/1e9, lanes, bw/1e9),
			"measured":  measuredSrc,
			"latency":   srcPCIeLatency,
		}}
}

// TrainedWith is the link PCIe link l (a slot) runs as with a card whose
// own bus is bus: a link trains to the highest generation and the widest
// width both of its ends support (PCI Express Base Specification, link
// training). The built-in link of that generation and width where there
// is one, else one whose measured rate is its generation's x16 link's in
// proportion to its lanes, as the built-in x4 and x8 links take theirs;
// l itself where it or bus is not a PCIe link of a known generation.
func (l *Link) TrainedWith(bus *Link) Link {
	if l.Kind != PCIe || bus.Kind != PCIe || l.Gen == 0 || bus.Gen == 0 {
		return *l
	}
	gen, lanes := min(l.Gen, bus.Gen), min(l.Lanes, bus.Lanes)
	if gen == l.Gen && lanes == l.Lanes {
		return *l
	}
	if t, err := LookupLink(fmt.Sprintf("pcie%d-x%d", gen, lanes)); err == nil {
		return t
	}
	x16, err := LookupLink(fmt.Sprintf("pcie%d-x16", gen))
	if err != nil {
		return *l
	}
	return pcie(gen, lanes, x16.Measured*float64(lanes)/16,
		fmt.Sprintf("[D] %d/16 of PCIe %d.0 x16's measured %.3g GB/s: %s", lanes, gen, x16.Measured/1e9, x16.Sources["measured"]))
}

// nvlinkAtNCCLShare is an NVLink measured by no one, at bandwidth bw
// per direction: NCCL's share of NVLink 4 (370 of 450 GB/s) of it, and
// NVLink 4's step latency; it joins at most devices GPUs.
func nvlinkAtNCCLShare(name, description string, bw float64, devices int, apart Apart, bwSrc, devicesSrc string) Link {
	apartSrc := srcBoardApart
	if apart == ApartHost {
		apartSrc = srcBridgeApart
	}
	return Link{Name: name, Kind: NVLink, Description: description, Bandwidth: bw, Measured: bw * 370 / 450, Latency: 3e-6, Devices: devices, Apart: apart,
		Sources: map[string]string{"apart": apartSrc, "bandwidth": bwSrc,
			"measured": "[D] the share NCCL reaches on NVLink 4 (370 of 450 GB/s): " + srcNVLinkShare, "latency": "[D] as NVLink 4: " + srcNVLinkStep, "devices": devicesSrc}}
}

// withNetwork is NVLink l whose boards meet over the built-in link named
// network unless another is given (Link.Network), src its source.
func withNetwork(l Link, network, src string) Link {
	l.Network = network
	l.Sources["network"] = src
	return l
}

// infiniband is an InfiniBand adapter per GPU of bandwidth bw per
// direction, measured reaching measured, at the latency NCCL's model gives
// a transfer over the network (srcIBLatency).
func infiniband(name, description string, bw, measured float64, bwSrc, measuredSrc string) Link {
	return Link{Name: name, Kind: InfiniBand, Description: description, Bandwidth: bw, Measured: measured, Latency: 12e-6,
		Sources: map[string]string{"bandwidth": bwSrc, "measured": measuredSrc, "latency": srcIBLatency}}
}

// Links are the built-in links, by name (--link, a device's host_link).
var Links = []Link{
	pcie(3, 16, 12e9, srcPCIeMeasured),
	pcie(4, 4, 25e9/4, "[D] a quarter of PCIe 4.0 x16's measured 25 GB/s: "+srcPCIeMeasured),
	pcie(4, 8, 25e9/2, "[D] half of PCIe 4.0 x16's measured 25 GB/s: "+srcPCIeMeasured),
	pcie(4, 16, 25e9, srcPCIeMeasured),
	pcie(5, 16, 50e9, "[D] twice PCIe 4.0 x16's measured 25 GB/s, the same share of the bus: "+srcPCIeMeasured),
	withNetwork(nvlinkAtNCCLShare("nvlink3", "NVLink 3 (A100 SXM, through NVSwitch in an HGX A100)", 300e9, 8, ApartNetwork,
		"[V] NVIDIA A100 Tensor Core GPU datasheet: NVLink 600 GB/s (both directions): 300 GB/s per direction",
		srcHGXA100), "ib-hdr", srcA100Net),
	nvlinkAtNCCLShare("nvlink3-bridge-x4", "NVLink 3 bridge between two GA102 cards (RTX 3090, RTX A6000, A40): four x4 links", 56.25e9, 2, ApartHost,
		"[V] NVIDIA Ampere GA102 GPU architecture whitepaper, third-generation NVLink: four x4 links of 14.0625 GB/s each way, 56.25 GB/s per direction and 112.5 GB/s total between two GPUs",
		"[V] NVIDIA RTX A6000 and A40 datasheets: the NVLink bridge connects two GPUs (112.5 GB/s bidirectional)"),
	nvlinkAtNCCLShare("nvlink3-bridge-x12", "NVLink 3 bridges between two A100 PCIe cards: twelve links", 300e9, 2, ApartHost,
		"[V] NVIDIA A100 Tensor Core GPU datasheet, A100 PCIe: NVIDIA NVLink Bridge for 2 GPUs: 600 GB/s (both directions): 300 GB/s per direction",
		"[V] NVIDIA A100 Tensor Core GPU datasheet: NVLink Bridge for 2 GPUs"),
	{Name: "nvlink4", Kind: NVLink, Description: "NVLink 4 (H100 and H200 SXM, through NVSwitch in an HGX/DGX H100)", Bandwidth: 450e9, Measured: 370e9, Latency: 3e-6, Devices: 8,
		Apart: ApartNetwork, Network: "ib-ndr",
		Sources: map[string]string{"apart": srcBoardApart, "network": srcDGXHopperNet, "bandwidth": "[V] NVIDIA H100 Tensor Core GPU datasheet: NVLink 900 GB/s (both directions): 450 GB/s per direction",
			"measured": srcNVLinkShare, "latency": srcNVLinkStep,
			"devices": "[V] NVIDIA DGX H100 datasheet: 8x NVIDIA H100 Tensor Core GPUs on 4x NVIDIA NVSwitches (an HGX H200 board the same: 8 GPUs); GPUs of two boards meet over the nodes' network"}},
	nvlinkAtNCCLShare("nvlink4-bridge-x12", "NVLink 4 bridges between two H100 PCIe cards", 300e9, 2, ApartHost,
		"[V] NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe: NVLink 600 GB/s (both directions): 300 GB/s per direction",
		"[V] NVIDIA H100 PCIe GPU product brief (PB-11133-001): NVLink bridges connect two H100 PCIe cards at 600 GB/s bidirectional"),
	withNetwork(nvlinkAtNCCLShare("nvlink5", "NVLink 5 (B200, through NVSwitch in an HGX B200)", 900e9, 8, ApartNetwork,
		"[V] NVIDIA DGX B200 datasheet: fifth-generation NVLink 1.8 TB/s per GPU (both directions): 900 GB/s per direction",
		"[V] NVIDIA DGX B200 datasheet: 8x NVIDIA Blackwell GPUs on fifth-generation NVLink through NVSwitch"), "ib-ndr", srcDGXB200Net),
	infiniband("ib-hdr", "HDR InfiniBand, 200 Gb/s per GPU (ConnectX-6, DGX A100's compute fabric)", 200e9/8, 47.0/50*200e9/8,
		"[D] 200 Gb/s / 8 = 25 GB/s per direction (InfiniBand HDR, 4 lanes of 50 Gb/s)",
		"[D] NDR's measured share of its line rate (47 of 50 GB/s): "+srcNDRMeasured),
	infiniband("ib-ndr", "NDR InfiniBand, 400 Gb/s per GPU (ConnectX-7, DGX H100/H200/B200's compute fabric)", 400e9/8, 47e9,
		"[D] 400 Gb/s / 8 = 50 GB/s per direction (InfiniBand NDR, 4 lanes of 100 Gb/s; "+srcDGXHopperNet+")", srcNDRMeasured),
	infiniband("ib-xdr", "XDR InfiniBand, 800 Gb/s per GPU (ConnectX-8)", 800e9/8, 47.0/50*800e9/8,
		"[V] NVIDIA WinOF-2 documentation v25.7, supported adapters: ConnectX-8 links at XDR InfiniBand and up to 800GbE: 800 Gb/s / 8 = 100 GB/s per direction",
		"[D] NDR's measured share of its line rate (47 of 50 GB/s): "+srcNDRMeasured),
	{Name: "1gbe", Kind: Ethernet, Description: "Gigabit Ethernet (1000BASE-T), TCP", Bandwidth: 125e6, Measured: 117.5e6, Latency: 0.25e-3,
		Sources: map[string]string{"bandwidth": "[D] 1 Gb/s / 8 = 125 MB/s per direction (IEEE 802.3ab)",
			"measured": "[S] geerlingguy/internet-pi issue #322: a Pi's line speed to another computer is 930-940 Mb/s in iperf3 (TCP): 940 Mb/s = 117.5 MB/s", "latency": srcEthLatency}},
	{Name: "2.5gbe", Kind: Ethernet, Description: "2.5 Gigabit Ethernet (2.5GBASE-T), TCP", Bandwidth: 312.5e6, Measured: 293.75e6, Latency: 0.25e-3,
		Sources: map[string]string{"bandwidth": "[D] 2.5 Gb/s / 8 = 312.5 MB/s per direction (IEEE 802.3bz)",
			"measured": "[S] geerlingguy/raspberry-pi-pcie-devices issue #647: a Radxa 2.5G HAT on a Pi 5 runs iperf3 at 2.35 Gb/s per port = 293.75 MB/s", "latency": "[A] as gigabit Ethernet (the TCP stack and the switch, not the line, set it): " + srcEthLatency}},
	{Name: "10gbe", Kind: Ethernet, Description: "10 Gigabit Ethernet (10GBASE-T or SFP+), TCP", Bandwidth: 1.25e9, Measured: 1.175e9, Latency: 0.25e-3,
		Sources: map[string]string{"bandwidth": "[D] 10 Gb/s / 8 = 1.25 GB/s per direction (IEEE 802.3an)",
			"measured": "[D] the share TCP reaches on gigabit Ethernet (940 of 1000 Mb/s, geerlingguy/internet-pi issue #322)", "latency": "[A] as gigabit Ethernet: " + srcEthLatency}},
	{Name: "tb4-net", Kind: Thunderbolt, Description: "Thunderbolt 4 networking (IP over a Thunderbolt cable between two computers)", Bandwidth: 5e9, Latency: 0.3e-3,
		Sources: map[string]string{"bandwidth": "[V] Intel Thunderbolt 4 specification: 40 Gb/s = 5 GB/s per direction (PCIe tunnelling is limited to 32 Gb/s; IP networking reaches less, no measurement published with its method)",
			"latency": srcTBLatency}},
	{Name: "tb5-net", Kind: Thunderbolt, Description: "Thunderbolt 5 networking (IP over a Thunderbolt 5 cable)", Bandwidth: 10e9, Latency: 0.3e-3,
		Sources: map[string]string{"bandwidth": "[V] Intel Thunderbolt 5 specification: 80 Gb/s = 10 GB/s per direction (120 Gb/s one way in Bandwidth Boost)",
			"latency": srcTBLatency}},
}

// LinkNames lists the built-in links' names.
func LinkNames() []string {
	n := make([]string, len(Links))
	for i, l := range Links {
		n[i] = l.Name
	}
	return n
}

// linkKey drops the separators a link's name is looked up without (a
// Replacer is safe for concurrent use).
var linkKey = strings.NewReplacer("-", "", ".", "", "_", "")

// LookupLink finds a built-in link by name (case and the separators "-"
// and "." ignored: "PCIe4x16" is pcie4-x16).
func LookupLink(name string) (Link, error) {
	key := func(s string) string { return linkKey.Replace(strings.ToLower(s)) }
	for _, l := range Links {
		if key(l.Name) == key(name) {
			return l, nil
		}
	}
	return Link{}, fmt.Errorf("unknown link %q (want %s, or a rate such as 25GB/s)", name, strings.Join(LinkNames(), ", "))
}

// PeerLinkError is why a link cannot join a device to its peers.
type PeerLinkError struct {
	Device, Link string
	// Has is the device's own NVLink ("" for none); Joins the most
	// devices the link joins, when TP, the devices every layer is split
	// over, is more.
	Has       string
	Joins, TP int
}

func (e *PeerLinkError) Error() string {
	switch {
	case e.Joins > 0:
		return fmt.Sprintf("%s: joins at most %d devices, and a tensor-parallel group of %d splits every layer over all of them", e.Link, e.Joins, e.TP)
	case e.Has == "":
		return fmt.Sprintf("%s: %s has no NVLink (its profile gives no nvlink); its peers exchange over PCIe through the host or over a network", e.Link, e.Device)
	}
	return fmt.Sprintf("%s: %s's NVLink is %s; NVLink runs at the generation and link count of the device's own, never another's", e.Link, e.Device, e.Has)
}

// BoardNVLink is d's NVLink when it comes with d rather than beside it:
// one through NVSwitch on the board an SXM part sits on, which joins more
// than the two cards of a bridge (Link.Devices); "" for a bridge, bought
// and named (--link) apart from the cards, or for none.
func (d *Device) BoardNVLink() string {
	l, err := LookupLink(d.NVLink)
	if err != nil || l.Kind != NVLink || l.Devices <= 2 {
		return ""
	}
	return l.Name
}

// JoinsPeers checks that link l can join device d to tp peers that split
// every layer between them (the tensor-parallel group): any link but an
// NVLink can (PCIe through the host, a network, a rate given); an NVLink
// only when it is d's own (Device.NVLink) and the group is no larger
// than the devices it joins (Link.Devices). Pipeline stages may sit in
// different such groups.
func (d *Device) JoinsPeers(l *Link, tp int) error {
	if l.Kind != NVLink {
		return nil
	}
	if d.NVLink != l.Name {
		return &PeerLinkError{Device: d.Name, Link: l.Name, Has: d.NVLink}
	}
	if l.Devices > 0 && tp > l.Devices {
		return &PeerLinkError{Device: d.Name, Link: l.Name, Has: d.NVLink, Joins: l.Devices, TP: tp}
	}
	return nil
}

// GroupLink is the built-in link between the groups of devices like d
// that NVLink l joins (Link.Apart): d's host link, its PCIe through the
// host, for cards bridged in one computer; the network adapter per GPU
// of the board's DGX (Link.Network) for NVSwitch boards, which meet over
// their nodes' network — a cluster's choice, not the board's, so assumed
// is true and whoever prices with it says so. ok is false where none is
// built in: a device whose profile gives no host link, a board whose
// NVLink names no network, and a link that joins any number.
func (d *Device) GroupLink(l *Link) (between Link, assumed, ok bool) {
	if l.Kind != NVLink || l.Devices == 0 {
		return Link{}, false, false
	}
	switch l.Apart {
	case ApartHost:
		bus, err := LookupLink(d.HostLink)
		return bus, false, err == nil
	case ApartNetwork:
		if l.Network == "" {
			return Link{}, false, false
		}
		net, err := LookupLink(l.Network)
		return net, true, err == nil
	}
	return Link{}, false, false
}
