package app

import (
	"fmt"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/units"
)

// GroupLinkError is what the error of devices filling more than one
// NVLink group, with no link between the groups built in or given,
// wraps: plan leaves that count out and says why (planSpread, its notes).
type GroupLinkError struct {
	Device, Link string
	// Joins is the devices a group holds; Network is true for boards,
	// which meet over their nodes' network.
	Joins   int
	Network bool
}

func (e *GroupLinkError) Error() string {
	if e.Network {
		return fmt.Sprintf("more %s than one board of %d on %s: boards meet over their nodes' network, and %s names none", e.Device, e.Joins, e.Link, e.Link)
	}
	return fmt.Sprintf("more %s than one group of %d on %s: the profile gives no host_link for the groups to meet over", e.Device, e.Joins, e.Link)
}

// groups is the link within each group of n devices like d and the link
// between the groups (nil when link joins them all), with notes that say
// so. An NVLink joins groups of its Devices: cards bridged in pairs in
// one computer meet over their PCIe bus through the host (d's
// host_link); the GPUs of NVSwitch boards (HGX) meet over the nodes'
// network, which --link names, else the adapter per GPU of the board's
// DGX (hardware.Device.GroupLink), said in a note as assumed: such
// devices exchange over their board's NVLink whatever --link says, unless
// a tensor-parallel group larger than a board (--tp) spreads over it.
// Where no link between the groups is built in or given, the groups' own
// link stands in for it and missing says what to give. tp is the
// tensor-parallel size the devices run (0 where not yet known: sp.TP, else
// 1): each group holds whole tensor-parallel groups (groupCount).
func groups(d *hardware.Device, link *hardware.Link, sp Spread, n, tp int) (in, between *hardware.Link, notes []string, missing *RequestError) {
	given := (sp.Link != "" && !sp.systemLink) || sp.LinkRate > 0
	if own, err := hardware.LookupLink(d.NVLink); err == nil && own.Apart == hardware.ApartNetwork && given && link.Kind != hardware.NVLink && sp.TP <= own.Devices {
		between, link = link, &own
	}
	if link.Kind != hardware.NVLink || link.Devices == 0 || n <= link.Devices || sp.TP > link.Devices || sp.PP == 1 {
		// One group, or no pipeline between groups: a tensor-parallel
		// group larger than the link joins is refused (peerLink).
		if between != nil {
			notes = append(notes, fmt.Sprintf("%s not used: %d %s sit on one board, joined by its %s (%d devices); --link names the network between boards", linkFlag(sp), n, d.Name, link.Name, link.Devices))
		}
		return link, nil, notes, nil
	}
	if tp < 1 {
		tp = max(sp.TP, 1)
	}
	count, most := groupCount(link.Devices, n, tp)
	what := "boards"
	if link.Apart == hardware.ApartHost {
		what = "bridged groups"
	}
	var assumed string
	if between == nil {
		if g, guess, ok := d.GroupLink(link); ok {
			between = &g
			if guess {
				// The network is the cluster's, not the board's: priced,
				// and said (the figures used are in the link's note).
				assumed = fmt.Sprintf("no network given between the boards: %s assumed, the adapter per GPU of NVIDIA's DGX on %s; --link names yours (%s, or a rate with --link-latency)", g.Name, link.Name, strings.Join(networkLinks(), ", "))
			}
		} else {
			// No link between the groups: the split is built with the
			// groups' own link in its place, for its memory (smallestFit)
			// and for the errors of its counts, which come first.
			missing := &RequestError{Input: "Link", Err: &GroupLinkError{Device: d.Name, Link: link.Name, Joins: link.Devices, Network: link.Apart == hardware.ApartNetwork},
				Msg:  fmt.Sprintf("is needed between the %s: %d %s fill %d %s of %d on %s, and %s's profile gives no host_link for them to meet over", what, n, d.Name, count, what, link.Devices, link.Name, d.Name),
				Hint: fmt.Sprintf("give the link between the devices with --link (a rate such as 25GB/s), or at most --devices %d", most)}
			if link.Apart == hardware.ApartNetwork {
				missing.Msg = fmt.Sprintf("is needed between the boards: %d %s fill %d boards of %d on %s, and boards meet over their nodes' network, which %s names none of", n, d.Name, count, link.Devices, link.Name, link.Name)
				missing.Hint = fmt.Sprintf("give the network's rate per GPU with --link, such as --link 50GB/s --link-latency 10us (within a board the devices keep %s), or at most --devices %d", link.Name, most)
			}
			return link, link, nil, missing
		}
	}
	notes = append(notes, fmt.Sprintf("%d %s fill %d %s of %d on %s; a pipeline stage boundary between them crosses %s, each hop on its own link", n, d.Name, count, what, link.Devices, link.Name, linkName(between)),
		linkNote(between, "between the "+what))
	if assumed != "" {
		notes = append(notes, assumed)
	}
	return link, between, notes, nil
}

// networkLinks are the built-in links between boards (InfiniBand).
func networkLinks() []string {
	var n []string
	for _, l := range hardware.Links {
		if l.Kind == hardware.InfiniBand {
			n = append(n, l.Name)
		}
	}
	return n
}

// groupCount is how many groups of `joins` devices n devices fill, tp to
// each tensor-parallel group, which one group holds whole: ⌊joins/tp⌋ of
// them a group, as sim places the stages (Split.GroupStages), so 15
// devices at tp 3 fill three groups of 8, six devices each, not two. most
// is the devices one group holds.
func groupCount(joins, n, tp int) (count, most int) {
	if tp < 1 || tp > joins {
		tp = 1
	}
	per := joins / tp // tensor-parallel groups a group holds
	stages := (n + tp - 1) / tp
	return (stages + per - 1) / per, per * tp
}

// linkFlag is --link as given: its name or its rate.
func linkFlag(sp Spread) string {
	if sp.Link != "" {
		return "--link " + sp.Link
	}
	return "--link " + units.FormatBandwidth(sp.LinkRate)
}

// linkName names a link in words: its name, or "the link given".
func linkName(l *hardware.Link) string {
	if l.Kind == hardware.Custom {
		return "the link given (" + units.FormatBandwidth(l.Bandwidth) + ")"
	}
	return l.Name
}
