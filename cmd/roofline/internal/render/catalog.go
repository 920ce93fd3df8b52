package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/units"
)

// DeviceList is `roofline list hardware`.
func DeviceList(ds []app.Device) Answer {
	return answer{
		doc: func() *Doc {
			t := NewTable("NAME", "MODE", "MEMORY", "BANDWIDTH", "ENGINES (peak fp16 or int8)", "DESCRIPTION").Right(2, 3)
			for _, d := range ds {
				t.Add(d.Name, OrDash(d.PowerMode), Bytes(d.Memory), Bandwidth(d.Bandwidth), enginePeaks(d.Device), d.Description)
			}
			doc := &Doc{}
			doc.Table(t)
			return doc
		},
		data: func() any {
			var out []deviceJSON
			for _, d := range ds {
				out = append(out, newDeviceJSON(d))
			}
			return out
		},
	}
}

// enginePeaks is each engine's first peak of fp16, int8, fp32.
func enginePeaks(d *hardware.Device) string {
	var engines []string
	for i := range d.Engines {
		e := &d.Engines[i]
		p, v, _ := e.Pick([]units.Precision{units.FP16, units.INT8, units.FP32})
		engines = append(engines, fmt.Sprintf("%s %s %s", e.Name, Ops(v, p), p))
	}
	return strings.Join(engines, ", ")
}

// ModelList is `roofline list models`.
func ModelList(ms []*model.Cost) Answer {
	return answer{
		doc: func() *Doc {
			t := NewTable("NAME", "ARCH", "PARAMS", "ACTIVE", "LAYERS", "CONTEXT", "KV/TOKEN (f16)", "CHECKPOINT").Right(2, 3, 4, 5, 6)
			for _, mc := range ms {
				s := mc.Spec
				t.Add(s.Name, s.Architecture, Count(mc.ParamsTotal), Count(mc.ParamsActive), fmt.Sprint(s.Layers),
					fmt.Sprint(s.MaxContext), Bytes(mc.KVBytesPerToken()), s.Checkpoint)
			}
			doc := &Doc{}
			doc.Table(t)
			return doc
		},
		data: func() any {
			var out []modelJSON
			for _, mc := range ms {
				out = append(out, newModelJSON(mc))
			}
			return out
		},
	}
}

type formatJSON struct {
	Name        string   `json:"name"`
	Aliases     []string `json:"aliases,omitempty"`
	Family      string   `json:"family"`
	Compute     []string `json:"compute_precisions"`
	Description string   `json:"description"`
}

type storageJSON struct {
	Name          string  `json:"name"`
	BlockSize     int     `json:"block_size"`
	BlockBits     int     `json:"block_bits"`
	RowBits       int     `json:"row_bits,omitempty"`
	BitsPerWeight float64 `json:"bits_per_weight"`
}

// FormatList is `roofline list formats`.
func FormatList(fs app.Formats) Answer {
	return answer{
		doc: func() *Doc {
			doc := &Doc{}
			doc.Line("Weight formats (--weights):")
			t := NewTable("NAME", "FAMILY", "COMPUTE", "DESCRIPTION")
			for _, f := range fs.Weights {
				name := f.Name
				if len(f.Aliases) > 0 {
					name += " (" + strings.Join(f.Aliases, ", ") + ")"
				}
				t.Add(name, f.Family, strings.Join(precisionNames(f.Compute), ">"), f.Description)
			}
			doc.Table(t)
			doc.Both("\nKV-cache formats (--kv):\n")
			kt := NewTable("NAME", "BITS", "DESCRIPTION").Right(1)
			for _, f := range fs.KV {
				kt.Add(f.Name, units.Sig(f.Storage.BitsPerWeight(), 4), f.Description)
			}
			doc.Table(kt)
			doc.Both("\nStorage types (per tensor):\n")
			st := NewTable("TYPE", "BLOCK", "BYTES/BLOCK", "BITS/WEIGHT").Right(1, 2, 3)
			for _, s := range fs.Types {
				st.Add(s.Name, fmt.Sprint(s.BlockSize), units.Sig(float64(s.BlockBits)/8, 4), units.Sig(s.BitsPerWeight(), 6))
			}
			doc.Table(st)
			return doc
		},
		data: func() any {
			var out struct {
				Weights []formatJSON  `json:"weight_formats"`
				KV      []formatJSON  `json:"kv_formats"`
				Types   []storageJSON `json:"storage_types"`
			}
			for _, f := range fs.Weights {
				out.Weights = append(out.Weights, formatJSON{f.Name, f.Aliases, f.Family, precisionNames(f.Compute), f.Description})
			}
			for _, f := range fs.KV {
				out.KV = append(out.KV, formatJSON{Name: f.Name, Family: "kv", Description: f.Description})
			}
			for _, s := range fs.Types {
				out.Types = append(out.Types, storageJSON{s.Name, s.BlockSize, s.BlockBits, s.RowBits, s.BitsPerWeight()})
			}
			return out
		},
	}
}

