package model_test

import (
	"strings"
	"testing"

	"github.com/roofline/roofline/model"
)

// Every count is bounded before the inventory is built: norms_per_layer =
// 10⁷ in a model TOML built a tensor list of 10⁷ × layers entries, and
// counts whose products wrap shrank the parameter count.
func TestSpecCeilings(t *testing.T) {
	base := func() *model.Spec {
		return &model.Spec{Name: "x", Hidden: 2048, Layers: 16, Heads: 32, KVHeads: 8, HeadDim: 64, FFN: 8192, Vocab: 128256,
			MaxContext: 131072, MLP: model.Gated, NormsPerLayer: 2}
	}
	if err := base().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*model.Spec)
		want string
	}{
		{func(s *model.Spec) { s.NormsPerLayer = 1e7 }, "norms_per_layer 10000000 exceeds the limit of 16"},
		{func(s *model.Spec) { s.Layers = 5000 }, "num_hidden_layers 5000 exceeds the limit of 2^12"},
		{func(s *model.Spec) { s.Hidden = 1 << 40 }, "hidden_size 1099511627776 exceeds the limit of 2^18"},
		{func(s *model.Spec) { s.FFN = 1 << 21 }, "intermediate_size 2097152 exceeds the limit of 2^20"},
		{func(s *model.Spec) { s.SlidingWindow = 1 << 31 }, "sliding_window 2147483648 exceeds the limit of 2^30"},
		{func(s *model.Spec) { s.MoE = &model.MoE{Experts: 1 << 20, Active: 2, FFN: 1024} }, "moe.experts 1048576 exceeds the limit of 2^14"},
		{func(s *model.Spec) { s.MoE = &model.MoE{Experts: 8, Active: 2, FFN: 1024, Shared: 1000, SharedFFN: 1} }, "moe.shared_experts 1000 exceeds the limit of 2^8"},
		// Each count within its ceiling, the product past 10^15 parameters.
		{func(s *model.Spec) {
			s.Hidden, s.Layers, s.MoE = 1<<18, 4096, &model.MoE{Experts: 1 << 14, Active: 8, FFN: 1 << 20}
		}, "parameters (limit 1e+15)"},
	} {
		s := base()
		c.edit(s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
}
