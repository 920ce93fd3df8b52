package main

import (
	"fmt"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/report"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

const listUsage = `roofline list hardware|models|formats [--format text|json]

Lists the built-in devices (with their variants: power modes and smaller
configurations), models, or weight and KV-cache formats, plus any profiles
loaded with --profiles.

Examples:
  roofline list hardware
  roofline list models --format json
  roofline --profiles ./my-profiles list hardware`

func listCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list built-in hardware, models or formats",
		UsageText: listUsage,
		ArgsUsage: "hardware|models|formats",
		Flags:     []cli.Flag{formatFlag("text", "json")},
		Action:    listAction,
	}
}

func listAction(c *cli.Context) error {
	format, err := outputFormat(c, "text", "json")
	if err != nil {
		return err
	}
	if err := noExtraArgs(c, 1); err != nil {
		return err
	}
	cat, err := catalog(c)
	if err != nil {
		return err
	}
	w := c.App.Writer
	switch c.Args().First() {
	case "hardware", "devices", "hw":
		if format == "json" {
			var out []deviceJSON
			for _, d := range cat.Devices() {
				out = append(out, newDeviceJSON(d, cat.Runtimes()))
			}
			return report.JSON(w, out)
		}
		t := report.Table{Header: []string{"NAME", "MEMORY", "BANDWIDTH", "ENGINES (peak fp16 or int8)", "DESCRIPTION"}, Right: map[int]bool{1: true, 2: true}}
		for _, d := range cat.Devices() {
			var engines []string
			for i := range d.Engines {
				e := &d.Engines[i]
				p, v, _ := e.Pick([]units.Precision{units.FP16, units.INT8, units.FP32})
				engines = append(engines, fmt.Sprintf("%s %s %s", e.Name, units.FormatRate(v, p.RateUnit()), p))
			}
			t.Add(d.Name, units.FormatBytes(d.Memory, units.Binary), units.FormatBandwidth(d.Bandwidth), strings.Join(engines, ", "), d.Description)
		}
		return t.WriteText(w)
	case "models", "model":
		if format == "json" {
			var out []modelJSON
			for _, s := range cat.Models() {
				mc, err := buildCost(s, "", "")
				if err != nil {
					return err
				}
				out = append(out, newModelJSON(mc))
			}
			return report.JSON(w, out)
		}
		t := report.Table{Header: []string{"NAME", "ARCH", "PARAMS", "ACTIVE", "LAYERS", "CONTEXT", "KV/TOKEN (f16)", "CHECKPOINT"}, Right: map[int]bool{2: true, 3: true, 4: true, 5: true, 6: true}}
		for _, s := range cat.Models() {
			mc, err := buildCost(s, s.Checkpoint, "f16")
			if err != nil {
				return err
			}
			t.Add(s.Name, s.Architecture, units.FormatCount(mc.ParamsTotal), units.FormatCount(mc.ParamsActive), fmt.Sprint(s.Layers),
				fmt.Sprint(s.MaxContext), units.FormatBytes(mc.KVBytesPerToken(), units.Binary), s.Checkpoint)
		}
		return t.WriteText(w)
	case "formats", "format", "quantizations":
		return listFormats(c, format)
	case "":
		return usageErr("list what? give one of: hardware, models, formats")
	default:
		return usageErr("cannot list %q: give one of hardware, models, formats", c.Args().First())
	}
}

type formatJSON struct {
	Name        string   `json:"name"`
	Aliases     []string `json:"aliases,omitempty"`
	Family      string   `json:"family"`
	Compute     []string `json:"compute_precisions"`
	Description string   `json:"description"`
}

type storageJSON struct {
	Name          string  `json:"name"`
	BlockSize     int     `json:"block_size"`
	BlockBits     int     `json:"block_bits"`
	RowBits       int     `json:"row_bits,omitempty"`
	BitsPerWeight float64 `json:"bits_per_weight"`
}

func listFormats(c *cli.Context, format string) error {
	w := c.App.Writer
	if format == "json" {
		var out struct {
			Weights []formatJSON  `json:"weight_formats"`
			KV      []formatJSON  `json:"kv_formats"`
			Types   []storageJSON `json:"storage_types"`
		}
		for _, f := range model.WeightFormats {
			out.Weights = append(out.Weights, formatJSON{f.Name, f.Aliases, f.Family, precisionNames(f.Compute), f.Description})
		}
		for _, f := range model.KVFormats {
			out.KV = append(out.KV, formatJSON{Name: f.Name, Family: "kv", Description: f.Description})
		}
		for _, s := range model.StorageTypes {
			out.Types = append(out.Types, storageJSON{s.Name, s.BlockSize, s.BlockBits, s.RowBits, s.BitsPerWeight()})
		}
		return report.JSON(w, out)
	}
	fmt.Fprintln(w, "Weight formats (--weights):")
	t := report.Table{Header: []string{"NAME", "FAMILY", "COMPUTE", "DESCRIPTION"}}
	for _, f := range model.WeightFormats {
		name := f.Name
		if len(f.Aliases) > 0 {
			name += " (" + strings.Join(f.Aliases, ", ") + ")"
		}
		t.Add(name, f.Family, strings.Join(precisionNames(f.Compute), ">"), f.Description)
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nKV-cache formats (--kv):")
	kt := report.Table{Header: []string{"NAME", "BITS", "DESCRIPTION"}, Right: map[int]bool{1: true}}
	for _, f := range model.KVFormats {
		kt.Add(f.Name, fmt.Sprintf("%.4g", f.Storage.BitsPerWeight()), f.Description)
	}
	if err := kt.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nStorage types (per tensor):")
	st := report.Table{Header: []string{"TYPE", "BLOCK", "BYTES/BLOCK", "BITS/WEIGHT"}, Right: map[int]bool{1: true, 2: true, 3: true}}
	for _, s := range model.StorageTypes {
		st.Add(s.Name, fmt.Sprint(s.BlockSize), fmt.Sprintf("%.4g", float64(s.BlockBits)/8), fmt.Sprintf("%.6g", s.BitsPerWeight()))
	}
	return st.WriteText(w)
}

func precisionNames(ps []units.Precision) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}