func precisionNames(ps []units.Precision) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}

type typeJSON struct {
	Type    string  `json:"type"`
	Tensors int     `json:"tensors"`
	Params  float64 `json:"params"`
	Bytes   float64 `json:"bytes"`
}

type modelJSON struct {
	Name                      string     `json:"name"`
	Architecture              string     `json:"architecture"`
	Aliases                   []string   `json:"aliases,omitempty"`
	Source                    string     `json:"source"`
	Weights                   string     `json:"weights"`
	KV                        string     `json:"kv"`
	ComputePrecisions         []string   `json:"compute_precisions"`
	Layers                    int        `json:"layers"`
	HiddenSize                int        `json:"hidden_size"`
	Heads                     int        `json:"heads"`
	KVHeads                   int        `json:"kv_heads,omitempty"`
	HeadDim                   int        `json:"head_dim,omitempty"`
	IntermediateSize          int        `json:"intermediate_size,omitempty"`
	VocabSize                 int        `json:"vocab_size"`
	TiedEmbeddings            bool       `json:"tied_embeddings"`
	MaxContext                int        `json:"max_context"`
	SlidingWindow             int        `json:"sliding_window,omitempty"`
	SlidingLayers             int        `json:"sliding_layers,omitempty"`
	Experts                   int        `json:"experts,omitempty"`
	ActiveExperts             int        `json:"active_experts,omitempty"`
	ParamsTotal               float64    `json:"params_total"`
	ParamsActive              float64    `json:"params_active"`
	ParamsEmbedding           float64    `json:"params_embedding"`
	WeightBytes               float64    `json:"weight_bytes"`
	BitsPerWeight             float64    `json:"bits_per_weight"`
	StreamedBytesPerToken     float64    `json:"streamed_bytes_per_token"`
	KVBytesPerToken           float64    `json:"kv_bytes_per_token"`
	KVBytesPerTokenPerLayer   float64    `json:"kv_bytes_per_token_per_layer"`
	LinearFLOPsPerToken       float64    `json:"linear_flops_per_token"`
	HeadFLOPsPerToken         float64    `json:"head_flops_per_token"`
	AttentionFLOPsPerCtxToken float64    `json:"attention_flops_per_context_token"`
	PublishedParams           float64    `json:"published_params,omitempty"`
	PublishedActiveParams     float64    `json:"published_active_params,omitempty"`
	PublishedSource           string     `json:"published_source,omitempty"`
	Types                     []typeJSON `json:"types"`
}

func newModelJSON(mc *model.Cost) modelJSON {
	s := mc.Spec
	j := modelJSON{
		Name: s.Name, Architecture: s.Architecture, Aliases: s.Aliases, Source: s.Source,
		Weights: mc.Weights.Name, KV: mc.KV.Name, ComputePrecisions: precisionNames(mc.Weights.Compute),
		Layers: s.Layers, HiddenSize: s.Hidden, Heads: s.Heads, KVHeads: s.KVHeads, HeadDim: s.HeadDim,
		IntermediateSize: s.FFN, VocabSize: s.Vocab, TiedEmbeddings: s.TiedEmbeddings, MaxContext: s.MaxContext,
		SlidingWindow: s.SlidingWindow, SlidingLayers: s.SlidingLayers(),
		ParamsTotal: mc.ParamsTotal, ParamsActive: mc.ParamsActive, ParamsEmbedding: mc.ParamsEmbedding,
		WeightBytes: mc.WeightBytes, BitsPerWeight: mc.BitsPerWeight(), StreamedBytesPerToken: mc.StreamedBytesPerToken(),
		KVBytesPerToken: mc.KVBytesPerToken(), KVBytesPerTokenPerLayer: mc.KVPerLayerToken(),
		LinearFLOPsPerToken: mc.LinearFLOPsPerToken(), HeadFLOPsPerToken: mc.HeadFLOPs(),
		AttentionFLOPsPerCtxToken: mc.AttentionFLOPsPerContextToken(),
		PublishedParams:           s.Published.Params, PublishedActiveParams: s.Published.ActiveParams, PublishedSource: s.Published.Source,
	}
	if s.MoE != nil {
		j.Experts, j.ActiveExperts = s.MoE.Experts, s.MoE.Active
	}
	for _, t := range mc.TypeHistogram() {
		j.Types = append(j.Types, typeJSON{t.Type, t.Tensors, t.Params, t.Bytes})
	}
	return j
}

