package crawlertest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Trap is a kind of crawler trap: a host whose pages lead to an unbounded
// space of URLs. Config.Traps assigns Traps to hosts; the zero Trap, NoTrap,
// is an ordinary host. A trap host serves only its trap: its home page "/"
// is the trap's entry, and paths outside the trap answer 404 (except on a
// Soft404 host). Its robots.txt is the ordinary one, which restricts no
// trap path.
type Trap uint8

const (
	// NoTrap is an ordinary host.
	NoTrap Trap = iota
	// Calendar serves /calendar?month=YYYY-MM for every month from 0001-01
	// to 999999999-12, and "/" as the calendar of 2025-01. Each page names
	// its month and links to the previous and the next month and to a good
	// page of another host.
	Calendar
	// SessionID serves a site of PagesPerHost pages, "/" and /p/<n>, with
	// or without a query sid=<id> (1 to 64 letters, digits, '-' or '_').
	// Every link to the host carries ?sid= and a fresh id of 16 hex digits,
	// drawn from the requested page and its own sid, so each page links to
	// URLs never seen before. A page's HTML does not depend on the sid it
	// was requested with, but for the sid values in its hrefs: its text is
	// identical. Pages also link, without a sid, to a good page of another
	// host.
	SessionID
	// DeepPath serves "/" and every directory /d/<w1>/<w2>/.../<wk>/ (k ≥ 1,
	// each wi one of 64 words, trailing slash): each page links, relatively,
	// to two subdirectories ("cedar/"), to its parent ("../") below depth
	// 1, and to a good page of another host.
	DeepPath
	// LinkFarm serves /farm/<n> for every n below 10⁹, and "/" as
	// /farm/0; each page has 2×OutDegree links to random farm pages and no
	// link leaving the farm. Every page's text is its own.
	LinkFarm
	// Soft404 answers every path, with any query, with 200 and one HTML
	// "not found" page, byte for byte the same whatever the URL. The page
	// links relatively to "more/1", "more/2" and "extra/1", so that from
	// /more/extra/1 it leads to /more/extra/more/1 and so on, and to the
	// home page of a good host.
	Soft404

	numTraps // number of Trap values
)

var trapNames = [numTraps]string{"NoTrap", "Calendar", "SessionID", "DeepPath", "LinkFarm", "Soft404"}

// String returns the name of t, "Calendar" for Calendar.
func (t Trap) String() string {
	if t < numTraps {
		return trapNames[t]
	}
	return "Trap(" + strconv.Itoa(int(t)) + ")"
}

// Limits of the trap URL spaces.
const (
	farmPages    = 1_000_000_000 // /farm/<n>: n < farmPages (num parses 9 digits)
	maxYear      = 999_999_999   // Calendar: years 1..maxYear
	calendarHome = 2025 * 12     // Calendar: the month of "/", 2025-01
	sidLen       = 16            // SessionID: hex digits of a generated sid
	maxSidLen    = 64            // SessionID: longest sid accepted
)

// Salts of the trap streams (see saltLinks).
const (
	saltTrap = 3
	saltSid  = 4
)

// setTraps records the Trap of every host, as Config.Traps returns them, in
// g. It panics on an invalid Trap or a trap on host 0 (the seed's host).
func (g *gen) setTraps(f func(host int) Trap) {
	if f == nil {
		return
	}
	traps := make([]Trap, g.hosts)
	for h := range traps {
		t := f(h)
		if t >= numTraps {
			panic(fmt.Sprintf("crawlertest: Trap of host %d: invalid %v", h, t))
		}
		if h == 0 && t != NoTrap {
			panic("crawlertest: host 0 holds the seed and cannot be a trap (" + t.String() + ")")
		}
		traps[h] = t
		if t == NoTrap {
			g.goodHosts = append(g.goodHosts, int32(h))
		}
	}
	if len(g.goodHosts) == g.hosts {
		g.goodHosts = nil
		return // no trap at all: the web without Config.Traps
	}
	g.traps = traps
	g.nextGood = make([]int32, g.hosts)
	for h := range g.hosts {
		n := (h + 1) % g.hosts
		for traps[n] != NoTrap {
			n = (n + 1) % g.hosts
		}
		g.nextGood[h] = int32(n)
	}
}

