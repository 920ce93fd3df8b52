package hardware

import (
	"math"
	"strings"
	"testing"
)

// TestLinks: the built-in links' figures, worked by hand from their
// sources, and the collective formulas.
func TestLinks(t *testing.T) {
	for _, c := range []struct {
		name          string
		bw, rate, lat float64
	}{
		// 16 GT/s × 128/130 × 16 lanes / 8 = 31.51 GB/s; 25 GB/s measured (BaM #54).
		{"pcie4-x16", 16e9 * 128 / 130 * 16 / 8, 25e9, 43e-6},
		// 8 GT/s × 128/130 × 16 / 8 = 15.75 GB/s; 12 GB/s measured.
		{"pcie3-x16", 8e9 * 128 / 130 * 16 / 8, 12e9, 43e-6},
		// 32 GT/s × 128/130 × 16 / 8 = 63.0 GB/s.
		{"PCIe5-X16", 32e9 * 128 / 130 * 16 / 8, 50e9, 43e-6},
		// 900 GB/s both ways; NCCL 370 GB/s (nccl-tests #212).
		{"nvlink4", 450e9, 370e9, 3e-6},
		// GA102: 4 links × 14.0625 GB/s = 56.25 GB/s each way; NCCL's
		// share of NVLink 4, 370/450: 46.25 GB/s.
		{"nvlink3-bridge-x4", 56.25e9, 56.25e9 * 370 / 450, 3e-6},
		// A100 PCIe and H100 PCIe bridges: 600 GB/s both ways, 300 each.
		{"nvlink3-bridge-x12", 300e9, 300e9 * 370 / 450, 3e-6},
		{"nvlink4-bridge-x12", 300e9, 300e9 * 370 / 450, 3e-6},
		// 1 Gb/s; 940 Mb/s TCP; half a 0.5 ms round trip.
		{"1gbe", 125e6, 117.5e6, 0.25e-3},
		// 40 Gb/s, no measurement: the datasheet rate.
		{"tb4-net", 5e9, 5e9, 0.3e-3},
		// NDR: 400 Gb/s / 8 = 50 GB/s; 46–48 GB/s per NIC (nccl-tests
		// #290): 47; 12 µs from NCCL's model (6.8 + 5.0, rounded).
		{"ib-ndr", 50e9, 47e9, 12e-6},
		// HDR: 200 Gb/s / 8 = 25 GB/s at NDR's share 47/50: 23.5 GB/s.
		{"IB-HDR", 25e9, 23.5e9, 12e-6},
		// XDR: 800 Gb/s / 8 = 100 GB/s; 47/50 of it: 94 GB/s.
		{"ib_xdr", 100e9, 94e9, 12e-6},
	} {
		l, err := LookupLink(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Validate(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if math.Abs(l.Bandwidth/c.bw-1) > 1e-12 || l.Rate() != c.rate || l.Latency != c.lat {
			t.Errorf("%s: bandwidth %g, rate %g, latency %g; want %g, %g, %g", c.name, l.Bandwidth, l.Rate(), l.Latency, c.bw, c.rate, c.lat)
		}
		for _, k := range []string{"bandwidth", "latency"} {
			if l.Sources[k] == "" {
				t.Errorf("%s: no source for %s", c.name, k)
			}
		}
	}
	l, _ := LookupLink("nvlink4")
	// Ring all-reduce of 16 KiB over 8 GPUs at 370 GB/s: 2·7/8 × 16384 B /
	// 370e9 = 77.5 ns, plus 14 steps × 3 µs = 42 µs.
	want := 2*7.0/8*16384/370e9 + 14*3e-6
	if got := l.AllReduce(16384, 8, l.Rate()); math.Abs(got/want-1) > 1e-12 {
		t.Errorf("all-reduce: %g s, want %g", got, want)
	}
	if l.AllReduce(16384, 1, l.Rate()) != 0 || l.AllToAll(1e6, 1, l.Rate()) != 0 {
		t.Error("a collective over one device takes time")
	}
	// All-to-all of 1 MB over 4: 3/4 MB at 370 GB/s + 3 messages × 3 µs.
	if got, want := l.AllToAll(1e6, 4, l.Rate()), 0.75e6/370e9+3*3e-6; math.Abs(got/want-1) > 1e-12 {
		t.Errorf("all-to-all: %g s, want %g", got, want)
	}
	if _, err := LookupLink("pcie9-x32"); err == nil {
		t.Error("an unknown link was found")
	}
	for _, bad := range []Link{{Name: "zero", Bandwidth: 0}, {Name: "nan", Bandwidth: math.NaN()}, {Name: "inf", Bandwidth: math.Inf(1)}, {Name: "neg-latency", Bandwidth: 1e9, Latency: -1}} {
		if bad.Validate() == nil {
			t.Errorf("link %s validated", bad.Name)
		}
	}
}

// TestSystems: every built-in system names a link that exists.
func TestSystems(t *testing.T) {
	for _, s := range Systems {
		if _, err := LookupLink(s.Link); err != nil || s.Count < 2 || s.Source == "" {
			t.Errorf("system %s: link %q (%v), %d devices, source %q", s.Name, s.Link, err, s.Count, s.Source)
		}
	}
}

// TestJoinsPeers: an NVLink joins a device to its peers only when it is
// the device's own, and a tensor-parallel group only up to the devices
// it joins; any other link joins any count.
func TestJoinsPeers(t *testing.T) {
	gforce := &Device{Name: "rtx-4090", HostLink: "pcie4-x16"}
	bridged := &Device{Name: "rtx-3090", HostLink: "pcie4-x16", NVLink: "nvlink3-bridge-x4"}
	hgx := &Device{Name: "h100-sxm", HostLink: "pcie5-x16", NVLink: "nvlink4"}
	for _, c := range []struct {
		d    *Device
		link string
		tp   int
		want string // "" when it joins
	}{
		{gforce, "pcie4-x16", 64, ""},
		{gforce, "10gbe", 4, ""},
		{gforce, "nvlink4", 1, "nvlink4: rtx-4090 has no NVLink"},
		{bridged, "nvlink3-bridge-x4", 2, ""},
		// A pipeline of two bridged pairs: each group of 1 is within it.
		{bridged, "nvlink3-bridge-x4", 1, ""},
		{bridged, "nvlink3-bridge-x4", 4, "nvlink3-bridge-x4: joins at most 2 devices, and a tensor-parallel group of 4"},
		{bridged, "nvlink3", 2, "nvlink3: rtx-3090's NVLink is nvlink3-bridge-x4"},
		{hgx, "nvlink4", 8, ""},
		{hgx, "nvlink4", 16, "joins at most 8 devices"},
		{hgx, "nvlink5", 2, "h100-sxm's NVLink is nvlink4"},
	} {
		l, err := LookupLink(c.link)
		if err != nil {
			t.Fatal(err)
		}
		err = c.d.JoinsPeers(&l, c.tp)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s over %s, tp %d: %v", c.d.Name, c.link, c.tp, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s over %s, tp %d: %v, want %q", c.d.Name, c.link, c.tp, err, c.want)
		}
	}
	// The board's NVLink comes with an SXM part; a bridge does not.
	for d, want := range map[*Device]string{gforce: "", bridged: "", hgx: "nvlink4"} {
		if got := d.BoardNVLink(); got != want {
			t.Errorf("%s: board NVLink %q, want %q", d.Name, got, want)
		}
	}
	// Every NVLink says how many devices it joins, and where that comes from.
	for _, l := range Links {
		if l.Kind == NVLink && (l.Devices < 2 || l.Sources["devices"] == "") {
			t.Errorf("%s: joins %d devices, source %q", l.Name, l.Devices, l.Sources["devices"])
		}
	}
}

