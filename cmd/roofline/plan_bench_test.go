package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// fullCatalogJSON is the whole built-in catalog planned in JSON: every
// device × engine × model × weight format at the default contexts.
var fullCatalogJSON = []string{"roofline", "plan", "--hardware", "all", "--model", "all", "--weights", "all", "--format", "json"}

// BenchmarkPlanCommand runs the full-catalog plan end to end, output
// included: every device × engine × model × weight format × 16 context
// lengths × 8 batch sizes.
func BenchmarkPlanCommand(b *testing.B) {
	args := []string{"roofline", "plan", "--hardware", "all", "--model", "all", "--weights", "all",
		"--context", "512,1k,2k,3k,4k,6k,8k,12k,16k,24k,32k,48k,64k,96k,128k,160k", "--batch", "1,2,4,8,16,32,64,128",
		"--ttft", "1s", "--tpot", "200ms"}
	for i := 0; i < b.N; i++ {
		if err := run(args, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanRateOffload prices plan --rate over offloaded
// configurations: docs/planning.md's offload example (three of its four
// recommended rows offloaded to the host, one alone), planned without a
// rate and with one, whose difference is the four rate searches.
func BenchmarkPlanRateOffload(b *testing.B) {
	args := []string{"roofline", "plan", "--hardware", "rtx-4090,rtx-3060", "--model", "llama-3.1-70b,qwen3-30b-a3b", "--weights", "q4_k_m",
		"--context", "8k,32k", "--tpot", "500ms", "--ttft", "20s"}
	for _, bc := range []struct {
		name  string
		extra []string
	}{{"plan", nil}, {"rate", []string{"--rate", "0.01"}}} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := run(append(args[:len(args):len(args)], bc.extra...), io.Discard, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPlanRatePipeline prices plan --rate where the recommended
// configurations include pipelines: Llama-3.1-70B Q4_K_M over two RTX
// 4090s and two RTX 3090s under llama.cpp (two stages each), beside
// Llama-3.1-8B on one card, planned without a rate and with one (four
// searches, two of them pipelines).
func BenchmarkPlanRatePipeline(b *testing.B) {
	args := []string{"roofline", "plan", "--hardware", "rtx-4090,rtx-3090", "--model", "llama-3.1-70b,llama-3.1-8b", "--weights", "q4_k_m",
		"--devices", "1,2", "--ttft", "2s", "--tpot", "100ms"}
	for _, bc := range []struct {
		name  string
		extra []string
	}{{"plan", nil}, {"rate", []string{"--rate", "0.05"}}} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := run(append(args[:len(args):len(args)], bc.extra...), io.Discard, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPlanJSON streams the full-catalog plan as JSON end to end,
// reporting the most memory the process held (sampled).
func BenchmarkPlanJSON(b *testing.B) {
	var n countingWriter
	peak := samplePeak()
	for i := 0; i < b.N; i++ {
		if err := run(fullCatalogJSON, &n, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(peak())/(1<<20), "peak-MB")
	b.ReportMetric(float64(n)/float64(b.N)/(1<<20), "output-MB/op")
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// samplePeak samples the memory the Go runtime holds from the OS (less
// what it has released) every millisecond until stop is called, which
// returns the largest sample.
func samplePeak() (stop func() uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64()-s[1].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak }
}

// TestPlanMemoryFlat plans in a child process, whose peak resident memory
// the kernel reports, once small and once with 72 times the output (8
// contexts × 9 batches, the case that took 10 GB before plan streamed):
// the peak must not grow with the output, and stay under 200 MB.
func TestPlanMemoryFlat(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the child's peak resident memory from Linux /proc")
	}
	if args := os.Getenv("ROOFLINE_PLAN_CHILD"); args != "" {
		var out countingWriter
		if err := run(strings.Split(args, "\x1f"), &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		// The peak of this process's own image (VmHWM): getrusage's
		// maxrss would count the test binary that forked it.
		fmt.Printf("output %d peak %d\n", out, peakRSS())
		return
	}
	peak := func(extra ...string) (rssMB, outMB float64) {
		args := append([]string{"roofline", "plan", "--hardware", "jetson-*,rk3588,raspberry-pi-5-8gb", "--model", "all", "--weights", "all", "--format", "json"}, extra...)
		cmd := exec.Command(os.Args[0], "-test.run=^TestPlanMemoryFlat$")
		cmd.Env = append(os.Environ(), "ROOFLINE_PLAN_CHILD="+strings.Join(args, "\x1f"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var n, rss int64
		if _, err := fmt.Sscanf(string(out), "output %d peak %d", &n, &rss); err != nil {
			t.Fatalf("child: %s", out)
		}
		return float64(rss) / (1 << 20), float64(n) / 1e6
	}
	small, smallOut := peak("--context", "4k")
	large, largeOut := peak("--context", "512,1k,2k,4k,8k,16k,32k,64k", "--batch", "1,2,4,8,16,32,64,128,256")
	t.Logf("peak resident memory: %.0f MB writing %.0f MB, %.0f MB writing %.0f MB", small, smallOut, large, largeOut)
	if largeOut < 20*smallOut {
		t.Fatalf("the large plan wrote %.0f MB, the small one %.0f MB: not the case tested", largeOut, smallOut)
	}
	if large > 1.3*small+20 {
		t.Errorf("peak resident memory grows with the output: %.0f MB writing %.0f MB, %.0f MB writing %.0f MB", small, smallOut, large, largeOut)
	}
	// The race detector's shadow memory is several times the program's
	// own (203 MB for both plans under -race): the bound is roofline's,
	// checked without it.
	if large > 200 && !raceDetector {
		t.Errorf("peak resident memory %.0f MB writing %.0f MB: limit 200 MB", large, largeOut)
	}
}
