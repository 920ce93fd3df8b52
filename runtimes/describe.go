package runtimes

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/units"
)

// Rule is one of a runtime's rules in words, with the source the profile
// cites for it: what `roofline show runtime` prints and the runtime table
// of docs/formats.md tabulates.
type Rule struct {
	// Key names the rule as the profile does ("layout.window_cache").
	Key string
	// Topic groups rules for a table: formats, engines, window, window
	// cache, MLA, head, embeddings, batching, memory, kernels.
	Topic string
	// Value is the rule in words.
	Value  string
	Source string
}

// Rule topics, in the order Rules lists them.
const (
	TopicFormats    = "formats"
	TopicEngines    = "engines"
	TopicWindow     = "sliding window"
	TopicWindowKV   = "window cache"
	TopicMLA        = "MLA cache"
	TopicHead       = "head"
	TopicEmbeddings = "embeddings"
	TopicBatching   = "batching"
	TopicMemory     = "memory"
	TopicParallel   = "split"
	TopicKernels    = "kernel precision"
)

// Rules lists the runtime's rules in words, each with its source. A
// layout rule the profile leaves out is priced as the model is published
// and listed as not stated, with no source; head and embedding storage
// then follow the weight format, whose source is the formats'.
func (r *Runtime) Rules() []Rule {
	var out []Rule
	add := func(key, topic, value string) {
		src, ok := r.Sources[key]
		switch {
		case ok:
		case key == "layout.head" || key == "layout.embedding":
			src = r.Sources["formats"]
		default:
			value = "not stated: " + value
		}
		out = append(out, Rule{Key: key, Topic: topic, Value: value, Source: src})
	}
	def := r.DefaultWeights
	if def == Native {
		def = "the model's checkpoint"
	}
	formats := fmt.Sprintf("weights %s (default %s); KV %s (default %s)", strings.Join(r.Weights, ", "), def, strings.Join(r.KV, ", "), r.DefaultKV)
	add("formats", TopicFormats, formats)
	if len(r.CheckpointWeights) > 0 {
		var pairs []string
		for from, to := range r.CheckpointWeights {
			pairs = append(pairs, fmt.Sprintf("a model published in %s runs as %s", from, to))
		}
		sort.Strings(pairs)
		add("checkpoint_weights", TopicFormats, strings.Join(pairs, "; "))
	}
	for _, e := range r.Engines {
		v, key := string(e.Kind), "engine."+string(e.Kind)
		if e.Backend != "" {
			v, key = v+" through "+e.Backend, "engine."+e.Backend
		}
		if len(e.Families) > 0 {
			v += " (" + strings.Join(e.Families, ", ") + ")"
		}
		add(key, TopicEngines, v)
	}
	add("layout.sliding_window", TopicWindow, r.windowText())
	add("layout.window_cache", TopicWindowKV, r.windowCacheText())
	add("layout.mla_cache", TopicMLA, mlaText(r.Layout.MLA))
	head := "as the weight format stores it"
	if h := r.Layout.Head; h.Name != "" {
		head = h.Name
	}
	add("layout.head", TopicHead, head)
	emb := "as the weight format stores it"
	if e := r.Layout.Embedding; e.Name != "" {
		emb = e.Name
		if r.Layout.UntieEmbedding {
			emb += ", a table of its own for tied models too"
		}
	}
	add("layout.embedding", TopicEmbeddings, emb)
	host := "on the device"
	if r.Layout.HostEmbedding {
		host = "an untied input table stays in host memory"
	}
	add("layout.host_embedding", TopicEmbeddings, host)
	batching := "continuous: requests join the running batch"
	if !r.ContinuousBatching {
		batching = "none: requests queue, one sequence at a time"
	}
	add("continuous_batching", TopicBatching, batching)
	add("memory_overhead", TopicMemory, units.FormatBytes(r.MemoryOverhead, units.Binary)+" beyond weights, KV cache and activations")
	if _, ok := r.Sources["memory_share"]; ok {
		add("memory_share", TopicMemory, fmt.Sprintf("%.0f %% of usable memory", 100*r.MemoryShare))
	}
	if len(r.Parallel) > 0 {
		add("parallel", TopicParallel, "splits a model by "+strings.Join(r.Parallel, ", "))
	} else {
		add("parallel", TopicParallel, "runs a model on one device only")
	}
	for i, k := range r.Kernels {
		ps := make([]string, len(k.Compute))
		for j, p := range k.Compute {
			ps[j] = string(p)
		}
		add(fmt.Sprintf("kernel.%d", i), TopicKernels, fmt.Sprintf("%s on %s: %s", strings.Join(k.Formats, ", "), k.Kind, strings.Join(ps, " > ")))
	}
	return out
}

// ClassLabels lists the classes the runtime's efficiency comes from, in
// the order of its engines: a backend with a class of its own (cuda,
// metal), else the engine kind (gpu, cpu, npu), each once.
func (r *Runtime) ClassLabels() []string {
	var out []string
	for _, e := range r.Engines {
		l := string(e.Kind)
		if _, ok := r.Classes[e.Backend]; ok && e.Backend != "" {
			l = e.Backend
		}
		if !containsString(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// ClassByLabel is the class ClassLabels names: a backend's, or an engine
// kind's (its prior when not fitted).
func (r *Runtime) ClassByLabel(label string) *Class {
	if c, ok := r.Classes[label]; ok {
		return c
	}
	return r.Class(hardware.Kind(label))
}

func (r *Runtime) windowText() string {
	if containsString(r.WindowArchitectures, AllArchitectures) {
		return "honoured for every model"
	}
	if len(r.WindowArchitectures) == 0 {
		return "never honoured: full attention"
	}
	return "honoured for " + strings.Join(r.WindowArchitectures, ", ") + "; full attention for other models"
}

func (r *Runtime) windowCacheText() string {
	l := r.Layout
	switch l.WindowCache {
	case model.WindowFull:
		return "every token (sized for the whole context)"
	case model.WindowPlusUBatch:
		v := "window + micro-batch"
		switch {
		case l.WindowOffset < 0:
			v = fmt.Sprintf("window − %d + micro-batch", -l.WindowOffset)
		case l.WindowOffset > 0:
			v = fmt.Sprintf("window + %d + micro-batch", l.WindowOffset)
		}
		if l.WindowPad > 1 {
			v += fmt.Sprintf(", rounded up to %d", l.WindowPad)
		}
		if l.WindowExtraBlocks > 0 {
			v += fmt.Sprintf(", plus %d × %d", l.WindowExtraBlocks, l.WindowPad)
		}
		return v
	}
	return "the window"
}

func mlaText(m model.MLACache) string {
	switch m {
	case model.MLALatentV:
		return "latent and V (kv_lora_rank + rope + kv_lora_rank)"
	case model.MLAExpanded:
		return "expanded per-head K and V"
	}
	return "latent (kv_lora_rank + rope)"
}

// refTag matches a reference tag such as [L1] or [V10].
var refTag = regexp.MustCompile(`\[[A-Z][A-Z0-9]*\]`)

// Tags lists the reference tags a source cites, in order, once each.
func Tags(source string) []string {
	var out []string
	for _, t := range refTag.FindAllString(source, -1) {
		if !containsString(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
