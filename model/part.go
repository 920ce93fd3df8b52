package model

import (
	"errors"
	"fmt"
	"sort"
)

// Part selects some of a model's tensors: a run of layers, and within
// them the dense tensors (norms, attention and its KV cache, dense and
// shared feed-forward blocks, the router) and the routed experts apart;
// and the input embedding table and the output side (the final norm and
// the head) outside the blocks. A runtime that splits a model places
// each part in a memory pool and runs it on an engine: llama.cpp's
// -ngl keeps the first layers and the embedding table in host memory,
// --n-cpu-moe the routed experts of the first layers.
type Part struct {
	First, End int  // layers First … End−1
	Dense      bool // the layers' non-routed tensors, their attention and KV cache
	Experts    bool // the layers' routed experts
	Embedding  bool // the input embedding table
	Head       bool // the final norm and the output head
	// SkipFirst … SkipEnd−1 are layers whose routed experts the part
	// leaves out though it holds the layers' experts (they stay in host
	// memory: llama.cpp --n-cpu-moe).
	SkipFirst, SkipEnd int
}

// expertsOf says whether the part holds layer i's routed experts.
func (p Part) expertsOf(i int) bool {
	return p.Experts && i >= p.First && i < p.End && !(i >= p.SkipFirst && i < p.SkipEnd)
}

// Layers is the number of layers the part spans.
func (p Part) Layers() int { return max(0, p.End-p.First) }

// Empty reports whether the part selects nothing.
func (p Part) Empty() bool {
	return !p.Embedding && !p.Head && (p.Layers() == 0 || (!p.Dense && !p.Experts))
}

// has says whether tensor t belongs to the part.
func (p Part) has(t Tensor) bool {
	switch {
	case t.Role == RoleTokenEmbd:
		return p.Embedding
	case t.Layer < 0:
		return p.Head
	case t.Layer < p.First || t.Layer >= p.End:
		return false
	case t.Routed:
		return p.expertsOf(t.Layer)
	}
	return p.Dense
}

// ErrNoTensorList is Slice's answer for a cost built without its list of
// tensors (BuildSums).
var ErrNoTensorList = errors.New("the model's cost was built without its tensor list")

// Slice is the account of part p alone: a Cost over its tensors (with
// their types and sizes as c prices them, a file's fit included) and the
// attention and KV cache of its layers when it holds their dense tensors,
// so that every byte and FLOP function prices the part as it prices the
// whole model, and the parts of a model add up to it (TestSlicesAddUp).
// A tied head that is not in the same part as the embedding table is a
// copy of the table (llama.cpp duplicates it on the output layer's
// device): each part counts it. Tensors of a model file that the
// inventory does not list go with the head.
func (c *Cost) Slice(p Part) (*Cost, error) { return c.slice(p, true) }

// SliceSums is Slice without the part's tensor list: the same sums, as a
// plan prices its models (BuildSums), for a search that places one model
// many ways and keeps every part it tried.
func (c *Cost) SliceSums(p Part) (*Cost, error) { return c.slice(p, false) }

