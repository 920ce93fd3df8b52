package hfhub

import (
	"errors"
	"fmt"
)

// Kind is what went wrong with a request to the Hub.
type Kind int

// The kinds of Error.
const (
	// NotFound: no such repository (or a private one, which the Hub
	// does not tell apart without a token).
	NotFound Kind = iota
	// Gated: the repository asks users to accept conditions first.
	Gated
	// Denied: 401 or 403 with no reason given.
	Denied
	// NoRevision: the repository has no such branch, tag or commit.
	NoRevision
	// NoFile: the revision has no such file.
	NoFile
	// Unreachable: no answer (no network, DNS, TLS, a timeout).
	Unreachable
	// Offline: HF_HUB_OFFLINE forbids asking.
	Offline
	// Bad: an answer roofline cannot use (too large, not JSON, a 5xx).
	Bad
)

// Error is a request to the Hub that failed, worded for the user: what
// to do next, with HF_TOKEN named where a token would help. It never holds
// the token.
type Error struct {
	Kind     Kind
	ID       string // the repository
	Endpoint string // shown (redacted)
	Rev      string // for NoRevision
	File     string // for NoFile
	Status   int    // the HTTP status, 0 without an answer
	// TokenSent says HF_TOKEN was set (and so sent).
	TokenSent bool
	Err       error // the cause, redacted
}

func (e *Error) Error() string {
	switch e.Kind {
	case NotFound:
		msg := fmt.Sprintf("%s does not exist on %s", e.ID, e.Endpoint)
		if !e.TokenSent {
			msg += " (or it is private: set HF_TOKEN to a token that can read it)"
		} else {
			msg += " (or HF_TOKEN's account cannot see it)"
		}
		return msg
	case Gated:
		msg := fmt.Sprintf("%s is a gated repository: accept its conditions at %s/%s", e.ID, e.Endpoint, e.ID)
		if e.TokenSent {
			return msg + ", with the account HF_TOKEN belongs to (the token was sent and refused)"
		}
		return msg + ", then set HF_TOKEN to a read token of that account"
	case Denied:
		if e.TokenSent {
			return fmt.Sprintf("%s: %s refused HF_TOKEN (HTTP %d): check the token is valid and can read this repository", e.ID, e.Endpoint, e.Status)
		}
		return fmt.Sprintf("%s: %s refused access (HTTP %d): a private or gated repository needs HF_TOKEN set to a token that can read it", e.ID, e.Endpoint, e.Status)
	case NoRevision:
		return fmt.Sprintf("%s has no revision %q on %s", e.ID, e.Rev, e.Endpoint)
	case NoFile:
		return fmt.Sprintf("%s has no file %s on %s", e.ID, e.File, e.Endpoint)
	case Unreachable:
		return fmt.Sprintf("cannot reach %s for %s (%v): without a network, HF_HUB_OFFLINE=1 reads the local Hugging Face cache only, or give a local config.json, checkpoint directory or .gguf file",
			e.Endpoint, e.ID, e.Err)
	case Offline:
		return fmt.Sprintf("%s is not in the local Hugging Face cache, and HF_HUB_OFFLINE is set: unset it to fetch the config from %s, or fetch it with 'hf download %s config.json'",
			e.ID, e.Endpoint, e.ID)
	}
	return fmt.Sprintf("%s: %s: %v", e.ID, e.Endpoint, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// IsNotFound reports an error saying the repository does not exist.
func IsNotFound(err error) bool {
	var he *Error
	return errors.As(err, &he) && he.Kind == NotFound
}
