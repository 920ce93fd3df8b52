package runtimes

import (
	"testing"

	"github.com/roofline/roofline/hardware"
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
