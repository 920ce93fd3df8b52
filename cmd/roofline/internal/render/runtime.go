package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/units"
)

// RuntimeList is `roofline list runtimes`.
func RuntimeList(rs []*runtimes.Runtime) Answer {
	return answer{
		doc: func() *Doc {
			t := NewTable("NAME", "ENGINES", "WEIGHTS", "BATCHING", "DESCRIPTION")
			for _, r := range rs {
				batching := "continuous"
				if !r.ContinuousBatching {
					batching = "queues"
				}
				t.Add(r.Name, engineKinds(r), strings.Join(r.Weights, ", "), batching, r.Description)
			}
			doc := &Doc{}
			doc.Table(t)
			return doc
		},
		data: func() any {
			out := []runtimeJSON{}
			for _, r := range rs {
				out = append(out, newRuntimeJSON(r))
			}
			return out
		},
	}
}

func engineKinds(r *runtimes.Runtime) string {
	return strings.Join(kinds(r), ", ")
}

// kinds are the engine kinds the runtime runs on, each once.
func kinds(r *runtimes.Runtime) []string {
	var ks []string
	for _, e := range r.Engines {
		if k := string(e.Kind); !containsString(ks, k) {
			ks = append(ks, k)
		}
	}
	return ks
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

type ruleJSON struct {
	Key    string `json:"key"`
	Topic  string `json:"topic"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

type runtimeClassJSON struct {
	Class      string             `json:"class"`
	Fitted     bool               `json:"fitted"`
	Basis      string             `json:"basis"`
	Efficiency efficiencyJSON     `json:"efficiency"`
	SE         map[string]float64 `json:"standard_errors,omitempty"`
	Decode     [2]float64         `json:"decode_interval"`
	Prefill    [2]float64         `json:"prefill_interval"`
}

type runtimeJSON struct {
	Name               string             `json:"name"`
	Aliases            []string           `json:"aliases,omitempty"`
	Description        string             `json:"description"`
	Weights            []string           `json:"weights"`
	KV                 []string           `json:"kv"`
	DefaultWeights     string             `json:"default_weights"`
	DefaultKV          string             `json:"default_kv"`
	CheckpointWeights  map[string]string  `json:"checkpoint_weights,omitempty"`
	EngineKinds        []string           `json:"engine_kinds"`
	ContinuousBatching bool               `json:"continuous_batching"`
	MemoryOverheadB    float64            `json:"memory_overhead_bytes"`
	MemoryShare        float64            `json:"memory_share"`
	Rules              []ruleJSON         `json:"rules"`
	Classes            []runtimeClassJSON `json:"efficiency"`
	References         []string           `json:"references"`
	File               string             `json:"file"`
}

func newRuntimeJSON(r *runtimes.Runtime) runtimeJSON {
	j := runtimeJSON{Name: r.Name, Aliases: r.Aliases, Description: r.Description, Weights: r.Weights, KV: r.KV,
		DefaultWeights: r.DefaultWeights, DefaultKV: r.DefaultKV, CheckpointWeights: r.CheckpointWeights,
		ContinuousBatching: r.ContinuousBatching, MemoryOverheadB: r.MemoryOverhead, MemoryShare: r.MemoryShare,
		References: r.References, File: r.File, Rules: []ruleJSON{}, Classes: []runtimeClassJSON{}}
	j.EngineKinds = kinds(r)
	for _, rule := range r.Rules() {
		j.Rules = append(j.Rules, ruleJSON{rule.Key, rule.Topic, rule.Value, rule.Source})
	}
	for _, label := range r.ClassLabels() {
		c := r.ClassByLabel(label)
		cj := runtimeClassJSON{Class: label, Fitted: c.Fitted, Basis: c.Basis,
			Efficiency: newEfficiencyJSON(c.Efficiency),
			Decode:     [2]float64{c.Decode.Low, c.Decode.High}, Prefill: [2]float64{c.Prefill.Low, c.Prefill.High}}
		if len(c.SE) == len(hardware.ParameterNames) {
			cj.SE = map[string]float64{}
			for i, n := range hardware.ParameterNames {
				cj.SE[n] = c.SE[i]
			}
		}
		j.Classes = append(j.Classes, cj)
	}
	return j
}

// ShowRuntime is `roofline show runtime`: every rule in words with its
// source, the efficiency per engine kind, and the references.
func ShowRuntime(r *runtimes.Runtime) Answer {
	return answer{doc: func() *Doc { return runtimeDoc(r) }, data: func() any { return newRuntimeJSON(r) }}
}

func runtimeDoc(r *runtimes.Runtime) *Doc {
	doc := &Doc{}
	pairs := [][2]string{{"runtime", r.Name}, {"description", r.Description}}
	if len(r.Aliases) > 0 {
		pairs = append(pairs, [2]string{"aliases", strings.Join(r.Aliases, ", ")})
	}
	pairs = append(pairs, [2]string{"file", r.File})
	doc.Pairs(pairs)
	doc.Both("\nrules:\n")
	t := NewTable("TOPIC", "RULE", "SOURCE")
	for _, rule := range r.Rules() {
		src := rule.Source
		if src == "" {
			src = "—"
		}
		t.Add(rule.Topic, rule.Value, src)
	}
	doc.Table(t)
	doc.Both("\nefficiency per engine kind or backend (docs/method.md §6):\n")
	et := NewTable("CLASS", "η_BW", "η_MAX", "M½", "η_ATTN", "STEP", "PASS", "LAYER", "DECODE 80%", "PREFILL 80%", "BASIS").Right(1, 2, 3, 4, 5, 6, 7)
	for _, label := range r.ClassLabels() {
		c := r.ClassByLabel(label)
		e := c.Efficiency
		et.Add(label, units.Sig(e.Bandwidth, 3), units.Sig(e.ComputeMax, 3), units.Sig(e.HalfRows, 4), units.Sig(e.Attention, 3),
			Duration(e.StepOverhead), Duration(e.PassOverhead), Duration(e.LayerOverhead),
			fmt.Sprintf("×%.2f–%.2f", c.Decode.Low, c.Decode.High), fmt.Sprintf("×%.2f–%.2f", c.Prefill.Low, c.Prefill.High), c.Basis)
	}
	doc.Table(et)
	if len(r.References) > 0 {
		doc.Both("\nreferences:\n")
		refs := append([]string(nil), r.References...)
		sort.SliceStable(refs, func(i, j int) bool { return refKey(refs[i]) < refKey(refs[j]) })
		for _, ref := range refs {
			doc.Both("  " + ref + "\n")
		}
	}
	return doc
}

// refKey orders [L2] before [L10].
func refKey(ref string) string {
	tags := runtimes.Tags(ref)
	if len(tags) == 0 {
		return ref
	}
	t := strings.Trim(tags[0], "[]")
	i := strings.IndexAny(t, "0123456789")
	if i < 0 {
		return t
	}
	return fmt.Sprintf("%s%04s", t[:i], t[i:])
}

type roleChangeJSON struct {
	Role      string  `json:"role"`
	Tensors   int     `json:"tensors"`
	FromBytes float64 `json:"recipe_bytes"`
	ToBytes   float64 `json:"file_bytes"`
}

type fileFitJSON struct {
	FileBytes   float64          `json:"file_bytes"`
	RecipeBytes float64          `json:"recipe_bytes"`
	Within      bool             `json:"within_tolerance"`
	Absorbed    bool             `json:"absorbed"`
	Factor      float64          `json:"factor"`
	Changes     []roleChangeJSON `json:"changes"`
	// Untied: the file stores the head apart from the embedding table
	// (model.FileFit.Untied), UntiedBytes that reading's recipe.
	Untied      bool    `json:"untied"`
	UntiedBytes float64 `json:"untied_recipe_bytes,omitempty"`
}

func newFileFitJSON(f *model.FileFit) *fileFitJSON {
	j := &fileFitJSON{FileBytes: f.FileBytes, RecipeBytes: f.RecipeBytes, Within: f.Within, Absorbed: f.Absorbed, Factor: f.Factor, Changes: []roleChangeJSON{}, Untied: f.Untied, UntiedBytes: f.UntiedBytes}
	for _, c := range f.Changes {
		j.Changes = append(j.Changes, roleChangeJSON{string(c.Role), c.Tensors, c.From, c.To})
	}
	return j
}

// FittedModel is `roofline show model --file-size`: the model as Model
// shows it, matched to a file's size, with which tensors absorbed how much.
func FittedModel(mc *model.Cost, fit *model.FileFit) Answer {
	return answer{
		doc: func() *Doc {
			doc := modelDoc(mc)
			doc.Both("\n" + resolve.FitNote(*fit, mc.Weights.Name) + "\n")
			if fit.Within || !fit.Absorbed {
				return doc
			}
			t := NewTable("ROLE", "TENSORS", "RECIPE", "FILE", "CHANGE").Right(1, 2, 3, 4)
			for _, c := range fit.Changes {
				t.Add(string(c.Role), fmt.Sprint(c.Tensors), Bytes(c.From), Bytes(c.To), SignedBytes(c.To-c.From))
			}
			doc.Table(t)
			return doc
		},
		data: func() any {
			return struct {
				modelJSON
				FileFit *fileFitJSON `json:"file_fit"`
			}{newModelJSON(mc), newFileFitJSON(fit)}
		},
	}
}
