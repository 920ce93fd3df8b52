package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/report"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

const showModelUsage = `roofline show model NAME|FILE [--weights FMT] [--kv FMT] [--format text|json]

Shows what roofline understood of a model: its shape, parameter counts,
weight bytes under a weight format, the bytes one decode step streams, the
KV cache per token, FLOPs per token and the storage type of every tensor
(a GGUF recipe follows llama.cpp's rules tensor by tensor).

FILE may be a .toml profile; a .gguf file, split first part or http(s) URL,
of which only the header is read (the tensor table gives the exact type
and size of every tensor); or a Hugging Face config.json or a checkpoint
directory holding one.

Examples:
  roofline show model llama-3.1-8b
  roofline show model meta-llama/Llama-3.2-3B --weights q4_k_m --kv q8_0
  roofline show model ./my-model.toml --format json
  roofline show model ./Llama-3.2-1B-Instruct-Q4_K_M.gguf
  roofline show model https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q4_K_M.gguf`

const showHardwareUsage = `roofline show hardware NAME|FILE [--format text|json]

Shows a device: memory and the share a model may use, datasheet (and
measured) bandwidth, each compute engine's dense peaks with their ridge
points, the efficiencies and overheads used for expected figures, and the
source of every number.

Examples:
  roofline show hardware jetson-orin-nano-super-8gb
  roofline show hardware rk3588 --format json`

func showCommand() *cli.Command {
	return &cli.Command{
		Name:  "show",
		Usage: "show one model or device in detail",
		Subcommands: []*cli.Command{
			{
				Name: "model", Usage: "show a model's sizes, bytes and FLOPs", UsageText: showModelUsage, ArgsUsage: "NAME|FILE",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "weights", Usage: "weight format `FMT` (roofline list formats); default f16"},
					&cli.StringFlag{Name: "kv", Value: "f16", Usage: "KV-cache format `FMT`"},
					formatFlag("text", "json"),
				},
				Action: showModelAction,
			},
			{
				Name: "hardware", Aliases: []string{"device"}, Usage: "show a device's memory, engines and sources", UsageText: showHardwareUsage, ArgsUsage: "NAME|FILE",
				Flags:  []cli.Flag{formatFlag("text", "json")},
				Action: showHardwareAction,
			},
		},
	}
}

// buildCost prices a model; an empty weight format means the model file's
// own types, else f16; an empty KV format means f16.
func buildCost(s *model.Spec, weights, kv string) (*model.Cost, error) {
	if weights == "" && s.FileWeights == nil {
		weights = "f16"
	}
	if weights != "" && weights != model.FileWeightsName {
		if _, err := lookupWeights(weights); err != nil {
			return nil, err
		}
	}
	if _, err := lookupKV(kv); kv != "" && err != nil {
		return nil, err
	}
	return model.BuildNamed(s, weights, kv, model.Layout{})
}

func lookupWeights(name string) (model.WeightFormat, error) {
	w, err := model.LookupWeightFormat(name)
	if err != nil {
		return w, fmt.Errorf("--weights: %w%s", err, knownHint(err))
	}
	return w, nil
}

func lookupKV(name string) (model.KVFormat, error) {
	k, err := model.LookupKVFormat(name)
	if err != nil {
		return k, fmt.Errorf("--kv: %w%s", err, knownHint(err))
	}
	return k, nil
}

func knownHint(err error) string {
	if u, ok := err.(*model.UnknownError); ok {
		return " (known: " + strings.Join(u.Known, ", ") + ")"
	}
	return ""
}

