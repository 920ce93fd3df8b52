package gguf

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/model"
)

// archs is the one map from GGUF architectures to the config.json model
// types a file of that architecture may hold, the first the type its
// header is read as: llama.cpp writes Mistral and Mixtral checkpoints as
// "llama". The spelling "gptoss" is llama-bench's model_type for gpt-oss.
//
// SmolLM3, Granite and ERNIE 4.5 are Llama-shaped (model.ReadAs) and read
// as llama, as their config.json is; llama.cpp writes them under their own
// names ("smollm3", "granite", "ernie4_5": ggml-org/llama.cpp @00395eb2
// src/llama-arch.cpp LLM_ARCH_NAMES, convert_hf_to_gguf.py
// SmolLM3Model(LlamaModel), GraniteModel(LlamaModel), Ernie4_5Model) with
// Llama's tensor names.
var archs = map[string][]string{
	"llama": {"llama", "mistral", "mixtral"}, "mistral": {"mistral"}, "qwen2": {"qwen2"}, "qwen2moe": {"qwen2_moe"},
	"qwen3": {"qwen3"}, "qwen3moe": {"qwen3_moe"}, "gemma": {"gemma"}, "gemma2": {"gemma2"}, "gemma3": {"gemma3"},
	"phi3": {"phi3"}, "deepseek2": {"deepseek_v3"}, "gpt-oss": {"gpt_oss"}, "gptoss": {"gpt_oss"},
	"smollm3": {"llama"}, "granite": {"llama"}, "ernie4_5": {"llama"},
}

// ModelTypes are the config.json model types a GGUF architecture may
// hold; ok is false for an architecture roofline does not price.
func ModelTypes(arch string) (types []string, ok bool) {
	types, ok = archs[arch]
	return types, ok
}

// ArchOf is the GGUF architecture llama.cpp writes a model of config.json
// type t as: the one of t's own name, else the one read as t, else one that
// holds it (Mixtral is written as llama with experts).
func ArchOf(t string) (string, bool) {
	if types, ok := archs[t]; ok && types[0] == t {
		return t, true
	}
	for _, primary := range []bool{true, false} {
		for _, a := range Supported() {
			types := archs[a]
			if (primary && types[0] == t) || (!primary && slices.Contains(types, t)) {
				return a, true
			}
		}
	}
	return "", false
}

// Supported lists the GGUF architectures roofline can price.
func Supported() []string {
	var s []string
	for a := range archs {
		if a != "gptoss" {
			s = append(s, a)
		}
	}
	sort.Strings(s)
	return s
}

// Model is what a GGUF header says about a model.
type Model struct {
	Spec    *model.Spec
	Types   map[string]model.Storage // tensor name → storage type
	Bytes   float64                  // Σ tensor sizes in the file
	Notes   []string
	Tensors int
}

