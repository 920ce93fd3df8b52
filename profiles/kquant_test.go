package profiles

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// kquant_gemv is a share of the peak (0 or absent: no bound): a runtime
// class's or an engine calibration's value out of (0, 1], NaN or
// infinite is refused with the file, line and key, never a panic.
func TestKQuantGEMVRefused(t *testing.T) {
	rt, err := os.ReadFile(filepath.Join("runtimes", "llama.cpp.toml"))
	if err != nil {
		t.Fatal(err)
	}
	// The fitted figure of [efficiency.metal], whatever the last fit made it.
	at := strings.Index(string(rt), "[efficiency.metal]")
	metal := regexp.MustCompile(`(?m)^kquant_gemv = \S+$`).FindString(string(rt[max(at, 0):]))
	if at < 0 || metal == "" {
		t.Fatal("llama.cpp.toml has no [efficiency.metal] with a kquant_gemv")
	}
	board, err := os.ReadFile(filepath.Join("testdata", "board.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	// board.good.toml up to its variants, with a calibration of its gpu
	// engine.
	calibrated := func(v string) string {
		b := string(board)
		return b[:strings.Index(b, "[[variant]]")] + "[engine.calibration]\nruntime = \"llama.cpp\"\nsource = \"x\"\nbandwidth = 0.8\ncompute_max = 0.5\nattention = 0.3\nkquant_gemv = " + v + "\n"
	}
	if _, err := decodeDevices("board.toml", []byte(calibrated("0.09"))); err != nil {
		t.Fatalf("a calibration at 0.09 must decode: %v", err)
	}
	for _, c := range []struct{ v, class, calib string }{
		{"-0.1", "efficiency.metal: kquant_gemv must be 0.0001 to 1, got -0.1", "engine.gpu.calibration.kquant_gemv must be 0.0001 to 1, got -0.1"},
		{"1.5", "efficiency.metal: kquant_gemv must be 0.0001 to 1, got 1.5", "engine.gpu.calibration.kquant_gemv must be 0.0001 to 1, got 1.5"},
		{"nan", "efficiency.metal.kquant_gemv = NaN: a number must be finite", "engine.calibration.kquant_gemv = NaN: a number must be finite"},
		{"inf", "efficiency.metal.kquant_gemv = +Inf: a number must be finite", "engine.calibration.kquant_gemv = +Inf: a number must be finite"},
		{`"fast"`, "efficiency.metal.kquant_gemv", "engine.calibration.kquant_gemv"},
	} {
		_, err := decodeRuntime("llama.cpp.toml", []byte(strings.Replace(string(rt), metal, "kquant_gemv = "+c.v, 1)))
		if err == nil || !strings.HasPrefix(err.Error(), "llama.cpp.toml:") || !strings.Contains(err.Error(), c.class) {
			t.Errorf("class kquant_gemv = %s: %v, want %q", c.v, err, c.class)
		}
		_, err = decodeDevices("board.toml", []byte(calibrated(c.v)))
		if err == nil || !strings.Contains(err.Error(), c.calib) {
			t.Errorf("calibration kquant_gemv = %s: %v, want %q", c.v, err, c.calib)
		}
	}
}
