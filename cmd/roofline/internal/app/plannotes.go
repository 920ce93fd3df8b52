package app

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/sim"
)

// planNotes gathers what a plan decides that its table does not show,
// for the notes under its answer (Plan.Notes): the counts left out for
// want of a link between NVLink groups, met by both search workers.
type planNotes struct {
	mu sync.Mutex
	// unjoined are, per device, the counts no link between its groups
	// joins, and why.
	unjoined map[string]*unjoined
}

type unjoined struct {
	why    *GroupLinkError
	counts []int
}

// leftOut records count n of a device left out for want of a link
// between its groups.
func (pn *planNotes) leftOut(e *GroupLinkError, n int) {
	if pn == nil {
		return
	}
	pn.mu.Lock()
	defer pn.mu.Unlock()
	if pn.unjoined == nil {
		pn.unjoined = map[string]*unjoined{}
	}
	u := pn.unjoined[e.Device]
	if u == nil {
		u = &unjoined{why: e}
		pn.unjoined[e.Device] = u
	}
	if !slices.Contains(u.counts, n) {
		u.counts = append(u.counts, n)
	}
}

// notes are the recorded decisions in words, by device name.
func (pn *planNotes) notes() []string {
	if pn == nil {
		return nil
	}
	pn.mu.Lock()
	defer pn.mu.Unlock()
	var out []string
	for _, u := range pn.unjoined {
		slices.Sort(u.counts)
		counts := make([]string, len(u.counts))
		for i, n := range u.counts {
			counts[i] = fmt.Sprint(n)
		}
		give := "give the link between the devices with --link (a rate such as 25GB/s)"
		if u.why.Network {
			give = "give the network's rate per GPU with --link, such as --link 50GB/s --link-latency 10us (within a board they keep " + u.why.Link + ")"
		}
		out = append(out, fmt.Sprintf("%s × %s devices not planned: %s; %s", u.why.Device, strings.Join(counts, ", "), u.why.Error(), give))
	}
	slices.Sort(out)
	return out
}

// placementNote adds notes of a recommended configuration's placement
// (predict's, Prediction.Placement) on device, each once:
// the links between devices and groups, the host of an offload, a --link
// or --host the plan did not use.
func (p *Plan) placementNote(device string, notes ...string) {
	for _, n := range notes {
		n = device + ": " + n
		if !slices.Contains(p.Notes, n) {
			p.Notes = append(p.Notes, n)
		}
	}
}

// moeDecodeNotes adds, for each shown configuration whose decode interval
// was widened for an MoE model (sim.Inputs.MoEDecodeNote), the note that
// says so, once per device; an offloaded one's widens only its GPU
// stage's part (the host's engine is another class; Split.Bounds weighs
// the stages' spreads by their time), said as predict says it.
func (p *Plan) moeDecodeNotes() {
	for _, ch := range p.Shown.Choices {
		g := ch.Group
		if g == nil || g.MoEDecodeNote == "" {
			continue
		}
		if !ch.Config.Offloaded() {
			p.placementNote(g.Device, g.MoEDecodeNote)
			continue
		}
		if n := sim.StagePartNote(g.Device+" "+g.Engine, g.MoEDecodeNote); !slices.Contains(p.Notes, n) {
			p.Notes = append(p.Notes, n)
		}
	}
}

// unused says a --host or --link no recommended configuration uses: no
// offload to a host, no model spread over devices.
func (p *Plan) unused() {
	sp := p.Request.Spread
	offloaded, spread := false, false
	for _, ch := range p.Shown.Choices {
		if ch.Group != nil && ch.Place == 1 {
			offloaded = offloaded || ch.Config.Offloaded()
			spread = spread || ch.Group.Devices > 1
		}
	}
	said := func(flag string) bool {
		return slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, flag+" not used") })
	}
	if sp.Host != "" && !offloaded && !said("--host "+sp.Host) {
		p.Notes = append(p.Notes, fmt.Sprintf("--host %s not used: no recommended configuration is offloaded to a host", sp.Host))
	}
	if (sp.Link != "" || sp.LinkRate > 0) && !offloaded && !spread && !said(linkFlag(sp)) {
		p.Notes = append(p.Notes, fmt.Sprintf("%s not used: no recommended configuration is spread over devices or offloaded to a host", linkFlag(sp)))
	}
}

// Searched is the largest device count the plan searched for device
// ("": for any device), and the larger counts of --devices it left out
// for want of a link between NVLink groups (its notes say why); 0 and
// none without --devices.
func (p *Plan) Searched(device string) (largest int, leftOut []int) {
	counts := p.Request.Counts
	out := func(dev string, n int) bool {
		if p.notes == nil {
			return false
		}
		p.notes.mu.Lock()
		defer p.notes.mu.Unlock()
		u := p.notes.unjoined[dev]
		return u != nil && slices.Contains(u.counts, n)
	}
	for i := len(counts) - 1; i >= 0; i-- {
		n := counts[i]
		if device != "" && !out(device, n) {
			return n, leftOut
		}
		if device == "" && slices.ContainsFunc(p.Space.Devices, func(d *hardware.Device) bool { return !out(d.Name, n) }) {
			return n, leftOut
		}
		leftOut = append([]int{n}, leftOut...)
	}
	return 0, leftOut
}
