package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// runCLI runs roofline in-process and returns what it wrote and its exit code.
func runCLI(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	err := run(append([]string{"roofline"}, args...), &out, &errb)
	code = exitCode(err, &errb)
	return out.String(), errb.String(), code
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		_ = os.WriteFile(path+".got-"+filepath.Base(t.Name()), []byte(got), 0o644)
		t.Errorf("output differs from %s (see the .got file; go test -update accepts it)", path)
	}
}

func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"list-models.stdout", []string{"list", "models"}},
		{"list-hardware.stdout", []string{"list", "hardware"}},
		{"list-formats.stdout", []string{"list", "formats"}},
		{"show-model-llama-3.1-8b-q4_k_m.stdout", []string{"show", "model", "llama-3.1-8b", "--weights", "q4_k_m"}},
		{"show-model-deepseek-v3.stdout", []string{"show", "model", "deepseek-v3", "--weights", "fp8", "--kv", "bf16"}},
		{"show-hardware-jetson-orin-nano-super-8gb.stdout", []string{"show", "hardware", "jetson-orin-nano-super-8gb"}},
		{"show-hardware-rk3588.json", []string{"show", "hardware", "rk3588", "--format", "json"}},
		// A core without int8 dot products says so, with its source.
		{"show-hardware-jetson-nano-4gb.stdout", []string{"show", "hardware", "jetson-nano-4gb"}},
		// A mode variant, given as NAME@MODE: its modes are selected by
		// their tables' boards, not by the variant's name
		// (jetson-orin-nano-super-8gb-15w@7w before).
		{"show-hardware-jetson-orin-nano-super-8gb-at-15w.stdout", []string{"show", "hardware", "jetson-orin-nano-super-8gb@15w"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, c.name, out)
		})
	}
}

