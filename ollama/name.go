package ollama

import (
	"fmt"
	"regexp"
	"strings"
)

// The defaults Ollama fills in (types/model/name.go).
const (
	DefaultHost      = "registry.ollama.ai"
	DefaultNamespace = "library"
	DefaultTag       = "latest"
)

// Name is an Ollama model name: [HOST/][NAMESPACE/]MODEL[:TAG].
type Name struct {
	Host, Namespace, Model, Tag string
}

// The parts' patterns and lengths, as Ollama checks them.
var (
	hostPart  = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,349}$`)
	namePart  = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]{0,79}$`)
	modelPart = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,79}$`)
)

// NameError is a string that is no Ollama name, with the part at fault.
type NameError struct {
	Name, Msg string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("%q is not an Ollama model name: %s (Ollama names read MODEL:TAG, e.g. llama3.2:3b, or NAMESPACE/MODEL:TAG)", e.Name, e.Msg)
}

// ParseName parses s by Ollama's grammar, filling in the default host,
// namespace and tag. A digest (@sha256:…) is not accepted: roofline reads
// tags.
func ParseName(s string) (Name, error) {
	bad := func(format string, a ...any) (Name, error) {
		return Name{}, &NameError{Name: s, Msg: fmt.Sprintf(format, a...)}
	}
	if strings.Contains(s, "@") {
		return bad("a digest (@…) names a blob, not a tag")
	}
	n := Name{Host: DefaultHost, Namespace: DefaultNamespace, Tag: DefaultTag}
	rest := s
	if i := strings.LastIndex(rest, ":"); i > strings.LastIndex(rest, "/") {
		n.Tag, rest = rest[i+1:], rest[:i]
		if n.Tag == "" {
			return bad("the tag after ':' is empty")
		}
		if !modelPart.MatchString(n.Tag) {
			return bad("tag %q has a character other than letters, digits, '_', '-' and '.', or is longer than 80", n.Tag)
		}
	}
	parts := strings.Split(rest, "/")
	switch len(parts) {
	case 1:
		n.Model = parts[0]
	case 2:
		n.Namespace, n.Model = parts[0], parts[1]
	case 3:
		n.Host, n.Namespace, n.Model = parts[0], parts[1], parts[2]
	default:
		return bad("more than three parts separated by '/'")
	}
	switch {
	case n.Model == "":
		return bad("no model name")
	case !modelPart.MatchString(n.Model):
		return bad("model %q has a character other than letters, digits, '_', '-' and '.', or is longer than 80", n.Model)
	case !namePart.MatchString(n.Namespace):
		return bad("namespace %q has a character other than letters, digits, '_' and '-'", n.Namespace)
	case !hostPart.MatchString(n.Host):
		return bad("host %q is not a host name", n.Host)
	case strings.Contains(n.Host, ".."):
		return bad("host %q is not a host name", n.Host)
	}
	// Ollama compares names without regard to case; the defaults are kept
	// in their own spelling so that a name prints the way it parses back.
	if strings.EqualFold(n.Host, DefaultHost) {
		n.Host = DefaultHost
	}
	if strings.EqualFold(n.Namespace, DefaultNamespace) {
		n.Namespace = DefaultNamespace
	}
	return n, nil
}

// Library reports whether the name is in Ollama's own library (the
// default host and namespace).
func (n Name) Library() bool {
	return strings.EqualFold(n.Host, DefaultHost) && strings.EqualFold(n.Namespace, DefaultNamespace)
}

// String is the name as Ollama prints it: MODEL:TAG for the library,
// NAMESPACE/MODEL:TAG on the default host, the whole name elsewhere.
func (n Name) String() string {
	switch {
	case n.Library():
		return n.Model + ":" + n.Tag
	case strings.EqualFold(n.Host, DefaultHost):
		return n.Namespace + "/" + n.Model + ":" + n.Tag
	}
	return n.Host + "/" + n.Namespace + "/" + n.Model + ":" + n.Tag
}
