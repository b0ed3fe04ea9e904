package sites

import (
	"regexp"
	"time"
)

// Site is the settings of a [[site]] entry, or the effective settings for
// a URL: the fields of every matching entry, the most specific first. A
// nil pointer or slice means "not set": the crawl's default applies (a set
// but empty list is non-nil). A Site returned by [Rules] shares its maps,
// slices and pointers with the Rules: treat it as read-only.
type Site struct {
	// Match is the entry's match as written in the file; in an effective
	// Site, the most specific matching entry's. "" when nothing matched.
	Match string
	// Line is the line of the entry's [[site]] header (0 when nothing
	// matched).
	Line int

	Delay        *time.Duration    // gap between two requests to a host
	PerHost      *int              // requests in flight to a host, at least 1
	MaxPages     *int              // pages fetched under the entry, at least 1
	UserAgent    *string           // the User-Agent header
	Headers      map[string]string // extra request headers, by canonical name; merged name by name
	BasicAuth    *BasicAuth        // credentials sent with every request
	Render       *bool             // fetch pages with the rendering fetcher
	Cookies      *bool             // keep and send cookies
	IgnoreQuery  []string          // query parameter names dropped from URLs
	Allow        []string          // path prefixes kept in, where a deny prefix would drop them (see [Rules.Allowed])
	Deny         []string          // path prefixes that are out
	IgnoreRobots *bool             // skip robots.txt (and its Crawl-delay)
	Login        *Login            // log in before crawling
	// BanPattern, matched against a response's body, tells that the
	// site refused the crawl (a ban or a captcha page): a proxy pool
	// counts it against the proxy that got it.
	BanPattern *regexp.Regexp
}

// BasicAuth is HTTP Basic credentials. The file names an environment
// variable (password_env); Password holds its value, read when loading.
type BasicAuth struct {
	User     string
	Password string
}

// Login is a form login: fetch URL, fill Fields into the form (the one
// Form selects, or the page's only form), submit it, and check Success.
type Login struct {
	URL    string            // the page holding the form, an absolute http(s) URL
	Fields map[string]string // input names to values; "env:NAME" values are resolved when loading
	Form   string            // a CSS selector for the form; "" when the page has one form
	// Success is how to tell that the login worked: exactly one of its
	// fields is set.
	Success Success
}

// Success tells a successful login: a cookie that must be set, or a CSS
// selector that must match the page after submitting. Exactly one is set.
type Success struct {
	Cookie   string
	Selector string
}

// merge returns s with every field it leaves unset taken from parent.
// Headers merge name by name, s's winning; other fields whole.
func merge(parent, s Site) Site {
	pick(&s.Delay, parent.Delay)
	pick(&s.PerHost, parent.PerHost)
	pick(&s.MaxPages, parent.MaxPages)
	pick(&s.UserAgent, parent.UserAgent)
	pick(&s.BasicAuth, parent.BasicAuth)
	pick(&s.Render, parent.Render)
	pick(&s.Cookies, parent.Cookies)
	pick(&s.IgnoreRobots, parent.IgnoreRobots)
	pick(&s.Login, parent.Login)
	pick(&s.BanPattern, parent.BanPattern)
	if s.IgnoreQuery == nil {
		s.IgnoreQuery = parent.IgnoreQuery
	}
	if s.Allow == nil {
		s.Allow = parent.Allow
	}
	if s.Deny == nil {
		s.Deny = parent.Deny
	}
	switch {
	case s.Headers == nil:
		s.Headers = parent.Headers
	case parent.Headers != nil:
		h := make(map[string]string, len(parent.Headers)+len(s.Headers))
		for k, v := range parent.Headers {
			h[k] = v
		}
		for k, v := range s.Headers {
			h[k] = v
		}
		s.Headers = h
	}
	return s
}

func pick[T any](p **T, parent *T) {
	if *p == nil {
		*p = parent
	}
}
