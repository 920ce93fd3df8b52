package model

import "fmt"

// Role says what a weight tensor does. The names follow llama.cpp's GGUF
// tensor names, because its quantization recipes key on them.
type Role string

// Tensor roles.
const (
	RoleTokenEmbd    Role = "token_embd"
	RoleOutput       Role = "output"
	RoleOutputNorm   Role = "output_norm"
	RoleNorm         Role = "norm" // per-layer H-wide norms
	RoleAttnQ        Role = "attn_q"
	RoleAttnK        Role = "attn_k"
	RoleAttnV        Role = "attn_v"
	RoleAttnQKV      Role = "attn_qkv"
	RoleAttnOut      Role = "attn_output"
	RoleAttnQNorm    Role = "attn_q_norm"
	RoleAttnKNorm    Role = "attn_k_norm"
	RoleAttnSinks    Role = "attn_sinks"
	RoleAttnQA       Role = "attn_q_a"
	RoleAttnQANorm   Role = "attn_q_a_norm"
	RoleAttnQB       Role = "attn_q_b"
	RoleAttnKVA      Role = "attn_kv_a_mqa"
	RoleAttnKVANorm  Role = "attn_kv_a_norm"
	RoleAttnKVB      Role = "attn_kv_b"
	RoleFFNGate      Role = "ffn_gate"
	RoleFFNUp        Role = "ffn_up"
	RoleFFNDown      Role = "ffn_down"
	RoleRouter       Role = "ffn_gate_inp"
	RoleExpProbsBias Role = "exp_probs_b"
	RoleExpertGate   Role = "ffn_gate_exps"
	RoleExpertUp     Role = "ffn_up_exps"
	RoleExpertDown   Role = "ffn_down_exps"
	RoleSharedGate   Role = "ffn_gate_shexp"
	RoleSharedUp     Role = "ffn_up_shexp"
	RoleSharedDown   Role = "ffn_down_shexp"
	RoleBias         Role = "bias" // biases of the projections above
)

// Tensor is one weight tensor. Its shape follows ggml: Cols is ne[0], the
// row length (input features of a projection), Rows is ne[1] (output
// features) and Experts is ne[2] for stacked expert tensors (1 otherwise).
type Tensor struct {
	Name    string
	Role    Role
	Layer   int // -1 outside the blocks
	Cols    int
	Rows    int
	Experts int
	// Routed tensors hold the routed experts: a token reads only the
	// experts it is routed to.
	Routed bool
	// Matmul tensors multiply the activations (2 FLOP per weight per
	// token); norms, biases and the embedding lookup do not.
	Matmul bool
}

// Elements is the number of weights in the tensor.
func (t Tensor) Elements() int64 {
	return int64(t.Cols) * int64(t.Rows) * int64(t.Experts)
}

// Is2D reports whether the tensor is a matrix (or a stack of matrices),
// which is what quantizers quantize.
func (t Tensor) Is2D() bool { return t.Rows > 1 }

// Tensors lists every weight tensor of the model. It is the single source
// from which parameters, bytes and FLOPs are computed.
func (s *Spec) Tensors() []Tensor {
	var ts []Tensor
	add := func(layer int, name string, role Role, cols, rows, experts int, routed, matmul bool) {
		if cols <= 0 || rows <= 0 {
			return
		}
		full := name
		if layer >= 0 {
			full = fmt.Sprintf("blk.%d.%s", layer, name)
		}
		ts = append(ts, Tensor{Name: full, Role: role, Layer: layer, Cols: cols, Rows: rows, Experts: experts, Routed: routed, Matmul: matmul})
	}
	vec := func(layer int, name string, role Role, n int) { add(layer, name, role, n, 1, 1, false, false) }
	mat := func(layer int, name string, role Role, in, out int) { add(layer, name, role, in, out, 1, false, true) }

	H := s.Hidden
	add(-1, "token_embd.weight", RoleTokenEmbd, H, s.Vocab, 1, false, false)
	for l := 0; l < s.Layers; l++ {
		norms := []string{"attn_norm", "ffn_norm", "post_attention_norm", "post_ffw_norm"}
		for i := 0; i < s.NormsPerLayer; i++ {
			name := fmt.Sprintf("norm_%d", i)
			if i < len(norms) {
				name = norms[i]
			}
			vec(l, name+".weight", RoleNorm, H)
		}
		s.attentionTensors(l, mat, vec)
		s.ffnTensors(l, add, mat, vec)
	}
	vec(-1, "output_norm.weight", RoleOutputNorm, H)
	if !s.TiedEmbeddings {
		mat(-1, "output.weight", RoleOutput, H, s.Vocab)
	}
	return ts
}

