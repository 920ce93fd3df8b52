package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version overrides the module version when set at link time:
//
//	go build -ldflags "-X github.com/roofline/roofline/cmd/roofline/internal/buildinfo.version=v1.2.3"
var version = ""

// Info is what a build recorded about itself.
type Info struct {
	// Version is the module version: a release tag (v1.2.3), a
	// pseudo-version (v0.0.0-20250601120000-425ac92ab1c2, +dirty when
	// built from a modified tree), or "dev" when nothing was recorded (go
	// test, go run of a file list, -buildvcs=false).
	Version string `json:"version"`
	// Revision is the commit the binary was built from, Time its commit
	// time (RFC 3339), and Modified whether the work tree had changes.
	// They are empty (false) when the build recorded no VCS information.
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// Go is the toolchain that built the binary, Platform the GOOS/GOARCH
	// it runs on (the one it was built for).
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// Read returns this binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	return From(bi, ok, version)
}

// Version is the one-line version string every output prints, e.g.
// "v1.2.3 (425ac92ab1c2, 2025-06-01T12:00:00Z, modified)".
func Version() string { return Read().String() }

// From reads build information bi (ok as debug.ReadBuildInfo returns it);
// a non-empty override replaces the module version.
func From(bi *debug.BuildInfo, ok bool, override string) Info {
	info := Info{Version: "dev", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if ok && bi != nil {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			info.Version = v
		}
		if bi.GoVersion != "" {
			info.Go = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.time":
				info.Time = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if override != "" {
		info.Version = override
	}
	return info
}

// String is the version with the revision, its time and "modified" in
// parentheses, as far as the build recorded them.
func (i Info) String() string {
	var extra []string
	if i.Revision != "" {
		extra = append(extra, short(i.Revision))
	}
	if i.Time != "" {
		extra = append(extra, i.Time)
	}
	if i.Modified {
		extra = append(extra, "modified")
	}
	if len(extra) == 0 {
		return i.Version
	}
	return fmt.Sprintf("%s (%s)", i.Version, strings.Join(extra, ", "))
}

// short is a commit hash cut to the 12 characters of a pseudo-version.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
