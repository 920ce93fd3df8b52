package runtimes_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/units"
)

func catalog(t *testing.T) *profiles.Catalog {
	t.Helper()
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// cost prices a built-in model under a runtime's layout.
func cost(t *testing.T, cat *profiles.Catalog, name, runtime, weights, kv string) *model.Cost {
	t.Helper()
	s, err := cat.Model(name)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cat.Runtime(runtime)
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.BuildNamed(s, weights, kv, rt.LayoutFor(s, weights))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The same model's KV cache depends on the runtime: whether it honours
// the sliding window, and how many tokens its window cache holds.
func TestRuntimeKVLayouts(t *testing.T) {
	cat := catalog(t)
	// Mistral-7B v0.1: 32 layers × 2 (K, V) × 8 KV heads × 128 × 2 B
	// = 131072 B per token, a 4096-token window on every layer.
	const mistralPerToken = 32 * 2 * 8 * 128 * 2
	// Gemma-3-4B: 34 layers, every sixth full (5 full, 29 sliding at
	// 1024 tokens); per layer and token 2 × 4 KV heads × 256 × 2 B.
	const gemmaPerLayer = 2 * 4 * 256 * 2
	cases := []struct {
		name, model, runtime, kv string
		ctx, ubatch              int
		cache, reads             float64 // KVCacheBytes (memory), KVBytes (what attention reads)
	}{
		// llama.cpp never implemented Mistral v0.1's window: the full
		// 30000 tokens are cached and read.
		{"mistral llama.cpp", "mistral-7b", "llama.cpp", "f16", 30000, 512, 30000 * mistralPerToken, 30000 * mistralPerToken},
		// vLLM honours it: attention reads the 4096-token window; the
		// cache holds (⌈(4096 − 1 + 512)/16⌉ + 1) × 16 = 289 × 16 = 4624
		// tokens (SlidingWindowSpec).
		{"mistral vllm", "mistral-7b", "vllm", "bf16", 30000, 512, 4624 * mistralPerToken, 4096 * mistralPerToken},
		// llama.cpp's SWA cache: pad₂₅₆(1024 + 512) = 1536 cells on the 29
		// sliding layers, the whole 4096 tokens on the 5 full ones:
		// (29·1536 + 5·4096)·4096 B = 266,338,304 B, 29.6 % above the
		// window alone (205,520,896 B), which attention reads.
		{"gemma-3 llama.cpp", "gemma-3-4b", "llama.cpp", "f16", 4096, 512, (29*1536 + 5*4096) * gemmaPerLayer, (29*1024 + 5*4096) * gemmaPerLayer},
		// MLX's rotating cache holds exactly the window.
		{"gemma-3 mlx", "gemma-3-4b", "mlx", "f16", 4096, 512, (29*1024 + 5*4096) * gemmaPerLayer, (29*1024 + 5*4096) * gemmaPerLayer},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := cost(t, cat, c.model, c.runtime, "bf16", c.kv)
			if got := m.KVCacheBytes(c.ctx, c.ubatch); got != c.cache {
				t.Errorf("KV cache at %d tokens: %.0f B, want %.0f B", c.ctx, got, c.cache)
			}
			if got := m.KVBytes(c.ctx); got != c.reads {
				t.Errorf("KV read at %d tokens: %.0f B, want %.0f B", c.ctx, got, c.reads)
			}
		})
	}
}

// DeepSeek-V3's MLA cache under the llama.cpp builds: 61 layers, today
// the kv_lora_rank 512 + rope 64 latent (576 values), builds from April
// 2025 to January 2026 also V at 512: 1088/576 = 1.89×.
func TestMLACacheByBuild(t *testing.T) {
	cat := catalog(t)
	s, _ := cat.Model("deepseek-v3")
	for _, c := range []struct {
		mla  model.MLACache
		want float64
	}{
		{model.MLALatent, 61 * 576 * 2},
		{model.MLALatentV, 61 * (576 + 512) * 2},
	} {
		m, err := model.BuildNamed(s, "q4_k_m", "f16", model.Layout{MLA: c.mla})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.KVBytesPerToken(); got != c.want {
			t.Errorf("%q: %.0f B per token, want %.0f", c.mla, got, c.want)
		}
	}
	if m := cost(t, cat, "deepseek-v3", "llama.cpp", "q4_k_m", "f16"); m.KVBytesPerToken() != 61*576*2 {
		t.Errorf("llama.cpp today caches %.0f B per token, want the latent's %d", m.KVBytesPerToken(), 61*576*2)
	}
}