func argName(c *cli.Context, what string) (string, error) {
	if c.NArg() == 0 {
		return "", usageErr("show %s: give a %s name or a path to a .toml profile", what, what)
	}
	if err := noExtraArgs(c, 1); err != nil {
		return "", err
	}
	return c.Args().First(), nil
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
		SlidingWindow: s.SlidingWindow, SlidingLayers: slidingLayers(s),
		ParamsTotal: mc.ParamsTotal, ParamsActive: mc.ParamsActive, ParamsEmbedding: mc.ParamsEmbedding,
		WeightBytes: mc.WeightBytes, BitsPerWeight: mc.BitsPerWeight(), StreamedBytesPerToken: mc.StreamedBytesPerToken(),
		KVBytesPerToken: mc.KVBytesPerToken(), KVBytesPerTokenPerLayer: mc.KVPerLayerToken(),
		LinearFLOPsPerToken: mc.LinearFLOPsPerToken(), HeadFLOPsPerToken: mc.HeadFLOPs(),
		AttentionFLOPsPerCtxToken: mc.DecodeFLOPs(2) - mc.DecodeFLOPs(1),
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

func slidingLayers(s *model.Spec) int {
	n := 0
	for l := 0; l < s.Layers; l++ {
		if s.Window(l) > 0 {
			n++
		}
	}
	return n
}

func showModelAction(c *cli.Context) error {
	format, err := outputFormat(c, "text", "json")
	if err != nil {
		return err
	}
	name, err := argName(c, "model")
	if err != nil {
		return err
	}
	cat, err := catalog(c)
	if err != nil {
		return err
	}
	s, err := cat.Model(name)
	if err != nil {
		return err
	}
	mc, err := buildCost(s, c.String("weights"), c.String("kv"))
	if err != nil {
		return err
	}
	if format == "json" {
		return report.JSON(c.App.Writer, newModelJSON(mc))
	}
	return writeModelText(c, mc)
}

func writeModelText(c *cli.Context, mc *model.Cost) error {
	s, w := mc.Spec, c.App.Writer
	bytesBoth := func(b float64) string {
		return fmt.Sprintf("%s (%s)", units.FormatBytes(b, units.Decimal), units.FormatBytes(b, units.Binary))
	}
	shape := fmt.Sprintf("%d layers, hidden %d, vocab %d", s.Layers, s.Hidden, s.Vocab)
	var attn string
	switch {
	case s.MLA != nil:
		attn = fmt.Sprintf("MLA: %d heads, latent %d + rope %d cached per token and layer", s.Heads, s.MLA.KVLoraRank, s.MLA.QKRopeDim)
	default:
		attn = fmt.Sprintf("%d query heads, %d KV heads × head_dim %d", s.Heads, s.KVHeads, s.HeadDim)
	}
	if n := slidingLayers(s); n > 0 {
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
		units.FormatCount(mc.ParamsTotal), units.FormatCount(mc.ParamsActive), units.FormatCount(mc.ParamsEmbedding))
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
		pub := units.FormatCount(p.Params) + " total"
		if p.ActiveParams > 0 {
			pub += ", " + units.FormatCount(p.ActiveParams) + " active"
		}
		pairs = append(pairs, [2]string{"published", fmt.Sprintf("%s (%s)", pub, p.Source)})
	}
	pairs = append(pairs,
		[2]string{"weights", fmt.Sprintf("%s: %s", mc.Weights.Name, mc.Weights.Description)},
		[2]string{"compute", "runs at the first of " + strings.Join(precisionNames(mc.Weights.Compute), " > ") + " the engine has"},
		[2]string{"weight bytes", fmt.Sprintf("%s, %.4g bits per weight", bytesBoth(mc.WeightBytes), mc.BitsPerWeight())},
		[2]string{"streamed/token", fmt.Sprintf("%s per decode step at batch 1 (weights read once; the input embedding one row)", bytesBoth(mc.StreamedBytesPerToken()))},
		[2]string{"kv cache", fmt.Sprintf("%s: %s per token (%.0f B), %s per token and layer", mc.KV.Name,
			units.FormatBytes(mc.KVBytesPerToken(), units.Binary), mc.KVBytesPerToken(), units.FormatBytes(mc.KVPerLayerToken(), units.Binary))},
		[2]string{"kv at 4k / max", fmt.Sprintf("%s at 4096 tokens, %s at %d tokens (one sequence)",
			units.FormatBytes(mc.KVBytes(4096), units.Binary), units.FormatBytes(mc.KVBytes(s.MaxContext), units.Binary), s.MaxContext)},
		[2]string{"flops/token", fmt.Sprintf("%sFLOP linear + %sFLOP logits + %sFLOP attention per token of context",
			units.FormatCount(mc.LinearFLOPsPerToken()), units.FormatCount(mc.HeadFLOPs()), units.FormatCount(mc.DecodeFLOPs(2)-mc.DecodeFLOPs(1)))},
	)
	for _, n := range s.FileNotes {
		pairs = append(pairs, [2]string{"file note", n})
	}
	if err := report.KeyValues(w, pairs); err != nil {
		return err
	}
	fmt.Fprintln(w, "\ntensor types:")
	t := report.Table{Header: []string{"TYPE", "TENSORS", "PARAMS", "BYTES", "SHARE"}, Right: map[int]bool{1: true, 2: true, 3: true, 4: true}}
	for _, h := range mc.TypeHistogram() {
		t.Add(h.Type, fmt.Sprint(h.Tensors), units.FormatCount(h.Params), units.FormatBytes(h.Bytes, units.Binary), fmt.Sprintf("%.1f%%", 100*h.Bytes/mc.WeightBytes))
	}
	return t.WriteText(w)
}

