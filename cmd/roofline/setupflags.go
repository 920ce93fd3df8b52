package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

// setupFlags select a model on a device: predict's, chat's.
func setupFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `NAME` (roofline list models), Hugging Face id (ORG/NAME[:QUANT]), Ollama tag (llama3.2:3b), .toml profile, .gguf file or URL (header only), or config.json / checkpoint directory (required)"},
		&cli.StringFlag{Name: "hardware", Aliases: []string{"hw"}, Usage: "device `NAME` (roofline list hardware; NAME@MODE for a power mode: jetson-orin-nano-super-8gb@25w) or path to a .toml profile (required)"},
		&cli.StringFlag{Name: "runtime", Usage: "inference `RUNTIME` (`roofline list runtimes` names every one); default: chosen from the model, format and device, and said why"},
		&cli.StringFlag{Name: "engine", Usage: "compute `ENGINE` of the device (gpu, cpu, npu); default: the device's default if the runtime runs on it"},
		&cli.StringFlag{Name: "weights", Usage: "weight format `FMT`; default: a GGUF file's own tensor types, else the runtime's usual format (the model's checkpoint for vLLM, TensorRT-LLM and MLX)"},
		&cli.StringFlag{Name: "kv", Usage: "KV-cache format `FMT`; default: the runtime's, f16"},
		&cli.Float64Flag{Name: "bw-efficiency", Usage: "share of datasheet bandwidth achieved, from 0.0001 to 1; default: the engine's"},
		&cli.Float64Flag{Name: "compute-efficiency", Usage: "share of peak compute achieved, from 0.0001 to 1; default: the engine's"},
		&cli.StringFlag{Name: "overhead", Usage: "runtime memory `SIZE` beyond weights, KV and activations; default: the runtime's (roofline show runtime NAME)"},
		&cli.BoolFlag{Name: "no-flash-attn", Usage: "price unfused attention, which reads the KV cache once per query head (llama.cpp without -fa)"},
	}, settingsFlags()...)
}

// extraFlags are the flags of chat's extra figures that predict shares.
func extraFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "storage", Usage: "storage the model loads from: a `MEDIUM` (sd, emmc, usb3, nvme-gen2x1, nvme-gen3x4, nvme-gen4x4, nvme-gen5x4) or a read rate such as 90MB/s; default: the profile's"},
		&cli.StringFlag{Name: "power", Usage: "power draw while answering (`WATTS`, e.g. 15W); default: the engine's power in the profile"},
		&cli.StringFlag{Name: "idle-power", Usage: "power draw between answers (`WATTS`); default: the profile's idle_power"},
		&cli.StringFlag{Name: "duty-cycle", Value: "10%", Usage: "share of the time the device spends answering (`PCT`): the average draw and a battery's hours of use"},
		&cli.Float64Flag{Name: "battery-wh", Usage: "battery capacity in `WH`: adds answers per charge and hours of use"},
		&cli.StringFlag{Name: "draft", Usage: "draft `MODEL` for speculative decoding (same forms as --model)"},
		&cli.StringFlag{Name: "draft-weights", Usage: "weight format `FMT` of the draft; default: the target's"},
		&cli.IntFlag{Name: "draft-tokens", Value: 4, Usage: "tokens the draft proposes per round (k)"},
		&cli.Float64Flag{Name: "acceptance", Value: 0.7, Usage: "probability that the target accepts each drafted token, in [0, 1)"},
	}
}

// opsFlags ask for a prediction operator by operator.
func opsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "ops", Usage: "add where the time goes, operator by operator (an attribution of the predicted time)"},
		&cli.StringFlag{Name: "ops-at", Usage: "with --ops, decode steps to show at these contexts (`LIST` of keys attended, k = 1024); default: the first, the last and the longest context"},
	}
}

// opsRequest reads the opsFlags: nil without --ops.
func opsRequest(c *cli.Context) (*app.OpsRequest, error) {
	if !c.Bool("ops") {
		if c.IsSet("ops-at") {
			return nil, usageErr("--ops-at needs --ops")
		}
		return nil, nil
	}
	req := &app.OpsRequest{}
	if c.IsSet("ops-at") {
		l, err := tokenList(c, "ops-at")
		if err != nil {
			return nil, err
		}
		req.At = l
	}
	return req, nil
}

// selection reads the setupFlags (and --storage where a command has it).
func selection(c *cli.Context) (app.Selection, error) {
	for _, f := range []string{"model", "hardware"} {
		if c.String(f) == "" {
			return app.Selection{}, usageErr("--%s is required", f)
		}
	}
	opts, err := simOptions(c)
	if err != nil {
		return app.Selection{}, err
	}
	if err := runSettings(c, &opts); err != nil {
		return app.Selection{}, err
	}
	sel := app.Selection{Model: c.String("model"), Hardware: c.String("hardware"), Runtime: c.String("runtime"),
		Engine: c.String("engine"), Weights: c.String("weights"), KV: c.String("kv"), Options: opts}
	if s := c.String("storage"); s != "" {
		if sel.StorageBandwidth, err = parseStorage(c); err != nil {
			return app.Selection{}, err
		}
	}
	return sel, nil
}

