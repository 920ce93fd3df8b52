package profiles

import (
	"sort"
	"strings"
)

// Suggest returns up to three known names close to name: those containing
// it, and those within a small edit distance.
func Suggest(name string, known []string) []string {
	n := strings.ToLower(name)
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	limit := len(n)/3 + 1
	if limit < 2 {
		limit = 2
	}
	for _, k := range known {
		kl := strings.ToLower(k)
		d := levenshtein(n, kl)
		if strings.Contains(kl, n) || strings.Contains(n, kl) {
			d = min(d, 1)
		}
		if d <= limit {
			cs = append(cs, cand{k, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
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
