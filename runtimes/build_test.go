package runtimes_test

import (
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
)

// A runtime with two older eras, by hand: builds up to b1000 (ended
// 2023-06-01) and up to b3000 (ended 2024-06-24), both of the cuda
// backend.
func twoEras() *runtimes.Runtime {
	return &runtimes.Runtime{Name: "rt", Eras: []runtimes.Era{
		{Name: "old", LastBuild: 1000, Until: "2023-06-01", Backends: []string{"cuda"}},
		{Name: "mid", LastBuild: 3000, Until: "2024-06-24", Backends: []string{"cuda"}},
	}}
}

func TestEraOf(t *testing.T) {
	rt := twoEras()
	cases := []struct {
		build string
		want  int // 0 current, 1 the newest older era, 2 the oldest
	}{
		{"", 0},
		{"b999", 2}, {"1000", 2}, {"b1001", 1}, {"B3000", 1}, {"b3001", 0}, {"b6000", 0},
		{"2023-05-31", 2}, {"2023-06-01", 1}, // the era ends on its date
		{"2023-06", 1}, // a month is its first day
		{"2024-06-23", 1}, {"2024-06", 1}, {"2024-06-24", 0}, {"2025-08", 0},
		{"old", 2}, {"MID", 1},
	}
	for _, c := range cases {
		got, err := rt.EraOf(c.build)
		if err != nil || got != c.want {
			t.Errorf("EraOf(%q) = %d, %v; want %d", c.build, got, err, c.want)
		}
	}
	for _, bad := range []string{"latest", "2024-13", "b12x", "v1.2"} {
		if _, err := rt.EraOf(bad); err == nil || !strings.Contains(err.Error(), "b2824") {
			t.Errorf("EraOf(%q): want an error naming the accepted forms, got %v", bad, err)
		}
	}
	if _, err := (&runtimes.Runtime{Name: "plain"}).EraOf("b100"); err == nil || !strings.Contains(err.Error(), "distinguishes no builds") {
		t.Errorf("a runtime without eras takes no build: %v", err)
	}
}

// ClassFor picks an older era's class for a build of that era, on the
// backends the era concerns; other builds and backends keep the current
// class.
func TestClassForBuild(t *testing.T) {
	rt := twoEras()
	rt.Engines = []runtimes.Support{{Kind: hardware.GPU, Backend: "cuda", Families: []string{"nvidia"}}, {Kind: hardware.GPU, Families: []string{"amd"}}}
	cur, mid := &runtimes.Class{Basis: "current"}, &runtimes.Class{Basis: "mid"}
	pooled := &runtimes.Class{Basis: "pooled"}
	rt.Classes = map[string]*runtimes.Class{"cuda": cur, runtimes.EraClassKey("cuda", "mid"): mid, "gpu": pooled}
	nv, amd := &hardware.Device{Family: "nvidia"}, &hardware.Device{Family: "amd"}
	gpu := &hardware.Engine{Kind: hardware.GPU}
	cases := []struct {
		build string
		dev   *hardware.Device
		want  string
	}{
		{"", nv, "current"},
		{"b2000", nv, "mid"},
		{"b500", nv, "current"}, // the oldest era has no class: the current one
		{"b2000", amd, "pooled"},
	}
	for _, c := range cases {
		r, err := rt.AtBuild(c.build)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.ClassFor(c.dev, gpu).Basis; got != c.want {
			t.Errorf("build %q on %s: class %q, want %q", c.build, c.dev.Family, got, c.want)
		}
	}
	if rt.Build != "" {
		t.Error("AtBuild changed the runtime it was called on")
	}
}

func TestLookupBuild(t *testing.T) {
	cat := catalog(t)
	rt, err := cat.Runtime("llama.cpp@b2000")
	if err != nil {
		t.Fatal(err)
	}
	if rt.Name != "llama.cpp" || rt.Build != "b2000" {
		t.Errorf("got %s@%s", rt.Name, rt.Build)
	}
	if k, _ := rt.EraOf(rt.Build); k == 0 {
		t.Error("b2000 should be an older era of llama.cpp's builds")
	}
	// The built-in profile fits an older class for CUDA only.
	nv := &hardware.Device{Family: "nvidia"}
	gpu := &hardware.Engine{Kind: hardware.GPU}
	cur, _ := cat.Runtime("llama.cpp")
	if old, now := rt.ClassFor(nv, gpu), cur.ClassFor(nv, gpu); old == now || !strings.Contains(old.Basis, "era") {
		t.Errorf("llama.cpp@b2000 on CUDA should use its era's class, got %q", old.Basis)
	}
	for _, bad := range []string{"llama.cpp@", "llama.cpp@someday", "vllm@b100"} {
		if _, err := cat.Runtime(bad); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}
