package model

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestQualityTableCoversEveryFormat(t *testing.T) {
	table, err := QualityTable()
	if err != nil {
		t.Fatal(err)
	}
	if len(table) != len(WeightFormats) {
		t.Fatalf("%d entries for %d formats", len(table), len(WeightFormats))
	}
	for i, q := range table {
		f := WeightFormats[i]
		switch {
		case q.Format != f.Name:
			t.Errorf("entry %d is %q, want %q", i, q.Format, f.Name)
		case !q.Known && strings.TrimSpace(q.Unknown) == "":
			t.Errorf("%s: unknown without a reason", f.Name)
		case q.Known && q.DerivedFrom == "" && !strings.Contains(q.Source, "https://"):
			t.Errorf("%s: source %q has no address", f.Name, q.Source)
		case q.Known && q.DerivedFrom != "" && q.Derived == "":
			t.Errorf("%s: derived from %s without saying why", f.Name, q.DerivedFrom)
		case q.Known && !q.Reference && q.Model == "":
			t.Errorf("%s: figures without the model they were measured on", f.Name)
		}
		if strings.Contains(q.Source, "stored") || strings.Contains(q.Source, " id ") {
			t.Errorf("%s: internal id in the source %q", f.Name, q.Source)
		}
		// Aliases answer as their format.
		for _, a := range f.Aliases {
			if qa, err := FormatQuality(a); err != nil || qa.Format != f.Name {
				t.Errorf("alias %s: %+v, %v", a, qa, err)
			}
		}
	}
	var unknown *UnknownError
	if _, err := FormatQuality("q9_z"); !errors.As(err, &unknown) {
		t.Errorf("unknown format: %v", err)
	}
	if q, err := FormatQuality(FileWeightsName); err != nil || q.Known || !strings.Contains(q.Unknown, "file type") {
		t.Errorf("file: %+v, %v", q, err)
	}
}

func TestQualityFigures(t *testing.T) {
	cases := []struct {
		format string
		loss   float64
		kld    float64
		metric string
	}{
		// Q4_K_M on Llama-3-8B: PPL 6.407115 with ΔPPL 0.175482 over a 16-bit
		// PPL of 6.407115 − 0.175482 = 6.231633: 0.175482 / 6.231633 =
		// 2.8160 % (the scoreboard's PPL ratio, 1.028160).
		{"q4_k_m", 0.175482 / 6.231633, 0.031273, MetricPPL},
		// Q8_0: 0.002650 / (6.234284 − 0.002650) = 0.04252 %.
		{"q8_0", 0.002650 / 6.231634, 0.001355, MetricPPL},
		// Q2_K: 3.519934 / (9.751568 − 3.519934) = 56.485 %.
		{"q2_k", 3.519934 / 6.231634, 0.445132, MetricPPL},
		// w4a16 (GPTQ) on Llama-3.1-8B-Instruct: 1 − 67.57 / 69.32 = 2.5245 %.
		{"w4a16", 1 - 67.57/69.32, 0, MetricAccuracy},
		// fp8: 1 − 73.44 / 73.79 = 0.4743 %.
		{"fp8", 1 - 73.44/73.79, 0, MetricAccuracy},
		// w8a8: 1 − 62.71 / 63.03 = 0.5077 %.
		{"w8a8", 1 - 62.71/63.03, 0, MetricAccuracy},
		// q4f16_1 takes Q4_0's figures: 0.468514 / (6.700147 − 0.468514).
		{"q4f16_1", 0.468514 / 6.231633, 0.071940, MetricPPL},
	}
	for _, c := range cases {
		q, err := FormatQuality(c.format)
		if err != nil {
			t.Fatal(err)
		}
		if !q.Known || q.Metric != c.metric || math.Abs(q.Loss-c.loss) > 1e-6 || q.KLD != c.kld {
			t.Errorf("%s: %+v; want loss %.6f, KLD %g, metric %s", c.format, q, c.loss, c.kld, c.metric)
		}
	}
	if q, _ := FormatQuality("q4f16_1"); q.DerivedFrom != "q4_0" || !strings.Contains(q.Derived, "groups of 32") {
		t.Errorf("q4f16_1 derivation: %+v", q)
	}
	for _, f := range []string{"f32", "f16", "mxfp4"} {
		if q, _ := FormatQuality(f); !q.Reference || q.Loss != 0 {
			t.Errorf("%s is not the reference: %+v", f, q)
		}
	}
	for _, f := range []string{"mlx-q4", "q4_k"} {
		if q, _ := FormatQuality(f); q.Known || q.Unknown == "" {
			t.Errorf("%s should be explicitly unknown: %+v", f, q)
		}
	}
}

