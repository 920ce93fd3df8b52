package profiles

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/safeio"
	"github.com/roofline/roofline/units"
)

// rawRule is a rule with the source it comes from.
type rawRule struct {
	Value         any      `toml:"value"`
	Architectures []string `toml:"architectures"`
	Pad           int      `toml:"pad"`
	Offset        int      `toml:"offset"`
	ExtraBlocks   int      `toml:"extra_blocks"`
	Untie         bool     `toml:"untie"`
	Source        string   `toml:"source"`
}

// ruleFieldOnly is the one rule that reads each of rawRule's fields
// beyond value and source.
var ruleFieldOnly = map[string]string{
	"architectures": "layout.sliding_window",
	"pad":           "layout.window_cache",
	"offset":        "layout.window_cache",
	"extra_blocks":  "layout.window_cache",
	"untie":         "layout.embedding",
}

// rawHeadFormats is [layout] head_formats: the storage type of the head
// by weight format, where it differs from head.
type rawHeadFormats struct {
	Value  map[string]string `toml:"value"`
	Source string            `toml:"source"`
}

// rawChunk is [prefill] chunk: the tokens of a pass ("prompt": the whole
// prompt), with what the runtime calls the setting.
type rawChunk struct {
	Value  any    `toml:"value"`
	Name   string `toml:"name"`
	Source string `toml:"source"`
}

// rawLargeChunk is [prefill] large_chunk: the chunk on devices with at
// least `memory` whose name contains none of `except`.
type rawLargeChunk struct {
	Value  int64    `toml:"value"`
	Memory string   `toml:"memory"`
	Except []string `toml:"except"`
	Source string   `toml:"source"`
}

// rawShare is memory_share: a share of the device's usable memory
// (of = "usable", the default) or of what is left free for the cache
// (of = "free").
type rawShare struct {
	Value  any    `toml:"value"`
	Of     string `toml:"of"`
	Source string `toml:"source"`
}

// rawKVPool is kv_pool: the KV cache an engine allocates at load for the
// batch and length it was built for (runtimes.KVPool).
type rawKVPool struct {
	Capacity     int64  `toml:"capacity"`
	Input        int64  `toml:"input"`
	CapacityFlag string `toml:"capacity_flag"`
	InputFlag    string `toml:"input_flag"`
	BatchFlag    string `toml:"batch_flag"`
	Source       string `toml:"source"`
}

// rawKernelFactor is a [[kernel]]'s factor and its source.
type rawKernelFactor struct {
	Factor float64 `toml:"factor"`
	Source string  `toml:"source"`
}

type rawRuntime struct {
	Name              string   `toml:"name"`
	Aliases           []string `toml:"aliases"`
	Description       string   `toml:"description"`
	References        []string `toml:"references"`
	Weights           []string `toml:"weights"`
	KV                []string `toml:"kv"`
	DefaultWeights    string   `toml:"default_weights"`
	DefaultKV         string   `toml:"default_kv"`
	FormatsSource     string   `toml:"formats_source"`
	CheckpointWeights *struct {
		Formats map[string]string `toml:"formats"`
		Source  string            `toml:"source"`
	} `toml:"checkpoint_weights"`
	ContinuousBatching *rawRule   `toml:"continuous_batching"`
	MemoryOverhead     *rawRule   `toml:"memory_overhead"`
	MemoryShare        *rawShare  `toml:"memory_share"`
	KVPool             *rawKVPool `toml:"kv_pool"`
	HostOps            *rawRule   `toml:"host_ops"`
	LayerPerUnit       *rawRule   `toml:"layer_overhead_per_unit"`
	Parallel           *rawRule   `toml:"parallel"`
	MultiNode          *rawRule   `toml:"multi_node"`
	Engine             []struct {
		Kind     string   `toml:"kind"`
		Backend  string   `toml:"backend"`
		Families []string `toml:"families"`
		Weights  []string `toml:"weights"`
		// GraphBatch is runtimes.Support.GraphBatch; its source is the
		// entry's.
		GraphBatch int `toml:"graph_batch"`
		// GraphBuilds is runtimes.Support.GraphBuilds: the builds
		// graph_batch holds for, with their own source.
		GraphBuilds *struct {
			LastBuild int    `toml:"last_build"`
			Until     string `toml:"until"`
			Source    string `toml:"source"`
		} `toml:"graph_batch_builds"`
		// SerialDecode is runtimes.Support.SerialDecode, with its source.
		SerialDecode *rawRule `toml:"serial_decode"`
		// KQuantUnpack is runtimes.Support.KQuantUnpack, with its source.
		KQuantUnpack *rawRule `toml:"kquant_unpack"`
		// LaunchedPrefill is runtimes.Support.LaunchedPrefill, with its
		// source.
		LaunchedPrefill *rawRule `toml:"launched_prefill"`
		// UnpackTypes is runtimes.Support.UnpackTypes, with its source.
		UnpackTypes *rawRule `toml:"unpack_types"`
		// GraphMinCC is runtimes.Support.GraphMinCC, sourced alike.
		GraphMinCC float64 `toml:"graph_min_compute_capability"`
		// MinCC is runtimes.Support.MinCC, with its source.
		MinCC *struct {
			Value  float64 `toml:"value"`
			Source string  `toml:"source"`
		} `toml:"min_compute_capability"`
		// PrefillTile is runtimes.Support.PrefillTile and TileMinCC,
		// with its source.
		PrefillTile *struct {
			Value  int     `toml:"value"`
			Rows   int     `toml:"rows"`
			MinCC  float64 `toml:"min_compute_capability"`
			Source string  `toml:"source"`
		} `toml:"prefill_tile"`
		Source string `toml:"source"`
	} `toml:"engine"`
	Prefill struct {
		Chunk      *rawChunk      `toml:"chunk"`
		LargeChunk *rawLargeChunk `toml:"large_chunk"`
		Order      *rawRule       `toml:"order"`
		Logits     *rawRule       `toml:"logits"`
		Fill       *rawChunk      `toml:"fill"`
	} `toml:"prefill"`
	Layout struct {
		SlidingWindow *rawRule        `toml:"sliding_window"`
		WindowCache   *rawRule        `toml:"window_cache"`
		MLACache      *rawRule        `toml:"mla_cache"`
		Head          *rawRule        `toml:"head"`
		HeadFormats   *rawHeadFormats `toml:"head_formats"`
		Embedding     *rawRule        `toml:"embedding"`
		HostEmbedding *rawRule        `toml:"host_embedding"`
		Fused         *rawRule        `toml:"fused"`
	} `toml:"layout"`
	Kernel []struct {
		Formats []string         `toml:"formats"`
		Kind    string           `toml:"kind"`
		Compute []string         `toml:"compute"`
		Source  string           `toml:"source"`
		NoDot   *rawKernelFactor `toml:"without_int8_dot"`
		Dot     *rawKernelFactor `toml:"with_int8_dot"`
		Native  *rawRule         `toml:"native"`
		// Since is runtimes.Kernel.Since: the first build (and its date)
		// that runs these kernels, with its source.
		Since *struct {
			FirstBuild int    `toml:"first_build"`
			Date       string `toml:"date"`
			Source     string `toml:"source"`
		} `toml:"since"`
	} `toml:"kernel"`
	Era []struct {
		Name      string   `toml:"name"`
		LastBuild int      `toml:"last_build"`
		Until     string   `toml:"until"`
		Backends  []string `toml:"backends"`
		Source    string   `toml:"source"`
	} `toml:"era"`
	Efficiency map[string]*rawClass `toml:"efficiency"`
	Level      map[string]*rawLevel `toml:"level"`
	Scheduler  *rawScheduler        `toml:"scheduler"`
	// Settings is [settings]: what the classes were measured at (RKLLM's
	// conversion context and clocks), SettingFactors the fitted
	// [setting_factors.CLASS] for runs set up otherwise.
	Settings *struct {
		MaxContext *rawRule `toml:"max_context"`
		Clocks     *rawRule `toml:"clocks"`
	} `toml:"settings"`
	SettingFactors map[string]*rawSettingFactors `toml:"setting_factors"`
	FrontEnd       *rawFrontEnd                  `toml:"front_end"`
	Graphs         *rawGraphs                    `toml:"graphs"`
}

