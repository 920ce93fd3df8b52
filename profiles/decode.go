package profiles

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/safeio"
	"github.com/roofline/roofline/units"
)

// FileError is a problem in a profile file, positioned where possible.
type FileError struct {
	File string
	Line int // 0 when unknown
	Msg  string
	// Err is the typed error Msg says, when there is one (a path where
	// a name is expected): Unwrap gives it to errors.As.
	Err error
}

func (e *FileError) Unwrap() error { return e.Err }

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// sourced is a number with the reference it comes from.
type sourced struct {
	Value  string `toml:"value"`
	Source string `toml:"source"`
}

// sourcedList is a list of quantities with the reference they come from.
type sourcedList struct {
	Value  []string `toml:"value"`
	Source string   `toml:"source"`
}

type sourcedNumber struct {
	Value  float64 `toml:"value"`
	Source string  `toml:"source"`
}

// sourcedBool is a yes or no with the reference it comes from.
type sourcedBool struct {
	Value  *bool  `toml:"value"`
	Source string `toml:"source"`
}

type rawModel struct {
	Name           string         `toml:"name"`
	Aliases        []string       `toml:"aliases"`
	Architecture   string         `toml:"architecture"`
	Source         string         `toml:"source"`
	Checkpoint     string         `toml:"checkpoint"`
	Hidden         int            `toml:"hidden_size"`
	Layers         int            `toml:"num_hidden_layers"`
	Heads          int            `toml:"num_attention_heads"`
	KVHeads        int            `toml:"num_key_value_heads"`
	HeadDim        int            `toml:"head_dim"`
	FFN            int            `toml:"intermediate_size"`
	Vocab          int            `toml:"vocab_size"`
	Tied           bool           `toml:"tie_word_embeddings"`
	MaxContext     int            `toml:"max_position_embeddings"`
	MLP            string         `toml:"mlp"`
	NormsPerLayer  *int           `toml:"norms_per_layer"`
	QKNorm         bool           `toml:"qk_norm"`
	QKVBias        bool           `toml:"qkv_bias"`
	OutBias        bool           `toml:"out_bias"`
	FusedQKV       bool           `toml:"fused_qkv"`
	FusedGateUp    bool           `toml:"fused_gate_up"`
	AttnSinks      bool           `toml:"attn_sinks"`
	SlidingWindow  int            `toml:"sliding_window"`
	LayerPattern   []string       `toml:"layer_pattern"`
	PublishedParam *sourcedNumber `toml:"published_params"`
	PublishedAct   *sourcedNumber `toml:"published_active_params"`
	MoE            *struct {
		Experts     int  `toml:"experts"`
		Active      int  `toml:"active"`
		FFN         int  `toml:"intermediate_size"`
		Shared      int  `toml:"shared_experts"`
		SharedFFN   int  `toml:"shared_intermediate_size"`
		DenseLayers int  `toml:"dense_layers"`
		RouterBias  bool `toml:"router_bias"`
		ExpertBias  bool `toml:"expert_bias"`
		ScoreBias   bool `toml:"score_bias"`
	} `toml:"moe"`
	MLA *struct {
		QLoraRank  int `toml:"q_lora_rank"`
		KVLoraRank int `toml:"kv_lora_rank"`
		QKNopeDim  int `toml:"qk_nope_head_dim"`
		QKRopeDim  int `toml:"qk_rope_head_dim"`
		VHeadDim   int `toml:"v_head_dim"`
	} `toml:"mla"`
}

type rawEngine struct {
	Name        string             `toml:"name"`
	Kind        string             `toml:"kind"`
	Power       *sourced           `toml:"power"`
	IdlePower   *sourced           `toml:"idle_power"`
	Units       *sourcedNumber     `toml:"units"`
	Clock       *sourced           `toml:"clock"`
	MinClock    *sourced           `toml:"min_clock"`
	CC          *sourcedNumber     `toml:"compute_capability"`
	L2Cache     *sourced           `toml:"l2_cache"`
	Int8Dot     *sourcedBool       `toml:"int8_dot"`
	Peak        map[string]sourced `toml:"peak"`
	Calibration *rawCalibration    `toml:"calibration"`
}

// rawCalibration is [engine.calibration]: an engine's efficiency under one
// runtime, fitted to measured runs by roofline calibrate.
type rawCalibration struct {
	Runtime         string             `toml:"runtime"`
	Source          string             `toml:"source"`
	Device          string             `toml:"device"`
	PowerMode       string             `toml:"power_mode"`
	Engine          string             `toml:"engine"`
	Build           string             `toml:"build"`
	Date            string             `toml:"date"`
	Files           []string           `toml:"files"`
	Formats         []string           `toml:"formats"`
	MaxBatch        int                `toml:"max_batch"`
	DecodePoints    int                `toml:"decode_points"`
	PrefillPoints   int                `toml:"prefill_points"`
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
	FormatBandwidth map[string]float64 `toml:"format_bandwidth"`
	Covariance      []float64          `toml:"covariance"`
	DecodeSigma     float64            `toml:"decode_sigma"`
	PrefillSigma    float64            `toml:"prefill_sigma"`
	DecodeDOF       int                `toml:"decode_dof"`
	PrefillDOF      int                `toml:"prefill_dof"`
	R2Decode        *float64           `toml:"r2_decode"`
	R2Prefill       *float64           `toml:"r2_prefill"`
	LOODecode       *float64           `toml:"loo_mdape_decode"`
	LOOPrefill      *float64           `toml:"loo_mdape_prefill"`
	Prior           string             `toml:"prior"`
	DecodeShift     *float64           `toml:"decode_shift"`
	PrefillShift    *float64           `toml:"prefill_shift"`
}

