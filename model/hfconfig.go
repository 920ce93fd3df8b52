package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/safeio"
)

// hfDefaults holds what each supported architecture assumes when its
// config.json omits a field: tie_word_embeddings (the model class's
// default), per-block norms, q/k norms and q/k/v biases.
var hfDefaults = map[string]struct {
	tied, qkNorm, qkvBias bool
	norms                 int
}{
	"llama": {false, false, false, 2}, "mistral": {false, false, false, 2}, "mixtral": {false, false, false, 2},
	"qwen2": {false, false, true, 2}, "qwen2_moe": {false, false, true, 2}, "qwen3": {false, true, false, 2},
	"qwen3_moe": {false, true, false, 2}, "gemma": {true, false, false, 2}, "gemma2": {true, false, false, 4},
	"gemma3": {true, true, false, 4}, "gemma3_text": {true, true, false, 4}, "phi3": {false, false, false, 2},
	"deepseek_v3": {false, false, false, 2}, "gpt_oss": {false, false, true, 2},
}

// hfFamily is a model type whose transformers modeling code builds on
// another family's attention, MLP and decoder layer, unchanged in shape:
// its weights, bytes and FLOPs are the family's. Defaults its config class
// sets differently from the family's are given here.
type hfFamily struct {
	family  string // the model type it is read as
	tied    bool   // tie_word_embeddings when the config omits it
	headDim int    // head_dim when the config omits it; 0: hidden / heads
	// reads says what of the modeling code was checked, for the note.
	reads string
}

// hfFamilies are the Llama-shaped model types, each checked against its
// modeling code in huggingface/transformers (src/transformers/models/...).
// A config that turns on what the family has not (biases on the MLP) is
// refused.
var hfFamilies = map[string]hfFamily{
	// modular_smollm3.py: SmolLM3Attention(LlamaAttention) only skips RoPE
	// on some layers (NoPE), SmolLM3DecoderLayer(LlamaDecoderLayer);
	// configuration: tie_word_embeddings = True.
	"smollm3": {family: "llama", tied: true, reads: "transformers builds SmolLM3 from Llama's attention and decoder layer; its NoPE layers skip rotary embeddings, which weigh nothing"},
	// modular_granite.py: GraniteAttention(LlamaAttention),
	// GraniteDecoderLayer(LlamaDecoderLayer); the embedding, residual,
	// attention and logit multipliers are scalars.
	"granite": {family: "llama", reads: "transformers builds Granite from Llama's attention and decoder layer; its multipliers are scalars"},
	// modular_ernie4_5.py: Llama's attention, MLP and decoder layer, with
	// biases on every projection when use_bias; configuration:
	// tie_word_embeddings = True, head_dim = 128.
	"ernie4_5": {family: "llama", tied: true, headDim: 128, reads: "transformers builds ERNIE 4.5 from Llama's attention, MLP and decoder layer"},
}

// ReadAs is the family a Llama-shaped model type is read as and what of
// its modeling code shows it; ok is false for a model type read as itself.
// GGUF files of such a family are read the same way (package gguf).
func ReadAs(modelType string) (family, why string, ok bool) {
	f, ok := hfFamilies[modelType]
	return f.family, f.reads, ok
}

// HFArchitectures lists the config.json model types roofline reads.
func HFArchitectures() []string {
	var a []string
	for k := range hfDefaults {
		a = append(a, k)
	}
	for k := range hfFamilies {
		a = append(a, k)
	}
	sort.Strings(a)
	return a
}

// hfConfig is the subset of config.json fields roofline reads; pointers
// tell an absent field from a zero one.
type hfConfig struct {
	ModelType         string          `json:"model_type"`
	TextConfig        json.RawMessage `json:"text_config"`
	Hidden            int             `json:"hidden_size"`
	Layers            int             `json:"num_hidden_layers"`
	Heads             int             `json:"num_attention_heads"`
	KVHeads           *int            `json:"num_key_value_heads"`
	HeadDim           *int            `json:"head_dim"`
	FFN               int             `json:"intermediate_size"`
	Vocab             int             `json:"vocab_size"`
	Tied              *bool           `json:"tie_word_embeddings"`
	MaxPos            int             `json:"max_position_embeddings"`
	SlidingWindow     *int            `json:"sliding_window"`
	UseSliding        *bool           `json:"use_sliding_window"`
	SlidingPattern    int             `json:"sliding_window_pattern"`
	LayerTypes        []string        `json:"layer_types"`
	AttentionBias     *bool           `json:"attention_bias"`
	TorchDType        string          `json:"torch_dtype"`
	MLPBias           *bool           `json:"mlp_bias"`
	UseBias           *bool           `json:"use_bias"`
	Quant             *hfQuant        `json:"quantization_config"`
	NumLocalExperts   int             `json:"num_local_experts"`
	NumExperts        int             `json:"num_experts"`
	NRoutedExperts    int             `json:"n_routed_experts"`
	ExpertsPerTok     int             `json:"num_experts_per_tok"`
	ExpertsPerToken   int             `json:"experts_per_token"`
	MoEFFN            int             `json:"moe_intermediate_size"`
	SharedFFN         int             `json:"shared_expert_intermediate_size"`
	NSharedExperts    int             `json:"n_shared_experts"`
	FirstKDense       int             `json:"first_k_dense_replace"`
	QLoraRank         *int            `json:"q_lora_rank"`
	KVLoraRank        int             `json:"kv_lora_rank"`
	QKNopeDim         int             `json:"qk_nope_head_dim"`
	QKRopeDim         int             `json:"qk_rope_head_dim"`
	VHeadDim          int             `json:"v_head_dim"`
	TopKMethod        string          `json:"topk_method"`
	ScoringFunc       string          `json:"scoring_func"`
	OriginalMaxPos    int             `json:"original_max_position_embeddings"`
	SlidingWindowSize int             `json:"sliding_window_size"`
}