// rawGraphs is [graphs]: the largest step a CUDA graph is captured for
// (capped at seqs × max_num_seqs), and the time per layer a piecewise
// graph and no graph add, each with its source.
type rawGraphs struct {
	Capture *struct {
		Value  int    `toml:"value"`
		Seqs   int    `toml:"seqs"`
		Source string `toml:"source"`
	} `toml:"capture"`
	PiecewiseLayer *rawRule `toml:"piecewise_layer"`
	EagerLayer     *rawRule `toml:"eager_layer"`
}

// rawFrontEnd is [front_end]: the server's front end as the serving fit
// wrote it (runtimes.FrontEnd), each figure a duration with its range
// over the held-out fits and its source.
type rawFrontEnd struct {
	Basis   string             `toml:"basis"`
	Latency *rawFrontEndFigure `toml:"latency"`
	Request *rawFrontEndFigure `toml:"request"`
	Token   *rawFrontEndFigure `toml:"token"`
}

type rawFrontEndFigure struct {
	Value  string   `toml:"value"`
	Range  []string `toml:"range"`
	Source string   `toml:"source"`
}

// rawSettingFactors is [setting_factors.CLASS], as the fit wrote it
// (runtimes.SettingFactors).
type rawSettingFactors struct {
	Context struct {
		Decode  float64 `toml:"decode"`
		Prefill float64 `toml:"prefill"`
	} `toml:"context"`
	Clocks struct {
		Decode  float64 `toml:"decode"`
		Prefill float64 `toml:"prefill"`
	} `toml:"clocks"`
	MeasuredContext int       `toml:"measured_context"`
	DecodeInterval  []float64 `toml:"decode_interval"`
	PrefillInterval []float64 `toml:"prefill_interval"`
	Basis           string    `toml:"basis"`
}

// rawLevel is [level."CLASS/FAMILY"] or [level."CLASS/FAMILY/DEVICE"]:
// how a family of devices or a device differs from its class, as the fit
// wrote it (runtimes.Level).
type rawLevel struct {
	Shift struct {
		Overhead  float64 `toml:"overhead"`
		Bandwidth float64 `toml:"bandwidth"`
		Compute   float64 `toml:"compute"`
		Read      float64 `toml:"read"`
	} `toml:"shift"`
	DecodeInterval  []float64 `toml:"decode_interval"`
	PrefillInterval []float64 `toml:"prefill_interval"`
	Basis           string    `toml:"basis"`
}

// rawScheduler is [scheduler]: how the runtime's server batches requests,
// every knob with its source.
type rawScheduler struct {
	Policy        *rawRule `toml:"policy"`
	MaxSeqs       *rawRule `toml:"max_seqs"`
	MaxTokens     *rawRule `toml:"max_tokens"`
	PassTokens    *rawRule `toml:"pass_tokens"`
	Chunked       *rawRule `toml:"chunked_prefill"`
	BlockSize     *rawRule `toml:"block_size"`
	OnFull        *rawRule `toml:"on_kv_full"`
	PrefixCaching *rawRule `toml:"prefix_caching"`
	SlotContext   *rawRule `toml:"slot_context"`
	Async         *rawRule `toml:"async_scheduling"`
	FreesWindow   *rawRule `toml:"frees_window"`
	Large         *struct {
		Memory    string   `toml:"memory"`
		Except    []string `toml:"except"`
		MaxSeqs   int      `toml:"max_seqs"`
		MaxTokens int      `toml:"max_tokens"`
		Source    string   `toml:"source"`
	} `toml:"large_devices"`
}

// rawClass is [efficiency.KIND]: a runtime's efficiency on one kind of
// engine, as the fit over the published measurements wrote it.
type rawClass struct {
	Bandwidth       float64            `toml:"bandwidth"`
	ComputeMax      float64            `toml:"compute_max"`
	HalfRows        float64            `toml:"half_rows"`
	Attention       float64            `toml:"attention"`
	StepOverhead    string             `toml:"step_overhead"`
	PassOverhead    string             `toml:"pass_overhead"`
	LayerOverhead   string             `toml:"layer_overhead"`
	UnitBandwidth   string             `toml:"unit_bandwidth"`
	Dequant         float64            `toml:"dequant"`
	UnitCompute     string             `toml:"unit_compute"`
	HostWork        float64            `toml:"host_work"`
	KQuantGEMV      float64            `toml:"kquant_gemv"`
	ReadShare       float64            `toml:"read_share"`
	SE              map[string]float64 `toml:"se"`
	DecodeInterval  []float64          `toml:"decode_interval"`
	PrefillInterval []float64          `toml:"prefill_interval"`
	Basis           string             `toml:"basis"`
	// MoEDecodeInterval and MoEDecodeBasis are runtimes.Class.MoEDecode
	// and MoEDecodeBasis (optional, both or neither).
	MoEDecodeInterval []float64 `toml:"moe_decode_interval"`
	MoEDecodeBasis    string    `toml:"moe_decode_basis"`
	// NPUClockDecodeInterval and NPUClockDecodeBasis are
	// runtimes.Class.NPUClockDecode and NPUClockDecodeBasis (optional,
	// both or neither).
	NPUClockDecodeInterval []float64 `toml:"npu_clock_decode_interval"`
	NPUClockDecodeBasis    string    `toml:"npu_clock_decode_basis"`
}