// Model is `roofline show model`.
func Model(mc *model.Cost) Answer {
	return answer{doc: func() *Doc { return modelDoc(mc) }, data: func() any { return newModelJSON(mc) }}
}

func modelDoc(mc *model.Cost) *Doc {
	s := mc.Spec
	bytesBoth := func(b float64) string {
		return fmt.Sprintf("%s (%s)", units.FormatBytes(b, units.Decimal), Bytes(b))
	}
	shape := fmt.Sprintf("%d layers, hidden %d, vocab %d", s.Layers, s.Hidden, s.Vocab)
	var attn string
	switch {
	case s.MLA != nil:
		attn = fmt.Sprintf("MLA: %d heads, latent %d + rope %d cached per token and layer", s.Heads, s.MLA.KVLoraRank, s.MLA.QKRopeDim)
	default:
		attn = fmt.Sprintf("%d query heads, %d KV heads × head_dim %d", s.Heads, s.KVHeads, s.HeadDim)
	}
	if n := s.SlidingLayers(); n > 0 {
		attn += fmt.Sprintf("; sliding window %d on %d of %d layers", s.SlidingWindow, n, s.Layers)
	}
	ffn := fmt.Sprintf("%s MLP, intermediate %d", s.MLP, s.FFN)
	if m := s.MoE; m != nil {
		ffn = fmt.Sprintf("MoE: %d experts, %d active, expert intermediate %d", m.Experts, m.Active, m.FFN)
		if m.Shared > 0 {
			ffn += fmt.Sprintf(", %d shared", m.Shared)
		}
		if m.DenseLayers > 0 {
			ffn += fmt.Sprintf(", first %d layers dense (intermediate %d)", m.DenseLayers, s.FFN)
		}
	}
	emb := "untied (the output head is its own matrix)"
	if s.TiedEmbeddings {
		emb = "tied (the output head reads the embedding table)"
	}
	params := fmt.Sprintf("%s total, %s active per token, %s in the input embedding",
		Count(mc.ParamsTotal), Count(mc.ParamsActive), Count(mc.ParamsEmbedding))
	pairs := [][2]string{
		{"model", fmt.Sprintf("%s (%s)", s.Name, s.Architecture)},
		{"source", s.Source},
		{"shape", shape},
		{"attention", attn},
		{"feed-forward", ffn},
		{"embeddings", emb},
		{"max context", fmt.Sprintf("%d tokens", s.MaxContext)},
		{"parameters", params},
	}
	if p := s.Published; p.Params > 0 {
		pub := Count(p.Params) + " total"
		if p.ActiveParams > 0 {
			pub += ", " + Count(p.ActiveParams) + " active"
		}
		pairs = append(pairs, [2]string{"published", fmt.Sprintf("%s (%s)", pub, p.Source)})
	}
	pairs = append(pairs,
		[2]string{"weights", fmt.Sprintf("%s: %s", mc.Weights.Name, mc.Weights.Description)},
		[2]string{"compute", "runs at the first of " + strings.Join(precisionNames(mc.Weights.Compute), " > ") + " the engine has"},
		[2]string{"weight bytes", fmt.Sprintf("%s, %s bits per weight", bytesBoth(mc.WeightBytes), units.Sig(mc.BitsPerWeight(), 4))},
		[2]string{"streamed/token", fmt.Sprintf("%s per decode step at batch 1 (weights read once; the input embedding one row)", bytesBoth(mc.StreamedBytesPerToken()))},
		[2]string{"kv cache", fmt.Sprintf("%s: %s per token (%.0f B), %s per token and layer", mc.KV.Name,
			Bytes(mc.KVBytesPerToken()), mc.KVBytesPerToken(), Bytes(mc.KVPerLayerToken()))},
		[2]string{"kv at 4k / max", fmt.Sprintf("%s at 4096 tokens, %s at %d tokens (one sequence)",
			Bytes(mc.KVBytes(4096)), Bytes(mc.KVBytes(s.MaxContext)), s.MaxContext)},
		[2]string{"flops/token", fmt.Sprintf("%sFLOP linear + %sFLOP logits + %sFLOP attention per token of context",
			Count(mc.LinearFLOPsPerToken()), Count(mc.HeadFLOPs()), Count(mc.AttentionFLOPsPerContextToken()))},
	)
	for _, n := range s.FileNotes {
		pairs = append(pairs, [2]string{"file note", n})
	}
	doc := &Doc{}
	doc.Pairs(pairs)
	doc.Both("\ntensor types:\n")
	t := NewTable("TYPE", "TENSORS", "PARAMS", "BYTES", "SHARE").Right(1, 2, 3, 4)
	for _, h := range mc.TypeHistogram() {
		t.Add(h.Type, fmt.Sprint(h.Tensors), Count(h.Params), Bytes(h.Bytes), Percent1(h.Bytes/mc.WeightBytes))
	}
	doc.Table(t)
	return doc
}

