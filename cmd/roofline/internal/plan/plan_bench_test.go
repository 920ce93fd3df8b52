package plan

import (
	"testing"

	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
)

// fullSpace is the whole built-in catalog: every device × engine × model ×
// weight format × 16 context lengths × 8 batch sizes.
func fullSpace(tb testing.TB) Space {
	cat, err := profiles.Builtin()
	if err != nil {
		tb.Fatal(err)
	}
	return Space{Devices: cat.Devices(), Models: cat.Models(), Weights: AllWeights(),
		Contexts: []int{512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536, 98304, 131072, 163840},
		Batches:  []int{1, 2, 4, 8, 16, 32, 64, 128}, Prompt: 512, Output: 128, UBatch: 512, Options: sim.DefaultOptions, RuntimeSet: cat.Runtimes()}
}

func BenchmarkPlan(b *testing.B) {
	sp := fullSpace(b)
	t := sim.Targets{TTFT: 1, TPOT: 0.2}
	var n int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Run(sp, t)
		if err != nil {
			b.Fatal(err)
		}
		n = res.Evaluated
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "configs/s")
	b.ReportMetric(float64(n), "configs/op")
}