// decodeRuntime reads one runtime profile.
func decodeRuntime(file string, src []byte) (*runtimes.Runtime, error) {
	var r rawRuntime
	md, lines, err := decodeStrict(file, src, &r)
	if err != nil {
		return nil, &RuntimeFileError{File: file, Err: err}
	}
	var errs []error
	fe := func(key, format string, a ...any) {
		errs = append(errs, &FileError{File: file, Line: lines.Key(strings.Split(key, ".")...), Msg: fmt.Sprintf(format, a...)})
	}
	for _, k := range []string{"name", "description", "weights", "kv", "default_weights", "default_kv", "formats_source", "engine", "continuous_batching", "memory_overhead"} {
		if !md.IsDefined(k) {
			errs = append(errs, &FileError{File: file, Msg: fmt.Sprintf("missing required key %q", k)})
		}
	}
	// A rule's fields beyond value and source are read by one rule each:
	// elsewhere the decoder would take them and nothing read them (untie
	// on head, pad on continuous_batching), so they are refused as
	// unknown keys are.
	for _, k := range md.Keys() {
		if len(k) < 2 {
			continue
		}
		field, rule := k[len(k)-1], strings.Join(k[:len(k)-1], ".")
		// Only rawRule has these fields; under a value (a table of
		// head_formats) a key is the value's own.
		if only, ok := ruleFieldOnly[field]; ok && rule != only && k[len(k)-2] != "value" {
			fe(strings.Join(k, "."), "%s: %s is read only by %s; remove it (docs/profiles.md, Runtime profiles)", rule, field, only)
		}
	}
	if w := r.Layout.SlidingWindow; w != nil && md.IsDefined("layout", "sliding_window", "value") {
		fe("layout.sliding_window.value", "sliding_window takes architectures, not value: architectures = [...] or [\"*\"]")
	}
	if err := checkName(r.Name); err != nil && md.IsDefined("name") {
		fe("name", "%v", err)
	}
	rt := &runtimes.Runtime{Name: r.Name, Aliases: r.Aliases, Description: r.Description, References: r.References,
		Weights: r.Weights, KV: r.KV, DefaultWeights: r.DefaultWeights, DefaultKV: r.DefaultKV,
		MemoryShare: 1, CacheShare: 1, Sources: map[string]string{}, File: file, Classes: map[string]*runtimes.Class{},
		Prefill: runtimes.Prefill{Chunk: runtimes.DefaultChunk, Order: runtimes.Lockstep}}
	refs := map[string]bool{}
	for _, ref := range r.References {
		id := refTag.FindString(ref)
		if id == "" || !strings.HasPrefix(ref, id) {
			fe("references", "reference %q must open with its tag, such as [L1]", ref)
			continue
		}
		if refs[id] {
			fe("references", "reference tag %s is defined twice", id)
		}
		refs[id] = true
	}
	// sourceAt checks a rule's source and records it. The error names the
	// line of the rule's key, or, in an array of tables (line > 0, its
	// header), the line of the source within that table.
	sourceAt := func(key string, line int, s string) {
		rt.Sources[key] = s
		msg := checkSource(s, refs)
		if msg == "" {
			return
		}
		if line > 0 {
			if l := lines.TextFrom(s, line); l > 0 {
				line = l
			}
		} else {
			tk := key
			if key == "formats" {
				tk = "formats_source"
			}
			line = lines.Key(strings.Split(tk, ".")...)
		}
		errs = append(errs, &FileError{File: file, Line: line, Msg: key + " " + msg})
	}
	source := func(key, s string) { sourceAt(key, 0, s) }
	source("formats", r.FormatsSource)
	// Each format by its name, however the file spells it (W4A16):
	// runs, an engine's weights and head_formats compare names.
	spelt := map[string]string{} // a format's name: how the list first spelt it
	for i, w := range r.Weights {
		name := w
		if w != runtimes.GGUF {
			wf, err := model.LookupWeightFormat(w)
			if err != nil {
				fe("weights", "weights: %v", err)
				continue
			}
			name = wf.Name
			r.Weights[i] = name // rt.Weights is this list
		}
		if g, ok := spelt[name]; ok {
			// Listed twice, as head_formats refuses.
			fe("weights", "weights names %s twice (%s, %s): name each format once", name, g, w)
		} else {
			spelt[name] = w
		}
	}
	for _, k := range r.KV {
		if _, err := model.LookupKVFormat(k); err != nil {
			fe("kv", "kv: %v", err)
		}
	}
	if r.DefaultWeights != runtimes.Native {
		if w, err := model.LookupWeightFormat(r.DefaultWeights); err != nil {
			fe("default_weights", "default_weights: %v (or %q for the model's checkpoint)", err, runtimes.Native)
		} else if !rt.RunsWeights(w) {
			fe("default_weights", "default_weights %s is not among the runtime's weights", r.DefaultWeights)
		} else {
			rt.DefaultWeights = w.Name
		}
	}
	if cw := r.CheckpointWeights; cw != nil {
		rt.CheckpointWeights = map[string]string{}
		for from, to := range cw.Formats {
			if _, err := model.LookupWeightFormat(from); err != nil {
				fe("checkpoint_weights", "checkpoint_weights: %v", err)
			}
			if w, err := model.LookupWeightFormat(to); err != nil {
				fe("checkpoint_weights", "checkpoint_weights: %v", err)
			} else if !rt.RunsWeights(w) {
				fe("checkpoint_weights", "checkpoint_weights: %s is not among the runtime's weights", to)
			}
			rt.CheckpointWeights[from] = to
		}
		source("checkpoint_weights", cw.Source)
	}
	if r.DefaultKV != "" && !rt.RunsKV(r.DefaultKV) {
		fe("default_kv", "default_kv %s is not among the runtime's kv formats", r.DefaultKV)
	}
	backendKinds := map[string]hardware.Kind{}
	named := make([]runtimes.Support, len(r.Engine)) // what EngineKey tells them by
	for ei, e := range r.Engine {
		named[ei] = runtimes.Support{Kind: hardware.Kind(e.Kind), Backend: e.Backend, Families: e.Families}
	}
	for ei, e := range r.Engine {
		k := hardware.Kind(e.Kind)
		if k != hardware.GPU && k != hardware.CPU && k != hardware.NPU {
			fe("engine", "engine kind must be gpu, cpu or npu, got %q", e.Kind)
		}
		for _, f := range e.Families {
			if !contains(hardware.Families, f) {
				fe("families", "unknown device family %q (known: %s)", f, strings.Join(hardware.Families, ", "))
			}
		}
		key := runtimes.EngineKey(named, ei)
		if e.Backend != "" {
			if backendKinds[e.Backend] != "" && backendKinds[e.Backend] != k || hardware.Kind(e.Backend) == hardware.GPU || hardware.Kind(e.Backend) == hardware.CPU || hardware.Kind(e.Backend) == hardware.NPU {
				fe("engine", "backend %q names a kind of engine or a backend of another kind", e.Backend)
			}
			backendKinds[e.Backend] = k
		}
		for i, w := range e.Weights {
			if wf, err := model.LookupWeightFormat(w); err == nil && w != runtimes.GGUF {
				w = wf.Name
				e.Weights[i] = w
			}
			if !contains(r.Weights, w) {
				fe("engine", "[[engine]] %s weights: %s is not among the runtime's weights (%s)", key, w, strings.Join(r.Weights, ", "))
			}
		}
		if e.GraphBatch < 0 {
			fe("engine", "[[engine]] %s graph_batch must be 1 or more sequences (leave it out for no limit), got %d", key, e.GraphBatch)
		}
		if e.GraphMinCC != 0 && !(e.GraphMinCC >= 1 && e.GraphMinCC < 100) {
			fe("engine", "[[engine]] %s graph_min_compute_capability must be a CUDA compute capability such as 7.0, got %g", key, e.GraphMinCC)
		}
		sourceAt(key, lines.Nth("[[engine]]", ei), e.Source)
		sup := runtimes.Support{Kind: k, Families: e.Families, Backend: e.Backend, Weights: e.Weights, GraphBatch: e.GraphBatch, GraphMinCC: e.GraphMinCC}
		if m := e.MinCC; m != nil {
			if !(m.Value >= 1 && m.Value < 100) {
				fe("engine", "[[engine]] %s min_compute_capability must be a CUDA compute capability such as 8.0, got %g", key, m.Value)
			}
			sourceAt(key+".min_compute_capability", lines.Nth("[[engine]]", ei), m.Source)
			sup.MinCC, sup.MinCCSource = m.Value, m.Source
		}
		if b := e.GraphBuilds; b != nil {
			switch {
			case e.GraphBatch == 0:
				fe("engine", "[[engine]] %s graph_batch_builds limits graph_batch to some builds, but graph_batch is not set", key)
			case b.LastBuild < 1:
				fe("engine", "[[engine]] %s graph_batch_builds: last_build must be a build number (llama.cpp's bNNNN), got %d", key, b.LastBuild)
			case !validDate(b.Until):
				fe("engine", "[[engine]] %s graph_batch_builds: until must be a date YYYY-MM-DD, got %q", key, b.Until)
			}
			sourceAt(key+".graph_batch_builds", lines.Nth("[[engine]]", ei), b.Source)
			sup.GraphBuilds = runtimes.Builds{LastBuild: b.LastBuild, Until: b.Until, Source: b.Source}
		}
		// flag reads a sourced true-or-false rule of the engine.
		flag := func(name string, r *rawRule) bool {
			if r == nil {
				return false
			}
			v, ok := r.Value.(bool)
			if !ok {
				fe("engine", "[[engine]] %s %s value must be true or false", key, name)
			}
			sourceAt(key+"."+name, lines.Nth("[[engine]]", ei), r.Source)
			return v
		}
		sup.SerialDecode = flag("serial_decode", e.SerialDecode)
		sup.KQuantUnpack = flag("kquant_unpack", e.KQuantUnpack)
		sup.LaunchedPrefill = flag("launched_prefill", e.LaunchedPrefill)
		if u := e.UnpackTypes; u != nil {
			vs, _ := u.Value.([]any)
			for _, v := range vs {
				name, ok := v.(string)
				switch {
				case !ok:
					fe("engine", "[[engine]] %s unpack_types: %v is not a weight type's name: write it in quotes, such as \"int4-g32\"", key, v)
				case !knownStorage(name):
					fe("engine", "[[engine]] %s unpack_types: unknown weight type %q (want a tensor type such as \"int4-g32\", MLC's q4f16_1 groups)", key, name)
				case slices.Contains(sup.UnpackTypes, name):
					fe("engine", "[[engine]] %s unpack_types names %q twice: name each once", key, name)
				default:
					sup.UnpackTypes = append(sup.UnpackTypes, name)
				}
			}
			if len(vs) == 0 {
				fe("engine", "[[engine]] %s unpack_types value must list the weight types whose decode products unpack every weight, such as [\"int4-g32\"]", key)
			}
			sourceAt(key+".unpack_types", lines.Nth("[[engine]]", ei), u.Source)
		}
		if t := e.PrefillTile; t != nil {
			if t.Value < 1 || t.Value > limits.Tokens {
				fe("engine", "[[engine]] %s prefill_tile value must be the tokens one tile of a product takes, 1 to %d, got %d", key, limits.Tokens, t.Value)
			}
			if t.MinCC != 0 && !(t.MinCC >= 1 && t.MinCC < 100) {
				fe("engine", "[[engine]] %s prefill_tile min_compute_capability must be a CUDA compute capability such as 7.5, got %g", key, t.MinCC)
			}
			if t.Rows < 0 || t.Rows > limits.Tokens {
				fe("engine", "[[engine]] %s prefill_tile rows must be the rows of weights one unit's tile takes, 1 to %d (or left out), got %d", key, limits.Tokens, t.Rows)
			}
			sup.PrefillTile, sup.TileMinCC, sup.TileRows = t.Value, t.MinCC, t.Rows
			sourceAt(key+".prefill_tile", lines.Nth("[[engine]]", ei), t.Source)
		}
		rt.Engines = append(rt.Engines, sup)
	}
	decodePrefill(rt, &r, fe, source)
	if b := r.ContinuousBatching; b != nil {
		v, ok := b.Value.(bool)
		if !ok {
			fe("continuous_batching", "continuous_batching value must be true or false")
		}
		rt.ContinuousBatching = v
		source("continuous_batching", b.Source)
	}
	if m := r.MemoryOverhead; m != nil {
		v, ok := m.Value.(string)
		x, err := parseQuantity(v, units.DimBytes)
		if !ok || err != nil || x < 0 {
			fe("memory_overhead", "memory_overhead value must be a size such as \"256 MiB\"")
		}
		rt.MemoryOverhead = x
		source("memory_overhead", m.Source)
	}
	if m := r.MemoryShare; m != nil {
		v, ok := m.Value.(float64)
		if !ok || !(v > 0 && v <= 1) {
			fe("memory_share", "memory_share value must be a share in (0, 1], such as 0.9")
		}
		switch m.Of {
		case "", "usable":
			rt.MemoryShare = v
		case "free":
			rt.CacheShare = v
		default:
			fe("memory_share", "memory_share of must be \"usable\" (a share of the device's usable memory) or \"free\" (the KV cache's share of the memory left free), got %q", m.Of)
		}
		source("memory_share", m.Source)
	}
	if p := r.KVPool; p != nil {
		if p.Capacity < 1 || p.Capacity > limits.Tokens || p.Input < 1 || p.Input > p.Capacity {
			fe("kv_pool", "kv_pool capacity must be a number of tokens from 1 to %d and input one from 1 to capacity, got %d and %d", limits.Tokens, p.Capacity, p.Input)
		}
		for _, f := range []struct{ key, v string }{{"capacity_flag", p.CapacityFlag}, {"input_flag", p.InputFlag}, {"batch_flag", p.BatchFlag}} {
			if !strings.HasPrefix(f.v, "-") {
				fe("kv_pool", "kv_pool %s must name the builder's flag, such as \"--maxKVCacheCapacity\", got %q", f.key, f.v)
			}
		}
		rt.KVPool = runtimes.KVPool{Capacity: int(p.Capacity), Input: int(p.Input), CapacityFlag: p.CapacityFlag, InputFlag: p.InputFlag, BatchFlag: p.BatchFlag}
		source("kv_pool", p.Source)
	}
	if h := r.HostOps; h != nil {
		vs, _ := h.Value.([]any)
		for _, v := range vs {
			name, _ := v.(string)
			p, err := units.ParsePrecision(name)
			if err != nil {
				fe("host_ops", "host_ops: %v", err)
				continue
			}
			rt.HostPrecisions = append(rt.HostPrecisions, p)
		}
		if len(rt.HostPrecisions) == 0 {
			fe("host_ops", "host_ops value must list the precisions the host operations run at, such as [\"fp16\", \"fp32\"]")
		}
		source("host_ops", h.Source)
	}
	if lp := r.LayerPerUnit; lp != nil {
		v, ok := lp.Value.(bool)
		if !ok {
			fe("layer_overhead_per_unit", "layer_overhead_per_unit value must be true or false")
		}
		rt.LayerOverheadPerUnit = v
		source("layer_overhead_per_unit", lp.Source)
	}
	if pr := r.Parallel; pr != nil {
		vs, _ := pr.Value.([]any)
		for _, v := range vs {
			m, _ := v.(string)
			if !slices.Contains(runtimes.SplitModes, m) {
				fe("parallel", "parallel: unknown mode %q (want %s)", m, strings.Join(runtimes.SplitModes, ", "))
				continue
			}
			rt.Parallel = append(rt.Parallel, m)
		}
		if len(rt.Parallel) == 0 {
			fe("parallel", "parallel value must list the modes the runtime splits a model in, such as [\"tensor\", \"pipeline\"]")
		}
		source("parallel", pr.Source)
	}
	if mn := r.MultiNode; mn != nil {
		v, ok := mn.Value.(bool)
		if !ok {
			fe("multi_node", "multi_node value must be true or false")
		}
		rt.MultiNode = &v
		source("multi_node", mn.Source)
	}
	l := r.Layout
	if w := l.SlidingWindow; w == nil {
		fe("layout", "[layout] needs sliding_window: the architectures whose windows the runtime honours, or [\"*\"]")
	} else {
		rt.WindowArchitectures = w.Architectures
		source("layout.sliding_window", w.Source)
	}
	if w := l.WindowCache; w != nil {
		switch w.Value {
		case "window":
		case string(model.WindowPlusUBatch), string(model.WindowFull):
			rt.Layout.WindowCache = model.WindowCache(w.Value.(string))
		default:
			fe("window_cache", "window_cache value must be \"window\", %q or %q", model.WindowPlusUBatch, model.WindowFull)
		}
		rt.Layout.WindowPad, rt.Layout.WindowOffset, rt.Layout.WindowExtraBlocks = w.Pad, w.Offset, w.ExtraBlocks
		source("layout.window_cache", w.Source)
	}
	if m := l.MLACache; m != nil {
		switch m.Value {
		case "latent":
		case string(model.MLALatentV), string(model.MLAExpanded):
			rt.Layout.MLA = model.MLACache(m.Value.(string))
		default:
			fe("mla_cache", "mla_cache value must be \"latent\", %q or %q", model.MLALatentV, model.MLAExpanded)
		}
		source("layout.mla_cache", m.Source)
	}
	storage := func(key string, rule *rawRule) model.Storage {
		name, _ := rule.Value.(string)
		if st, ok := model.LookupStorage(name); ok {
			source("layout."+key, rule.Source)
			return st
		}
		fe(key, "%s value %q is not a storage type (e.g. f16, int8-per-channel, q8_0)", key, name)
		return model.Storage{}
	}
	if h := l.Head; h != nil {
		rt.Layout.Head = storage("head", h)
	}
	if h := l.HeadFormats; h != nil {
		m := h.Value
		if len(m) == 0 {
			fe("head_formats", "head_formats value must be a table of weight formats and the storage type of their head, such as { w4a16 = \"int4-per-channel\" }")
		}
		// In the formats' sorted order, so that several mistakes are told
		// the same way every time (a map's order is not).
		spelt := map[string]string{} // a format's name: the key that named it
		for _, f := range slices.Sorted(maps.Keys(m)) {
			v := m[f]
			wf, err := model.LookupWeightFormat(f)
			if err != nil {
				fe("head_formats", "head_formats: %v", err)
				continue
			}
			if !rt.RunsWeights(wf) {
				// Its rule would never apply.
				fe("head_formats", "head_formats: %s is not among the runtime's weights (%s)", f, strings.Join(r.Weights, ", "))
			}
			if g, ok := spelt[wf.Name]; ok {
				// Two spellings (case, an alias): one would win in silence.
				fe("head_formats", "head_formats names %s twice (%s, %s): name each format once", wf.Name, g, f)
				continue
			}
			spelt[wf.Name] = f
			st, ok := model.LookupStorage(v)
			if !ok {
				fe("head_formats", "head_formats value %q for %s is not a storage type (e.g. f16, int8-per-channel, int4-per-channel)", v, f)
				continue
			}
			if rt.HeadFormats == nil {
				rt.HeadFormats = map[string]model.Storage{}
			}
			rt.HeadFormats[wf.Name] = st
		}
		source("layout.head_formats", h.Source)
	}
	if e := l.Embedding; e != nil {
		rt.Layout.Embedding = storage("embedding", e)
		rt.Layout.UntieEmbedding = e.Untie
	}
	if h := l.HostEmbedding; h != nil {
		v, ok := h.Value.(bool)
		if !ok {
			fe("host_embedding", "host_embedding value must be true or false")
		}
		rt.Layout.HostEmbedding = v
		source("layout.host_embedding", h.Source)
	}
	if f := l.Fused; f != nil {
		list, ok := f.Value.([]any)
		if !ok {
			fe("fused", "fused value must be a list of \"qkv\" and \"gate_up\" (or [] for none)")
		}
		for _, v := range list {
			switch v {
			case "qkv":
				rt.Fusion.QKV = true
			case "gate_up":
				rt.Fusion.GateUp = true
			default:
				fe("fused", "fused value %v: want \"qkv\" or \"gate_up\"", v)
			}
		}
		source("layout.fused", f.Source)
	}
	for i, k := range r.Kernel {
		kr := runtimes.Kernel{Formats: k.Formats, Kind: hardware.Kind(k.Kind)}
		for _, f := range k.Formats {
			if f == "gguf-quant" || f == "gguf-float" {
				continue
			}
			if _, err := model.LookupWeightFormat(f); err != nil {
				fe("kernel", "kernel formats: %v", err)
			}
		}
		for _, c := range k.Compute {
			p, err := units.ParsePrecision(c)
			if err != nil {
				fe("compute", "kernel compute: %v", err)
			}
			kr.Compute = append(kr.Compute, p)
		}
		if len(kr.Compute) == 0 {
			fe("kernel", "every [[kernel]] needs compute precisions")
		}
		// A kernel's factor on cores without int8 dot products (a share of
		// the peak) or with them (on the matrix efficiency): checked alike.
		factor := func(key, bound string, f *rawKernelFactor, hi float64) (float64, string) {
			switch {
			case f == nil:
				return 0, ""
			case !(f.Factor > 0 && f.Factor <= hi):
				fe(key, "kernel %s: factor must be %s, above 0 and at most %g, got %g", key, bound, hi, f.Factor)
			case !slices.Contains(kr.Compute, units.INT8):
				fe(key, "kernel %s: the kernel runs no int8 products (compute %v)", key, k.Compute)
			case strings.TrimSpace(f.Source) == "":
				fe(key, "kernel %s = %g has no source: every rule cites where it comes from", key, f.Factor)
			default:
				sourceAt(fmt.Sprintf("kernel.%d.%s", i, key), lines.Nth("[[kernel]]", i), f.Source)
				return f.Factor, f.Source
			}
			return 0, ""
		}
		kr.NoDotFactor, kr.NoDotSource = factor("without_int8_dot", "a share of the int8 peak", k.NoDot, 1)
		kr.DotFactor, kr.DotSource = factor("with_int8_dot", "a factor on the matrix efficiency", k.Dot, 4)
		if n := k.Native; n != nil {
			v, ok := n.Value.(bool)
			switch {
			case !ok:
				fe("native", "kernel native value must be true or false")
			case strings.TrimSpace(n.Source) == "":
				fe("native", "kernel native = %v has no source: every rule cites where it comes from", v)
			default:
				kr.Native, kr.NativeSource = v, n.Source
				sourceAt(fmt.Sprintf("kernel.%d.native", i), lines.Nth("[[kernel]]", i), n.Source)
			}
		}
		if b := k.Since; b != nil {
			switch {
			case b.FirstBuild < 2:
				fe("since", "[[kernel]] %d since: first_build must be a build number (llama.cpp's bNNNN) above 1, got %d", i+1, b.FirstBuild)
			case !validDate(b.Date):
				fe("since", "[[kernel]] %d since: date must be a date YYYY-MM-DD, got %q", i+1, b.Date)
			case strings.TrimSpace(b.Source) == "":
				fe("since", "[[kernel]] %d since = b%d has no source: every rule cites where it comes from", i+1, b.FirstBuild)
			default:
				kr.Since = runtimes.Builds{LastBuild: b.FirstBuild - 1, Until: b.Date, Source: b.Source}
				sourceAt(fmt.Sprintf("kernel.%d.since", i), lines.Nth("[[kernel]]", i), b.Source)
			}
		}
		sourceAt(fmt.Sprintf("kernel.%d", i), lines.Nth("[[kernel]]", i), k.Source)
		rt.Kernels = append(rt.Kernels, kr)
	}
	eras := map[string]bool{}
	for i, e := range r.Era {
		line := lines.Nth("[[era]]", i)
		switch {
		case checkName(e.Name) != nil || strings.Contains(e.Name, "@"):
			fe("era", "[[era]] %d: name %q must be a plain name", i+1, e.Name)
		case eras[e.Name]:
			fe("era", "[[era]] %s is defined twice", e.Name)
		case e.LastBuild < 1:
			fe("era", "[[era]] %s: last_build must be a build number ≥ 1", e.Name)
		case !validDate(e.Until):
			fe("era", "[[era]] %s: until must be a date YYYY-MM-DD, got %q", e.Name, e.Until)
		case i > 0 && (e.LastBuild <= rt.Eras[i-1].LastBuild || e.Until <= rt.Eras[i-1].Until):
			fe("era", "[[era]] %s: eras must be listed oldest first, each ending after the one before", e.Name)
		}
		for _, b := range e.Backends {
			if backendKinds[b] == "" {
				fe("era", "[[era]] %s: backend %q is not named by an [[engine]]", e.Name, b)
			}
		}
		eras[e.Name] = true
		sourceAt("era."+e.Name, line, e.Source)
		rt.Eras = append(rt.Eras, runtimes.Era{Name: e.Name, LastBuild: e.LastBuild, Until: e.Until, Backends: e.Backends, Source: e.Source})
	}
	kinds := make([]string, 0, len(r.Efficiency))
	for k := range r.Efficiency {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		base, era, isEra := strings.Cut(k, "@")
		if isEra && !eras[era] {
			fe("efficiency."+k, "efficiency.%s: no [[era]] is named %q", k, era)
			continue
		}
		c, err := decodeClass(base, backendKinds[base] != "", r.Efficiency[k])
		if err != nil {
			fe("efficiency."+k, "efficiency.%s: %v", k, err)
			continue
		}
		rt.Classes[k] = c
	}
	levels := make([]string, 0, len(r.Level))
	for k := range r.Level {
		levels = append(levels, k)
	}
	sort.Strings(levels)
	for _, k := range levels {
		l, err := decodeLevel(k, r.Level[k], r.Efficiency)
		if err != nil {
			fe("level."+k, "level.%s: %v", k, err)
			continue
		}
		if rt.Levels == nil {
			rt.Levels = map[string]*runtimes.Level{}
		}
		rt.Levels[k] = l
	}
	if sc := r.Scheduler; sc != nil {
		rt.Scheduler = decodeScheduler(sc, fe, source)
	}
	decodeSettings(rt, &r, fe, source)
	if f := r.FrontEnd; f != nil {
		rt.FrontEnd = decodeFrontEnd(f, fe, source)
	}
	if g := r.Graphs; g != nil {
		rt.Graphs = decodeGraphs(g, fe, source)
	}
	if len(errs) == 0 {
		if err := rt.Validate(); err != nil {
			fe("name", "runtime %s: %v", rt.Name, err)
		}
	}
	if len(errs) > 0 {
		return rt, &RuntimeFileError{File: file, Err: safeio.JoinErrors(errs...)}
	}
	return rt, nil
}

