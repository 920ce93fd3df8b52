package app

import (
	"errors"

	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/runtimes"
)

// Runtimes lists every runtime of the catalog, by name.
func (env *Env) Runtimes() []*runtimes.Runtime { return env.Catalog.Runtimes().All() }

// ShowRuntime is one runtime by name, alias or profile path.
func (env *Env) ShowRuntime(name string) (*runtimes.Runtime, error) {
	return env.Catalog.Runtime(name)
}

// MatchFile is c matched to a file of fileBytes (a published file's size):
// the tensors whose type the format cannot be sure of absorb the
// difference (model.Cost.FitTo). It refuses a model read from a file,
// whose bytes are already exact.
func MatchFile(c *model.Cost, fileBytes float64) (*model.Cost, *model.FileFit, error) {
	if c.Weights.IsFile() {
		return nil, nil, &resolve.InputError{Input: "file-size", Err: errors.New("the model is a file: its tensor bytes are exact, there is nothing to match")}
	}
	fitted, fit := c.FitTo(fileBytes)
	return fitted, &fit, nil
}