// isTrap reports whether host h is a trap host.
func (g *gen) isTrap(h int) bool { return g.traps != nil && h >= 0 && g.traps[h] != NoTrap }

// trapRNG returns the random stream of a trap page of host h with key.
func (g *gen) trapRNG(h int, salt, key uint64) rng {
	x := mix64(g.seed ^ salt*0xd1b54a32d192ed03)
	x = mix64(x ^ uint64(h))
	return rng{s: mix64(x ^ key)}
}

// goodLink returns the absolute URL of a random page (Popularity applies)
// of a random good host, or "" if there is none.
func (g *gen) goodLink(rg *rng) string {
	if len(g.goodHosts) == 0 {
		return ""
	}
	h := int(g.goodHosts[rg.intn(len(g.goodHosts))])
	return canonical(page(h, g.pageIndex(rg)))
}

// trapPage appends to b the body of path p (decoded, dot-segment free) with
// raw query q on trap host h, and reports whether the trap serves that URL
// (with 200); if not, it answers 404.
func (g *gen) trapPage(b []byte, h int, p, q string) ([]byte, bool) {
	switch g.traps[h] {
	case Calendar:
		m := int64(calendarHome)
		if p != "/" || q != "" {
			var ok bool
			if m, ok = parseMonth(q); !ok || p != "/calendar" {
				return b, false
			}
		}
		return g.calendarPage(b, h, m), true
	case SessionID:
		n := 0
		if p != "/" {
			s, ok := strings.CutPrefix(p, "/p/")
			k, ok1 := num(s, g.pages)
			if !ok || !ok1 || k == 0 {
				return b, false
			}
			n = int(k)
		}
		sid, ok := strings.CutPrefix(q, "sid=")
		if q != "" && (!ok || !validSid(sid)) {
			return b, false
		}
		return g.sessionPage(b, h, n, sid), true
	case DeepPath:
		if q != "" || (p != "/" && !isDeepPath(p)) {
			return b, false
		}
		return g.deepPage(b, h, p), true
	case LinkFarm:
		n := int32(0)
		if p != "/" {
			s, ok := strings.CutPrefix(p, "/farm/")
			var ok1 bool
			if n, ok1 = num(s, farmPages); !ok || !ok1 {
				return b, false
			}
		}
		if q != "" {
			return b, false
		}
		return g.farmPage(b, h, n), true
	case Soft404:
		return g.soft404Page(b, h), true
	}
	return b, false
}

// appendTrapDoc appends an HTML page titled title whose text, drawn from
// rg and padded to about PageBytes, holds one <a href> per href, in order.
// The text depends only on rg, the title and the number of hrefs.
func (g *gen) appendTrapDoc(b []byte, rg *rng, title string, hrefs []string) []byte {
	start := len(b)
	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"...)
	b = append(b, title...)
	b = append(b, "</title>\n</head>\n<body>\n<h1>"...)
	b = append(b, title...)
	b = append(b, "</h1>\n<p>"...)
	gap := (g.pageBytes - (len(b) - start) - len(htmlFooter) - linkCost*len(hrefs)) / (len(hrefs) + 1)
	for i, href := range hrefs {
		if i > 0 && i%4 == 0 {
			b = append(b, "</p>\n<p>"...)
		}
		if gap > 0 {
			b = appendWords(b, rg, gap)
		}
		b = append(b, "<a href=\""...)
		b = append(b, href...)
		b = append(b, "\">"...)
		b = appendWords(b, rg, 1+rg.intn(12))
		b = b[:len(b)-1] // drop the trailing space
		b = append(b, "</a> "...)
	}
	if pad := g.pageBytes - (len(b) - start) - len(htmlFooter); pad > 0 {
		b = appendWords(b, rg, pad)
	}
	return append(b, htmlFooter...)
}

