package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/sim"
)

// streamer is an Answer that writes its JSON and CSV itself, row by row,
// instead of building them in memory first.
type streamer interface {
	Stream(w io.Writer, f Format) error
}

// flushAt is how much of a stream is gathered before it is written.
const flushAt = 64 << 10

// Stream writes the plan's JSON or CSV as the search evaluates each group:
// memory stays flat however many configurations there are. The JSON is
// byte for byte what WriteJSON makes of NewPlanJSON (a test checks it).
func (a planAnswer) Stream(w io.Writer, f Format) error {
	bw := bufio.NewWriterSize(w, flushAt)
	var err error
	if f == CSV {
		err = a.streamCSV(bw)
	} else {
		err = a.streamJSON(bw)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

func (a planAnswer) streamJSON(w *bufio.Writer) error {
	p := a.p
	t := p.Targets
	conf := t.ConfidenceLevel()
	only := p.Request.Show.FeasibleOnly
	buf := append(make([]byte, 0, 2*flushAt), "{\n  \"configs\": ["...)
	n := 0
	var head []byte
	err := p.Run(func(g *plan.Group) error {
		head = appendGroupJSON(head[:0], g)
		for _, c := range g.Configs {
			if only && !c.Feasible {
				continue
			}
			if n > 0 {
				buf = append(buf, ',')
			}
			n++
			buf = append(buf, "\n    {"...)
			buf = append(buf, head...)
			buf = appendConfigJSON(buf, g, c, t, conf)
			buf = append(buf, "\n    }"...)
			if len(buf) >= flushAt {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n > 0 {
		buf = append(buf, "\n  "...)
	}
	buf = append(buf, "],\n  \"best\": ["...)
	// What follows is a row per group at most, appended as the
	// configurations are; what is left is small enough for encoding/json.
	n = 0
	for i, ch := range p.Shown.Choices {
		if ch.Group == nil {
			continue
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		n++
		var rate *app.PlanRate
		if p.Rates != nil && p.Rates[i].Searched {
			rate = &p.Rates[i]
		}
		smallest := ""
		if p.Smallest != nil {
			smallest = p.Smallest[i]
		}
		var pools []sim.PoolUse
		if p.Pools != nil {
			pools = p.Pools[i]
		}
		buf = appendChoiceJSON(buf, ch, p.Chats[i], rate, smallest, pools, t, conf)
	}
	if n > 0 {
		buf = append(buf, "\n  "...)
	}
	buf = append(buf, "],\n  \"limits\": ["...)
	for i := range p.Groups {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendLimitsJSON(buf, &p.Groups[i])
		if len(buf) >= flushAt {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if len(p.Groups) > 0 {
		buf = append(buf, "\n  "...)
	}
	buf = append(buf, "],\n  \"pareto\": ["...)
	for i, q := range p.Pareto {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n    {\n      \"bits_per_weight\": "...)
		buf = appendJSONFloat(buf, q.BPW)
		buf = append(buf, ",\n      \"quality_loss\": "...)
		buf = appendJSONFloat(buf, q.Loss)
		buf = append(buf, ",\n      \"decode_tokens_per_s\": "...)
		buf = appendJSONFloat(buf, q.TokensPerS)
		for _, kv := range [...][2]string{{"engine", q.Engine}, {"hardware", q.Device}, {"model", q.Model}, {"weights", q.Weights}} {
			buf = append(buf, ",\n      \""...)
			buf = append(buf, kv[0]...)
			buf = append(buf, "\": "...)
			buf = appendJSONString(buf, kv[1])
		}
		buf = append(buf, "\n    }"...)
	}
	if len(p.Pareto) > 0 {
		buf = append(buf, "\n  "...)
	}
	buf = append(buf, ']')
	buf = append(buf, ",\n  \"skipped\": "...)
	skipped := p.Skipped
	if skipped == nil {
		skipped = []string{}
	}
	buf = appendIndentedJSON(buf, skipped)
	buf = append(buf, ",\n  \"notes\": "...)
	notes := p.Notes
	if notes == nil {
		notes = []string{}
	}
	buf = appendIndentedJSON(buf, notes)
	buf = append(buf, ",\n  \"ranked_by\": "...)
	buf = appendJSONString(buf, p.Rank.String())
	buf = append(buf, ",\n  \"quality_tolerance\": "...)
	buf = appendJSONFloat(buf, p.Tolerance)
	buf = append(buf, ",\n  \"configurations\": "...)
	buf = strconv.AppendInt(buf, int64(p.Evaluated), 10)
	buf = append(buf, ",\n  \"configurations_meeting_targets\": "...)
	buf = strconv.AppendInt(buf, int64(p.Meeting), 10)
	buf = append(buf, ",\n  \"configurations_sure\": "...)
	buf = strconv.AppendInt(buf, int64(p.Sure), 10)
	buf = append(buf, "\n}\n"...)
	_, err = w.Write(buf)
	return err
}

// appendChoiceJSON writes a ranked configuration's PlanChoiceJSON.
func appendChoiceJSON(b []byte, ch plan.Choice, cl sim.ConcurrencyLimit, rate *app.PlanRate, smallest string, pools []sim.PoolUse, t sim.Targets, conf float64) []byte {
	g := ch.Group
	b = append(b, "\n    {\n      \"place\": "...)
	b = strconv.AppendInt(b, int64(ch.Place), 10)
	b = append(b, ',')
	b = appendGroupJSON(b, g)
	b = appendConfigJSON(b, g, ch.Config, t, conf)
	metric, loss := qualityMetric(g.Quality)
	b = append(b, ",\n      \"quality_loss\": "...)
	if loss == nil {
		b = append(b, "null"...)
	} else {
		b = appendJSONFloat(b, *loss)
	}
	b = append(b, ",\n      \"quality_metric\": "...)
	b = appendJSONString(b, metric)
	b = append(b, ",\n      \"quality_measured_on\": "...)
	b = appendJSONString(b, g.Quality.MeasuredOn())
	b = append(b, ",\n      \"quality_borrowed\": "...)
	b = strconv.AppendBool(b, g.Quality.Borrowed(g.Model))
	b = append(b, ",\n      \"equal_quality\": "...)
	b = strconv.AppendBool(b, ch.EqualQuality)
	b = append(b, ",\n      \"decode_tokens_per_s\": "...)
	b = appendJSONFloat(b, g.Speed())
	for _, kv := range []struct {
		k string
		v int
	}{{"max_concurrent", cl.Meeting}, {"max_concurrent_fit", cl.Fit}, {"concurrent_context", cl.Context}} {
		b = append(b, ",\n      \""...)
		b = append(b, kv.k...)
		b = append(b, "\": "...)
		b = strconv.AppendInt(b, int64(kv.v), 10)
	}
	b = append(b, ",\n      \"concurrent_fails\": "...)
	b = appendJSONString(b, cl.Fails.String())
	if rate != nil {
		b = append(b, ",\n      \"max_rate\": "...)
		b = appendJSONFloat(b, rate.MaxRate)
	}
	if smallest != "" {
		b = append(b, ",\n      \"smallest_that_fits\": "...)
		b = appendJSONString(b, smallest)
	}
	if len(pools) > 0 {
		var e bytes.Buffer
		if err := writeJSONIndented(&e, newPoolsJSON(pools), "      "); err == nil {
			b = append(b, ",\n      \"pools\": "...)
			b = append(b, bytes.TrimSuffix(e.Bytes(), []byte("\n"))...)
		}
	}
	return append(b, "\n    }"...)
}

// appendIndentedJSON writes v as WriteJSON writes a value one level deep.
func appendIndentedJSON(b []byte, v any) []byte {
	var e bytes.Buffer
	if err := writeJSONIndented(&e, v, "  "); err != nil {
		return append(b, "null"...)
	}
	return append(b, bytes.TrimSuffix(e.Bytes(), []byte("\n"))...)
}

// appendLimitsJSON writes a group's PlanLimitsJSON.
func appendLimitsJSON(b []byte, g *plan.Group) []byte {
	l := g.Limits
	b = append(b, "\n    {"...)
	for _, kv := range [...][2]string{{"hardware", g.Device}, {"engine", g.Engine}, {"runtime", g.Runtime}, {"model", g.Model}, {"weights", g.Weights}, {"kv", g.KV}} {
		b = append(b, "\n      \""...)
		b = append(b, kv[0]...)
		b = append(b, "\": "...)
		b = appendJSONString(b, kv[1])
		b = append(b, ',')
	}
	opt := func(b []byte, key string, v int) []byte {
		b = append(b, key...)
		if v < 0 {
			return append(b, "null"...)
		}
		return strconv.AppendInt(b, int64(v), 10)
	}
	b = opt(b, "\n      \"batch\": ", l.Batch)
	b = opt(b, ",\n      \"max_context_fit\": ", l.MaxContextFit)
	b = append(b, ",\n      \"max_context_bound\": "...)
	b = strconv.AppendQuote(b, l.ContextBound)
	b = opt(b, ",\n      \"max_context_tpot\": ", l.MaxContextTPOT)
	b = opt(b, ",\n      \"max_prompt_ttft\": ", l.MaxPromptTTFT)
	b = opt(b, ",\n      \"max_batch_fit\": ", l.MaxBatchFit)
	b = opt(b, ",\n      \"batch_context\": ", l.BatchContext)
	b = append(b, ",\n      \"bits_per_weight\": "...)
	b = appendJSONFloat(b, g.BPW)
	if g.Devices > 1 {
		b = append(b, ",\n      \"devices\": "...)
		b = strconv.AppendInt(b, int64(g.Devices), 10)
		b = append(b, ",\n      \"split\": "...)
		b = appendJSONString(b, g.Split)
	}
	return append(b, "\n    }"...)
}

// appendGroupJSON writes the part of a configuration's JSON its group
// fixes.
func appendGroupJSON(b []byte, g *plan.Group) []byte {
	for _, kv := range [...][2]string{{"hardware", g.Device}, {"engine", g.Engine}, {"runtime", g.Runtime}, {"model", g.Model}, {"weights", g.Weights}, {"kv", g.KV}} {
		b = append(b, "\n      \""...)
		b = append(b, kv[0]...)
		b = append(b, "\": "...)
		b = appendJSONString(b, kv[1])
		b = append(b, ',')
	}
	b = append(b, "\n      \"bits_per_weight\": "...)
	b = appendJSONFloat(b, g.BPW)
	return append(b, ',')
}

// appendConfigJSON writes the fields of PlanConfigJSON after the group's,
// in its order, indented as WriteJSON indents them.
func appendConfigJSON(b []byte, g *plan.Group, c sim.Config, t sim.Targets, conf float64) []byte {
	num := func(b []byte, key string, v float64) []byte {
		b = append(b, key...)
		return appendJSONFloat(b, v)
	}
	b = append(b, "\n      \"context\": "...)
	b = strconv.AppendInt(b, int64(c.Context), 10)
	b = append(b, ",\n      \"batch\": "...)
	b = strconv.AppendInt(b, int64(c.Batch), 10)
	b = append(b, ",\n      \"prompt\": "...)
	b = strconv.AppendInt(b, int64(g.Prompt), 10)
	b = append(b, ",\n      \"output\": "...)
	b = strconv.AppendInt(b, int64(g.Output), 10)
	b = append(b, ",\n      \"depth\": "...)
	b = strconv.AppendInt(b, int64(c.Depth(g.Prompt, g.Output)), 10)
	b = num(b, ",\n      \"ttft_s\": ", c.TTFT)
	b = num(b, ",\n      \"tpot_s\": ", c.TPOT)
	b = num(b, ",\n      \"throughput_tokens_per_s\": ", c.Throughput)
	b = num(b, ",\n      \"memory_bytes\": ", c.Memory)
	b = num(b, ",\n      \"usable_bytes\": ", g.UsableFor(c))
	b = append(b, ",\n      \"fits\": "...)
	b = strconv.AppendBool(b, c.Fits)
	b = append(b, ",\n      \"feasible\": "...)
	b = strconv.AppendBool(b, c.Feasible)
	b = append(b, ",\n      \"limit\": "...)
	b = appendJSONString(b, c.Limit.String())
	if c.Limit != sim.LimitNone {
		b = num(b, ",\n      \"excess\": ", c.Excess)
	}
	ttft, tpot := g.Judge(c, t)
	if t.TTFT > 0 {
		b = num(b, ",\n      \"ttft_margin\": ", ttft.Margin-1)
	}
	if t.TPOT > 0 {
		b = num(b, ",\n      \"tpot_margin\": ", tpot.Margin-1)
	}
	if t.TTFT > 0 {
		b = num(b, ",\n      \"ttft_margin_low\": ", ttft.MarginLo-1)
		b = num(b, ",\n      \"ttft_margin_high\": ", ttft.MarginHi-1)
	}
	if t.TPOT > 0 {
		b = num(b, ",\n      \"tpot_margin_low\": ", tpot.MarginLo-1)
		b = num(b, ",\n      \"tpot_margin_high\": ", tpot.MarginHi-1)
	}
	b = num(b, ",\n      \"memory_margin\": ", g.UsableFor(c)/c.Memory-1)
	b = append(b, ",\n      \"verdict\": "...)
	b = appendJSONString(b, c.Verdict.String())
	b = num(b, ",\n      \"confidence\": ", conf)
	if w := g.Widened(t); len(w) > 0 {
		b = append(b, ",\n      \"intervals_widened\": "...)
		b = appendJSONStrings(b, w)
	}
	if g.Devices > 1 {
		b = append(b, ",\n      \"devices\": "...)
		b = strconv.AppendInt(b, int64(g.Devices), 10)
	}
	if sp := g.SplitText(c); sp != "" {
		b = append(b, ",\n      \"split\": "...)
		b = appendJSONString(b, sp)
	}
	return b
}

// appendJSONFloat writes f as encoding/json does (the shortest form, an
// exponent only below 1e-6 or from 1e21, without a leading zero in it),
// and a number JSON cannot hold as null, as WriteJSON does.
func appendJSONFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-07 → e-7, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendJSONStrings appends ss as a JSON array on one line.
func appendJSONStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONString quotes s as WriteJSON does (no HTML escaping).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			var e bytes.Buffer
			enc := json.NewEncoder(&e)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s) // a string always encodes
			return append(b, jsonPrintable(bytes.TrimSuffix(e.Bytes(), []byte("\n")))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// planCSVHead is the header of plan's CSV: one row per configuration.
var planCSVHead = []string{"hardware", "engine", "runtime", "model", "weights", "kv", "bits_per_weight", "context", "batch", "prompt", "output",
	"ttft_s", "tpot_s", "throughput_tokens_per_s", "memory_bytes", "usable_bytes", "fits", "feasible", "limit", "verdict", "devices", "split",
	// As JSON's (appendConfigJSON): the margins, empty without their
	// target, at the ends of the interval at the confidence asked, and
	// "tpot" where that interval is widened for an MoE decode.
	"ttft_margin", "tpot_margin", "ttft_margin_low", "ttft_margin_high", "tpot_margin_low", "tpot_margin_high", "confidence", "intervals_widened"}

func (a planAnswer) streamCSV(w *bufio.Writer) error {
	p := a.p
	t := p.Targets
	conf := t.ConfidenceLevel()
	only := p.Request.Show.FeasibleOnly
	buf := make([]byte, 0, 2*flushAt)
	for i, h := range planCSVHead {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendCSVField(buf, h)
	}
	buf = append(buf, '\n')
	g64 := func(b []byte, v float64) []byte { return strconv.AppendFloat(append(b, ','), v, 'g', -1, 64) }
	var head []byte
	err := p.Run(func(g *plan.Group) error {
		head = head[:0]
		for i, s := range []string{g.Device, g.Engine, g.Runtime, g.Model, g.Weights, g.KV} {
			if i > 0 {
				head = append(head, ',')
			}
			head = appendCSVField(head, s)
		}
		head = g64(head, g.BPW)
		for _, c := range g.Configs {
			if only && !c.Feasible {
				continue
			}
			buf = append(buf, head...)
			for _, v := range []int{c.Context, c.Batch, g.Prompt, g.Output} {
				buf = strconv.AppendInt(append(buf, ','), int64(v), 10)
			}
			buf = g64(buf, c.TTFT)
			buf = g64(buf, c.TPOT)
			buf = g64(buf, c.Throughput)
			buf = g64(buf, c.Memory)
			buf = g64(buf, g.UsableFor(c))
			buf = strconv.AppendBool(append(buf, ','), c.Fits)
			buf = strconv.AppendBool(append(buf, ','), c.Feasible)
			buf = appendCSVField(append(buf, ','), c.Limit.String())
			buf = appendCSVField(append(buf, ','), c.Verdict.String())
			buf = strconv.AppendInt(append(buf, ','), int64(g.Devices), 10)
			buf = appendCSVField(append(buf, ','), g.SplitText(c))
			ttft, tpot := g.Judge(c, t)
			opt := func(b []byte, on bool, v float64) []byte {
				if !on {
					return append(b, ',')
				}
				return g64(b, v)
			}
			buf = opt(buf, t.TTFT > 0, ttft.Margin-1)
			buf = opt(buf, t.TPOT > 0, tpot.Margin-1)
			buf = opt(buf, t.TTFT > 0, ttft.MarginLo-1)
			buf = opt(buf, t.TTFT > 0, ttft.MarginHi-1)
			buf = opt(buf, t.TPOT > 0, tpot.MarginLo-1)
			buf = opt(buf, t.TPOT > 0, tpot.MarginHi-1)
			buf = g64(buf, conf)
			buf = append(buf, ',')
			buf = append(buf, strings.Join(g.Widened(t), " ")...)
			buf = append(buf, '\n')
			if len(buf) >= flushAt {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

// appendCSVField writes one field as encoding/csv does: quoted when it
// holds a comma, a quote or a line break, begins with a space, or is `\.`.
func appendCSVField(b []byte, s string) []byte {
	r, _ := utf8.DecodeRuneInString(s)
	if s != `\.` && !strings.ContainsAny(s, ",\"\r\n") && (s == "" || !unicode.IsSpace(r)) {
		return append(b, s...)
	}
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
	return append(b, '"')
}
