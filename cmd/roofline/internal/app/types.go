package app

import "github.com/roofline/roofline/sim"

// The sim values requests carry, named here so that a request reads as
// one vocabulary.
type (
	Workload = sim.Workload
	Options  = sim.Options
	Targets  = sim.Targets
)
