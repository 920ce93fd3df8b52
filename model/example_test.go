package model_test

import (
	"fmt"

	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
)

// A model's cost: its parameters, its weight bytes in a format, its KV
// cache and the work of one decode step, all from the same inventory.
func ExampleCost() {
	cat, err := profiles.Builtin()
	if err != nil {
		panic(err)
	}
	s, err := cat.Model("llama-3.1-8b")
	if err != nil {
		panic(err)
	}
	c, err := model.BuildNamed(s, "q4_k_m", "f16", model.Layout{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("parameters: %.0f\n", c.ParamsTotal)
	fmt.Printf("weights in q4_k_m: %.3f GiB, %.2f bits per weight\n", c.WeightBytes/(1<<30), c.BitsPerWeight())
	// 2 (K, V) × 32 layers × 8 KV heads × 128 × 2 B = 131072 B.
	fmt.Printf("KV cache: %.0f B per token, %.2f GiB at 8192 tokens\n", c.KVBytesPerToken(), c.KVBytes(8192)/(1<<30))
	// 2 × 6.98 G matrix weights + 2 × 128256 × 4096 logits
	// + 32 layers × 4 × 32 heads × 128 × 4096 keys = 17.16 GFLOP.
	fmt.Printf("decode step attending 4096 keys: %.4g FLOP\n", c.DecodeFLOPs(4096))
	// Output:
	// parameters: 8030261248
	// weights in q4_k_m: 4.575 GiB, 4.89 bits per weight
	// KV cache: 131072 B per token, 1.00 GiB at 8192 tokens
	// decode step attending 4096 keys: 1.716e+10 FLOP
}