type engineJSON struct {
	Name         string             `json:"name"`
	Kind         string             `json:"kind"`
	PowerW       float64            `json:"power_w,omitempty"`
	Peaks        map[string]float64 `json:"peak_ops_per_s"`
	Ridge        map[string]float64 `json:"ridge_flop_per_byte"`
	Runtimes     []string           `json:"runtimes"`
	CalibratedOn string             `json:"calibrated_runtime,omitempty"`
}

type deviceJSON struct {
	Name                    string            `json:"name"`
	Aliases                 []string          `json:"aliases,omitempty"`
	Description             string            `json:"description"`
	Family                  string            `json:"family"`
	VariantOf               string            `json:"variant_of,omitempty"`
	PowerMode               string            `json:"power_mode,omitempty"`
	UnifiedMemory           bool              `json:"unified_memory"`
	MemoryBytes             float64           `json:"memory_bytes"`
	UsableBytes             float64           `json:"usable_bytes"`
	BandwidthBytesPerS      float64           `json:"bandwidth_bytes_per_s"`
	MeasuredBandwidth       float64           `json:"measured_bandwidth_bytes_per_s,omitempty"`
	StorageBandwidthBytesPS float64           `json:"storage_bandwidth_bytes_per_s"`
	DefaultEngine           string            `json:"default_engine"`
	Engines                 []engineJSON      `json:"engines"`
	Sources                 map[string]string `json:"sources"`
	References              []string          `json:"references"`
	File                    string            `json:"file"`
}

// runtimesOn lists the runtimes that run on engine e of device d.
func runtimesOn(set *runtimes.Set, d *hardware.Device, e *hardware.Engine) []string {
	out := []string{}
	for _, rt := range set.All() {
		if rt.Runs(d, e) {
			out = append(out, rt.Name)
		}
	}
	return out
}

func newDeviceJSON(d *hardware.Device, set *runtimes.Set) deviceJSON {
	j := deviceJSON{Name: d.Name, Aliases: d.Aliases, Description: d.Description, Family: d.Family, VariantOf: d.VariantOf,
		PowerMode: d.PowerMode, UnifiedMemory: d.Unified, MemoryBytes: d.Memory, UsableBytes: d.Usable,
		BandwidthBytesPerS: d.Bandwidth, MeasuredBandwidth: d.MeasuredBandwidth, StorageBandwidthBytesPS: d.StorageBandwidth,
		DefaultEngine: d.DefaultEngine, Sources: d.Sources, References: d.References, File: d.File}
	for i := range d.Engines {
		e := &d.Engines[i]
		ej := engineJSON{Name: e.Name, Kind: string(e.Kind), PowerW: e.Power, Peaks: map[string]float64{}, Ridge: map[string]float64{},
			Runtimes: runtimesOn(set, d, e)}
		if e.Calibration != nil {
			ej.CalibratedOn = e.Calibration.Runtime
		}
		for p, v := range e.Peaks {
			ej.Peaks[string(p)] = v
			ej.Ridge[string(p)] = d.Ridge(e, p)
		}
		j.Engines = append(j.Engines, ej)
	}
	return j
}

