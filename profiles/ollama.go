package profiles

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/roofline/roofline/gguf"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/ollama"
)

// OllamaTag is one of Ollama's library tags that roofline maps to a
// built-in model, with the quantization of the tag's file and where that
// comes from.
type OllamaTag struct {
	// Library is the name in Ollama's library ("llama3.2").
	Library string
	// Sizes are the tags' first words that name this model ("3b"), with
	// "latest" when it is the library's default tag.
	Sizes []string
	// Model is the built-in model.
	Model string
	// Weights is the weight format of the tag's file; "" when roofline
	// could not source it, and assumes q4_k_m, Ollama's usual default.
	Weights string
	// Source says where Weights comes from.
	Source string
}

// The public records of Ollama's tags: 'ollama list' and 'ollama show'
// output, with the files' digests and sizes, committed by
// attogram/ollama-bash-lib in demos/list.md and demos/show.md.
const (
	attogramList = "'ollama list' in attogram/ollama-bash-lib demos/list.md at a08e61a (2025-07-31)"
	attogramShow = "'ollama show' in attogram/ollama-bash-lib demos/show.md"
)

// OllamaTags are the library tags roofline maps (docs/profiles.md,
// "Naming models"). A tag's quantization is sourced where a public record
// of the tag's file says it; where none was found, Weights is empty and
// the prediction says the quantization was assumed.
var OllamaTags = []OllamaTag{
	{"llama3.2", []string{"3b", "latest"}, "llama-3.2-3b", "q4_k_m", attogramList + ": llama3.2:3b a80c4f17acd5, 2,019,393,189 B, Q4_K_M"},
	{"llama3.2", []string{"1b"}, "llama-3.2-1b", "q8_0", attogramList + ": llama3.2:1b baf6a787fdff, 1,321,098,329 B, Q8_0"},
	{"llama3.1", []string{"8b", "latest"}, "llama-3.1-8b", "", ""},
	{"llama3.1", []string{"70b"}, "llama-3.1-70b", "", ""},
	{"qwen2.5", []string{"7b", "latest"}, "qwen2.5-7b", "q4_k_m", "'ollama show' output quoted in public repositories: qwen2.5:7b is 845dbda0ea48, a 4,683,073,952 B file, 7.6B Q4_K_M (not checked against the registry)"},
	{"qwen2.5", []string{"3b"}, "qwen2.5-3b", "", ""},
	{"qwen2.5", []string{"1.5b"}, "qwen2.5-1.5b", "", ""},
	{"qwen2.5", []string{"0.5b"}, "qwen2.5-0.5b", "", ""},
	{"qwen3", []string{"0.6b"}, "qwen3-0.6b", "q4_k_m", attogramList + ": qwen3:0.6b 7df6b6e09427, 522,653,767 B, Q4_K_M"},
	{"qwen3", []string{"4b"}, "qwen3-4b", "q4_k_m", attogramList + ": qwen3:4b 2bfd38a7daaf, 2,620,788,260 B, Q4_K_M"},
	{"qwen3", []string{"30b", "30b-a3b"}, "qwen3-30b-a3b", "", ""},
	{"gemma2", []string{"2b"}, "gemma-2-2b", "q4_0", "'ollama show' output quoted in a public repository: gemma2:2b, 2.6B, Q4_0 (not checked against the registry)"},
	{"gemma2", []string{"9b", "latest"}, "gemma-2-9b", "q4_0", "'ollama show' output quoted in a public repository: gemma2 (9b), 9.2B, Q4_0 (not checked against the registry)"},
	{"gemma3", []string{"1b"}, "gemma-3-1b", "q4_k_m", attogramList + ": gemma3:1b 8648f39daa8f, 815,319,791 B, Q4_K_M"},
	{"gemma3", []string{"4b", "latest"}, "gemma-3-4b", "q4_k_m", "'ollama list' in attogram/ollama-bash-lib demos/list.md at 8fa47b3 (2025-08-06): gemma3:4b a2af6cc3eb7f, 3,338,801,804 B (the vision encoder included), Q4_K_M"},
	{"smollm2", []string{"1.7b", "latest"}, "smollm2-1.7b", "q8_0", "'ollama list' in attogram/ollama-bash-lib demos/list.md at c0ec0de (2025-07-31): smollm2:1.7b cef4a1e09247, 1,820,428,533 B, Q8_0"},
	{"phi3", []string{"mini", "3.8b", "latest"}, "phi-3-mini", "q4_0", "'ollama list' output quoted in public repositories: phi3:mini is 4f2222927938, a 2,176,178,913 B file, Q4_0 (not checked against the registry)"},
	{"mistral", []string{"7b", "latest"}, "mistral-7b", "q4_k_m", "'ollama list' in attogram/ollama-bash-lib demos/list.md at 077cf45 (2025-08-03): mistral:7b 6577803aa9a0, 4,372,824,384 B, Q4_K_M; a pull before July 2025 is f974a74358d6, 4,113,301,824 B, Q4_0 (give mistral:7b-instruct-q4_0 for it)"},
	{"gpt-oss", []string{"20b", "latest"}, "gpt-oss-20b", "mxfp4", attogramShow + " at 17eaa48 (2025-08-18): gpt-oss:20b, MXFP4"},
	{"gpt-oss", []string{"120b"}, "gpt-oss-120b", "mxfp4", attogramShow + " at 2cf51a9 (2025-08-18): gpt-oss:120b, MXFP4"},
	{"deepseek-v3", []string{"671b", "latest"}, "deepseek-v3", "", ""},
}

