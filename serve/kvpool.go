package serve

import (
	"math"

	"github.com/roofline/roofline/model"
)

// pool is the KV cache's block account. A page is one block of bs tokens
// for `width` layers; each group of `width` layers of one attention kind
// takes a page per block it holds from the one pool.
//
// Without a runtime that frees out-of-window blocks (or a model without
// sliding windows) there is one group of every layer, and a page is the
// block of every layer: a request holding t tokens holds ⌈t/bs⌉ pages.
//
// vLLM's hybrid KV cache manager instead groups the layers of each kind
// into groups of `width` layers (kv_cache_utils.py
// _get_kv_cache_groups_uniform_page_size: width is the fewest layers of
// a kind, the last group of a kind padded to it) and lets a sliding
// group free the blocks its window no longer reaches
// (single_type_kv_cache_manager.py SlidingWindowManager): with c tokens
// computed, the first ⌊max(0, c − W + 1)/bs⌋ blocks are skipped. A
// request with t token slots and c computed then holds
//
//	full·⌈t/bs⌉ + Σ_W groups_W·(⌈t/bs⌉ − max(skipped_W, shared))
//
// pages, where shared is the blocks of a shared prefix it references
// (held once, for every group, by the pool).
type pool struct {
	bs    int64
	width int     // layers of a page
	full  int64   // groups of full-attention layers
	wins  []int64 // sliding windows, tokens
	slid  []int64 // groups of each window
}

// maxPoolWindows bounds the sliding windows a pool frees apart (a live
// request marks each window it is past in a byte).
const maxPoolWindows = 8

// newPool is the account of model m's layers under a runtime that frees
// out-of-window blocks (frees) or not, for blocks of bs tokens.
func newPool(m *model.Cost, bs int, frees bool) pool {
	layers := m.KVLayers()
	total := 0
	for _, l := range layers {
		total += l.Layers
	}
	p := pool{bs: int64(bs), width: total, full: 1}
	sliding := 0
	for _, l := range layers {
		if l.Window > 0 {
			sliding++
		}
	}
	if !frees || sliding == 0 || sliding > maxPoolWindows {
		return p
	}
	// A page is as many layers as the kind with fewest has.
	lo := total
	for _, l := range layers {
		lo = min(lo, l.Layers)
	}
	p.width = lo
	p.full = 0
	for _, l := range layers {
		g := int64((l.Layers + lo - 1) / lo)
		if l.Window == 0 {
			p.full += g
			continue
		}
		p.wins = append(p.wins, int64(l.Window))
		p.slid = append(p.slid, g)
	}
	return p
}

// groups is the pages a block of every group takes.
func (p *pool) groups() int64 {
	g := p.full
	for _, n := range p.slid {
		g += n
	}
	return g
}

// frees says whether some group frees out-of-window blocks.
func (p *pool) frees() bool { return len(p.wins) > 0 }

// held is the pages a request with `tokens` token slots, `computed` of
// them computed, holds beyond the shared prefix's `shared` blocks.
func (p *pool) held(tokens, computed int64, shared int32) int64 {
	blocks := (tokens + p.bs - 1) / p.bs
	own := max(blocks-int64(shared), 0)
	if !p.frees() {
		return p.full * own
	}
	n := p.full * own
	for j, w := range p.wins {
		skip := max(computed-w+1, 0) / p.bs
		n += p.slid[j] * max(blocks-max(skip, int64(shared)), 0)
	}
	return n
}

// decoding is the pages a decoding request holds once its step at
// context ctx (the keys it attends, itself included) has its blocks:
// ctx slots, ctx − 1 computed.
func (p *pool) decoding(ctx int64, shared int32) int64 {
	return p.held(ctx, ctx-1, shared)
}

// past is the context from which a decoding request's step frees a block
// of window j: from there on, every step at a context ≡ W (mod bs) skips
// one more block than the shared prefix holds.
func (p *pool) past(j int, shared int32) int64 {
	return p.wins[j] + p.bs*(1+int64(shared))
}

// perRequest is the most pages one request of `tokens` tokens holds at
// any step of at most `step` tokens: a sliding group's most is the
// window and a step, ⌈(W − 1 + step)/bs⌉ + 1 blocks (vLLM's
// SlidingWindowSpec.max_memory_usage_bytes).
func (p *pool) perRequest(tokens, step int64) int64 {
	blocks := (tokens + p.bs - 1) / p.bs
	n := p.full * blocks
	for j, w := range p.wins {
		n += p.slid[j] * min(blocks, (w-1+step+p.bs-1)/p.bs+1)
	}
	return n
}

// maxTokens is the most tokens one request may hold in a pool of `pages`
// pages with steps of at most `step` tokens (cap: the most asked).
func (p *pool) maxTokens(pages, step, cap int64) int64 {
	if p.perRequest(cap, step) <= pages {
		return cap
	}
	lo, hi := int64(0), cap // perRequest(lo) ≤ pages < perRequest(hi)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if p.perRequest(mid, step) <= pages {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// pagesOf is the pages a budget of `bytes` holds at perLayerToken bytes
// a token in one layer (model.Cost.KVPerLayerToken; vLLM:
// available_memory // page_size // group_size).
func (p *pool) pagesOf(bytes, perLayerToken float64) float64 {
	return math.Floor(bytes / (perLayerToken * float64(p.width) * float64(p.bs)))
}