// decodePrefill reads [prefill]: the chunk, the larger chunk of large
// devices, the order of a batch's prompts, the logits a pass computes.
// A profile without it keeps llama.cpp's 512-token lockstep passes.
func decodePrefill(rt *runtimes.Runtime, r *rawRuntime, fe func(key, format string, a ...any), source func(key, s string)) {
	p := r.Prefill
	if c := p.Chunk; c != nil {
		switch v := c.Value.(type) {
		case int64:
			if v < 1 || v > limits.Tokens {
				fe("chunk", "[prefill] chunk must be a token count from 1 to %d, or \"prompt\" for the whole prompt", limits.Tokens)
			}
			rt.Prefill.Chunk = int(v)
		case string:
			if v != "prompt" {
				fe("chunk", "[prefill] chunk must be a token count, or \"prompt\" for the whole prompt, got %q", v)
			}
			rt.Prefill.Chunk = runtimes.WholePrompt
		default:
			fe("chunk", "[prefill] chunk must be a token count, or \"prompt\" for the whole prompt")
		}
		rt.Prefill.Name = c.Name
		source("prefill.chunk", c.Source)
	}
	if f := p.Fill; f != nil {
		v, ok := f.Value.(int64)
		if !ok || v < 1 || v > limits.Tokens {
			fe("fill", "[prefill] fill must be a token count from 1 to %d", limits.Tokens)
		}
		rt.Prefill.Fill = int(v)
		source("prefill.fill", f.Source)
	}
	if l := p.LargeChunk; l != nil {
		if l.Value < 1 || l.Value > limits.Tokens {
			fe("large_chunk", "[prefill] large_chunk value must be a token count from 1 to %d", limits.Tokens)
		}
		m, err := parseQuantity(l.Memory, units.DimBytes)
		if err != nil || m <= 0 {
			fe("large_chunk", "[prefill] large_chunk needs memory, the least device memory it applies to, such as \"70 GiB\"")
		}
		rt.Prefill.Large, rt.Prefill.LargeMemory, rt.Prefill.LargeExcept = int(l.Value), m, l.Except
		source("prefill.large_chunk", l.Source)
	}
	if o := p.Order; o != nil {
		switch o.Value {
		case string(runtimes.Lockstep), string(runtimes.InOrder):
			rt.Prefill.Order = runtimes.PrefillOrder(o.Value.(string))
		default:
			fe("order", "[prefill] order must be %q (every sequence advances alike) or %q (whole prompts one after another)", runtimes.Lockstep, runtimes.InOrder)
		}
		source("prefill.order", o.Source)
	}
	if g := p.Logits; g != nil {
		switch g.Value {
		case "last":
			rt.Prefill.LastLogits = true
		case "all":
		default:
			fe("logits", "[prefill] logits must be \"last\" (each sequence's last prompt token) or \"all\" (every token of a pass)")
		}
		source("prefill.logits", g.Source)
	}
}