// TestTrainedWith: a PCIe link trains to the lower generation and the
// narrower width of its two ends. A PCIe 3.0 x16 slot holding a PCIe 4.0
// x8 card runs as PCIe 3.0 x8: 8 GT/s × 128/130 × 8 / 8 = 7.877 GB/s by
// the bus, half of PCIe 3.0 x16's measured 12 GB/s = 6 GB/s reached (as
// the built-in x4 and x8 links take their x16's). A PCIe 5.0 x16 slot
// runs a PCIe 4.0 x16 card as the built-in pcie4-x16 (25 GB/s measured),
// and a slower slot, or a link that is not PCIe, is itself.
func TestTrainedWith(t *testing.T) {
	get := func(name string) Link {
		l, err := LookupLink(name)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	g3x16, g4x8, g4x16, g5x16 := get("pcie3-x16"), get("pcie4-x8"), get("pcie4-x16"), get("pcie5-x16")
	got := g3x16.TrainedWith(&g4x8)
	if got.Name != "pcie3-x8" || got.Gen != 3 || got.Lanes != 8 || math.Abs(got.Bandwidth-8e9*128/130) > 1 || got.Measured != 6e9 || got.Latency != 43e-6 || got.Sources["measured"] == "" {
		t.Errorf("pcie3-x16 with a PCIe 4.0 x8 card: %+v, want PCIe 3.0 x8 at 7.877 GB/s, 6 GB/s measured", got)
	}
	if err := got.Validate(); err != nil {
		t.Error(err)
	}
	if got := g5x16.TrainedWith(&g4x16); got.Name != "pcie4-x16" || got.Measured != 25e9 {
		t.Errorf("pcie5-x16 with a PCIe 4.0 x16 card: %+v, want the built-in pcie4-x16", got)
	}
	g4x4, nv := get("pcie4-x4"), get("nvlink4")
	if got := g4x4.TrainedWith(&g4x16); got.Name != "pcie4-x4" {
		t.Errorf("pcie4-x4 with a PCIe 4.0 x16 card: %s, want itself", got.Name)
	}
	if got := nv.TrainedWith(&g4x16); got.Name != "nvlink4" {
		t.Errorf("nvlink4: %s, want itself", got.Name)
	}
}

// TestNVLinkGroupsApart: every NVLink that joins a bounded group says how
// its groups meet, with a source; a bridge's pairs meet over the card's
// host link (the RTX 3090's PCIe 4.0 x16), not assumed; a board's over
// the adapter per GPU of its DGX, assumed: HGX A100 over HDR (200 Gb/s),
// H100/H200 and B200 over NDR (400 Gb/s, ConnectX-7 on DGX H100 and DGX
// B200 alike).
func TestNVLinkGroupsApart(t *testing.T) {
	for _, l := range Links {
		if l.Kind == NVLink && l.Devices > 0 && (l.Apart == "" || l.Sources["apart"] == "") {
			t.Errorf("%s joins %d devices but says not how its groups meet", l.Name, l.Devices)
		}
		if l.Network != "" && l.Sources["network"] == "" {
			t.Errorf("%s: network %s without a source", l.Name, l.Network)
		}
	}
	bridge, _ := LookupLink("nvlink3-bridge-x4")
	d := &Device{Name: "rtx-3090", HostLink: "pcie4-x16", NVLink: bridge.Name}
	if g, assumed, ok := d.GroupLink(&bridge); !ok || assumed || g.Name != "pcie4-x16" {
		t.Errorf("bridged pairs meet over %q (assumed %v, %v), want pcie4-x16, not assumed", g.Name, assumed, ok)
	}
	for board, want := range map[string]string{"nvlink3": "ib-hdr", "nvlink4": "ib-ndr", "nvlink5": "ib-ndr"} {
		l, _ := LookupLink(board)
		h := &Device{Name: "sxm", HostLink: "pcie5-x16", NVLink: board}
		if g, assumed, ok := h.GroupLink(&l); !ok || !assumed || g.Name != want {
			t.Errorf("%s boards meet over %q (assumed %v, %v), want %s, assumed", board, g.Name, assumed, ok, want)
		}
	}
	// A board whose NVLink names no network has none built in.
	l, _ := LookupLink("nvlink4")
	l.Network = ""
	if g, _, ok := (&Device{Name: "sxm", NVLink: l.Name}).GroupLink(&l); ok {
		t.Errorf("a board with no network meets over %q", g.Name)
	}
	// PCIe joins any number: no groups.
	bus, _ := LookupLink("pcie4-x16")
	if _, _, ok := d.GroupLink(&bus); ok {
		t.Error("PCIe has groups")
	}
}
