package render

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/roofline/roofline/safeio"
)

// A report's results.json and results.csv hold every configuration of the
// plan, which grows as the product of devices, models, formats, contexts
// and batches. They are written here one value at a time, so memory stays
// flat however many configurations there are.

// jsonStream writes a JSON document as json.MarshalIndent (indent two
// spaces) would, with some arrays supplied one element at a time.
type jsonStream struct {
	w   *bufio.Writer
	err error
}

func (j *jsonStream) raw(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
	}
}

// value writes v at indentation prefix; a NaN or an infinity is written as
// null rather than failing the document.
func (j *jsonStream) value(prefix string, v any) {
	if j.err != nil {
		return
	}
	b, err := json.MarshalIndent(v, prefix, "  ")
	var uv *json.UnsupportedValueError
	if errors.As(err, &uv) {
		b, err = json.MarshalIndent(safeio.Finite(v), prefix, "  ")
	}
	if err != nil {
		j.err = err
		return
	}
	_, j.err = j.w.Write(b)
}

// elems writes an array whose elements each yields, at prefix.
func elems[T any](j *jsonStream, prefix string, each func(yield func(T) error) error) {
	n := 0
	err := each(func(v T) error {
		if n == 0 {
			j.raw("[\n" + prefix + "  ")
		} else {
			j.raw(",\n" + prefix + "  ")
		}
		n++
		j.value(prefix+"  ", v)
		return j.err
	})
	if j.err == nil {
		j.err = err
	}
	if n == 0 {
		j.raw("[]")
	} else {
		j.raw("\n" + prefix + "]")
	}
}

// object writes struct v (a struct or a pointer to one) field by field in
// the order and with the keys of its json tags; streamed names fields
// written by a function instead of from their value.
func (j *jsonStream) object(prefix string, v any, streamed map[string]func(prefix string)) {
	rv := reflect.Indirect(reflect.ValueOf(v))
	rt := rv.Type()
	j.raw("{")
	first := true
	for i := range rt.NumField() {
		f := rt.Field(i)
		key, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if key == "-" || !f.IsExported() {
			continue
		}
		if key == "" {
			key = f.Name
		}
		fv := rv.Field(i)
		if strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		if !first {
			j.raw(",")
		}
		first = false
		j.raw(fmt.Sprintf("\n%s  %q: ", prefix, key))
		if s, ok := streamed[key]; ok {
			s(prefix + "  ")
			continue
		}
		j.value(prefix+"  ", fv.Interface())
	}
	if first {
		j.raw("}")
		return
	}
	j.raw("\n" + prefix + "}")
}

// writeResultsJSON streams results.json: r with the plan's
// configurations taken from the plan one at a time.
func (rep *report) writeResultsJSON(w io.Writer, r *ReportJSON) error {
	j := &jsonStream{w: bufio.NewWriterSize(w, 1<<16)}
	j.object("", r, map[string]func(string){
		"plan": func(prefix string) {
			j.object(prefix, &r.Plan, map[string]func(string){
				"configs": func(prefix string) { elems(j, prefix, rep.planConfigs) },
			})
		},
	})
	j.raw("\n")
	if j.err != nil {
		return j.err
	}
	return j.w.Flush()
}

// planConfigs yields every configuration of the plan in the JSON
// vocabulary, building one at a time.
func (rep *report) planConfigs(yield func(PlanConfigJSON) error) error {
	p := rep.Plan
	for gi := range p.Groups {
		g := &p.Groups[gi]
		for _, c := range g.Configs {
			if err := yield(newPlanConfigJSON(g, c, p.Targets)); err != nil {
				return err
			}
		}
	}
	return nil
}