// ToModel builds the spec and tensor types from a parsed header.
func ToModel(f *File, name string) (*Model, error) {
	arch := f.Metadata["general.architecture"].Str
	types, ok := archs[arch]
	if !ok || arch == "gptoss" {
		return nil, fmt.Errorf("unsupported GGUF architecture %q (supported: %s)", arch, strings.Join(Supported(), ", "))
	}
	hfArch := types[0]
	tensors := map[string]TensorInfo{}
	m := &Model{Types: map[string]model.Storage{}, Tensors: len(f.Tensors)}
	if family, why, ok := model.ReadAs(arch); ok {
		m.Notes = append(m.Notes, fmt.Sprintf("GGUF architecture %s read as %s: %s", arch, family, why))
	}
	for _, t := range f.Tensors {
		if _, dup := tensors[t.Name]; dup {
			return nil, fmt.Errorf("tensor %q appears twice: a corrupt file or a split part read twice", t.Name)
		}
		st, ok := model.StorageOfGGMLType(t.Type)
		if !ok {
			return nil, fmt.Errorf("tensor %q has unknown ggml type %d", t.Name, t.Type)
		}
		tensors[t.Name] = t
		m.Types[t.Name] = st
		rows := float64(t.Elements() / t.Dims[0])
		m.Bytes += st.RowBytes(int(t.Dims[0])) * rows
	}
	// Every number ToModel reads is a count or a size: a bool, a float,
	// a negative or a fraction is an error naming the key (block_count
	// 2.5 read as 2, true as 1, head_count_kv [-1, 2] as 2 priced a model
	// the file does not hold).
	var badKey error
	num := func(key string) (float64, bool) {
		v, ok := f.Metadata[arch+"."+key]
		if !ok {
			return 0, false
		}
		vals := v.Arr
		if v.IsNum {
			vals = []float64{v.Num}
		}
		for _, x := range vals {
			if badKey == nil && (v.IsBool || v.IsFloat || x < 0 || x != math.Trunc(x)) {
				what := "a number"
				switch {
				case v.IsBool:
					what = "a bool"
				case v.IsFloat:
					what = "a float"
				}
				shown := strconv.FormatFloat(x, 'g', 6, 64)
				if !v.IsNum {
					shown = "an array holding " + shown
				}
				badKey = fmt.Errorf("%s.%s is %s (%s), not a whole count", arch, key, shown, what)
			}
		}
		if v.IsNum {
			return v.Num, true
		}
		best := 0.0
		for _, x := range v.Arr { // per-layer values: the largest
			if x > best {
				best = x
			}
		}
		return best, len(v.Arr) > 0
	}
	intOr := func(key string, def int) int {
		if v, ok := num(key); ok && v > 0 {
			// A value past every ceiling stays past it rather than
			// wrapping when converted: Validate names it.
			return int(min(v, 1<<40))
		}
		return def
	}
	has := func(n string) bool { _, ok := tensors[n]; return ok }
	dim := func(n string, i int) int {
		if t, ok := tensors[n]; ok && i < len(t.Dims) {
			return int(t.Dims[i])
		}
		return 0
	}
	embd, ok := tensors["token_embd.weight"]
	if !ok || len(embd.Dims) < 2 {
		return nil, fmt.Errorf("no token_embd.weight tensor: not a decoder model roofline can price")
	}
	s := &model.Spec{Name: name, Architecture: hfArch, Source: "GGUF header of " + name, Checkpoint: "f16",
		Hidden: int(embd.Dims[0]), Vocab: int(embd.Dims[1]), Layers: intOr("block_count", 0), MLP: model.Gated}
	s.Heads = intOr("attention.head_count", 0)
	s.KVHeads = intOr("attention.head_count_kv", s.Heads)
	s.MaxContext = intOr("context_length", 0)
	s.TiedEmbeddings = !has("output.weight")
	if s.Heads > 0 {
		s.HeadDim = intOr("attention.key_length", 0)
		if s.HeadDim == 0 {
			if s.Hidden%s.Heads != 0 && badKey == nil {
				return nil, fmt.Errorf("attention.head_count %d does not divide embedding_length %d and attention.key_length is missing", s.Heads, s.Hidden)
			}
			s.HeadDim = s.Hidden / s.Heads
		}
	}
	s.FFN = intOr("feed_forward_length", dim("blk.0.ffn_down.weight", 0))
	for n := range tensors {
		if strings.HasPrefix(n, "blk.0.") && strings.HasSuffix(n, "_norm.weight") {
			switch strings.TrimPrefix(n, "blk.0.") {
			case "attn_q_norm.weight", "attn_k_norm.weight", "attn_q_a_norm.weight", "attn_kv_a_norm.weight":
			default:
				s.NormsPerLayer++
			}
		}
	}
	s.QKNorm = has("blk.0.attn_q_norm.weight")
	s.QKVBias = has("blk.0.attn_q.bias") || has("blk.0.attn_qkv.bias")
	s.OutBias = has("blk.0.attn_output.bias")
	s.FusedQKV = has("blk.0.attn_qkv.weight")
	s.AttnSinks = has("blk.0.attn_sinks.weight")
	last := fmt.Sprintf("blk.%d.", max(s.Layers-1, 0))
	if has(last+"ffn_up.weight") && !has(last+"ffn_gate.weight") {
		if up := dim(last+"ffn_up.weight", 1); s.FFN > 0 && up == 2*s.FFN {
			s.FusedGateUp = true
		} else {
			s.MLP = model.Plain
		}
	}
	if w := intOr("attention.sliding_window", 0); w > 0 {
		switch arch {
		case "gemma2", "gpt-oss":
			s.SlidingWindow, s.LayerPattern = w, []model.LayerKind{model.Sliding, model.Full}
		case "gemma3":
			n := intOr("attention.sliding_window_pattern", 6)
			if n > limits.LayerPattern {
				return nil, fmt.Errorf("%s.attention.sliding_window_pattern %d exceeds the limit of %d", arch, n, limits.LayerPattern)
			}
			s.SlidingWindow = w
			for i := 0; i < n-1; i++ {
				s.LayerPattern = append(s.LayerPattern, model.Sliding)
			}
			s.LayerPattern = append(s.LayerPattern, model.Full)
		case "mistral", "qwen2", "qwen3":
			// llama.cpp runs these with full attention.
		default:
			s.SlidingWindow = w
		}
	}
	if e := intOr("expert_count", 0); e > 1 {
		moe := &model.MoE{Experts: e, Active: intOr("expert_used_count", 1), Shared: intOr("expert_shared_count", 0),
			DenseLayers: intOr("leading_dense_block_count", 0)}
		ml := fmt.Sprintf("blk.%d.", moe.DenseLayers)
		moe.FFN = intOr("expert_feed_forward_length", dim(ml+"ffn_down_exps.weight", 0))
		if moe.Shared > 0 {
			moe.SharedFFN = dim(ml+"ffn_down_shexp.weight", 0) / moe.Shared
		}
		moe.RouterBias = has(ml + "ffn_gate_inp.bias")
		moe.ExpertBias = has(ml + "ffn_up_exps.bias")
		moe.ScoreBias = has(ml + "exp_probs_b.bias")
		s.MoE = moe
		if moe.DenseLayers == 0 && !has("blk.0.ffn_down.weight") {
			s.FFN = 0
		}
	}
	if arch == "deepseek2" {
		rope := intOr("rope.dimension_count", 64)
		key := intOr("attention.key_length", 192)
		s.MLA = &model.MLA{QLoraRank: intOr("attention.q_lora_rank", 0), KVLoraRank: intOr("attention.kv_lora_rank", 512),
			QKRopeDim: rope, QKNopeDim: key - rope, VHeadDim: intOr("attention.value_length", 128)}
		s.KVHeads, s.HeadDim = 0, 0
	}
	if badKey != nil {
		return nil, badKey
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("the header does not describe a consistent model: %w", err)
	}
	// Compare the file's tensors with the inventory the spec implies.
	inv := map[string]bool{}
	for _, t := range s.Tensors() {
		inv[t.Name] = true
	}
	var extra, missing []string
	for n := range tensors {
		if !inv[n] {
			extra = append(extra, n)
		}
	}
	for n := range inv {
		if !has(n) {
			missing = append(missing, n)
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	switch len(extra) {
	case 0:
	case 1:
		m.Notes = append(m.Notes, fmt.Sprintf("a tensor of the file is not in roofline's inventory (%s): its bytes are spread over the rest", extra[0]))
	default:
		m.Notes = append(m.Notes, fmt.Sprintf("%d tensors of the file are not in roofline's inventory (e.g. %s): their bytes are spread over the rest", len(extra), extra[0]))
	}
	switch len(missing) {
	case 0:
	case 1:
		m.Notes = append(m.Notes, fmt.Sprintf("a tensor of roofline's inventory is not in the file (%s)", missing[0]))
	default:
		m.Notes = append(m.Notes, fmt.Sprintf("%d tensors of roofline's inventory are not in the file (e.g. %s)", len(missing), missing[0]))
	}
	s.FileWeights = &model.WeightFormat{}
	*s.FileWeights = model.FileFormat(m.Types, model.F32)
	s.FileBytes = m.Bytes
	s.FileNotes = m.Notes
	s.Checkpoint = ""
	m.Spec = s
	return m, nil
}