// decodeScheduler reads [scheduler]: every knob but pass_tokens,
// slot_context and large_devices is required, each with its source.
func decodeScheduler(sc *rawScheduler, fe func(key, format string, a ...any), source func(key, s string)) runtimes.Scheduler {
	out := runtimes.Scheduler{Stated: true}
	// bad are the knobs already told of: Validate's word on the value
	// they were left at would be a second, wrong error.
	bad := map[string]bool{}
	rule := func(key string, r *rawRule, required bool) any {
		if r == nil {
			if required {
				fe("scheduler", "[scheduler] needs %s", key)
			}
			return nil
		}
		source("scheduler."+key, r.Source)
		return r.Value
	}
	count := func(key string, r *rawRule, required bool) int {
		v := rule(key, r, required)
		if v == nil {
			return 0
		}
		n, ok := v.(int64)
		if !ok {
			bad[key] = true
			fe("scheduler."+key, "scheduler %s value must be a whole number, got %s", key, tomlValue(v))
			return 0
		}
		// Validate tells each knob's own range, on its line.
		return int(max(min(n, math.MaxInt32), math.MinInt32))
	}
	flag := func(key string, r *rawRule, required bool) bool {
		v := rule(key, r, required)
		if v == nil {
			return false
		}
		b, ok := v.(bool)
		if !ok {
			bad[key] = true
			fe("scheduler."+key, "scheduler %s value must be true or false", key)
		}
		return b
	}
	word := func(key string, r *rawRule, required bool) string {
		v := rule(key, r, required)
		if v == nil {
			return ""
		}
		w, ok := v.(string)
		if !ok {
			bad[key] = true
			fe("scheduler."+key, "scheduler %s value must be a word", key)
		}
		return w
	}
	out.Policy = runtimes.Policy(word("policy", sc.Policy, true))
	out.MaxSeqs = count("max_seqs", sc.MaxSeqs, true)
	out.MaxTokens = count("max_tokens", sc.MaxTokens, true)
	out.PassTokens = count("pass_tokens", sc.PassTokens, false)
	out.Chunked = flag("chunked_prefill", sc.Chunked, true)
	out.BlockSize = count("block_size", sc.BlockSize, true)
	out.OnFull = runtimes.OnFull(word("on_kv_full", sc.OnFull, true))
	out.PrefixCaching = flag("prefix_caching", sc.PrefixCaching, true)
	out.Async = flag("async_scheduling", sc.Async, false)
	out.FreesWindow = flag("frees_window", sc.FreesWindow, false)
	switch c := word("slot_context", sc.SlotContext, false); c {
	case "", "shared":
	case "divided":
		out.DividedContext = true
	default:
		fe("scheduler.slot_context", "scheduler slot_context value must be \"shared\" or \"divided\", got %q", c)
	}
	if l := sc.Large; l != nil {
		mem, err := parseQuantity(l.Memory, units.DimBytes)
		if err != nil || !(mem > 0) {
			fe("scheduler.large_devices", "scheduler large_devices memory must be a size such as \"70 GiB\"")
		}
		out.Large = &runtimes.LargeDevice{Memory: mem, Except: l.Except, MaxSeqs: l.MaxSeqs, MaxTokens: l.MaxTokens}
		large := out
		large.MaxSeqs, large.MaxTokens = l.MaxSeqs, l.MaxTokens
		if err := large.Validate(); err != nil {
			fe("scheduler.large_devices", "scheduler large_devices %v", err)
		}
		source("scheduler.large_devices", l.Source)
	}
	// Without a policy the scheduler is already refused ([scheduler]
	// needs policy); one given, even empty, is checked on its line.
	if err := out.Validate(); err != nil && sc.Policy != nil {
		var se *runtimes.SchedulerError
		if errors.As(err, &se) && !bad[se.Knob] {
			fe("scheduler."+se.Knob, "scheduler %v", err)
		}
	}
	return out
}