// parseStorage reads --storage: a named medium or a read rate.
func parseStorage(c *cli.Context) (float64, error) {
	s := c.String("storage")
	if m, err := hardware.LookupStorage(s); err == nil {
		return m.Bandwidth, nil
	}
	bw, _, err := quantity(c, "storage", units.DimBandwidth)
	if err != nil || !(bw > 0) {
		_, lerr := hardware.LookupStorage(s)
		return 0, usageErr("--storage: %v", lerr)
	}
	if !limits.Bandwidth.Contains(bw) {
		return 0, usageErr("--storage %s: a read rate from %s, e.g. 100MB/s, or a medium (sd, emmc, nvme-gen4x4, …)", s, limits.Bandwidth.Text())
	}
	return bw, nil
}

// extras reads the extraFlags: the power figures and the draft.
func extras(c *cli.Context) (app.Power, *app.Draft, error) {
	var p app.Power
	if c.IsSet("battery-wh") {
		if err := limits.Battery.Check(c.Float64("battery-wh")); err != nil {
			return p, nil, usageErr("--battery-wh %v", err)
		}
	}
	p.BatteryWh = c.Float64("battery-wh")
	for _, f := range []struct {
		name string
		dst  *float64
	}{{"power", &p.Watts}, {"idle-power", &p.IdleWatts}} {
		if v, ok, err := quantity(c, f.name, units.DimPower); ok {
			if err != nil || !(v > 0) {
				return p, nil, usageErr("--%s %q: want a positive power such as 15W", f.name, c.String(f.name))
			}
			if err := limits.PowerDraw.Check(v); err != nil {
				return p, nil, usageErr("--%s %v", f.name, err)
			}
			*f.dst = v
		}
	}
	d, err := parseDuty(c.String("duty-cycle"))
	if err != nil || !limits.Share.Contains(d) {
		return p, nil, usageErr("--duty-cycle %q: want a share of the time from 0.01%% to 100%%, such as 10%%", c.String("duty-cycle"))
	}
	p.DutyCycle = d
	sp := sim.Speculation{K: c.Int("draft-tokens"), Acceptance: c.Float64("acceptance")}
	if err := sp.Validate(); err != nil {
		return p, nil, usageErr("%v", err)
	}
	if c.String("draft") == "" {
		for _, f := range []string{"draft-tokens", "acceptance", "draft-weights"} {
			if c.IsSet(f) {
				return p, nil, usageErr("--%s needs --draft MODEL", f)
			}
		}
		return p, nil, nil
	}
	return p, &app.Draft{Model: c.String("draft"), Weights: c.String("draft-weights"), Speculation: sp}, nil
}

// parseDuty reads a duty cycle: a percentage above 0 and up to 100 %.
func parseDuty(s string) (float64, error) {
	if n, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		if v, err := strconv.ParseFloat(strings.TrimSpace(n), 64); err == nil && v == 100 {
			return 1, nil // back to back
		}
	}
	return units.ParseShare(s)
}

// listFlag reads a comma-separated list flag. An item named twice is
// refused: it would draw or rank the same series twice, and is most
// often a slip for another name. Twice means after the normalisation the
// names resolve by: case for every list, and a format's spellings and
// aliases (q4-k-m is q4_k_m, fp16 is the KV cache's f16).
//
// A list given with nothing in it ("," or " ") is refused naming the
// flag: left to the search it would read as "empty search space" (plan)
// or draw nothing (plot), and an optional flag would be silently dropped.
func listFlag(c *cli.Context, name string) ([]string, error) {
	l := app.List(c.String(name))
	if len(l) == 0 && c.String(name) != "" {
		return nil, &usageError{msg: fmt.Sprintf("--%s %q names nothing: give at least one item, comma-separated", name, c.String(name)), hint: emptyListHints[name]}
	}
	keys := make([]string, len(l))
	for i, it := range l {
		keys[i] = listKey(name, it)
		if j := slices.Index(keys[:i], keys[i]); j >= 0 {
			if l[j] == it {
				return nil, usageErr("--%s names %s twice: name each once", name, it)
			}
			return nil, usageErr("--%s names %s twice (%s is %s): name each once", name, l[j], it, l[j])
		}
	}
	return l, nil
}

// emptyListHints say what a list flag takes, for one given empty.
var emptyListHints = map[string]string{
	"hardware": "'roofline list hardware' shows the names (NAME@MODE for a power mode); a glob (jetson-*) or all takes several",
	"model":    "'roofline list models' shows the names; all takes every one",
	"weights":  "'roofline list formats' shows the weight formats; all takes every one; leave --weights out for each engine's default",
	"kv":       "'roofline list formats' shows the KV-cache formats; leave --kv out for each engine's default",
	"engine":   "engines are gpu, cpu or npu; leave --engine out for every engine of each device",
	"runtime":  "'roofline list runtimes' shows the runtimes; leave --runtime out for the one the rule chooses",
}

// listKey is the name a list flag's item resolves by.
func listKey(flag, item string) string {
	switch flag {
	case "weights":
		if f, err := model.LookupWeightFormat(item); err == nil {
			return f.Name
		}
	case "kv":
		if f, err := model.LookupKVFormat(item); err == nil {
			return f.Name
		}
	}
	return strings.ToLower(item)
}

// listInto is a list flag and where its items go.
type listInto struct {
	flag string
	to   *[]string
}

// listFlags reads each list flag into its place, by listFlag.
func listFlags(c *cli.Context, lists ...listInto) error {
	for _, l := range lists {
		var err error
		if *l.to, err = listFlag(c, l.flag); err != nil {
			return err
		}
	}
	return nil
}