// assumedWeights is the quantization taken for a tag whose file's is not
// sourced.
const assumedWeights = "q4_k_m"

// quantWord reads like a quantization: q4_K_M, q8_0, fp16, bf16, iq4_xs,
// mxfp4, … (and near misses of them, which are then checked).
var quantWord = regexp.MustCompile(`(?i)^(i?q[0-9].*|fp?(16|32)|bf16|mxfp4.*)$`)

// ollamaQuant maps the spellings of Ollama's tags to weight formats.
var ollamaQuant = map[string]string{"fp16": "f16", "fp32": "f32"}

// isOllamaName reports whether name reads as an Ollama name roofline
// should look up: MODEL:TAG, a name with the registry's host or the
// library's namespace, or the name of a library roofline maps.
// NAMESPACE/MODEL:TAG is Ollama's only when the store holds it
// (hasOllamaManifest): else it is a Hugging Face GGUF repository.
func isOllamaName(name string) bool {
	l := strings.ToLower(name)
	if strings.HasPrefix(l, ollama.DefaultHost+"/") || strings.HasPrefix(l, ollama.DefaultNamespace+"/") {
		return true
	}
	if strings.Contains(name, ":") && !strings.Contains(name, "/") {
		return true
	}
	for _, t := range OllamaTags {
		if strings.EqualFold(t.Library, name) {
			return true
		}
	}
	return false
}

// hasOllamaManifest reports whether the local store holds name (a
// namespaced name, ORG/NAME:TAG, may be Ollama's or the Hub's).
func hasOllamaManifest(name string) bool {
	n, err := ollama.ParseName(name)
	if err != nil {
		return false
	}
	_, err = ollama.Blob(ollama.ModelsDir(), n)
	return err == nil || !errors.Is(err, ollama.ErrNotPulled)
}

// modelFromOllama reads the model an Ollama name names: the GGUF file of
// the local store's manifest when the model is pulled (exact), else the
// built-in model the tag maps to, with the tag's quantization (sourced,
// spelled in the tag, or assumed, and said so).
func (c *Catalog) modelFromOllama(name string, nf *NotFoundError) (*model.Spec, error) {
	n, err := ollama.ParseName(name)
	if err != nil {
		return nil, err
	}
	shown := n.String()
	implies := &model.NameImplies{Runtime: "llama.cpp", RuntimeWhy: "the model is an Ollama tag, and Ollama runs llama.cpp"}
	dir := ollama.ModelsDir()
	blob, err := ollama.Blob(dir, n)
	switch {
	case err == nil:
		m, err := gguf.Load(blob)
		if err != nil {
			return nil, fmt.Errorf("%s in the Ollama store (%s): %w", shown, blob, err)
		}
		s := m.Spec
		s.Name = shown
		s.Source = fmt.Sprintf("GGUF header of %s in the local Ollama store (blobs/%s)", shown, filepath.Base(blob))
		s.Named = implies
		return s, nil
	case !errors.Is(err, ollama.ErrNotPulled):
		return nil, err
	}
	if !n.Library() {
		nf.Detail = fmt.Sprintf("not a built-in name, and %v; roofline maps only the tags of Ollama's library", err)
		return nil, nf
	}
	tag, w, why, err := c.ollamaTag(n)
	if err != nil {
		return nil, err
	}
	base, err := c.modelNamed(tag.Model)
	if err != nil {
		return nil, fmt.Errorf("the Ollama tag %s maps to %s: %w", shown, tag.Model, err)
	}
	s := *base
	s.Name, s.Aliases = shown, nil
	s.FileNotes = append(append([]string(nil), base.FileNotes...),
		fmt.Sprintf("%s is Ollama's tag of the built-in %s; it is not pulled here (%s has no manifest for it), so the model is priced from the catalog in the tag's quantization", shown, base.Name, storeShown(dir)))
	implies.Weights, implies.Why = w.weights, why
	implies.Explicit = w.explicit
	s.Named = implies
	return &s, nil
}