var monthNames = [12]string{"January", "February", "March", "April", "May", "June",
	"July", "August", "September", "October", "November", "December"}

// appendMonth appends month m (year*12 + month-1) as YYYY-MM.
func appendMonth(b []byte, m int64) []byte {
	y := m / 12
	for d := int64(1000); d > 1 && y < d; d /= 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, y, 10)
	b = append(b, '-')
	if m%12 < 9 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, m%12+1, 10)
}

// parseMonth parses the query month=YYYY-MM, as appendMonth spells it
// (at least 4 year digits, no other leading zero), into a month number.
func parseMonth(q string) (int64, bool) {
	v, ok := strings.CutPrefix(q, "month=")
	ys, ms, ok1 := strings.Cut(v, "-")
	if !ok || !ok1 || len(ys) < 4 || len(ms) != 2 {
		return 0, false
	}
	if len(ys) > 4 && ys[0] == '0' {
		return 0, false
	}
	ys = strings.TrimLeft(ys, "0")
	y, ok := num(ys, maxYear+1)
	if !ok || y < 1 {
		return 0, false
	}
	mo, ok := num(strings.TrimPrefix(ms, "0"), 13)
	if !ok || mo < 1 || (ms[0] == '0') != (mo < 10) {
		return 0, false
	}
	return int64(y)*12 + int64(mo) - 1, true
}

func (g *gen) calendarPage(b []byte, h int, m int64) []byte {
	rg := g.trapRNG(h, saltTrap, uint64(m))
	title := "Calendar: " + monthNames[m%12] + " " + strconv.FormatInt(m/12, 10)
	var hrefs []string
	if m > 12 { // 0001-01 is the first month
		hrefs = append(hrefs, string(appendMonth([]byte("/calendar?month="), m-1)))
	}
	if m < (maxYear+1)*12-1 {
		hrefs = append(hrefs, string(appendMonth([]byte("/calendar?month="), m+1)))
	}
	if u := g.goodLink(&rg); u != "" {
		hrefs = append(hrefs, u)
	}
	return g.appendTrapDoc(b, &rg, title, hrefs)
}

// validSid reports whether s is a sid the SessionID trap accepts.
func validSid(s string) bool {
	if s == "" || len(s) > maxSidLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && s[i] != '-' && s[i] != '_' {
			return false
		}
	}
	return true
}

// appendHex appends x as sidLen (16) hex digits.
func appendHex(b []byte, x uint64) []byte {
	for i := sidLen - 1; i >= 0; i-- {
		b = append(b, "0123456789abcdef"[x>>(4*uint(i))&15])
	}
	return b
}

// fnv64 is FNV-1a of s.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

func (g *gen) sessionPage(b []byte, h, n int, sid string) []byte {
	rg := g.trapRNG(h, saltTrap, uint64(n))
	ids := g.trapRNG(h, saltSid, uint64(n)^fnv64(sid)) // the only stream sid changes
	title := "Session site " + strconv.Itoa(h) + " page " + strconv.Itoa(n)
	hrefs := make([]string, 0, 4+g.outDegree/4)
	var u []byte
	for range 3 + g.outDegree/4 {
		u = appendPath(u[:0], page(h, rg.intn(g.pages)))
		u = append(u, "?sid="...)
		u = appendHex(u, ids.next())
		hrefs = append(hrefs, string(u))
	}
	if gl := g.goodLink(&rg); gl != "" {
		hrefs = append(hrefs, gl)
	}
	return g.appendTrapDoc(b, &rg, title, hrefs)
}

// wordIndex maps each of words to its index.
var wordIndex = func() map[string]int {
	m := make(map[string]int, len(words))
	for i, w := range words {
		m[w] = i
	}
	return m
}()

