package model

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Quality is what a weight format costs a model in quality, as published:
// the measure the planner ranks formats by ("the best quality a user would
// actually deploy"), never bits per weight alone.
type Quality struct {
	Format string
	// Known is false when no published figure exists; Unknown says why.
	Known   bool
	Unknown string
	// Reference is true for formats that are the model itself (16-bit and
	// wider, or the format a model was published in): their Loss is 0.
	Reference bool
	// Metric names what Loss measures: MetricPPL or MetricAccuracy; empty
	// for a reference.
	Metric string
	// Loss is the relative quality lost, a fraction: the rise of wikitext-2
	// perplexity over the 16-bit model (MetricPPL), or the share of the
	// unquantized model's benchmark average lost (MetricAccuracy). It may
	// be slightly negative when a measurement is within its noise.
	Loss float64
	// KLD is the mean Kullback–Leibler divergence of the token
	// distribution from the 16-bit model's, nats; 0 when not published.
	KLD float64
	// Model is what the figures were measured on.
	Model string
	// DerivedFrom names the format whose figures this one takes, with
	// Derived saying why, when no figure of its own is published.
	DerivedFrom, Derived string
	Note                 string
	// Source is where the figures come from, a citation fit for print.
	Source string
}

// Metrics of Quality.Loss.
const (
	MetricPPL      = "ppl"
	MetricAccuracy = "accuracy"
)

// Better reports whether q is known to lose less than o on the same
// metric, or is a reference where o is not. Formats on different metrics,
// or unknown, do not compare: ok is false.
func (q Quality) Better(o Quality) (better, ok bool) {
	if !q.Comparable(o) {
		return false, false
	}
	if q.Reference || o.Reference {
		return q.Reference && !o.Reference, true
	}
	return q.Loss < o.Loss, true
}

// Comparable reports whether q's and o's losses measure the same thing:
// both known, and on one metric or one of them the reference (the model
// itself loses nothing on any metric). A perplexity rise and an accuracy
// drop are different measures and never compared.
func (q Quality) Comparable(o Quality) bool {
	return q.Known && o.Known && (q.Reference || o.Reference || q.Metric == o.Metric)
}

// lossOf is q's loss, 0 for a reference.
func (q Quality) lossOf() float64 {
	if q.Reference {
		return 0
	}
	return q.Loss
}

// MeasuredOn is the model q's figures were measured on, as a lower-case
// name ("llama-3-8b", "llama-3.1-8b": the first word of Model, without an
// -instruct suffix); "" for a reference or an unknown quality.
func (q Quality) MeasuredOn() string {
	if !q.Known || q.Reference {
		return ""
	}
	f := strings.Fields(q.Model)
	if len(f) == 0 {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(f[0]), "-instruct")
}

// Borrowed reports whether q's figures were measured on another model
// than modelName (a catalog name): applied to it, they are a guide, not a
// measurement.
func (q Quality) Borrowed(modelName string) bool {
	on := q.MeasuredOn()
	return on != "" && on != strings.TrimSuffix(strings.ToLower(modelName), "-instruct")
}

// QualityBands is the one rule that ranks formats by quality, which the
// planner applies. A loss is compared only with losses on its metric and
// with the model itself (the reference, which loses nothing on any
// metric), never with a loss on the other metric:
//
//   - Per metric, the best loss among the formats that count (those that
//     meet the targets; 0 when a reference counts) opens a band, and the
//     formats losing at most tolerance more share it; the first loss
//     beyond opens the next band, and so on.
//   - A band's rank is how far its first loss is from the model itself,
//     in whole tolerances: floor(loss / tolerance), 0 within one. Bands of
//     one metric rank in their order (each starts more than a tolerance
//     above the last); bands of the two metrics at the same distance from
//     the model rank alike, and the next key (speed) decides.
//
// So w8a8 (0.51 % accuracy) and q4_k_m (2.8 % perplexity) are both within
// 3 points of the model and rank alike, while q4f16_1 (7.5 % perplexity,
// two tolerances from it) ranks after w8a8 whatever the speeds. A format
// with no published figure ranks after every band (NoBand).
type QualityBands struct {
	tolerance float64
	starts    map[string][]float64 // per metric, each band's lowest loss
}

// NoBand is the band of a format with no published quality.
const NoBand = 1 << 30

