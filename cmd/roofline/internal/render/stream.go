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

// jsonStream writes a JSON document as json.MarshalIndent (indent two
// spaces) would, in pieces: objects field by field and arrays element by
// element, so a document larger than memory can be written.
type jsonStream struct {
	w   *bufio.Writer
	err error
}

func newJSONStream(w io.Writer) *jsonStream { return &jsonStream{w: bufio.NewWriterSize(w, 1<<16)} }

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
	_, j.err = j.w.Write(jsonPrintable(b))
}

// flush ends the document.
func (j *jsonStream) flush() error {
	j.raw("\n")
	if j.err != nil {
		return j.err
	}
	return j.w.Flush()
}

// jsonObject is an object being written.
type jsonObject struct {
	j      *jsonStream
	prefix string
	n      int
}

func (j *jsonStream) object(prefix string) *jsonObject {
	j.raw("{")
	return &jsonObject{j: j, prefix: prefix}
}

// key starts the field k; its value follows at o.inner().
func (o *jsonObject) key(k string) {
	if o.n > 0 {
		o.j.raw(",")
	}
	o.n++
	o.j.raw(fmt.Sprintf("\n%s  %q: ", o.prefix, k))
}

func (o *jsonObject) inner() string { return o.prefix + "  " }

func (o *jsonObject) field(k string, v any) {
	o.key(k)
	o.j.value(o.inner(), v)
}

// fields writes the fields of struct v (or a pointer to one) in the order
// and with the keys of its json tags, from the field keyed from (the first
// when "") up to, not including, the one keyed to (the last when "").
func (o *jsonObject) fields(v any, from, to string) {
	rv := reflect.Indirect(reflect.ValueOf(v))
	rt := rv.Type()
	on := from == ""
	for i := range rt.NumField() {
		f := rt.Field(i)
		key, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if key == "-" || !f.IsExported() {
			continue
		}
		if key == "" {
			key = f.Name
		}
		if key == to && to != "" {
			return
		}
		if key == from {
			on = true
		}
		fv := rv.Field(i)
		if !on || strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		if fv.Kind() == reflect.Slice && !fv.IsNil() {
			// Element by element: one long array is never one buffer.
			o.key(key)
			a := o.j.array(o.inner())
			for e := range fv.Len() {
				a.elem(fv.Index(e).Interface())
			}
			a.close()
			continue
		}
		o.field(key, fv.Interface())
	}
}

func (o *jsonObject) close() {
	if o.n == 0 {
		o.j.raw("}")
		return
	}
	o.j.raw("\n" + o.prefix + "}")
}

// jsonArray is an array being written.
type jsonArray struct {
	j      *jsonStream
	prefix string
	n      int
}

func (j *jsonStream) array(prefix string) *jsonArray { return &jsonArray{j: j, prefix: prefix} }

func (a *jsonArray) elem(v any) error {
	if a.n == 0 {
		a.j.raw("[\n" + a.prefix + "  ")
	} else {
		a.j.raw(",\n" + a.prefix + "  ")
	}
	a.n++
	a.j.value(a.prefix+"  ", v)
	return a.j.err
}

func (a *jsonArray) close() {
	if a.n == 0 {
		a.j.raw("[]")
		return
	}
	a.j.raw("\n" + a.prefix + "]")
}