// llama.cpp keeps an untied token_embd in host memory: on a discrete GPU
// it does not take VRAM. Llama-3.1-8B q4_k_m: the table is 128256 × 4096
// at q4_k (144 B per 256) = 128256·16·144 = 295,501,824 B.
func TestHostEmbedding(t *testing.T) {
	cat := catalog(t)
	m := cost(t, cat, "llama-3.1-8b", "llama.cpp", "q4_k_m", "f16")
	if got := m.WeightBytes - m.ResidentWeightBytes(false); got != 128256*16*144 {
		t.Errorf("host embedding %.0f B, want %d", got, 128256*16*144)
	}
	if m.ResidentWeightBytes(true) != m.WeightBytes {
		t.Errorf("unified memory holds everything")
	}
	// A tied model's table is also its head, which lives on the device.
	tied := cost(t, cat, "llama-3.2-1b", "llama.cpp", "q4_k_m", "f16")
	if tied.ResidentWeightBytes(false) != tied.WeightBytes {
		t.Errorf("tied model: %.0f of %.0f B resident", tied.ResidentWeightBytes(false), tied.WeightBytes)
	}
}

// The default format is the model's native checkpoint where the runtime
// runs checkpoints, and the runtime's form of it where it has one:
// gpt-oss (MXFP4 experts) on an H100 runs under vLLM as the mxfp4
// checkpoint; on a DGX Spark under llama.cpp as the MXFP4_MOE GGUF. Both
// TestChooseWhy: the reason predict prints for the runtime it chose
// reads as English for every family, which "the usual runtime for a %s
// %s" did not: "for a apple gpu", "for a amd gpu", "for a cpu cpu".
func TestChooseWhy(t *testing.T) {
	cat := catalog(t)
	s, _ := cat.Model("llama-3.2-1b")
	for _, c := range []struct{ device, want string }{
		{"apple-m4-pro", "the usual runtime on apple gpus"},
		{"jetson-orin-nano-super-8gb", "the usual runtime on jetson gpus"},
		{"raspberry-pi-5-8gb", "the usual runtime on raspberry-pi cpus"},
		{"desktop-ddr5", "the usual runtime on cpus"},
		{"h100-sxm", "the usual runtime for a datacenter GPU"},
	} {
		d, err := cat.Device(c.device)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := cat.Runtimes().Choose(s, d, runtimes.Request{})
		if err != nil {
			t.Fatalf("%s: %v", c.device, err)
		}
		if ch.Why != c.want {
			t.Errorf("%s: %q, want %q", c.device, ch.Why, c.want)
		}
	}
}

// keep every routed expert at mxfp4.
func TestDefaultWeightsNative(t *testing.T) {
	cat := catalog(t)
	for _, c := range []struct{ model, device, runtime, weights string }{
		{"gpt-oss-20b", "h100-sxm", "vllm", "mxfp4"},
		{"gpt-oss-120b", "h100-sxm", "vllm", "mxfp4"},
		{"gpt-oss-20b", "dgx-spark", "llama.cpp", "mxfp4_moe"},
		{"gpt-oss-120b", "dgx-spark", "llama.cpp", "mxfp4_moe"},
		{"llama-3.1-8b", "h100-sxm", "vllm", "bf16"},
		{"llama-3.1-8b", "dgx-spark", "llama.cpp", "q4_k_m"},
		{"qwen2.5-1.5b", "rk3588", "rkllm", "w8a8"},
	} {
		s, _ := cat.Model(c.model)
		d, _ := cat.Device(c.device)
		ch, err := cat.Runtimes().Choose(s, d, runtimes.Request{})
		if err != nil {
			t.Fatalf("%s on %s: %v", c.model, c.device, err)
		}
		if ch.Runtime.Name != c.runtime || ch.Weights.Name != c.weights {
			t.Errorf("%s on %s: %s %s, want %s %s", c.model, c.device, ch.Runtime.Name, ch.Weights.Name, c.runtime, c.weights)
		}
		if s.MoE == nil {
			continue
		}
		for _, tn := range s.Tensors() {
			if tn.Routed && tn.Matmul {
				if st := ch.Weights.TypeOf(s, tn); st != model.MXFP4 {
					t.Errorf("%s on %s: expert %s stored %s", c.model, c.device, tn.Name, st.Name)
				}
			}
		}
	}
	// 120b on an 80 GB H100: the checkpoint's 60.8 GiB fits in vLLM's 90 %.
	s, _ := cat.Model("gpt-oss-120b")
	d, _ := cat.Device("h100-sxm")
	ch, _ := cat.Runtimes().Choose(s, d, runtimes.Request{})
	m := cost(t, cat, "gpt-oss-120b", "vllm", ch.Weights.Name, "bf16")
	if usable := d.Usable * ch.Runtime.MemoryShare; m.WeightBytes > usable {
		t.Errorf("gpt-oss-120b checkpoint %.4g B does not fit %.4g B", m.WeightBytes, usable)
	}
}

