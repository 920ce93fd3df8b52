package model

import (
	"errors"
	"strings"
	"sync"
)

// Fusion says which products a runtime runs as one kernel where the model
// stores them apart: vLLM's qkv_proj and gate_up_proj, MLC's, gpt-fast's
// wqkv. A model that stores them fused (Phi-3) runs them fused under any
// runtime.
type Fusion struct {
	QKV    bool // the q, k and v projections
	GateUp bool // gate and up, in dense, shared and routed feed-forward blocks
}

// OpClass is the class of the time model that prices an operator's bytes
// and FLOPs (docs/method.md §6).
type OpClass uint8

// The classes an operator belongs to.
const (
	DenseClass     OpClass = iota // dense products: projections, dense and shared FFN, head, embedding rows, norms
	ExpertClass                   // routed experts
	AttentionClass                // score and value products over the KV cache
)

var opClassNames = [...]string{DenseClass: "dense", ExpertClass: "experts", AttentionClass: "attention"}

func (c OpClass) String() string { return opClassNames[c] }

// LayerGroup is the layers of one kind: alike in the window their
// attention reads and in their feed-forward block, so their operators cost
// the same.
type LayerGroup struct {
	Window int  // tokens attention reads at most, 0 for the whole context
	MoE    bool // routed experts in the feed-forward block
	Layers int
	First  int // the first of its layers
	// Label names the group by what tells it from the others ("sliding
	// 4096", "global", "MoE"), or "layers" when the model has one kind.
	Label string
}

// Operator is one operator of a forward pass, summed over the layers of
// one group: a projection, attention's products, a feed-forward product,
// the norms, the embedding lookup or the output head.
type Operator struct {
	Name  string
	Group int // index into Operators.Groups; -1 outside the blocks
	Class OpClass
	// Types lists the storage types of its weights ("q4_0", "q6_K"), ""
	// when it has none.
	Types string
	// Account is the operator's share of the model's account: a Cost over
	// its tensors and its share of attention alone, so that every byte and
	// FLOP function prices the operator as it prices the whole model, and
	// the operators' figures add up to the model's. It holds the model's
	// Spec, but not its formats, layout or list of tensors: those are the
	// model's (a view builds thousands of accounts a second).
	Account *Cost
	// ScoreWrites is the share of its score traffic (ScoreBytesDecode,
	// ScoreBytesPrefill) that writes; the rest reads.
	ScoreWrites float64
	// SharesTable is true for a head that reads the embedding table (tied
	// embeddings): its weights are the table's, not more memory.
	SharesTable bool
	kind        opKind
}

// Operators is a model's forward pass as operators, in the order a pass
// runs them within each group.
type Operators struct {
	Groups []LayerGroup
	Ops    []Operator
}

// op kinds, in the order a layer runs them.
type opKind uint8

const (
	opEmbedding opKind = iota
	opNorms
	opQ
	opK
	opV
	opQKV
	opQA
	opQB
	opKVA
	opKVB
	opAttention // fused (flash) attention: scores, softmax and values
	opScores    // unfused: the query-key product
	opSoftmax
	opValues
	opOut
	opRouter
	opGate
	opUp
	opGateUp
	opDown
	opExpGate
	opExpUp
	opExpGateUp
	opExpDown
	opShGate
	opShUp
	opShGateUp
	opShDown
	opFinalNorm
	opHead
	opKinds
)

var opNames = [opKinds]string{
	opEmbedding: "embedding", opNorms: "norms", opQ: "q_proj", opK: "k_proj", opV: "v_proj", opQKV: "qkv_proj",
	opQA: "q_a_proj", opQB: "q_b_proj", opKVA: "kv_a_proj", opKVB: "kv_b_proj",
	opAttention: "flash_attention", opScores: "qk_matmul", opSoftmax: "softmax", opValues: "sv_matmul",
	opOut: "o_proj", opRouter: "router", opGate: "gate_proj", opUp: "up_proj", opGateUp: "gate_up_proj", opDown: "down_proj",
	opExpGate: "experts_gate", opExpUp: "experts_up", opExpGateUp: "experts_gate_up", opExpDown: "experts_down",
	opShGate: "shared_gate", opShUp: "shared_up", opShGateUp: "shared_gate_up", opShDown: "shared_down",
	opFinalNorm: "final_norm", opHead: "lm_head",
}

