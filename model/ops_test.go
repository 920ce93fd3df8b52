package model_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
)

// Every model of the catalog, in formats and layouts that exercise the
// head, the embedding, MLA, windows and experts: the operators' bytes and
// FLOPs add up to the model's, pass by pass, whatever the runtime fuses.
func TestOperatorsAddUp(t *testing.T) {
	layouts := []model.Layout{
		{},
		{Head: model.Int8PerChannel, Embedding: model.F16, UntieEmbedding: true}, // RKLLM's
		{IgnoreWindows: true},
		{MLA: model.MLALatentV},
	}
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cat.Models() {
		for li, l := range layouts {
			for _, w := range []string{"q4_0", "f16"} {
				wf, _ := model.LookupWeightFormat(w)
				kv, _ := model.LookupKVFormat("f16")
				c, err := model.Build(s, wf, kv, l)
				if err != nil {
					continue // a layout the model refuses (MLA caches of a model without MLA are fine; block KV widths)
				}
				for _, f := range []model.Fusion{{}, {QKV: true, GateUp: true}} {
					for _, flash := range []bool{true, false} {
						name := fmt.Sprintf("%s/%s/layout%d/%+v/flash=%v", s.Name, w, li, f, flash)
						checkAddsUp(t, name, c, f, flash)
					}
				}
			}
		}
	}
}

func checkAddsUp(t *testing.T, name string, c *model.Cost, f model.Fusion, flash bool) {
	t.Helper()
	ops, err := c.Operators(f, flash)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	type figure struct {
		what  string
		model func(*model.Cost) float64
	}
	var figs []figure
	for _, tok := range []int{1, 7, 512} {
		for _, logits := range []int{0, 1, tok} {
			tok, logits := tok, logits
			field := func(what string, get func(model.Matmuls) float64) {
				figs = append(figs, figure{fmt.Sprintf("%s(%d,%d)", what, tok, logits), func(c *model.Cost) float64 { return get(c.Matmuls(tok, logits)) }})
			}
			field("DenseBytes", func(m model.Matmuls) float64 { return m.DenseBytes })
			field("DenseFLOPs", func(m model.Matmuls) float64 { return m.DenseFLOPs })
			field("ExpertBytes", func(m model.Matmuls) float64 { return m.ExpertBytes })
			field("ExpertFLOPs", func(m model.Matmuls) float64 { return m.ExpertFLOPs })
		}
		figs = append(figs, figure{fmt.Sprintf("ActivationBytes(%d)", tok), func(c *model.Cost) float64 { return c.ActivationBytes(tok) }})
	}
	for _, ctx := range []int{1, 100, 5000, 200000} {
		figs = append(figs,
			figure{fmt.Sprintf("KVBytes(%d)", ctx), func(c *model.Cost) float64 { return c.KVBytes(ctx) }},
			figure{fmt.Sprintf("ScoreBytesDecode(%d)", ctx), func(c *model.Cost) float64 { return c.ScoreBytesDecode(ctx) }},
			figure{fmt.Sprintf("AttentionDecodeFLOPs(%d)", ctx), func(c *model.Cost) float64 { return c.AttentionDecodeFLOPs(ctx) }},
			figure{fmt.Sprintf("AttentionPrefillFLOPs(%d,512)", ctx), func(c *model.Cost) float64 { return c.AttentionPrefillFLOPs(ctx, 512) }},
			figure{fmt.Sprintf("ScoreBytesPrefill(%d,512)", ctx), func(c *model.Cost) float64 { return c.ScoreBytesPrefill(ctx, 512) }},
		)
	}
	figs = append(figs, figure{"weights", func(c *model.Cost) float64 { return c.WeightBytes - c.UnlistedBytes }})
	for _, fg := range figs {
		var sum float64
		for _, o := range ops.Ops {
			if fg.what == "weights" && o.SharesTable {
				continue
			}
			sum += fg.model(o.Account)
		}
		if want := fg.model(c); !within(sum, want, 1e-12) && !(want == 0 && sum == 0) {
			t.Errorf("%s: Σ operators' %s = %.17g, the model's %.17g", name, fg.what, sum, want)
		}
	}
}