func (s *Spec) attentionTensors(l int, mat func(int, string, Role, int, int), vec func(int, string, Role, int)) {
	H := s.Hidden
	if a := s.MLA; a != nil {
		qk := a.QKNopeDim + a.QKRopeDim
		if a.QLoraRank > 0 {
			mat(l, "attn_q_a.weight", RoleAttnQA, H, a.QLoraRank)
			vec(l, "attn_q_a_norm.weight", RoleAttnQANorm, a.QLoraRank)
			mat(l, "attn_q_b.weight", RoleAttnQB, a.QLoraRank, s.Heads*qk)
		} else {
			mat(l, "attn_q.weight", RoleAttnQ, H, s.Heads*qk)
		}
		mat(l, "attn_kv_a_mqa.weight", RoleAttnKVA, H, a.KVLoraRank+a.QKRopeDim)
		vec(l, "attn_kv_a_norm.weight", RoleAttnKVANorm, a.KVLoraRank)
		mat(l, "attn_kv_b.weight", RoleAttnKVB, a.KVLoraRank, s.Heads*(a.QKNopeDim+a.VHeadDim))
		mat(l, "attn_output.weight", RoleAttnOut, s.Heads*a.VHeadDim, H)
		return
	}
	q, kv := s.Heads*s.HeadDim, s.KVHeads*s.HeadDim
	if s.FusedQKV {
		mat(l, "attn_qkv.weight", RoleAttnQKV, H, q+2*kv)
		if s.QKVBias {
			vec(l, "attn_qkv.bias", RoleBias, q+2*kv)
		}
	} else {
		mat(l, "attn_q.weight", RoleAttnQ, H, q)
		mat(l, "attn_k.weight", RoleAttnK, H, kv)
		mat(l, "attn_v.weight", RoleAttnV, H, kv)
		if s.QKVBias {
			vec(l, "attn_q.bias", RoleBias, q)
			vec(l, "attn_k.bias", RoleBias, kv)
			vec(l, "attn_v.bias", RoleBias, kv)
		}
	}
	if s.QKNorm {
		vec(l, "attn_q_norm.weight", RoleAttnQNorm, s.HeadDim)
		vec(l, "attn_k_norm.weight", RoleAttnKNorm, s.HeadDim)
	}
	mat(l, "attn_output.weight", RoleAttnOut, q, H)
	if s.OutBias {
		vec(l, "attn_output.bias", RoleBias, H)
	}
	if s.AttnSinks {
		vec(l, "attn_sinks.weight", RoleAttnSinks, s.Heads)
	}
}

func (s *Spec) ffnTensors(l int, add func(int, string, Role, int, int, int, bool, bool), mat func(int, string, Role, int, int), vec func(int, string, Role, int)) {
	H := s.Hidden
	if !s.IsMoELayer(l) {
		switch {
		case s.MLP == Plain:
			mat(l, "ffn_up.weight", RoleFFNUp, H, s.FFN)
		case s.FusedGateUp:
			mat(l, "ffn_up.weight", RoleFFNUp, H, 2*s.FFN)
		default:
			mat(l, "ffn_gate.weight", RoleFFNGate, H, s.FFN)
			mat(l, "ffn_up.weight", RoleFFNUp, H, s.FFN)
		}
		mat(l, "ffn_down.weight", RoleFFNDown, s.FFN, H)
		return
	}
	m := s.MoE
	E, I := m.Experts, m.FFN
	mat(l, "ffn_gate_inp.weight", RoleRouter, H, E)
	if m.RouterBias {
		vec(l, "ffn_gate_inp.bias", RoleBias, E)
	}
	if m.ScoreBias {
		vec(l, "exp_probs_b.bias", RoleExpProbsBias, E)
	}
	if s.MLP == Gated {
		add(l, "ffn_gate_exps.weight", RoleExpertGate, H, I, E, true, true)
	}
	add(l, "ffn_up_exps.weight", RoleExpertUp, H, I, E, true, true)
	add(l, "ffn_down_exps.weight", RoleExpertDown, I, H, E, true, true)
	if m.ExpertBias {
		if s.MLP == Gated {
			add(l, "ffn_gate_exps.bias", RoleBias, I, 1, E, true, false)
		}
		add(l, "ffn_up_exps.bias", RoleBias, I, 1, E, true, false)
		add(l, "ffn_down_exps.bias", RoleBias, H, 1, E, true, false)
	}
	if m.Shared > 0 {
		sI := m.Shared * m.SharedFFN
		if s.MLP == Gated {
			mat(l, "ffn_gate_shexp.weight", RoleSharedGate, H, sI)
		}
		mat(l, "ffn_up_shexp.weight", RoleSharedUp, H, sI)
		mat(l, "ffn_down_shexp.weight", RoleSharedDown, sI, H)
	}
}