// OperatorNames lists every operator name, in the order of a pass.
func OperatorNames() []string { return opNames[:] }

// ErrNoTensors is Operators' answer for a cost built without its list of
// tensors (BuildSums).
var ErrNoTensors = errors.New("the cost was built without its tensor list")

// Operators splits the model's account into the operators of a forward
// pass as a runtime fusing f runs it, with fused (flash) attention or not.
// Every figure of an operator comes from the same tensors and the same
// functions as the model's, so they add up to the model's (TestOperatorsAddUp).
//
// The list is shared by every caller asking for the same (f, flash) of one
// cost, which is immutable, so that a view per prediction lists them once:
// do not modify it.
func (c *Cost) Operators(f Fusion, flash bool) (*Operators, error) {
	if c.Tensors == nil {
		return nil, ErrNoTensors
	}
	m := c.memo
	if m == nil {
		return c.listOperators(f, flash), nil
	}
	key := 0
	for i, b := range []bool{f.QKV, f.GateUp, flash} {
		if b {
			key |= 1 << i
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ops[key] == nil {
		m.ops[key] = c.listOperators(f, flash)
	}
	return m.ops[key], nil
}

// opsMemo holds the operator lists of one cost, by fusion and attention.
type opsMemo struct {
	mu  sync.Mutex
	ops [8]*Operators
}

// listOperators is Operators, listed anew.
func (c *Cost) listOperators(f Fusion, flash bool) *Operators {
	s := c.Spec
	out := &Operators{}
	layerGroup := make([]int, s.Layers)
	for i := 0; i < s.Layers; i++ {
		win := s.Window(i)
		if c.Layout.IgnoreWindows {
			win = 0
		}
		moe := s.IsMoELayer(i)
		g := -1
		for j, lg := range out.Groups {
			if lg.Window == win && lg.MoE == moe {
				g = j
				break
			}
		}
		if g < 0 {
			g = len(out.Groups)
			out.Groups = append(out.Groups, LayerGroup{Window: win, MoE: moe, First: i})
		}
		out.Groups[g].Layers++
		layerGroup[i] = g
	}
	labelGroups(out.Groups)

	// index[g+1][kind] is the operator's position in out.Ops plus one;
	// group -1 holds the operators outside the blocks. A first pass counts
	// the operators, so that Ops and their accounts are allocated once and
	// never move: the pointers get returns stay valid.
	index := make([][opKinds]int, len(out.Groups)+1)
	n := 0
	mark := func(g int, k opKind) {
		if index[g+1][k] == 0 {
			index[g+1][k] = -1
			n++
		}
	}
	// Each tensor's operator and group, found once for both passes.
	type place struct {
		g int32
		k opKind
	}
	at := make([]place, len(c.Tensors))
	for ti := range c.Tensors {
		t := &c.Tensors[ti]
		switch t.Role {
		case RoleTokenEmbd:
			mark(-1, opEmbedding)
			if c.tied {
				mark(-1, opHead)
			}
		case RoleOutput:
			mark(-1, opHead)
		default:
			g := -1
			if t.Layer >= 0 && t.Layer < len(layerGroup) {
				g = layerGroup[t.Layer]
			}
			k := kindOf(s, t, f, flash)
			at[ti] = place{int32(g), k}
			mark(g, k)
		}
	}
	for g := range out.Groups {
		if flash {
			mark(g, opAttention)
		} else {
			mark(g, opScores)
			mark(g, opSoftmax)
			mark(g, opValues)
		}
	}
	// The marked operators in the order of a pass: the embedding, each
	// group's in layer order, the final norm and the head. Filled in
	// place: a Cost is large, and a copy of it costs more than the rest of
	// a tensor's accounting.
	out.Ops = make([]Operator, 0, n)
	accounts := make([]Cost, n)
	put := func(g int, k opKind) {
		if index[g+1][k] != -1 {
			return
		}
		a := &accounts[len(out.Ops)]
		a.Spec, a.tied = s, c.tied
		out.Ops = out.Ops[:len(out.Ops)+1]
		o := &out.Ops[len(out.Ops)-1]
		o.Name, o.Group, o.Class, o.kind, o.Account = opNames[k], g, classOf(k), k, a
		index[g+1][k] = len(out.Ops)
	}
	put(-1, opEmbedding)
	for g := range out.Groups {
		for k := range opKinds {
			put(g, k)
		}
	}
	for k := range opKinds {
		put(-1, k)
	}
	get := func(g int, k opKind) *Operator { return &out.Ops[index[g+1][k]-1] }
	for ti := range c.Tensors {
		t := &c.Tensors[ti]
		switch t.Role {
		case RoleTokenEmbd:
			e := get(-1, opEmbedding)
			e.Account.embdRowBytes = c.embdRowBytes
			e.add(t)
			if c.tied {
				h := get(-1, opHead)
				h.SharesTable = true
				h.Account.headBytes = c.headBytes
				h.addType(t.Type.Name)
				h.Account.headFLOPs = c.headFLOPs
				h.Account.headWork()
			} else {
				e.Account.embdBytes = c.embdBytes
			}
			continue
		case RoleOutput:
			h := get(-1, opHead)
			h.Account.headBytes = c.headBytes
			h.add(t)
			h.Account.headFLOPs = c.headFLOPs
			h.Account.headWork()
			continue
		}
		o := get(int(at[ti].g), at[ti].k)
		o.add(t)
		o.Account.account(t)
		o.Account.work(&t.Tensor)
	}
	c.attentionOps(out, layerGroup, flash, get)
	for i := range out.Ops {
		o := &out.Ops[i]
		for _, t := range o.Account.kv.terms {
			if t.window > 0 {
				o.Account.windows = append(o.Account.windows, t.window)
			}
		}
	}
	return out
}

// attentionOps adds attention's operators to every group: the KV cache
// they read, their FLOPs per (query, key) pair and their score traffic,
// layer by layer as build adds the model's.
func (c *Cost) attentionOps(out *Operators, layerGroup []int, flash bool, get func(int, opKind) *Operator) {
	s := c.Spec
	kPart, vPart, err := kvPartsPerTokenLayer(s, c.KV, c.Layout.MLA)
	if err != nil { // build already refused such a cost
		return
	}
	ps, pv, ds, dv := attentionPairParts(s)
	heads := float64(s.Heads)
	for i := 0; i < s.Layers; i++ {
		win := out.Groups[layerGroup[i]].Window
		g := layerGroup[i]
		if flash {
			a := get(g, opAttention).Account
			a.kv.add(win, kPart+vPart)
			a.attnPrefill.add(win, ps+pv)
			a.attnDecode.add(win, ds+dv)
			a.scores.add(win, heads)
			continue
		}
		// Unfused (llama.cpp without -fa): the query-key product reads K
		// and writes f32 scores, the softmax reads and rewrites them, the
		// value product reads them and V: ScoreBytesPerValue split 1:2:1.
		qk := get(g, opScores)
		qk.Account.kv.add(win, kPart)
		qk.Account.attnPrefill.add(win, ps)
		qk.Account.attnDecode.add(win, ds)
		qk.Account.scores.add(win, heads/4)
		qk.ScoreWrites = 1
		sm := get(g, opSoftmax)
		sm.Account.kv.add(win, 0)
		sm.Account.scores.add(win, heads/2)
		sm.ScoreWrites = 0.5
		sv := get(g, opValues)
		sv.Account.kv.add(win, vPart)
		sv.Account.attnPrefill.add(win, pv)
		sv.Account.attnDecode.add(win, dv)
		sv.Account.scores.add(win, heads/4)
	}
}

// addTensor adds tensor t's size to the operator's account (its Tensors
// stay nil: a view prices thousands of tensors per prediction).
func (c *Cost) addTensor(t *TensorCost) {
	c.WeightBytes += t.Bytes
	c.RecipeBytes += t.Bytes
	n := float64(t.Elements())
	c.ParamsTotal += n
	if t.Routed {
		n *= float64(c.Spec.MoE.Active) / float64(c.Spec.MoE.Experts)
	}
	c.ParamsActive += n
}

// kindOf is the operator tensor t belongs to inside a layer.
func kindOf(s *Spec, t *TensorCost, f Fusion, flash bool) opKind {
	role := t.Role
	if role == RoleBias {
		role = biasRole(t.Name)
	}
	fuseQKV := f.QKV && s.MLA == nil
	switch role {
	case RoleAttnQ:
		if s.MLA != nil {
			return opQ
		}
		return pick(fuseQKV, opQKV, opQ)
	case RoleAttnK:
		return pick(fuseQKV, opQKV, opK)
	case RoleAttnV:
		return pick(fuseQKV, opQKV, opV)
	case RoleAttnQKV:
		return opQKV
	case RoleAttnQA:
		return opQA
	case RoleAttnQB:
		return opQB
	case RoleAttnKVA:
		return opKVA
	case RoleAttnKVB:
		return opKVB
	case RoleAttnOut:
		return opOut
	case RoleAttnSinks: // a sink logit per head joins the softmax
		return pick(flash, opAttention, opSoftmax)
	case RoleFFNGate:
		return pick(f.GateUp, opGateUp, opGate)
	case RoleFFNUp:
		return pick(f.GateUp || s.FusedGateUp, opGateUp, opUp)
	case RoleFFNDown:
		return opDown
	case RoleRouter, RoleExpProbsBias:
		return opRouter
	case RoleExpertGate:
		return pick(f.GateUp, opExpGateUp, opExpGate)
	case RoleExpertUp:
		return pick(f.GateUp && s.MLP == Gated, opExpGateUp, opExpUp)
	case RoleExpertDown:
		return opExpDown
	case RoleSharedGate:
		return pick(f.GateUp, opShGateUp, opShGate)
	case RoleSharedUp:
		return pick(f.GateUp && s.MLP == Gated, opShGateUp, opShUp)
	case RoleSharedDown:
		return opShDown
	case RoleOutputNorm:
		return opFinalNorm
	}
	return opNorms // per-layer norms, q/k norms, the MLA latents' norms
}

// biasRole is the role of the product a bias tensor belongs to, from its
// name ("blk.3.attn_q.bias" → attn_q).
func biasRole(name string) Role {
	base := strings.TrimSuffix(name, ".bias")
	if strings.HasPrefix(base, "blk.") {
		if i := strings.IndexByte(base[len("blk."):], '.'); i >= 0 {
			base = base[len("blk.")+i+1:]
		}
	}
	switch r := Role(base); r {
	case RoleAttnQ, RoleAttnK, RoleAttnV, RoleAttnQKV, RoleAttnOut, RoleRouter, RoleExpProbsBias,
		RoleExpertGate, RoleExpertUp, RoleExpertDown:
		return r
	}
	return RoleNorm
}

func pick(cond bool, a, b opKind) opKind {
	if cond {
		return a
	}
	return b
}

func classOf(k opKind) OpClass {
	switch k {
	case opExpGate, opExpUp, opExpGateUp, opExpDown:
		return ExpertClass
	case opAttention, opScores, opSoftmax, opValues:
		return AttentionClass
	}
	return DenseClass
}

// add adds tensor t to the operator: its size and its storage type.
func (o *Operator) add(t *TensorCost) {
	o.Account.addTensor(t)
	o.addType(t.Type.Name)
}

// addType lists a storage type among the operator's, once.
func (o *Operator) addType(name string) {
	for rest := o.Types; rest != ""; {
		n := rest
		if i := strings.IndexByte(rest, '+'); i >= 0 {
			n, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if n == name {
			return
		}
	}
	if o.Types != "" {
		o.Types += "+"
	}
	o.Types += name
}

// labelGroups names each group by what tells it from the others.
func labelGroups(gs []LayerGroup) {
	if len(gs) == 1 {
		gs[0].Label = "layers"
		return
	}
	windows, moe := false, false
	for _, g := range gs[1:] {
		windows = windows || g.Window != gs[0].Window
		moe = moe || g.MoE != gs[0].MoE
	}
	for i := range gs {
		var parts []string
		if windows {
			if w := gs[i].Window; w > 0 {
				parts = append(parts, "sliding "+itoa(w))
			} else {
				parts = append(parts, "global")
			}
		}
		if moe {
			if gs[i].MoE {
				parts = append(parts, "MoE")
			} else {
				parts = append(parts, "dense")
			}
		}
		gs[i].Label = strings.Join(parts, ", ")
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
