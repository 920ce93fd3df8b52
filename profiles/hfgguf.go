package profiles

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
)

// hfRef is a Hugging Face model as a user names it:
// [hf.co/]ORG/NAME[@REVISION][:SELECT], SELECT a quantization (Q4_K_M) or
// a file of the repository (…-Q4_K_M.gguf), as Ollama's hf.co/ names
// and llama.cpp's -hf take them.
type hfRef struct {
	ID, Rev, Select string
}

var hfRefName = regexp.MustCompile(`^(?:(?:hf\.co|huggingface\.co)/)?([A-Za-z0-9][A-Za-z0-9._-]*)/([A-Za-z0-9][A-Za-z0-9._-]*)(?:@([A-Za-z0-9._/-]+))?(?::([A-Za-z0-9._/-]+))?$`)

// parseHFRef reads name as a Hugging Face reference.
func parseHFRef(name string) (hfRef, bool) {
	m := hfRefName.FindStringSubmatch(strings.TrimSpace(name))
	if m == nil {
		return hfRef{}, false
	}
	for _, p := range m[2:] {
		if strings.Contains(p, "..") || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
			return hfRef{}, false
		}
	}
	return hfRef{ID: m[1] + "/" + m[2], Rev: m[3], Select: m[4]}, true
}

// String is the reference as a user writes it.
func (r hfRef) String() string {
	s := r.ID
	if r.Rev != "" {
		s += "@" + r.Rev
	}
	if r.Select != "" {
		s += ":" + r.Select
	}
	return s
}

// withRev is the id with its revision, as findHFCached takes it.
func (r hfRef) withRev() string {
	if r.Rev == "" {
		return r.ID
	}
	return r.ID + "@" + r.Rev
}

// quantToken finds GGUF file types in a file name: Q4_K_M, IQ4_XS, Q8_0,
// F16, BF16, MXFP4 …, between separators.
var quantToken = regexp.MustCompile(`(?i)(?:^|[-._])((?:u?d-)?(?:i?q[0-9](?:_[a-z0-9]+)*|f16|bf16|f32|fp16|mxfp4(?:_moe)?))(?:[-._]|$)`)

var splitPart = regexp.MustCompile(`(?i)-(\d{5})-of-(\d{5})\.gguf$`)

// ggufCandidates are the model files among a repository's files: GGUF
// files, not vision projectors, one per split set (its first part).
func ggufCandidates(files []string) []string {
	var out []string
	for _, f := range files {
		base := strings.ToLower(path.Base(f))
		if !strings.HasSuffix(base, ".gguf") || strings.Contains(base, "mmproj") {
			continue
		}
		if m := splitPart.FindStringSubmatch(base); m != nil && m[1] != "00001" {
			continue
		}
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// quantsOf lists the file types the candidates' names say.
func quantsOf(files []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		if q := quantOf(f); q != "" && !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	sort.Strings(out)
	return out
}

func quantOf(file string) string {
	base := strings.TrimSuffix(path.Base(file), path.Ext(file))
	base = splitPart.ReplaceAllString(base+".gguf", "")
	base = strings.TrimSuffix(base, ".gguf")
	ms := quantToken.FindAllStringSubmatch(base, -1)
	if len(ms) == 0 {
		return ""
	}
	return strings.ToUpper(ms[len(ms)-1][1])
}

// defaultQuant is the file type taken from a GGUF repository when none
// is named: Q4_K_M, as 'ollama run hf.co/ORG/NAME' and llama.cpp's -hf
// do (Hugging Face, docs/hub/ollama.md: "By default, the Q4_K_M
// quantization scheme is used").
const defaultQuant = "Q4_K_M"

// pickGGUF chooses the file of a GGUF repository id that sel names: a
// file (…​.gguf, by its path or base name), a file type (Q8_0, matched
// between separators in the name, any case), or, with sel empty, the
// only model file, else the Q4_K_M one. note says how it was chosen when
// it was a choice.
func pickGGUF(id string, files []string, sel string) (file, note string, err error) {
	cands := ggufCandidates(files)
	if strings.HasSuffix(strings.ToLower(sel), ".gguf") {
		for _, f := range files {
			if strings.EqualFold(f, sel) || strings.EqualFold(path.Base(f), sel) {
				return f, "", nil
			}
		}
		return "", "", fmt.Errorf("%s has no file %s; its GGUF files: %s", id, sel, listOr(cands, "none"))
	}
	if sel == "" {
		switch {
		case len(cands) == 1:
			return cands[0], "", nil
		case len(cands) == 0:
			return "", "", fmt.Errorf("%s has no config.json and no .gguf file: roofline reads one or the other", id)
		}
		sel = defaultQuant
		if f := matchQuant(cands, sel); len(f) == 1 {
			return f[0], fmt.Sprintf("%s holds %d GGUF files: read %s, the Q4_K_M one, as 'ollama run hf.co/%s' and llama.cpp's -hf choose by default; name another as %s:QUANT (%s)",
				id, len(cands), f[0], id, id, strings.Join(quantsOf(cands), ", ")), nil
		}
		return "", "", fmt.Errorf("%s holds %d GGUF files and none is Q4_K_M: name one as %s:QUANT (%s) or %s:FILE.gguf (%s)",
			id, len(cands), id, listOr(quantsOf(cands), "none found in the names"), id, listFirst(cands, 12))
	}
	switch f := matchQuant(cands, sel); len(f) {
	case 1:
		return f[0], "", nil
	case 0:
		qs := quantsOf(cands)
		msg := fmt.Sprintf("%s has no %s file; its file types: %s", id, sel, listOr(qs, "none found in the names"))
		if s := Suggest(sel, qs); len(s) > 0 {
			msg += fmt.Sprintf("; did you mean %s:%s?", id, s[0])
		}
		return "", "", fmt.Errorf("%s", msg)
	default:
		return "", "", fmt.Errorf("%s has %d files of type %s (%s): name one as %s:FILE.gguf", id, len(f), sel, strings.Join(f, ", "), id)
	}
}

// matchQuant is the candidates whose name holds quantization q between
// separators.
func matchQuant(cands []string, q string) []string {
	var out []string
	for _, f := range cands {
		base := strings.ToLower(path.Base(f))
		for _, m := range quantToken.FindAllStringSubmatch(base, -1) {
			if strings.EqualFold(m[1], q) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

func listOr(s []string, none string) string {
	if len(s) == 0 {
		return none
	}
	return strings.Join(s, ", ")
}

// listFirst lists up to n names, saying how many more there are.
func listFirst(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(s[:n], ", "), len(s)-n)
}
