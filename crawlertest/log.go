package crawlertest

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// LoggedRequest is one request the server answered, in Web.Log.
type LoggedRequest struct {
	// Host is the virtual host name, "h3.crawler.test" (lower-case, no
	// port), or "" if the request's host is not one of the web's.
	Host string
	// Target is the path and query as sent ("/x/../p/%35?q"), also for
	// absolute-form (proxy) requests.
	Target string
	// URL is the canonical URL, of the same form as the keys of
	// Web.Depths ("http://h3.crawler.test/p/5"), robots.txt and its
	// redirect hops included; "" if Host is.
	URL string
	// Robots reports a robots.txt request: /robots.txt or one of its
	// redirect hops /robots-hop/<k> (Behavior.RobotsRedirects,
	// Behavior.RobotsLoop), the requests Web.RobotsRequests counts.
	Robots bool
	// Status is the status answered, or 0 if the request was cut short
	// (cancelled, or the web closed, during a latency wait).
	Status int
	// UserAgent is the request's User-Agent header.
	UserAgent string
	// Start is when the handler started, before any latency, and End when
	// it finished writing the response (or was cut short). Both come from
	// the server's time.Now and carry its monotonic clock reading.
	Start, End time.Time
}

// Log returns a copy of the log of every request the server answered since
// NewWeb or the last ResetCounts, ordered by Start (requests that started
// together keep the order in which they ended). A request is logged once
// answered, so one still running is not. Requests answered after Close (503)
// are not logged. Log returns nil when Config.Log is false.
func (w *Web) Log() []LoggedRequest {
	if !w.cfg.Log {
		return nil
	}
	w.logMu.Lock()
	out := slices.Clone(w.log)
	w.logMu.Unlock()
	if out == nil {
		out = []LoggedRequest{}
	}
	slices.SortStableFunc(out, func(a, b LoggedRequest) int { return a.Start.Compare(b.Start) })
	return out
}

// logRequest appends the request r, of host index host, decoded dot-free
// path p, to the log.
func (w *Web) logRequest(r *http.Request, host int, p string, robots bool, status int, start time.Time) {
	l := LoggedRequest{
		Target:    r.RequestURI,
		Robots:    robots,
		Status:    status,
		UserAgent: r.UserAgent(),
		Start:     start,
	}
	if !strings.HasPrefix(l.Target, "/") {
		l.Target = r.URL.RequestURI()
	}
	if host >= 0 {
		l.Host = string(appendHost(nil, host))
		l.URL = canonicalString(host, p, r.URL.RawQuery)
	}
	l.End = time.Now()
	w.logMu.Lock()
	w.log = append(w.log, l)
	w.logMu.Unlock()
}

// resetLog empties the log.
func (w *Web) resetLog() {
	w.logMu.Lock()
	w.log = nil
	w.logMu.Unlock()
}

// statusWriter records the status written through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(status int) {
	if s.status == 0 {
		s.status = status
	}
	s.ResponseWriter.WriteHeader(status)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