type rawDevice struct {
	Name              string       `toml:"name"`
	Aliases           []string     `toml:"aliases"`
	Description       string       `toml:"description"`
	Family            string       `toml:"family"`
	Segment           string       `toml:"segment"`
	PowerMode         string       `toml:"power_mode"`
	ModeTable         string       `toml:"mode_table"`
	UnifiedMemory     *bool        `toml:"unified_memory"`
	Memory            *sourced     `toml:"memory"`
	UsableMemory      *sourced     `toml:"usable_memory"`
	ReservedMemory    *sourced     `toml:"reserved_memory"`
	Bandwidth         *sourced     `toml:"bandwidth"`
	MeasuredBandwidth *sourced     `toml:"measured_bandwidth"`
	StorageBandwidth  *sourced     `toml:"storage_bandwidth"`
	MemoryClocks      *sourcedList `toml:"memory_clocks"`
	HostLink          *sourced     `toml:"host_link"`
	NVLink            *sourced     `toml:"nvlink"`
	DiscreteGPUHost   *sourcedBool `toml:"discrete_gpu_host"`
	DefaultEngine     string       `toml:"default_engine"`
	References        []string     `toml:"references"`
	Engine            []rawEngine  `toml:"engine"`
	Variant           []rawDevice  `toml:"variant"`
}

// DecodeStrict decodes TOML into v and turns syntax errors and unknown keys
// into positioned FileErrors; other roofline files (studies) share it.
// schemaDoc names the page that documents the keys, for the hint. lines
// finds the line of any key of the file, for later messages.
func DecodeStrict(file string, src []byte, v any, schemaDoc string) (md toml.MetaData, lines *Lines, err error) {
	return decodeStrictDoc(file, src, v, schemaDoc)
}

// LineOfKey is the line where a dotted key is written, 0 when not found.
// A caller asking for many keys of one file uses Lines.
func LineOfKey(src []byte, key ...string) int { return NewLines(src).Key(key...) }

func decodeStrict(file string, src []byte, v any) (toml.MetaData, *Lines, error) {
	return decodeStrictDoc(file, src, v, "docs/profiles.md")
}

func decodeStrictDoc(file string, src []byte, v any, schemaDoc string) (toml.MetaData, *Lines, error) {
	md, lines, keys, err := DecodeKeys(file, src, v, schemaDoc)
	if err != nil {
		return md, lines, err
	}
	if len(keys) > 0 && keys[0].unknown {
		// Unknown keys first and alone: a misspelt key leaves its value
		// unread, and what follows from that would only mislead.
		var errs []error
		for _, k := range keys {
			if k.unknown {
				errs = append(errs, k.FileError)
			}
		}
		return md, lines, errors.Join(errs...)
	}
	var errs []error
	for _, k := range keys {
		errs = append(errs, k.FileError)
	}
	return md, lines, safeio.JoinErrors(errs...)
}

// KeyError is a key a strict decode refuses: unknown to the schema, or a
// number that is not finite.
type KeyError struct {
	*FileError
	unknown bool
}

// DecodeKeys decodes src into v as DecodeStrict does, but returns the
// keys it refuses (unknown keys first, then numbers that are not finite)
// apart from an error that stops decoding (a syntax error, or a file past
// what scanTOML lets reach the decoder): a caller that checks the values
// as well reports every problem of the file at once. Of the unknown keys
// the first limits.Errors are told and the rest counted. lines finds the
// line of any key of the file, for later messages.
func DecodeKeys(file string, src []byte, v any, schemaDoc string) (md toml.MetaData, lines *Lines, keys []KeyError, err error) {
	lines = NewLines(src)
	if err := scanTOML(file, src); err != nil {
		return md, lines, nil, err
	}
	md, err = toml.NewDecoder(bytes.NewReader(src)).Decode(v)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return md, lines, nil, &FileError{File: file, Line: pe.Position.Line, Msg: pe.Message + hintFor(pe)}
		}
		return md, lines, nil, &FileError{File: file, Line: lineOfError(lines, err), Msg: decodeMessage(err)}
	}
	und := outermost(md.Undecoded())
	for _, k := range und[:min(len(und), limits.Errors)] {
		keys = append(keys, KeyError{&FileError{File: file, Line: lines.Key(k...), Msg: fmt.Sprintf("unknown key %q (check the spelling against %s)", k.String(), schemaDoc)}, true})
	}
	if n := len(und) - limits.Errors; n > 0 {
		keys = append(keys, KeyError{&FileError{File: file, Msg: fmt.Sprintf("… and %d more unknown keys", n)}, true})
	}
	nonFinite(reflect.ValueOf(v), nil, func(key toml.Key, x float64) {
		keys = append(keys, KeyError{&FileError{File: file, Line: lines.Key(key...), Msg: fmt.Sprintf("%s = %v: a number must be finite", key, x)}, false})
	})
	return md, lines, keys, nil
}