func showHardwareAction(c *cli.Context) error {
	format, err := outputFormat(c, "text", "json")
	if err != nil {
		return err
	}
	name, err := argName(c, "hardware")
	if err != nil {
		return err
	}
	cat, err := catalog(c)
	if err != nil {
		return err
	}
	d, err := cat.Device(name)
	if err != nil {
		return err
	}
	w := c.App.Writer
	if format == "json" {
		return report.JSON(w, newDeviceJSON(d, cat.Runtimes()))
	}
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
		pairs = append(pairs, [2]string{"power mode", d.PowerMode})
	}
	mem := "dedicated"
	if d.Unified {
		mem = "unified (shared with the CPU and the OS)"
	}
	measured := "not given"
	if d.MeasuredBandwidth > 0 {
		measured = units.FormatBandwidth(d.MeasuredBandwidth) + src("measured_bandwidth")
	}
	pairs = append(pairs,
		[2]string{"memory", fmt.Sprintf("%s (%s), %s%s", units.FormatBytes(d.Memory, units.Binary), units.FormatBytes(d.Memory, units.Decimal), mem, src("memory"))},
		[2]string{"usable", fmt.Sprintf("%s%s", units.FormatBytes(d.Usable, units.Binary), src("usable_memory"))},
		[2]string{"bandwidth", units.FormatBandwidth(d.Bandwidth) + " datasheet" + src("bandwidth")},
		[2]string{"measured bw", measured},
		[2]string{"storage", units.FormatBandwidth(d.StorageBandwidth) + " read" + src("storage_bandwidth")},
		[2]string{"default engine", d.DefaultEngine},
	)
	if err := report.KeyValues(w, pairs); err != nil {
		return err
	}
	fmt.Fprintln(w, "\npeaks (dense):")
	t := report.Table{Header: []string{"ENGINE", "KIND", "PRECISION", "PEAK", "RIDGE", "SOURCE"}, Right: map[int]bool{3: true, 4: true}}
	for i := range d.Engines {
		e := &d.Engines[i]
		for _, p := range e.Precisions() {
			t.Add(e.Name, string(e.Kind), string(p), units.FormatRate(e.Peaks[p], p.RateUnit()),
				fmt.Sprintf("%.3g FLOP/B", d.Ridge(e, p)), d.Sources["engine."+e.Name+".peak."+string(p)])
		}
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nengines:")
	tt := report.Table{Header: []string{"ENGINE", "KIND", "POWER", "RUNTIMES", "EFFICIENCY"}, Right: map[int]bool{2: true}}
	for i := range d.Engines {
		e := &d.Engines[i]
		power := "unknown"
		if e.Power > 0 {
			power = fmt.Sprintf("%.4g W", e.Power)
		}
		eff := "each runtime's class for " + string(e.Kind) + " engines (roofline show runtime NAME)"
		if c := e.Calibration; c != nil {
			eff = "calibrated under " + c.Runtime + ": " + d.Sources["engine."+e.Name+".calibration"]
		}
		rts := strings.Join(runtimesOn(cat.Runtimes(), d, e), ", ")
		if rts == "" {
			rts = "none"
		}
		tt.Add(e.Name, string(e.Kind), power, rts, eff)
	}
	if err := tt.WriteText(w); err != nil {
		return err
	}
	if len(d.References) > 0 {
		fmt.Fprintln(w, "\nreferences:")
		refs := append([]string(nil), d.References...)
		sort.Strings(refs)
		for _, r := range refs {
			fmt.Fprintln(w, "  "+r)
		}
	}
	return nil
}