// The operators a runtime runs: fused where it fuses, the model's own
// fused tensors always, flash attention as one operator, and the layers
// grouped by kind.
func TestOperatorList(t *testing.T) {
	names := func(c *model.Cost, f model.Fusion, flash bool) (string, []model.LayerGroup) {
		ops, err := c.Operators(f, flash)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, o := range ops.Ops {
			g := "-"
			if o.Group >= 0 {
				g = ops.Groups[o.Group].Label
			}
			out = append(out, g+":"+o.Name)
		}
		return strings.Join(out, " "), ops.Groups
	}
	llama := build(t, "llama-3.1-8b", "q4_k_m", "f16")
	got, groups := names(llama, model.Fusion{}, true)
	want := "-:embedding layers:norms layers:q_proj layers:k_proj layers:v_proj layers:flash_attention layers:o_proj layers:gate_proj layers:up_proj layers:down_proj -:final_norm -:lm_head"
	if got != want {
		t.Errorf("llama-3.1-8b under llama.cpp:\n got %s\nwant %s", got, want)
	}
	if len(groups) != 1 || groups[0].Layers != 32 {
		t.Errorf("llama-3.1-8b groups %+v, want one of 32 layers", groups)
	}
	got, _ = names(llama, model.Fusion{QKV: true, GateUp: true}, false)
	want = "-:embedding layers:norms layers:qkv_proj layers:qk_matmul layers:softmax layers:sv_matmul layers:o_proj layers:gate_up_proj layers:down_proj -:final_norm -:lm_head"
	if got != want {
		t.Errorf("llama-3.1-8b fused, unfused attention:\n got %s\nwant %s", got, want)
	}
	// Gemma 2: 13 sliding (4096) and 13 global layers, a tied head.
	gemma := build(t, "gemma-2-2b", "q4_0", "f16")
	ops, err := gemma.Operators(model.Fusion{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops.Groups) != 2 || ops.Groups[0].Label != "sliding 4096" || ops.Groups[1].Label != "global" || ops.Groups[0].Layers != 13 || ops.Groups[1].Layers != 13 {
		t.Errorf("gemma-2-2b groups %+v, want sliding 4096 and global, 13 layers each", ops.Groups)
	}
	head := ops.Ops[len(ops.Ops)-1]
	if head.Name != "lm_head" || !head.SharesTable {
		t.Errorf("gemma-2-2b's last operator %s shares the table %v, want the tied lm_head", head.Name, head.SharesTable)
	}
	// 2·V·H = 2 × 256,000 × 2304 = 1,179,648,000 FLOP per token's logits.
	if got := head.Account.HeadFLOPs(); got != 1179648000 {
		t.Errorf("gemma-2-2b head FLOPs %g, want 1,179,648,000", got)
	}
	// DeepSeek-V3: 3 dense layers, 58 MoE layers; MLA's projections.
	ds := build(t, "deepseek-v3", "q4_k_m", "f16")
	got, groups = names(ds, model.Fusion{QKV: true, GateUp: true}, true)
	if len(groups) != 2 || groups[0].Label != "dense" || groups[1].Label != "MoE" || groups[0].Layers != 3 || groups[1].Layers != 58 {
		t.Errorf("deepseek-v3 groups %+v, want 3 dense and 58 MoE layers", groups)
	}
	for _, w := range []string{"dense:q_a_proj", "dense:kv_b_proj", "MoE:router", "MoE:experts_gate_up", "MoE:experts_down", "MoE:shared_gate_up", "MoE:shared_down", "dense:gate_up_proj"} {
		if !strings.Contains(got, w+" ") {
			t.Errorf("deepseek-v3 operators lack %s: %s", w, got)
		}
	}
	if strings.Contains(got, "qkv_proj") {
		t.Errorf("MLA has no q, k and v projections to fuse: %s", got)
	}
	// gpt-oss: MXFP4 experts, sinks in the softmax.
	oss := build(t, "gpt-oss-20b", "mxfp4_moe", "f16")
	ops, err = oss.Operators(model.Fusion{}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ops.Ops {
		if o.Name == "experts_down" && o.Types != "mxfp4+f32" { // the biases stay f32
			t.Errorf("gpt-oss experts_down types %q, want mxfp4+f32", o.Types)
		}
		if o.Name == "softmax" && o.Account.WeightBytes == 0 {
			t.Errorf("gpt-oss softmax carries no sink weights")
		}
	}
	if _, err := model.BuildSums(gemma.Spec, gemma.Spec.Tensors(), gemma.Weights, gemma.KV, model.Layout{}); err != nil {
		t.Fatal(err)
	}
	sums, _ := model.BuildSums(gemma.Spec, gemma.Spec.Tensors(), gemma.Weights, gemma.KV, model.Layout{})
	if _, err := sums.Operators(model.Fusion{}, true); !errors.Is(err, model.ErrNoTensors) {
		t.Errorf("a cost without tensors: %v, want ErrNoTensors", err)
	}
}

// BenchmarkOperators lists a 26-layer model's operators anew: what the
// first view of a cost pays once (Cost.Operators keeps the list; sim's
// BenchmarkOperatorViews is the rest).
func BenchmarkOperators(b *testing.B) {
	c := build(b, "gemma-2-2b", "q4_0", "f16")
	b.ReportAllocs()
	for range b.N {
		if ops := model.ListOperators(c, model.Fusion{}, true); len(ops.Ops) == 0 {
			b.Fatal("no operators")
		}
	}
}

// A cost lists its operators once per fusion and attention; a cost fitted
// to a file lists its own.
func TestOperatorsMemo(t *testing.T) {
	c := build(t, "llama-3.1-8b", "q4_k_m", "f16")
	a, _ := c.Operators(model.Fusion{}, true)
	b, _ := c.Operators(model.Fusion{}, true)
	fused, _ := c.Operators(model.Fusion{QKV: true}, true)
	if a != b || a == fused {
		t.Errorf("memo: same request %p %p, another %p", a, b, fused)
	}
	fit, ff := c.FitTo(1.05 * c.WeightBytes)
	if !ff.Absorbed {
		t.Fatalf("fit %+v", ff)
	}
	f, _ := fit.Operators(model.Fusion{}, true)
	var bytes, fitBytes float64
	for i := range a.Ops {
		bytes += a.Ops[i].Account.WeightBytes
		fitBytes += f.Ops[i].Account.WeightBytes
	}
	if f == a || !within(fitBytes, fit.WeightBytes, 1e-12) || within(fitBytes, bytes, 1e-3) {
		t.Errorf("the fitted cost's operators weigh %g (cost %g), the recipe's %g", fitBytes, fit.WeightBytes, bytes)
	}
}