// outermost drops the keys under another unknown key: a misspelt
// table (bandwith = { value, source }) is one mistake, told once, not
// once more for each of its keys.
// A key is at most a few parts deep (scanTOML), so each looks up its
// prefixes.
func outermost(keys []toml.Key) []toml.Key {
	unknown := make(map[string]bool, len(keys))
	for _, k := range keys {
		unknown[k.String()] = true
	}
	var out []toml.Key
	for _, k := range keys {
		under := false
		for n := 1; n < len(k) && !under; n++ {
			under = unknown[k[:n].String()]
		}
		if !under {
			out = append(out, k)
		}
	}
	return out
}

// nonFinite calls bad for every NaN or infinite float in v (TOML allows
// nan and inf; no roofline quantity is either), with its key.
func nonFinite(v reflect.Value, key toml.Key, bad func(toml.Key, float64)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			nonFinite(v.Elem(), key, bad)
		}
	case reflect.Float32, reflect.Float64:
		if x := v.Float(); math.IsNaN(x) || math.IsInf(x, 0) {
			bad(key, x)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name == "" {
				name = f.Name
			}
			nonFinite(v.Field(i), append(key[:len(key):len(key)], name), bad)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			nonFinite(v.Index(i), key, bad)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			nonFinite(iter.Value(), append(key[:len(key):len(key)], fmt.Sprint(iter.Key().Interface())), bad)
		}
	}
}

func hintFor(pe toml.ParseError) string {
	if pe.Usage != "" {
		return " (" + strings.TrimSpace(strings.SplitN(pe.Usage, "\n", 2)[0]) + ")"
	}
	return ""
}

var (
	lastKeyRE = regexp.MustCompile(`last key "([^"]+)"`)
	lineRE    = regexp.MustCompile(`^toml: line ([0-9]+)`)
)

// lineOfError finds the line of a decode error: the one the decoder
// names, else the line of the key it names (a key inside an inline
// table, host_link.value, is not found by its name: Lines.Key takes the
// first "value" of the file).
func lineOfError(lines *Lines, err error) int {
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		if n, e := strconv.Atoi(m[1]); e == nil && n > 0 {
			return n
		}
	}
	m := lastKeyRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	return lines.Key(strings.Split(m[1], ".")...)
}

var (
	mismatchRE     = regexp.MustCompile(`type mismatch for ([^:]+): expected (.+) but found (.+)$`)
	incompatibleRE = regexp.MustCompile(`incompatible types: TOML value has type (.+); destination has type (.+)$`)
)

// tomlWords names a decoder's types as a profile's author writes them.
var tomlWords = map[string]string{
	"int64": "an integer", "int": "an integer", "float64": "a number", "string": "a string",
	"bool": "a boolean", "table": "a table", "map[string]interface {}": "a table",
	"[]interface {}": "an array", "[]string": "an array of strings", "time.Time": "a date",
	"profiles.rawRule": `a rule with its source, { value = …, source = "…" }`,
}

// decodeMessage is a decode error as a profile's author reads it: the key,
// what it must be and what it is, not the decoder's position prefix (the
// line is the FileError's) or Go's type names. A rule written as a bare
// value, such as multi_node = false, is told the table a rule is: every
// rule cites its source.
func decodeMessage(err error) string {
	msg := err.Error()
	var want, found string
	if m := mismatchRE.FindStringSubmatch(msg); m != nil {
		want, found = word(strings.TrimPrefix(m[1], "*")), word(m[3])
		if want == "" {
			want = word(m[2])
		}
	} else if m := incompatibleRE.FindStringSubmatch(msg); m != nil {
		want, found = word(m[2]), word(m[1])
	}
	if want == "" || found == "" {
		return msg
	}
	key := "a value"
	if k := lastKeyRE.FindStringSubmatch(msg); k != nil {
		key = k[1]
	}
	return fmt.Sprintf("%s: expected %s, found %s (docs/profiles.md gives each key's form)", key, want, found)
}

// word is t in tomlWords, "" when it has none.
func word(t string) string { return tomlWords[strings.TrimSpace(t)] }

func stripComment(l string) string {
	if i := strings.Index(l, "#"); i >= 0 && strings.Count(l[:i], `"`)%2 == 0 {
		return l[:i]
	}
	return l
}

