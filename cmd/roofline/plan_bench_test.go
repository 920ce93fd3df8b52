package main

import (
	"io"
	"testing"
)

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
