package render

import (
	"fmt"

	"github.com/roofline/roofline/sim"
)

// splitJSON is a split prediction's placement: per-pool memory, per-stage
// time, the links' share.
type splitJSON struct {
	Kind             string          `json:"kind"`
	Devices          int             `json:"devices"`
	TP               int             `json:"tp"`
	PP               int             `json:"pp"`
	EP               bool            `json:"ep"`
	GPULayers        *int            `json:"gpu_layers,omitempty"`
	Layers           *int            `json:"layers,omitempty"`
	ExpertLayers     int             `json:"expert_layers_in_host_memory"`
	Link             string          `json:"link"`
	BetweenLink      string          `json:"link_between_groups,omitempty"`
	BetweenHops      int             `json:"hops_between_groups,omitempty"`
	TransferTTFTS    float64         `json:"transfer_ttft_s"`
	TransferTPOTS    float64         `json:"transfer_tpot_s"`
	CollectiveTTFTS  float64         `json:"collective_ttft_s"`
	CollectiveTPOTS  float64         `json:"collective_tpot_s"`
	LinkShareOfTPOT  float64         `json:"link_share_of_tpot"`
	PipelineBubble   float64         `json:"pipeline_bubble_share"`
	IdealTTFT        *idealPartJSON  `json:"ideal_ttft_largest_part,omitempty"`
	IdealDecode      *idealPartJSON  `json:"ideal_decode_largest_part,omitempty"`
	Pools            []poolJSON      `json:"pools"`
	Stages           []stageTimeJSON `json:"stages"`
	SmallestThatFits string          `json:"smallest_that_fits,omitempty"`
}

// idealPartJSON is the largest part of a split phase's ideal time
// (sim.IdealPart), over the whole phase.
type idealPartJSON struct {
	Where  string  `json:"where"`
	Link   bool    `json:"link"`
	Bound  string  `json:"bound"`
	Amount float64 `json:"amount"` // bytes (memory) or FLOPs (compute)
	Rate   float64 `json:"rate"`   // B/s or FLOP/s
	TimeS  float64 `json:"time_s"`
}

func newIdealPartJSON(p sim.IdealPart) *idealPartJSON {
	if p.Time <= 0 {
		return nil
	}
	return &idealPartJSON{p.Where, p.Link, string(p.Bound), p.Amount, p.Rate, p.Time}
}

type poolJSON struct {
	Name             string  `json:"name"`
	Device           string  `json:"device"`
	Devices          int     `json:"devices"`
	Host             bool    `json:"host"`
	WeightsBytes     float64 `json:"weights_bytes"`
	KVBytes          float64 `json:"kv_bytes"`
	ActivationsBytes float64 `json:"activations_bytes"`
	OverheadBytes    float64 `json:"overhead_bytes"`
	TotalBytes       float64 `json:"total_bytes"`
	UsableBytes      float64 `json:"usable_bytes"`
	Fits             bool    `json:"fits"`
}

type stageTimeJSON struct {
	Name          string  `json:"name"`
	Pool          string  `json:"pool"`
	PrefillEngine string  `json:"prefill_engine"`
	DecodeEngine  string  `json:"decode_engine"`
	PrefillS      float64 `json:"prefill_s"`
	DecodeS       float64 `json:"decode_per_step_s"`
}

// newPoolsJSON is each pool's use, as predict and plan write it.
func newPoolsJSON(pools []sim.PoolUse) []poolJSON {
	out := make([]poolJSON, 0, len(pools))
	for _, p := range pools {
		out = append(out, poolJSON{p.Name, p.Device.Name, p.Devices, p.Host, p.Weights, p.KV, p.Activations, p.Overhead, p.Total, p.Usable, p.Fits})
	}
	return out
}

func newSplitJSON(r *sim.Result, smallest string) *splitJSON {
	s := r.Split
	if s == nil {
		return nil
	}
	j := &splitJSON{Kind: string(s.Kind), Devices: s.Devices, TP: s.TP, PP: s.PP, EP: s.EP, ExpertLayers: s.ExpertLayers, Link: s.Link, BetweenLink: s.Between, BetweenHops: s.BetweenHops,
		TransferTTFTS: s.TransferTTFT, TransferTPOTS: s.TransferTPOT, CollectiveTTFTS: s.CollectiveTTFT, CollectiveTPOTS: s.CollectiveTPOT,
		PipelineBubble: s.BubbleTPOT, IdealTTFT: newIdealPartJSON(s.IdealPrefill), IdealDecode: newIdealPartJSON(s.IdealDecode), SmallestThatFits: smallest, Pools: []poolJSON{}, Stages: []stageTimeJSON{}}
	if s.Kind == sim.Offload {
		n, l := s.GPULayers, s.Layers
		j.GPULayers, j.Layers = &n, &l
	}
	if r.TPOT > 0 {
		j.LinkShareOfTPOT = (s.TransferTPOT + s.CollectiveTPOT) / r.TPOT
	}
	j.Pools = newPoolsJSON(s.Pools)
	for _, st := range s.Stages {
		j.Stages = append(j.Stages, stageTimeJSON{st.Name, st.Pool, st.PrefillEngine, st.DecodeEngine, st.Prefill, st.Decode})
	}
	return j
}

