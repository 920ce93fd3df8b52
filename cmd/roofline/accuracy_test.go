package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/accuracy"
	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/units"
)

// publicRuns is the published data the runtime classes are fitted to.
const publicRuns = "testdata/public/runs.csv"

// Accuracy guards, each device (module) held out, over every scored
// public run (docs/accuracy.md states them beside the figures): regression
// guards at the figures reached, not aims. Issue 24 added the mission's
// boards as users run them (llama.cpp on Jetsons and ARM CPUs, RKLLM as
// independent users measure it), which a class fitted on other devices
// predicts 1.3–2.5× off until the board's own runs are used (its level):
// the per-test and per-device figures held out by device fell from 6–8 %
// to 9–13 % with them; the measured boards' own figures are checked
// below (deviceLevel*).
const (
	maxDecodeMdAPE  = 0.13
	maxDecodeP90    = 0.60
	maxPrefillMdAPE = 0.22
	maxPrefillP90   = 1.00
	minCoverage     = 0.59
	maxCoverage     = 0.90

	maxDeviceDecodeMdAPE  = 0.10
	maxDeviceDecodeP90    = 0.43
	maxDevicePrefillMdAPE = 0.105
	maxDevicePrefillP90   = 0.47
	minDeviceCoverage     = 0.73

	// Devices measured on three models or more, each model predicted by
	// the device's level fitted without it, each device weighing the same:
	// guards at the figures reached once a model's runs from one source
	// share a bias in the level and a class's scatter widens its devices'
	// levels (9.9 % and 11.6 %; 11.3 % and 12.3 % before), and decode
	// 8.0 % once a tied model's file that stores its head apart is priced
	// untied (the Pi 5's EDGE-FORMAT-TAX files). Issue 24's aims are 5 %
	// and 10 %.
	maxDeviceLevelDecodeMdAPE  = 0.085
	maxDeviceLevelPrefillMdAPE = 0.125

	// llama.cpp on ARM CPUs, each device held out: issue 24's aims,
	// decode 8 % and prefill 15 %. The prefill aim is met (12.2 %) once
	// each product is priced by its tensor's type (Q5_0 fallbacks at
	// 0.429 × the class; 17.6 % with one rule per file format, 21.9 %
	// before the repacked Q4_0 and IQ4_NL GEMMs, 39.5 % before the A57's
	// 2/3 share). The decode aim is not: 5.9 % on four boards, 9.8 % once
	// the Jetson AGX Thor's CPU (14 Neoverse-V3AE threads, THOR-GTIER) is
	// scored; its three decodes run 0.64-0.94 × the class's rate and no
	// sourced term prices why (docs/accuracy.md, "What is left"); 11.8 %
	// once the A57's second model (Gemma-3-1B Q4_K_M, KREIER-JETSON-NANO's
	// CPU column) is scored: it decodes 1.40 × the time the other boards
	// predict, and the class refitted with it prices the Thor's decodes
	// 1.36-1.99 × (about 10 % on the four boards without the Thor). The
	// guard holds that honest figure, not the aim: a row is not left out
	// to keep a figure under its aim.
	maxCPUClassDecodeMdAPE  = 0.12
	maxCPUClassPrefillMdAPE = 0.15
)

var (
	classesOnce sync.Once
	classesRes  []*accuracy.Class
	classesRuns []measured.Run
	classesErr  error
)

// publicClasses fits every runtime class to the public runs, once.
func publicClasses(t *testing.T) ([]*accuracy.Class, []measured.Run) {
	t.Helper()
	if raceDetector {
		// Single-threaded arithmetic (a few hundred refits), checked in the
		// plain run; under the race detector it takes most of CI's time.
		t.Skip("the public fit is checked without -race")
	}
	classesOnce.Do(func() {
		b, err := os.ReadFile(publicRuns)
		if err != nil {
			classesErr = err
			return
		}
		res, err := measured.Read(publicRuns, b)
		if err != nil {
			classesErr = err
			return
		}
		if len(res.Bad) > 0 {
			classesErr = fmt.Errorf("bad rows: %v", res.Bad)
			return
		}
		classesRuns = res.Runs
		cat, _ := profiles.Builtin()
		cases, errs := accuracy.Load(cat, res.Runs)
		if len(errs) > 0 {
			classesErr = fmt.Errorf("unresolved: %v", errs)
			return
		}
		classesRes, classesErr = accuracy.FitClasses(cases)
	})
	if classesErr != nil {
		t.Fatal(classesErr)
	}
	return classesRes, classesRuns
}

const regenerate = "go test ./cmd/roofline -run TestRuntimeClasses -update"

// TestRuntimeClasses refits every runtime's efficiency per engine kind to
// the public runs and checks that the runtime profiles hold exactly that
// fit (-update writes it into profiles/runtimes/*.toml, then regenerates
// what is made from those files: profiles/builtin_runtimes.json).
func TestRuntimeClasses(t *testing.T) {
	classes, runs := publicClasses(t)
	cat, _ := profiles.Builtin()
	scope, err := accuracy.ScopeRows(cat, runs)
	if err != nil {
		t.Fatal(err)
	}
	moe := accuracy.ScopeSpreads(scope, accuracy.MoEDecodes, accuracy.MoEDecodesWhat)
	npuClock := accuracy.ScopeSpreads(scope, accuracy.NPUClockDecodes, accuracy.NPUClockDecodesWhat)
	byRuntime := map[string]map[string]*runtimes.Class{}
	levels := map[string]map[string]*runtimes.Level{}
	settings := map[string]map[string]*runtimes.SettingFactors{}
	for _, c := range classes {
		if c.Settings != nil {
			if settings[c.Key.Runtime] == nil {
				settings[c.Key.Runtime] = map[string]*runtimes.SettingFactors{}
			}
			settings[c.Key.Runtime][c.Key.Name()] = c.Settings.Factors("cmd/roofline/" + publicRuns)
		}
		if levels[c.Key.Runtime] == nil {
			levels[c.Key.Runtime] = map[string]*runtimes.Level{}
		}
		for k, l := range c.Levels("cmd/roofline/" + publicRuns) {
			levels[c.Key.Runtime][k] = l
		}
	}
	for _, c := range classes {
		rc := c.Runtime("cmd/roofline/" + publicRuns)
		if m, ok := moe[c.Key]; ok {
			rc.MoEDecode, rc.MoEDecodeBasis = m.Spread, m.Basis
		}
		if m, ok := npuClock[c.Key]; ok {
			rc.NPUClockDecode, rc.NPUClockDecodeBasis = m.Spread, m.Basis
		}
		if byRuntime[c.Key.Runtime] == nil {
			byRuntime[c.Key.Runtime] = map[string]*runtimes.Class{}
		}
		byRuntime[c.Key.Runtime][c.Key.Name()] = &rc
		for k, ec := range c.EraClasses("cmd/roofline/" + publicRuns) {
			ec := ec
			byRuntime[c.Key.Runtime][k] = &ec
		}
	}
	for _, rt := range cat.Runtimes().All() {
		path := filepath.Join("..", "..", rt.File)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		if cls := byRuntime[rt.Name]; len(cls) > 0 {
			want = profiles.WithClasses(src, profiles.EncodeClasses(cls, regenerate)+profiles.EncodeLevels(levels[rt.Name])+profiles.EncodeSettingFactors(settings[rt.Name]))
		} else {
			want = profiles.WithClasses(src, "")
			want = []byte(strings.TrimRight(string(want), "\n") + "\n")
		}
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if string(want) != string(src) {
			t.Errorf("%s: the fitted classes differ from the fit to %s: %s", rt.File, publicRuns, regenerate)
		}
	}
	if *update {
		goGenerateProfiles(t)
	}
}

// goGenerateProfiles runs go generate ./profiles after -update rewrote
// runtime profiles: their decoded snapshot (profiles/builtin_runtimes.json)
// is made from the files as they are now, which only a new build of the
// profiles package embeds, so one -update leaves the tree consistent.
func goGenerateProfiles(t *testing.T) {
	t.Helper()
	cmd := exec.Command("go", "generate", "./profiles")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go generate ./profiles: %v\n%s", err, out)
	}
}