// NewQualityBands bands the qualities all, counted[i] saying whether
// all[i] counts for the best loss of its metric; when none of a metric
// counts, the best of the metric's formats opens its band 0.
func NewQualityBands(all []Quality, counted []bool, tolerance float64) QualityBands {
	ref := false
	for i, q := range all {
		ref = ref || (q.Known && q.Reference && counted[i])
	}
	byMetric := map[string][]float64{}
	best := map[string]float64{}
	for i, q := range all {
		if !q.Known || q.Reference {
			continue
		}
		byMetric[q.Metric] = append(byMetric[q.Metric], q.Loss)
		if b, ok := best[q.Metric]; counted[i] && (!ok || q.Loss < b) {
			best[q.Metric] = q.Loss
		}
	}
	b := QualityBands{tolerance: tolerance, starts: map[string][]float64{}}
	for m, losses := range byMetric {
		slices.Sort(losses)
		start, ok := best[m]
		if !ok {
			start = losses[0]
		}
		if ref {
			start = math.Min(start, 0)
		}
		starts := []float64{start}
		for _, l := range losses {
			if l > starts[len(starts)-1]+tolerance+1e-12 {
				starts = append(starts, l)
			}
		}
		b.starts[m] = starts
	}
	return b
}

// Band is q's rank by quality: the distance of its band's first loss
// from the model itself in whole tolerances (0 the best), NoBand for an
// unknown quality. A loss below the first band (a format better than any
// that counts) ranks by its own distance.
func (b QualityBands) Band(q Quality) int {
	switch {
	case !q.Known:
		return NoBand
	case q.Reference:
		return 0
	}
	starts, l := b.starts[q.Metric], q.lossOf()
	from := l
	for _, s := range starts {
		if l >= s-1e-12 {
			from = s
		}
	}
	if from <= 0 || b.tolerance <= 0 {
		return 0
	}
	return int(math.Floor(from/b.tolerance + 1e-9))
}

//go:embed quality.toml
var qualityTOML []byte

var (
	qualityOnce  sync.Once
	qualityTable map[string]Quality
	qualityErr   error
)

// FormatQuality is the published quality of weight format name (a name or
// alias of WeightFormats, or FileWeightsName). A format with no published
// figure answers Known false and says why; a name that is not a format is
// an *UnknownError.
func FormatQuality(name string) (Quality, error) {
	qualityOnce.Do(func() { qualityTable, qualityErr = decodeQuality(qualityTOML) })
	if qualityErr != nil {
		return Quality{}, qualityErr
	}
	if strings.EqualFold(strings.TrimSpace(name), FileWeightsName) {
		return Quality{Format: FileWeightsName, Unknown: "a GGUF file's own mix of tensor types: its quality is that of the file type it was quantized to (give that type as the weight format)"}, nil
	}
	f, err := LookupWeightFormat(name)
	if err != nil {
		return Quality{}, err
	}
	return qualityTable[f.Name], nil
}

// QualityTable lists the quality of every built-in weight format, in the
// order of WeightFormats.
func QualityTable() ([]Quality, error) {
	out := make([]Quality, 0, len(WeightFormats))
	for _, f := range WeightFormats {
		q, err := FormatQuality(f.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, nil
}

type rawQuality struct {
	Sources map[string]string  `toml:"sources"`
	Format  []rawFormatQuality `toml:"format"`
}

type rawFormatQuality struct {
	Name           string   `toml:"name"`
	Reference      string   `toml:"reference"`
	Unknown        string   `toml:"unknown"`
	SameAs         string   `toml:"same_as"`
	Derived        string   `toml:"derived"`
	Metric         string   `toml:"metric"`
	Model          string   `toml:"model"`
	PPL            *float64 `toml:"ppl"`
	DeltaPPL       *float64 `toml:"delta_ppl"`
	KLD            *float64 `toml:"kld"`
	Score          *float64 `toml:"score"`
	ScoreReference *float64 `toml:"score_reference"`
	Note           string   `toml:"note"`
	Source         string   `toml:"source"`
}

// decodeQuality reads the quality table strictly: unknown keys, unknown
// formats, duplicates, missing or impossible figures and formats left out
// are all errors.
func decodeQuality(src []byte) (map[string]Quality, error) {
	const file = "model/quality.toml"
	var r rawQuality
	md, err := toml.NewDecoder(bytes.NewReader(src)).Decode(&r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var errs []error
	for _, k := range md.Undecoded() {
		errs = append(errs, fmt.Errorf("%s: unknown key %q", file, k.String()))
	}
	raw := map[string]rawFormatQuality{}
	for _, f := range r.Format {
		w, err := LookupWeightFormat(f.Name)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", file, err))
			continue
		case w.Name != f.Name:
			errs = append(errs, fmt.Errorf("%s: %q is an alias: write the format's name %q", file, f.Name, w.Name))
		case raw[w.Name].Name != "":
			errs = append(errs, fmt.Errorf("%s: format %s is listed twice", file, w.Name))
		}
		raw[w.Name] = f
	}
	out := map[string]Quality{}
	for _, w := range WeightFormats {
		f, ok := raw[w.Name]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: format %s has no entry: give its published figures, same_as another format with the reason, or unknown with the reason", file, w.Name))
			continue
		}
		q, err := qualityOf(f, r.Sources)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: format %s: %w", file, w.Name, err))
		}
		out[w.Name] = q
	}
	// Derived entries take their figures from the format they name.
	for name, f := range raw {
		if f.SameAs == "" {
			continue
		}
		base, ok := out[f.SameAs]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%s: format %s: same_as %q is not a format of the table", file, name, f.SameAs))
			continue
		case !base.Known || base.DerivedFrom != "":
			errs = append(errs, fmt.Errorf("%s: format %s: same_as %q has no figures of its own", file, name, f.SameAs))
			continue
		}
		q := base
		q.Format, q.DerivedFrom, q.Derived, q.Note = name, f.SameAs, f.Derived, f.Note
		out[name] = q
	}
	return out, errors.Join(errs...)
}

