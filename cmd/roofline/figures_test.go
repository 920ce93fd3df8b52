package main

import (
	"fmt"
	"os"
	"path/filepath"
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

// writeOrinBench writes a llama-bench JSONL (-o jsonl) of a Jetson Orin
// Nano Super into dir: pp512, tg128 and tg128 at depth 4096 of
// Llama-3.2-3B and -1B Instruct in Q4_K_M, with the published GGUF files'
// sizes and parameter counts (2,019,377,696 B and 3,212,749,824; 807,694,464 B
// and 1,235,814,400). The speeds are made up for the test, near 85 % of
// roofline's predictions (3B: 1150 t/s, 31.2 t/s, 28.1 t/s; 1B: 3350,
// 76.0, 68.4); like every llama-bench file it names no device.
func writeOrinBench(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, m := range []struct {
		file, typ   string
		size, param int64
		pp, tg      float64
	}{
		{"Llama-3.2-3B-Instruct-Q4_K_M.gguf", "llama 3B Q4_K - Medium", 2019377696, 3212749824, 1150, 31.2},
		{"Llama-3.2-1B-Instruct-Q4_K_M.gguf", "llama 1B Q4_K - Medium", 807694464, 1235814400, 3350, 76},
	} {
		for _, test := range []struct {
			p, g, d int
			ts      float64
		}{{512, 0, 0, m.pp}, {0, 128, 0, m.tg}, {0, 128, 4096, 0.9 * m.tg}} {
			ns := int64(float64(test.p+test.g) / test.ts * 1e9)
			fmt.Fprintf(&b, `{"build_commit": "3f4fc97f", "build_number": 5460, "cpu_info": "ARMv8 Processor rev 1 (v8l)", "gpu_info": "Orin", "backends": "CUDA", `+
				`"model_filename": "models/%s", "model_type": "%s", "model_size": %d, "model_n_params": %d, "n_batch": 2048, "n_ubatch": 512, "n_threads": 6, `+
				`"type_k": "f16", "type_v": "f16", "n_gpu_layers": 99, "main_gpu": 0, "no_kv_offload": false, "flash_attn": true, "use_mmap": true, "embeddings": false, `+
				`"n_prompt": %d, "n_gen": %d, "n_depth": %d, "test_time": "2025-05-20T10:00:00Z", "avg_ns": %d, "stddev_ns": 1000, "avg_ts": %g, "stddev_ts": 0.1, `+
				`"samples_ns": [%d, %d, %d], "samples_ts": [%g, %g, %g]}`+"\n",
				m.file, m.typ, m.size, m.param, test.p, test.g, test.d, ns, test.ts, ns, ns, ns, test.ts, test.ts, test.ts)
		}
	}
	p := filepath.Join(dir, "orin.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeBoardsStudy writes issue 28's study into dir: three boards × three
// models × three formats, with the Jetson's llama-bench file.
func writeBoardsStudy(t *testing.T, dir string) string {
	t.Helper()
	writeOrinBench(t, dir)
	p := filepath.Join(dir, "boards.toml")
	src := `title = "Three boards, three models, three formats"
devices = ["jetson-orin-nano-super-8gb", "rk3588", "raspberry-pi-5-8gb"]
models = ["llama-3.2-1b", "llama-3.2-3b", "qwen2.5-1.5b"]
weights = ["q4_k_m", "q8_0", "f16"]

[workload]
prompt = 500
output = 200
contexts = ["2k", "8k"]

[targets]
ttft = "1s"
tpot = "200ms"
headroom = "10%"

[[measured]]
file = "orin.jsonl"
hardware = "jetson-orin-nano-super-8gb"
`
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

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
	study := writeBoardsStudy(t, dir)
	out := filepath.Join(dir, "report")
	_, errOut, code := runCLI("report", study, "-o", out)
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
	// The printed commands reproduce the figures without a warning.
	t.Chdir(dir)
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "roofline plot ") || !strings.Contains(line, "orin.jsonl") {
			continue
		}
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
}

// TestTitleNamesEachDevicesEfficiency is issue 28's finding 11: the
// efficiencies line read "llama.cpp: η_bw 0.94, η_max 0.56 / llama.cpp:
// η_bw 0.60, η_max 0.40" without saying which device had which.
func TestTitleNamesEachDevicesEfficiency(t *testing.T) {
	svg, _ := plotSVG(t, "plot", "tpot-context", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb,rk3588,raspberry-pi-5-8gb", "--weights", "q4_k_m")
	for _, want := range []string{"jetson-orin-nano-super-8gb gpu (llama.cpp) η_bw 0.94, η_max 0.56;", "rk3588 cpu, raspberry-pi-5-8gb cpu (llama.cpp) η_bw 0.60, η_max 0.40"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the title lacks %q", want)
		}
	}
	// One set of efficiencies: the title names the devices already.
	svg, _ = plotSVG(t, "plot", "tpot-context", "--model", "llama-3.2-3b", "--hardware", "rk3588", "--weights", "q4_k_m")
	if !strings.Contains(svg, "expected at llama.cpp: η_bw 0.60, η_max 0.40") {
		t.Error("one device: the efficiencies line changed")
	}
}