// Requests a runtime cannot serve are refused with the reason and what
// it does run.
func TestChooseRefuses(t *testing.T) {
	cat := catalog(t)
	s, _ := cat.Model("llama-3.1-8b")
	cases := []struct {
		device string
		req    runtimes.Request
		want   []string
	}{
		{"h100-sxm", runtimes.Request{Runtime: "vlm"}, []string{`unknown runtime "vlm"`}},
		{"h100-sxm", runtimes.Request{Runtime: "mlc", Weights: "q4_k_m"}, []string{"runtime mlc does not run weight format q4_k_m", "q4f16_1"}},
		{"rk3588", runtimes.Request{Runtime: "llama.cpp", Engine: "npu"}, []string{"runtime llama.cpp does not run the npu engine of rk3588", "(choose another engine or runtime)"}},
		{"apple-m2-max", runtimes.Request{Runtime: "vllm"}, []string{"runtime vllm does not run any engine of apple-m2-max (apple); it runs on gpu engines of nvidia, jetson, amd devices", "(choose another runtime)"}},
	}
	for _, c := range cases {
		d, err := cat.Device(c.device)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cat.Runtimes().Choose(s, d, c.req)
		if err == nil {
			t.Errorf("%s %+v: no error", c.device, c.req)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %+v: %q lacks %q", c.device, c.req, err, w)
			}
		}
		var ue *model.UnknownError
		var un *runtimes.UnsupportedError
		if !errors.As(err, &ue) && !errors.As(err, &un) {
			t.Errorf("%s %+v: untyped error %v", c.device, c.req, err)
		}
		// The inputs to choose again are fields a command names as
		// flags; the library's words name no flag.
		if un != nil && strings.Contains(err.Error(), "choose another") {
			flags := un.Message(func(in string) string { return "--" + in })
			if len(un.Choose) == 0 || strings.Contains(err.Error(), "--") || !strings.Contains(flags, "choose another --"+un.Choose[0]) {
				t.Errorf("%s %+v: choose %v, %q, with flags %q", c.device, c.req, un.Choose, err, flags)
			}
		}
	}
}

// RKLLM's w8a8 layout prices the file and each decode step alike: an int8
// head with an fp16 scale per row and a separate fp16 embedding table,
// tied models included. Llama-3.2-1B (H 2048, 16 layers, 8 KV heads of
// 64, FFN 8192, vocabulary 128256, tied), int8 rows of cols + 2 B:
//
//	per layer: q, o 2048·2050 ·2 + k, v 512·2050 ·2 + gate, up 8192·2050 ·2
//	           + down 2048·8194 = 60,864,512 B, + 2 fp16 norms 8,192 B
//	16 layers: 973,963,264 B; final norm 4,096 B
//	head:      128256 · 2050 = 262,924,800 B (int8, read every step)
//	embedding: 128256 · 2048 · 2 = 525,336,576 B in the file, one
//	           4,096 B row per step
//
// file 1,762,228,736 B (the published 1.78 GB, −1.0 %); a step streams
// 973,963,264 + 4,096 + 262,924,800 + 4,096 = 1,236,896,256 B.
func TestRKLLMLayoutBytes(t *testing.T) {
	cat := catalog(t)
	m := cost(t, cat, "llama-3.2-1b", "rkllm", "w8a8", "f16")
	if m.WeightBytes != 1762228736 {
		t.Errorf("file %.0f B, want 1762228736", m.WeightBytes)
	}
	if got := m.StreamedBytesPerToken(); got != 1236896256 {
		t.Errorf("a step streams %.0f B, want 1236896256", got)
	}
	// The model as published (tied, head read as the bf16 table) would
	// stream the 525 MB table as its head instead of the 263 MB int8 head.
	plain, err := model.BuildNamed(m.Spec, "w8a8", "f16", model.Layout{})
	if err != nil {
		t.Fatal(err)
	}
	if plain.StreamedBytesPerToken() <= m.StreamedBytesPerToken() {
		t.Errorf("without RKLLM's layout a step streams %.0f B, not more than %.0f B", plain.StreamedBytesPerToken(), m.StreamedBytesPerToken())
	}
}

