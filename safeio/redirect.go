package safeio

import (
	"fmt"
	"net/http"

	"github.com/roofline/roofline/limits"
)

// CheckRedirect is the redirect policy of every HTTP client roofline
// makes: at most limits.RemoteRedirects redirects, and only to http(s)
// URLs. (net/http itself drops an Authorization header on a redirect to
// another host.)
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= limits.RemoteRedirects {
		return fmt.Errorf("more than %d redirects (a redirect loop?)", limits.RemoteRedirects)
	}
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return fmt.Errorf("redirected to a %s: URL; roofline follows http(s) only", s)
	}
	return nil
}
