package calibrate

import (
	"bytes"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
)

// truth is a device engine with known tuning that generates synthetic runs.
var truth = hardware.Tuning{BandwidthEfficiency: 0.62, ComputeEfficiency: 0.33, Fitted: true, DecodeOverhead: 2.1e-3, PrefillOverhead: 4e-3}

func synthetic(t *testing.T, noise float64, seed int64) ([]measured.Run, *profiles.Catalog) {
	t.Helper()
	cat, _ := profiles.Builtin()
	base, _ := cat.Device("jetson-orin-nano-super-8gb")
	dev := *base
	dev.Engines = append([]hardware.Engine(nil), base.Engines...)
	dev.Engines[0].Tuning = truth
	rng := rand.New(rand.NewSource(seed))
	var runs []measured.Run
	line := 0
	for _, name := range []string{"qwen2.5-0.5b", "llama-3.2-1b", "qwen2.5-1.5b", "llama-3.2-3b", "qwen3-4b", "llama-3.1-8b"} {
		spec, _ := cat.Model(name)
		w, _ := model.LookupWeightFormat("q4_k_m")
		k, _ := model.LookupKVFormat("f16")
		m, _ := model.Build(spec, w, k)
		s, err := sim.NewSetup(m, &dev, sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		tests := []measured.Run{
			{Test: measured.Decode, Gen: 128, Depth: 0}, {Test: measured.Decode, Gen: 128, Depth: 4096},
			{Test: measured.Prefill, Prompt: 512}, {Test: measured.Prefill, Prompt: 2048},
		}
		for _, r := range tests {
			line++
			r.File, r.Line, r.Model, r.Weights, r.KV, r.Batch, r.UBatch, r.Backend = "synthetic", line, name, "q4_k_m", "f16", 1, 512, "CUDA"
			ph := compare.Phase(s, r)
			secs := ph.Time * (1 + noise*rng.NormFloat64())
			r.TokensPerS = float64(r.Tokens()) / secs
			runs = append(runs, r)
		}
	}
	return runs, cat
}

// Known efficiencies and overheads are recovered within 2 standard errors
// from runs with 3 % noise. One noisy sample can fall outside by chance
// (with 10 degrees of freedom, 2 SE cover about 92 %), so the test checks
// 40 independent samples: each parameter must be within 2 SE in at least
// 80 % of them, and within 4.5 SE in every one.
func TestRecoversSyntheticTruth(t *testing.T) {
	const samples = 40
	names := []string{"bw_efficiency", "decode_overhead", "compute_efficiency", "prefill_overhead"}
	var within2 [4]int
	for seed := int64(1); seed <= samples; seed++ {
		runs, cat := synthetic(t, 0.03, seed)
		res, err := Calibrate(cat, runs, Options{Options: compare.Options{Hardware: "jetson-orin-nano-super-8gb"}, Date: "2026-11-22"})
		if err != nil {
			t.Fatal(err)
		}
		e := res.Engine
		fits := [4][3]float64{
			{e.BandwidthEfficiency, res.BandwidthEfficiencySE, truth.BandwidthEfficiency},
			{e.DecodeOverhead, res.DecodeOverheadSE, truth.DecodeOverhead},
			{e.ComputeEfficiency, res.ComputeEfficiencySE, truth.ComputeEfficiency},
			{e.PrefillOverhead, res.PrefillOverheadSE, truth.PrefillOverhead},
		}
		for i, f := range fits {
			if f[1] == 0 {
				continue // fixed, not fitted (a note says so)
			}
			dev := math.Abs(f[0]-f[2]) / f[1]
			if dev > 4.5 {
				t.Errorf("seed %d: %s = %.5g ± %.2g, true %.5g (%.1f SE away)", seed, names[i], f[0], f[1], f[2], dev)
			}
			if dev <= 2 {
				within2[i]++
			}
		}
		if seed == 1 {
			if c := e.Calibration; c.DecodePoints != 12 || c.PrefillPoints != 12 || c.DecodeDOF != 10 {
				t.Errorf("points %+v", c)
			}
		}
	}
	for i, n := range within2 {
		t.Logf("%s within 2 SE in %d of %d samples", names[i], n, samples)
		if n < samples*80/100 {
			t.Errorf("%s within 2 SE in only %d of %d samples", names[i], n, samples)
		}
	}
}

// Without noise the fit is exact, and the written profile, read back and
// used to predict the calibration points, gives back the fitted values.
func TestProfileRoundTrip(t *testing.T) {
	runs, cat := synthetic(t, 0.02, 7)
	res, err := Calibrate(cat, runs, Options{Options: compare.Options{Hardware: "jetson-orin-nano-super-8gb"}, Date: "2026-11-22", Runtime: "llama.cpp CUDA"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := res.WriteProfile(&buf, "orin-nano-super-mine"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cal.toml")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c2 := cat.Clone()
	name, err := c2.AddFile(path)
	if err != nil {
		t.Fatalf("calibrated profile does not load: %v\n%s", err, buf.String())
	}
	d, _ := c2.Device(name)
	e, _ := d.Engine("")
	if e.Calibration == nil || e.BandwidthEfficiency != res.Engine.BandwidthEfficiency || e.DecodeOverhead != res.Engine.DecodeOverhead ||
		e.ComputeEfficiency != res.Engine.ComputeEfficiency || e.PrefillOverhead != res.Engine.PrefillOverhead {
		t.Fatalf("tuning did not round-trip: %+v vs %+v", e.Tuning, res.Engine.Tuning)
	}
	if e.Calibration.DecodeCov != res.Engine.Calibration.DecodeCov || e.Calibration.Runtime != "llama.cpp CUDA" {
		t.Fatalf("calibration did not round-trip: %+v", e.Calibration)
	}
	ev := compare.New(c2, compare.Options{Hardware: name, Sim: sim.DefaultOptions})
	for _, p := range res.Points {
		if !p.Used {
			continue
		}
		rs, err := ev.Resolve(p.Run)
		if err != nil {
			t.Fatal(err)
		}
		ph := compare.Phase(rs.Setup, p.Run)
		got := ph.Time
		if p.Run.Test == measured.Decode {
			got /= float64(ph.Steps)
		}
		if math.Abs(got-p.Fitted) > 1e-12*p.Fitted {
			t.Errorf("%s: predicted from the file %.9g s, fitted %.9g s", p.Run.Source(), got, p.Fitted)
		}
	}
	// Predictions from a calibrated profile carry a 90 % interval.
	spec, _ := cat.Model("llama-3.2-3b")
	w, _ := model.LookupWeightFormat("q4_k_m")
	k, _ := model.LookupKVFormat("f16")
	m, _ := model.Build(spec, w, k)
	r, err := sim.Predict(m, d, sim.Workload{Prompt: 1000, Output: 200, Batch: 1, UBatch: 512}, sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if r.TPOTInterval == nil || !(r.TPOTInterval.Lo < r.TPOT && r.TPOT < r.TPOTInterval.Hi) || r.TTFTInterval == nil {
		t.Errorf("intervals %+v %+v around TPOT %g", r.TPOTInterval, r.TTFTInterval, r.TPOT)
	}
}

func TestRefusesNonsense(t *testing.T) {
	runs, cat := synthetic(t, 0, 1)
	opt := Options{Options: compare.Options{Hardware: "jetson-orin-nano-super-8gb"}}
	// Faster than the datasheet bandwidth: efficiency above 1.
	fast := append([]measured.Run(nil), runs...)
	for i := range fast {
		fast[i].TokensPerS *= 3
	}
	if _, err := Calibrate(cat, fast, opt); err == nil || !strings.Contains(err.Error(), "above 1") {
		t.Errorf("3× faster runs: %v", err)
	}
	// One decode point: the overhead is not determined, the efficiency is.
	var one []measured.Run
	for _, r := range runs {
		if r.Test == measured.Decode {
			one = append(one, r)
			break
		}
	}
	res, err := Calibrate(cat, one, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !res.DecodeFitted || res.Engine.Calibration.DecodeDOF != 0 || !strings.Contains(strings.Join(res.Notes, " "), "decode overhead not determined") {
		t.Errorf("one point: %+v notes %v", res.Engine.Calibration, res.Notes)
	}
	// Inconsistent points: more bytes, less time.
	bad := []measured.Run{runs[0], runs[4], runs[20]}
	bad[0].TokensPerS, bad[2].TokensPerS = bad[0].TokensPerS/5, bad[2].TokensPerS*5
	if _, err := Calibrate(cat, bad, opt); err == nil {
		t.Error("inconsistent points accepted")
	}
	// Nothing resolvable.
	if _, err := Calibrate(cat, runs, Options{}); err == nil {
		t.Error("no hardware accepted")
	}
}

// Per-device leave-one-out decode error on the published llama.cpp runs. A
// calibration is valid for one runtime build, so runs are grouped by device
// and build (the scoreboard's fixed 2023 build and the 2024 benchmark of the
// same Mac are two calibrations).
func TestPublicLeaveOneOut(t *testing.T) {
	b, err := os.ReadFile("../../testdata/public/runs.csv")
	if err != nil {
		t.Fatal(err)
	}
	res, err := measured.Read("runs.csv", b)
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string][]measured.Run{}
	for _, r := range res.Runs {
		if r.Exclude == "" && strings.HasPrefix(r.Backend, "llama.cpp") && r.Test == measured.Decode {
			key := r.Hardware + " | " + r.Backend
			groups[key] = append(groups[key], r)
		}
	}
	cat, _ := profiles.Builtin()
	var keys []string
	for k, rs := range groups {
		if len(rs) >= 4 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) < 10 {
		t.Fatalf("only %d device builds with 4 decode points", len(keys))
	}
	for _, k := range keys {
		c, err := Calibrate(cat, groups[k], Options{})
		if err != nil {
			t.Errorf("%s: %v", k, err)
			continue
		}
		loo := c.Engine.Calibration.LOODecode
		t.Logf("%-60s %2d points: η_bw %.3f ± %.3f, overhead %.2f ± %.2f ms, LOO MdAPE %.1f%%",
			k, c.Engine.Calibration.DecodePoints, c.Engine.BandwidthEfficiency, c.BandwidthEfficiencySE, 1e3*c.Engine.DecodeOverhead, 1e3*c.DecodeOverheadSE, 100*loo)
		if !(loo < 0.08) {
			t.Errorf("%s: leave-one-out decode MdAPE %.1f%% ≥ 8%%", k, 100*loo)
		}
	}
}
