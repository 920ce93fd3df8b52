package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// plotSVG runs a plot into an SVG and returns the SVG and stderr.
func plotSVG(t *testing.T, args ...string) (svg, stderr string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "fig.svg")
	_, errOut, code := runCLI(append(args, "-o", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	return string(must(os.ReadFile(out))), errOut
}

// TestPlotKeepsFormatsApart is issue 28's finding 10, as its user ran it:
// the Jetson's q4_k_m (28 ms) and q8_0 (46 ms) were merged into one "≈"
// line because 18 ms is 1 % of a linear axis to 1.8 s. Series are merged
// only within plots.MergeTolerance of their own value, and an axis whose
// values span more than 10× is logarithmic.
func TestPlotKeepsFormatsApart(t *testing.T) {
	svg, _ := plotSVG(t, "plot", "tpot-context", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb,rk3588,raspberry-pi-5-8gb", "--weights", "q4_k_m,q8_0")
	if strings.Contains(svg, "≈") {
		t.Error("the figure merges series that differ by more than 2 %")
	}
	for _, w := range []string{"jetson-orin-nano-super-8gb · gpu · q4_k_m", "jetson-orin-nano-super-8gb · gpu · q8_0"} {
		if !strings.Contains(svg, ">"+w+"<") {
			t.Errorf("the legend lacks %q", w)
		}
	}
	// A log y axis labels 1k (a linear one to 1,800 ms labels 500, 1000, 1500).
	if !strings.Contains(svg, ">1k<") || strings.Contains(svg, ">1500<") {
		t.Error("the y axis is not logarithmic over 20 ms … 1.8 s")
	}
	// --log-y=false keeps it linear.
	svg, _ = plotSVG(t, "plot", "tpot-context", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb,rk3588,raspberry-pi-5-8gb", "--weights", "q4_k_m,q8_0", "--log-y=false")
	if !strings.Contains(svg, ">1500<") {
		t.Error("--log-y=false: the y axis is not linear")
	}
}

// orinBench is a llama-bench JSONL (-o jsonl) of a Jetson Orin Nano
// Super, made for the tests: pp512, tg128 and tg128 at depth 4096 of
// Llama-3.2-3B and -1B Instruct in Q4_K_M, with the published GGUF files'
// sizes and parameter counts (2,019,377,696 B and 3,212,749,824;
// 807,694,464 B and 1,235,814,400). The speeds are invented, near 85 % of
// roofline's predictions (3B: 1150 t/s, 31.2 t/s, 28.1 t/s; 1B: 3350,
// 76.0, 68.4); like every llama-bench file it names no device.
const orinBench = "testdata/synthetic-orin-nano-super-llama-bench.jsonl"

// writeOrinBench copies orinBench into dir as orin.jsonl.
func writeOrinBench(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "orin.jsonl")
	if err := os.WriteFile(p, must(os.ReadFile(orinBench)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// boardsStudy is issue 28's study: three boards × three models × three
// formats, with orinBench as its measured file.
const boardsStudy = "testdata/boards-study.toml"

// TestPlotMeasuredOnItsDevice is issue 28's finding 9: with two devices
// plotted, a llama-bench file (which names no device) warned "no
// hardware: pass --hardware" once per run although --hardware was
// passed, and drew nothing. It now says once how to give the device,
// and FILE@DEVICE draws the runs on that device's series.
func TestPlotMeasuredOnItsDevice(t *testing.T) {
	dir := t.TempDir()
	bench := writeOrinBench(t, dir)
	args := []string{"plot", "tpot-context", "--hardware", "jetson-orin-nano-super-8gb,rk3588", "--model", "llama-3.2-3b", "--weights", "q4_k_m"}
	_, errOut := plotSVG(t, append(args, "--measured", bench)...)
	if strings.Contains(errOut, "no hardware") || strings.Count(errOut, "warning") != 1 || !strings.Contains(errOut, "--measured "+bench+"@DEVICE") {
		t.Errorf("a file naming no device, two devices plotted: want one warning with the FILE@DEVICE hint:\n%s", errOut)
	}
	rows := plotData(t, append(args, "--measured", bench+"@jetson-orin-nano-super-8gb")...)
	var on []string
	for _, r := range rows {
		if r[1] == "measured" {
			on = append(on, r[0]+": "+r[6])
		}
	}
	// The 3B's decode tests: tg128 (MBU 62 %) and tg128 @ d4096 (69 %).
	if want := "jetson-orin-nano-super-8gb · gpu: MBU 62%|jetson-orin-nano-super-8gb · gpu: MBU 69%"; strings.Join(on, "|") != want {
		t.Errorf("measured points %q; want %q", strings.Join(on, "|"), want)
	}
}

// TestReportDrawsMeasuredRuns is issue 28's findings 8 and 9 in a report:
// a study of three boards × three models × three formats whose
// [[measured]] file is given its device drew the runs on no figure, and
// its "reproduce" commands warned as plot did. Every default figure is
// drawn (nine panels, one per device and model), tpot-context, ttft-prompt
// and roofline carry every run of the file on the Jetson's panels, and
// each printed plot command runs without a warning.
func TestReportDrawsMeasuredRuns(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report")
	_, errOut, code := runCLI("report", boardsStudy, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "figures: plan, tpot-context (9 panels), ttft-prompt (9 panels), memory (9 panels), roofline (9 panels), compare") {
		t.Errorf("not every default figure drawn: %s", errOut)
	}
	md := string(must(os.ReadFile(filepath.Join(out, "report.md"))))
	if strings.Contains(md, "no hardware") || strings.Contains(md, "match no plotted series") {
		t.Errorf("the report's notes warn about the measured runs")
	}
	// tg128 and tg128 @ d4096 of each model: MBU; pp512: MFU.
	for kind, want := range map[string][]string{
		"tpot-context": {"MBU 62%", "MBU 69%", "MBU 60%", "MBU 63%"},
		"ttft-prompt":  {"MFU 39%", "MFU 40%"},
		"roofline":     {"MBU 62%", "MBU 69%", "MBU 60%", "MBU 63%", "MFU 39%", "MFU 40%"},
	} {
		svg := string(must(os.ReadFile(filepath.Join(out, "plots", kind+".svg"))))
		for _, w := range want {
			if !strings.Contains(svg, ">"+w+"<") {
				t.Errorf("%s: the measured run %s is not drawn", kind, w)
			}
		}
	}
	// The printed commands, run from the study's directory, reproduce
	// the figures without a warning.
	t.Chdir(filepath.Dir(boardsStudy))
	ran := 0
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "roofline plot ") || !strings.Contains(line, ".jsonl") {
			continue
		}
		ran++
		args := strings.Fields(strings.TrimPrefix(line, "roofline "))
		for i, a := range args {
			if a == "-o" {
				args[i+1] = filepath.Join(dir, "repro-"+args[i+1])
			}
		}
		_, errOut, code := runCLI(append(args, "--force")...)
		if code != 0 || strings.Contains(errOut, "warning") {
			t.Errorf("%s: exit %d: %s", line, code, errOut)
		}
	}
	if ran != 8 { // tpot-context, ttft-prompt, roofline, compare: under Figures and Reproduce
		t.Errorf("ran %d plot commands with the measured file; want 8", ran)
	}
}

// TestTitleNamesEachDevicesEfficiency is issue 28's finding 11: the
// efficiencies line read "llama.cpp: η_bw 0.94, η_max 0.56 / llama.cpp:
// η_bw 0.60, η_max 0.40" without saying which device had which.
func TestTitleNamesEachDevicesEfficiency(t *testing.T) {
	svg, _ := plotSVG(t, "plot", "tpot-context", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb,rk3588,raspberry-pi-5-8gb", "--weights", "q4_k_m")
	for _, want := range []string{`>expected on jetson-orin-nano-super-8gb gpu \(llama\.cpp\) η_bw \d\.\d\d, η_max \d\.\d\d;<`,
		`>rk3588 cpu \(llama\.cpp\) η_bw \d\.\d\d, η_max \d\.\d\d;<`, `>raspberry-pi-5-8gb cpu \(llama\.cpp\) η_bw \d\.\d\d, η_max \d\.\d\d<`} {
		// Each board measured has its own level (issue 24): three lines.
		if !regexp.MustCompile(want).MatchString(svg) {
			t.Errorf("the title lacks %s", want)
		}
	}
	// One set of efficiencies: the title names the devices already.
	svg, _ = plotSVG(t, "plot", "tpot-context", "--model", "llama-3.2-3b", "--hardware", "rk3588", "--weights", "q4_k_m")
	if !regexp.MustCompile(`expected at llama\.cpp: η_bw \d\.\d\d, η_max \d\.\d\d<`).MatchString(svg) {
		t.Error("one device: the efficiencies line changed")
	}
}
