package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFrom(t *testing.T) {
	vcs := func(rev, time, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "-compiler", Value: "gc"}, {Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: time}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "425ac92ab1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6"
	cases := []struct {
		name     string
		bi       *debug.BuildInfo
		ok       bool
		override string
		want     string
	}{
		{"no build info (go test)", nil, false, "", "dev"},
		{"devel, no vcs (go run of files)", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "", "dev"},
		{"go install of a tag", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "", "v1.2.3"},
		{"go build in a clean checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20250601120000-425ac92ab1c2"},
			Settings: vcs(rev, "2025-06-01T12:00:00Z", "false")}, true, "",
			"v0.0.0-20250601120000-425ac92ab1c2 (425ac92ab1c2, 2025-06-01T12:00:00Z)"},
		{"go build in a modified checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20250601120000-425ac92ab1c2+dirty"},
			Settings: vcs(rev, "2025-06-01T12:00:00Z", "true")}, true, "",
			"v0.0.0-20250601120000-425ac92ab1c2+dirty (425ac92ab1c2, 2025-06-01T12:00:00Z, modified)"},
		{"link-time version wins", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "", "false")}, true, "v9.9.9",
			"v9.9.9 (425ac92ab1c2)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := From(c.bi, c.ok, c.override).String(); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestFromRecordsTheToolchain(t *testing.T) {
	i := From(&debug.BuildInfo{GoVersion: "go1.99.1"}, true, "")
	if i.Go != "go1.99.1" || !strings.Contains(i.Platform, "/") {
		t.Errorf("Go %q, Platform %q", i.Go, i.Platform)
	}
}
