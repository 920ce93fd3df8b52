package model

// ListOperators lists a cost's operators anew, past the memo: what a
// first view of a cost pays.
func ListOperators(c *Cost, f Fusion, flash bool) *Operators { return c.listOperators(f, flash) }