type engineJSON struct {
	Name         string             `json:"name"`
	Kind         string             `json:"kind"`
	ClockHz      float64            `json:"clock_hz,omitempty"`
	PowerW       float64            `json:"power_w,omitempty"`
	Peaks        map[string]float64 `json:"peak_ops_per_s"`
	Ridge        map[string]float64 `json:"ridge_flop_per_byte"`
	Runtimes     []string           `json:"runtimes"`
	CalibratedOn string             `json:"calibrated_runtime,omitempty"`
	// Int8Dot is whether the engine has int8 dot-product instructions,
	// where its profile says (absent: not stated, priced as having them).
	Int8Dot *bool `json:"int8_dot,omitempty"`
}

type deviceJSON struct {
	Name                    string            `json:"name"`
	Aliases                 []string          `json:"aliases,omitempty"`
	Description             string            `json:"description"`
	Family                  string            `json:"family"`
	VariantOf               string            `json:"variant_of,omitempty"`
	PowerMode               string            `json:"power_mode,omitempty"`
	ModeTable               string            `json:"mode_table,omitempty"`
	PowerModes              []powerModeJSON   `json:"power_modes,omitempty"`
	UnifiedMemory           bool              `json:"unified_memory"`
	MemoryBytes             float64           `json:"memory_bytes"`
	UsableBytes             float64           `json:"usable_bytes"`
	BandwidthBytesPerS      float64           `json:"bandwidth_bytes_per_s"`
	MeasuredBandwidth       float64           `json:"measured_bandwidth_bytes_per_s,omitempty"`
	StorageBandwidthBytesPS float64           `json:"storage_bandwidth_bytes_per_s"`
	NVLink                  string            `json:"nvlink,omitempty"`
	DiscreteGPUHost         *bool             `json:"discrete_gpu_host,omitempty"` // nil: the profile does not say
	DefaultEngine           string            `json:"default_engine"`
	Engines                 []engineJSON      `json:"engines"`
	Sources                 map[string]string `json:"sources"`
	References              []string          `json:"references"`
	File                    string            `json:"file"`
}

// powerModeJSON is one power mode of a shown device's module.
type powerModeJSON struct {
	Name      string `json:"name"`
	PowerMode string `json:"power_mode"`
	ModeTable string `json:"mode_table,omitempty"`
	// Select is the NAME@MODE that selects it.
	Select             string  `json:"select"`
	BandwidthBytesPerS float64 `json:"bandwidth_bytes_per_s"`
	PowerW             float64 `json:"power_w,omitempty"`
}

