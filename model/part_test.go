package model_test

import (
	"testing"

	"github.com/roofline/roofline/model"
)

// TestSlicesAddUp: a model cut into parts the way llama.cpp places them
// (the embedding table alone in host memory, the first k layers, the
// dense tensors and the routed experts of the rest apart, the head) adds
// up to the whole model in every byte and FLOP function the time model
// prices: weights, streamed bytes with and without the head, matrix
// products, KV cache, attention FLOPs and activation traffic. Tied models
// count the table once when one part holds both the table and the head.
func TestSlicesAddUp(t *testing.T) {
	for _, c := range []struct{ model, weights string }{
		{"llama-3.1-8b", "q4_k_m"}, {"qwen3-30b-a3b", "q4_k_m"}, {"deepseek-v3", "q4_k_m"},
		{"gemma-2-9b", "q8_0"}, {"llama-3.2-1b", "f16"}, {"gpt-oss-20b", "mxfp4_moe"},
	} {
		whole := build(t, c.model, c.weights, "f16")
		L := whole.Spec.Layers
		k := L / 3
		parts := []model.Part{
			{Embedding: true, Head: whole.Spec.TiedEmbeddings},
			{First: 0, End: k, Dense: true, Experts: true},
			{First: k, End: L, Dense: true},
			{First: k, End: L, Experts: true},
			{Head: !whole.Spec.TiedEmbeddings},
		}
		var sum struct{ weights, s1, s7, d, e, f, kv, attn, act, exp float64 }
		for _, p := range parts {
			if p.Empty() {
				continue
			}
			s, err := whole.Slice(p)
			if err != nil {
				t.Fatal(err)
			}
			sum.weights += s.WeightBytes
			sum.s1 += s.StreamedBytes(1, true)
			sum.s7 += s.StreamedBytes(7, false)
			mm := s.Matmuls(512, 1)
			sum.d += mm.DenseBytes
			sum.e += mm.ExpertBytes
			sum.f += mm.FLOPs()
			sum.kv += s.KVCacheBytes(4096, 512)
			sum.attn += s.AttentionPrefillFLOPs(100, 512) + s.AttentionDecodeFLOPs(5000)
			sum.act += s.ActivationBytes(512)
			sum.exp += s.ParamsActive
		}
		mm := whole.Matmuls(512, 1)
		for _, x := range []struct {
			what      string
			got, want float64
		}{
			{"weights", sum.weights, whole.WeightBytes},
			{"streamed at 1 token", sum.s1, whole.StreamedBytes(1, true)},
			{"streamed at 7 tokens without the head", sum.s7, whole.StreamedBytes(7, false)},
			{"dense bytes of a 512-token pass", sum.d, mm.DenseBytes},
			{"expert bytes of a 512-token pass", sum.e, mm.ExpertBytes},
			{"FLOPs of a 512-token pass", sum.f, mm.FLOPs()},
			{"KV cache at 4096", sum.kv, whole.KVCacheBytes(4096, 512)},
			{"attention FLOPs", sum.attn, whole.AttentionPrefillFLOPs(100, 512) + whole.AttentionDecodeFLOPs(5000)},
			{"activation traffic", sum.act, whole.ActivationBytes(512)},
			{"active parameters", sum.exp, whole.ParamsActive},
		} {
			if !within(x.got, x.want, 1e-12) {
				t.Errorf("%s %s: parts add up to %.6g, the model is %.6g", c.model, x.what, x.got, x.want)
			}
		}
	}
}