// RKLLM's head follows the conversion: int8 in w8a8, int4 in w4a16
// (rkllm.toml's head_formats, from the memory Rockchip's RK3576 table
// gives for both formats). Llama-3.2-1B's untied head, 128,256 rows of
// 2,048 weights and a 16-bit scale a row:
//
//	w8a8:  128256 · (2048·8 + 16) / 8 = 128256 · 2050 = 262,924,800 B
//	w4a16: 128256 · (2048·4 + 16) / 8 = 128256 · 1026 = 131,590,656 B
//
// and a runtime without the rule keeps the one head type for both.
func TestRKLLMHeadByFormat(t *testing.T) {
	cat := catalog(t)
	head := func(m *model.Cost) float64 {
		t.Helper()
		for _, tc := range m.Tensors {
			if tc.Role == model.RoleOutput {
				return tc.Bytes
			}
		}
		t.Fatal("no head")
		return 0
	}
	for _, c := range []struct {
		weights, typ string
		want         float64
	}{
		{"w8a8", "int8-per-channel", 262924800},
		{"w4a16", "int4-per-channel", 131590656},
	} {
		m := cost(t, cat, "llama-3.2-1b", "rkllm", c.weights, "f16")
		if got := head(m); got != c.want {
			t.Errorf("%s: head %.0f B, want %.0f", c.weights, got, c.want)
		}
		if got := m.Layout.Head.Name; got != c.typ {
			t.Errorf("%s: head stored as %s, want %s", c.weights, got, c.typ)
		}
	}
	rt, err := cat.Runtime("rkllm")
	if err != nil {
		t.Fatal(err)
	}
	without := *rt
	without.HeadFormats = nil
	s, err := cat.Model("llama-3.2-1b")
	if err != nil {
		t.Fatal(err)
	}
	if got := without.LayoutFor(s, "w4a16").Head.Name; got != "int8-per-channel" {
		t.Errorf("without head_formats the w4a16 head is %s, want the layout's int8-per-channel", got)
	}
}

