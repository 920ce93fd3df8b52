package serve

import "testing"

// TestMaxRateInterval: the search at the fast end of the step-time
// interval finds a larger rate than at the expected step times, and the
// slow end a smaller one (steps of every kind faster or slower, the same
// requests): for the Jetson under llama.cpp's server and the H100 under
// vLLM.
func TestMaxRateInterval(t *testing.T) {
	for _, c := range examples[1:] {
		t.Run(c.name, func(t *testing.T) {
			sv := server(t, setup(t, c.model, c.weights, c.device, c.engine, c.runtime), 512)
			w := Workload{Arrival: Poisson, Rate: 1, Requests: 300, Prompt: Dist{Kind: Fixed, A: 500}, Output: Dist{Kind: Fixed, A: 100}, Seed: 1}
			r, err := sv.MaxRateInterval(w, Targets{TTFT: 1, TPOT: 0.2}, 12, 0.8)
			if err != nil {
				t.Fatal(err)
			}
			if r.Fast == nil || r.Slow == nil || r.Level != 0.8 {
				t.Fatalf("no interval: %+v", r)
			}
			e, f, s := r.Expected.MaxRate, r.Fast.MaxRate, r.Slow.MaxRate
			if !(s > 0 && s < e && e < f) {
				t.Errorf("max rates slow %g, expected %g, fast %g: want 0 < slow < expected < fast", s, e, f)
			}
			// The expected search is MaxRate's own.
			m, err := sv.MaxRate(w, Targets{TTFT: 1, TPOT: 0.2}, 12)
			if err != nil || m.MaxRate != e {
				t.Errorf("MaxRate %v, %v; the interval's expected %g", m, err, e)
			}
		})
	}
}
