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
	By     string   // the dimension the facets follow; "" for one panel
	Facets []string // per series; "" when By is ""
	Labels []string // per series: the varying dimensions but By, joined by " · "
	Common string   // the dimensions that do not vary, with their prefixes
}

// Name names series whose values along dims are keys[i] (one value per
// dim). Series are labelled by the dimensions that vary and the others go
// in the title. Up to MaxSeries series share one panel; more are faceted
// by the first varying dimension (in dims order) that leaves at most
// MaxSeries series in each of at most MaxFacets facets, or, when only one
// dimension varies, left for the figure to split in order.
func Name(dims []Dim, keys [][]string) (Naming, error) { return NameBy(dims, keys, -1) }

// NameBy is Name with the facets chosen: by ≥ 0 facets by dims[by],
// however many series there are, one panel per value with at most
// MaxSeries series in each of at most MaxFacets panels (an error names
// the counts otherwise); by < 0 chooses as Name does.
func NameBy(dims []Dim, keys [][]string, by int) (Naming, error) {
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
	forced := by >= 0 && by < len(dims)
	if !forced {
		by = -1
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
	if forced {
		count := map[string]int{}
		most := 0
		for _, k := range keys {
			count[k[by]]++
			most = max(most, count[k[by]])
		}
		if most > MaxSeries || len(count) > MaxFacets {
			panels := fmt.Sprintf("%d panels of up to %d series", len(count), most)
			if len(count) == 1 {
				panels = fmt.Sprintf("one panel of %d series", most)
			}
			return n, fmt.Errorf("facets by %s give %s; at most %d panels of %d series are legible", dims[by].Name, panels, MaxFacets, MaxSeries)
		}
		if !varies[by] {
			by = -1 // one value: one panel
		} else {
			n.By = dims[by].Name
		}
	} else if len(keys) > MaxSeries && nvary > 1 {
		var tried []string
		for d := range dims {
			if !varies[d] {
				continue
			}
			count := map[string]int{}
			most := 0
			for _, k := range keys {
				count[k[d]]++
				most = max(most, count[k[d]])
			}
			if most <= MaxSeries && len(count) <= MaxFacets {
				by = d
				break
			}
			tried = append(tried, fmt.Sprintf("by %s: %d facets of up to %d", dims[d].Name, len(count), most))
		}
		if by < 0 {
			return n, fmt.Errorf("%d series cannot be drawn legibly: at most %d per panel in at most %d panels (%s)",
				len(keys), MaxSeries, MaxFacets, strings.Join(tried, "; "))
		}
		n.By = dims[by].Name
	}
	// With one varying dimension the builders split the series into
	// panels of at most MaxSeries in order (Curve.Facet empty).
	// Within facets, a dimension that the facet settles (the engine of a
	// device) is not repeated in the labels, so one model has one colour
	// in every facet.
	label := varies
	if by >= 0 {
		label = make([]bool, len(dims))
		for d := range dims {
			first := map[string]string{}
			for _, k := range keys {
				v, ok := first[k[by]]
				if !ok {
					first[k[by]] = k[d]
				} else if v != k[d] {
					label[d] = d != by
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
			case d == by, by >= 0 && varies[d] && !label[d]:
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
