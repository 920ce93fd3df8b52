package main

import (
	"fmt"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/render"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

// catalog returns the built-in profiles plus any --profiles directories.
func catalog(c *cli.Context) (*profiles.Catalog, error) {
	env, err := environment(c)
	if err != nil {
		return nil, err
	}
	return env.Catalog, nil
}

func lookupWeights(name string) (model.WeightFormat, error) {
	w, err := model.LookupWeightFormat(name)
	if err != nil {
		return w, fmt.Errorf("--weights: %w%s", err, knownHint(err))
	}
	return w, nil
}

func lookupKV(name string) (model.KVFormat, error) {
	k, err := model.LookupKVFormat(name)
	if err != nil {
		return k, fmt.Errorf("--kv: %w%s", err, knownHint(err))
	}
	return k, nil
}

func knownHint(err error) string {
	if u, ok := err.(*model.UnknownError); ok {
		return " (known: " + strings.Join(u.Known, ", ") + ")"
	}
	return ""
}

type comparisonJSON = render.ComparisonJSON

var testName = render.TestName

type predictJSON = render.PredictJSON

type num = *float64

var dur = render.Duration

var durp = render.OptDuration

type planConfigJSON = render.PlanConfigJSON
type planLimitsJSON = render.PlanLimitsJSON

func parseDurationValue(s string) (float64, error) { return units.ParseDuration(s) }

func parseTokens(s string) (int, error) { return units.ParseTokens(s) }
