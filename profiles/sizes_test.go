package profiles

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/roofline/roofline/model"
)

// TestPublishedFileSizes prices each model under the runtime and format
// it was published in, with the runtime's layout, and compares the
// weights with the file's published size (testdata/published-sizes.csv,
// each row with its URL).
func TestPublishedFileSizes(t *testing.T) {
	f, err := os.Open("testdata/published-sizes.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, row := range rows[1:] {
		name, rtName, weights, size, unit, tol := row[0], row[1], row[2], row[3], row[4], row[5]
		spec, err := cat.Model(name)
		if err != nil {
			t.Fatal(err)
		}
		rt, err := cat.Runtime(rtName)
		if err != nil {
			t.Fatal(err)
		}
		w, err := spec.WeightsFor(weights)
		if err != nil {
			t.Fatal(err)
		}
		kv, _ := model.LookupKVFormat("f16")
		c, err := model.Build(spec, w, kv, rt.LayoutFor(spec, w.Name))
		if err != nil {
			t.Fatal(err)
		}
		v, _ := strconv.ParseFloat(size, 64)
		scale := 1e9
		if strings.EqualFold(unit, "GiB") {
			scale = 1 << 30
		}
		want := v * scale
		limit, _ := strconv.ParseFloat(tol, 64)
		rel := c.WeightBytes/want - 1
		t.Logf("%-14s %-9s %-9s %.4g GB priced, %.4g GB published (%+.2f%%)", name, rtName, weights, c.WeightBytes/1e9, want/1e9, 100*rel)
		if math.Abs(rel) > limit {
			t.Errorf("%s under %s %s: priced %.4g B, published %.4g B (%+.2f%%, limit %.1f%%)", name, rtName, weights, c.WeightBytes, want, 100*rel, 100*limit)
		}
		n++
	}
	if n < 5 {
		t.Errorf("only %d published sizes", n)
	}
}