// decodeModel reads one model profile.
func decodeModel(file string, src []byte) (*model.Spec, error) {
	var r rawModel
	md, lines, err := decodeStrict(file, src, &r)
	if err != nil {
		return nil, err
	}
	fe := func(key, format string, a ...any) error {
		return &FileError{File: file, Line: lines.Key(strings.Split(key, ".")...), Msg: fmt.Sprintf(format, a...)}
	}
	var errs []error
	for _, k := range []string{"name", "architecture", "source", "hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "max_position_embeddings"} {
		if !md.IsDefined(k) {
			errs = append(errs, &FileError{File: file, Msg: fmt.Sprintf("missing required key %q", k)})
		}
	}
	if r.MLA == nil {
		for _, k := range []string{"num_key_value_heads", "head_dim"} {
			if !md.IsDefined(k) {
				errs = append(errs, &FileError{File: file, Msg: fmt.Sprintf("missing required key %q (give head_dim explicitly: it is not always hidden_size / heads)", k)})
			}
		}
	}
	if err := checkName(r.Name); err != nil && md.IsDefined("name") {
		errs = append(errs, fe("name", "%v", err))
	}
	s := &model.Spec{
		Name: r.Name, Aliases: r.Aliases, Architecture: r.Architecture, Source: r.Source, Checkpoint: r.Checkpoint,
		Hidden: r.Hidden, Layers: r.Layers, Heads: r.Heads, KVHeads: r.KVHeads, HeadDim: r.HeadDim,
		FFN: r.FFN, Vocab: r.Vocab, TiedEmbeddings: r.Tied, MaxContext: r.MaxContext,
		MLP: model.MLP(r.MLP), NormsPerLayer: 2, QKNorm: r.QKNorm, QKVBias: r.QKVBias, OutBias: r.OutBias,
		FusedQKV: r.FusedQKV, FusedGateUp: r.FusedGateUp, AttnSinks: r.AttnSinks, SlidingWindow: r.SlidingWindow,
	}
	if s.MLP == "" {
		s.MLP = model.Gated
	}
	if s.Checkpoint == "" {
		s.Checkpoint = model.DefaultCheckpoint
	}
	if _, err := model.LookupWeightFormat(s.Checkpoint); err != nil {
		errs = append(errs, fe("checkpoint", "%v", err))
	}
	if r.NormsPerLayer != nil {
		s.NormsPerLayer = *r.NormsPerLayer
	}
	for _, k := range r.LayerPattern {
		s.LayerPattern = append(s.LayerPattern, model.LayerKind(k))
	}
	if p := r.PublishedParam; p != nil {
		s.Published.Params, s.Published.Source = p.Value, p.Source
		if p.Source == "" || p.Value <= 0 {
			errs = append(errs, fe("published_params", "published_params needs a positive value and a source"))
		}
	}
	if p := r.PublishedAct; p != nil {
		s.Published.ActiveParams = p.Value
		if s.Published.Source == "" {
			s.Published.Source = p.Source
		} else if p.Source != s.Published.Source {
			s.Published.Source += "; " + p.Source
		}
		if p.Source == "" || p.Value <= 0 {
			errs = append(errs, fe("published_active_params", "published_active_params needs a positive value and a source"))
		}
	}
	if m := r.MoE; m != nil {
		s.MoE = &model.MoE{Experts: m.Experts, Active: m.Active, FFN: m.FFN, Shared: m.Shared, SharedFFN: m.SharedFFN,
			DenseLayers: m.DenseLayers, RouterBias: m.RouterBias, ExpertBias: m.ExpertBias, ScoreBias: m.ScoreBias}
	}
	if a := r.MLA; a != nil {
		s.MLA = &model.MLA{QLoraRank: a.QLoraRank, KVLoraRank: a.KVLoraRank, QKNopeDim: a.QKNopeDim, QKRopeDim: a.QKRopeDim, VHeadDim: a.VHeadDim}
	}
	if err := s.Validate(); err != nil {
		for _, e := range unjoin(err) {
			key := strings.SplitN(e.Error(), " ", 2)[0]
			errs = append(errs, fe(key, "%v", e))
		}
	}
	return s, safeio.JoinErrors(errs...)
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

var nameRE = regexp.MustCompile(`^[a-z0-9]+([.\-][a-z0-9]+)*$`)

func checkName(n string) error {
	if !nameRE.MatchString(n) {
		return fmt.Errorf("name %q must be lower case letters, digits, dots and hyphens (e.g. \"llama-3.1-8b\")", n)
	}
	if LooksLikePath(n) {
		return fmt.Errorf("name %q ends like a file name: a profile's name is a name, never a path", n)
	}
	return nil
}

// decodeDevices reads one hardware profile: a device and its variants.
func decodeDevices(file string, src []byte) ([]*hardware.Device, error) {
	var r rawDevice
	md, lines, err := decodeStrict(file, src, &r)
	if err != nil {
		return nil, err
	}
	d := &deviceDecoder{file: file, lines: lines}
	for _, k := range []string{"name", "description", "family", "segment", "memory", "bandwidth", "storage_bandwidth", "default_engine", "engine"} {
		if !md.IsDefined(k) {
			d.errs = append(d.errs, &FileError{File: file, Msg: fmt.Sprintf("missing required key %q", k)})
		}
	}
	base := d.device(r, nil)
	out := []*hardware.Device{base}
	for _, v := range r.Variant {
		if len(v.Variant) > 0 {
			d.errorf("variant", "a variant cannot have variants")
		}
		out = append(out, d.device(v, base))
	}
	modes := map[[2]string]string{}
	for _, dev := range out {
		if k := hardware.ModeKey(dev.PowerMode); k != "" {
			key := [2]string{dev.ModeTable, k}
			if prev, ok := modes[key]; ok {
				d.errs = append(d.errs, &FileError{File: file, Line: lineOfName(src, dev.Name),
					Msg: fmt.Sprintf("device %s: power mode %q is %s's too (mode_table %q): NAME@MODE could not tell them apart; give one another power_mode or mode_table", dev.Name, dev.PowerMode, prev, dev.ModeTable)})
			}
			modes[key] = dev.Name
		}
	}
	for _, dev := range out {
		if err := dev.Validate(); err != nil {
			for _, e := range unjoin(err) {
				// A figure out of its range is reported at its key's line.
				line := lines.Key("name")
				var ke *hardware.KeyError
				if errors.As(e, &ke) {
					if d.reported[ke.Key] {
						continue
					}
					if l := lines.Key(deviceKeyPath(ke.Key)...); l > 0 {
						line = l
					}
				}
				d.errs = append(d.errs, &FileError{File: file, Line: line, Msg: fmt.Sprintf("device %s: %v", dev.Name, e)})
			}
		}
	}
	return out, safeio.JoinErrors(d.errs...)
}

// lineOfName is the line of `name = "n"`, 0 when not found.
func lineOfName(src []byte, n string) int {
	for i, l := range strings.Split(string(src), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && strings.TrimSpace(k) == "name" && strings.Trim(strings.TrimSpace(v), `"`) == n {
			return i + 1
		}
	}
	return 0
}

// deviceKeyPath is the TOML path of a device's key as hardware names it:
// engine.gpu.power is the power key of an [[engine]] table.
func deviceKeyPath(key string) toml.Key {
	parts := strings.Split(key, ".")
	if len(parts) > 2 && parts[0] == "engine" {
		parts = append([]string{"engine"}, parts[2:]...)
	}
	return toml.Key(parts)
}

type deviceDecoder struct {
	file  string
	lines *Lines
	errs  []error
	// reported holds the keys already in errs: validation's errors about
	// them (the 0 a value that did not parse left behind, its missing
	// source) would report one fault twice.
	reported map[string]bool
}

func (d *deviceDecoder) errorf(key, format string, a ...any) {
	if d.reported == nil {
		d.reported = map[string]bool{}
	}
	d.reported[key] = true
	d.errs = append(d.errs, &FileError{File: d.file, Line: d.lines.Key(strings.Split(key, ".")...), Msg: fmt.Sprintf(format, a...)})
}

// quantity parses a sourced value and records its source under key.
func (d *deviceDecoder) quantity(dev *hardware.Device, key string, s *sourced, dim units.Dimension) (float64, bool) {
	if s == nil {
		return 0, false
	}
	v, err := parseQuantity(s.Value, dim)
	if err != nil {
		d.errorf(key, "%s: %v", key, err)
		return 0, false
	}
	if strings.TrimSpace(s.Source) == "" {
		d.errorf(key, "%s = %q has no source: every number in a profile cites where it comes from", key, s.Value)
	}
	dev.Sources[key] = s.Source
	return v, true
}

// memoryClocks reads memory_clocks: ascending frequencies, the last the
// one the device's bandwidth is of.
func (d *deviceDecoder) memoryClocks(dev *hardware.Device, l *sourcedList) []float64 {
	if strings.TrimSpace(l.Source) == "" {
		d.errorf("memory_clocks", "memory_clocks has no source: every number in a profile cites where it comes from")
		return nil
	}
	if len(l.Value) == 0 {
		d.errorf("memory_clocks", "memory_clocks is empty: list the memory's clock steps, ascending, the last the one bandwidth is of (e.g. [\"534 MHz\", \"2400 MHz\"])")
		return nil
	}
	out := make([]float64, len(l.Value))
	for i, s := range l.Value {
		v, err := parseQuantity(s, units.DimFrequency)
		if err == nil && !(v >= limits.Clock.Min && v <= limits.Clock.Max) {
			err = fmt.Errorf("%q: a clock is from 1 MHz to 100 GHz", s)
		}
		if err == nil && i > 0 && v <= out[i-1] {
			err = fmt.Errorf("%q is not above the step before it: list the steps ascending, the last the one bandwidth is of", s)
		}
		if err != nil {
			d.errorf("memory_clocks", "memory_clocks: %v", err)
			return nil
		}
		out[i] = v
	}
	dev.Sources["memory_clocks"] = l.Source
	return out
}

// device builds a device from r, starting from a copy of base for a variant.
func (d *deviceDecoder) device(r rawDevice, base *hardware.Device) *hardware.Device {
	dev := &hardware.Device{Sources: map[string]string{}, File: d.file}
	if base != nil {
		cp := *base
		cp.Aliases, cp.VariantOf = nil, base.Name
		cp.Sources = map[string]string{}
		for k, v := range base.Sources {
			cp.Sources[k] = v
		}
		// A measured bandwidth is of the base's clocks (an SM-bound read
		// moves with the GPU clock, a DRAM-bound one with the EMC's): a
		// variant states its own or has none.
		cp.MeasuredBandwidth = 0
		delete(cp.Sources, "measured_bandwidth")
		cp.Engines = make([]hardware.Engine, len(base.Engines))
		for i, e := range base.Engines {
			e.Peaks = cloneMap(e.Peaks)
			cp.Engines[i] = e
		}
		dev = &cp
	}
	if r.Name == "" {
		d.errorf("name", "missing required key \"name\"")
	} else if err := checkName(r.Name); err != nil {
		d.errorf("name", "%v", err)
	}
	dev.Name = r.Name
	dev.Aliases = r.Aliases
	setStr(&dev.Description, r.Description)
	setStr(&dev.Family, r.Family)
	setStr(&dev.Segment, r.Segment)
	setStr(&dev.PowerMode, r.PowerMode)
	setStr(&dev.ModeTable, r.ModeTable)
	setStr(&dev.DefaultEngine, r.DefaultEngine)
	if r.UnifiedMemory != nil {
		dev.Unified = *r.UnifiedMemory
	}
	if base == nil || len(r.References) > 0 {
		dev.References = append(append([]string(nil), dev.References...), r.References...)
	}
	if v, ok := d.quantity(dev, "memory", r.Memory, units.DimBytes); ok {
		dev.Memory = v
		if r.UsableMemory == nil {
			dev.UsableGiven = 0 // a new capacity: the rule decides again
		}
	}
	if v, ok := d.quantity(dev, "usable_memory", r.UsableMemory, units.DimBytes); ok {
		dev.UsableGiven = v
	}
	if v, ok := d.quantity(dev, "reserved_memory", r.ReservedMemory, units.DimBytes); ok {
		dev.Reserved = v
	}
	if dev.Memory > 0 {
		dev.Usable, dev.Sources["usable_memory"] = dev.UsableMemory()
	}
	if v, ok := d.quantity(dev, "bandwidth", r.Bandwidth, units.DimBandwidth); ok {
		dev.Bandwidth = v
	}
	if r.Bandwidth != nil && r.MemoryClocks == nil {
		// The steps are of the base's memory: a variant with a memory of
		// its own states its own or has none.
		dev.MemoryClocks = nil
		delete(dev.Sources, "memory_clocks")
	}
	if l := r.MemoryClocks; l != nil {
		dev.MemoryClocks = d.memoryClocks(dev, l)
	}
	if v, ok := d.quantity(dev, "measured_bandwidth", r.MeasuredBandwidth, units.DimBandwidth); ok {
		dev.MeasuredBandwidth = v
	}
	if v, ok := d.quantity(dev, "storage_bandwidth", r.StorageBandwidth, units.DimBandwidth); ok {
		dev.StorageBandwidth = v
	}
	if l := r.HostLink; l != nil {
		if _, err := hardware.LookupLink(l.Value); err != nil {
			d.errorf("host_link", "host_link: %v", err)
		}
		if strings.TrimSpace(l.Source) == "" {
			d.errorf("host_link", "host_link = %q has no source: every figure in a profile cites where it comes from", l.Value)
		}
		dev.HostLink, dev.Sources["host_link"] = l.Value, l.Source
	}
	if l := r.NVLink; l != nil {
		want := strings.Join(nvlinkNames(), ", ")
		if link, err := hardware.LookupLink(l.Value); err != nil {
			// Not LookupLink's message: it offers every link and a rate,
			// which this key refuses.
			d.errorf("nvlink", "nvlink = %q is not a built-in NVLink (want one of %s)", l.Value, want)
		} else if link.Kind != hardware.NVLink {
			article := "a"
			if strings.IndexAny(string(link.Kind), "aeiou") == 0 {
				article = "an"
			}
			d.errorf("nvlink", "nvlink = %q is %s %s link, not an NVLink (want one of %s)", l.Value, article, link.Kind, want)
		} else {
			l.Value = link.Name // the built-in name, however the file spells it
		}
		if strings.TrimSpace(l.Source) == "" {
			d.errorf("nvlink", "nvlink = %q has no source: every figure in a profile cites where it comes from", l.Value)
		}
		dev.NVLink, dev.Sources["nvlink"] = l.Value, l.Source
	}
	if b := r.DiscreteGPUHost; b != nil {
		switch {
		case b.Value == nil:
			d.errorf("discrete_gpu_host", "discrete_gpu_host needs a value: false when no discrete GPU can be joined to this computer (a slot or an eGPU) for the runtimes roofline prices, true when one can")
		case strings.TrimSpace(b.Source) == "":
			d.errorf("discrete_gpu_host", "discrete_gpu_host = %t has no source: every figure in a profile cites where it comes from", *b.Value)
		default:
			dev.NoGPUHost = !*b.Value
			dev.Sources["discrete_gpu_host"] = b.Source
		}
	}
	for _, re := range r.Engine {
		d.engine(dev, re, base != nil)
	}
	return dev
}

func (d *deviceDecoder) engine(dev *hardware.Device, re rawEngine, variant bool) {
	if re.Name == "" {
		d.errorf("engine", "every [[engine]] needs a name")
		return
	}
	var e *hardware.Engine
	for i := range dev.Engines {
		if dev.Engines[i].Name == re.Name {
			e = &dev.Engines[i]
		}
	}
	if e == nil {
		dev.Engines = append(dev.Engines, hardware.Engine{Name: re.Name, Peaks: map[units.Precision]float64{}})
		e = &dev.Engines[len(dev.Engines)-1]
	} else if !variant {
		d.errorf("engine", "engine %q is defined twice", re.Name)
		return
	}
	if re.Kind != "" {
		e.Kind = hardware.Kind(re.Kind)
	}
	key := "engine." + e.Name
	if v, ok := d.quantity(dev, key+".power", re.Power, units.DimPower); ok {
		e.Power = v
	}
	if v, ok := d.quantity(dev, key+".idle_power", re.IdlePower, units.DimPower); ok {
		e.IdlePower = v
	}
	if u := re.Units; u != nil {
		if u.Value < 1 || u.Value != math.Trunc(u.Value) || u.Value > 1e6 {
			d.errorf(key+".units", "engine %s units must be a whole number of compute units, got %g", e.Name, u.Value)
		} else {
			e.Units = int(u.Value)
		}
		if strings.TrimSpace(u.Source) == "" {
			d.errorf(key+".units", "%s.units = %g has no source: every number in a profile cites where it comes from", key, u.Value)
		}
		dev.Sources[key+".units"] = u.Source
	}
	if v, ok := d.quantity(dev, key+".clock", re.Clock, units.DimFrequency); ok {
		e.Clock = v
	}
	if v, ok := d.quantity(dev, key+".min_clock", re.MinClock, units.DimFrequency); ok {
		switch {
		case !(v >= limits.Clock.Min):
			d.errorf(key+".min_clock", "%s.min_clock = %q: a clock is from 1 MHz", key, re.MinClock.Value)
		case e.Clock <= 0 || v > e.Clock:
			d.errorf(key+".min_clock", "%s.min_clock = %q needs the engine's clock (its maximum) at or above it", key, re.MinClock.Value)
		default:
			e.MinClock = v
		}
	}
	if cc := re.CC; cc != nil {
		if !(cc.Value >= 1 && cc.Value < 100) {
			d.errorf(key+".compute_capability", "engine %s compute_capability must be a CUDA compute capability such as 5.3 or 8.7, got %g", e.Name, cc.Value)
		} else {
			e.ComputeCapability = cc.Value
		}
		if strings.TrimSpace(cc.Source) == "" {
			d.errorf(key+".compute_capability", "%s.compute_capability = %g has no source: every number in a profile cites where it comes from", key, cc.Value)
		}
		dev.Sources[key+".compute_capability"] = cc.Source
	}
	if v, ok := d.quantity(dev, key+".l2_cache", re.L2Cache, units.DimBytes); ok {
		e.L2Cache = v
	}
	if b := re.Int8Dot; b != nil {
		switch {
		case b.Value == nil:
			d.errorf(key+".int8_dot", "%s.int8_dot needs a value: true when the engine has int8 dot-product instructions (SDOT, VNNI), false when it has none", key)
		case strings.TrimSpace(b.Source) == "":
			d.errorf(key+".int8_dot", "%s.int8_dot = %t has no source: every figure in a profile cites where it comes from", key, *b.Value)
		default:
			e.NoInt8Dot = !*b.Value
			dev.Sources[key+".int8_dot"] = b.Source
		}
	}
	precs := make([]string, 0, len(re.Peak))
	for p := range re.Peak {
		precs = append(precs, p)
	}
	sort.Strings(precs)
	for _, p := range precs {
		prec, err := units.ParsePrecision(p)
		if err != nil {
			d.errorf(p, "engine %s peak: %v", e.Name, err)
			continue
		}
		s := re.Peak[p]
		if v, ok := d.quantity(dev, key+".peak."+p, &s, units.DimRate); ok {
			e.Peaks[prec] = v
		}
	}
	if c := re.Calibration; c != nil {
		e.Calibration = d.calibration(e.Name, c)
		dev.Sources[key+".calibration"] = c.Source
	}
}

// calibration decodes [engine.calibration].
func (d *deviceDecoder) calibration(engine string, c *rawCalibration) *hardware.Calibration {
	if strings.TrimSpace(c.Runtime) == "" {
		d.errorf("calibration", "engine %s: [engine.calibration] needs the runtime its runs were measured under", engine)
	}
	if strings.TrimSpace(c.Source) == "" {
		d.errorf("calibration", "engine %s: [engine.calibration] needs a source saying which runs it was fitted to", engine)
	}
	dur := func(key, v string) float64 {
		if v == "" {
			return 0
		}
		x, err := parseQuantity(v, units.DimDuration)
		if err != nil {
			d.errorf(key, "engine %s calibration %s: %v", engine, key, err)
		}
		return x
	}
	cal := &hardware.Calibration{Runtime: c.Runtime,
		Efficiency: hardware.Efficiency{Bandwidth: c.Bandwidth, ComputeMax: c.ComputeMax, HalfRows: c.HalfRows, Attention: c.Attention, Dequant: orOne(c.Dequant),
			StepOverhead: dur("step_overhead", c.StepOverhead), PassOverhead: dur("pass_overhead", c.PassOverhead), LayerOverhead: dur("layer_overhead", c.LayerOverhead),
			UnitBandwidth: d.optional("unit_bandwidth", engine, c.UnitBandwidth, units.DimBandwidth),
			UnitCompute:   d.optional("unit_compute", engine, c.UnitCompute, units.DimRate), HostWork: c.HostWork, KQuantGEMV: c.KQuantGEMV, ReadShare: c.ReadShare},
		FormatBandwidth: c.FormatBandwidth, Cov: padCovariance(c.Covariance),
		DecodeSigma: c.DecodeSigma, PrefillSigma: c.PrefillSigma, DecodeDOF: c.DecodeDOF, PrefillDOF: c.PrefillDOF,
		Device: c.Device, PowerMode: c.PowerMode, Engine: c.Engine, Build: c.Build, Date: c.Date, Files: c.Files, Formats: c.Formats,
		MaxBatch: c.MaxBatch, DecodePoints: c.DecodePoints, PrefillPoints: c.PrefillPoints, R2Decode: orNaN(c.R2Decode), R2Prefill: orNaN(c.R2Prefill),
		LOODecode: orNaN(c.LOODecode), LOOPrefill: orNaN(c.LOOPrefill), Prior: c.Prior, DecodeShift: orNaN(c.DecodeShift), PrefillShift: orNaN(c.PrefillShift)}
	for f := range c.FormatBandwidth {
		if _, err := model.LookupWeightFormat(f); err != nil {
			d.errorf(f, "engine %s calibration format_bandwidth: %v", engine, err)
		}
	}
	if c.DecodeSigma < 0 || c.PrefillSigma < 0 {
		d.errorf("calibration", "engine %s: calibration sigmas must not be negative", engine)
	}
	return cal
}

// orNaN is a fit statistic, NaN (undefined) when absent: the encoder
// leaves out what a fit could not define.
func orNaN(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// orOne is v, or 1 when absent (a share that defaults to no penalty).
func orOne(v float64) float64 {
	if v == 0 {
		return 1
	}
	return v
}

// optional parses a calibration's optional quantity: 0 when absent.
func (d *deviceDecoder) optional(key, engine, v string, dim units.Dimension) float64 {
	if v == "" {
		return 0
	}
	x, err := parseQuantity(v, dim)
	if err != nil {
		d.errorf(key, "engine %s calibration %s: %v", engine, key, err)
	}
	return x
}

// parseQuantity reads a profile quantity, which must carry its unit (a
// bare "1008" is not taken as 1008 B/s): the parser of the command line's
// quantity flags.
func parseQuantity(s string, d units.Dimension) (float64, error) {
	return units.ParseQuantity(s, d)
}

func setStr(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// padCovariance reads a calibration's covariance written before the
// efficiency had its last parameters (9 of them before unit_compute and
// host_work, 11 before kquant_gemv, 12 before read_share): those rows and columns are zero,
// parameters held.
func padCovariance(cov []float64) []float64 {
	n := len(hardware.ParameterNames)
	old := 0
	for _, k := range []int{9, 11, 12} {
		if len(cov) == k*k && k < n {
			old = k
		}
	}
	if old == 0 {
		return cov
	}
	out := make([]float64, n*n)
	for i := 0; i < old; i++ {
		copy(out[i*n:i*n+old], cov[i*old:(i+1)*old])
	}
	return out
}

// nvlinkNames lists the built-in links of kind nvlink.
func nvlinkNames() []string {
	var out []string
	for _, l := range hardware.Links {
		if l.Kind == hardware.NVLink {
			out = append(out, l.Name)
		}
	}
	return out
}
