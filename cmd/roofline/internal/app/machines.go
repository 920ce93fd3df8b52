package app

import (
	"fmt"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// board is the NVLink of the NVSwitch board devices like d sit on, whose
// boards are machines that meet over a network (an HGX H100's 8 on
// nvlink4); false when d sits on none.
func board(d *hardware.Device) (hardware.Link, bool) {
	own, err := hardware.LookupLink(d.NVLink)
	return own, err == nil && own.Apart == hardware.ApartNetwork && own.Devices > 1
}

// onBoard reports whether n devices like d fit one NVSwitch board.
func onBoard(d *hardware.Device, n int) bool {
	own, ok := board(d)
	return ok && n <= own.Devices
}

// betweenMachines reports whether link, between devices like d, joins
// machines: a network (Ethernet, Thunderbolt networking, InfiniBand), or
// a rate given (--link 50GB/s) where devices like d meet only over a
// network: boards that are machines of their own (no peer link in their
// profile: a Jetson, an RK3588, a Raspberry Pi) or the NVSwitch boards
// of SXM parts, between which --link names the network. Between cards of
// one computer (peers over their PCIe) a rate stays their bus.
func betweenMachines(d *hardware.Device, l *hardware.Link) bool {
	if l == nil {
		return false
	}
	switch l.Kind {
	case hardware.Ethernet, hardware.Thunderbolt, hardware.InfiniBand:
		return true
	case hardware.Custom:
		_, boards := board(d)
		return boards || defaultPeerLink(d) == ""
	}
	return false
}

// overEthernet reports whether link joins devices like d as the
// networks a runtime's RPC or network-tensor split is priced over:
// Ethernet or Thunderbolt networking, or a rate given between boards
// that are machines of their own (betweenMachines).
func overEthernet(d *hardware.Device, l *hardware.Link) bool {
	return l.Kind == hardware.Ethernet || l.Kind == hardware.Thunderbolt || l.Kind == hardware.Custom && defaultPeerLink(d) == ""
}

// linkArg is --link as a hint gives it: its name, or its rate in GB/s.
func linkArg(sp Spread, l *hardware.Link) string {
	if l.Kind == hardware.Custom {
		return fmt.Sprintf("--link %gGB/s", sp.LinkRate/1e9)
	}
	return "--link " + l.Name
}

// spanHint ends a hint with the runtimes spans (of the catalog, whose
// profiles say multi_node = true, running on device d) that price what
// (a split across machines), each with the flags also ("" or " --link
// X"), or says that none does.
func spanHint(spans []*runtimes.Runtime, d *hardware.Device, what, also string) string {
	if len(spans) == 0 {
		return fmt.Sprintf(": no runtime that runs on %s spans machines (multi_node = true in none of their profiles)", d.Name)
	}
	flags := make([]string, len(spans))
	for i, r := range spans {
		flags[i] = "--runtime " + r.Name + also
	}
	return fmt.Sprintf(", or price %s with a runtime whose profile spans machines (%s)", what, strings.Join(flags, ", or "))
}

// multiNodeRule names where a runtime's reach comes from.
const multiNodeRule = "its profile's multi_node rule"

// oneMachine refuses a split of n devices like d over link that would
// cross machines under runtime rt, whose profile keeps its device splits
// among the GPUs of one machine (multi_node = false, Runtime.OneMachine):
// more devices than an NVSwitch board holds (its boards are machines of
// their own), or devices joined by a network. A runtime whose profile
// says multi_node = true, or says nothing, is priced as given.
func oneMachine(rt *runtimes.Runtime, d *hardware.Device, link *hardware.Link, sp Spread, n int, spans []*runtimes.Runtime) error {
	if !rt.OneMachine() {
		return nil
	}
	var net *hardware.Link // the network given between the devices
	if betweenMachines(d, link) && ((sp.Link != "" && !sp.systemLink) || sp.LinkRate > 0) {
		net = link
	}
	if own, ok := board(d); ok {
		if n <= own.Devices && sp.TP <= own.Devices {
			return nil // one board: a --link is said unused (groups)
		}
		if rt.Splits(runtimes.SplitRPC) {
			return rpcBoards(rt, d, net, sp, n, spans)
		}
		also := ""
		if net != nil {
			also = " " + linkArg(sp, net)
		}
		// The flag that asks for more than a board: a group larger than
		// one (--tp), else the count.
		input, flag, count := "Devices", "--devices", n
		if sp.TP > own.Devices {
			input, flag, count = "TP", "--tp", sp.TP
		}
		return &RequestError{Input: input,
			Msg: fmt.Sprintf("%d: %s's GPUs sit on boards of %d joined by %s, each a machine of its own, and %s splits a model over the GPUs of one machine (%s)",
				count, d.Name, own.Devices, own.Name, rt.Name, multiNodeRule),
			Hint: fmt.Sprintf("give at most %s %d (one board, over %s)%s", flag, own.Devices, own.Name, spanHint(spans, d, "boards joined by a network", also)),
			Err:  ErrCount}
	}
	if !betweenMachines(d, link) {
		return nil
	}
	arg := linkArg(sp, link)
	named := link.Name
	if link.Kind == hardware.Custom {
		named = "the link given (" + units.FormatBandwidth(link.Bandwidth) + ")"
	}
	peers := fmt.Sprintf("%s's peers in one machine: %s", d.Name, defaultPeerLink(d))
	if defaultPeerLink(d) == "" {
		peers = fmt.Sprintf("each %s a machine of its own, with no peers in it", d.Name)
	}
	msg := fmt.Sprintf("%s: a network between machines, and %s splits a model over the GPUs of one machine (%s)", strings.TrimPrefix(arg, "--link "), rt.Name, multiNodeRule)
	if link.Kind == hardware.Custom {
		msg = fmt.Sprintf("%s: %s joins machines (%s), and %s splits a model over the GPUs of one machine (%s)", strings.TrimPrefix(arg, "--link "), named, peers, rt.Name, multiNodeRule)
	}
	hint := fmt.Sprintf("leave --link out (%s)%s", peers, spanHint(spans, d, "machines on "+named, " "+arg))
	if defaultPeerLink(d) == "" {
		hint = fmt.Sprintf("run on one %s (leave --devices and --tp out)%s", d.Name, spanHint(spans, d, "machines on "+named, " "+arg))
	}
	if rt.Splits(runtimes.SplitRPC) {
		msg += "; it reaches another machine only as an RPC server, which roofline prices over Ethernet or Thunderbolt networking"
		hint = fmt.Sprintf("leave --link out (%s), or give an Ethernet link such as --link 10gbe for machines on RPC", peers)
	}
	return &RequestError{Input: "Link", Msg: msg, Hint: hint, Err: ErrCount}
}

// rpcBoards refuses n devices of an NVSwitch board (an HGX H100's 8)
// under runtime rt's RPC when they are more than a board holds, over the
// network net given between them (nil: none given): the runtime runs a
// board's GPUs in one process, their layers handed on by the CUDA
// backend's peer copies over the NVLink (-sm layer), and reaches another
// board's GPUs only as RPC servers over a network; sim.NewNetwork prices
// n boards of one GPU each, every hop a round trip over the network, and
// prices no such mix.
func rpcBoards(rt *runtimes.Runtime, d *hardware.Device, net *hardware.Link, sp Spread, n int, spans []*runtimes.Runtime) error {
	own, ok := board(d)
	if !ok || n <= own.Devices {
		return nil
	}
	over, named, also := "", "a network", ""
	if net != nil {
		over, named, also = " over "+strings.TrimPrefix(linkArg(sp, net), "--link "), linkName(net), " "+linkArg(sp, net)
	}
	return &RequestError{Input: "Devices",
		Msg: fmt.Sprintf("%d%s: %s's GPUs sit on boards of %d joined by %s, and %s runs a board's GPUs in one process (-sm layer, the CUDA backend's peer copies over %s) and another board's only as RPC servers over %s (%s): a mix roofline does not price (its RPC split takes every GPU for a board of its own, each hop a round trip over the network)",
			n, over, d.Name, own.Devices, own.Name, rt.Name, own.Name, named, multiNodeRule),
		Hint: fmt.Sprintf("give at most --devices %d and leave --link out (one board, its layers over %s)%s",
			own.Devices, own.Name, spanHint(spans, d, fmt.Sprintf("boards of %d joined by a network", own.Devices), also)),
		Err: ErrCount}
}

// machineBound says why no count of devices like s's beyond one machine
// is priced under its runtime ("" when counts beyond one are, or d has
// no bound): a DOES NOT FIT answer says it where smallestFit finds no
// count.
func machineBound(s *sim.Setup, sp Spread) string {
	rt, d := s.Runtime, s.Device
	if !rt.OneMachine() {
		return ""
	}
	rpc := ""
	if rt.Splits(runtimes.SplitRPC) {
		rpc = "; another machine's only as RPC servers, a mix with NVLink boards roofline does not price"
	}
	if own, ok := board(d); ok {
		return fmt.Sprintf("%s runs a model over the GPUs of one machine (%s), here a board of %d on %s%s", rt.Name, multiNodeRule, own.Devices, own.Name, rpc)
	}
	if l, err := sp.link(defaultPeerLink(d)); err == nil && betweenMachines(d, l) && !(rt.Splits(runtimes.SplitRPC) && overEthernet(d, l)) {
		return fmt.Sprintf("%s runs a model over the GPUs of one machine (%s), and %s joins machines", rt.Name, multiNodeRule, linkArg(sp, l))
	}
	return ""
}
