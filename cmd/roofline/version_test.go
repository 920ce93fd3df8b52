package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/buildinfo"
)

// roofline version, --version and -v print buildinfo.Version: a test
// binary records no module version, so it is "dev".
func TestVersion(t *testing.T) {
	want := buildinfo.Version()
	for _, args := range [][]string{{"--version"}, {"-v"}} {
		out, errOut, code := runCLI(args...)
		if code != 0 || out != "roofline version "+want+"\n" {
			t.Errorf("%v: exit %d, %q %q", args, code, out, errOut)
		}
	}
	out, errOut, code := runCLI("version")
	if code != 0 || !strings.HasPrefix(out, "roofline "+buildinfo.Read().Version+"\n") || !strings.Contains(out, "\ngo       go1.") {
		t.Errorf("version: exit %d, %q %q", code, out, errOut)
	}
	out, _, code = runCLI("version", "--format", "json")
	var info buildinfo.Info
	if err := json.Unmarshal([]byte(out), &info); err != nil || code != 0 || info.Version == "" || info.Go == "" || info.Platform == "" {
		t.Errorf("version --format json: exit %d, %v, %q", code, err, out)
	}
	if _, errOut, code := runCLI("version", "extra"); code != exitUsage {
		t.Errorf("version extra: exit %d, want %d (%s)", code, exitUsage, errOut)
	}
}
