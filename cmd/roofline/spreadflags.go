package main

import (
	"errors"
	"math"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

// spreadFlags spread a model over more than one device or memory:
// predict's, chat's and plan's.
func spreadFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "gpu-layers", Aliases: []string{"ngl"}, Usage: "layers on the GPU as llama.cpp's -ngl counts them (the output layer is one, and the first: 81 for an 80-layer model, 1 the output layer alone; a larger count, such as 99, is every layer, as llama.cpp takes it), the rest in host memory on the CPU; default: as many as fit, as llama.cpp's --fit places them, when the model does not fit"},
		&cli.BoolFlag{Name: "cpu-moe", Usage: "keep every layer's routed experts in host memory (llama.cpp --cpu-moe)"},
		&cli.IntFlag{Name: "n-cpu-moe", Usage: "keep the routed experts of the first `N` layers in host memory (llama.cpp --n-cpu-moe)"},
		&cli.StringFlag{Name: "host", Usage: "host `DEVICE` whose memory and CPU take offloaded layers; default: desktop-ddr5 for a desktop GPU, the device itself for unified memory"},
		&cli.IntFlag{Name: "devices", Usage: "spread the model over `N` devices like --hardware (a system such as hgx-h100 gives its own)"},
		&cli.IntFlag{Name: "tp", Usage: "tensor-parallel size: every layer split over `N` devices"},
		&cli.IntFlag{Name: "pp", Usage: "pipeline-parallel size: `N` stages of consecutive layers"},
		&cli.BoolFlag{Name: "ep", Usage: "expert parallel: whole routed experts spread over the --tp devices"},
		&cli.StringFlag{Name: "link", Usage: "link between the devices or to the host: a `NAME` (" + joinNames(hardware.LinkNames()) + ") or a rate such as 10GB/s; an NVLink joins only devices whose profile gives it (roofline show hardware: nvlink), a tensor-parallel group no larger than it joins, and groups of more devices meet over the host's PCIe (bridged cards); SXM parts keep their board's NVLink, and --link names the network between boards, else the boards meet over the InfiniBand per GPU of their DGX (ib-hdr or ib-ndr, said in a note) under a runtime whose profile spans machines (multi_node, which `roofline show runtime NAME` states and a refusal lists; a runtime that keeps to one machine's GPUs, as llama.cpp does, reaches other machines only as RPC boards where it has them); a rate between boards that are machines of their own (a Jetson, an RK3588) or between NVSwitch boards is their network; default: the system's, else the NVLink of the board an SXM part sits on, else the device's host link"},
		&cli.StringFlag{Name: "link-latency", Usage: "latency of each transfer on a --link given as a rate (`DURATION`, e.g. 50us); default 0"},
	}
}

func joinNames(n []string) string {
	out := ""
	for i, s := range n {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// spread reads the spreadFlags.
func spread(c *cli.Context) (app.Spread, error) {
	sp := app.Spread{GPULayers: c.Int("gpu-layers"), GPULayersSet: c.IsSet("gpu-layers"), CPUMoE: c.Bool("cpu-moe"), NCPUMoE: c.Int("n-cpu-moe"),
		Host: c.String("host"), Devices: c.Int("devices"), TP: c.Int("tp"), PP: c.Int("pp"), EP: c.Bool("ep")}
	for _, f := range []struct {
		name string
		v    int
		min  int
	}{{"gpu-layers", sp.GPULayers, 0}, {"n-cpu-moe", sp.NCPUMoE, 0}, {"devices", sp.Devices, 1}, {"tp", sp.TP, 1}, {"pp", sp.PP, 1}} {
		if c.IsSet(f.name) && f.v < f.min {
			return sp, usageErr("--%s must be at least %d, got %d", f.name, f.min, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"devices", sp.Devices}, {"tp", sp.TP}, {"pp", sp.PP}} {
		// Bounded as plan's counts are, before a split is sought: a
		// count far past it was refused as the --tp × --pp it made.
		if f.v > limits.Devices {
			return sp, usageErr("--%s %d: a device count is a whole number from 1 to %d", f.name, f.v, limits.Devices)
		}
	}
	return sp, linkFlags(c, &sp)
}

// serveSpreadFlags are serve's: a tensor-parallel group, or layers
// offloaded to the host, and the link.
func serveSpreadFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range spreadFlags() {
		switch f.Names()[0] {
		case "gpu-layers", "cpu-moe", "n-cpu-moe", "host", "devices", "tp", "pp", "ep", "link", "link-latency":
			out = append(out, f)
		}
	}
	return out
}

// planSpreadFlags are plan's: the device counts, the link between the
// devices and the host of an offload.
func planSpreadFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range spreadFlags() {
		switch f.Names()[0] {
		case "host", "link", "link-latency":
			out = append(out, f)
		}
	}
	return append(out, &cli.StringFlag{Name: "devices", Usage: "device counts to spread each model over (`LIST`: 1,2,4,8 or 1..8) in the runtime's multi-device mode; the answer recommends the fewest that meet the targets; default 1 (offloading to the host what the device does not hold, as llama.cpp does)"})
}

// planSpread reads planSpreadFlags.
func planSpread(c *cli.Context) (app.Spread, []int, error) {
	sp := app.Spread{Host: c.String("host")}
	var counts []int
	if s := c.String("devices"); s != "" {
		var err error
		if counts, err = plan.ParseCounts(s); err != nil {
			return sp, nil, usageErr("--devices %v", err)
		}
	}
	return sp, counts, linkFlags(c, &sp)
}

// linkFlags reads --link and --link-latency into sp.
func linkFlags(c *cli.Context, sp *app.Spread) error {
	if l := c.String("link"); l != "" {
		if _, err := hardware.LookupLink(l); err == nil {
			sp.Link = l
		} else {
			rate, _, qerr := quantity(c, "link", units.DimBandwidth)
			if qerr != nil || !(rate > 0) || math.IsInf(rate, 0) {
				return usageErr("--link %q: a link's rate must be a positive bandwidth such as 10GB/s, or a name (%s)", l, joinNames(hardware.LinkNames()))
			}
			if err := limits.Bandwidth.Check(rate); err != nil {
				return usageErr("--link %q: a link's rate %v (a rate such as 10GB/s)", l, err)
			}
			sp.LinkRate = rate
		}
	}
	if c.IsSet("link-latency") {
		if sp.LinkRate == 0 {
			return usageErr("--link-latency describes a --link given as a rate (--link 10GB/s --link-latency 50us); a named link, and the default one, has its own latency")
		}
		lat, _, err := quantity(c, "link-latency", units.DimDuration)
		if errors.As(err, new(*units.OverflowError)) {
			return usageErr("--link-latency %v", err)
		}
		if err != nil || !(lat >= 0) || math.IsInf(lat, 0) {
			return usageErr("--link-latency %q: want a duration of 0 or more, such as 50us", c.String("link-latency"))
		}
		if err := limits.FixedCost.Check(lat); err != nil {
			return usageErr("--link-latency %q: %v (a latency such as 50us)", c.String("link-latency"), err)
		}
		sp.LinkLatency = lat
	}
	return nil
}
