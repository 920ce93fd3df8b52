package profiles

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/roofline/roofline/hardware"
)

// PowerModes lists the devices of d's module that name a power mode (the
// base profile and its variants) in SortModes' order, or nil when d's
// module has one mode or none.
func (c *Catalog) PowerModes(d *hardware.Device) []*hardware.Device {
	var out []*hardware.Device
	for _, x := range c.Devices() {
		if x.Module() == d.Module() && x.PowerMode != "" {
			out = append(out, x)
		}
	}
	if len(out) < 2 {
		return nil
	}
	SortModes(out)
	return out
}

// SortModes orders the power modes of one module as a reader compares
// them: the base profile's mode table first, then by the default
// engine's power budget, an uncapped MAXN mode after a capped one of the
// same budget, then by name.
func SortModes(modes []*hardware.Device) {
	table := map[string]int{}
	for _, d := range modes {
		if d.VariantOf == "" {
			table[d.ModeTable] = -1
		}
	}
	power := func(d *hardware.Device) float64 {
		if e, err := d.Engine(""); err == nil {
			return e.Power
		}
		return 0
	}
	maxn := func(d *hardware.Device) bool { return strings.HasPrefix(hardware.ModeKey(d.PowerMode), "maxn") }
	sort.SliceStable(modes, func(i, j int) bool {
		a, b := modes[i], modes[j]
		if ta, tb := table[a.ModeTable], table[b.ModeTable]; ta != tb {
			return ta < tb
		}
		if pa, pb := power(a), power(b); pa != pb {
			return pa < pb
		}
		if ma, mb := maxn(a), maxn(b); ma != mb {
			return mb
		}
		return a.Name < b.Name
	})
}

// deviceInMode is device d, named as base, in power mode mode: the
// device of d's module whose power_mode mode names (hardware.PickMode:
// d's mode table first, an exact name before a prefix). A mode no
// device of the module has, or one that names several, is a
// *NotFoundError of kind "power mode" suggesting base@MODE for each mode
// of the module.
func (c *Catalog) deviceInMode(d *hardware.Device, base, mode string) (*hardware.Device, error) {
	key := hardware.ModeKey(mode)
	c.lock()
	c.loadAll(hardwareDir)
	var modes []*hardware.Device
	for _, x := range c.devices {
		if x.Module() == d.Module() && x.PowerMode != "" {
			modes = append(modes, x)
		}
	}
	c.unlock()
	SortModes(modes)
	all := modes
	nf := &NotFoundError{Kind: "power mode", Name: base + "@" + mode}
	if key == "" {
		nf.Detail = "nothing follows the @: give a power mode, as NAME@25W"
	}
	if len(modes) == 0 {
		nf.Detail = fmt.Sprintf("%s has no power modes in its profile; give it without @", d.Name)
		return nil, nf
	}
	if key != "" {
		hit, several := hardware.PickMode(modes, d, key)
		if hit != nil {
			return hit, nil
		}
		if len(several) > 0 {
			modes, nf.Ambiguous = several, true
			nf.Detail = fmt.Sprintf("%q names %d modes of %s", mode, len(several), d.Module())
		} else {
			nf.Detail = fmt.Sprintf("the modes of %s are %s", d.Module(), ModeList(modes))
		}
	}
	for _, x := range modes {
		if s := ModeSelector(all, d, x); !slices.Contains(nf.Suggestions, s) {
			nf.Suggestions = append(nf.Suggestions, s)
		}
	}
	return nil, nf
}

