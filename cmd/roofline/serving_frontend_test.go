package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/serve"
)

const regenerateFrontEnd = "go test ./cmd/roofline -run TestServingFrontEnd -update"

// frontEndProfile is the runtime profile's [front_end] from the fits:
// the fit on every source, each figure ranged over it and the fits that
// hold one source out, with its source lines.
func frontEndProfile(fes *servingFrontEnds) (runtimes.FrontEnd, [3]string) {
	all, lo, hi := fes.all.FrontEnd, fes.ends[0], fes.ends[1]
	fig := func(v, l, h float64) runtimes.FrontEndFigure {
		return runtimes.FrontEndFigure{Value: v, Low: l, High: h}
	}
	var light, sat []string
	for _, o := range fes.obs {
		if o.Light {
			light = append(light, fmt.Sprintf("%s %.1f ms", o.Source, 1e3*o.Seconds))
		} else {
			sat = append(sat, fmt.Sprintf("%s %.0f/s at %g tokens", o.Source, 1/o.Seconds, o.Output))
		}
	}
	f := runtimes.FrontEnd{Stated: true, Latency: fig(all.Latency, lo.Latency, hi.Latency), Request: fig(all.Request, lo.Request, hi.Request), Token: fig(all.Token, lo.Token, hi.Token),
		Basis: fmt.Sprintf("fitted on %d sources of published vLLM serving runs (%s; %d figures, cmd/roofline/%s); ranges over the fits that hold one source out; SGLang, an alias, shares it unmeasured",
			len(fes.all.Sources), strings.Join(fes.all.Sources, ", "), len(fes.obs), publicServing)}
	src := [3]string{
		"[V21][V22] fitted: each source's median TTFT at its lightest load less the simulated engine's and the serial work (" + strings.Join(dedupe(light), "; ") + ")",
		"[V21][V22] fitted: with every request sent at once, 1 / requests/s = request + token x output (" + strings.Join(dedupe(sat), "; ") + ")",
		"[V22] fitted with request: the saturation rates at two output lengths separate a streamed token's work from a request's (" + strings.Join(dedupe(sat), "; ") + ")",
	}
	return f, src
}

// dedupe keeps the first of equal strings in order (a source's seeds
// print alike once rounded).
func dedupe(xs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// TestServingFrontEnd fits the serving front end on the published
// serving runs and checks that the runtime profile holds exactly that fit
// (-update writes [front_end] into profiles/runtimes/vllm.toml and
// regenerates profiles/builtin_runtimes.json). Every source is vLLM: no
// other runtime's profile may state a front end.
func TestServingFrontEnd(t *testing.T) {
	if raceDetector {
		t.Skip("single-threaded arithmetic, checked without -race")
	}
	runs := publicServingRuns(t)
	env, err := app.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if rt, err := runtimeName(env, r.runtime); err != nil || rt != "vllm" {
			t.Fatalf("%s:%d: runtime %s (%v): the front end is fitted for vLLM alone; a second runtime's runs need a fit of their own", publicServing, r.line, r.runtime, err)
		}
	}
	f, sources := frontEndProfile(servingFE)
	// By hand, from serving.csv, each source weighing alike: the
	// saturation rates give request + 128 token = 1/95 s (KVCACHED-H100, 3
	// seeds: 10.54 ms) and request + 4 token = 1/213, 1/184 and 1/129.5 s
	// (GPUSTACK: gpt-oss-20b on an H100 and an A100, gpt-oss-120b on an
	// H100: 5.95 ms; its other bursts the engine alone serves within 25 %
	// or are excluded), so token = (10.54 − 5.95)/124 ≈ 0.0370 ms and
	// request ≈ 5.81 ms; the light-load gaps, 18.5 ms (KVCACHED at 16/s,
	// its 512-token prompts beside the running decodes past vLLM's largest
	// CUDA graph, and under async scheduling a request arriving during a
	// step waiting for the one after) and 19.5 ms (WMX-L4 alone), average
	// 19.0 ms, less 5.81 ms: latency ≈ 13.1 ms.
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"latency", f.Latency.Value, 0.0131}, {"request", f.Request.Value, 0.00581}, {"token", f.Token.Value, 0.0000370}} {
		if math.Abs(c.got/c.want-1) > 0.03 {
			t.Errorf("front end %s %.4g s, by hand %.4g s", c.name, c.got, c.want)
		}
	}
	cat, _ := profiles.Builtin()
	for _, rt := range cat.Runtimes().All() {
		path := filepath.Join("..", "..", rt.File)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		block := ""
		if rt.Name == "vllm" {
			block = profiles.EncodeFrontEnd(f, regenerateFrontEnd, sources)
		}
		want := profiles.WithFrontEnd(src, block)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if string(want) != string(src) {
			t.Errorf("%s: its [front_end] differs from the fit to %s: %s", rt.File, publicServing, regenerateFrontEnd)
		}
	}
	if *update {
		goGenerateProfiles(t)
	}
	_ = serve.FrontEnd{}
}