// splitTables are a split prediction's placement in text and Markdown:
// where each part runs and what it costs, then each pool's memory.
func splitTables(r *sim.Result) (*Table, *Table) {
	s := r.Split
	t := NewTable("PART", "PREFILL ON", "DECODE ON", "PREFILL", "DECODE").Right(3, 4)
	for _, st := range s.Stages {
		t.Add(st.Name, orDash(st.PrefillEngine), orDash(st.DecodeEngine), Duration(st.Prefill), perToken(st.Decode))
	}
	if s.Link != "" {
		if s.TransferTTFT > 0 || s.TransferTPOT > 0 {
			over := s.Link
			if s.Between != "" {
				over = fmt.Sprintf("%s and %s (%d of %d hops)", s.Link, s.Between, s.BetweenHops, s.PP-1)
			}
			t.Add("activations over "+over, "", "", Duration(s.TransferTTFT), perToken(s.TransferTPOT))
		}
		if s.TP > 1 {
			t.Add(fmt.Sprintf("collectives over %s (%d devices)", s.Link, s.TP), "", "", Duration(s.CollectiveTTFT), perToken(s.CollectiveTPOT))
		}
	}
	m := NewTable("MEMORY POOL", "WEIGHTS", "KV", "ACTIVATIONS", "OVERHEAD", "TOTAL", "USABLE", "SHARE").Right(1, 2, 3, 4, 5, 6, 7)
	for _, p := range s.Pools {
		share := Percent1(p.Total / p.Usable)
		if !p.Fits {
			share += " DOES NOT FIT"
		}
		m.Add(p.Name, Bytes(p.Weights), Bytes(p.KV), Bytes(p.Activations), Bytes(p.Overhead), Bytes(p.Total), Bytes(p.Usable), share)
	}
	return t, m
}

func perToken(t float64) string {
	if t == 0 {
		return Dash
	}
	return Duration(t) + "/token"
}

func orDash(s string) string {
	if s == "" {
		return Dash
	}
	return s
}

// splitLines are the lines under a split's tables: where the layers are,
// the links' share of a token, the pipeline's idle share, what fits.
func splitLines(r *sim.Result, smallest string) []string {
	s := r.Split
	var out []string
	switch s.Kind {
	case sim.Offload:
		l := fmt.Sprintf("%d of %d layers on the GPU (llama.cpp's -ngl count, the output layer one of them)", s.GPULayers, s.Layers)
		if s.ExpertLayers > 0 {
			l += fmt.Sprintf("; the routed experts of %d layers in host memory", s.ExpertLayers)
		}
		out = append(out, l)
	default:
		out = append(out, fmt.Sprintf("%d devices: tensor parallel %d × pipeline parallel %d%s", s.Devices, s.TP, s.PP, map[bool]string{true: ", experts spread over the tensor-parallel devices", false: ""}[s.EP]))
	}
	if link := s.TransferTPOT + s.CollectiveTPOT; s.Link != "" && r.TPOT > 0 && link > 0 {
		out = append(out, fmt.Sprintf("the links take %.1f%% of each token's time (%s of %s)", 100*link/r.TPOT, Duration(link), Duration(r.TPOT)))
	}
	if s.BubbleTPOT > 0.005 {
		out = append(out, fmt.Sprintf("the pipeline's stages idle %.0f%% of a decode step (fewer micro-batches than stages, or unequal stages)", 100*s.BubbleTPOT))
	}
	m := r.Memory
	fit := "fits in every pool"
	if !m.Fits {
		fit = "DOES NOT FIT"
	}
	ctx := fmt.Sprintf("%d tokens per sequence at batch %d with this placement", m.MaxContext, r.Inputs.Workload.Batch)
	switch {
	case m.MaxContext == 0:
		ctx = "none"
	case m.ContextBound == sim.BoundByModel:
		ctx = fmt.Sprintf("%d tokens, the model's maximum context", m.MaxContext)
	}
	out = append(out, fmt.Sprintf("%s; largest context every pool holds: %s", fit, ctx))
	if smallest != "" {
		out = append(out, "smallest that would hold it: "+smallest)
	}
	return out
}

// splitNotFit is the first line of a split that does not fit.
func splitNotFit(r *sim.Result) string {
	for _, p := range r.Split.Pools {
		if !p.Fits {
			return fmt.Sprintf("DOES NOT FIT: %s needs %s in %s at %d tokens, %s usable (%.2f×)", r.Inputs.Model, Bytes(p.Total), p.Name,
				r.Inputs.Workload.Context(), Bytes(p.Usable), p.Total/p.Usable)
		}
	}
	return ""
}