// tomlValue writes a decoded TOML value as its author wrote it: a string
// quoted, anything else as it prints.
func tomlValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// RuntimeFileError is a runtime profile that cannot be used as written,
// told by file. Err joins one *FileError per problem, each naming its
// line.
type RuntimeFileError struct {
	File string
	Err  error
}

func (e *RuntimeFileError) Error() string { return e.Err.Error() }
func (e *RuntimeFileError) Unwrap() error { return e.Err }

// refTag matches a reference tag such as [L1] or [V10].
var refTag = regexp.MustCompile(`\[[A-Z][A-Z0-9]*\]`)

// genericTags may open any source without a reference of that name:
// derived here, or secondary.
var genericTags = map[string]bool{"[D]": true, "[S]": true}

// checkSource says what is wrong with a rule's source, "" when nothing:
// it must exist, cite only references the profile defines, and say what
// the reference states, not only name it ("[L1] draft" does not).
func checkSource(s string, refs map[string]bool) string {
	if strings.TrimSpace(s) == "" {
		return "has no source: every rule in a runtime profile cites where it comes from (the runtime's docs or code)"
	}
	for _, tag := range refTag.FindAllString(s, -1) {
		if !refs[tag] && !genericTags[tag] {
			return fmt.Sprintf("cites %s, which the profile's references do not define", tag)
		}
	}
	if len(strings.Fields(refTag.ReplaceAllString(s, " "))) < 3 {
		return fmt.Sprintf("source %q says nothing beyond its reference tags: say what the runtime's code or docs state", s)
	}
	return ""
}

