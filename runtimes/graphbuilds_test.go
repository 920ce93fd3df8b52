package runtimes

import (
	"math"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/units"
)

// TestGraphBatchBuilds: a graph_batch limited to builds up to b7815
// (before 2026-02-15) holds for those builds, named by number, date or
// an older era, and not for later or current builds, which replay a
// step of any batch as one graph (llama.cpp pull request #19645).
func TestGraphBatchBuilds(t *testing.T) {
	rt := &Runtime{Name: "r",
		Eras:    []Era{{Name: "old", LastBuild: 3166, Until: "2024-06-24"}},
		Engines: []Support{{Kind: hardware.GPU, GraphBatch: 1, GraphBuilds: Builds{LastBuild: 7815, Until: "2026-02-15"}}}}
	d := &hardware.Device{Name: "d"}
	e := &hardware.Engine{Name: "gpu", Kind: hardware.GPU}
	for _, c := range []struct {
		build string
		want  int
	}{
		{"", 0}, {"b6918", 1}, {"7815", 1}, {"b7816", 0}, {"b9000", 0},
		{"2025-11-02", 1}, {"2026-02", 1}, {"2026-02-14", 1}, {"2026-02-15", 0}, {"2026-03", 0},
		{"old", 1},
	} {
		r := *rt
		r.Build = c.build
		if got, _ := r.GraphBatch(d, e); got != c.want {
			t.Errorf("build %q: graph batch %d, want %d", c.build, got, c.want)
		}
	}
	unlimited := *rt
	unlimited.Engines = []Support{{Kind: hardware.GPU, GraphBatch: 1}}
	if got, _ := unlimited.GraphBatch(d, e); got != 1 {
		t.Errorf("a graph_batch without builds holds for the current build: got %d, want 1", got)
	}
}

// TestPrefillTile: a prefill tile (llama.cpp's MMQ, 128 columns) holds
// for the current builds and for named builds after the older era of its
// backend, not for builds of that era (which dequantized to cuBLAS), nor
// on an engine whose stated compute capability is below the tile's, nor
// for an era of another backend.
func TestPrefillTile(t *testing.T) {
	rt := &Runtime{Name: "r",
		Eras:    []Era{{Name: "old", LastBuild: 3166, Until: "2024-06-24", Backends: []string{"cuda"}}},
		Engines: []Support{{Kind: hardware.GPU, Backend: "cuda", PrefillTile: 128, TileMinCC: 7.5, TileRows: 128}}}
	d := &hardware.Device{Name: "d"}
	for _, c := range []struct {
		build string
		cc    float64
		want  int
	}{
		{"", 0, 128},        // current build, no capability stated
		{"b6918", 8.9, 128}, // after the era, Ada
		{"b3166", 8.6, 0},   // the era's last build: cuBLAS
		{"old", 0, 0},
		{"2024-07", 7.5, 128}, // Turing, the lowest with mmq_x = 128
		{"", 7.0, 0},          // Volta: below the tile's 7.5
		{"", 5.3, 0},          // the Jetson Nano's Maxwell
	} {
		r := *rt
		r.Build = c.build
		e := &hardware.Engine{Name: "gpu", Kind: hardware.GPU, ComputeCapability: c.cc}
		got, rows := r.PrefillTile(d, e)
		if wantRows := min(c.want, 128); got != c.want || rows != wantRows {
			t.Errorf("build %q, compute capability %g: tile %d of %d rows, want %d of %d", c.build, c.cc, got, rows, c.want, wantRows)
		}
	}
	other := *rt
	other.Eras = []Era{{Name: "old", LastBuild: 3166, Until: "2024-06-24", Backends: []string{"metal"}}}
	other.Build = "old"
	if got, _ := other.PrefillTile(d, &hardware.Engine{Name: "gpu", Kind: hardware.GPU}); got != 128 {
		t.Errorf("an era of another backend: tile %d, want 128", got)
	}
	none := *rt
	none.Engines = []Support{{Kind: hardware.GPU, Backend: "cuda"}}
	if got, _ := none.PrefillTile(d, &hardware.Engine{Name: "gpu", Kind: hardware.GPU}); got != 0 {
		t.Errorf("no prefill_tile: tile %d, want 0", got)
	}
}

// TestKernelSince: a [[kernel]] rule limited to builds from b7175
// (2025-11-27, llama.cpp's repacked Q4_K GEMM, pull request #17494)
// prices the current build, one named by none and later builds; an older
// build, named by number, date or era, skips it and takes the next rule
// covering the type. The factors are arbitrary: 1 under the new rule
// (it states none), 0.686 under the old one (21.3 / 31.03 OP/clk, the
// vec_dot kernel over the GEMM on a Cortex-A76, docs/method.md §6).
func TestKernelSince(t *testing.T) {
	q4km, err := model.LookupWeightFormat("q4_k_m")
	if err != nil {
		t.Fatal(err)
	}
	cpu := []units.Precision{units.INT8, units.FP32}
	rt := &Runtime{Name: "r",
		Eras: []Era{{Name: "old", LastBuild: 3166, Until: "2024-06-24"}},
		Kernels: []Kernel{
			{Formats: []string{"q4_k"}, Kind: hardware.CPU, Compute: cpu, Since: Builds{LastBuild: 7174, Until: "2025-11-27", Source: "[L] #17494"}},
			{Formats: []string{"q4_k"}, Kind: hardware.CPU, Compute: cpu, DotFactor: 0.686, DotSource: "[D] vec_dot"},
			{Formats: []string{"gguf-quant"}, Kind: hardware.CPU, Compute: cpu},
		}}
	sdot := &hardware.Engine{Kind: hardware.CPU}
	types := []model.TypeFLOPs{{Type: model.Q4K, FLOPs: 1}}
	for _, c := range []struct {
		build string
		want  float64
	}{
		{"", 1}, {"b7175", 1}, {"b9000", 1}, {"2025-11-27", 1}, {"2026-08-21", 1},
		{"b7174", 0.686}, {"7095", 0.686}, {"2025-11-23", 0.686}, {"2025-11", 0.686}, {"old", 0.686},
	} {
		r := *rt
		r.Build = c.build
		if got, _ := r.KernelFactor(q4km, types, sdot, units.INT8); got != c.want {
			t.Errorf("build %q: factor %g, want %g", c.build, got, c.want)
		}
	}
	// A Q4_K_M file's Q6_K tensors take no Q4_K rule, whatever the build:
	// the catch-all's 1 at b7174 as at the current build; the whole file
	// of 3 parts Q4_K and 1 part Q6_K at b7174 is 4 / (3/0.686 + 1) = 0.7454.
	mix := []model.TypeFLOPs{{Type: model.Q4K, FLOPs: 3}, {Type: model.Q6K, FLOPs: 1}}
	old := *rt
	old.Build = "b7174"
	if got, _ := old.KernelFactor(q4km, mix, sdot, units.INT8); math.Abs(got-4/(3/0.686+1)) > 1e-12 {
		t.Errorf("Q4_K and Q6_K at b7174: %g, want %g", got, 4/(3/0.686+1))
	}
}