// isDeepPath reports whether p is /d/<w1>/.../<wk>/ with k ≥ 1 words.
func isDeepPath(p string) bool {
	s, ok := strings.CutPrefix(p, "/d/")
	if !ok || s == "" || s[len(s)-1] != '/' {
		return false
	}
	for seg := range strings.SplitSeq(s[:len(s)-1], "/") {
		if _, ok := wordIndex[seg]; !ok {
			return false
		}
	}
	return true
}

func (g *gen) deepPage(b []byte, h int, p string) []byte {
	rg := g.trapRNG(h, saltTrap, fnv64(p))
	depth := strings.Count(p, "/") - 2 // "/" is 0 (-1+1), /d/a/ is 1
	prefix := ""
	if p == "/" {
		depth, prefix = 0, "d/"
	}
	title := "Deep page " + p + " at depth " + strconv.Itoa(depth)
	i := rg.intn(len(words))
	j := (i + 1 + rg.intn(len(words)-1)) % len(words)
	hrefs := []string{prefix + words[i] + "/", prefix + words[j] + "/"}
	if depth > 1 {
		hrefs = append(hrefs, "../")
	}
	if u := g.goodLink(&rg); u != "" {
		hrefs = append(hrefs, u)
	}
	return g.appendTrapDoc(b, &rg, title, hrefs)
}

func (g *gen) farmPage(b []byte, h int, n int32) []byte {
	rg := g.trapRNG(h, saltTrap, uint64(n))
	title := "Link farm page " + strconv.Itoa(int(n))
	hrefs := make([]string, 2*g.outDegree)
	for i := range hrefs {
		hrefs[i] = "/farm/" + strconv.Itoa(rg.intn(farmPages))
	}
	return g.appendTrapDoc(b, &rg, title, hrefs)
}

func (g *gen) soft404Page(b []byte, h int) []byte {
	rg := g.trapRNG(h, saltTrap, 0)
	hrefs := []string{"more/1", "more/2", "extra/1"}
	if len(g.goodHosts) > 0 {
		hrefs = append(hrefs, canonical(page(int(g.nextGood[h]), 0)))
	}
	return g.appendTrapDoc(b, &rg, "Page not found", hrefs)
}

// serveTrap answers a page request to trap host h.
func (w *Web) serveTrap(rw http.ResponseWriter, r *http.Request, h int, p string, s *scratch) {
	var ok bool
	s.body, ok = w.g.trapPage(s.body[:0], h, p, r.URL.RawQuery)
	if !ok {
		writeBody(rw, r, http.StatusNotFound, ctText, []byte(notFoundText))
		return
	}
	w.writeHTML(rw, r, http.StatusOK, s.body, s)
}

// IsTrap reports whether u, spelled in any way the server accepts
// ("HTTP://H4.Crawler.Test:80/x/../calendar?month=2025-02"), is a URL of a
// trap host (Config.Traps), whatever its path: robots.txt, trap pages and
// 404s alike. It is false for URLs outside the web.
func (w *Web) IsTrap(u string) bool {
	h, _, _, ok := w.g.parseURL(u)
	return ok && w.g.isTrap(h)
}

// TrapHosts returns the names of the trap hosts ("h4.crawler.test"), by
// index; nil without traps.
func (w *Web) TrapHosts() []string {
	var out []string
	for h := range w.g.traps {
		if w.g.isTrap(h) {
			out = append(out, string(appendHost(nil, h)))
		}
	}
	return out
}

// HostTrap returns the Trap of host (a name such as "h4.crawler.test"):
// NoTrap for a good host or a name outside the web.
func (w *Web) HostTrap(host string) Trap {
	h := w.g.hostIndex(host)
	if !w.g.isTrap(h) {
		return NoTrap
	}
	return w.g.traps[h]
}

// TrapRequests returns the number of page requests (robots.txt and its
// redirect hops excluded) to trap hosts since NewWeb or the last
// ResetCounts: the crawl budget a crawler spent in traps. They are also
// counted in TotalRequests and RequestCounts.
func (w *Web) TrapRequests() int { return int(w.counts.traps.Load()) }