func decodeClass(kind string, backend bool, r *rawClass) (*runtimes.Class, error) {
	k := hardware.Kind(kind)
	if k != hardware.GPU && k != hardware.CPU && k != hardware.NPU && !backend {
		return nil, fmt.Errorf("unknown engine kind or backend %q (a backend is named by an [[engine]] entry)", kind)
	}
	dur := func(name, v string) (float64, error) {
		x, err := parseQuantity(v, units.DimDuration)
		if err != nil {
			return 0, fmt.Errorf("%s: %v", name, err)
		}
		return x, nil
	}
	var e hardware.Efficiency
	var err error
	e.Bandwidth, e.ComputeMax, e.HalfRows, e.Attention, e.Dequant = r.Bandwidth, r.ComputeMax, r.HalfRows, r.Attention, r.Dequant
	if e.Dequant == 0 {
		e.Dequant = 1 // absent: dequantizing kernels as fast as float ones
	}
	if e.StepOverhead, err = dur("step_overhead", r.StepOverhead); err != nil {
		return nil, err
	}
	if e.PassOverhead, err = dur("pass_overhead", r.PassOverhead); err != nil {
		return nil, err
	}
	if e.LayerOverhead, err = dur("layer_overhead", r.LayerOverhead); err != nil {
		return nil, err
	}
	if r.UnitBandwidth != "" {
		if e.UnitBandwidth, err = parseQuantity(r.UnitBandwidth, units.DimBandwidth); err != nil {
			return nil, fmt.Errorf("unit_bandwidth: %v", err)
		}
	}
	if r.UnitCompute != "" {
		if e.UnitCompute, err = parseQuantity(r.UnitCompute, units.DimRate); err != nil {
			return nil, fmt.Errorf("unit_compute: %v", err)
		}
	}
	e.HostWork, e.KQuantGEMV, e.ReadShare = r.HostWork, r.KQuantGEMV, r.ReadShare
	if err := e.Validate(); err != nil {
		return nil, err
	}
	if len(r.DecodeInterval) != 2 || len(r.PrefillInterval) != 2 {
		return nil, errors.New("decode_interval and prefill_interval must be [low, high] factors of the prediction")
	}
	if strings.TrimSpace(r.Basis) == "" {
		return nil, errors.New("basis must say which measurements the class was fitted on")
	}
	c := &runtimes.Class{Efficiency: e, Fitted: true, Basis: r.Basis,
		Decode:  runtimes.Spread{Low: r.DecodeInterval[0], High: r.DecodeInterval[1]},
		Prefill: runtimes.Spread{Low: r.PrefillInterval[0], High: r.PrefillInterval[1]}}
	if c.MoEDecode, c.MoEDecodeBasis, err = scopeInterval("moe_decode", r.MoEDecodeInterval, r.MoEDecodeBasis); err != nil {
		return nil, err
	}
	if c.NPUClockDecode, c.NPUClockDecodeBasis, err = scopeInterval("npu_clock_decode", r.NPUClockDecodeInterval, r.NPUClockDecodeBasis); err != nil {
		return nil, err
	}
	for _, name := range hardware.ParameterNames {
		v := r.SE[name]
		if v < 0 || math.IsNaN(v) {
			return nil, fmt.Errorf("se.%s must not be negative", name)
		}
		c.SE = append(c.SE, v)
	}
	for name := range r.SE {
		if !contains(hardware.ParameterNames, name) {
			return nil, fmt.Errorf("se has unknown parameter %q (known: %s)", name, strings.Join(hardware.ParameterNames, ", "))
		}
	}
	return c, nil
}

// decodeLevel reads [level.KEY]: KEY is a class of the profile (not an
// era's), a device family, and maybe a device name.
func decodeLevel(key string, r *rawLevel, classes map[string]*rawClass) (*runtimes.Level, error) {
	parts := strings.Split(key, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, errors.New(`the key must be "CLASS/FAMILY" or "CLASS/FAMILY/DEVICE", such as "cuda/jetson"`)
	}
	if _, ok := classes[parts[0]]; !ok || strings.Contains(parts[0], "@") {
		return nil, fmt.Errorf("%q is not an [efficiency] class of this profile", parts[0])
	}
	if !contains(hardware.Families, parts[1]) {
		return nil, fmt.Errorf("unknown device family %q (known: %s)", parts[1], strings.Join(hardware.Families, ", "))
	}
	if len(parts) == 3 {
		if err := checkName(parts[2]); err != nil {
			return nil, err
		}
	}
	l := &runtimes.Level{Shift: hardware.Shift{Overhead: r.Shift.Overhead, Bandwidth: r.Shift.Bandwidth, Compute: r.Shift.Compute, Read: r.Shift.Read}, Basis: r.Basis}
	if err := l.Shift.Validate(); err != nil {
		return nil, err
	}
	for _, iv := range []struct {
		v   []float64
		dst *runtimes.Spread
	}{{r.DecodeInterval, &l.Decode}, {r.PrefillInterval, &l.Prefill}} {
		switch {
		case len(iv.v) == 0: // none of its own: the class's applies
		case len(iv.v) != 2 || !(iv.v[0] > 0 && iv.v[0] <= 1 && iv.v[1] >= 1 && !math.IsInf(iv.v[1], 0)):
			return nil, errors.New("decode_interval and prefill_interval must be [low, high] factors that bracket 1")
		default:
			*iv.dst = runtimes.Spread{Low: iv.v[0], High: iv.v[1]}
		}
	}
	if strings.TrimSpace(r.Basis) == "" {
		return nil, errors.New("basis must say which measurements the level was fitted on")
	}
	return l, nil
}