// The foundation issue's acceptance figures, through the CLI.
func TestShowModelJSON(t *testing.T) {
	cases := []struct {
		args           []string
		total, totRel  float64
		kv             float64
		active, actRel float64
	}{
		// 8.03 B (llama.cpp log); KV 2·32·8·128·2 B = 131072.
		{[]string{"llama-3.1-8b", "--kv", "f16"}, 8.03e9, 0.005, 131072, 8.03e9, 0.005},
		// 6.74 B (llama.cpp PR #3776); KV 2·32·32·128·2 B = 524288.
		{[]string{"llama-2-7b"}, 6.74e9, 0.005, 524288, 6.74e9, 0.005},
		// Mistral AI: 46.7 B total, 12.9 B active; KV 2·32·8·128·2 B.
		{[]string{"mixtral-8x7b"}, 46.7e9, 0.01, 131072, 12.9e9, 0.01},
		// DeepSeek-V3 README: 671 B; MLA KV 61·576·2 B = 70272.
		{[]string{"deepseek-v3"}, 671e9, 0.01, 70272, 37e9, 0.02},
		// Qwen3-4B: KV 2·36·8·128·2 B = 147456 (head_dim 128).
		{[]string{"Qwen/Qwen3-4B"}, 4.022e9, 0.001, 147456, 4.022e9, 0.001},
	}
	for _, c := range cases {
		out, errOut, code := runCLI(append([]string{"show", "model"}, append(c.args, "--format", "json")...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		var j map[string]any
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"name", "params_total", "params_active", "weight_bytes", "streamed_bytes_per_token", "kv_bytes_per_token"} {
			if _, ok := j[k]; !ok {
				t.Errorf("%v: key %q missing", c.args, k)
			}
		}
		num := func(k string) float64 { v, _ := j[k].(float64); return v }
		if got := num("params_total"); math.Abs(got-c.total) > c.totRel*c.total {
			t.Errorf("%v: params_total %.5g, want %.5g", c.args, got, c.total)
		}
		if got := num("params_active"); math.Abs(got-c.active) > c.actRel*c.active {
			t.Errorf("%v: params_active %.5g, want %.5g", c.args, got, c.active)
		}
		if got := num("kv_bytes_per_token"); got != c.kv {
			t.Errorf("%v: kv_bytes_per_token %v, want %v", c.args, got, c.kv)
		}
	}
}

// streamed_bytes_per_token leaves out the untied input embedding of
// Llama-3.1-8B but keeps the tied table of Llama-3.2-1B (read as the head).
func TestStreamedEmbedding(t *testing.T) {
	get := func(name string) map[string]float64 {
		out, errOut, code := runCLI("show", "model", name, "--format", "json")
		if code != 0 {
			t.Fatal(errOut)
		}
		var j map[string]any
		_ = json.Unmarshal([]byte(out), &j)
		m := map[string]float64{}
		for k, v := range j {
			if f, ok := v.(float64); ok {
				m[k] = f
			}
		}
		return m
	}
	l8 := get("llama-3.1-8b")
	// f16: weights − 525,336,576 · 2 B + one 4096-wide row of 2 B.
	if want := l8["weight_bytes"] - 525336576*2 + 4096*2; l8["streamed_bytes_per_token"] != want {
		t.Errorf("llama-3.1-8b streamed %v, want %v", l8["streamed_bytes_per_token"], want)
	}
	l1 := get("llama-3.2-1b")
	if l1["streamed_bytes_per_token"] != l1["weight_bytes"] {
		t.Errorf("llama-3.2-1b streamed %v, want all %v", l1["streamed_bytes_per_token"], l1["weight_bytes"])
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		args      []string
		code      int
		stderrHas []string
	}{
		{[]string{"show", "hardware", "nosuch"}, 1, []string{`roofline: unknown hardware "nosuch"`, "hint: 'roofline list hardware'"}},
		{[]string{"show", "hardware", "jetson-orin-nano-supr-8gb"}, 1, []string{"did you mean jetson-orin-nano-super-8gb"}},
		// A power mode with no board before the @ names the syntax and the
		// boards that have that mode (not `unknown hardware ""`); an
		// unknown name, as a mode the board lacks is: exit 1.
		{[]string{"show", "hardware", "@15w"}, 1, []string{`unknown power mode "@15w": nothing comes before the @: a power mode follows its board, as BOARD@MODE`,
			"did you mean jetson-agx-orin-64gb@15w, jetson-orin-nano-8gb@15w, jetson-orin-nano-super-8gb@15w, jetson-orin-nx-super-16gb@15w?", "hint: 'roofline show hardware NAME' lists the power modes"}},
		{[]string{"plan", "--hardware", "@", "--model", "llama-3.2-1b"}, 1, []string{`--hardware: unknown power mode "@"`, "the boards with power modes are jetson-agx-orin-64gb, jetson-orin-nano-4gb"}},
		{[]string{"show", "model", "lama-3.1-8b"}, 1, []string{"did you mean llama-3.1-8b"}},
		// A duration past a float64 (1e400 > 1.8e308; 1e308 h = 3.6e311 s;
		// 1e-400 < 4.9e-324) is out of range, told with the flag's bounds
		// where it has them, not "want a positive duration".
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--ttft", "1e400s"}, 2, []string{`--ttft "1e400s" is out of range: must be 1 µs to 86400 s`}},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--tpot", "1e308h"}, 2, []string{`--tpot "1e308h" is out of range: must be 1 µs to 86400 s`}},
		{[]string{"plot", "tpot-context", "-o", "x.png", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--tpot", "1e-400s"}, 2, []string{`--tpot "1e-400s" is out of range: must be 1 µs to 86400 s`}},
		{[]string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--arrival", "closed", "--users", "2", "--think", "1e400s"}, 2, []string{`--think "1e400s" is out of range: too large for a duration`}},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--link", "10GB/s", "--link-latency", "1e400s"}, 2, []string{`--link-latency "1e400s" is out of range: too large for a duration`}},
		{[]string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "1", "--front-end", "1e400s,1ms,1us"}, 2, []string{`"1e400s" is out of range: too large for a duration`}},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--ttft", "-1e400s"}, 2, []string{`--ttft "-1e400s": want a positive duration`}},
		{[]string{"show", "model", "llama-3.1-8b", "--weights", "q4_k_x"}, 1, []string{`--weights: unknown weight format "q4_k_x"`, "q4_k_m"}},
		// q3 is two letters: f32 (edit distance 2) changes as many as
		// were typed and is no suggestion; the KV formats are listed.
		{[]string{"show", "model", "llama-3.1-8b", "--kv", "q3"}, 1, []string{`unknown KV format "q3" (known: f16, bf16, f32, fp8, q8_0`}},
		{[]string{"predict", "--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--kv", "q3"}, 1, []string{`--kv: unknown KV format "q3" (known: f16,`}},
		{[]string{"plan", "--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--kv", "q3"}, 1, []string{`--kv: unknown KV format "q3" (known: f16,`}},
		{[]string{"predict", "--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--kv", "q8"}, 1, []string{`--kv: unknown KV format "q8"; did you mean q8_0?`}},
		{[]string{"show", "model"}, 2, []string{"give a model name"}},
		{[]string{"show", "model", "a", "b"}, 2, []string{`unexpected argument "b"`}},
		{[]string{"list", "gpus"}, 2, []string{`cannot list "gpus"`}},
		{[]string{"list", "models", "--format", "yaml"}, 2, []string{`--format "yaml"`}},
		{[]string{"list", "--bogus"}, 2, []string{"unknown flag --bogus"}},
		{[]string{"show", "hardware", "testdata/misspelled-device.toml"}, 1, []string{"misspelled-device.toml:", `unknown key "bandwith"`}},
		{[]string{"--profiles", "testdata/nosuchdir", "list", "models"}, 1, []string{"--profiles testdata/nosuchdir"}},
		// A device count past what the runtime can split names --devices,
		// which the user gave, not the --pp or --tp derived from it.
		{[]string{"predict", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--devices", "40"}, 2, []string{"--devices 40: llama.cpp runs them as --tp 1 × --pp 40; --pp 40 pipeline stages for a model of 16 layers"}},
		// A count past limits.Devices (64, plan's bound too) is refused by
		// that bound, naming the flag: it was "--tp 3 × --pp 3333333333333".
		{[]string{"predict", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--devices", "9999999999999"}, 2, []string{"--devices 9999999999999: a device count is a whole number from 1 to 64"}},
		{[]string{"serve", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--devices", "65", "--rate", "1"}, 2, []string{"--devices 65: a device count is a whole number from 1 to 64"}},
		{[]string{"predict", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--pp", "100000"}, 2, []string{"--pp 100000: a device count is a whole number from 1 to 64"}},
		// A CPU engine has no GPU to place layers on: predict printed "10
		// of 17 layers on the GPU" for the Pi 5's CPU offloading to itself.
		{[]string{"predict", "--model", "llama-3.2-1b", "--hardware", "raspberry-pi-5-8gb", "--gpu-layers", "10"}, 2, []string{"--gpu-layers places layers on a GPU, the rest on its host's CPU; raspberry-pi-5-8gb's cpu engine is a CPU", "hint: drop the flag, or choose a GPU engine with --engine"}},
		{[]string{"predict", "--model", "qwen3-30b-a3b", "--hardware", "raspberry-pi-5-8gb", "--cpu-moe"}, 2, []string{"--cpu-moe keeps routed experts in host memory beside a GPU that runs the rest; raspberry-pi-5-8gb's cpu engine is a CPU"}},
		{[]string{"predict", "--model", "qwen3-30b-a3b", "--hardware", "raspberry-pi-5-8gb", "--n-cpu-moe", "4"}, 2, []string{"--n-cpu-moe keeps routed experts in host memory beside a GPU that runs the rest"}},
		// A runtime that does not offload names the flag given: --cpu-moe
		// and --n-cpu-moe were refused as --gpu-layers, of layers alone.
		{[]string{"predict", "--model", "mixtral-8x7b", "--hardware", "rtx-4090", "--runtime", "vllm", "--weights", "w4a16", "--cpu-moe"}, 2, []string{"roofline: --cpu-moe vllm does not offload layers or experts to the host"}},
		{[]string{"predict", "--model", "mixtral-8x7b", "--hardware", "rtx-4090", "--runtime", "vllm", "--weights", "w4a16", "--n-cpu-moe", "2"}, 2, []string{"roofline: --n-cpu-moe vllm does not offload layers or experts to the host"}},
		{[]string{"predict", "--model", "mixtral-8x7b", "--hardware", "rtx-4090", "--runtime", "vllm", "--weights", "w4a16", "--gpu-layers", "10", "--cpu-moe"}, 2, []string{"roofline: --gpu-layers vllm does not offload layers or experts to the host"}},
		// A unified-memory device offloads to its own CPU: a desktop's
		// named as its host was taken, with no link between them.
		{[]string{"predict", "--model", "llama-3.1-8b", "--hardware", "apple-m4-pro", "--gpu-layers", "10", "--host", "desktop-ddr5"}, 2, []string{"--host desktop-ddr5: apple-m4-pro's memory is unified", "hint: leave --host out (or give --host apple-m4-pro)"}},
		// A discrete GPU's host is a computer with a CPU, joined by a bus
		// no faster than the card's own: each of these was priced as given
		// (another GPU's name came back as "--host weights: device rtx-3090
		// has no engine", a Pi 5 over the 4090's PCIe 4.0 x16, NVLink and
		// Ethernet as the bus, PCIe 5.0 on a PCIe 4.0 card).
		// plan's --link joins its devices: a network given is not the
		// card's slot in a board host, and the hint said "give the link
		// ... with --link" to a plan that had given one.
		{[]string{"plan", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--weights", "q4_k_m", "--context", "4096", "--tpot", "1s", "--host", "rk3588", "--link", "1gbe"}, 2, []string{"--host rk3588: a rockchip device, not a desktop or server host", "hint: give the link of the slot rtx-4090 sits in with --link (a PCIe link such as pcie4-x4, or a rate such as 2GB/s; --link 1gbe is a network between computers, not that slot), or leave --host out"}},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--gpu-layers", "30", "--host", "rtx-3090"}, 2, []string{"--host rtx-3090: has no CPU engine (engines: gpu), so it cannot be the computer rtx-4090 sits in", "hint: leave --host out, or name a computer with a CPU engine such as desktop-ddr5"}},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--gpu-layers", "30", "--host", "no-such-host"}, 2, []string{"--host no-such-host: unknown hardware \"no-such-host\""}},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--gpu-layers", "30", "--host", "raspberry-pi-5-8gb"}, 2, []string{"--host raspberry-pi-5-8gb: a raspberry-pi device, not a desktop or server host (family cpu); its profile gives no slot for rtx-4090", "hint: give the link of the slot rtx-4090 sits in with --link"}},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--gpu-layers", "30", "--link", "nvlink4"}, 2, []string{"--link nvlink4: joins GPUs to one another, not rtx-4090 to its host's memory and CPU", "hint: leave --link out (rtx-4090's bus: pcie4-x16)"}},
		{[]string{"serve", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--gpu-layers", "30", "--rate", "0.001", "--requests", "5", "--link", "1gbe"}, 2, []string{"--link 1gbe: a network between computers, not the bus between rtx-4090 and the host it sits in"}},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--gpu-layers", "30", "--link", "pcie5-x16"}, 2, []string{"--link pcie5-x16: rtx-4090's bus is PCI Express 4.0 x16, and a PCIe link trains to the generation and width both its ends support: pcie5-x16 runs as PCI Express 4.0 x16 (25.0 GB/s reached)", "hint: leave --link out: in that slot rtx-4090 runs on its own bus, pcie4-x16"}},
		// A PCIe 4.0 x8 card in a PCIe 3.0 x16 slot runs as PCIe 3.0 x8:
		// the slot is no faster than the card's bus (15.75 GB/s each), and
		// was told it "would price a rate rtx-4060-ti cannot reach".
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4060-ti", "--gpu-layers", "30", "--link", "pcie3-x16"}, 2, []string{"--link pcie3-x16: rtx-4060-ti's bus is PCI Express 4.0 x8, and a PCIe link trains to the generation and width both its ends support: pcie3-x16 runs as PCI Express 3.0 x8 (6.00 GB/s reached)", "hint: give the rate it runs at: --link 6GB/s --link-latency 43us"}},
		// A Mac with Apple silicon takes no discrete GPU, as an eGPU over
		// Thunderbolt or in a Mac Pro's slot (its profile's
		// discrete_gpu_host, Apple's HT208544): the M4 Pro hosted an RTX
		// 4090 over a given rate or a PCIe link.
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--gpu-layers", "30", "--host", "apple-m4-pro", "--link", "5GB/s"}, 2, []string{"--host apple-m4-pro: its profile says no discrete GPU such as rtx-4090 can be joined to it, in a slot or as an eGPU (discrete_gpu_host = false: [V] Apple Support", "HT208544", "hint: leave --host out (a desktop host: desktop-ddr5)"}},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--gpu-layers", "30", "--host", "apple-m2-ultra-60c", "--link", "pcie4-x4"}, 2, []string{"--host apple-m2-ultra-60c: its profile says no discrete GPU"}},
		{[]string{"plan", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--host", "apple-m4-pro", "--link", "tb4-net"}, 2, []string{"--host apple-m4-pro: its profile says no discrete GPU"}},
		// A device's peers are joined by an NVLink only where its profile
		// gives it (nvlink): the RTX 4090 has none, the RTX 3090 a
		// two-card NVLink 3 bridge, an HGX board's NVSwitch 8 GPUs. Each
		// of these was priced at NVLink 4's 370 GB/s.
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--devices", "2", "--link", "nvlink4"}, 2, []string{"--link nvlink4: rtx-4090 has no NVLink (its profile gives no nvlink)", "hint: leave --link out (rtx-4090's peers: pcie4-x16 through the host)"}},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--tp", "2", "--runtime", "vllm", "--weights", "awq-int4", "--link", "nvlink3"}, 2, []string{"--link nvlink3: rtx-4090 has no NVLink"}},
		// Under a runtime that splits tensors: llama.cpp's --tp is refused
		// first (TestUnsplitModeBeforeMachines).
		{[]string{"serve", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--tp", "2", "--runtime", "vllm", "--weights", "awq-int4", "--rate", "1", "--link", "nvlink4"}, 2, []string{"--link nvlink4: rtx-4090 has no NVLink"}},
		{[]string{"plan", "--model", "llama-3.1-70b", "--hardware", "rtx-4090,l40s", "--devices", "1,2", "--link", "nvlink4"}, 2, []string{"--link nvlink4: rtx-4090 has no NVLink"}},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-3090", "--devices", "2", "--link", "nvlink4"}, 2, []string{"--link nvlink4: rtx-3090's NVLink is nvlink3-bridge-x4", "hint: give --link nvlink3-bridge-x4 (rtx-3090's own), or leave --link out"}},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-3090", "--tp", "4", "--runtime", "vllm", "--weights", "awq-int4", "--link", "nvlink3-bridge-x4"}, 2, []string{"--link nvlink3-bridge-x4: joins at most 2 devices, and a tensor-parallel group of 4 splits every layer over all of them", "hint: --tp 2 (with --pp for more devices), or a link that joins 4 devices, such as pcie4-x16"}},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--tp", "16", "--runtime", "vllm"}, 2, []string{"--tp 16: the devices' link, nvlink4: joins at most 8 devices", "hint: --tp 8 (with --pp for more devices), or name a link that joins 16 with --link"}},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--devices", "16", "--pp", "1", "--runtime", "vllm"}, 2, []string{"--pp 1 leaves 16 devices in each stage: the devices' link, nvlink4: joins at most 8 devices"}},
		// --tp × --pp must be --devices (it said "--devices 8 devices
		// cannot run --tp 16 × --pp 1 = 16", with the usage as its hint).
		{[]string{"predict", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--runtime", "vllm", "--devices", "6", "--tp", "4"}, 2, []string{"--devices 6: --tp 4 × --pp 1 runs on 4 devices", "hint: give --devices 4, or a --tp and --pp whose product is 6"}},
		// A --tp larger than the link joins is told before a count that
		// does not match: the count's hint (give --devices 16) led to the
		// link's error next.
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--runtime", "vllm", "--devices", "8", "--tp", "16"}, 2, []string{"--tp 16: the devices' link, nvlink4: joins at most 8 devices", "hint: --tp 8 (with --pp for more devices)"}},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "hgx-h100", "--runtime", "vllm", "--tp", "16"}, 2, []string{"--tp 16: the devices' link, nvlink4: joins at most 8 devices"}},
		{[]string{"predict", "--model", "llama-3.1-70b", "--hardware", "rtx-3090", "--runtime", "vllm", "--weights", "awq-int4", "--devices", "2", "--tp", "4", "--link", "nvlink3-bridge-x4"}, 2, []string{"--link nvlink3-bridge-x4: joins at most 2 devices, and a tensor-parallel group of 4"}},
		{[]string{"predict", "--model", "llama-3.2-1b", "--hardware", "h100-sxm", "--runtime", "vllm", "--devices", "3"}, 2, []string{"--devices 3: vllm runs them as --tp 3 × --pp 1; --tp must divide the model's 32 attention heads"}},
		// plan's --batch counts sequences, not tokens; --rate 0 is refused
		// as -1 is, not taken silently as no rate target.
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--batch", "0"}, 2, []string{`--batch: "0" is not a number of sequences from 1`}},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--batch", "1,x"}, 2, []string{`--batch: "x" is not a whole number of sequences such as 1, 8 or 64`}},
		// A profile of the wrong kind is told what it is, not looked up
		// by a name of the other kind ("unknown hardware llama-3.2-1b").
		{[]string{"predict", "--model", "llama-3.2-1b", "--hardware", "../../profiles/models/llama-3.2-1b.toml"}, 1, []string{"--hardware: ../../profiles/models/llama-3.2-1b.toml:1: not a hardware profile: a device's lists its compute engines in [[engine]] tables"}},
		{[]string{"predict", "--model", "../../profiles/hardware/rk3588.toml", "--hardware", "rtx-4090"}, 1, []string{"--model: ../../profiles/hardware/rk3588.toml:1: not a model profile but a hardware profile: give it to --hardware"}},
		// A batch counts sequences, whole and in decimal, in every command:
		// k and M are token counts' (4k is 4 × 1024 = 4096).
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--batch", "1,4k"}, 2, []string{`--batch: "4k" is not a whole number of sequences such as 1, 8 or 64 (k and M are for token counts alone: write 4096)`}},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--batch", "4,1,4"}, 2, []string{"--batch names 4 twice: name each once"}},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--context", "4k,4096"}, 2, []string{"--context: 4096 is given twice (4k and 4096 are both 4096): give each once"}},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--batch", "1e3"}, 2, []string{`--batch: "1e3" is not a whole number of sequences`}},
		{[]string{"predict", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--batch", "4k"}, 2, []string{`--batch: "4k" is not a decimal integer (k and M are for token counts alone: write 4096)`}},
		{[]string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "1", "--requests", "1M"}, 2, []string{`--requests: "1M" is not a decimal integer (k and M are for token counts alone: write 1048576)`}},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "0"}, 2, []string{"--rate 0: want requests per second above 0"}},
		// serve refuses a flag where it does nothing, rather than ignore
		// it: another arrival process's knob, 0 for a default's sentinel.
		{[]string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "1", "--users", "5"}, 2, []string{"--users applies to --arrival closed; these arrivals are poisson"}},
		{[]string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "1", "--cv", "3"}, 2, []string{"--cv applies to --arrival gamma"}},
		{[]string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "1", "--kv-tokens", "0"}, 2, []string{"--kv-tokens 0: want a value above 0"}},
		{[]string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "1", "--memory-share", "0"}, 2, []string{"--memory-share 0: want a value above 0"}},
		{[]string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "1", "--search-runs", "5"}, 2, []string{"--search-runs applies to --max-rate's search"}},
		// A closed loop's load is its users: --rate there only spaced the
		// timeline's samples (and was printed in --format json).
		{[]string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--arrival", "closed", "--rate", "5"}, 2, []string{"--rate: a closed loop has no arrival rate"}},
		// compare's and calibrate's flags are checked before any file is
		// read: a wrong name is the flag's error, not a warning per row
		// ("runs.csv:2: unknown hardware").
		{[]string{"compare", "runs.csv", "--hardware", "rtx4090x"}, 1, []string{`--hardware: unknown hardware "rtx4090x"; did you mean rtx-4090`}},
		{[]string{"compare", "runs.csv", "--hardware", "rtx-4090", "--kv", "q3"}, 1, []string{`--kv: unknown KV format "q3" (known: f16`}},
		{[]string{"calibrate", "runs.csv", "--hardware", "rtx-4090", "--weights", "q4kx"}, 1, []string{`--weights: unknown weight format "q4kx"`}},
		// A name given twice in a list is refused, not drawn or ranked
		// twice (plot drew two identical series, plan two identical rows).
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090, rtx-4090"}, 2, []string{"--hardware names rtx-4090 twice"}},
		{[]string{"plot", "tpot-context", "--model", "llama-3.2-1b,llama-3.2-1b", "--hardware", "rtx-4090", "-o", "never-written.svg"}, 2, []string{"--model names llama-3.2-1b twice"}},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--weights", "q4_0,q8_0,q4_0"}, 2, []string{"--weights names q4_0 twice"}},
		// Names resolve ignoring case (and formats by their aliases and
		// spellings, q4-k-m for q4_k_m), so a duplicate is one after the
		// same normalisation.
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--weights", "q4_k_m,Q4_K_M"}, 2, []string{"--weights names q4_k_m twice (Q4_K_M is q4_k_m)"}},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--weights", "q4_k_m, q4-k-m"}, 2, []string{"--weights names q4_k_m twice (q4-k-m is q4_k_m)"}},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--kv", "f16,FP16"}, 2, []string{"--kv names f16 twice (FP16 is f16)"}},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090,RTX-4090"}, 2, []string{"--hardware names rtx-4090 twice (RTX-4090 is rtx-4090)"}},
		{[]string{"plot", "tpot-context", "--model", "Llama-3.2-1B,llama-3.2-1b", "--hardware", "rtx-4090", "-o", "never-written.svg"}, 2, []string{"--model names Llama-3.2-1B twice (llama-3.2-1b is Llama-3.2-1B)"}},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--engine", "gpu,GPU"}, 2, []string{"--engine names gpu twice (GPU is gpu)"}},
		// ... and two names of one profile, its name and an alias, are one
		// too (geforce-rtx-4090 and llama3.2-1b are aliases in profiles/).
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090,geforce-rtx-4090"}, 2, []string{"--hardware names rtx-4090 twice (geforce-rtx-4090 is rtx-4090): name each once"}},
		{[]string{"plot", "tpot-context", "--model", "llama3.2-1b,llama-3.2-1b", "--hardware", "rtx-4090", "-o", "never-written.svg"}, 2, []string{"--model names llama-3.2-1b twice (llama3.2-1b is llama-3.2-1b): name each once"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, errOut, code := runCLI(c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, errOut)
			}
			if out != "" {
				t.Errorf("stdout not empty on error: %q", out)
			}
			for _, s := range c.stderrHas {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr %q lacks %q", errOut, s)
				}
			}
		})
	}
}

