package runtimes

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/roofline/roofline/hardware"
)

// Era is a span of a runtime's builds whose kernels ran measurably
// slower or faster than the current ones: older builds of llama.cpp's
// CUDA backend, before its quantized products moved to int8 tensor
// cores, prefill at about half today's rate. A runtime profile lists its
// older eras, oldest first; builds after the last one are current.
type Era struct {
	Name string
	// LastBuild is the last build number in the era (llama.cpp's bNNNN).
	LastBuild int
	// Until is the date (YYYY-MM-DD) the era ended: a build named by its
	// date belongs to the era when it is earlier.
	Until string
	// Backends are the backends whose kernels changed when the era
	// ended; the era does not apply to the others. Empty: every backend.
	Backends []string
	Source   string
}

// Applies reports whether the era concerns backend b.
func (e Era) Applies(b string) bool {
	return len(e.Backends) == 0 || slices.Contains(e.Backends, b)
}

var (
	buildNumber = regexp.MustCompile(`^b?(\d{1,6})$`)
	buildDate   = regexp.MustCompile(`^(\d{4})-(\d{2})(?:-(\d{2}))?$`)
)

// EraOf says which era of the runtime's builds `build` belongs to: 0 for
// the current builds (and for ""), k ≥ 1 for the k-th older era counted
// back from the current one. A build is a build number ("b2824" or
// "2824"), a date ("2024-03" or "2024-03-15"), or an era's name.
func (r *Runtime) EraOf(build string) (int, error) {
	b := strings.TrimSpace(build)
	if b == "" {
		return 0, nil
	}
	n := len(r.Eras)
	if n == 0 {
		return 0, r.buildError(build)
	}
	for i, e := range r.Eras {
		if strings.EqualFold(b, e.Name) {
			return n - i, nil
		}
	}
	if m := buildNumber.FindStringSubmatch(strings.ToLower(b)); m != nil {
		v, _ := strconv.Atoi(m[1])
		for i, e := range r.Eras {
			if v <= e.LastBuild {
				return n - i, nil
			}
		}
		return 0, nil
	}
	if m := buildDate.FindStringSubmatch(b); m != nil {
		mo, _ := strconv.Atoi(m[2])
		if mo < 1 || mo > 12 {
			return 0, r.buildError(build)
		}
		// A month without a day is its first day: "2024-06" is before
		// "2024-06-24".
		d := m[1] + "-" + m[2] + "-01"
		if m[3] != "" {
			d = b
		}
		for i, e := range r.Eras {
			if d < e.Until {
				return n - i, nil
			}
		}
		return 0, nil
	}
	return 0, r.buildError(build)
}

// buildError refuses a build that names no build of r: an
// UnsupportedError, so that a command blames the flag that named the
// runtime.
func (r *Runtime) buildError(build string) error {
	what := fmt.Sprintf("a build named %q", build)
	if len(r.Eras) == 0 {
		return &UnsupportedError{Runtime: r.Name, What: what, Hint: "its profile distinguishes no builds: name it without @"}
	}
	var names []string
	for _, e := range r.Eras {
		names = append(names, e.Name)
	}
	return &UnsupportedError{Runtime: r.Name, What: what,
		Hint: "name a build by number (b2824), date (2024-03) or era (" + strings.Join(names, ", ") + ")"}
}

// AtBuild is the runtime as its build `build` runs: a copy whose classes
// are those of the build's era (ClassFor). "" is the current build.
func (r *Runtime) AtBuild(build string) (*Runtime, error) {
	if strings.TrimSpace(build) == "" {
		return r, nil
	}
	if _, err := r.EraOf(build); err != nil {
		return nil, err
	}
	c := *r
	c.Build = strings.TrimSpace(build)
	return &c, nil
}

// EraClassKey is the key a runtime profile files an older era's class
// under: the backend or engine kind, "@", the era's name ("cuda@2024").
func EraClassKey(key, era string) string { return key + "@" + era }

// eraClass is the class of the runtime's build for backend or kind key,
// nil when the build is current, its era does not concern key, or the
// profile has no class for that era (nothing was measured on it).
func (r *Runtime) eraClass(key string) *Class {
	e := r.olderEra(key)
	if e == nil {
		return nil
	}
	return r.Classes[EraClassKey(key, e.Name)]
}

// olderEra is the older era of builds r's build belongs to when that era
// concerns backend or kind key; nil for a current build (or none named).
func (r *Runtime) olderEra(key string) *Era {
	k, err := r.EraOf(r.Build)
	if err != nil || k == 0 {
		return nil
	}
	if e := &r.Eras[len(r.Eras)-k]; e.Applies(key) {
		return e
	}
	return nil
}

// currentFor reports whether r's build runs backend (or, without one,
// engine kind) as the current builds do: no build named, or one of an
// older era that does not concern it.
func (r *Runtime) currentFor(backend string, kind hardware.Kind) bool {
	key := backend
	if key == "" {
		key = string(kind)
	}
	return r.olderEra(key) == nil
}

// Builds are a runtime's builds up to a change: its last build number
// (llama.cpp's bNNNN) and the date (YYYY-MM-DD) it ended, for a build
// named by its date. A build known to predate the change may stand for
// the last, as an era's does.
type Builds struct {
	LastBuild int
	Until     string
	Source    string
}

// IsZero reports whether b states no builds.
func (b Builds) IsZero() bool { return b.LastBuild == 0 && b.Until == "" }

// builtBy reports whether r's build (Build) is among b: a build number up
// to b.LastBuild, a date before b.Until, or an older era's name (every
// era of the profile ended before the builds a rule names). The current
// build ("") is not.
func (r *Runtime) builtBy(b Builds) bool {
	v := strings.TrimSpace(r.Build)
	if v == "" {
		return false
	}
	for _, e := range r.Eras {
		if strings.EqualFold(v, e.Name) {
			return e.Until <= b.Until
		}
	}
	if m := buildNumber.FindStringSubmatch(strings.ToLower(v)); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n <= b.LastBuild
	}
	if m := buildDate.FindStringSubmatch(v); m != nil {
		d := m[1] + "-" + m[2] + "-01"
		if m[3] != "" {
			d = v
		}
		return d < b.Until
	}
	return false
}
