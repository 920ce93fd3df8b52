package sim

// PipelinedPrefillPasses is, for a pipelined prefill of several passes
// (Split.PipelinedPrefill), each pass's stage times in the order the
// passes run, their layers only (no links): what Split.Predict flows
// through the stages pass by pass, for tests that add the hops by hand.
func PipelinedPrefillPasses(sp *Split, w Workload) [][]float64 {
	w, _ = sp.resolve(w)
	q := sp.newSplitPricing(w, false, nil)
	if !q.flows() {
		return nil
	}
	q.setDepth(w.Depth)
	var out [][]float64
	for k := q.firstPass(); k >= 0; k = q.nextPass(k) {
		q.passTimes(k, false)
		out = append(out, append([]float64(nil), q.own...))
	}
	return out
}