// qualityOf checks one entry and computes its loss.
func qualityOf(f rawFormatQuality, sources map[string]string) (Quality, error) {
	q := Quality{Format: f.Name, Model: f.Model, Note: f.Note}
	kinds := 0
	for _, set := range []bool{f.Reference != "", f.Unknown != "", f.SameAs != "", f.Metric != ""} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return q, errors.New("give exactly one of reference, unknown, same_as or metric")
	}
	figures := f.PPL != nil || f.DeltaPPL != nil || f.KLD != nil || f.Score != nil || f.ScoreReference != nil
	if f.Metric == "" && (figures || f.Model != "") {
		return q, errors.New("figures need a metric")
	}
	if f.SameAs != "" && strings.TrimSpace(f.Derived) == "" {
		return q, errors.New("same_as needs derived: why the other format's figures apply")
	}
	if f.SameAs == "" && f.Derived != "" {
		return q, errors.New("derived belongs with same_as")
	}
	if f.Unknown != "" || f.SameAs != "" {
		q.Unknown = f.Unknown
		return q, nil
	}
	src, ok := sources[f.Source]
	if !ok || strings.TrimSpace(src) == "" {
		return q, fmt.Errorf("source %q is not one of [sources]", f.Source)
	}
	q.Known, q.Source = true, src
	if f.Reference != "" {
		q.Reference, q.Note = true, f.Reference
		return q, nil
	}
	if strings.TrimSpace(f.Model) == "" {
		return q, errors.New("figures need the model they were measured on")
	}
	finite := func(p *float64) bool { return p != nil && !math.IsNaN(*p) && !math.IsInf(*p, 0) }
	q.Metric = f.Metric
	switch f.Metric {
	case MetricPPL:
		if !finite(f.PPL) || !finite(f.DeltaPPL) || f.Score != nil || f.ScoreReference != nil {
			return q, errors.New("a ppl entry gives ppl and delta_ppl, and no score")
		}
		base := *f.PPL - *f.DeltaPPL
		if !(base > 1) || *f.DeltaPPL < 0 {
			return q, fmt.Errorf("ppl %g with delta_ppl %g leaves a 16-bit perplexity of %g", *f.PPL, *f.DeltaPPL, base)
		}
		q.Loss = *f.DeltaPPL / base
		if f.KLD != nil {
			if !finite(f.KLD) || *f.KLD < 0 {
				return q, fmt.Errorf("kld must be a finite divergence ≥ 0, got %g", *f.KLD)
			}
			q.KLD = *f.KLD
		}
	case MetricAccuracy:
		if !finite(f.Score) || !finite(f.ScoreReference) || f.PPL != nil || f.DeltaPPL != nil || f.KLD != nil {
			return q, errors.New("an accuracy entry gives score and score_reference, and no perplexity")
		}
		if !(*f.ScoreReference > 0) || !(*f.Score > 0) || *f.Score > 100 || *f.ScoreReference > 100 {
			return q, fmt.Errorf("scores are percentages in (0, 100], got %g of %g", *f.Score, *f.ScoreReference)
		}
		q.Loss = 1 - *f.Score / *f.ScoreReference
	default:
		return q, fmt.Errorf("metric must be %s or %s, got %q", MetricPPL, MetricAccuracy, f.Metric)
	}
	if math.Abs(q.Loss) > 0.9 {
		return q, fmt.Errorf("a loss of %.0f %% is not a figure for a usable format", 100*q.Loss)
	}
	return q, nil
}