// More bits never lose more quality within one family of the scoreboard,
// and the comparison refuses what does not compare.
func TestQualityOrdering(t *testing.T) {
	chains := [][]string{
		{"f16", "bf16", "q8_0", "q6_k", "q5_k_m", "q5_k_s", "q4_k_m", "q4_k_s", "q3_k_l", "q3_k_m", "q3_k_s", "q2_k"},
		{"q8_0", "q5_1", "q5_0", "q4_1", "q4_0"},
		{"q4_k_m", "iq4_nl", "iq4_xs", "q4_0"},
		{"fp8", "w4a16"},
		{"w8a8", "w4a16"},
	}
	for _, chain := range chains {
		for i := 1; i < len(chain); i++ {
			a, _ := FormatQuality(chain[i-1])
			b, _ := FormatQuality(chain[i])
			if better, ok := a.Better(b); !ok || !better {
				t.Errorf("%s (loss %.4g) should beat %s (loss %.4g): better %v, comparable %v", a.Format, a.Loss, b.Format, b.Loss, better, ok)
			}
			if worse, _ := b.Better(a); worse {
				t.Errorf("%s beats %s both ways", b.Format, a.Format)
			}
		}
	}
	// KL divergence agrees with the perplexity order on the K-quant chain.
	prev := -1.0
	for _, f := range chains[0][2:] {
		q, _ := FormatQuality(f)
		if q.KLD <= prev {
			t.Errorf("%s: KLD %g not above %g", f, q.KLD, prev)
		}
		prev = q.KLD
	}
	ppl, _ := FormatQuality("q4_k_m")
	acc, _ := FormatQuality("w4a16")
	unk, _ := FormatQuality("mlx-q4")
	if _, ok := ppl.Better(acc); ok {
		t.Error("a perplexity loss compared with an accuracy loss")
	}
	if _, ok := ppl.Better(unk); ok {
		t.Error("a known format compared with an unknown one")
	}
}

func TestQualityDecoderIsStrict(t *testing.T) {
	good := string(qualityTOML)
	cases := []struct {
		name, edit, want string
	}{
		{"unknown key", strings.Replace(good, `delta_ppl = 0.175482`, "delta_ppl = 0.175482\nkdl = 0.03", 1), `unknown key "format.kdl"`},
		{"unknown format", good + "\n[[format]]\nname = \"q9_z\"\nunknown = \"x\"\n", `unknown weight format "q9_z"`},
		{"alias", good + "\n[[format]]\nname = \"gptq-int4\"\nunknown = \"x\"\n", `write the format's name "w4a16"`},
		{"duplicate", good + "\n[[format]]\nname = \"q8_0\"\nunknown = \"x\"\n", "q8_0 is listed twice"},
		{"missing", strings.Replace(good, "name = \"q6_k\"", "name = \"q6_k_gone\"", 1), "unknown weight format"},
		{"no source", strings.Replace(good, "kld = 0.031273\nsource = \"Q1\"", "kld = 0.031273\nsource = \"Q9\"", 1), `source "Q9" is not one of [sources]`},
		{"negative ppl rise", strings.Replace(good, "delta_ppl = 0.175482", "delta_ppl = -0.175482", 1), "leaves a 16-bit perplexity"},
		{"score above 100", strings.Replace(good, "score = 67.57", "score = 167.57", 1), "scores are percentages"},
		{"two kinds", strings.Replace(good, "name = \"q4_k\"\n", "name = \"q4_k\"\nreference = \"x\"\n", 1), "exactly one of"},
		{"same_as without reason", strings.Replace(good, "same_as = \"q8_0\"\nderived = ", "same_as = \"q8_0\"\nnote = ", 1), "same_as needs derived"},
		{"same_as an unknown", strings.Replace(good, "same_as = \"q4_0\"", "same_as = \"mlx-q4\"", 1), `same_as "mlx-q4" has no figures`},
		{"figures without metric", strings.Replace(good, "name = \"q5_k\"\n", "name = \"q5_k\"\nppl = 6.5\n", 1), "figures need a metric"},
		{"nan", strings.Replace(good, "score = 73.44", "score = nan", 1), "gives score and score_reference"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.edit == good {
				t.Fatal("the edit did not apply")
			}
			_, err := decodeQuality([]byte(c.edit))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("want an error containing %q, got %v", c.want, err)
			}
		})
	}
}