func TestVersionAndProfilesDir(t *testing.T) {
	out, _, code := runCLI("--version")
	if code != 0 || !strings.HasPrefix(out, "roofline version ") {
		t.Errorf("--version: %d %q", code, out)
	}
	out, errOut, code := runCLI("--profiles", "testdata/profiles", "show", "hardware", "test-board")
	if code != 0 || !strings.Contains(out, "test-board") {
		t.Errorf("--profiles: %d %q %q", code, out, errOut)
	}
}

// TestNVLinkGroups: --devices alone forms tensor-parallel groups no larger
// than the devices' NVLink joins, the groups in a pipeline: 16 H100 SXM
// are two HGX boards of 8 (tp 8 × pp 2), 4 RTX 3090 two bridged pairs
// (tp 2 × pp 2), 24 H100s three boards (tp 8 × pp 3). H100 SXMs keep
// their board's NVLink whatever --link names: --link is the network
// between the boards; without it the boards meet over the adapter per
// GPU of a DGX H100 (ib-ndr, 400 Gb/s), a default said in a note; a
// tensor-parallel group larger than a board (--tp 16) spreads over --link.
func TestNVLinkGroups(t *testing.T) {
	for _, c := range []struct {
		args   []string
		tp, pp int
	}{
		{[]string{"--hardware", "h100-sxm", "--devices", "16", "--link", "50GB/s"}, 8, 2},
		{[]string{"--hardware", "h100-sxm", "--devices", "8"}, 8, 1},
		{[]string{"--hardware", "h100-sxm", "--devices", "24", "--link", "50GB/s"}, 8, 3},
		// 12 would be groups of 6, which Llama-3.1-70B's 64 query heads
		// (8 KV heads) do not split evenly: groups of 4, three stages.
		{[]string{"--hardware", "h100-sxm", "--devices", "12", "--link", "50GB/s"}, 4, 3},
		{[]string{"--hardware", "h100-sxm", "--devices", "16", "--link", "pcie5-x16"}, 8, 2},
		{[]string{"--hardware", "h100-sxm", "--tp", "16", "--link", "pcie5-x16"}, 16, 1},
		{[]string{"--hardware", "rtx-3090", "--devices", "4", "--weights", "awq-int4", "--link", "nvlink3-bridge-x4"}, 2, 2},
	} {
		args := append([]string{"predict", "--model", "llama-3.1-70b", "--runtime", "vllm", "--format", "json"}, c.args...)
		out, errOut, code := runCLI(args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
			continue
		}
		var j struct {
			Split struct{ TP, PP int }
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatal(err)
		}
		if j.Split.TP != c.tp || j.Split.PP != c.pp {
			t.Errorf("%v: tp %d × pp %d, want %d × %d", c.args, j.Split.TP, j.Split.PP, c.tp, c.pp)
		}
	}
	for _, n := range []string{"16", "11"} {
		out, errOut, code := runCLI("predict", "--model", "llama-3.1-70b", "--runtime", "vllm", "--hardware", "h100-sxm", "--devices", n)
		if code != 0 || !strings.Contains(out, "no network given between the boards: ib-ndr assumed, the adapter per GPU of NVIDIA's DGX on nvlink4; --link names yours (ib-hdr, ib-ndr, ib-xdr, or a rate with --link-latency)") ||
			!strings.Contains(out, "link between the boards: NDR InfiniBand, 400 Gb/s per GPU") {
			t.Errorf("--devices %s without the boards' network: exit %d, %s%s", n, code, out, errOut)
		}
	}
	// The network named or given is the one priced, and said as given.
	out, _, code := runCLI("predict", "--model", "llama-3.1-70b", "--runtime", "vllm", "--hardware", "h100-sxm", "--devices", "16", "--link", "ib-xdr")
	if code != 0 || strings.Contains(out, "assumed") || !strings.Contains(out, "link between the boards: XDR InfiniBand") {
		t.Errorf("--link ib-xdr: exit %d, %s", code, out)
	}
	// Bad networks are refused before anything is priced.
	for _, bad := range []string{"ib-qdr", "0GB/s", "-5GB/s", "NaN", "InfGB/s"} {
		_, errOut, code := runCLI("predict", "--model", "llama-3.1-70b", "--runtime", "vllm", "--hardware", "h100-sxm", "--devices", "16", "--link", bad)
		if code != 2 || !strings.Contains(errOut, "--link \""+bad+"\": a link's rate must be a positive bandwidth such as 10GB/s, or a name (") || !strings.Contains(errOut, "ib-ndr") {
			t.Errorf("--link %s: exit %d, %s; want 2, the rule and the names", bad, code, errOut)
		}
	}
}

