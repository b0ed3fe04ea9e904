package crawlertest

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// changes holds when each page of a web with Config.ChangeInterval
// changes: a Poisson process per page, its change times drawn from the
// page's own random stream as time passes.
type changes struct {
	g     *gen
	start time.Time
	mean  []time.Duration // per page (host*pages + n): mean interval, 0: never

	mu    sync.Mutex
	pages map[int]*pageChanges // per page that was asked about
}

// pageChanges is the change times of one page drawn so far, since the
// web's start, and the page's random stream that draws the next.
type pageChanges struct {
	times []time.Duration
	rng   rng
}

func newChanges(g *gen, interval func(host, page int) time.Duration) *changes {
	c := &changes{g: g, start: time.Now(), mean: make([]time.Duration, g.hosts*g.pages),
		pages: map[int]*pageChanges{}}
	for h := range g.hosts {
		if g.isTrap(h) {
			continue
		}
		for n := range g.pages {
			c.mean[h*g.pages+n] = max(interval(h, n), 0)
		}
	}
	return c
}

// at returns the version of page r at d after the web's start (the
// number of its changes until then) and the time of its last change (0
// if none).
func (c *changes) at(r res, d time.Duration) (version int, last time.Duration) {
	i := int(r.host)*c.g.pages + int(r.n)
	mean := c.mean[i]
	if mean <= 0 {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pages[i]
	if p == nil {
		p = &pageChanges{rng: c.g.docRNG(r, saltChanges)}
		c.pages[i] = p
	}
	for len(p.times) == 0 || p.times[len(p.times)-1] <= d {
		prev := time.Duration(0)
		if len(p.times) > 0 {
			prev = p.times[len(p.times)-1]
		}
		u := (float64(p.rng.next()>>11) + 0.5) / (1 << 53) // in (0, 1)
		p.times = append(p.times, prev+time.Duration(-math.Log(u)*float64(mean)))
	}
	version, _ = slices.BinarySearch(p.times, d+1) // changes at or before d
	if version > 0 {
		last = p.times[version-1]
	}
	return version, last
}

// validate sets the ETag and Last-Modified of page r as it is now, and
// reports its version, and whether the request's validators match it
// (If-None-Match first, as RFC 9110 says; If-Modified-Since has a
// resolution of seconds, so a page that changed within the second of the
// copy's date is taken as unchanged, as by real servers).
func (c *changes) validate(rw http.ResponseWriter, r *http.Request, doc res) (version int, notModified bool) {
	version, last := c.at(doc, time.Since(c.start))
	etag := `"` + strconv.Itoa(int(doc.host)) + "-" + strconv.Itoa(int(doc.n)) + "-v" + strconv.Itoa(version) + `"`
	modified := c.start.Add(last).UTC().Truncate(time.Second)
	h := rw.Header()
	h["Etag"] = []string{etag}
	h["Last-Modified"] = []string{modified.Format(http.TimeFormat)}
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, tag := range strings.Split(inm, ",") {
			if t := strings.TrimSpace(tag); t == etag || t == "*" || t == "W/"+etag {
				return version, true
			}
		}
		return version, false
	}
	if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !modified.After(ims) {
		return version, true
	}
	return version, false
}

// appendVersion puts the version of a changing page in its text, before
// the closing tags.
func appendVersion(body []byte, version int) []byte {
	end := body[len(body)-len(htmlFooter):]
	footer := string(end)
	body = append(body[:len(body)-len(htmlFooter)], "</p>\n<p class=\"version\">version "...)
	body = strconv.AppendInt(body, int64(version), 10)
	return append(body, footer...)
}

// Version returns the version of the page at url at time t: the number of
// times it changed from NewWeb until t (0 before its first change), as
// its text shows. ok is false for a URL that is no page of a good host, or
// without Config.ChangeInterval.
func (w *Web) Version(url string, t time.Time) (version int, ok bool) {
	if w.changes == nil {
		return 0, false
	}
	h, path, query, ok := w.g.parseURL(url)
	if !ok || query != "" || h < 0 || w.g.isTrap(h) {
		return 0, false
	}
	r, ok := w.g.route(h, path)
	if !ok || r.kind != kindPage {
		return 0, false
	}
	version, _ = w.changes.at(r, t.Sub(w.changes.start))
	return version, true
}