func storeShown(dir string) string {
	if dir == "" {
		return "no Ollama store (set OLLAMA_MODELS)"
	}
	return "the Ollama store " + dir
}

// tagWeights is a tag's weight format and whether the tag spells it.
type tagWeights struct {
	weights  string
	explicit bool
}

// ollamaTag finds the mapping of library name n and its weights, with
// why in words: a tag is SIZE[-VARIANT…][-QUANT] (3b, 7b-instruct-q8_0,
// mini-4k-instruct, latest).
func (c *Catalog) ollamaTag(n ollama.Name) (*OllamaTag, tagWeights, string, error) {
	words := strings.Split(strings.ToLower(n.Tag), "-")
	size := words[0]
	var quant string
	if last := words[len(words)-1]; len(words) > 1 && quantWord.MatchString(last) {
		quant = last
		words = words[:len(words)-1]
	}
	var lib []*OllamaTag
	var tag *OllamaTag
	for i := range OllamaTags {
		t := &OllamaTags[i]
		if !strings.EqualFold(t.Library, n.Model) {
			continue
		}
		lib = append(lib, t)
		for _, sz := range t.Sizes {
			if sz == size || (len(words) > 1 && sz == words[0]+"-"+words[1]) {
				tag = t
			}
		}
	}
	shown := n.String()
	if tag == nil {
		return nil, tagWeights{}, "", c.unknownTag(n, lib)
	}
	if quant != "" {
		name := quant
		if w, ok := ollamaQuant[quant]; ok {
			name = w
		}
		f, err := model.LookupWeightFormat(name)
		if err != nil {
			return nil, tagWeights{}, "", fmt.Errorf("the Ollama tag %s: its suffix -%s is no quantization roofline knows: %w", shown, quant, DidYouMean(err))
		}
		return tag, tagWeights{f.Name, true}, fmt.Sprintf("the tag's suffix -%s says so", quant), nil
	}
	if tag.Weights == "" {
		return tag, tagWeights{assumedWeights, false}, fmt.Sprintf("assumed Q4_K_M (Ollama's usual default; not verified for this tag); a tag with a suffix (%s:%s-instruct-q8_0) names another", n.Model, tag.Sizes[0]), nil
	}
	return tag, tagWeights{tag.Weights, false}, fmt.Sprintf("the quantization of Ollama's %s (%s)", shown, tag.Source), nil
}

// unknownTag is a library name or tag roofline does not map, with the
// nearest ones it does.
func (c *Catalog) unknownTag(n ollama.Name, lib []*OllamaTag) error {
	shown := n.String()
	var known []string
	for _, t := range OllamaTags {
		for _, sz := range t.Sizes {
			known = append(known, t.Library+":"+sz)
		}
	}
	sort.Strings(known)
	nf := &NotFoundError{Kind: "model", Name: shown, Suggestions: Suggest(shown, known)}
	if len(lib) > 0 {
		var tags []string
		for _, t := range lib {
			for _, sz := range t.Sizes {
				tags = append(tags, n.Model+":"+sz)
			}
		}
		nf.Detail = fmt.Sprintf("roofline maps these tags of Ollama's %s: %s; a tag adds -VARIANT and -QUANT to one of them (%s-instruct-q8_0)", n.Model, strings.Join(tags, ", "), tags[0])
	} else {
		nf.Detail = fmt.Sprintf("not a built-in name, not pulled into %s, and not a library tag roofline maps (docs/profiles.md lists them)", storeShown(ollama.ModelsDir()))
	}
	return nf
}
