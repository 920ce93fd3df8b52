package profiles

import (
	"regexp"
	"strings"
	"testing"
)

var (
	// sourceTag is the tag every device figure's source opens with:
	// [V] vendor, [S] secondary, [D] derived (formula shown), [A] a
	// configuration assumed here.
	sourceTag = regexp.MustCompile(`^\[(V|S|D|A)\]`)
	// citedKey is a reference key cited in a source, as [N1] or [H14].
	citedKey = regexp.MustCompile(`\[([A-Z]+[0-9]+)\]`)
	// refKey opens a reference.
	refKey = regexp.MustCompile(`^\[([A-Z]+[0-9]+)\] `)
	// address is what makes a reference findable by a reader: a web
	// address, or a vendor's document number.
	address = regexp.MustCompile(`https?://\S+|document [A-Z0-9-]+|PB-[0-9]+-[0-9]+|DS-[0-9]+-[0-9]+`)
	// internalID is how copies in a private store were once cited.
	internalID = regexp.MustCompile(`(?i)stored cop|cop(y|ies) ids?\b|\bid [0-9]{6,}`)
)

// Every figure of a built-in device is fit for print: its source opens
// with a tag, cites only references the file defines, and every
// reference has an address a reader can follow; no internal store ids.
func TestBuiltinSourcesFitForPrint(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range cat.Models() {
		for _, src := range []string{m.Source, m.Published.Source} {
			if internalID.MatchString(src) {
				t.Errorf("model %s: source cites an internal id: %q", m.Name, src)
			}
		}
	}
	for _, d := range cat.Devices() {
		defined := map[string]bool{}
		for _, r := range d.References {
			m := refKey.FindStringSubmatch(r)
			if m == nil {
				t.Errorf("%s: reference %q has no [KEY]", d.Name, r)
				continue
			}
			defined[m[1]] = true
			if !address.MatchString(r) {
				t.Errorf("%s: reference [%s] has no address or document number: %q", d.Name, m[1], r)
			}
			if internalID.MatchString(r) {
				t.Errorf("%s: reference [%s] cites an internal id: %q", d.Name, m[1], r)
			}
		}
		for k, src := range d.Sources {
			if k == "usable_memory" && strings.HasPrefix(src, "default rule:") {
				continue // written by hardware.Device.UsableMemory, cites its own sources
			}
			if !sourceTag.MatchString(src) {
				t.Errorf("%s: %s source opens with no [V], [S], [D] or [A] tag: %q", d.Name, k, src)
			}
			if internalID.MatchString(src) {
				t.Errorf("%s: %s source cites an internal id: %q", d.Name, k, src)
			}
			for _, m := range citedKey.FindAllStringSubmatch(src, -1) {
				if !defined[m[1]] {
					t.Errorf("%s: %s cites [%s], which the file does not define", d.Name, k, m[1])
				}
			}
		}
	}
}
