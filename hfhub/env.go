package hfhub

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/roofline/roofline/safeio"
)

// DefaultEndpoint is the Hub huggingface_hub talks to unless HF_ENDPOINT
// names another.
const DefaultEndpoint = "https://huggingface.co"

// Settings are what the environment says about the Hub.
type Settings struct {
	// Endpoint is HF_ENDPOINT without a trailing slash, else
	// DefaultEndpoint.
	Endpoint string
	// Token is HF_TOKEN: sent as a bearer token, never shown.
	Token string
	// Offline is HF_HUB_OFFLINE: only the local cache is read.
	Offline bool
}

// FromEnv reads HF_ENDPOINT, HF_TOKEN and HF_HUB_OFFLINE. An endpoint that
// is no http(s) URL is an error naming the variable.
func FromEnv() (Settings, error) {
	s := Settings{Endpoint: DefaultEndpoint, Token: strings.TrimSpace(os.Getenv("HF_TOKEN")), Offline: truthy(os.Getenv("HF_HUB_OFFLINE"))}
	if e := strings.TrimSpace(os.Getenv("HF_ENDPOINT")); e != "" {
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s, fmt.Errorf("HF_ENDPOINT %q is not an http(s) URL (huggingface_hub's default is %s)", safeio.RedactURL(e), DefaultEndpoint)
		}
		s.Endpoint = strings.TrimRight(e, "/")
	}
	return s, nil
}

// truthy reads a boolean variable as huggingface_hub does: 1, ON, YES or
// TRUE, in any case.
func truthy(v string) bool {
	switch strings.ToUpper(strings.TrimSpace(v)) {
	case "1", "ON", "YES", "TRUE":
		return true
	}
	return false
}

// Shown is the endpoint as roofline prints it: without user information
// or query values.
func (s Settings) Shown() string { return safeio.RedactURL(s.Endpoint) }

// Header is what every request to the Hub carries: the token, if any.
func (s Settings) Header() http.Header {
	h := http.Header{}
	if s.Token != "" {
		h.Set("Authorization", "Bearer "+s.Token)
	}
	return h
}

// ResolveURL is the address of file in repository id at commit (or any
// revision), each path segment escaped.
func (s Settings) ResolveURL(id, rev, file string) string {
	segs := strings.Split(file, "/")
	for i, p := range segs {
		segs[i] = url.PathEscape(p)
	}
	return s.Endpoint + "/" + id + "/resolve/" + url.PathEscape(rev) + "/" + strings.Join(segs, "/")
}
