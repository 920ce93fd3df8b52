package app

import "github.com/roofline/roofline/runtimes"

// Runtimes lists every runtime of the catalog, by name.
func (env *Env) Runtimes() []*runtimes.Runtime { return env.Catalog.Runtimes().All() }

// ShowRuntime is one runtime by name, alias or profile path.
func (env *Env) ShowRuntime(name string) (*runtimes.Runtime, error) {
	return env.Catalog.Runtime(name)
}
