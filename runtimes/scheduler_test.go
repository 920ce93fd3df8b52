package runtimes_test

import (
	"errors"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
)

// vLLM's larger defaults apply on GPUs of 70 GiB or more except A100s
// (vllm/engine/arg_utils.py get_batch_defaults).
func TestSchedulerLargeDevices(t *testing.T) {
	const gib = 1 << 30
	s := runtimes.Scheduler{Policy: runtimes.Continuous, MaxSeqs: 256, MaxTokens: 2048, BlockSize: 16, OnFull: runtimes.Recompute, Stated: true,
		Large: &runtimes.LargeDevice{Memory: 70 * gib, Except: []string{"a100"}, MaxSeqs: 1024, MaxTokens: 8192}}
	for _, c := range []struct {
		name       string
		mem        float64
		seqs, toks int
	}{{"h100-sxm-80gb", 80 * gib, 1024, 8192}, {"a100-sxm-80gb", 80 * gib, 256, 2048}, {"rtx-4090", 24 * gib, 256, 2048}, {"edge", 70 * gib, 1024, 8192}} {
		got := s.For(&hardware.Device{Name: c.name, Memory: c.mem})
		if got.MaxSeqs != c.seqs || got.MaxTokens != c.toks {
			t.Errorf("%s: %d seqs, %d tokens; want %d, %d", c.name, got.MaxSeqs, got.MaxTokens, c.seqs, c.toks)
		}
	}
	rt := &runtimes.Runtime{ContinuousBatching: false}
	if got := rt.SchedulerFor(nil); got.Policy != runtimes.FIFO || got.MaxSeqs != 1 || got.Stated {
		t.Errorf("a runtime without a scheduler that does not batch: %+v", got)
	}
}

func TestSchedulerValidate(t *testing.T) {
	ok := runtimes.DefaultScheduler(true)
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		knob string
		edit func(*runtimes.Scheduler)
	}{
		{"max_seqs", func(s *runtimes.Scheduler) { s.MaxSeqs = 0 }},
		{"max_tokens", func(s *runtimes.Scheduler) { s.MaxTokens = 100 }}, // below 256 requests
		{"block_size", func(s *runtimes.Scheduler) { s.BlockSize = 0 }},
		{"on_kv_full", func(s *runtimes.Scheduler) { s.OnFull = "swap" }},
		{"policy", func(s *runtimes.Scheduler) { s.Policy = "lifo" }},
		{"max_seqs", func(s *runtimes.Scheduler) { s.Policy = runtimes.FIFO }}, // FIFO with 256
	} {
		s := ok
		c.edit(&s)
		var se *runtimes.SchedulerError
		if err := s.Validate(); !errors.As(err, &se) || se.Knob != c.knob {
			t.Errorf("%+v: error %v, want one on %s", s, err, c.knob)
		}
	}
}