// validDate reports whether s is a date YYYY-MM-DD.
func validDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// decodeSettings reads [settings] (what the classes were measured at,
// each with its source) and the fitted [setting_factors.CLASS].
func decodeSettings(rt *runtimes.Runtime, r *rawRuntime, fe func(key, format string, a ...any), source func(key, src string)) {
	if st := r.Settings; st != nil {
		if m := st.MaxContext; m != nil {
			v, ok := m.Value.(int64)
			if !ok || v < 1 || v > limits.Tokens {
				fe("settings.max_context", "settings.max_context value must be a number of tokens, such as 4096")
			}
			rt.SettingReference.MaxContext, rt.SettingReference.MaxContextSource = int(v), m.Source
			source("settings.max_context", m.Source)
		}
		if c := st.Clocks; c != nil {
			v, _ := c.Value.(string)
			if !contains(runtimes.ClockSettings, v) {
				fe("settings.clocks", "settings.clocks value must be %s", strings.Join(runtimes.ClockSettings, " or "))
			}
			rt.SettingReference.Clocks, rt.SettingReference.ClocksSource = v, c.Source
			source("settings.clocks", c.Source)
		}
	}
	keys := slices.Sorted(maps.Keys(r.SettingFactors))
	for _, k := range keys {
		f := r.SettingFactors[k]
		key := "setting_factors." + k
		if _, ok := r.Efficiency[k]; !ok {
			fe(key, "%s: %q is not an [efficiency] class of this profile", key, k)
			continue
		}
		if r.Settings == nil {
			fe(key, "%s: fitted factors need [settings], what the class was measured at", key)
			continue
		}
		sf := &runtimes.SettingFactors{ContextDecode: f.Context.Decode, ContextPrefill: f.Context.Prefill,
			ClocksDecode: f.Clocks.Decode, ClocksPrefill: f.Clocks.Prefill, MeasuredContext: f.MeasuredContext, Basis: f.Basis}
		if f.MeasuredContext < 0 || f.MeasuredContext > limits.Tokens {
			fe(key, "%s: measured_context must be a number of tokens", key)
			continue
		}
		bad := false
		for _, v := range []float64{sf.ContextDecode, sf.ContextPrefill, sf.ClocksDecode, sf.ClocksPrefill} {
			if math.IsNaN(v) || math.Abs(v) > 5 {
				bad = true
			}
		}
		if bad {
			fe(key, "%s: factors are log factors on time within ±5", key)
			continue
		}
		for _, iv := range []struct {
			v   []float64
			dst *runtimes.Spread
		}{{f.DecodeInterval, &sf.Decode}, {f.PrefillInterval, &sf.Prefill}} {
			switch {
			case len(iv.v) == 0:
			case len(iv.v) != 2 || !(iv.v[0] > 0 && iv.v[0] <= 1 && iv.v[1] >= 1 && !math.IsInf(iv.v[1], 0)):
				fe(key, "%s: decode_interval and prefill_interval must be [low, high] factors that bracket 1", key)
			default:
				*iv.dst = runtimes.Spread{Low: iv.v[0], High: iv.v[1]}
			}
		}
		if strings.TrimSpace(f.Basis) == "" {
			fe(key, "%s: basis must say which measurements the factors were fitted on", key)
			continue
		}
		if rt.SettingFactors == nil {
			rt.SettingFactors = map[string]*runtimes.SettingFactors{}
		}
		rt.SettingFactors[k] = sf
	}
}

// decodeGraphs reads [graphs]: a capture of whole tokens and two
// durations a layer, each with its source.
func decodeGraphs(g *rawGraphs, fe func(key, format string, a ...any), source func(key, s string)) runtimes.Graphs {
	var out runtimes.Graphs
	if g.Capture == nil || g.PiecewiseLayer == nil || g.EagerLayer == nil {
		fe("graphs", "[graphs] needs capture = { value = TOKENS, seqs = N, source = \"…\" }, piecewise_layer and eager_layer = { value = \"15 µs\", source = \"…\" }")
		return out
	}
	source("graphs.capture", g.Capture.Source)
	out.Capture, out.PerSeq = g.Capture.Value, g.Capture.Seqs
	for _, c := range []struct {
		key string
		raw *rawRule
		dst *float64
	}{{"piecewise_layer", g.PiecewiseLayer, &out.Piecewise}, {"eager_layer", g.EagerLayer, &out.Eager}} {
		key := "graphs." + c.key
		source(key, c.raw.Source)
		v, ok := c.raw.Value.(string)
		x, err := units.ParseWait(v)
		if !ok || err != nil {
			fe(key, "graphs %s value must be a duration a layer such as \"15 µs\"", c.key)
			continue
		}
		*c.dst = x
	}
	if err := out.Validate(); err != nil {
		fe("graphs", "%v", err)
	}
	return out
}

// decodeFrontEnd reads [front_end]: a basis and three figures, each a
// duration (0 allowed) within its range, with its source.
func decodeFrontEnd(f *rawFrontEnd, fe func(key, format string, a ...any), source func(key, s string)) runtimes.FrontEnd {
	out := runtimes.FrontEnd{Stated: true, Basis: f.Basis}
	if f.Basis == "" {
		fe("front_end", "[front_end] needs a basis: what the fit rests on")
	}
	for _, c := range []struct {
		key string
		raw *rawFrontEndFigure
		dst *runtimes.FrontEndFigure
	}{{"latency", f.Latency, &out.Latency}, {"request", f.Request, &out.Request}, {"token", f.Token, &out.Token}} {
		key := "front_end." + c.key
		if c.raw == nil {
			fe("front_end", "[front_end] needs %s = { value = \"…\", range = [\"…\", \"…\"], source = \"…\" }", c.key)
			continue
		}
		source(key, c.raw.Source)
		v, err := units.ParseWait(c.raw.Value)
		if err != nil {
			fe(key, "front_end %s value: %v", c.key, err)
			continue
		}
		if len(c.raw.Range) != 2 {
			fe(key, "front_end %s range must be two durations, low and high", c.key)
			continue
		}
		lo, err1 := units.ParseWait(c.raw.Range[0])
		hi, err2 := units.ParseWait(c.raw.Range[1])
		if err1 != nil || err2 != nil {
			fe(key, "front_end %s range: %v", c.key, errors.Join(err1, err2))
			continue
		}
		*c.dst = runtimes.FrontEndFigure{Value: v, Low: lo, High: hi}
	}
	if err := out.Validate(); err != nil {
		fe("front_end", "%v", err)
	}
	return out
}

// knownStorage reports whether name is a tensor storage type
// (model.LookupStorage).
func knownStorage(name string) bool {
	_, ok := model.LookupStorage(name)
	return ok
}

// scopeInterval reads a class's NAME_interval and NAME_basis (moe_decode,
// npu_clock_decode): the interval that covers runs held out of scope and
// which runs they are. Neither given: the zero Spread, no basis.
func scopeInterval(name string, iv []float64, basis string) (runtimes.Spread, string, error) {
	if iv == nil && basis == "" {
		return runtimes.Spread{}, "", nil
	}
	if len(iv) != 2 || !(iv[0] > 0) || !(iv[1] >= iv[0]) || math.IsInf(iv[1], 1) {
		return runtimes.Spread{}, "", fmt.Errorf("%s_interval must be [low, high] factors of the prediction, 0 < low <= high", name)
	}
	if strings.TrimSpace(basis) == "" {
		return runtimes.Spread{}, "", fmt.Errorf("%s_basis must say which held-out runs %s_interval covers", name, name)
	}
	return runtimes.Spread{Low: iv[0], High: iv[1]}, basis, nil
}