// modeWithoutBoard is the *NotFoundError of kind "power mode" for
// "@MODE", a mode with no board before it: it suggests BOARD@MODE for
// every module that has mode MODE exactly, else says which boards have
// power modes at all.
func (c *Catalog) modeWithoutBoard(name, mode string) error {
	nf := &NotFoundError{Kind: "power mode", Name: name}
	key := hardware.ModeKey(mode)
	byModule := map[string][]*hardware.Device{}
	var modules []string
	for _, x := range c.Devices() {
		if x.PowerMode == "" {
			continue
		}
		if _, ok := byModule[x.Module()]; !ok {
			modules = append(modules, x.Module())
		}
		byModule[x.Module()] = append(byModule[x.Module()], x)
	}
	sort.Strings(modules)
	var boards []string
	for _, m := range modules {
		modes := byModule[m]
		if len(modes) < 2 {
			continue // one mode: the board is named without @
		}
		SortModes(modes)
		boards = append(boards, m)
		for _, x := range modes {
			if key != "" && x.MatchMode(key) == hardware.ExactMatch {
				if s := ModeSelector(modes, x, x); !slices.Contains(nf.Suggestions, s) {
					nf.Suggestions = append(nf.Suggestions, s)
				}
			}
		}
	}
	nf.Detail = "nothing comes before the @: a power mode follows its board, as BOARD@MODE"
	if len(nf.Suggestions) == 0 {
		nf.Detail += fmt.Sprintf(" (the boards with power modes are %s)", strings.Join(boards, ", "))
	}
	return nf
}

// ModeToken is how a device's power mode is written after NAME@: the
// vendor's name in lower case, without NVIDIA's MODE_ prefix ("25w",
// "maxn_super", "30w").
func ModeToken(d *hardware.Device) string {
	m := d.PowerMode
	if i := strings.Index(m, "("); i >= 0 {
		m = m[:i]
	}
	m = strings.ToLower(strings.TrimSpace(m))
	if rest := strings.TrimPrefix(m, "mode_"); rest != "" {
		m = rest
	}
	return strings.ReplaceAll(m, " ", "_")
}

// ModeList says the power modes of devices, with their tables where
// they differ: "15W, 7W (JetPack 5); 15W, 25W, MAXN_SUPER (Super)".
func ModeList(devices []*hardware.Device) string {
	var tables []string
	by := map[string][]string{}
	for _, d := range devices {
		if _, ok := by[d.ModeTable]; !ok {
			tables = append(tables, d.ModeTable)
		}
		by[d.ModeTable] = append(by[d.ModeTable], d.PowerMode)
	}
	var parts []string
	for _, t := range tables {
		p := strings.Join(by[t], ", ")
		if len(tables) > 1 && t != "" {
			p += " (" + t + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// ModeSelector is how a reader shown device from selects mode m among
// modes (one module's): NAME@MODE, NAME a board of m's mode table, a
// device whose name does not carry its own power mode
// (jetson-orin-nano-super-8gb, not jetson-orin-nano-super-8gb-15w): from
// itself if it is one, then the table's other boards, then the module's
// base, then any board, the first from which MODE picks m; else m's own
// name alone (a table without a board: jetson-orin-nano-super-4gb-10w).
func ModeSelector(modes []*hardware.Device, from, m *hardware.Device) string {
	token := ModeToken(m)
	var boards []*hardware.Device
	add := func(keep func(*hardware.Device) bool) {
		for _, d := range modes {
			if keep(d) && Board(d) && !slices.Contains(boards, d) {
				boards = append(boards, d)
			}
		}
	}
	add(func(d *hardware.Device) bool { return d == from && d.ModeTable == m.ModeTable })
	add(func(d *hardware.Device) bool { return d.ModeTable == m.ModeTable })
	add(func(d *hardware.Device) bool { return d.VariantOf == "" })
	add(func(*hardware.Device) bool { return true })
	for _, b := range boards {
		if hit, _ := hardware.PickMode(modes, b, hardware.ModeKey(token)); hit == m {
			return b.Name + "@" + token
		}
	}
	return m.Name
}

// Board reports whether d's name does not end in its own power mode:
// jetson-orin-nano-super-8gb-15w (15W) and jetson-orin-nano-4gb-7w-ai
// (7W_AI) are a board's modes, jetson-orin-nano-super-8gb (MAXN_SUPER) is
// a board.
func Board(d *hardware.Device) bool {
	key := hardware.ModeKey(d.PowerMode)
	if key == "" {
		return true
	}
	words := strings.Split(d.Name, "-")
	for i := len(words) - 1; i > 0; i-- {
		if hardware.ModeKey(strings.Join(words[i:], "-")) == key {
			return false
		}
	}
	return true
}