// TestGroupsHoldWholeTensorGroups: a group of devices an NVLink joins
// holds whole tensor-parallel groups. A made-up model of 24 heads splits 3
// ways; at --tp 3 --pp 5 on H100 SXMs (HGX boards of 8 on NVLink 4) a
// board holds ⌊8 / 3⌋ = 2 groups of 3, 6 devices, so the 5 stages fill
// ⌈5 / 2⌉ = 3 boards, not ⌈15 / 8⌉ = 2, and one board holds at most 6.
func TestGroupsHoldWholeTensorGroups(t *testing.T) {
	m := filepath.Join(t.TempDir(), "made-up-24h.toml")
	if err := os.WriteFile(m, []byte(`name = "made-up-24h"
architecture = "llama"
source = "made up for a test: 24 attention heads, which split 3 ways"
checkpoint = "bf16"
hidden_size = 3072
num_hidden_layers = 30
num_attention_heads = 24
num_key_value_heads = 6
head_dim = 128
intermediate_size = 8192
vocab_size = 32000
tie_word_embeddings = false
max_position_embeddings = 8192
`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"predict", "--model", m, "--runtime", "vllm", "--hardware", "h100-sxm", "--tp", "3", "--pp", "5"}
	out, errOut, code := runCLI(args...)
	if want := "15 h100-sxm fill 3 boards of 8 on nvlink4; a pipeline stage boundary between them crosses ib-ndr"; code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "ib-ndr assumed") {
		t.Errorf("no link between the boards: exit %d, %s%s; want %q, the network assumed", code, out, errOut, want)
	}
	out, errOut, code = runCLI(append(args, "--link", "50GB/s")...)
	if want := "15 h100-sxm fill 3 boards of 8 on nvlink4; a pipeline stage boundary"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("--link 50GB/s: exit %d, %s%s; want %q", code, out, errOut, want)
	}
}

