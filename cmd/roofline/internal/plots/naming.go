package plots

import (
	"fmt"
	"strings"
)

// MaxFacets is the most small multiples one figure draws.
const MaxFacets = 12

// Dim is one dimension along which series can differ: device, engine,
// model, weights, KV format.
type Dim struct {
	Name   string // for messages: "device"
	Prefix string // before the value in a title: "weights "
}

// Naming says how to name a set of series: the facet and legend label of
// each, and what they all share (for the title).
type Naming struct {
	By     string   // the dimensions the facets follow ("device and model"); "" for one panel
	Facets []string // per series; "" when By is ""
	Labels []string // per series: the varying dimensions but By, joined by " · "
	Common string   // the dimensions that do not vary, with their prefixes
}

// Name names series whose values along dims are keys[i] (one value per
// dim). Series are labelled by the dimensions that vary and the others go
// in the title. Up to MaxSeries series share one panel; more are faceted
// by the first varying dimension (in dims order) that leaves at most
// MaxSeries series in each of at most MaxFacets facets, else by the first
// two that do (three devices × three models × three formats: a panel per
// device and model), or, when only one dimension varies, left for the
// figure to split in order.
func Name(dims []Dim, keys [][]string) (Naming, error) { return NameBy(dims, keys, nil) }

// NameBy is Name with the facets chosen: by, when not empty, lists the
// dims to facet by, however many series there are, one panel per
// combination of their values with at most MaxSeries series in each of at
// most MaxFacets panels (an error names the counts otherwise); an empty
// by chooses as Name does.
func NameBy(dims []Dim, keys [][]string, by []int) (Naming, error) {
	var n Naming
	if len(keys) == 0 {
		return n, fmt.Errorf("no series")
	}
	varies := make([]bool, len(dims))
	var common []string
	for d := range dims {
		for _, k := range keys {
			varies[d] = varies[d] || k[d] != keys[0][d]
		}
		if !varies[d] {
			common = append(common, dims[d].Prefix+keys[0][d])
		}
	}
	n.Common = strings.Join(common, ", ")
	for _, d := range by {
		if d < 0 || d >= len(dims) {
			return n, fmt.Errorf("no dimension %d to facet by", d)
		}
	}
	nvary := 0
	for _, v := range varies {
		if v {
			nvary++
		}
	}
	if len(keys) > MaxSeries*MaxFacets {
		return n, fmt.Errorf("%d series cannot be drawn legibly: at most %d per panel in at most %d panels", len(keys), MaxSeries, MaxFacets)
	}
	// count is how many facets dims ds give and the most series in one.
	count := func(ds []int) (facets, most int) {
		c := map[string]int{}
		for _, k := range keys {
			key := ""
			for _, d := range ds {
				key += k[d] + "\x00"
			}
			c[key]++
			most = max(most, c[key])
		}
		return len(c), most
	}
	names := func(ds []int) string {
		var s []string
		for _, d := range ds {
			s = append(s, dims[d].Name)
		}
		return strings.Join(s, " and ")
	}
	var facetBy []int
	if len(by) > 0 {
		facets, most := count(by)
		if most > MaxSeries || facets > MaxFacets {
			panels := fmt.Sprintf("%d panels of up to %d series", facets, most)
			if facets == 1 {
				panels = fmt.Sprintf("one panel of %d series", most)
			}
			return n, fmt.Errorf("facets by %s give %s; at most %d panels of %d series are legible", names(by), panels, MaxFacets, MaxSeries)
		}
		for _, d := range by {
			if varies[d] { // one value: no panels of its own
				facetBy = append(facetBy, d)
			}
		}
	} else if len(keys) > MaxSeries && nvary > 1 {
		var tries [][]int
		for d := range dims {
			if varies[d] {
				tries = append(tries, []int{d})
			}
		}
		singles := len(tries)
		for i := range singles {
			for j := i + 1; j < singles; j++ {
				tries = append(tries, []int{tries[i][0], tries[j][0]})
			}
		}
		var tried []string
		for ti, ds := range tries {
			facets, most := count(ds)
			if most <= MaxSeries && facets <= MaxFacets {
				facetBy = ds
				break
			}
			if ti < singles {
				tried = append(tried, fmt.Sprintf("by %s: %d facets of up to %d", names(ds), facets, most))
			}
		}
		if facetBy == nil {
			return n, fmt.Errorf("%d series cannot be drawn legibly: at most %d per panel in at most %d panels (%s; no two dimensions do either)",
				len(keys), MaxSeries, MaxFacets, strings.Join(tried, "; "))
		}
	}
	n.By = names(facetBy)
	// With one varying dimension the builders split the series into
	// panels of at most MaxSeries in order (Curve.Facet empty).
	// Within facets, a dimension that the facet settles (the engine of a
	// device) is not repeated in the labels, so one model has one colour
	// in every facet.
	in := make([]bool, len(dims))
	for _, d := range facetBy {
		in[d] = true
	}
	label := varies
	if len(facetBy) > 0 {
		label = make([]bool, len(dims))
		for d := range dims {
			first := map[string]string{}
			for _, k := range keys {
				fk := ""
				for _, b := range facetBy {
					fk += k[b] + "\x00"
				}
				v, ok := first[fk]
				if !ok {
					first[fk] = k[d]
				} else if v != k[d] {
					label[d] = !in[d]
				}
			}
		}
	}
	n.Facets = make([]string, len(keys))
	n.Labels = make([]string, len(keys))
	for i, k := range keys {
		var parts, facet []string
		for d := range dims {
			switch {
			case in[d], len(facetBy) > 0 && varies[d] && !label[d]:
				facet = append(facet, k[d])
			case label[d]:
				parts = append(parts, k[d])
			}
		}
		n.Facets[i] = strings.Join(facet, " · ")
		n.Labels[i] = strings.Join(parts, " · ")
	}
	return n, nil
}