func newDeviceJSON(dv app.Device) deviceJSON {
	d := dv.Device
	j := deviceJSON{Name: d.Name, Aliases: d.Aliases, Description: d.Description, Family: d.Family, VariantOf: d.VariantOf,
		PowerMode: d.PowerMode, ModeTable: d.ModeTable, UnifiedMemory: d.Unified, MemoryBytes: d.Memory, UsableBytes: d.Usable,
		BandwidthBytesPerS: d.Bandwidth, MeasuredBandwidth: d.MeasuredBandwidth, StorageBandwidthBytesPS: d.StorageBandwidth, NVLink: d.NVLink,
		DefaultEngine: d.DefaultEngine, Sources: d.Sources, References: d.References, File: d.File}
	if _, ok := d.Sources["discrete_gpu_host"]; ok {
		host := !d.NoGPUHost
		j.DiscreteGPUHost = &host
	}
	for i := range d.Engines {
		e := &d.Engines[i]
		ej := engineJSON{Name: e.Name, Kind: string(e.Kind), ClockHz: e.Clock, PowerW: e.Power, Peaks: map[string]float64{}, Ridge: map[string]float64{},
			Runtimes: dv.Runtimes[i]}
		if e.Calibration != nil {
			ej.CalibratedOn = e.Calibration.Runtime
		}
		if _, ok := d.Sources["engine."+e.Name+".int8_dot"]; ok {
			has := !e.NoInt8Dot
			ej.Int8Dot = &has
		}
		for p, v := range e.Peaks {
			ej.Peaks[string(p)] = v
			ej.Ridge[string(p)] = d.Ridge(e, p)
		}
		j.Engines = append(j.Engines, ej)
	}
	for _, m := range dv.Modes {
		pm := powerModeJSON{Name: m.Name, PowerMode: m.PowerMode, ModeTable: m.ModeTable, Select: m.Select,
			BandwidthBytesPerS: m.Bandwidth}
		if e, err := m.Engine(""); err == nil {
			pm.PowerW = e.Power
		}
		j.PowerModes = append(j.PowerModes, pm)
	}
	return j
}

// ShowDevice is `roofline show hardware`.
func ShowDevice(dv app.Device) Answer {
	return answer{doc: func() *Doc { return deviceDoc(dv) }, data: func() any { return newDeviceJSON(dv) }}
}