// TestHopsBetweenGroups: a hop that leaves an NVLink group is priced on
// the link between the groups, each hop on its own link, one after
// another in a step. Sixteen RTX 3090s in bridged pairs under llama.cpp
// (pp 16) make 15 hops a step, 7 of them between pairs over the host's
// PCIe 4.0 x16; Llama-3.1-70B's hop carries 8192 × 2 B = 16,384 B a token:
//
//	bridge hop  3 µs + 16384 / 46.25 GB/s =  3.354 µs   (× 8)
//	PCIe hop   43 µs + 16384 / 25 GB/s    = 43.655 µs   (× 7)
//	a step      8 × 3.354 + 7 × 43.655    = 332.4 µs
//
// (all 15 on the bridge, as they were priced: 50.3 µs). Eleven H100 SXM
// (tp 1 × pp 11, boards of 8) cross the boards' network once: with
// --link 50GB/s --link-latency 10us, 9 × (3 µs + 16384 / 370 GB/s) +
// (10 µs + 16384 / 50 GB/s) = 27.40 + 10.33 = 37.73 µs; over the default
// network, NDR InfiniBand at 47 GB/s measured after 12 µs, 27.40 +
// (12 µs + 16384 / 47 GB/s) = 27.40 + 12.35 = 39.75 µs.
func TestHopsBetweenGroups(t *testing.T) {
	for _, c := range []struct {
		args []string
		hops int
		want float64
	}{
		{[]string{"--hardware", "rtx-3090", "--weights", "q4_k_m", "--devices", "16", "--link", "nvlink3-bridge-x4"}, 7, 8*(3e-6+16384/46.25e9) + 7*(43e-6+16384/25e9)},
		{[]string{"--hardware", "h100-sxm", "--runtime", "vllm", "--devices", "11", "--link", "50GB/s", "--link-latency", "10us"}, 1, 9*(3e-6+16384/370e9) + (10e-6 + 16384/50e9)},
		{[]string{"--hardware", "h100-sxm", "--runtime", "vllm", "--devices", "11"}, 1, 9*(3e-6+16384/370e9) + (12e-6 + 16384/47e9)},
	} {
		out, errOut, code := runCLI(append([]string{"predict", "--model", "llama-3.1-70b", "--format", "json"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		var j struct {
			Split struct {
				Transfer float64 `json:"transfer_tpot_s"`
				Hops     int     `json:"hops_between_groups"`
			}
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatal(err)
		}
		if math.Abs(j.Split.Transfer-c.want) > 1e-9 || j.Split.Hops != c.hops {
			t.Errorf("%v: %.4g µs of transfers a step, %d hops between groups; want %.4g µs, %d", c.args, j.Split.Transfer*1e6, j.Split.Hops, c.want*1e6, c.hops)
		}
	}
	// plan prices the same split and names both links.
	out, errOut, code := runCLI("plan", "--model", "llama-3.1-70b", "--hardware", "rtx-3090", "--weights", "q4_k_m", "--context", "4k", "--tpot", "200ms",
		"--devices", "16", "--link", "nvlink3-bridge-x4", "--format", "json")
	if code != 0 || !strings.Contains(out, `"split": "pp 16, nvlink3-bridge-x4 + pcie4-x16"`) {
		t.Errorf("plan over bridged pairs: exit %d, %s%s", code, out, errOut)
	}
}

// TestSmallestCountsWholeGroups: a DOES NOT FIT answer beyond one NVLink
// group counts whole groups. DeepSeek-V3 in bf16 (671.0 B parameters ×
// 2 B = 1,342 GB of weights) needs more than 16 H100s' 80 GB each once
// KV and runtime overhead are counted; 22 would hold it, but only as
// tp 2 × pp 11 beside HGX boards of 8, so the answer is 24: tp 8 × pp 3.
// Under a runtime that splits no layer (llama.cpp's layer split, tp 1)
// every stage is one device and there is no group to fill: Llama-3.1-70B
// in f16 is 70.6 B parameters × 2 B = 141 GB of weights, more than one
// H100 SXM's 80 GB and less than two's 160, so 2 (--pp 2); the rule
// refused every such count, and the answer named none.
func TestSmallestCountsWholeGroups(t *testing.T) {
	for _, c := range []struct{ model, runtime, weights, want string }{
		{"deepseek-v3", "vllm", "bf16", "--devices 24 --tp 8 --pp 3"},
		{"llama-3.1-70b", "llama.cpp", "f16", "2 devices like it would hold it (--devices 2 --pp 2)"},
	} {
		out, errOut, code := runCLI("predict", "--model", c.model, "--hardware", "h100-sxm", "--runtime", c.runtime, "--weights", c.weights)
		if code != 3 { // 3: does not fit
			t.Fatalf("%s under %s: exit %d, want 3: %s", c.model, c.runtime, code, errOut)
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("%s under %s: smallest answer: want %q in\n%s", c.model, c.runtime, c.want, out)
		}
	}
}

// TestShowHardwareJSONLinks: show hardware --format json gives a device's
// nvlink and discrete_gpu_host as values, as the text does: the JSON gave
// discrete_gpu_host's source alone, so a Mac's false could not be told
// from a true. A profile without the key has no value (rk3588's golden).
func TestShowHardwareJSONLinks(t *testing.T) {
	for _, c := range []struct {
		device, nvlink string
		host           *bool
	}{
		{"apple-m4-pro", "", new(bool)}, // false: HT208544
		{"h100-sxm", "nvlink4", nil},
	} {
		out, errOut, code := runCLI("show", "hardware", c.device, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.device, code, errOut)
		}
		var j struct {
			NVLink          string `json:"nvlink"`
			DiscreteGPUHost *bool  `json:"discrete_gpu_host"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatal(err)
		}
		if j.NVLink != c.nvlink || (j.DiscreteGPUHost == nil) != (c.host == nil) || (c.host != nil && *j.DiscreteGPUHost != *c.host) {
			t.Errorf("%s: nvlink %q, discrete_gpu_host %v; want %q, %v", c.device, j.NVLink, j.DiscreteGPUHost, c.nvlink, c.host)
		}
	}
}

// TestDefaultPeerLinkIsTheBoards: devices whose profile gives an NVLink
// through NVSwitch (an SXM part, on the HGX board it has no other way to
// sit on) are joined by it when --link is not given, system or not: the
// A100 40GB SXM4 (nvlink3, HGX A100) was priced over PCIe 4.0 x16 as a
// card in a slot (25 GB/s and 43 µs a transfer against 247 GB/s and
// 3 µs), where the 80GB SXM took its hgx-a100 system's NVLink. A part
// whose NVLink is a two-card bridge keeps its host link: a bridge is
// bought beside the cards, and --link names it.
func TestDefaultPeerLinkIsTheBoards(t *testing.T) {
	for _, c := range []struct{ device, link string }{
		{"a100-40gb", "nvlink3"},
		{"a100-80gb-sxm", "nvlink3"},
		{"h100-sxm", "nvlink4"},
		{"h100-pcie", "pcie5-x16"},
		{"rtx-a6000", "pcie4-x16"},
	} {
		out, errOut, code := runCLI("predict", "--model", "llama-3.1-70b", "--runtime", "vllm", "--hardware", c.device, "--devices", "4", "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.device, code, errOut)
		}
		var j struct {
			Split struct{ Link string }
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatal(err)
		}
		if j.Split.Link != c.link {
			t.Errorf("%s --devices 4: link %q, want %q", c.device, j.Split.Link, c.link)
		}
	}
}
