package plots_test

import (
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/cmd/roofline/internal/plots"
	"github.com/roofline/roofline/cmd/roofline/internal/study"
	"github.com/roofline/roofline/profiles"
)

// TestReportFigures extends TestGallery to the figures of real reports:
// issue 28's study of three boards × three models × three formats with a
// Jetson's llama-bench file (cmd/roofline/testdata/boards-study.toml) and
// the documented examples, each figure drawn by the app at the size the report draws it and
// checked as the gallery's are: plot areas, overlapping text, text off
// the figure, hidden series, tick labels, every measured run labelled
// inside a panel.
func TestReportFigures(t *testing.T) {
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file     string
		figures  int
		measured map[string]int // runs each figure draws
	}{
		{"../../testdata/boards-study.toml", 6, map[string]int{"roofline": 6, "tpot-context": 4, "ttft-prompt": 2}},
		{"../../../../docs/examples/voice-assistant-boards.toml", 4, nil},
		{"../../../../docs/examples/voice-assistant.toml", 4, nil},
		{"../../../../docs/examples/llama-bench-rtx4080.toml", 3, map[string]int{"roofline": 2, "tpot-context": 1}},
	} {
		st, err := study.Load(c.file)
		if err != nil {
			t.Fatal(err)
		}
		env, err := study.Check(&app.Env{Catalog: cat}, st)
		if err != nil {
			t.Fatal(err)
		}
		r, err := study.Run(env, st, func(string) {}, func(*plan.Group) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Figures) != c.figures || len(r.Skipped) != 0 {
			t.Errorf("%s: %d figures drawn, %v skipped; want %d", c.file, len(r.Figures), r.Skipped, c.figures)
		}
		for _, f := range r.Figures {
			t.Run(filepath.Base(c.file)+"/"+f.Kind.Name, func(t *testing.T) {
				w, h := 16*vg.Centimeter, 10*vg.Centimeter
				if f.Kind.Tall {
					h = 14 * vg.Centimeter
				}
				measured := 0
				for _, d := range f.Data {
					if d.Quantity == "measured" {
						measured++
					}
				}
				if want := c.measured[f.Kind.Name]; measured != want {
					t.Errorf("%d measured runs drawn; want %d", measured, want)
				}
				plots.CheckFigure(t, f.Figure.Figure, w, f.Height(w, h))
			})
		}
	}
}