type hfQuant struct {
	Method string `json:"quant_method"`
	Bits   int    `json:"bits"`
}

// ConfigError is an error in a config.json, told as the file's
// ("config.json: …"); a reader that names the file's path puts Err after
// it.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return "config.json: " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// ParseHFConfig reads a Hugging Face config.json into a Spec named name;
// its errors are *ConfigError.
func ParseHFConfig(data []byte, name string) (*Spec, error) {
	s, err := parseHFConfig(data, name)
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	return s, nil
}

func parseHFConfig(data []byte, name string) (*Spec, error) {
	// Editors on Windows may save the file with a byte-order mark.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var c hfConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, safeio.JSON(data, 0, err)
	}
	if len(c.TextConfig) > 0 && c.Hidden == 0 {
		// Multimodal configs (Gemma 3) nest the language model. It is
		// read from the whole file, not from the sub-object alone, so an
		// error inside it is told at the file's line and column and
		// under its path (text_config.hidden_size).
		var nested struct {
			T hfConfig `json:"text_config"`
		}
		if err := json.Unmarshal(data, &nested); err != nil {
			return nil, safeio.JSON(data, 0, err)
		}
		t := nested.T
		if t.ModelType == "" {
			t.ModelType = c.ModelType
		}
		if t.TorchDType == "" {
			t.TorchDType = c.TorchDType
		}
		c = t
	}
	if err := negativeCounts(c); err != nil {
		return nil, err
	}
	arch := c.ModelType
	var note string
	if fam, ok := hfFamilies[arch]; ok {
		if (c.MLPBias != nil && *c.MLPBias) || (c.UseBias != nil && *c.UseBias) {
			return nil, fmt.Errorf("%s with biases on its projections (mlp_bias or use_bias) is not Llama-shaped; roofline reads it only without them", arch)
		}
		if c.Tied == nil {
			c.Tied = &fam.tied
		}
		if c.HeadDim == nil && fam.headDim > 0 {
			c.HeadDim = &fam.headDim
		}
		note = fmt.Sprintf("model_type %s read as %s: %s", arch, fam.family, fam.reads)
		arch = fam.family
	}
	def, ok := hfDefaults[arch]
	if !ok {
		return nil, fmt.Errorf("unsupported architecture %q (model_type); supported: %s", arch, strings.Join(HFArchitectures(), ", "))
	}
	if arch == "gemma3_text" {
		arch = "gemma3"
	}
	if arch == "gemma3" {
		gemma3Defaults(&c)
	}
	s := &Spec{Name: name, Architecture: arch, Source: "config.json: " + name, Hidden: c.Hidden, Layers: c.Layers,
		Heads: c.Heads, FFN: c.FFN, Vocab: c.Vocab, MaxContext: c.MaxPos, MLP: Gated, NormsPerLayer: def.norms,
		QKNorm: def.qkNorm, QKVBias: def.qkvBias, TiedEmbeddings: def.tied}
	if c.Tied != nil {
		s.TiedEmbeddings = *c.Tied
	}
	if c.AttentionBias != nil {
		s.QKVBias = *c.AttentionBias
		s.OutBias = *c.AttentionBias && arch == "gpt_oss"
	}
	s.KVHeads = s.Heads
	if c.KVHeads != nil {
		s.KVHeads = *c.KVHeads
	}
	switch {
	case c.HeadDim != nil && *c.HeadDim > 0:
		s.HeadDim = *c.HeadDim
	case c.Heads > 0 && c.Hidden%c.Heads == 0:
		s.HeadDim = c.Hidden / c.Heads
	case arch != "deepseek_v3":
		return nil, fmt.Errorf("num_attention_heads %d does not divide hidden_size %d and head_dim is missing", c.Heads, c.Hidden)
	}
	if arch == "phi3" {
		s.FusedQKV, s.FusedGateUp = true, true // as llama.cpp stores Phi-3
	}
	s.Checkpoint = checkpointOf(c)

	// Sliding windows. The pattern's length sizes an allocation: check it
	// first.
	if err := limits.CheckCount("sliding_window_pattern", c.SlidingPattern, limits.LayerPattern); err != nil {
		return nil, err
	}
	if len(c.LayerTypes) > limits.LayerPattern {
		return nil, fmt.Errorf("layer_types has %d entries (limit %d)", len(c.LayerTypes), limits.LayerPattern)
	}
	window := 0
	if c.SlidingWindow != nil {
		window = *c.SlidingWindow
	}
	if c.UseSliding != nil && !*c.UseSliding {
		window = 0
	}
	switch {
	case window <= 0:
	case len(c.LayerTypes) > 0:
		s.SlidingWindow = window
		for _, t := range c.LayerTypes {
			if strings.HasPrefix(t, "sliding") {
				s.LayerPattern = append(s.LayerPattern, Sliding)
			} else {
				s.LayerPattern = append(s.LayerPattern, Full)
			}
		}
	case arch == "gemma2":
		s.SlidingWindow, s.LayerPattern = window, []LayerKind{Sliding, Full}
	case arch == "gemma3":
		n := c.SlidingPattern
		if n <= 0 {
			n = 6
		}
		s.SlidingWindow = window
		for i := 0; i < n-1; i++ {
			s.LayerPattern = append(s.LayerPattern, Sliding)
		}
		s.LayerPattern = append(s.LayerPattern, Full)
	case arch == "mistral" || arch == "mixtral":
		s.SlidingWindow = window // every layer
	}
	// Phi-3 and Qwen configs carry a sliding_window that is not applied
	// (Hugging Face ignores Phi-3's; Qwen's is off unless use_sliding_window).
	if len(s.LayerPattern) > 0 && allOf(s.LayerPattern, Full) {
		s.SlidingWindow, s.LayerPattern = 0, nil
	}

	// Mixtures of experts.
	experts := max(c.NumLocalExperts, c.NumExperts, c.NRoutedExperts)
	if experts > 1 {
		m := &MoE{Experts: experts, Active: max(c.ExpertsPerTok, c.ExpertsPerToken), FFN: c.MoEFFN}
		if m.FFN == 0 {
			m.FFN = c.FFN // Mixtral, gpt-oss: intermediate_size is per expert
		}
		switch arch {
		case "qwen2_moe":
			if c.SharedFFN > 0 {
				m.Shared, m.SharedFFN = 1, c.SharedFFN
			}
		case "deepseek_v3":
			m.Shared, m.SharedFFN, m.DenseLayers = c.NSharedExperts, c.MoEFFN, c.FirstKDense
			m.ScoreBias = c.TopKMethod == "noaux_tc"
		case "gpt_oss":
			m.RouterBias, m.ExpertBias = true, true
		}
		s.MoE = m
	}
	if arch == "gpt_oss" {
		s.AttnSinks, s.QKVBias, s.OutBias = true, true, true
	}
	if arch == "deepseek_v3" {
		q := 0
		if c.QLoraRank != nil {
			q = *c.QLoraRank
		}
		s.MLA = &MLA{QLoraRank: q, KVLoraRank: c.KVLoraRank, QKNopeDim: c.QKNopeDim, QKRopeDim: c.QKRopeDim, VHeadDim: c.VHeadDim}
		s.KVHeads, s.HeadDim = 0, 0 // num_key_value_heads is meaningless under MLA
	}
	if note != "" {
		s.FileNotes = append(s.FileNotes, note)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

func allOf(ks []LayerKind, k LayerKind) bool {
	for _, x := range ks {
		if x != k {
			return false
		}
	}
	return true
}

func checkpointOf(c hfConfig) string {
	if q := c.Quant; q != nil {
		switch strings.ToLower(q.Method) {
		case "fp8":
			return "fp8"
		case "mxfp4":
			return "mxfp4"
		case "gptq", "awq":
			if q.Bits == 4 {
				return "w4a16"
			}
		}
	}
	switch c.TorchDType {
	case "float16":
		return "f16"
	case "float32":
		return "f32"
	}
	return "bf16"
}

// gemma3Defaults fills what Gemma 3 configs leave to Gemma3TextConfig's
// defaults (transformers models/gemma3/configuration_gemma3.py): the
// published gemma-3-4b-it config.json gives only hidden, intermediate and
// layer sizes and the window.
func gemma3Defaults(c *hfConfig) {
	setInt := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	setInt(&c.Vocab, 262208)
	setInt(&c.Heads, 8)
	setInt(&c.MaxPos, 131072)
	setInt(&c.SlidingPattern, 6)
	for _, f := range []struct {
		p **int
		v int
	}{{&c.KVHeads, 4}, {&c.HeadDim, 256}, {&c.SlidingWindow, 4096}} {
		if *f.p == nil {
			v := f.v
			*f.p = &v
		}
	}
}

// negativeCounts refuses a negative count or size, naming its key: a
// config.json with num_local_experts = -8 is no model, not a dense one.
func negativeCounts(c hfConfig) error {
	v := reflect.ValueOf(c)
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer && !f.IsNil() {
			f = f.Elem()
		}
		if f.Kind() == reflect.Int && f.Int() < 0 {
			key, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			return fmt.Errorf("%s must not be negative, got %d", key, f.Int())
		}
	}
	return nil
}
