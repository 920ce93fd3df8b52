package hardware

import (
	"strings"
)

// ModeKey is a power mode's name as a lookup compares it: the vendor's
// name before any parenthesis ("MAXN SUPER (25W)" is "MAXN SUPER"), in
// lower case, without spaces, underscores or hyphens, and without a
// leading "mode" (NVIDIA's AGX Orin modes are MODE_15W, MODE_30W, …):
// "MAXN_SUPER", "maxn-super" and "MaxN Super" are one key, and so are
// "MODE_30W" and "30w".
func ModeKey(mode string) string {
	if i := strings.Index(mode, "("); i >= 0 {
		mode = mode[:i]
	}
	k := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '_', '-', '\t':
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(mode)))
	if rest := strings.TrimPrefix(k, "mode"); rest != k && rest != "" {
		k = rest
	}
	return k
}

// ModeMatch is how well a power mode asked for (its ModeKey) names a
// device's mode.
type ModeMatch int

// How a mode asked for names a device's.
const (
	NoMatch ModeMatch = iota
	// PrefixMatch: the key begins the device's ("maxn" for MAXN_SUPER,
	// "25" for 25W).
	PrefixMatch
	// ExactMatch: the keys are equal.
	ExactMatch
)

// MatchMode says how the mode key asked names d's power mode.
func (d *Device) MatchMode(asked string) ModeMatch {
	k := ModeKey(d.PowerMode)
	switch {
	case k == "" || asked == "":
		return NoMatch
	case k == asked:
		return ExactMatch
	case strings.HasPrefix(k, asked):
		return PrefixMatch
	}
	return NoMatch
}

// PickMode chooses among the devices of one module (modes) the one whose
// power mode the key asked names, for a user who named the device from:
// a mode of from's table (ModeTable) before one of another, an exact name
// before a prefix, and from itself before the others. It returns the
// device, or nil with the devices the key names equally well (more than
// one: it is ambiguous; none: no mode matches).
func PickMode(modes []*Device, from *Device, asked string) (*Device, []*Device) {
	for _, sameTable := range []bool{true, false} {
		for _, want := range []ModeMatch{ExactMatch, PrefixMatch} {
			var hit []*Device
			for _, d := range modes {
				if sameTable && d.ModeTable != from.ModeTable {
					continue
				}
				if d.MatchMode(asked) == want {
					hit = append(hit, d)
				}
			}
			for _, d := range hit {
				if d == from {
					return d, nil
				}
			}
			switch len(hit) {
			case 0:
				continue
			case 1:
				return hit[0], nil
			default:
				return nil, hit
			}
		}
	}
	return nil, nil
}