func (c *Cost) slice(p Part, list bool) (*Cost, error) {
	s := c.Spec
	if c.Tensors == nil {
		return nil, ErrNoTensorList
	}
	if p.First < 0 || p.End > s.Layers || p.First > p.End {
		return nil, fmt.Errorf("layers %d to %d are not within the model's %d", p.First, p.End, s.Layers)
	}
	tied := c.tied && p.Embedding && p.Head
	o := &Cost{Spec: s, Weights: c.Weights, KV: c.KV, Layout: c.Layout, tied: tied, noLogits: !p.Head}
	var headPerRow float64
	for _, t := range c.Tensors {
		asHead := c.tied && p.Head && t.Role == RoleTokenEmbd
		if !p.has(t.Tensor) && !asHead {
			continue
		}
		if list {
			o.Tensors = append(o.Tensors, t)
		}
		o.addWhole(&t)
		switch {
		case t.Role == RoleTokenEmbd:
			if p.Embedding {
				o.ParamsEmbedding = float64(t.Elements())
				o.embdRowBytes = t.Bytes / float64(t.Rows)
			}
			switch {
			case tied:
				o.headBytes, o.headType = t.Bytes, t.Type
				headPerRow = float64(t.Cols)
			case asHead:
				// The head's copy of the table in a part without the
				// embedding; a part holding both counts the table once.
				o.headBytes, o.headType = t.Bytes, t.Type
				headPerRow = float64(t.Cols)
			default:
				o.embdBytes = t.Bytes
			}
		case t.Role == RoleOutput:
			o.headBytes, o.headType = t.Bytes, t.Type
			headPerRow = float64(t.Cols)
		default:
			o.account(&t)
		}
	}
	if p.Head {
		o.headFLOPs = 2 * headPerRow * float64(s.Vocab)
		o.headWork()
		o.WeightBytes += c.UnlistedBytes
		o.UnlistedBytes = c.UnlistedBytes
	}
	o.RecipeBytes = o.WeightBytes
	if p.Dense || p.Experts {
		for i := p.First; i < p.End; i++ {
			if p.Dense && (s.MoE == nil || i < s.MoE.DenseLayers) {
				o.ffnWidth = max(o.ffnWidth, float64(s.FFN))
			}
			if m := s.MoE; m != nil && i >= m.DenseLayers {
				w := 0.0
				if p.expertsOf(i) {
					w += float64(m.Active * m.FFN)
				}
				if p.Dense {
					w += float64(m.Shared * m.SharedFFN)
				}
				o.ffnWidth = max(o.ffnWidth, w)
			}
		}
	}
	if p.Dense && p.Layers() > 0 {
		perLayerKV, err := kvPerTokenLayer(s, c.KV, c.Layout.MLA)
		if err != nil {
			return nil, err
		}
		prefillPair, decodePair := attentionPairFLOPs(s)
		for i := p.First; i < p.End; i++ {
			win := s.Window(i)
			if c.Layout.IgnoreWindows {
				win = 0
			}
			o.kv.add(win, perLayerKV)
			o.addKVLayer(win)
			o.attnPrefill.add(win, prefillPair)
			o.attnDecode.add(win, decodePair)
			o.scores.add(win, float64(s.Heads))
		}
		for _, t := range o.kv.terms {
			if t.window > 0 {
				o.windows = append(o.windows, t.window)
			}
		}
		sort.Ints(o.windows)
	}
	return o, nil
}

// Shard is one of n tensor-parallel ranks of c, as vLLM, TensorRT-LLM and
// SGLang split a model: every matrix product split n ways (attention by
// heads, the feed-forward blocks by their width, the embedding and head by
// the vocabulary), so each rank streams and computes 1/n of the weights
// and FLOPs; the KV cache split by KV heads while there are at least n of
// them and replicated beyond (a rank holds one head), and an MLA latent
// cache, which every head reads, replicated on every rank. The few
// hidden-wide norm vectors, which every rank keeps whole, are counted
// 1/n too (kilobytes per layer). The list of tensors is dropped.
func (c *Cost) Shard(n int) *Cost {
	if n <= 1 {
		return c
	}
	o := *c
	f := 1 / float64(n)
	o.Tensors = nil
	o.ParamsTotal *= f
	o.ParamsActive *= f
	o.ParamsEmbedding *= f
	o.WeightBytes *= f
	o.RecipeBytes *= f
	o.UnlistedBytes *= f
	o.sharedBytes *= f
	o.headBytes *= f
	o.embdRowBytes *= f
	o.embdBytes *= f
	o.expertBytes *= f
	o.tiles = c.tiles.scaled(f)
	o.denseFLOPs *= f
	o.routedFLOPs *= f
	o.headFLOPs *= f
	o.actBytes *= f
	o.actRead *= f
	o.ffnWidth *= f
	o.kv = c.kv.scaled(c.KVShare(n))
	o.attnPrefill = c.attnPrefill.scaled(f)
	o.attnDecode = c.attnDecode.scaled(f)
	o.scores = c.scores.scaled(f)
	return &o
}

// KVShare is the share of the KV cache each of n tensor-parallel ranks
// holds: 1/n while the model has n KV heads or more, one head's share
// beyond (replicated), all of it for an MLA latent cache.
func (c *Cost) KVShare(n int) float64 {
	s := c.Spec
	switch {
	case n <= 1:
		return 1
	case s.MLA != nil && c.Layout.MLA != MLAExpanded:
		return 1
	case s.KVHeads >= n:
		return 1 / float64(n)
	}
	return 1 / float64(max(s.KVHeads, 1))
}

// scaled is w with every term times f.
func (w windowed) scaled(f float64) windowed {
	o := windowed{terms: make([]windowTerm, len(w.terms))}
	for i, t := range w.terms {
		t.per *= f
		o.terms[i] = t
	}
	return o
}
