package app

import (
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
)

// Device is a device with the runtimes that run on each of its engines.
type Device struct {
	*hardware.Device
	// Runtimes lists, per engine (in the device's order), the runtimes
	// that run on it.
	Runtimes [][]string
	// Modes are the power modes of its module (the device among them),
	// in profiles.SortModes' order; empty when it has one or none. Only
	// ShowDevice fills them.
	Modes []PowerMode
}

// PowerMode is one power mode of a device's module: the profile for it
// and the name that selects it.
type PowerMode struct {
	*hardware.Device
	// Select is NAME@MODE that selects it, NAME a board's name
	// (profiles.ModeSelector).
	Select string
}

func (env *Env) device(d *hardware.Device) Device {
	out := Device{Device: d}
	for i := range d.Engines {
		names := []string{}
		for _, rt := range env.Catalog.Runtimes().All() {
			if rt.Runs(d, &d.Engines[i]) {
				names = append(names, rt.Name)
			}
		}
		out.Runtimes = append(out.Runtimes, names)
	}
	return out
}

// Devices lists every device of the catalog.
func (env *Env) Devices() []Device {
	var out []Device
	for _, d := range env.Catalog.Devices() {
		out = append(out, env.device(d))
	}
	return out
}

// ShowDevice is one device by name or profile path.
func (env *Env) ShowDevice(name string) (Device, error) {
	d, err := env.Catalog.Device(name)
	if err != nil {
		return Device{}, err
	}
	out := env.device(d)
	modes := env.Catalog.PowerModes(d)
	for _, m := range modes {
		sel := profiles.ModeSelector(modes, d, m)
		out.Modes = append(out.Modes, PowerMode{Device: m, Select: sel})
	}
	return out, nil
}

// Models prices every model of the catalog in its own format (its
// checkpoint) with an f16 KV cache.
func (env *Env) Models() ([]*model.Cost, error) {
	var out []*model.Cost
	for _, s := range env.Catalog.Models() {
		c, err := Price(s, "", "")
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// ShowModel prices one model in weight format weights and KV format kv;
// empty means the model's own format (model.Spec.NativeFormat) and f16.
func (env *Env) ShowModel(name, weights, kv string) (*model.Cost, error) {
	s, err := env.Catalog.Model(name)
	if err != nil {
		return nil, err
	}
	// An Ollama tag is shown in its quantization, as it is predicted.
	if weights, _, err = runtimes.NamedWeights(s, weights); err != nil {
		return nil, &resolve.InputError{Input: "weights", Err: err}
	}
	return Price(s, weights, kv)
}

// Price is spec's cost in the named formats with no runtime's layout: the
// model's own account, as show and list give it.
func Price(s *model.Spec, weights, kv string) (*model.Cost, error) {
	if err := CheckWeights(weights); err != nil && weights != model.FileWeightsName {
		return nil, err
	}
	if err := CheckKV(kv); err != nil {
		return nil, err
	}
	c, err := model.BuildNamed(s, weights, kv, model.Layout{})
	if err != nil {
		return nil, &resolve.InputError{Input: "weights", Err: err}
	}
	return c, nil
}

// CheckWeights checks a weight format name ("" is the default); the error
// names the input and the known formats.
func CheckWeights(name string) error {
	if name == "" {
		return nil
	}
	if _, err := model.LookupWeightFormat(name); err != nil {
		return &resolve.InputError{Input: "weights", Err: known(err)}
	}
	return nil
}

// CheckKV checks a KV-cache format name ("" is the default).
func CheckKV(name string) error {
	if name == "" {
		return nil
	}
	if _, err := model.LookupKVFormat(name); err != nil {
		return &resolve.InputError{Input: "kv", Err: known(err)}
	}
	return nil
}

// known adds the known names to an unknown-name error.
func known(err error) error {
	if _, ok := err.(*model.UnknownError); ok {
		return profiles.DidYouMean(err)
	}
	return err
}

// Formats are the weight formats, KV-cache formats and storage types.
type Formats struct {
	Weights []model.WeightFormat
	KV      []model.KVFormat
	Types   []model.Storage
}

// AllFormats lists every format roofline prices.
func AllFormats() Formats {
	return Formats{Weights: model.WeightFormats, KV: model.KVFormats, Types: model.StorageTypes}
}