func deviceDoc(dv app.Device) *Doc {
	d := dv.Device
	src := func(k string) string {
		if s := d.Sources[k]; s != "" {
			return " — " + s
		}
		return ""
	}
	pairs := [][2]string{{"device", d.Name}, {"description", d.Description}}
	if d.VariantOf != "" {
		pairs = append(pairs, [2]string{"variant of", d.VariantOf})
	}
	if d.PowerMode != "" {
		// A mode says its table and the NAME@MODE that selects it: a
		// variant's own name is not how its board's modes are given.
		mode := d.PowerMode
		if d.ModeTable != "" {
			mode += ", " + d.ModeTable + " table"
		}
		for _, m := range dv.Modes {
			if m.Device == d && m.Select != d.Name && !strings.HasPrefix(m.Select, d.Name+"@") {
				mode += " (" + m.Select + ")"
			}
		}
		pairs = append(pairs, [2]string{"power mode", mode})
	}
	mem := "dedicated"
	if d.Unified {
		mem = "unified (shared with the CPU and the OS)"
	}
	measured := "not given"
	if d.MeasuredBandwidth > 0 {
		measured = Bandwidth(d.MeasuredBandwidth) + src("measured_bandwidth")
	}
	pairs = append(pairs,
		[2]string{"memory", fmt.Sprintf("%s (%s), %s%s", Bytes(d.Memory), units.FormatBytes(d.Memory, units.Decimal), mem, src("memory"))},
		[2]string{"usable", fmt.Sprintf("%s%s", Bytes(d.Usable), src("usable_memory"))},
		[2]string{"bandwidth", Bandwidth(d.Bandwidth) + " datasheet" + src("bandwidth")},
		[2]string{"measured bw", measured},
		[2]string{"storage", Bandwidth(d.StorageBandwidth) + " read" + src("storage_bandwidth")},
	)
	// The clocks --clocks sets below the maxima (hardware.Device.AtClocks).
	if len(d.MemoryClocks) > 0 {
		steps := make([]string, len(d.MemoryClocks))
		for i, f := range d.MemoryClocks {
			steps[i] = fmt.Sprintf("%g MHz", f/1e6) // exact: --clocks takes one of them
		}
		pairs = append(pairs, [2]string{"memory clocks", strings.Join(steps, ", ") + " (--clocks ddr=…)" + src("memory_clocks")})
	}
	for i := range d.Engines {
		if e := &d.Engines[i]; e.Kind == hardware.NPU && e.MinClock > 0 && e.Clock > 0 {
			pairs = append(pairs, [2]string{e.Name + " clocks", fmt.Sprintf("%g MHz to %g MHz", e.MinClock/1e6, e.Clock/1e6) + " (--clocks npu=…)" + src("engine."+e.Name+".min_clock")})
		}
	}
	if d.NVLink != "" {
		pairs = append(pairs, [2]string{"nvlink", d.NVLink + " (to its peers)" + src("nvlink")})
	}
	if s, ok := d.Sources["discrete_gpu_host"]; ok {
		host := "yes"
		if d.NoGPUHost {
			host = "no (--host refuses it for a discrete GPU)"
		}
		pairs = append(pairs, [2]string{"gpu host", host + " — " + s})
	}
	pairs = append(pairs, [2]string{"default engine", d.DefaultEngine})
	doc := &Doc{}
	doc.Pairs(pairs)
	doc.Both("\npeaks (dense):\n")
	t := NewTable("ENGINE", "KIND", "PRECISION", "PEAK", "RIDGE", "SOURCE").Right(3, 4)
	for i := range d.Engines {
		e := &d.Engines[i]
		for _, p := range e.Precisions() {
			t.Add(e.Name, string(e.Kind), string(p), Ops(e.Peaks[p], p), units.Sig(d.Ridge(e, p), 3)+" FLOP/B", d.Sources["engine."+e.Name+".peak."+string(p)])
		}
	}
	doc.Table(t)
	for i := range d.Engines {
		e := &d.Engines[i]
		if s, ok := d.Sources["engine."+e.Name+".int8_dot"]; ok {
			has := "none: a runtime's kernels that need them are priced at their profile's without_int8_dot factor"
			if !e.NoInt8Dot {
				has = "yes"
			}
			doc.Both(fmt.Sprintf("int8 dot products (%s): %s — %s\n", e.Name, has, s))
		}
	}
	doc.Both("\nengines:\n")
	tt := NewTable("ENGINE", "KIND", "UNITS", "CLOCK", "L2", "POWER", "RUNTIMES", "EFFICIENCY").Right(2, 3, 4, 5)
	for i := range d.Engines {
		e := &d.Engines[i]
		power := "unknown"
		if e.Power > 0 {
			power = units.Sig(e.Power, 4) + " W"
		}
		eff := "each runtime's class for " + string(e.Kind) + " engines (roofline show runtime NAME)"
		if c := e.Calibration; c != nil {
			eff = "calibrated under " + c.Runtime + ": " + d.Sources["engine."+e.Name+".calibration"]
		}
		rts := strings.Join(dv.Runtimes[i], ", ")
		if rts == "" {
			rts = "none"
		}
		unitCount, l2 := "-", "-"
		if e.Units > 0 {
			unitCount = fmt.Sprint(e.Units)
		}
		if e.L2Cache > 0 {
			l2 = Bytes(e.L2Cache)
		}
		tt.Add(e.Name, string(e.Kind), unitCount, Clock(e.Clock), l2, power, rts, eff)
	}
	doc.Table(tt)
	for i := range d.Engines {
		e := &d.Engines[i]
		if e.L2Cache > 0 {
			doc.Both(fmt.Sprintf("L2 cache (%s): %s%s\n", e.Name, Bytes(e.L2Cache), src("engine."+e.Name+".l2_cache")))
		}
	}
	if len(dv.Modes) > 0 {
		doc.Both(fmt.Sprintf("\npower modes of %s (give one as NAME@MODE):\n", d.Module()))
		mt := NewTable("MODE", "TABLE", "DEVICE", "NAME@MODE", "BANDWIDTH", "ENGINES (peak fp16 or int8)", "POWER").Right(4, 6)
		for _, m := range dv.Modes {
			power := "unknown"
			if e, err := m.Engine(""); err == nil && e.Power > 0 {
				power = units.Sig(e.Power, 4) + " W"
			}
			name := m.Name
			if m.Device == d {
				name += " (this)"
			}
			mt.Add(m.PowerMode, OrDash(m.ModeTable), name, m.Select, Bandwidth(m.Bandwidth), enginePeaks(m.Device), power)
		}
		doc.Table(mt)
	}
	if len(d.References) > 0 {
		doc.Both("\nreferences:\n")
		refs := append([]string(nil), d.References...)
		sort.Strings(refs)
		for _, r := range refs {
			doc.Both("  " + r + "\n")
		}
	}
	return doc
}