// TestPublicAccuracy scores the fitted classes against the published runs,
// every device predicted by a fit that never saw it, checks the targets
// and that no run beats the ideal bound, and keeps docs/accuracy.md in
// step (-update rewrites it).
func TestPublicAccuracy(t *testing.T) {
	classes, runs := publicClasses(t)
	var dr, pr []float64
	var dc, pc []bool
	for _, c := range classes {
		r, cov := c.Phase(measured.Decode)
		dr, dc = append(dr, r...), append(dc, cov...)
		r, cov = c.Phase(measured.Prefill)
		pr, pc = append(pr, r...), append(pc, cov...)
	}
	dec, pre := accuracy.Summarize(dr, dc), accuracy.Summarize(pr, pc)
	if dec.MdAPE > maxDecodeMdAPE || dec.P90 > maxDecodeP90 {
		t.Errorf("decode held-out MdAPE %.1f%%, P90 %.1f%%: targets %.0f%%, %.0f%%", 100*dec.MdAPE, 100*dec.P90, 100*maxDecodeMdAPE, 100*maxDecodeP90)
	}
	if pre.MdAPE > maxPrefillMdAPE || pre.P90 > maxPrefillP90 {
		t.Errorf("prefill held-out MdAPE %.1f%%, P90 %.1f%%: targets %.0f%%, %.0f%%", 100*pre.MdAPE, 100*pre.P90, 100*maxPrefillMdAPE, 100*maxPrefillP90)
	}
	// Issue 15: RKLLM on the RK3588, the board held out, within the same
	// aims, prefill and small-model decode included.
	if ld, lp := deviceLevelStats(classes, 3); ld.MdAPE > maxDeviceLevelDecodeMdAPE || lp.MdAPE > maxDeviceLevelPrefillMdAPE {
		t.Errorf("measured devices, each model held out: decode MdAPE %.1f%%, prefill %.1f%%: guards %.0f%%, %.0f%%", 100*ld.MdAPE, 100*lp.MdAPE, 100*maxDeviceLevelDecodeMdAPE, 100*maxDeviceLevelPrefillMdAPE)
	}
	for _, c := range classes {
		if c.Key.String() != "llama.cpp cpu" {
			continue
		}
		d, p := accuracy.Summarize(c.Phase(measured.Decode)), accuracy.Summarize(c.Phase(measured.Prefill))
		if d.MdAPE > maxCPUClassDecodeMdAPE || p.MdAPE > maxCPUClassPrefillMdAPE {
			t.Errorf("llama.cpp cpu, each device held out: decode MdAPE %.1f%%, prefill %.1f%%: guards %.0f%%, %.0f%%", 100*d.MdAPE, 100*p.MdAPE, 100*maxCPUClassDecodeMdAPE, 100*maxCPUClassPrefillMdAPE)
		}
	}
	checkJetsonClass(t, classes)
	all := accuracy.Summarize(append(dr, pr...), append(dc, pc...))
	if all.Coverage < minCoverage || all.Coverage > maxCoverage {
		t.Errorf("80 %% intervals cover %.1f%% of held-out runs, want %.0f–%.0f %%", 100*all.Coverage, 100*minCoverage, 100*maxCoverage)
	}
	dd, pd, ad := byDevice(classes, measured.Decode), byDevice(classes, measured.Prefill), byDevice(classes, "")
	if dd.MdAPE > maxDeviceDecodeMdAPE || dd.P90 > maxDeviceDecodeP90 {
		t.Errorf("by device: decode held-out MdAPE %.1f%%, P90 %.1f%%: targets %.0f%%, %.0f%%", 100*dd.MdAPE, 100*dd.P90, 100*maxDeviceDecodeMdAPE, 100*maxDeviceDecodeP90)
	}
	if pd.MdAPE > maxDevicePrefillMdAPE || pd.P90 > maxDevicePrefillP90 {
		t.Errorf("by device: prefill held-out MdAPE %.1f%%, P90 %.1f%%: targets %.0f%%, %.0f%%", 100*pd.MdAPE, 100*pd.P90, 100*maxDevicePrefillMdAPE, 100*maxDevicePrefillP90)
	}
	if ad.Coverage < minDeviceCoverage || ad.Coverage > maxCoverage {
		t.Errorf("by device: 80 %% intervals cover %.1f%%, want %.0f–%.0f %%", 100*ad.Coverage, 100*minDeviceCoverage, 100*maxCoverage)
	}
	// No well-behaved run beats the ideal bound (with the profiles'
	// classes, through compare, as a user would see it).
	cat, _ := profiles.Builtin()
	var scored []measured.Run
	for _, r := range runs {
		if r.Exclude == "" {
			scored = append(scored, r)
		}
	}
	rows, errs := compare.New(cat, compare.Options{}).Evaluate(scored)
	for _, e := range errs {
		t.Errorf("unresolved: %v", e)
	}
	for _, r := range rows {
		if r.BeatsBound {
			t.Errorf("%s (%s): %.4g t/s beats the ideal bound %.4g", r.Run.Cited(), r.Hardware, r.Measured, r.Bound)
		}
	}
	doc, err := accuracyDoc(classes, runs, dec, pre, all, spreadSection(t), servingSection(publicServingRuns(t)))
	if err != nil {
		t.Fatal(err)
	}
	const path = "../../docs/accuracy.md"
	if *update {
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if old, _ := os.ReadFile(path); string(old) != doc {
		t.Errorf("docs/accuracy.md is stale: go test ./cmd/roofline -run TestPublicAccuracy -update")
	}
}

// byDevice is the held-out error of a phase ("": both) with every
// device weighing the same.
func byDevice(classes []*accuracy.Class, ph measured.Test) accuracy.Stat {
	var r []float64
	var cov []bool
	var dev []string
	for _, c := range classes {
		for i, cs := range c.Cases {
			if c.Scored[i] && (ph == "" || cs.Run.Test == ph) {
				r, cov, dev = append(r, c.Held[i]), append(cov, c.Covered[i]), append(dev, cs.Device)
			}
		}
	}
	return accuracy.SummarizeByDevice(r, cov, dev)
}

// missionDevice says whether a device is one of the boards roofline's
// users buy on (issue 24): a Jetson in any power mode, a Raspberry Pi, a
// Rockchip board.
func missionDevice(d string) bool {
	for _, p := range []string{"jetson-", "raspberry-pi", "rk3"} {
		if strings.HasPrefix(d, p) {
			return true
		}
	}
	return false
}

// byMission scores the held-out tests with the mission's boards weighing
// as much as every other device together (each device the same within
// its half).
func byMission(classes []*accuracy.Class, ph measured.Test) (accuracy.Stat, int, int) {
	var r []float64
	var cov []bool
	var dev []string
	boards, others := map[string]bool{}, map[string]bool{}
	for _, c := range classes {
		for i, cs := range c.Cases {
			if c.Scored[i] && (ph == "" || cs.Run.Test == ph) {
				r, cov, dev = append(r, c.Held[i]), append(cov, c.Covered[i]), append(dev, cs.Device)
				if missionDevice(cs.Device) {
					boards[cs.Device] = true
				} else {
					others[cs.Device] = true
				}
			}
		}
	}
	return accuracy.SummarizeByGroup(r, cov, dev, func(d string) int {
		if missionDevice(d) {
			return 1
		}
		return 0
	}), len(boards), len(others)
}

// moeSection scores the mixture-of-experts runs twice: each device held
// out, as every run is scored, and each model held out (a fit that never
// saw the model on any device), which is what tells whether the routed
// experts' terms carry from one model to another where a model was
// measured on one device of its class.
func moeSection(classes []*accuracy.Class) string {
	var b strings.Builder
	b.WriteString("### Mixture-of-experts models\n\n")
	b.WriteString("Routed experts are priced as their own class of products (docs/method.md §6): the experts a pass reaches read once per pass, " +
		"each multiplying the tokens routed to it; under llama.cpp's CUDA prefill tiles, in whole tiles of one width chosen from the pass's tokens, so an expert's few tokens are padded (docs/method.md, MMQ). Held out by device: each device predicted by a fit that never saw it (the figures above). " +
		"Held out by model: each model predicted by a fit that never saw that model on any device.\n\n")
	b.WriteString("| model | device | class | phase | tests | by device: MdAPE | measured/predicted | by model: MdAPE | measured/predicted |\n|---|---|---|---|---:|---:|---:|---:|---:|\n")
	rows := 0
	for _, c := range classes {
		models := map[string]bool{}
		for i, cs := range c.Cases {
			if c.Scored[i] && cs.Setup.Model.Spec.MoE != nil {
				models[cs.Setup.Model.Spec.Name] = true
			}
		}
		var names []string
		for m := range models {
			names = append(names, m)
		}
		sort.Strings(names)
		for _, m := range names {
			lomo, err := c.WithoutModel(m)
			if err != nil {
				return err.Error()
			}
			devs := map[string]bool{}
			for i, cs := range c.Cases {
				if c.Scored[i] && cs.Setup.Model.Spec.Name == m {
					devs[cs.Device] = true
				}
			}
			var dl []string
			for d := range devs {
				dl = append(dl, d)
			}
			sort.Strings(dl)
			for _, d := range dl {
				for _, ph := range []measured.Test{measured.Decode, measured.Prefill} {
					var held, bym []float64
					for i, cs := range c.Cases {
						if c.Scored[i] && cs.Setup.Model.Spec.Name == m && cs.Device == d && cs.Run.Test == ph {
							held, bym = append(held, c.Held[i]), append(bym, lomo[i])
						}
					}
					if len(held) == 0 {
						continue
					}
					h, o := accuracy.Summarize(held, make([]bool, len(held))), accuracy.Summarize(bym, make([]bool, len(bym)))
					fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s | %.2f | %s | %.2f |\n", m, d, c.Key, ph, h.N, pctOf(h.MdAPE), h.Bias, pctOf(o.MdAPE), o.Bias)
					rows++
				}
			}
		}
	}
	if rows == 0 {
		return ""
	}
	b.WriteString("\n")
	return b.String()
}

// aims says which of issue 15's aims the held-out figures meet.
func aims(dec, pre, all accuracy.Stat) string {
	return verdict([]aimCheck{
		{dec.MdAPE <= 0.07, "decode MdAPE", dec.MdAPE},
		{dec.P90 <= 0.20, "decode P90", dec.P90},
		{pre.MdAPE <= 0.15, "prefill MdAPE", pre.MdAPE},
		{pre.P90 <= 0.40, "prefill P90", pre.P90},
		{all.Coverage >= 0.75 && all.Coverage <= 0.90, "coverage", all.Coverage},
	})
}

// aimCheck is one aim: whether figure v, named what, meets it.
type aimCheck struct {
	ok   bool
	what string
	v    float64
}

// verdict lists the aims met and those not: "met: decode MdAPE (6.0 %);
// not met: …".
func verdict(checks []aimCheck) string {
	var met, missed []string
	for _, c := range checks {
		w := fmt.Sprintf("%s (%.1f %%)", c.what, 100*c.v)
		if c.ok {
			met = append(met, w)
		} else {
			missed = append(missed, w)
		}
	}
	if len(met) == 0 {
		met = append(met, "none")
	}
	out := "met: " + strings.Join(met, ", ")
	if len(missed) > 0 {
		out += "; not met: " + strings.Join(missed, ", ")
	}
	return out
}

// rkllmAim says whether RKLLM on the RK3588 NPU, held out, meets the same
// aims (issue 15), and on its small models (under 1.5 B parameters)
// for decode.
func rkllmAim(classes []*accuracy.Class) string {
	var dr, small, pr []float64
	for _, c := range classes {
		if c.Key.Runtime != "rkllm" {
			continue
		}
		for i, cs := range c.Cases {
			if !c.Scored[i] || cs.Setup.Device.Module() != "rk3588" {
				continue
			}
			if cs.Run.Test == measured.Prefill {
				pr = append(pr, c.Held[i])
				continue
			}
			dr = append(dr, c.Held[i])
			if cs.Setup.Model.ParamsTotal < 1.5e9 {
				small = append(small, c.Held[i])
			}
		}
	}
	if len(dr) == 0 || len(pr) == 0 {
		return ""
	}
	stat := func(v []float64) accuracy.Stat { return accuracy.Summarize(v, make([]bool, len(v))) }
	d, sm, p := stat(dr), stat(small), stat(pr)
	met := d.MdAPE <= 0.07 && d.P90 <= 0.20 && sm.MdAPE <= 0.07 && sm.P90 <= 0.20 && p.MdAPE <= 0.15 && p.P90 <= 0.40
	verdict := "not met"
	if met {
		verdict = "met"
	}
	return fmt.Sprintf("RKLLM on the RK3588 NPU, the board held out: decode MdAPE %.1f %% and P90 %.1f %% (models under 1.5 B parameters: %.1f %% and %.1f %%), prefill %.1f %% and %.1f %%: %s.",
		100*d.MdAPE, 100*d.P90, 100*sm.MdAPE, 100*sm.P90, 100*p.MdAPE, 100*p.P90, verdict)
}

func pctOf(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

func statCells(s accuracy.Stat) string {
	if s.N == 0 {
		return "0 | — | — | — | —"
	}
	return fmt.Sprintf("%d | %s | %s | %.2f | %s", s.N, pctOf(s.MdAPE), pctOf(s.P90), s.Bias, pctOf(s.Coverage))
}

// priorStat scores the prior (the former one-rule defaults) on the same
// runs: the "before" beside the fitted "after".
func priorStat(cl *accuracy.Class, ph measured.Test) accuracy.Stat {
	var r []float64
	var cov []bool
	cases := cl.Cases
	pts := accuracy.Points(cases)
	prior := runtimes.Prior(cl.Key.Kind)
	for i, c := range cases {
		if c.Run.Test != ph || !cl.Scored[i] {
			continue
		}
		ratio := c.Measured / pts[i].Predict(prior.Efficiency)
		r = append(r, ratio)
		sp := prior.Decode
		if ph == measured.Prefill {
			sp = prior.Prefill
		}
		cov = append(cov, ratio >= sp.Low && ratio <= sp.High)
	}
	return accuracy.Summarize(r, cov)
}

// buildsSection compares, for each class fitted across eras of its
// runtime's builds, one fit for all builds with the fit that tells the
// eras apart, each device held out.
func buildsSection(classes []*accuracy.Class) string {
	var b strings.Builder
	for _, c := range classes {
		if len(c.Eras) == 0 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("### Builds\n\n")
			b.WriteString("A class measured on both sides of the end of an older era of its runtime's builds, on three devices or more each, " +
				"is fitted with that era's difference (docs/method.md §6): predictions are for the current builds, " +
				"`--runtime NAME@BUILD` prices an older one. Both columns are held out, each device predicted by a fit that never saw it; " +
				"\"one class\" fits every build alike, as before builds were told apart.\n\n")
			b.WriteString("| class | builds | phase | tests | MdAPE one class | MdAPE per era | P90 one class | P90 per era | measured/predicted per era | in 80 % interval |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
		}
		one, err := c.WithoutEras()
		if err != nil {
			return err.Error()
		}
		names := []string{"current"}
		for i := len(c.Eras) - 1; i >= 0; i-- {
			e := c.Eras[i]
			names = append(names, fmt.Sprintf("%s (to b%d)", e.Name, e.LastBuild))
		}
		for era, name := range names {
			for _, ph := range []measured.Test{measured.Decode, measured.Prefill} {
				var r, r1 []float64
				var cov []bool
				for i, cs := range c.Cases {
					if cs.Run.Test == ph && c.Scored[i] && c.EraOf(i) == era {
						r, r1, cov = append(r, c.Held[i]), append(r1, one.Held[i]), append(cov, c.Covered[i])
					}
				}
				if len(r) == 0 {
					continue
				}
				s, s1 := accuracy.Summarize(r, cov), accuracy.Summarize(r1, cov)
				fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s | %s | %s | %.2f | %s |\n", c.Key, name, ph, s.N, pctOf(s1.MdAPE), pctOf(s.MdAPE), pctOf(s1.P90), pctOf(s.P90), s.Bias, pctOf(s.Coverage))
			}
		}
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

func accuracyDoc(classes []*accuracy.Class, runs []measured.Run, dec, pre, all accuracy.Stat, spread, serving string) (string, error) {
	var b strings.Builder
	b.WriteString(accuracyHeader)
	fmt.Fprintf(&b, "| phase | tests | held-out MdAPE | P90 | measured/predicted | in 80 %% interval |\n|---|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| decode | %s |\n| prefill | %s |\n| **all** | %s |\n\n", statCells(dec), statCells(pre), statCells(all))
	dd, pd, ad := byDevice(classes, measured.Decode), byDevice(classes, measured.Prefill), byDevice(classes, "")
	fmt.Fprintf(&b, "Each device weighing the same (its n tests 1/n each, whatever the number of runs its sources published): "+
		"decode MdAPE %s, P90 %s, in the interval %s; prefill MdAPE %s, P90 %s, in the interval %s; all %s in the interval.\n\n",
		pctOf(dd.MdAPE), pctOf(dd.P90), pctOf(dd.Coverage), pctOf(pd.MdAPE), pctOf(pd.P90), pctOf(pd.Coverage), pctOf(ad.Coverage))
	md, nb, no := byMission(classes, measured.Decode)
	mp, _, _ := byMission(classes, measured.Prefill)
	ma, _, _ := byMission(classes, "")
	fmt.Fprintf(&b, "The mission's boards weighing as much as every other device together (the %d Jetson, Raspberry Pi and Rockchip devices and power modes scored one half, the %d others the other, each device the same within its half): "+
		"decode MdAPE %s, P90 %s, in the interval %s; prefill MdAPE %s, P90 %s, in the interval %s; all %s in the interval.\n\n",
		nb, no, pctOf(md.MdAPE), pctOf(md.P90), pctOf(md.Coverage), pctOf(mp.MdAPE), pctOf(mp.P90), pctOf(mp.Coverage), pctOf(ma.Coverage))
	fmt.Fprintf(&b, "Checked by the test: per test, decode MdAPE ≤ %.3g %% and P90 ≤ %.3g %%, prefill MdAPE ≤ %.3g %% and P90 ≤ %.3g %%, "+
		"interval coverage %.3g–%.3g %%; each device weighing the same, decode MdAPE ≤ %.3g %% and P90 ≤ %.3g %%, prefill MdAPE ≤ %.3g %% and P90 ≤ %.3g %%, "+
		"coverage %.3g–%.3g %%; llama.cpp on ARM CPUs, each device held out, decode MdAPE ≤ %.3g %% and prefill ≤ %.3g %%; and no scored run faster than the ideal bound. The aims of issue 15 are decode "+
		"MdAPE ≤ 7 %% and P90 ≤ 20 %%, prefill ≤ 15 %% and ≤ 40 %%, intervals covering 75–90 %%. Per test, %s. Each device weighing the same, %s. %s See \"What is left\" below.\n\n",
		100*maxDecodeMdAPE, 100*maxDecodeP90, 100*maxPrefillMdAPE, 100*maxPrefillP90, 100*minCoverage, 100*maxCoverage,
		100*maxDeviceDecodeMdAPE, 100*maxDeviceDecodeP90, 100*maxDevicePrefillMdAPE, 100*maxDevicePrefillP90, 100*minDeviceCoverage, 100*maxCoverage,
		100*maxCPUClassDecodeMdAPE, 100*maxCPUClassPrefillMdAPE,
		aims(dec, pre, all), aims(dd, pd, ad), rkllmAim(classes))

	lr := deviceLevelRatios(classes, 3)
	ld, lp := lr.stats(byDeviceName)
	fmt.Fprintf(&b, "**Measured devices.** A device with published runs is predicted with its own level (docs/method.md §6), one for each runtime class that measured it: "+
		"on the %d levels measured on three models or more, of %d devices (two levels on one device: %s), "+
		"each model predicted by the device's level fitted without it, decode MdAPE %s (P90 %s, in its interval %s), prefill MdAPE %s (P90 %s, in its interval %s), each device weighing the same.\n\n",
		lr.levels, lr.devices, lr.shared(), pctOf(ld.MdAPE), pctOf(ld.P90), pctOf(ld.Coverage), pctOf(lp.MdAPE), pctOf(lp.P90), pctOf(lp.Coverage))
	aims24 := [2]float64{0.05, 0.10}
	in, inL := lr.within(aims24, byDeviceName), lr.within(aims24, byLevel)
	lvd, lvp := lr.stats(byLevel)
	fmt.Fprintf(&b, "Issue 24 aims at decode MdAPE ≤ 5 %% and prefill ≤ 10 %% on devices measured on three models or more: %s of the decode tests are within 5 %% and %s of the prefill tests within 10 %%, each device weighing the same; an aim is met when half are. "+
		"Each level weighing the same instead (a device measured under two runtime classes weighing twice): decode MdAPE %s, %s of the tests within 5 %% (%s); prefill MdAPE %s, %s within 10 %% (%s). "+
		"The headline weighs devices because the aim is stated for devices and a board is what a user chooses: a board's runs weigh one board whatever runtimes measured it, as in the figures each device weighing the same above. "+
		"A level is what is fitted and held out, so the second figure is as fair a reading of the aim: %s\n\n",
		pctOf(in[0]), pctOf(in[1]), pctOf(lvd.MdAPE), pctOf(inL[0]), met(inL[0]), pctOf(lvp.MdAPE), pctOf(inL[1]), met(inL[1]), weightingVerdict(in, inL))
	b.WriteString(deviceLevelTable(classes, 3))
	b.WriteString(missionSection(classes))
	b.WriteString(jetsonSection(classes))
	b.WriteString(releasedSection(classes))
	b.WriteString(settingsSection(classes))
	b.WriteString(fmt.Sprintf(powerModesSection, powerModeRuns(classes, runs)))
	b.WriteString("### Per runtime and engine kind\n\n")
	b.WriteString("Before: the former one-rule defaults (the prior every class starts from, `runtimes.Prior`), on the same runs. After: the fitted class, each device held out.\n\n")
	b.WriteString("| class | devices | held out | phase | tests | MdAPE before | MdAPE after | P90 after | measured/predicted | in 80 % interval |\n|---|---:|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range classes {
		for _, ph := range []measured.Test{measured.Decode, measured.Prefill} {
			r, cov := c.Phase(ph)
			if len(r) == 0 {
				continue
			}
			s := accuracy.Summarize(r, cov)
			before := priorStat(c, ph)
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %d | %s | %s | %s | %.2f | %s |\n", c.Key, c.Devices, c.HeldOut, ph, s.N, pctOf(before.MdAPE), pctOf(s.MdAPE), pctOf(s.P90), s.Bias, pctOf(s.Coverage))
		}
	}
	b.WriteString("\nThe fitted parameters, with their standard errors, are in each runtime's profile (`roofline show runtime NAME`).\n\n")
	b.WriteString(buildsSection(classes))
	b.WriteString(moeSection(classes))

	b.WriteString("### Per device\n\n| device | class | decode tests | decode MdAPE | decode measured/predicted | prefill tests | prefill MdAPE | prefill measured/predicted |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	type key struct{ dev, class string }
	type acc struct{ d, p []float64 }
	by := map[key]*acc{}
	var keys []key
	for _, c := range classes {
		for i, cs := range c.Cases {
			if !c.Scored[i] {
				continue
			}
			k := key{cs.Device, c.Key.String()}
			a := by[k]
			if a == nil {
				a = &acc{}
				by[k] = a
				keys = append(keys, k)
			}
			if cs.Run.Test == measured.Decode {
				a.d = append(a.d, c.Held[i])
			} else {
				a.p = append(a.p, c.Held[i])
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].dev != keys[j].dev {
			return keys[i].dev < keys[j].dev
		}
		return keys[i].class < keys[j].class
	})
	cells := func(v []float64) string {
		if len(v) == 0 {
			return "0 | — | —"
		}
		s := accuracy.Summarize(v, make([]bool, len(v)))
		return fmt.Sprintf("%d | %s | %.2f", s.N, pctOf(s.MdAPE), s.Bias)
	}
	for _, k := range keys {
		a := by[k]
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", k.dev, k.class, cells(a.d), cells(a.p))
	}

	b.WriteString("\n### What each class was fitted on\n\n| class | source | tests |\n|---|---|---:|\n")
	for _, c := range classes {
		count := map[string]int{}
		for _, cs := range c.Cases {
			count[strings.SplitN(cs.Run.Cited(), " ", 2)[0]]++
		}
		var srcs []string
		for s := range count {
			srcs = append(srcs, s)
		}
		sort.Strings(srcs)
		for _, s := range srcs {
			fmt.Fprintf(&b, "| %s | %s | %d |\n", c.Key, s, count[s])
		}
	}
	b.WriteString("\nSources are described in `cmd/roofline/testdata/public/SOURCES.md`.\n")

	b.WriteString("\n### Excluded rows\n\n")
	var whole []string
	var rest []measured.Run
	for _, r := range runs {
		if r.Exclude == "" && r.Test == measured.E2E {
			whole = append(whole, strings.SplitN(r.Cited(), " ", 2)[0]+" "+r.TestName()+" on "+r.Hardware)
			continue
		}
		rest = append(rest, r)
	}
	exclusions, excluded, scored := accuracy.Excluded(rest)
	excluded += len(whole)
	fmt.Fprintf(&b, "%d of %d tests are not scored:\n\n", excluded, excluded+scored)
	for _, e := range exclusions {
		var srcs []string
		for _, s := range e.Sources {
			srcs = append(srcs, s.String())
		}
		fmt.Fprintf(&b, "- %s: %s\n", e.Reason, strings.Join(srcs, "; "))
	}
	if len(whole) > 0 {
		fmt.Fprintf(&b, "- end-to-end throughput of whole requests, prefill and decode together: held against the ideal bound (none beats it), not fitted or scored: %s\n", strings.Join(whole, "; "))
	}
	scope, err := scopeSection(runs)
	if err != nil {
		return "", err
	}
	b.WriteString(scope)
	b.WriteString("\n" + spread)
	b.WriteString(serving)
	// The measured devices' figures in "What is left" are the ones above,
	// not typed into the prose, which would go stale with the next run.
	measuredLeft := fmt.Sprintf("decode %s, prefill %s on %d devices, each weighing the same; issue 24 aims at 5 %% and 10 %%: %s of the decode tests are within 5 %% (%s) and %s of the prefill tests within 10 %% (%s); each of the %d levels weighing the same, %s and %s (%s, %s)",
		pctOf(ld.MdAPE), pctOf(lp.MdAPE), lr.devices, pctOf(in[0]), met(in[0]), pctOf(in[1]), met(in[1]), lr.levels, pctOf(inL[0]), pctOf(inL[1]), met(inL[0]), met(inL[1]))
	left := strings.Replace(strings.TrimPrefix(accuracyLeft, "\n"), "MEASURED-DEVICES", measuredLeft, 1)
	figures, err := leftFigures(classes)
	if err != nil {
		return "", err
	}
	b.WriteString(figures.Replace(left))
	return b.String(), nil
}

// scopeSection is the table of the runs held out of scope
// (accuracy.ScopePrefix) beside what roofline predicts for them, and the
// interval their MoE decodes give their class: the widening every MoE
// decode of the class takes (sim's moeDecodeClass).
func scopeSection(runs []measured.Run) (string, error) {
	cat, err := profiles.Builtin()
	if err != nil {
		return "", err
	}
	rows, err := accuracy.ScopeRows(cat, runs)
	if err != nil || len(rows) == 0 {
		return "", err
	}
	var b strings.Builder
	b.WriteString("\n### Held out of scope\n\n")
	b.WriteString("Runs of a case the model has no sourced term for: excluded from the fit and the scores above, and predicted here as `roofline compare` predicts them.\n\n")
	b.WriteString("| source | test | model | weights | device | class | measured t/s | predicted t/s | measured/predicted rate |\n|---|---|---|---|---|---|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %.1f | %.1f | %.2f |\n", strings.SplitN(r.Run.Cited(), " ", 2)[0], r.Run.TestName(),
			r.Model, r.Run.Weights, r.Device, r.Class, r.Measured, r.Predicted, r.MeasuredOverPred)
	}
	for _, sc := range []struct {
		keep func(accuracy.ScopeRow) bool
		what string
		// prose follows "The CLASS class: BASIS. ", the interval's
		// low and high ends its two verbs.
		prose string
	}{
		{accuracy.MoEDecodes, accuracy.MoEDecodesWhat, "Every prediction of an MoE model's decode on the class says so (warning `moe-decode-unmodelled`; a model offloaded to the host or split over devices, for its stages on the class) and takes %.4g-%.4g × the predicted time as its decode interval where that is wider than the class's, so that it covers these runs: the class's 80 %% interval joined with their full range, it holds more than 80 %%, and predict labels it (and the E2E and throughput intervals it enters) \"80%% widened\" (JSON: intervals_widened); its point prediction is the class's."},
		{accuracy.NPUClockDecodes, accuracy.NPUClockDecodesWhat, "A prediction at an NPU clock below the engine's maximum (`--clocks npu=…`) says so (warning `npu-clock-unmodelled`) and takes %.4g-%.4g × the predicted time as its decode interval where that is wider than the class's, so that it covers these runs (the class's 80 %% interval joined with their full range: it holds more than 80 %%); its point prediction prices the clock through the NPU's peaks alone."},
	} {
		spreads := accuracy.ScopeSpreads(rows, sc.keep, sc.what)
		for _, k := range slices.SortedFunc(maps.Keys(spreads), func(a, b accuracy.Key) int { return strings.Compare(a.String(), b.String()) }) {
			sp := spreads[k]
			fmt.Fprintf(&b, "\nThe %s class: %s. "+sc.prose+"\n", k, sp.Basis, sp.Spread.Low, sp.Spread.High)
		}
	}
	return b.String(), nil
}

// leftFigures fills the placeholders of "What is left" with the figures
// computed above (the Jetson CUDA class's and the llama.cpp cpu class's
// against issue 24's aims, the CPU boards held out), so that the prose
// follows the runs rather than the day it was written. No key may begin
// another: strings.Replacer tries them in the order given. A class or
// board whose figures cannot be computed is an error, not a "0.0 %" in
// the prose.
func leftFigures(classes []*accuracy.Class) (*strings.Replacer, error) {
	var kv []string
	add := func(key, v string) { kv = append(kv, key, v) }
	js, ok := jetsonFigures(classes)
	if !ok {
		return nil, fmt.Errorf("\"What is left\": no held-out figures for the %s class", jetsonClass)
	}
	cpu := false
	add("JETSON-DECODE", pctSpaced(js.byModule[0].MdAPE))
	add("JETSON-PREFILL", pctSpaced(js.byModule[1].MdAPE))
	add("JETSON-COVERAGE-PREFILL", pctSpaced(js.byModule[1].Coverage))
	for _, c := range classes {
		if c.Key.String() != "llama.cpp cpu" {
			continue
		}
		cpu = true
		d, p := accuracy.Summarize(c.Phase(measured.Decode)), accuracy.Summarize(c.Phase(measured.Prefill))
		add("CPU-DECODE", pctSpaced(d.MdAPE))
		add("CPU-PREFILL", pctSpaced(p.MdAPE))
		add("CPU-COVERAGE", fmt.Sprintf("%s and %s", pctSpaced(p.Coverage), pctSpaced(d.Coverage)))
		// The runs on every core the chip has (no --threads below it).
		var full [2][]float64
		var fcov [2][]bool
		for i, cs := range c.Cases {
			if !c.Scored[i] || !allCores(cs) {
				continue
			}
			k := 0
			if cs.Run.Test == measured.Prefill {
				k = 1
			}
			full[k], fcov[k] = append(full[k], c.Held[i]), append(fcov[k], c.Covered[i])
		}
		add("CPU-FULL-DECODE", pctSpaced(accuracy.Summarize(full[0], fcov[0]).MdAPE))
		var pi []float64
		for i, cs := range c.Cases {
			if c.Scored[i] && cs.Device == "raspberry-pi-5-8gb" && cs.Run.Test == measured.Prefill && allCores(cs) {
				pi = append(pi, c.Held[i])
			}
		}
		ps := accuracy.Summarize(pi, make([]bool, len(pi)))
		add("PI5-FULL-PREFILL", fmt.Sprintf("%s and %.2f", pctSpaced(ps.MdAPE), ps.Bias))
		// Why the decode coverage is what it is: each board's held-out
		// interval, the Pi 5's own ratios, and the coverage each device
		// weighing the same.
		iv := func(dev string) string {
			s := c.HeldOutSpread(measured.Decode, dev)
			return fmt.Sprintf("×%.2f–%.2f", s.Low, s.High)
		}
		add("PI5-INTERVAL", iv("raspberry-pi-5-8gb"))
		add("RK3588-INTERVAL", iv("rk3588"))
		add("A57-INTERVAL", iv("jetson-nano-4gb"))
		lo, hi := math.Inf(1), math.Inf(-1)
		in, n := map[string]float64{}, map[string]float64{}
		for i, cs := range c.Cases {
			if !c.Scored[i] || cs.Run.Test != measured.Decode {
				continue
			}
			// A board variant (the RK3588 with LPDDR5) counts as its
			// board, as the fit holds it out with it.
			dev := cs.Device
			if cs.Setup.Device.Module() == "rk3588" {
				dev = "rk3588"
			}
			n[dev]++
			if c.Covered[i] {
				in[dev]++
			}
			if cs.Device == "raspberry-pi-5-8gb" {
				lo, hi = math.Min(lo, c.Held[i]), math.Max(hi, c.Held[i])
			}
		}
		byDev := 0.0
		for d := range n {
			byDev += in[d] / n[d] / float64(len(n))
		}
		add("PI5-RANGE", fmt.Sprintf("%.2f–%.2f", lo, hi))
		add("CPU-BYDEVICE-DECODE", pctSpaced(byDev))
		add("CPU-CALIBRATED-ON", pctSpaced(c.RawCoverage[0]))
		add("CPU-WIDEN", fmt.Sprintf("×%.2f", c.Widen[0]))
		add("CALIBRATED-ON-CPU-PREFILL", pctSpaced(c.RawCoverage[1]))
		add("WIDEN-CPU-PREFILL", fmt.Sprintf("×%.2f", c.Widen[1]))
		// The prose counts the boards' decode tests and says which are
		// covered: computed here, and an error where the runs stop
		// bearing it out, not a sentence that goes stale.
		const pi5, rk, a57, orin, thor = "raspberry-pi-5-8gb", "rk3588", "jetson-nano-4gb", "jetson-orin-nano-super-8gb", "jetson-agx-thor"
		total := 0.0
		for _, k := range n {
			total += k
		}
		switch {
		case in[pi5] != n[pi5]:
			return nil, fmt.Errorf("\"What is left\": the prose says every decode test of the Pi 5 is covered; covered %g of %g", in[pi5], n[pi5])
		case len(n) != 5 || 2*n[pi5] < total || n[a57] != 2 || n[orin] != 1 || n[thor] != 3:
			return nil, fmt.Errorf("\"What is left\": the prose says the llama.cpp cpu class's decode tests are mostly the Pi 5's, on five boards, the A57 two models, the A78AE one, the Thor three; %g of %g on %d", n[pi5], total, len(n))
		case !(c.Widen[0] > 1):
			return nil, fmt.Errorf("\"What is left\": the prose says the llama.cpp cpu class's decode intervals are widened; widened ×%.2f", c.Widen[0])
		}
		add("DECODE-TESTS-PI5", fmt.Sprint(n[pi5]))
		add("DECODE-TESTS-CPU", fmt.Sprint(total))
		tests := func(k float64) string {
			if k == 1 {
				return "1 test"
			}
			return fmt.Sprintf("%g tests", k)
		}
		add("DECODE-TESTS-RK3588", tests(n[rk]))
		add("DECODE-TESTS-A57", tests(n[a57]))
		add("DECODE-TESTS-ORIN", tests(n[orin]))
		add("DECODE-TESTS-THOR", tests(n[thor]))
		// Which boards' held-out decodes fall outside their intervals,
		// counted, not asserted.
		var outside []string
		for _, b := range []struct{ dev, name string }{{rk, "the RK3588's"}, {a57, "the A57's"}, {orin, "the A78AE's"}, {thor, "the Thor's"}} {
			if in[b.dev] < n[b.dev] {
				outside = append(outside, fmt.Sprintf("%g of %s %s", n[b.dev]-in[b.dev], b.name, tests(n[b.dev])))
			}
		}
		switch len(outside) {
		case 0:
			add("BOARDS-OUTSIDE-DECODE", "every board's tests inside")
		default:
			add("BOARDS-OUTSIDE-DECODE", "every board's tests inside but "+strings.Join(outside, " and ")+", which fall outside")
		}
		add("PI5-MISSED", fmt.Sprint(n[pi5]-in[pi5]))
		add("RK3588-MISSED", fmt.Sprint(n[rk]-in[rk]))
		add("THOR-MISSED", fmt.Sprint(n[thor]-in[thor]))
		add("THOR-INTERVAL", iv(thor))
		// The Thor's three decodes held out, by model size.
		var th []string
		for _, m := range []string{"qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b"} {
			for i, cs := range c.Cases {
				if c.Scored[i] && cs.Device == thor && cs.Run.Test == measured.Decode && cs.Run.Model == m {
					th = append(th, fmt.Sprintf("%.2f", c.Held[i]))
				}
			}
		}
		if len(th) != 3 {
			return nil, fmt.Errorf("\"What is left\": the prose names the Thor's decodes of Qwen2.5 7B, 14B and 32B; found %d", len(th))
		}
		add("THOR-HELD", fmt.Sprintf("%s, %s and %s", th[0], th[1], th[2]))
	}
	if !cpu {
		return nil, fmt.Errorf("\"What is left\": no llama.cpp cpu class")
	}
	// Each board held out of the class, only the figures the prose names:
	// how far off the two dot-product boards' prefill is, and how slow the
	// A57 runs against a class fitted on them.
	for _, b := range []struct {
		key, device string
		ratios      bool
	}{{"PI5", "raspberry-pi-5-8gb", false}, {"RK3588", "rk3588", false}, {"A57", "jetson-nano-4gb", true}, {"ORIN", "jetson-orin-nano-super-8gb", true}} {
		bs, ok := boardFigures(classes, b.device, "llama.cpp cpu")
		if !ok {
			return nil, fmt.Errorf("\"What is left\": no held-out figures for %s in the llama.cpp cpu class", b.device)
		}
		d, p := bs.device[0], bs.device[1]
		if b.key == "ORIN" && !(p.Bias < 1) {
			return nil, fmt.Errorf("\"What is left\": the prose says the Orin's CPU prefills faster than predicted, as a faster kernel would; it runs %.2f× the predicted time", p.Bias)
		}
		if b.ratios {
			add(b.key+"-DECODE-RATIO", fmt.Sprintf("%.2f", d.Bias))
			add(b.key+"-PREFILL-RATIO", fmt.Sprintf("%.2f", p.Bias))
			continue
		}
		add(b.key+"-PREFILL-OFF", fmt.Sprintf("%s off, %.2f", pctSpaced(p.MdAPE), p.Bias))
	}
	// MLC's Orin Nano level, each model held out: its error, range and
	// tests within 5 %, and the class's fitted unpacking share.
	mlc := false
	for _, c := range classes {
		lv := c.DeviceLevels["jetson-orin-nano-8gb"]
		if c.Key.String() != "mlc gpu" || lv == nil || len(lv.Held) == 0 {
			continue
		}
		mlc = true
		in := 0
		for _, r := range lv.Held {
			if math.Abs(r-1) <= 0.05 {
				in++
			}
		}
		add("MLC-DECODE", pctSpaced(accuracy.Summarize(lv.Held, make([]bool, len(lv.Held))).MdAPE))
		add("MLC-RANGE", fmt.Sprintf("%.2f–%.2f", slices.Min(lv.Held), slices.Max(lv.Held)))
		add("MLC-WITHIN", fmt.Sprintf("%d of %d", in, len(lv.Held)))
		add("MLC-SHARE", fmt.Sprintf("%.3f", c.Fit.Efficiency.KQuantGEMV))
		// Weights unpacked a clock per SM: the share of the FP32 peak,
		// SMs × 128 lanes × 2 FLOP × clock, at 2 FLOP a weight is
		// share × 128 (Ampere's 128 FP32 lanes an SM).
		add("MLC-PER-CLOCK", fmt.Sprintf("%.0f", c.Fit.Efficiency.KQuantGEMV*128))
	}
	if !mlc {
		return nil, fmt.Errorf("\"What is left\": no MLC level for the Orin Nano")
	}
	return strings.NewReplacer(kv...), nil
}

// allCores says whether cs ran on every core of its engine: no --threads,
// or as many as the device's profile gives the engine (the setup's engine
// is narrowed to the threads a run used).
func allCores(cs accuracy.Case) bool {
	if cs.Run.Threads <= 0 {
		return true
	}
	for _, e := range cs.Setup.Device.Engines {
		if e.Name == cs.Setup.Engine.Name {
			return cs.Run.Threads >= e.Units
		}
	}
	return true
}

// pctSpaced is a share as the prose writes it: "9.0 %".
func pctSpaced(v float64) string { return fmt.Sprintf("%.1f %%", 100*v) }

const accuracyHeader = `# Accuracy

What roofline's numbers have been checked against, and how. This page is
written by the test suite: ` + "`go test ./cmd/roofline -run TestPublicAccuracy -update`" + `
regenerates it, and ` + "`go test ./...`" + ` fails when it is out of date.

## Sizes (exact accounting)

| check | roofline | published | source |
|---|---|---|---|
| Llama-3.1-8B parameters | 8,030,261,248 | 8.03 B | llama.cpp load log |
| LLaMA-2-7B parameters | 6.738 B | 6.74 B | llama.cpp PR #3776 |
| Mixtral-8x7B total / active | 46.70 B / 12.88 B | 46.7 B / 12.9 B | Mistral AI |
| DeepSeek-V3 total / active | 671.0 B / 37.55 B | 671 B / 37 B | DeepSeek-V3 README |
| Qwen3-30B-A3B total / active | 30.53 B / 3.35 B | 30.5 B / 3.3 B | Qwen model card |
| Llama-3.1-8B Q4_K_M file | 4.575 GiB | 4.58 GiB | llama.cpp quantize README |
| Llama-3.1-8B Q8_0 / Q6_K / Q5_K_M / Q4_K_S / Q2_K / F16 | within 1.5 % | 7.95 / 6.14 / 5.33 / 4.36 / 2.95 / 14.96 GiB | same |
| Llama-3-70B Q4_K_M file | 39.59 GiB | 39.59 GiB | XiongjieDai/GPU-Benchmarks-on-LLM-Inference |
| Llama-3.2-3B Q4_K_M file | 1.873 GiB | 1.87 GiB | geerlingguy/ai-benchmarks #48 |
| LLaMA-2-7B Q4_0 / Q8_0 / F16 files | within 1 % | 3.56 / 6.67 / 12.55 GiB | llama.cpp discussion #4167 |
| Llama-3.1-8B f16 KV per token | 131,072 B | 512 MiB at 4096 tokens | llama.cpp log |
| Llama-3.1-8B compute buffer, ubatch 512 | 286.5 MiB | 296 MiB | llama.cpp log |

## Not checked against measurements

The figures of ` + "`roofline chat`" + ` and ` + "`predict`" + `'s extras are built from the
checked ones below but have no published measurements of their own here:

- **Conversations**: each turn is exactly a prediction of its prefill and
  decode (tested), so its accuracy is that of TTFT and TPOT below; the
  context-shift cost under keep-kv is an estimate of llama.cpp's K re-rotation.
- **Cold start**: named storage media are bus limits; real cards and drives
  read slower, so load times are lower bounds. Page-cache (warm file) loads
  are not modelled.
- **Energy**: rated power (a budget) drawn for the whole request; a measured
  draw is usually lower, so energy per token is an upper estimate.
- **Speculative decoding**: the acceptance rate is the user's; the model
  assumes independent acceptance per token (Leviathan et al., 2023) and no
  tree drafting.

## Time: default predictions against published runs

` + "`cmd/roofline/testdata/public/runs.csv`" + ` holds published llama.cpp (Ollama's among them), MLC,
RKLLM, TensorRT-LLM, TensorRT Edge-LLM, vLLM, gpt-fast and distributed-llama
measurements (sources in
` + "`cmd/roofline/testdata/public/SOURCES.md`" + `) mapped onto built-in profiles,
one test per row: datacenter and desktop GPUs, Apple silicon, and the
boards roofline's users buy on — Jetson Orin modules and the AGX Thor under
llama.cpp, TensorRT-LLM, TensorRT Edge-LLM, vLLM and MLC, the 2019 Jetson
Nano's Maxwell GPU and Cortex-A57 cores, the Raspberry Pi 5 and the
RK3588's Cortex-A76 cores under llama.cpp (the Pi 5 under
distributed-llama too), and RKLLM on the RK3588, RK3576 and RK3562 as
Rockchip and as independent users measured it. Each runtime's
efficiency on each kind of engine (docs/method.md §6) is fitted to these
runs by least squares on relative error, a device's runs of a phase
sharing one bias (generalized least squares), with a level for each
family of devices fitted beside it (the Jetsons' fixed costs, launched
by a Cortex-A78AE on a 1 GHz GPU, are an order of magnitude above a
desktop's) and a level for each measured device on top
(docs/method.md "Families and devices").

Two kinds of figure below, both **held out**. *A device nobody has
measured*: each device's runs predicted by its class and family fitted
without that device and its power modes (for a class measured on one or
two devices, without that model); this is the headline. *A measured
device*: its runs predicted with its own level, each model by a level
fitted without that model — what ` + "`predict`" + ` gives for a board with
published runs. MdAPE is the median absolute error of the predicted rate,
P90 its 90th percentile; "measured/predicted" is the median ratio of times
(above 1: slower than predicted). The 80 % interval of each test is the
class's spread of held-out ratios computed without the test's own device,
each device weighing the same, widened for the few devices it rests on
(Student's t at devices − 1 degrees of freedom, times √(1 + 1/devices)) and
then by the one factor per class and phase that makes it cover 80 % of
that phase's held-out runs where it covered less (a phase measured on
fewer than three devices takes at least the factor of both phases
pooled; docs/method.md §6): the coverage reported is in-sample for that
factor. A runtime's backend measured on three or more
devices (llama.cpp's CUDA and Metal) is a class of its own; the engine
kind's class is fitted on all the runtime's runs and scores the rest (AMD).
llama-bench tgN tests start from an empty cache and average over N tokens;
ppN tests are priced with the run's ubatch. A run whose runtime column names
its build (a build number, a date) is priced at that build: llama.cpp's
CUDA runs of builds before June 2024 with the class of that era, the later
runs with the current one ("Builds" below).

Calibrating a device from your own runs (roofline calibrate) removes most of
the per-device bias visible below; these figures are what to expect without it.

`

const accuracyLeft = `
## What is left

- **The mission's boards, unmeasured, are where the class misses most.**
  Four Jetson modules are published under llama.cpp's CUDA backend: the
  Orin Nano 8GB (four power modes), the AGX Orin 64GB (MAXN, MODE_30W),
  the 2019 Jetson Nano (one model, one build pair) and the Jetson AGX
  Thor (MAXN, three models of one family: THOR-GTIER's Qwen2.5-7B, 14B
  and 32B Q8_0). As one class ("The Jetson CUDA class" above), each
  module held out and weighing the same, they decode JETSON-DECODE off (issue
  24's aim: 8 %; 8.2 % with the Thor's one model, 6.9 % on the three
  modules before the Thor, both before TINYAGENT-JETSON's Qwen2.5-3B
  was added) and prefill JETSON-PREFILL. Each predicted from the
  desktop GPUs and the other three modules, the Orin Nano's modes decode
  within 6–12 % (0.93–1.12 of the predicted time), the AGX Orin 7–9 %
  faster than predicted, the Jetson Nano 1.08× slower (its Maxwell GPU,
  compute capability 5.3, runs no CUDA graph: every kernel is priced
  launched by four 1.43 GHz Cortex-A57s), and the Thor 1.31× faster on
  every model (measured/predicted 0.76 for 7B, 14B and 32B alike;
  prefill 1.10). The ratio does not move while a step grows 4.4×
  (Qwen2.5-7B's 28 layers at 31 tokens/s to 32B's 64 at 7.1): a cost per
  step or per layer, which is where a host's speed enters (fourteen
  Neoverse-V3AE at 2.6 GHz against the Orins' Cortex-A78AE), would
  shrink against it; a cost per byte does not. The Thor decodes at 0.85,
  0.87 and 0.88 of the rate its 273 GB/s datasheet allows (its GPU
  STREAM-triad: 0.92), where the family's level, fitted on Orin-era and
  Maxwell modules, expects 0.65–0.68: its memory system, not its host
  (docs/method.md, "The Jetson AGX Thor's bandwidth"). One project's
  GPU read benchmarks (infinigence/ApxInf) give the Thor 0.95 of its
  datasheet and the AGX Orin 0.75, but the Orin's copies run faster than
  its reads (183 against 153 GB/s): its share is its Ampere SMs' reads in
  flight, 7.4 B per SM cycle, the cap the fit already finds for the
  family (8.0), not its memory. Priced from those figures on the runs
  of a075250 (the Thor's share × 0.951 / 0.754 and its cap per SM at the
  DRIVE Thor's 12.0 B a cycle) the Thor is predicted at 0.98 and the
  class at 5.7 %, but the class's bandwidth share, no longer lifted by
  the Thor's runs, falls (0.777 → 0.745) and per-test decode goes from
  7.1 % to 8.4 %; and the share correction counts the Orin's cap twice.
  Not kept. No read figure is published for the Orin Nano or the Jetson
  Nano, and the family's bandwidth stays fitted on datasheet figures.
  What is left is by model, not by mode: on the same Orin Nano modes
  Qwen2.5-0.5B decodes 1.04–1.15× faster than predicted, Qwen3-0.6B
  1.00–1.09×, and Llama-3.2-1B and the 2–4 B models 0.87–0.95× as fast;
  on the AGX Orin IQ4_XS decodes 1.21–1.25× faster than predicted where
  Q4_K_M of the same model decodes 1.06–1.10×. The tensor types differ
  (Q5_0 and Q8_0 against Q4_K and Q6_K), and on a GPU of 8 or 16 SMs
  at 0.4–1.3 GHz a decode kernel's instructions per byte may bound it;
  llama.cpp's CUDA kernels per type are not priced (the CPU's are;
  an issue-rate cap counted per type was tried and not kept:
  docs/method.md), so this stays in the interval. Unmeasured prefill runs 1.09–1.29× slower
  than predicted on the Orin Nano's modes. The family's interval,
  computed without the module from the three others (Student's t at
  three degrees of freedom; at two, with three modules, it covered every
  decode run), covers every decode run of the Orin-era and Maxwell
  modules and none of the Thor's, and JETSON-COVERAGE-PREFILL of the prefill runs (72.2 %
  with the Thor's one model), each module weighing the same. No
  llama.cpp run on an Orin NX, an AGX Orin 32GB or a Xavier with a
  built-in model was found (SOURCES.md lists what was read). Measured,
  each module's own level predicts its runs of models it was not fitted
  on within 6–15 % (Orin Nano's modes) and 5–6 % (AGX Orin, one model);
  the Thor's, fitted on two of its three models, 16.8 % off (0.83): a
  level on two runs is shrunk most of the way to the family's.
- **RKLLM as users run it.** The conversion's context and the clocks are
  priced as settings of the run (above), fitted beside the RK3588's level:
  what a user predicts for the board with its own settings. Three limits
  remain. No independent run states its governors, and those runs differ
  from Rockchip's in more than the settings (RKLLM 1.2.1 against 1.3.0,
  sampling on the CPU, the board): the clocks factor carries all of it.
  The context factor rests on Qwen3-4B at 16k against 4k on two boards and
  Qwen3-0.6B at 16k against Rockchip's run, the prefill factor on one
  server's short-prompt TTFTs. And the factors are fitted on the RK3588
  only: the RK3576 and RK3562 get them untested, and the RK3588 held out
  (a board like it nobody measured) has none, so its unmeasured figures
  stay where they were. RKLLM allocates the KV cache from the context
  (rknn-llm issue #352), but the one published memory figure (890 MB for
  Qwen3-0.6B converted for 16k, a 909 MB file) shows no 1.9 GB cache in the
  process's memory, so the memory account keeps the tokens held.
- **llama.cpp on ARM CPUs** rests on five devices: the Raspberry Pi 5,
  the RK3588's Cortex-A76 cores (a ROCK 5B, and a ROCK 5B+ with LPDDR5
  at 2400 MHz scored beside it and left out with it, as a board
  variant), the 2019 Jetson Nano's four
  Cortex-A57s (two models, four tests), the Jetson Orin Nano Super's six
  Cortex-A78AEs (one model, two tests) and the Jetson AGX Thor's
  Neoverse-V3AE cores (below), with no family levels (a CPU engine is its own
  host, and the two Jetsons' CPUs share no core: docs/method.md,
  "Families and devices"). The A57 has no int8 dot-product
  instruction, and llama.cpp's fallback issues six instructions where its
  SMULL peak counts two per cycle: its products run at 2/3 of that peak
  (docs/method.md §6, "Cores without int8 dot products"). On a core with
  dotprod llama.cpp repacks Q4_0 and IQ4_NL into GEMM kernels whose
  instructions reach 1.855 and 1.455 × the Q4_K vec_dot kernel the class
  is mostly fitted on (counted from llama.cpp's source, docs/method.md
  §6), and the profile's kernel rules price them so. llama.cpp picks a
  kernel per tensor type, and a file of one label mixes types: its
  quantizer falls back to Q5_0 (Q5_1) for the Q4_K (Q5_K) tensors whose
  rows its 256-weight blocks do not divide, so 70 % of Qwen2.5-0.5B's
  Q4_K_M products (hidden size 896) run Q5_0's vec_dot kernel, 0.429 ×
  the Q4_K kernel by its instructions; each product is priced at its own
  type's rule (docs/method.md §6, "A kernel per tensor type"). A run
  on fewer threads than the chip has cores is priced on those cores
  (--threads, a runs CSV's threads column; docs/method.md §6,
  "Threads"), so the Pi 5's sweeps at 1 to 3 threads (EDGE-MEMWALL,
  EDGE-FORMAT-TAX: 36 tests) are scored beside its 4-thread runs. Held
  out by device the class prefills CPU-PREFILL off (12.2 % before those
  sweeps were scored; 17.6 % with one rule per file format, 21.9 % with
  one matrix efficiency for every format, 39.5 % before the A57's share)
  and decodes CPU-DECODE (CPU-FULL-DECODE on the runs on every core of the engine; 7.8 % before the
  files of Qwen2.5-0.5B that store their head apart were priced so,
  below), in its interval CPU-COVERAGE of the time; the Pi 5 held
  out prefills PI5-PREFILL-OFF of the prediction (PI5-FULL-PREFILL on
  its 4-thread runs alone, 16.8 % and 1.04 before per-type kernels; its
  Qwen2.5-0.5B formats spread 0.70–2.19 then, 0.70–1.69 now), the RK3588
  RK3588-PREFILL-OFF (28.5 % and 1.10 before), and the A57 decodes A57-DECODE-RATIO× and
  prefills A57-PREFILL-RATIO× slower than the other boards predict (1.41× and 1.17×
  with the family levels, 1.38× and 1.13× before the sweeps, 1.34× and
  1.08× before the Pi 5's Q5_0 runs moved the class's matrix
  efficiency). The Orin Nano Super's CPU (TINYAGENT-JETSON: Qwen2.5-3B
  Q4_K_M at six threads in MAXN_SUPER, the one CPU run here that states
  its build, 873e5d8 of August 2026) decodes ORIN-DECODE-RATIO× and prefills
  ORIN-PREFILL-RATIO× the predicted time. What is left: the other
  published ARM runs state no build, and builds since December 2025 (the
  Orin's among them) repack Q4_K, Q8_0, Q5_K and Q6_K on such cores too
  (pull requests #17494, #18096, #19356, #19360), so those types keep the
  vec_dot kernel's factor, which one run of a new build cannot refit (the
  Orin's prefill, ORIN-PREFILL-RATIO× the prediction, is what a faster kernel would
  give); the RK3588's Gemma-3-1B, held out, prefills at 0.97
  of the prediction in Q4_0, 1.23 in Q8_0, 1.74 in Q6_K (mostly Q8_0
  tensors: hidden size 1152) and 0.66 in F16, and the Pi 5's Q8_0 at
  0.70 (as a repacked or llamafile GEMM kernel would), which one Q8_0
  factor cannot fit both; the Pi 5's Q2_K (70 % of its products in Q4_0
  by the 2026 quantizer's fallback, which older quantizers made IQ4_NL,
  and 30 % in Q3_K) prefills at 1.69. The Nano's
  TinyLlama run reaches 27 % of its Q4_K kernel's instruction bound at the
  datasheet clock, where the Pi 5's Q4_K_M runs reach 59–72 % of theirs:
  its nvpmodel mode is not stated, and NVIDIA's 5 W mode (two cores at
  918 MHz) would put it near 85 %. Its second model, Gemma-3-1B Q4_K_M
  (KREIER-JETSON-NANO's CPU column: a llama-bench table that prints no
  build or threads, taken at llama-bench's defaults, the four cores),
  whose 1152-wide rows the quantizer stores in Q5_0 and Q8_0, decodes
  1.40× and prefills 1.38× the time the other boards predict, where
  TinyLlama (Q4_K throughout) decodes 1.16× and prefills 1.10×: the
  class prices the core without dot products at one 2/3 share of every
  type's kernel, which the two files do not bear out alike. Scored, the
  pair moves the class (its decode interval ×0.77–1.46 → ×0.72–1.94, the
  Thor's held-out decodes 1.06–1.55 → 1.36–1.99) and the A57 held out
  decodes A57-DECODE-RATIO× slow, inside its interval (1.38× with the
  family levels, outside the class's interval then). No llama-bench run
  of an RK3576 CPU with a built-in model was found (searched again
  2026-11-29, testdata/public/SOURCES.md).
  A Raspberry Pi 4 was (SENSURA-PI4: 4 models, Q4_0 to Q8_0, 40 tests)
  and is not scored, nor given a profile: its four Cortex-A72s decode
  at 3.5–4.6 GB/s whatever the format (file size × tokens/s, 30 % of the
  12.8 GB/s datasheet, where the Pi 5 reads 66 %), while the class
  prices the A72's decode compute-bound at one rate for every format;
  priced on a datasheet profile it decodes at 0.49–0.82 of the
  prediction, under the decode interval on all 20 tests (prefill
  0.85–1.29, all inside), and fitted as a fourth device (on the
  three-board class with family levels) it took decode held out by device
  from 4.3 to 54.9 % and its coverage from 97.8 to 63.6 %; as a fifth
  device of today's class it takes decode from 5.9 to 39.8 %, and priced
  on sbc-bench's one-core memcpy, the one CPU bandwidth measured alike on
  all five boards, to 16.1 % (testdata/public/SOURCES.md, "Considered and
  rejected"). It waits for a multi-threaded CPU bandwidth measured alike
  on every device of the class. The aarch64 pull requests of llama.cpp carry Graviton3/3E
  tables at stated threads (#15277: Llama-3.1-8B Q4_K_M at 8 threads;
  #19132 and #21916 on 4 to 64 of a Graviton3E's cores), which
  --threads can now price, but none read states the build its
  baseline ran, and no Graviton, Grace or Ampere profile exists yet
  (testdata/public/SOURCES.md, "Considered and rejected"). A fifth
  device was found and is not scored: an Apple M4 Pro's P cores (the
  profile's CPU engine: 10 cores at 4.512 GHz, four 128-bit pipes) in
  llama.cpp pull request #11390, Llama-3.2-1B Q4_0 tg64 at 1 to 10
  threads on the master build 6eecde3c (4621), measure 1.01–1.26 × the
  class's rate (median error 4.9 %), but held out the class
  prices it 2.0–3.7× too slow: an M4 P core streams 36.5 GB/s on one
  thread, a Pi 5 A76 6.7 GB/s, and the class's costs are fitted on cores
  of 0.96–2.4 GHz; scored, decode held out by device goes 5.9 → 7.2 %
  and the calibration widens the class's intervals to its limit (×4)
  while the M4 Pro's six tests stay outside (LCPP-11390-M4PRO). It needs
  what sets a fast core's rate sourced alike on every CPU profile (a
  bandwidth per core measured the same way). The Pi 5's
  decode, Q2_K to Q8_0 at 1 to 4 threads, is 4.0 % off held out (1.9 %
  on its 4-thread runs alone, 11.1 % before): EDGE-FORMAT-TAX's Qwen2.5-0.5B files, 24–30 %
  larger than the recipes, store output.weight beside token_embd (its
  llama-quantize log: 291 tensors, output.weight at Q8_0 137.94 MiB,
  token_embd at Q4_0 73.03 MiB), and were priced as if every extra byte
  were read per token (0.80–0.88 of the prediction); a file one embedding
  table larger than a tied model's recipe is now read untied
  (docs/formats.md), and its formats decode at 1.01–1.17 of the class,
  beside EDGE-MEMWALL's tied files at 0.99–1.18.
  The Jetson AGX Thor's CPU (THOR-GTIER: Qwen2.5 7B, 14B and 32B Q8_0,
  llama-bench -ngl 0 on a CUDA build at its default 14 threads, one a
  Neoverse-V3AE core, in MAXN) is the class's fifth board and its only
  server-class cores, and with the A57's Gemma-3-1B (above) it is why
  the class misses issue 24's decode aim: held out, its three decodes
  take THOR-HELD × the predicted time, and with them scored the class
  decodes CPU-DECODE off held out by device (about 10 % on the other four
  boards; 5.9 %, within the 8 % aim, before the A57's second model). It is
  scored, not left out: a row that makes a figure worse is what users
  measure. No sourced term prices it. Bandwidth is not what holds it
  back: the same study's CPU STREAM-triad reads 209.2 GB/s on 12
  threads (docs/PLATFORM_NOTES.md @fcb6d566), and the decodes stream
  79, 88 and 117 GB/s (roofline's bytes a token × tokens/s). ggml's barrier after each graph
  node (ggml_barrier, ggml/src/ggml-cpu/ggml-cpu.c @d99724f2: one
  sequentially consistent increment per thread on a shared counter, so
  its cost grows with the threads) measured 2.0–3.2 µs a node on 4 to
  8 threads of x86 hosts (llama.cpp pull requests #9461 and #9598), a
  tenth of a millisecond a layer; priced at the 209.2 GB/s the three
  steps leave 2.10, 2.04 and 2.02 ms a layer (28, 48 and 64 layers),
  twenty times that, and the class's boards (1 to 6 threads) put the
  layer's cost at tens of µs. A cost of about 2 ms a layer that does not
  grow with the layer's width fits the three, but nothing read says
  what it is, and a term fitted on one board's three rows would price
  every other CPU at 14 threads by it. The class's coverage
  (CPU-COVERAGE, prefill and decode, against issue 24's 75–90 %) is
  mostly the Pi 5's: DECODE-TESTS-PI5 of its DECODE-TESTS-CPU decode
  tests are that board's. Each device weighing the same, decode is
  covered CPU-BYDEVICE-DECODE (BOARDS-OUTSIDE-DECODE); the class's intervals are calibrated on
  that weighting, each phase on its own, to cover 80 %: decode
  CPU-CALIBRATED-ON before, widened CPU-WIDEN; prefill
  CALIBRATED-ON-CPU-PREFILL, widened WIDEN-CPU-PREFILL. The Thor held out gets THOR-INTERVAL,
  built from the four other boards (their 10th–90th percentiles widened
  ×1.43 for resting on four devices: Student's t at three degrees of
  freedom over the normal quantile, times √(5/4)), which THOR-MISSED of
  its three decodes fall outside; predicted with its runs in the class (roofline
  predict on the Thor's cpu engine), its own level carries them. The Pi
  5 held out decodes inside PI5-INTERVAL, built from the RK3588's
  DECODE-TESTS-RK3588, the A57's DECODE-TESTS-A57, the A78AE's
  DECODE-TESTS-ORIN and the Thor's DECODE-TESTS-THOR, the four devices
  weighing the same. Its own ratios span PI5-RANGE; the RK3588 held out
  gets RK3588-INTERVAL and the A57 A57-INTERVAL the same way. Boards
  measured on one model each say that an unmeasured one may sit anywhere
  between them, an honest width, not a bug. It was not the small-sample
  factor either, on three boards: with that factor removed (measured,
  not kept), the class's held-out intervals covered 57.9 % of its
  devices, and the class's calibration widened them ×2.90 back to the
  same 97.8 / 100 % (decode / prefill), while the Jetson CUDA class's
  coverage fell to 64.1 / 47.8 % (under its 75 % guard), the measured
  devices' to 82.3 / 75.7 % and the released rows' prefill to 88.2 %. A
  board counts whole or not at all unless its interval cuts into its
  own scatter, and two of the five are measured on one model: into
  the band the class needs more boards (the M4 Pro and the Pi 4 above).
- **The DGX Spark (GB10) under current llama.cpp** prefills at about 0.6 of
  what the CUDA class predicts from the other devices; its own level
  (fitted on its 122 runs) carries it.
- **llama.cpp's batched decode on the DGX Spark** (llama-batched-bench,
  b6918). A step of two sequences or more launched its kernels from the
  host in builds before pull request #19645, and llama.cpp's decode
  kernels load their weights and then multiply them (MMQ's tiles: load,
  synchronize, multiply), so a step's products cost their memory time plus
  their compute time; both are priced (docs/method.md §6). Held out by
  device, Qwen2.5-7B Q8_0 runs 0.92–1.01× the predicted time at every
  batch from 2 to 32 (1.0–1.3× before), Gemma-3-4B Q4_0 0.99–1.09× at
  batch 2 (1.19–1.28× before). What is left grows with Gemma-3-4B's
  batch: 1.11–1.31× at 8 sequences, 1.22–1.50× at 32. Its products'
  arithmetic, now priced, is half of Qwen2.5-7B's (3.9 against 7.6 B
  parameters), yet each added sequence costs it as much (0.2–0.7 ms a
  step beyond its KV cache, 13–15 µs per layer on both models). Most of
  the growth with depth is its attention's reads: at a batch b6918's CUDA
  kernels read a sliding layer's 3072-cell ring up to the newest token's
  cell, and every layer's cache padded to 256 cells, where roofline
  prices the window alone (docs/method.md §6, "What llama.cpp's CUDA
  attention reads at a batch"). Built as llama.cpp's rule of the CUDA
  engine (docs/method.md §6, "llama.cpp's view of the cache, priced per
  step"), Gemma-3-4B runs 1.00–1.09× at 8–32 sequences and the Spark's
  decode tests within 5 % go from 25 to 33 of 61, but the Jetson CUDA
  class's refit decodes 9.2 → 10.1 % off (its guard 9.5 %), so it is
  measured and not built.
- **Prefill under the same kernels.** MMQ runs prefill's products too:
  priced as a sum there as well, the CUDA class prefills 19.4 % off
  rather than 23.9 %, but the fitted pass cost falls and with it the
  price of the Spark's launched batched steps, whose decode then moves
  from 7.0 % to 12.0 %: it waits for a launch cost of its own, fitted
  beside t_layer, and only the Spark's batched runs would fit that.
- **Where MMQ's re-reads come from.** MMQ reads each SM's rows of weights
  again for every tile of 128 tokens; the re-reads come from the GPU's L2
  as far as it holds the rows all SMs hold at once, which every NVIDIA
  profile now states (docs/method.md §6). With GB10's 24 MB only
  Qwen2.5-7B's down_proj spills (1.32 GB a tile of its 6.93 GB), and
  every published pass stays compute-bound: no held-out figure moves, and
  the Spark's 1.72× and the RTX 4090's 0.68× have another cause than
  where the re-reads come from.
- **Current llama.cpp CUDA prefill across GPUs** (23.3 %, held out by
  device). On one die it follows the board's power per SM, not the peak:
  at one source and build (XD-GPUBENCH) the AD102/AD103 cards prefill at
  1.35 (RTX 6000 Ada, 2.11 W/SM), 1.24 (L40S, 2.46), 0.89 (RTX 4090,
  3.52) and 0.83 (RTX 4080, 4.21) of the predicted time while their
  decode does not follow (0.84–0.98): under a 300 W limit the tensor
  clock falls. Across dies it does not hold (the GA102 pro cards at 3.57
  W/SM run 0.99 and 1.14, the H100 PCIe 1.33 at 3.07 W/SM, and decode
  correlates with W/SM across all devices as strongly as prefill does:
  the power figures sort the cards by market). A class-wide factor
  min(1, (W/SM)/4)^1 on the prefill's compute rates would bring the
  class's prefill from 23.8 to 17.2 % (P90 73.9 → 43.7 %; on the runs
  before the Jetson AGX Thor joined, whose profile states its clock), but its knee was read
  off these figures: chosen for each device without it, 22.1 % (P90
  50.7 %), the rest being the DGX Spark's MoE gap priced as power at its
  SoC's 140 W; and the mission boards' decode loses (9.3 → 9.9 %):
  tried and not kept (docs/method.md §6, "Power limits in CUDA prefill",
  with the table by device). Sustained clocks logged during a prefill
  (nvidia-smi) on the pro cards would let their profiles state a
  sustained tensor clock as the Jetsons' modes do. Pricing MMQ at the
  int8 peak instead of fp16 would change nothing between devices: every
  CUDA profile with both gives int8 = 2 × fp16. The micro-batch sweeps
  (llama.cpp pull requests, 16–2048 rows on the RTX 3090, 4090 and 5090;
  the RTX 4090's 0.71 over all its runs is LCPP-UB's sweep) show the
  matrix efficiency's rise with the rows is steeper on those GeForce
  cards than the class's one curve for all GPUs.
- **MoE prefill**: with MMQ's padding of each expert's tokens to whole
  tiles priced (docs/method.md), the Spark's MoE prefill held out by
  device is still 1.78× (gpt-oss-120b), 1.98× (gpt-oss-20b) and 1.29×
  (Qwen3-30B-A3B) slower than predicted; uneven routing, MXFP4's tile
  loads and the routed activations' sort and gather are not priced, and
  with one MoE device per backend the data cannot tell them apart.
- **Measured devices, each model held out** (MEASURED-DEVICES). A
  device's level is one shift of its class, the same for every model and
  format; what is left is structure within a device that a shift cannot
  carry, and each needs data or a sourced rule, not a looser level.
  Figures are measured/predicted time, the device held out of its class
  (unchanged by its level), unless said otherwise:
  - Apple M1 Max decode 13.2 % (30.7 % before the K-quant decode bound,
    docs/method.md "K-quants on Metal"), where the Metal class predicts
    its devices, each held out, within 4.9 % (decode) and 5.5 %
    (prefill); the M3 Max, 11.0 % before it, is at 2.0 %. On both, every
    model comes from one source at one build (LCPP-4167's Llama-2-7B at
    8e672ef, XD-GPUBENCH's Llama-3 at b2795–2797), so holding a model out
    holds its source out, and the level fitted on the other source
    carries that source's bias. Held out by device (the class), the M1
    Max's XD-GPUBENCH Q4_K_M runs are 1.26–1.29× (Llama-3.1-8B) and
    1.37–1.39× (70B), its F16 runs 1.13–1.22×, LCPP-4167's Q4_0, Q8_0 and
    F16 1.00–1.03× (before the bound: Q4_K_M 1.50–1.74×, F16 1.12–1.22×):
    XD-GPUBENCH's M1 Max (a 14-inch MacBook Pro, its README) is slower in
    F16 too, and its Q4_K_M runs still 1.12× its F16 ones. The fitted
    bound does the opposite on the M3 Max and the M2 Ultra, whose
    Q4_K_M runs are now 0.92–0.93× and 0.93–1.03× (70B: 0.80–0.85×,
    0.89–0.96×) against F16's 0.95× and 1.03–1.07×: one share of the peak
    for the class does not carry the M1 Max's K-quant shortfall, which is
    larger than its 26.5 FLOP/B against the others' 34–36 would make it,
    and one machine's runs cannot tell its kernels from its cooling.
  - Raspberry Pi 5 (decode 6.3 %, prefill 13.5 % with its 1–3-thread
    sweeps scored; the ratios below are from before they were). Decode
    (14.8 % before the untied files above): each model held out,
    Llama-3.2-1B runs 1.12×
    and Qwen2.5-0.5B 0.92–1.08× the level fitted on the others, one
    model per size. Prefill, each model held out: Qwen2.5-0.5B's Q2_K at
    1.86× and its Q8_0 at 0.78× of the level fitted on the two other
    models (its Q4_K_M 1.17×): kernels of the types beyond Q4_0, IQ4_NL
    and the Q5 fallbacks are not counted (above), and one model per
    format cannot fit them.
  - DGX Spark decode 6.8 %: batch-1 runs 0.92–1.06×, Gemma-3-4B at
    batch 2–32 0.99–1.49× (1.24–1.49× at 8–32 sequences on 8k tokens),
    where Qwen2.5-7B keeps 0.97–1.00× at 16–32 (llama.cpp's batched CUDA
    decode, above: Gemma-3's sliding layers are read up to the newest
    token's cell of their ring, not their window). Prefill 10.6 %: Qwen3-30B-A3B's pp2048 goes from 2.23×
    on an empty cache to 0.95× at 32k tokens, where the dense models keep
    their ratio: MoE prefill at depth.
  - MLC on the Orin Nano: MLC-DECODE since q4f16_1's per-weight conversions
    are priced (15.1 % before, 19.5 % while every run was priced as
    q4f16_1). JETSON-AILAB's script runs Llama, Qwen2.5 and Phi from
    q4f16_ft builds (int4 with one fp16 scale per output row, multiplied
    by CUTLASS's FasterTransformer GEMV, which turns eight nibbles into
    fp16 with bit operations) and Gemma 2 alone from q4f16_1 builds,
    whose TVM-compiled kernel shifts, masks and converts every weight
    (docs/method.md, MLC's two 4-bit kernels). Priced on bytes alone the
    Gemma-2 runs decoded at 1.30–1.55× and the others at 0.80–0.88×; with
    the unpacking bound (the class's fitted share of the FP32 peak,
    MLC-SHARE: about MLC-PER-CLOCK weights a clock per SM, where the CUDA guide
    gives 16 conversions [U]) every model lies at MLC-RANGE×, MLC-WITHIN
    tests within 5 %. Gemma-2-9B lies furthest from 1 on both boards (5.2 GB
    on an 8 GB board gains 1.28× from the
    Super's 1.5× bandwidth where the other models gain 1.37–1.63×), and
    q4f16_1 runs only Gemma here, so the split rests on two models of one
    family: no published run puts both formats on one model.
  - RKLLM decode on the RK3588 10.3 % (each model held out of the board's
    level; 11.1 % before VENOMEK-RKLLM's Orange Pi 5 Max got its LPDDR5,
    docs/method.md §6 "Board variants", and the figures below are of then):
    the independent runs slow with the context far beyond what
    the KV cache's bytes add. Qwen3-0.6B goes from 56.9 ms a token at
    about 50 tokens of context to 79.4 ms at about 750, Gemma-3-1B from
    63.8 to 88.9 ms between 50 and 2,100, Qwen3-4B from 313 to 333 ms
    between 50 and 390 (VENOMEK-RKLLM): 0.40–0.56 ns per layer, query
    width (heads × head dimension) and token of context, about 9 GFLOP/s
    of attention, where the class prices attention at a quarter of the
    NPU's peak. The runtime is a stripped llama.cpp whose softmax is
    ggml's (rkllm.toml [K10]), so attention may run on the CPU; no
    source says so. Fitting the class's attention efficiency to these
    runs as well (their attention holds up to a tenth of a step's FLOPs)
    made the board's level worse: decode 11.1 → 15.2 %, prefill 14.4 →
    33.8 %. Gemma-3-1B decodes at 1.14–1.24× up to about 500 tokens of
    context, greedy (KUNEBERG-RKLLM, top_k 1) or sampled (VENOMEK-RKLLM,
    top_k 20), where the same sources' Qwen models run at 0.81–1.15×:
    its steps take 7–12 ms more than the level gives. Its
    262,144-token vocabulary does not account for that, as far as
    sources go. The head is int8: the w8a8 files are 1.52 GiB
    (Gemma-3-1B), 3.49 (Qwen2.5-3B) and 4.51 (Qwen3-4B), 0.8–1.7 %
    above int8 matrices with an fp16 embedding table, where an fp16
    head would be 7–17 % above them (rkllm.toml [K14]). Rockchip's
    Gemma-2-2B, its 256,000-token head tied too, decodes at 0.96× on
    the RK3588 and 0.93–0.97× on the RK3576 (0.82× in w4a16 while its
    head was priced in 8 bits: docs/method.md §7, "Layout"). The sampler is CPU code
    (rkllm.h's sampling parameters are llama.cpp's, over fp32 logits;
    rkllm.toml [K10]), and llama.cpp's default chain takes 1.26 ms a
    token over Llama-3.2's 128,256 logits on an RK3566's Cortex-A55
    (llama.cpp issue #34): at that rate Gemma-3's 262,144 cost 2.6 ms a
    token at most, Qwen's 151,936 1.5 ms. Priced so on every RKLLM
    decode step, the RK3588's decode goes 11.1 → 10.1 % (Gemma-3-1B
    1.10–1.19×), but its prefill 14.4 → 14.6 %, the RK3576's decode
    6.3 → 6.5 %, the RK3562 held out prefills 25.6 → 47.1 % off and the
    per-test prefill 16.4 → 16.7 %: not kept.
  - RKLLM prefill on the RK3588 15.2 % (14.4 % before the board variant):
    the independent short-prompt
    TTFTs (one server, default clocks) run Gemma-3-1B at 0.57–0.66×,
    Qwen3-0.6B at 0.98–1.14× and Qwen3-4B at 1.50–1.72× of the level
    fitted without each, under one clocks factor; measured, Qwen3-0.6B
    and Qwen3-4B prefill at one rate in FLOPs (about 205 GFLOP/s) and
    Gemma-3-1B, its 4K conversion against their 16K, at 1.7 times it.
    The context's factor is decode's alone (docs/method.md §6, "Runtime
    settings"): this one server's 16k and 4k conversions are different
    models. The RK3576 (6.2 %; 5.4 % before the board variant) prefills w4a16 at w8a8's rate since
    w4a16 runs the NPU's native int4 × fp16 products (docs/method.md §6,
    "Native products"; 11.6 % before).
- **Apple M1 Max** K-quant runs at build 2797 look held by the GPU's
  arithmetic, not its bandwidth; no Metal run of a build after June 2024 is
  in the data. Both sources ran the 32-core M1 Max (XD-GPUBENCH's a 64 GB
  14-inch MacBook Pro on macOS 13, without the 16-inch's High Power Mode):
  the 24-core variant prices neither (SOURCES.md, XD-GPUBENCH).
- **AMD under llama.cpp** is scored by the pooled GPU class (one device);
  expect about 20 %.
- **Classes measured on one device** (MLC, gpt-fast) are fitted well there;
  how they carry to other boards is not measured, and the intervals say so.
`

// A user names an older build with --runtime NAME@BUILD: the prediction
// says which class it uses and differs from the current build's; a build
// that is not one is refused with the forms that are.
func TestRuntimeBuildCLI(t *testing.T) {
	args := []string{"predict", "--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--weights", "q4_k_m", "--prompt", "2048", "--format", "json"}
	ttft := func(runtime string) (float64, string) {
		t.Helper()
		out, errOut, code := runCLI(append(args, "--runtime", runtime)...)
		if code != 0 {
			t.Fatalf("--runtime %s: exit %d: %s", runtime, code, errOut)
		}
		var j struct {
			TTFT   float64 `json:"ttft_s"`
			Inputs struct {
				From string `json:"efficiency_from"`
			} `json:"inputs"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatal(err)
		}
		return j.TTFT, j.Inputs.From
	}
	now, fromNow := ttft("llama.cpp")
	old, fromOld := ttft("llama.cpp@b2824")
	if !strings.Contains(fromOld, "builds up to b3166") || strings.Contains(fromNow, "builds up to") {
		t.Errorf("efficiency_from should name the era of b2824 only: now %q, old %q", fromNow, fromOld)
	}
	// The May-2024 builds prefill quantized weights slower than today's
	// (int8 MMQ kernels since June 2024, docs/accuracy.md "Builds"). By how
	// much is the fit's: with the DGX Spark's runs among the current
	// builds the fitted difference is about 5 %, so only the order is held.
	if !(old > now) {
		t.Errorf("TTFT at b2824 %.4g s should be above the current build's %.4g s", old, now)
	}
	_, errOut, code := runCLI(append(args, "--runtime", "llama.cpp@latest")...)
	if code == 0 || !strings.Contains(errOut, "b2824") {
		t.Errorf("--runtime llama.cpp@latest: exit %d, %q; want a refusal naming the accepted forms", code, errOut)
	}
}

// A fitted class must not carry its runs' quirks far past them: a
// 200-token prompt on 1700 cached tokens does about 10 % more work than on
// an empty cache for a 3B model (attention over the history), so no class
// may price it at more than three times as long. (RKLLM's runs, all on an
// empty cache, once fitted attention at 0.2 % of the peak and priced the
// voice assistant's prompt at 10 s on the RK3588 NPU.)
func TestClassesExtrapolateDepth(t *testing.T) {
	classes, _ := publicClasses(t)
	for _, c := range classes {
		s := c.Cases[0].Setup.WithEfficiency(c.Fit.Efficiency)
		empty, deep := s.Prefill(200, 0, 1, 512).Time, s.Prefill(200, 1700, 1, 512).Time
		if deep > 3*empty {
			t.Errorf("%s (%s on %s): 200 tokens take %.3g s on 1700 cached tokens, %.3g s on none", c.Key, c.Cases[0].Setup.Model.Spec.Name, c.Cases[0].Device, deep, empty)
		}
	}
}

// missionBoards are the boards roofline's users buy on (issue 24), each
// with the class it runs under: the per-board table names them whether
// or not a run of them is published.
var missionBoards = []struct {
	name, device, class string
}{
	{"Jetson Orin Nano 8GB (original 15 W clocks)", "jetson-orin-nano-8gb", "llama.cpp gpu (cuda)"},
	{"Jetson Orin Nano 8GB 7W", "jetson-orin-nano-8gb-7w", "llama.cpp gpu (cuda)"},
	{"Jetson Orin Nano Super 15W", "jetson-orin-nano-super-8gb-15w", "llama.cpp gpu (cuda)"},
	{"Jetson Orin Nano Super 25W", "jetson-orin-nano-super-8gb-25w", "llama.cpp gpu (cuda)"},
	{"Jetson Orin Nano Super MAXN_SUPER", "jetson-orin-nano-super-8gb", "llama.cpp gpu (cuda)"},
	{"Jetson Orin NX 16GB", "jetson-orin-nx-16gb", "llama.cpp gpu (cuda)"},
	{"Jetson AGX Orin 64GB (MAXN)", "jetson-agx-orin-64gb", "llama.cpp gpu (cuda)"},
	{"Jetson AGX Orin 64GB (MODE_30W)", "jetson-agx-orin-64gb-30w", "llama.cpp gpu (cuda)"},
	{"Jetson AGX Orin 64GB (MAXN)", "jetson-agx-orin-64gb", "tensorrt-llm gpu"},
	{"Jetson AGX Thor T5000 (MAXN)", "jetson-agx-thor", "llama.cpp gpu (cuda)"},
	{"Jetson AGX Orin 64GB (MAXN)", "jetson-agx-orin-64gb", "tensorrt-edge-llm gpu"},
	{"Jetson Orin NX 16GB (MAXN_SUPER)", "jetson-orin-nx-super-16gb", "tensorrt-edge-llm gpu"},
	{"Jetson Orin Nano 8GB (MAXN_SUPER)", "jetson-orin-nano-super-8gb", "tensorrt-edge-llm gpu"},
	{"Jetson AGX Thor T5000 (MAXN)", "jetson-agx-thor", "tensorrt-edge-llm gpu"},
	{"Jetson Orin Nano (8GB and Super)", "jetson-orin-nano-super-8gb", "mlc gpu"},
	{"Jetson Nano 4GB (2019, Maxwell)", "jetson-nano-4gb", "llama.cpp gpu (cuda)"},
	{"Jetson Nano 4GB CPU (Cortex-A57)", "jetson-nano-4gb", "llama.cpp cpu"},
	{"Jetson Orin Nano Super CPU (Cortex-A78AE)", "jetson-orin-nano-super-8gb", "llama.cpp cpu"},
	{"Raspberry Pi 5", "raspberry-pi-5-8gb", "llama.cpp cpu"},
	{"RK3588 CPU (Cortex-A76)", "rk3588", "llama.cpp cpu"},
	{"RK3588 CPU, LPDDR5 at 2400 MHz (ROCK 5B+)", "rk3588-orangepi-5-max", "llama.cpp cpu"},
	{"RK3588 NPU (board not named: the ROCK 5B profile)", "rk3588", "rkllm npu"},
	{"RK3588 NPU, LPDDR5 at 2400 MHz (Orange Pi 5 Max, ROCK 5B+)", "rk3588-orangepi-5-max", "rkllm npu"},
	{"RK3576 NPU", "rk3576-lpddr4x", "rkllm npu"},
	{"RK3562 NPU", "rk3562", "rkllm npu"},
}

// boardStats are a board's held-out figures under one class: the device
// unseen (class and family levels fitted without its module) and the
// device measured (its level fitted without the model), each phase.
type boardStats struct {
	device, model [2]accuracy.Stat // decode, prefill
	models        int
}

func boardFigures(classes []*accuracy.Class, device, class string) (boardStats, bool) {
	var bs boardStats
	for _, c := range classes {
		if c.Key.String() != class {
			continue
		}
		cat, _ := profiles.Builtin()
		d, err := cat.Device(device)
		if err != nil {
			return bs, false
		}
		var held, lomo [2][]float64
		var cov, lcov [2][]bool
		found := false
		models := map[string]bool{}
		lv := c.DeviceLevels[d.Module()]
		for i, cs := range c.Cases {
			if !c.Scored[i] || cs.Device != device {
				continue
			}
			found = true
			k := 0
			if cs.Run.Test == measured.Prefill {
				k = 1
			}
			held[k], cov[k] = append(held[k], c.Held[i]), append(cov[k], c.Covered[i])
			models[cs.Setup.Model.Spec.Name] = true
			if lv == nil {
				continue
			}
			for j, ci := range lv.Cases {
				if ci != i {
					continue
				}
				sp := c.SpreadFor(lv, i)
				lomo[k], lcov[k] = append(lomo[k], lv.Held[j]), append(lcov[k], lv.Held[j] >= sp.Low && lv.Held[j] <= sp.High)
			}
		}
		if !found {
			return bs, false
		}
		for k := 0; k < 2; k++ {
			bs.device[k] = accuracy.Summarize(held[k], cov[k])
			bs.model[k] = accuracy.Summarize(lomo[k], lcov[k])
		}
		bs.models = len(models)
		return bs, true
	}
	return bs, false
}

// powerModesSection says what the Jetson power modes and the clock rule
// (docs/method.md §6) changed, measured once when they came, on the same
// runs: the classes refitted (TestRuntimeClasses -update) and scored
// (TestPublicAccuracy -update) three times, with hardware.Engine.
// ClockRatio forced to 1 (no rule), with hardware.Efficiency.AtClock
// scaling the per-unit caps only, and with the whole rule. Each variant
// needs its own refit, so the comparison is not rerun by the test; the
// tables above are, with the rule in force.
const powerModesSection = `### Power modes

Every Jetson run is priced on the power mode it was measured in (` + "`NAME@MODE`" + `, docs/profiles.md): smolbenchmark's Orin Nano Super in 15W, 25W and MAXN_SUPER, and in 7W on JetPack 5's 7W table (the clocks the report observed; the SM count of L4T R36.4's 7W is not in a file read), jetson-llm-benchmark's in 25W, and the AGX Orin's MODE_30W rows, excluded before as unexplained, on MODE_30W. A module's modes share its fitted level; they differ by their sourced figures — peaks from their SMs and clocks, bandwidth from their memory clock cap — and by the clock rule (docs/method.md §6): a GPU with a stated clock runs the per-SM caps at clock / 1 GHz and a decode step's fixed costs per layer at its inverse, its cost per step at the inverse of the mode's CPU clock (the host's work), a prefill pass's fixed costs as fitted.

Each Jetson llama.cpp decode run priced on its mode, tokens/s: measured; predicted as ` + "`roofline predict`" + ` gives it (the classes and levels fitted on every run, this one included); predicted with the module held out (the class and the Jetson family's level, as for a module nobody measured); and predicted by the module's own level fitted without the model (as for a model nobody measured on the module):

| mode | GPU | bandwidth | model | source | measured | predict | module held out | model held out |
|---|---:|---:|---|---|---:|---:|---:|---:|
%s
The same models decode 8–10 %% faster in MAXN_SUPER than in 25W at the same 102 GB/s, 7W runs them at 0.37–0.42 of 15W at the same 68 GB/s, and the AGX Orin's MODE_30W decodes Llama-3.1-8B at 0.30 of MAXN at the same 204.8 GB/s: decode on these boards follows SMs × clock, not bandwidth. Measured when the rule came, on these runs, decode MdAPE with no rule, with the per-SM caps scaled alone, and with the whole rule (each board's level fitted without the model, "measured"; its module held out, "unmeasured"):

| board, decode | unmeasured: no rule | caps | whole rule | measured: no rule | caps | whole rule |
|---|---:|---:|---:|---:|---:|---:|
| Orin Nano 8GB 7W | 129.5 %% | 14.1 %% | 12.7 %% | 48.9 %% | 11.6 %% | 14.1 %% |
| Orin Nano Super 15W | 39.1 %% | 21.3 %% | 19.4 %% | 9.2 %% | 11.8 %% | 10.6 %% |
| Orin Nano Super 25W | 19.7 %% | 26.8 %% | 26.6 %% | 15.9 %% | 7.3 %% | 9.9 %% |
| Orin Nano Super MAXN_SUPER | 9.7 %% | 23.5 %% | 23.4 %% | 31.0 %% | 10.1 %% | 10.5 %% |
| AGX Orin 64GB MAXN | 42.3 %% | 14.1 %% | 10.4 %% | 35.4 %% | 11.4 %% | 7.7 %% |
| AGX Orin 64GB MODE_30W | 4.0 %% | 6.6 %% | 6.0 %% | 19.3 %% | 2.1 %% | 1.4 %% |

When the clock rule was chosen (on the runs of 2026-11-27's first stop, before the 2019 Jetson Nano and the RKLLM settings joined; the headline above has moved since), over every run (no rule → caps → whole rule): decode held out per test 11.3 %% → 11.0 %% → 10.6 %%, each device weighing the same 9.4 %% → 9.3 %% → 9.2 %% (P90 41.7 %% → 31.2 %% → 31.2 %%); the CUDA class held out by device 11.6 %% → 11.8 %% → 10.7 %% (P90 41.7 %% → 31.3 %% → 31.7 %%); measured devices' decode 12.9 %% → 11.8 %% → 12.2 %%; 80 %% intervals covering 75.2 %% → 75.0 %% → 74.3 %% of the tests. Prefill each device weighing the same stays at 10.3 %%; held out per test it moves 16.8 %% → 19.3 %% → 19.8 %%: the class's shared parameters (the matrix efficiency, the pass cost) move with the Jetsons' per-SM caps, and the desktop GPUs, which dominate the per-test count, pay for it. The per-SM caps carry most of the gain (7W, MODE_30W, the AGX Orin's MAXN); the decode fixed costs add a point on the CUDA class held out by device and on every unmeasured Jetson mode, for 0.4 points on the measured devices and 0.7 of coverage: kept, because it is what llama.cpp's CUDA graphs make of a decode step and what a user asking about a mode nobody measured gets. Scaling a prefill pass's fixed costs with the clock too gives 19.4 %% per test — not told apart by these runs, so the sourced rule stands (a prefill pass has no CUDA graph). The host CPU's clock was the other candidate for the fixed costs; priced on the classes fitted without the rule, with it instead of the GPU's for every fixed cost the three models' decode across 15W, 25W and MAXN_SUPER spreads 1.30× in measured/predicted against 1.05–1.10× with the GPU's, and MODE_30W stays at 0.52. A step's cost per step alone is the host's work (llama.cpp builds the step's graph, checks every node against the graph replayed last, launches it and waits for the logits: docs/method.md "Power modes and clocks"), and it now runs at the mode's CPU clock (7W 0.96 GHz, 25W 1.34 GHz, 15W 1.50 GHz, MAXN_SUPER 1.73 GHz, the AGX Orin's MODE_30W 1.73 GHz and MAXN 2.2 GHz), the layers' at the GPU's: the same models' decode across those three modes spreads 1.02–1.10× (1.03–1.11× with the step at the GPU's clock), and the Jetson CUDA class, each module held out and weighing the same, decodes 8.4 %% off (9.6 %%) and prefills 9.8 %% off (10.5 %%).

`

// powerModeRuns is a row for each scored llama.cpp decode run on a
// Jetson power mode, in the order of the modes: measured tokens/s against
// the shipped prediction and the two held-out ones (a held-out ratio r =
// measured/predicted time gives a predicted rate of measured × r).
func powerModeRuns(classes []*accuracy.Class, runs []measured.Run) string {
	cat, _ := profiles.Builtin()
	devices := []string{"jetson-orin-nano-8gb-7w", "jetson-orin-nano-super-8gb-15w", "jetson-orin-nano-super-8gb-25w", "jetson-orin-nano-super-8gb",
		"jetson-agx-orin-64gb-30w", "jetson-agx-orin-64gb", "jetson-agx-thor"}
	var scored []measured.Run
	for _, r := range runs {
		if r.Exclude == "" && r.Test == measured.Decode {
			scored = append(scored, r)
		}
	}
	rows, _ := compare.New(cat, compare.Options{}).Evaluate(scored)
	shipped := map[string]float64{}
	for _, r := range rows {
		shipped[r.Run.Source()] = r.Predicted
	}
	var b strings.Builder
	for _, name := range devices {
		d, err := cat.Device(name)
		if err != nil {
			return err.Error()
		}
		e, _ := d.Engine("gpu")
		for _, c := range classes {
			if c.Key.String() != "llama.cpp gpu (cuda)" {
				continue
			}
			lv := c.DeviceLevels[d.Module()]
			for i, cs := range c.Cases {
				if !c.Scored[i] || cs.Device != name || cs.Run.Test != measured.Decode {
					continue
				}
				lomo := "—"
				if lv != nil {
					for j, ci := range lv.Cases {
						if ci == i {
							lomo = units.Sig(cs.Run.TokensPerS*lv.Held[j], 3)
						}
					}
				}
				src, _, _ := strings.Cut(cs.Run.Origin, " ")
				fmt.Fprintf(&b, "| %s | %s × %d SMs | %s | %s | %s | %s | %s | %s | %s |\n", d.PowerMode, units.FormatRate(e.Clock, "Hz"), e.Units,
					units.FormatBandwidth(d.Bandwidth), cs.Setup.Model.Spec.Name+" "+cs.Setup.Model.Weights.Name, src, units.Sig(cs.Run.TokensPerS, 3), units.Sig(shipped[cs.Run.Source()], 3),
					units.Sig(cs.Run.TokensPerS*c.Held[i], 3), lomo)
			}
		}
	}
	return b.String()
}

// missionSection is the per-board table of issue 24.
func missionSection(classes []*accuracy.Class) string {
	var b strings.Builder
	b.WriteString("### The mission's boards\n\n")
	b.WriteString("Two figures per board. **Unmeasured**: the board's runs predicted by its class and family fitted without it " +
		"(its power modes and other configurations left out with it) — what to expect on a board like it that nobody has measured. " +
		"**Measured**: the board's runs predicted with its own level, each model by a level fitted without that model — " +
		"what `predict` gives for this board, which uses its published runs. MdAPE of the rate; coverage of the 80 % interval each prediction carries.\n\n")
	b.WriteString("| board | runtime | models | phase | tests | unmeasured: MdAPE | measured/predicted | in interval | measured: MdAPE | measured/predicted | in interval |\n|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, mb := range missionBoards {
		bs, ok := boardFigures(classes, mb.device, mb.class)
		if !ok {
			fmt.Fprintf(&b, "| %s | %s | 0 | — | 0 | not measured | | | | | |\n", mb.name, mb.class)
			continue
		}
		for k, ph := range []string{"decode", "prefill"} {
			d, m := bs.device[k], bs.model[k]
			if d.N == 0 {
				fmt.Fprintf(&b, "| %s | %s | %d | %s | 0 | not measured | | | | | |\n", mb.name, mb.class, bs.models, ph)
				continue
			}
			mcells := "— | — | —"
			if m.N > 0 {
				mcells = fmt.Sprintf("%s | %.2f | %s", pctOf(m.MdAPE), m.Bias, pctOf(m.Coverage))
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %d | %s | %.2f | %s | %s |\n", mb.name, mb.class, bs.models, ph, d.N, pctOf(d.MdAPE), d.Bias, pctOf(d.Coverage), mcells)
		}
	}
	b.WriteString("\n")
	return b.String()
}

// levelRatios are the held-out ratios of every device level measured on
// at least minModels models, by phase (decode, prefill): each model
// predicted by the device's level fitted without it, whether its
// interval held it, its device (the module) and its level (class and
// device); devices and levels count each. A device measured under two
// runtime classes (the Thor's CPU and CUDA, the RK3588's CPU and NPU)
// holds two levels.
type levelRatios struct {
	r       [2][]float64
	cov     [2][]bool
	dev     [2][]string
	lvl     [2][]string
	devices int
	levels  int
}

// levelWeight says what weighs the same in the measured devices'
// figures: each device (a board, whatever runtimes measured it: the
// headline, as every other "each device weighing the same" figure in
// docs/accuracy.md) or each level (a device under one runtime class:
// what is fitted and held out).
type levelWeight int

const (
	byDeviceName levelWeight = iota
	byLevel
)

// keys are the weighing groups of phase k's tests.
func (l levelRatios) keys(k int, w levelWeight) []string {
	if w == byLevel {
		return l.lvl[k]
	}
	return l.dev[k]
}

func deviceLevelRatios(classes []*accuracy.Class, minModels int) levelRatios {
	var l levelRatios
	devices := map[string]bool{}
	for _, c := range classes {
		for name, lv := range c.DeviceLevels {
			if lv.Groups < minModels {
				continue
			}
			l.levels++
			devices[name] = true
			for j, i := range lv.Cases {
				k := 0
				if c.Cases[i].Run.Test == measured.Prefill {
					k = 1
				}
				sp := c.SpreadFor(lv, i)
				l.r[k], l.cov[k] = append(l.r[k], lv.Held[j]), append(l.cov[k], lv.Held[j] >= sp.Low && lv.Held[j] <= sp.High)
				l.dev[k], l.lvl[k] = append(l.dev[k], name), append(l.lvl[k], c.Key.String()+" / "+name)
			}
		}
	}
	l.devices = len(devices)
	return l
}

// stats scores the ratios (decode, prefill), each group of w weighing
// the same.
func (l levelRatios) stats(w levelWeight) (accuracy.Stat, accuracy.Stat) {
	return accuracy.SummarizeByDevice(l.r[0], l.cov[0], l.keys(0, w)), accuracy.SummarizeByDevice(l.r[1], l.cov[1], l.keys(1, w))
}

// within is the share of the tests, each group of w weighing the same,
// whose error is within aims[phase]: an MdAPE meets its aim when the
// share reaches one half.
func (l levelRatios) within(aims [2]float64, w levelWeight) [2]float64 {
	var out [2]float64
	for k := range out {
		in := make([]bool, len(l.r[k]))
		for i, r := range l.r[k] {
			in[i] = math.Abs(r-1) <= aims[k]
		}
		out[k] = accuracy.SummarizeByDevice(l.r[k], in, l.keys(k, w)).Coverage
	}
	return out
}

// met says whether an aim whose share of tests within it is share is
// met: when half are.
func met(share float64) string {
	if share >= 0.5 {
		return "met"
	}
	return "not met"
}

// shared names the devices holding more than one level, with their
// classes: "jetson-agx-thor's llama.cpp cpu and llama.cpp gpu (cuda)".
func (l levelRatios) shared() string {
	classes := map[string][]string{}
	seen := map[string]bool{}
	for k := range l.lvl {
		for i, key := range l.lvl[k] {
			if seen[key] {
				continue
			}
			seen[key] = true
			d := l.dev[k][i]
			classes[d] = append(classes[d], strings.TrimSuffix(key, " / "+d))
		}
	}
	var out []string
	for d, cs := range classes {
		if len(cs) > 1 {
			sort.Strings(cs)
			out = append(out, d+"'s "+strings.Join(cs, " and "))
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "none, each device holds one"
	}
	return strings.Join(out, "; ")
}

// weightingVerdict says which of issue 24's aims (decode, prefill) are
// met or not whatever the weighting, and which turn on it, from the
// shares within each aim weighing devices (dev) and levels (lvl).
func weightingVerdict(dev, lvl [2]float64) string {
	var turn, both []string
	for k, ph := range []string{"decode", "prefill"} {
		if met(dev[k]) != met(lvl[k]) {
			turn = append(turn, fmt.Sprintf("the %s aim is %s by device and %s by level", ph, met(dev[k]), met(lvl[k])))
		} else {
			both = append(both, fmt.Sprintf("the %s aim is %s either way", ph, met(dev[k])))
		}
	}
	return strings.Join(append(turn, both...), "; ") + "."
}

// deviceLevelStats scores every device level measured on at least
// minModels models: each model predicted by the device's level fitted
// without it (decode, prefill), each device weighing the same.
func deviceLevelStats(classes []*accuracy.Class, minModels int) (accuracy.Stat, accuracy.Stat) {
	return deviceLevelRatios(classes, minModels).stats(byDeviceName)
}

// deviceLevelTable is the figure above device by device: each device
// measured on at least minModels models, each model predicted by the
// device's level fitted without it (MdAPE of the rate, the median of
// measured/predicted time, and the share inside the interval).
func deviceLevelTable(classes []*accuracy.Class, minModels int) string {
	type row struct {
		class, device string
		models        int
		d, p          accuracy.Stat
	}
	var rows []row
	for _, c := range classes {
		for name, lv := range c.DeviceLevels {
			if lv.Groups < minModels {
				continue
			}
			var r [2][]float64
			var cov [2][]bool
			for j, i := range lv.Cases {
				k := 0
				if c.Cases[i].Run.Test == measured.Prefill {
					k = 1
				}
				sp := c.SpreadFor(lv, i)
				r[k], cov[k] = append(r[k], lv.Held[j]), append(cov[k], lv.Held[j] >= sp.Low && lv.Held[j] <= sp.High)
			}
			rows = append(rows, row{c.Key.String(), name, lv.Groups, accuracy.Summarize(r[0], cov[0]), accuracy.Summarize(r[1], cov[1])})
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].class != rows[j].class {
			return rows[i].class < rows[j].class
		}
		return rows[i].device < rows[j].device
	})
	cells := func(s accuracy.Stat) string {
		if s.N == 0 {
			return "0 | — | — | —"
		}
		return fmt.Sprintf("%d | %s | %.2f | %s", s.N, pctOf(s.MdAPE), s.Bias, pctOf(s.Coverage))
	}
	var b strings.Builder
	b.WriteString("| class | device | models | decode tests | decode MdAPE | measured/predicted | in interval | prefill tests | prefill MdAPE | measured/predicted | in interval |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s |\n", r.class, r.device, r.models, cells(r.d), cells(r.p))
	}
	b.WriteString("\n")
	return b.String()
}

// TestScopeReasonsFigures: a scope reason in runs.csv that states where
// its runs measure, "at LO-HI of the predicted rate", states what the
// built-in profiles predict for them, as docs/accuracy.md's "Held out of
// scope" computes it (accuracy.ScopeRows): LO and HI are the least and
// the greatest measured / predicted rate of the decode and prefill tests
// with that reason, to two places. A refit that moves them fails here
// until the reason is written again (LCPP-TG's said 0.44-0.64 where the
// table showed 0.45-0.67).
func TestScopeReasonsFigures(t *testing.T) {
	cat, _ := profiles.Builtin()
	rows, err := accuracy.ScopeRows(cat, readPublicRuns(t))
	if err != nil {
		t.Fatal(err)
	}
	stated := regexp.MustCompile(`at (\d\.\d\d)-(\d\.\d\d) of the predicted rate`)
	lo, hi := map[string]float64{}, map[string]float64{}
	for _, r := range rows {
		x := r.Run.Exclude
		if _, ok := lo[x]; !ok {
			lo[x], hi[x] = math.Inf(1), math.Inf(-1)
		}
		lo[x], hi[x] = math.Min(lo[x], r.MeasuredOverPred), math.Max(hi[x], r.MeasuredOverPred)
	}
	checked := 0
	for x := range lo {
		m := stated.FindStringSubmatch(x)
		if m == nil {
			continue
		}
		checked++
		if got := fmt.Sprintf("%.2f-%.2f", lo[x], hi[x]); got != m[1]+"-"+m[2] {
			t.Errorf("a scope reason says %s-%s of the predicted rate; its runs measure %s today: %.60q…", m[1], m[2], got, x)
		}
	}
	if checked == 0 {
		t.Error("no scope reason states its runs' range: LCPP-TG's did")
	}
}

// readPublicRuns reads testdata/public/runs.csv, every row (excluded ones
// too).
func readPublicRuns(t *testing.T) []measured.Run {
	t.Helper()
	b, err := os.ReadFile(publicRuns)
	if err != nil {
		t.Fatal(err)
	}
	res, err := measured.Read(publicRuns, b)
	if err != nil {
		t.Fatal(err)
	}
	return res.Runs
}