// TestSliceOfAll: the part holding everything is the model.
func TestSliceOfAll(t *testing.T) {
	whole := build(t, "qwen3-30b-a3b", "q4_k_m", "f16")
	s, err := whole.Slice(model.Part{First: 0, End: whole.Spec.Layers, Dense: true, Experts: true, Embedding: true, Head: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.WeightBytes != whole.WeightBytes || s.StreamedBytes(3, true) != whole.StreamedBytes(3, true) ||
		s.ActivationPeakBytes(512) != whole.ActivationPeakBytes(512) || s.KVBytes(777) != whole.KVBytes(777) {
		t.Errorf("the slice of every tensor differs from the model: weights %g vs %g", s.WeightBytes, whole.WeightBytes)
	}
	if _, err := whole.Slice(model.Part{First: 0, End: whole.Spec.Layers + 1, Dense: true}); err == nil {
		t.Error("a part beyond the model's layers was accepted")
	}
}

// TestShard: one of 8 tensor-parallel ranks of Llama-3.1-70B (8 KV
// heads) streams and computes an eighth and holds an eighth of the KV
// cache; at 16 ranks each still holds one KV head (an eighth); an MLA
// latent cache (DeepSeek-V3) is whole on every rank.
func TestShard(t *testing.T) {
	m := build(t, "llama-3.1-70b", "bf16", "f16")
	s8 := m.Shard(8)
	if !within(s8.StreamedBytes(1, true), m.StreamedBytes(1, true)/8, 1e-12) || !within(s8.DecodeFLOPs(100), m.DecodeFLOPs(100)/8, 1e-12) {
		t.Errorf("rank of 8: streams %g, computes %g; want an eighth of %g and %g", s8.StreamedBytes(1, true), s8.DecodeFLOPs(100), m.StreamedBytes(1, true), m.DecodeFLOPs(100))
	}
	if !within(s8.KVBytes(1000), m.KVBytes(1000)/8, 1e-12) || !within(m.Shard(16).KVBytes(1000), m.KVBytes(1000)/8, 1e-12) {
		t.Errorf("KV per rank: %g at 8, %g at 16; want %g (an eighth) at both", s8.KVBytes(1000), m.Shard(16).KVBytes(1000), m.KVBytes(1000)/8)
	}
	d := build(t, "deepseek-v3", "fp8", "bf16")
	if d.Shard(8).KVBytes(1000) != d.KVBytes(1000) {
		t.Errorf("an MLA latent cache is replicated on every rank: %g, want %g", d.Shard(8).KVBytes(1000), d.KVBytes(1000))
	}
}

// TestKVPerLayerToken: the KV a token adds to one of the layers that
// hold it, for a whole model and for a slice of its layers (a device's
// part), which holds the same per layer: Llama-3.1-8B at f16, 2 (K,V) ·
// 8 kv heads · 128 · 2 B = 4096 B, whole (131072 B over 32 layers) and
// for layers 8…15 (32768 B over 8, not over the model's 32: 1024);
// Gemma-2-2B 2 · 4 · 256 · 2 B = 4096 B (106496 B over 26); a part with
// no dense tensors holds none.
func TestKVPerLayerToken(t *testing.T) {
	llama := build(t, "llama-3.1-8b", "f16", "f16")
	cases := []struct {
		name      string
		model     *model.Cost
		part      *model.Part
		perToken  float64
		perLayerT float64
	}{
		{"llama whole", llama, nil, 131072, 4096},
		{"llama layers 8-15", llama, &model.Part{First: 8, End: 16, Dense: true}, 32768, 4096},
		{"llama experts only", llama, &model.Part{First: 8, End: 16}, 0, 0},
		{"gemma-2-2b whole", build(t, "gemma-2-2b", "f16", "f16"), nil, 106496, 4096},
	}
	for _, c := range cases {
		m := c.model
		if c.part != nil {
			var err error
			if m, err = m.Slice(*c.part); err != nil {
				t.Fatal(err)
			}
		}
		if got, gotL := m.KVBytesPerToken(), m.KVPerLayerToken(); got != c.perToken || gotL != c.perLayerT {
			t.Errorf("%s: %v B a token, %v B a layer; want %v, %v", c.name, got, gotL, c.perToken, c.perLayerT)
		}
	}
}
