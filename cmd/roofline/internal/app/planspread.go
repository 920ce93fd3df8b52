package app

import (
	"errors"
	"fmt"
	"sync"

	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/sim"
)

// planSpread spreads a plan's group over n devices as predict's
// --devices n does with the same link: the runtime's multi-device mode
// (tensor parallel for vLLM and TensorRT-LLM, layers over RPC hosts for
// llama.cpp on a network, a pipeline for llama.cpp in one machine,
// distributed-llama's every layer over the boards). pn, when set, keeps
// the counts left out for want of a link between NVLink groups.
func (env *Env) planSpread(base Spread, pn *planNotes) func(s *sim.Setup, n int) (*sim.Split, string, error) {
	return func(s *sim.Setup, n int) (*sim.Split, string, error) {
		sp := base
		sp.Devices = n
		split, _, err := env.parallel(s, sp, nil)
		var fe *sim.FieldError
		var re *RequestError
		var pe *hardware.PeerLinkError
		var ge *GroupLinkError
		switch {
		case errors.As(err, &pe):
			// An NVLink this device lacks, or a group larger than it
			// joins: this count of this device, not the plan (Space
			// refuses a link no device searched has).
			return nil, "", &plan.Unsplittable{Reason: pe.Error()}
		case errors.As(err, &fe):
			return nil, "", &plan.Unsplittable{Reason: fe.Msg}
		case errors.As(err, &ge) && errors.As(err, &re):
			// Groups no link joins: this count of this device, not the
			// plan, said in its notes.
			pn.leftOut(ge, n)
			return nil, "", &plan.Unsplittable{Reason: "--link " + re.Msg}
		case errors.Is(err, ErrCount) && errors.As(err, &re):
			// A count the mode does not split: this count of this
			// device, not the plan.
			return nil, "", &plan.Unsplittable{Reason: re.Msg}
		case err != nil:
			return nil, "", err // a link to give: the whole plan's error
		}
		return split, SplitMode(split), nil
	}
}

// SplitMode says in a few words how a split spreads its model: "tp 4,
// nvlink4", "pp 2, pcie4-x16", "tp 8 × pp 2, nvlink4 + custom" (the link
// between the NVLink groups after the +), "rpc 4, 1gbe", "tensor 4, 1gbe" (every
// layer over the boards), "offload 27/81".
func SplitMode(sp *sim.Split) string {
	link := ""
	if sp.Link != nil {
		link = ", " + sp.Link.Name
	}
	if sp.Between != nil {
		link += " + " + sp.Between.Name // between the NVLink groups
	}
	switch {
	case sp.Kind == sim.Offload:
		return fmt.Sprintf("offload %d/%d", sp.GPULayers, sp.Layers)
	case sp.Kind == sim.Network && sp.Exchange:
		return fmt.Sprintf("tensor %d%s", sp.TP, link)
	case sp.Kind == sim.Network:
		return fmt.Sprintf("rpc %d%s", sp.PP, link)
	case sp.TP > 1 && sp.PP > 1:
		return fmt.Sprintf("tp %d × pp %d%s", sp.TP, sp.PP, link)
	case sp.PP > 1:
		return fmt.Sprintf("pp %d%s", sp.PP, link)
	}
	ep := ""
	if sp.EP {
		ep = " ep"
	}
	return fmt.Sprintf("tp %d%s%s", sp.TP, ep, link)
}

// planHost is where a plan's group offloads what its device does not
// hold, as predict's default --gpu-layers places it: the host setups are
// resolved once per host and link, runtime, model and formats, for both
// of the search's workers (every desktop GPU shares one host).
func (env *Env) planHost(sel Selection, base Spread) func(s *sim.Setup) (*sim.Setup, *hardware.Link, error) {
	type key struct{ host, link, runtime, model, weights, kv string }
	type host struct {
		setup *sim.Setup
		link  *hardware.Link
		err   error
	}
	var mu sync.Mutex
	cache := map[key]host{}
	return func(s *sim.Setup) (*sim.Setup, *hardware.Link, error) {
		host := base.Host
		if host == "" {
			host, _ = s.Device.DefaultHost()
		}
		if host == "" || s.Device.Unified {
			host = s.Device.Name // its own: the key of this device alone
		}
		k := key{host, s.Device.HostLink, s.Runtime.Name, s.Model.Spec.Name, s.Model.Weights.Name, s.Model.KV.Name}
		mu.Lock()
		defer mu.Unlock()
		h, ok := cache[k]
		if !ok {
			hsel := sel
			hsel.Model = s.Model.Spec.Name
			h.setup, h.link, _, _, h.err = env.offloadHost(s, hsel, base.busOf(s.Device))
			if h.setup != nil {
				// The host prices the same model in the same formats and
				// layout (the runtime is the GPU's): its setup is rebuilt
				// on the plan's sums, so that the kept hosts hold no
				// tensor lists, hundreds of them in a catalog-wide plan.
				h.setup, h.err = sim.NewSetup(s.Model, h.setup.Device, h.setup.Engine, h.setup.Runtime, sel.Options)
			}
			cache[k] = h
		}
		return h.setup, h.link, h.err
	}
}