func FuzzDecodeQuality(f *testing.F) {
	f.Add(qualityTOML)
	f.Add([]byte("[[format]]\nname = \"q8_0\"\nmetric = \"ppl\"\nppl = 1e308\ndelta_ppl = -1e308\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		table, err := decodeQuality(src)
		if err != nil {
			return
		}
		for name, q := range table {
			if q.Known && (math.IsNaN(q.Loss) || math.IsInf(q.Loss, 0)) {
				t.Errorf("%s: loss %g", name, q.Loss)
			}
		}
	})
}

// TestQualityBands: bands per metric, never a comparison across, ranked
// by their distance from the model itself. The losses are quality.toml's:
// q8_0 0.0425 %, q4_k_m 2.816 %, q4_0 7.518 %, q2_k 56.5 % (perplexity);
// w8a8 0.508 %, w4a16 2.525 % (accuracy); with a 3-point tolerance and
// every format counted:
//
//	perplexity: a band from 0.0425 % to 3.0425 % (q8_0, q4_k_m): rank
//	            floor(0.0425 / 3) = 0; from q4_0's 7.518 %: rank 2; from
//	            q2_k's 56.5 %: rank 18
//	accuracy:   a band from 0.508 % (w8a8, w4a16): rank 0
//
// With f16 counted (a reference: 0 on every metric) both bands open at 0,
// and the same formats fall in them. Counting only q4_0 and w4a16 (those
// that meet the targets), the perplexity band opens at q4_0's 7.518 %
// (rank 2, q2_k's next at 18); q8_0 and q4_k_m lose less and rank by their
// own distance, 0.
func TestQualityBands(t *testing.T) {
	q := func(name string) Quality {
		t.Helper()
		v, err := FormatQuality(name)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	names := []string{"q8_0", "q4_k_m", "q4_0", "q2_k", "w8a8", "w4a16", "f16", "q4_k"}
	all := make([]Quality, len(names))
	for i, n := range names {
		all[i] = q(n)
	}
	for _, c := range []struct {
		name    string
		counted []bool
		want    []int
	}{
		{"all counted", []bool{true, true, true, true, true, true, false, true}, []int{0, 0, 2, 18, 0, 0, 0, NoBand}},
		{"with f16", []bool{true, true, true, true, true, true, true, true}, []int{0, 0, 2, 18, 0, 0, 0, NoBand}},
		{"q4_0 and w4a16 count", []bool{false, false, true, false, false, true, false, false}, []int{0, 0, 2, 18, 0, 0, 0, NoBand}},
	} {
		b := NewQualityBands(all, c.counted, 0.03)
		for i, n := range names {
			if got := b.Band(all[i]); got != c.want[i] {
				t.Errorf("%s: %s in band %d, want %d", c.name, n, got, c.want[i])
			}
		}
	}
	if all[0].Comparable(all[4]) || !all[0].Comparable(all[1]) || !all[4].Comparable(all[6]) {
		t.Error("perplexity and accuracy compared, or a metric with itself or the reference not")
	}
	if q("q4_k_m").Borrowed("llama-3-8b") || !q("q4_k_m").Borrowed("qwen2.5-1.5b") || !q("q4_k_m").Borrowed("llama-3.1-8b") ||
		q("w8a8").Borrowed("llama-3.1-8b") || q("f16").Borrowed("qwen2.5-1.5b") {
		t.Errorf("borrowed: measured on %q and %q", q("q4_k_m").MeasuredOn(), q("w8a8").MeasuredOn())
	}
}