// A model named by an Ollama tag runs under llama.cpp in the tag's
// format unless another is given; a tag that spells its format refuses
// another (rule 2 of Choose).
func TestNameImplies(t *testing.T) {
	cat := catalog(t)
	base, err := cat.Model("llama-3.2-3b")
	if err != nil {
		t.Fatal(err)
	}
	h100, err := cat.Device("h100-sxm") // vLLM's ground: a plain name runs there
	if err != nil {
		t.Fatal(err)
	}
	tagged := func(w string, explicit bool) *model.Spec {
		s := *base
		s.Named = &model.NameImplies{Runtime: "llama.cpp", RuntimeWhy: "an Ollama tag", Weights: w, Explicit: explicit, Why: "the tag's"}
		return &s
	}
	for _, c := range []struct {
		spec             *model.Spec
		weights          string
		runtime, wantW   string
		note, conflicted string
	}{
		{base, "", "vllm", "bf16", "", ""},
		{tagged("q4_k_m", false), "", "llama.cpp", "q4_k_m", "weights q4_k_m: the tag's", ""},
		{tagged("q4_k_m", false), "q8_0", "llama.cpp", "q8_0", "weights q8_0 as given, in place of q4_k_m, the tag's", ""},
		{tagged("q4_k_m", false), "Q4_K_M", "llama.cpp", "q4_k_m", "", ""},
		{tagged("q8_0", true), "q8_0", "llama.cpp", "q8_0", "", ""},
		{tagged("q8_0", true), "q4_k_m", "", "", "", "names its weights, q8_0, and q4_k_m was given beside it"},
	} {
		ch, err := cat.Runtimes().Choose(c.spec, h100, runtimes.Request{Weights: c.weights})
		if c.conflicted != "" {
			var we *runtimes.WeightsConflictError
			if !errors.As(err, &we) || !strings.Contains(err.Error(), c.conflicted) {
				t.Errorf("%v with %q: %v, want a conflict", c.spec.Named, c.weights, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v with %q: %v", c.spec.Named, c.weights, err)
			continue
		}
		notes := strings.Join(ch.Notes, "\n")
		if ch.Runtime.Name != c.runtime || ch.Weights.Name != c.wantW || !strings.Contains(notes, c.note) {
			t.Errorf("%v with %q: %s %s (%s), notes %q; want %s %s, %q", c.spec.Named, c.weights, ch.Runtime.Name, ch.Weights.Name, ch.Why, notes, c.runtime, c.wantW, c.note)
		}
	}
}

// KernelFactor applies a kernel rule's without_int8_dot share to int8
// products on an engine without int8 dot products, its with_int8_dot
// factor on an engine with them, and nothing elsewhere; the first rule
// that covers a format decides (q4_0 before gguf-quant).
func TestKernelFactor(t *testing.T) {
	q4km, err := model.LookupWeightFormat("q4_k_m")
	if err != nil {
		t.Fatal(err)
	}
	f16, err := model.LookupWeightFormat("f16")
	if err != nil {
		t.Fatal(err)
	}
	q40, err := model.LookupWeightFormat("q4_0")
	if err != nil {
		t.Fatal(err)
	}
	rt := &runtimes.Runtime{Kernels: []runtimes.Kernel{
		{Formats: []string{"q4_0"}, Kind: hardware.CPU, Compute: []units.Precision{units.INT8, units.FP32}, NoDotFactor: 0.6667, NoDotSource: "[D] six instructions for two", DotFactor: 1.86, DotSource: "[D] a GEMM kernel"},
		{Formats: []string{"gguf-quant"}, Kind: hardware.CPU, Compute: []units.Precision{units.INT8, units.FP32}, NoDotFactor: 0.6667, NoDotSource: "[D] six instructions for two"},
		{Formats: []string{"gguf-quant"}, Kind: hardware.GPU, Compute: []units.Precision{units.FP16}},
	}}
	noDot := &hardware.Engine{Kind: hardware.CPU, NoInt8Dot: true}
	sdot := &hardware.Engine{Kind: hardware.CPU}
	gpu := &hardware.Engine{Kind: hardware.GPU, NoInt8Dot: true}
	cases := []struct {
		name string
		w    model.WeightFormat
		e    *hardware.Engine
		p    units.Precision
		want float64
	}{
		{"int8 on a core without SDOT", q4km, noDot, units.INT8, 0.6667},
		{"int8 on a core with SDOT", q4km, sdot, units.INT8, 1},
		{"fp32 fallback on a core without SDOT", q4km, noDot, units.FP32, 1},
		{"a float format, no rule", f16, noDot, units.INT8, 1},
		{"a GPU rule without the share", q4km, gpu, units.INT8, 1},
		{"q4_0 repacked on a core with SDOT", q40, sdot, units.INT8, 1.86},
		{"q4_0 on a core without SDOT", q40, noDot, units.INT8, 0.6667},
		{"q4_0 at fp32, no int8 kernel", q40, sdot, units.FP32, 1},
		{"q4_0 on a GPU", q40, gpu, units.INT8, 1},
	}
	for _, c := range cases {
		got, why := rt.KernelFactor(c.w, nil, c.e, c.p)
		if got != c.want || (got != 1) != (why != "") {
			t.Errorf("%s: %g (%q), want %g", c.name, got, why, c.want)
		}
	}
	// By weight type: a file whose products are 3 parts q4_0 (1.86) and 1
	// part q5_0 (1 on a core with SDOT) is priced at the harmonic mean,
	// 4 / (3/1.86 + 1/1) = 1.5330; a file of one type at its type's rule,
	// whatever its format is called; float tensors at 1.
	mix := []model.TypeFLOPs{{Type: model.Q4_0, FLOPs: 3}, {Type: model.Q5_0, FLOPs: 1}}
	typed := []struct {
		name  string
		types []model.TypeFLOPs
		e     *hardware.Engine
		want  float64
	}{
		{"q4_0 and q5_0 on a core with SDOT", mix, sdot, 4 / (3/1.86 + 1.0)},
		{"q4_0 and q5_0 on a core without SDOT", mix, noDot, 0.6667},
		{"q4_k_m's label over q4_0 tensors", []model.TypeFLOPs{{Type: model.Q4_0, FLOPs: 1}}, sdot, 1.86},
		{"f16 tensors in a quantized file", []model.TypeFLOPs{{Type: model.Q4_0, FLOPs: 1}, {Type: model.F16, FLOPs: 1}}, sdot, 2 / (1/1.86 + 1.0)},
	}
	for _, c := range typed {
		got, why := rt.KernelFactor(q4km, c.types, c.e, units.INT8)
		if math.Abs(got-c.want) > 1e-12 || why == "" {
			t.Errorf("%s: %g (%q), want %g", c.name, got, why, c.want)
		}
	}
}

// TestChooseKVSpellings: --kv takes a format's spellings as --weights
// does (the list flags count FP16 and f16 as one name): the choice
// carries the format's own name. FP16, F16 and Q8_0 had been refused as
// formats llama.cpp "does not run" (exit 2), and plan found no
// configuration (exit 3).
func TestChooseKVSpellings(t *testing.T) {
	cat := catalog(t)
	s, _ := cat.Model("llama-3.2-1b")
	d, _ := cat.Device("rtx-4090")
	for _, c := range []struct{ kv, want string }{{"FP16", "f16"}, {"F16", "f16"}, {"Q8_0", "q8_0"}, {"q8_0", "q8_0"}} {
		ch, err := cat.Runtimes().Choose(s, d, runtimes.Request{Runtime: "llama.cpp", KV: c.kv})
		if err != nil || ch.KV != c.want {
			t.Errorf("--kv %s: %v, KV %v; want %s", c.kv, err, ch, c.want)
		}
	}
}

// TestUnpackRules: the decode kernels that unpack every weight, which
// the fitted kquant_gemv bounds, are among the rules `roofline show
// runtime` prints and docs/formats.md tabulates, each with its source:
// llama.cpp's Metal K-quants [L32], MLC's int4 groups on CUDA [M12].
func TestUnpackRules(t *testing.T) {
	cat := catalog(t)
	for _, c := range []struct{ runtime, key, value, tag string }{
		{"llama.cpp", "engine.metal.kquant_unpack", "decode on gpu through metal (apple): products over K-quant weights unpack every weight to a float", "[L32]"},
		{"mlc", "engine.gpu.unpack_types", "decode on gpu (nvidia, jetson): products over int4-g32 weights unpack every weight to a float", "[M12]"},
	} {
		rt, err := cat.Runtime(c.runtime)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range rt.Rules() {
			if r.Key == c.key {
				found = true
				if r.Topic != runtimes.TopicKernels || !strings.HasPrefix(r.Value, c.value) || !strings.HasPrefix(r.Source, c.tag) {
					t.Errorf("%s %s: %s: %q [%s]; want %q, sourced %s", c.runtime, c.key, r.Topic, r.Value, r.Source, c.value, c.tag)
				}
			}
		}
		if !found {
			t.Errorf("%s: no rule %s", c.runtime, c.key)
		}
	}
}

// TestEngineSources: each engine's rule carries its own source, also
// where two engines of a runtime are of one kind with no backend to tell
// them apart (MLC's CUDA GPUs and its others: the CUDA row was printed
// with the others' source).
func TestEngineSources(t *testing.T) {
	rt, err := catalog(t).Runtime("mlc")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"gpu (nvidia, jetson)": "[M6] CUDA on NVIDIA GPUs", "gpu (amd, apple, intel, rockchip)": "[M6] ROCm and Vulkan on AMD"}
	for _, r := range rt.Rules() {
		if r.Topic != runtimes.TopicEngines {
			continue
		}
		if w, ok := want[r.Value]; !ok || !strings.HasPrefix(r.Source, w) {
			t.Errorf("engine %q (%s): source %q, want it to begin %q", r.Value, r.Key, r.Source, w)
		}
		delete(want, r.Value)
	}
	if len(want) > 0 {
		t.Errorf("engines not listed: %v", want)
	}
}
