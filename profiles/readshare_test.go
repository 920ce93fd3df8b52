package profiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A calibration's read_share is a share of the device's measured read
// (sim.Inputs.ReadBandwidth): on a device without measured_bandwidth, or
// on an engine other than a GPU, it moved nothing, in silence. It is
// refused with the file, the line, the key and the hint.
func TestReadShareNeedsMeasuredRead(t *testing.T) {
	board, err := os.ReadFile(filepath.Join("testdata", "board.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	// board.good.toml up to its variants, with a calibration of its gpu
	// engine at a read share of 0.9.
	base := string(board)
	base = base[:strings.Index(base, "[[variant]]")] + "[engine.calibration]\nruntime = \"llama.cpp\"\nsource = \"x\"\nbandwidth = 0.8\ncompute_max = 0.5\nattention = 0.3\nread_share = 0.9\n"
	if _, err := decodeDevices("board.toml", []byte(base)); err != nil {
		t.Fatalf("a read share on a device with a measured read must decode: %v", err)
	}
	const measured = "measured_bandwidth = { value = \"80 GB/s\", source = \"fixture STREAM triad\" }\n"
	if !strings.Contains(base, measured) {
		t.Fatal("board.good.toml has no measured_bandwidth line")
	}
	for name, src := range map[string]string{
		"no measured read": strings.Replace(base, measured, "", 1),
		"a cpu engine":     strings.Replace(base, "kind = \"gpu\"", "kind = \"cpu\"", 1),
	} {
		_, err := decodeDevices("board.toml", []byte(src))
		if err == nil {
			t.Errorf("%s: a read share decoded without an error", name)
			continue
		}
		// The [engine.calibration] table opens on the line after the
		// engine's peaks: the error names it (or read_share's own line).
		msg := err.Error()
		for _, want := range []string{"board.toml:", "engine.gpu.calibration.read_share", "measured_bandwidth"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q does not say %q", name, msg, want)
			}
		}
		if strings.HasPrefix(msg, "board.toml: ") {
			t.Errorf("%s: %q names no line", name, msg)
		}
	}
}
