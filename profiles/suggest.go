package profiles

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/roofline/roofline/model"
)

// DidYouMean adds the nearest known names to an unknown format or
// runtime name (a *model.UnknownError anywhere in err's chain): "unknown
// weight format "q4km"; did you mean q4_k_m?", or every known name when
// none is near. Other errors pass as they are.
func DidYouMean(err error) error {
	var ue *model.UnknownError
	if !errors.As(err, &ue) {
		return err
	}
	if s := Suggest(ue.Name, ue.Known); len(s) > 0 {
		return fmt.Errorf("%w; did you mean %s?", err, strings.Join(s, ", "))
	}
	return fmt.Errorf("%w (known: %s)", err, strings.Join(ue.Known, ", "))
}

// Suggest returns up to three known names close to name: those containing
// it, and those within a small edit distance.
func Suggest(name string, known []string) []string {
	named := make([]Named, len(known))
	for i, k := range known {
		named[i] = Named{Name: k}
	}
	return SuggestNamed(name, named)
}

// Named is a profile known by a name and aliases.
type Named struct {
	Name    string
	Aliases []string
}

// SuggestNamed is Suggest over profiles known by names and aliases: each
// profile is suggested once, by the spelling closest to name; an alias is
// followed by the profile's name ("rock-5b (rk3588)").
func SuggestNamed(name string, known []Named) []string {
	n := strings.ToLower(name)
	type cand struct {
		text string
		d    int
	}
	var cs []cand
	// A suggestion must keep something of what was typed: one that
	// changes as many letters as name has ("f32" for "q3") is no nearer
	// than any other, and the caller lists the known names instead.
	limit := min(max(len(n)/3+1, 2), len([]rune(n))-1)
	for _, k := range known {
		best := cand{d: limit + 1}
		for i, spelling := range append([]string{k.Name}, k.Aliases...) {
			d := distance(n, strings.ToLower(spelling))
			if d < best.d { // ties keep the name, then the first alias
				best = cand{spelling, d}
				if i > 0 {
					best.text = spelling + " (" + k.Name + ")"
				}
			}
		}
		if best.d <= limit {
			cs = append(cs, best)
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].text < cs[j].text
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].text)
	}
	return out
}

// distance is the edit distance between two lower-case spellings, at most
// 1 when one contains the other (of three letters or more: "d" is in
// too many words to suggest), or when a two-letter name begins it.
func distance(n, k string) int {
	if squeeze(n) == squeeze(k) {
		return 0 // q4km is q4_k_m, rk-3588 rk3588
	}
	d := levenshtein(n, k)
	if min(len(n), len(k)) >= 3 && (strings.Contains(k, n) || strings.Contains(n, k)) {
		d = min(d, 1)
	}
	if len(n) == 2 && strings.HasPrefix(k, n) {
		d = min(d, 1) // q8 begins q8_0
	}
	return d
}

// squeeze drops the separators people leave out or put in.
func squeeze(s string) string {
	return strings.NewReplacer("_", "", "-", "", ".", "", " ", "").Replace(s)
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
