package hardware

import "strings"

// DerivedTag opens the source of a figure no datasheet gives, which the
// profile derives by the reasoning that follows it (docs/profiles.md).
const DerivedTag = "[D]"

// IsDerived reports whether a figure's source marks it derived.
func IsDerived(source string) bool {
	return strings.HasPrefix(strings.TrimSpace(source), DerivedTag)
}

// DerivedReason is the reasoning of a derived figure's source, without
// its tag.
func DerivedReason(source string) string {
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(source), DerivedTag))
}
