package crawlertest

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults and limits of ScriptConfig.
const (
	// DefaultScriptPages is the number of script-made pages of each kind
	// of a zero ScriptConfig.
	DefaultScriptPages = 5
	// MaxScriptPages is the most script-made pages of each kind;
	// NewScriptSite panics beyond it.
	MaxScriptPages = 1000
	// ScriptStaticPages is the number of static pages, /static/1 to
	// /static/<ScriptStaticPages>, that the home page links to in its HTML.
	ScriptStaticPages = 3
	// ScriptTimer is the timeout of the ScriptSite's timer scripts: the
	// home page adds its link to /js/timer/1, and each /js/timer/<n> page
	// builds its body, this long after the script runs. A renderer must
	// wait at least this long (per page) to see what they write.
	ScriptTimer = 300 * time.Millisecond
)

// ScriptConfig describes a ScriptSite. The zero value is a valid
// configuration: each zero field means its documented default.
type ScriptConfig struct {
	// Pages is the number of script-made pages of each kind (now, timer,
	// fetch; see ScriptSite); 0 means DefaultScriptPages (5). NewScriptSite
	// panics if it is negative or above MaxScriptPages.
	Pages int
	// Latency is added before every response of the site (not of the
	// canary). The wait ends early, without a response, when the request
	// is cancelled or the site closed.
	Latency time.Duration
}

// The kinds of script-made pages, in the order of their products.
var scriptKinds = [...]string{"now", "timer", "fetch"}

// scriptPrivatePages are the paths of the pages that only resources
// robots.txt disallows link to: /private/tracker.js adds a link to the
// first, /private/data.json lists the second.
var scriptPrivatePages = [...]string{"/js/private/1", "/js/private/2"}

// scriptForbidden are the paths under /private/, which robots.txt
// disallows, that the home page references.
var scriptForbidden = [...]string{"/private/tracker.js", "/private/pixel.png", "/private/data.json"}

// A ScriptSite is a small site whose pages need JavaScript: links and
// content that only a renderer (a browser running the pages' scripts)
// sees, for tests of a rendering fetcher and of CSS extraction. It is
// served on its own listener on 127.0.0.1, next to a canary server on
// another port that counts the requests it gets. The site is fixed by its
// ScriptConfig: two sites of the same config differ only in their ports.
// Create it with NewScriptSite and stop it with Close. Its methods are
// safe for concurrent use.
//
// The site serves (P is ScriptConfig.Pages, S is ScriptStaticPages):
//
//	/robots.txt          User-agent: * / Disallow: /private/
//	/                    the home page (below)
//	/static/<i>          i in 1..S: plain HTML, the logo, a link home
//	/static/logo.png     a 2×2 PNG, which every HTML page shows
//	/js/now/<n>          n in 1..P: an empty body that an inline script
//	                     fills at once
//	/js/timer/<n>        the same, filled ScriptTimer after the script runs
//	/js/fetch/<n>        the same, filled from /api/fetch/<n>.json
//	/api/links.json      {"links": [{"href": "/js/fetch/1", ...}]}
//	/api/fetch/<n>.json  the products of /js/fetch/<n> and its next page
//	/private/tracker.js  (disallowed) a script that adds a link to
//	                     /js/private/1 to the page that loads it
//	/private/pixel.png   (disallowed) the same PNG
//	/private/data.json   (disallowed) {"links": [{"href": "/js/private/2"}]}
//	/js/private/<1|2>    pages only the disallowed resources link to
//
// Anything else is a 404 (text/plain). Every response has its
// Content-Type: text/html, text/javascript, application/json, image/png
// or text/plain, each with charset=utf-8 but the PNG. Only GET and HEAD
// are answered (405 else).
//
// The home page's HTML links (<a href>) to the static pages only. Its
// scripts add links to the first script-made page of each kind, each
// spelled differently: an inline script at the end of the body adds
// "js/now/1" (relative) at once; a timer it sets adds
// location.origin+"/js/timer/1" (absolute) after ScriptTimer; and a
// fetch('/api/links.json') adds the "/js/fetch/1" (absolute path) that
// the JSON lists. The home page also references what a policing renderer
// must never request: <script src="/private/tracker.js"> in its head,
// <img src="/private/pixel.png">, fetch('/private/data.json') (whose
// links the script would add), and, on the canary, <img
// src="http://<canary>/img.png"> and fetch('http://<canary>/beacon').
// A renderer that loads them anyway reaches /js/private/1 and
// /js/private/2 and shows in Requests and CanaryRequests.
//
// The body of each script-made page /js/<kind>/<n> is empty in its HTML
// but for a heading, the logo and a <noscript> note; its inline script builds a
// list of 2 to 4 products,
//
//	<div class="product"><span class="name">Product K</span> <span class="price">$D.CC</span></div>
//
// (the names are computed by the script, or, for fetch pages, read from
// the JSON: they are not in the page's HTML), a link to the next page of
// its kind (none for page P) spelled like the home page's link to that
// kind ("<n+1>", location.origin+"/js/timer/<n+1>", the JSON's
// "/js/fetch/<n+1>"), and a link home. A renderer must thus follow
// script-made links from script-made pages to reach /js/<kind>/P.
// Product numbers K run from 1 over the now, timer and fetch pages in
// order; [ScriptSite.Products] is the truth.
//
// A crawler without rendering reaches exactly StaticPages. A rendering
// crawler that obeys robots.txt and fetches nothing but the site also
// reaches ScriptOnlyPages, and no page of /js/private/, while
// Requests(p) stays 0 for every p in Forbidden and CanaryRequests 0.
type ScriptSite struct {
	pages     int
	latency   time.Duration
	ln, cln   net.Listener
	srv, csrv *http.Server
	origin    string // http://127.0.0.1:port
	canary    string // 127.0.0.1:port

	files    map[string]scriptFile // by path
	products map[string][]string   // by path of script-made page

	mu       sync.Mutex
	requests map[string]int // by request URI
	arrivals []time.Time    // of every request, in order
	closed   bool
	wg       sync.WaitGroup // running handlers of the site
	done     chan struct{}  // closed by Close: ends latency waits
	canaryN  atomic.Int64
}

// scriptFile is a response of the site.
type scriptFile struct {
	ct   []string
	body []byte
}

// Content types of the site's responses (never modified).
var (
	scriptCTJS   = []string{"text/javascript; charset=utf-8"}
	scriptCTJSON = []string{"application/json; charset=utf-8"}
)

// NewScriptSite starts a ScriptSite and its canary on two new listeners on
// 127.0.0.1 (ephemeral ports) and returns it. The caller must Close it.
// NewScriptSite panics if it cannot listen or if cfg.Pages is out of range.
func NewScriptSite(cfg ScriptConfig) *ScriptSite {
	if cfg.Pages < 0 || cfg.Pages > MaxScriptPages {
		panic(fmt.Sprintf("crawlertest: ScriptConfig.Pages = %d, not in [0, %d]", cfg.Pages, MaxScriptPages))
	}
	if cfg.Pages == 0 {
		cfg.Pages = DefaultScriptPages
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("crawlertest: cannot listen on 127.0.0.1: " + err.Error())
	}
	cln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		panic("crawlertest: cannot listen on 127.0.0.1: " + err.Error())
	}
	s := &ScriptSite{
		pages:    cfg.Pages,
		latency:  cfg.Latency,
		ln:       ln,
		cln:      cln,
		origin:   "http://" + ln.Addr().String(),
		canary:   cln.Addr().String(),
		requests: map[string]int{},
		done:     make(chan struct{}),
	}
	s.build()
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: time.Minute}
	s.csrv = &http.Server{Handler: http.HandlerFunc(s.serveCanary), ReadHeaderTimeout: time.Minute}
	go s.srv.Serve(ln)
	go s.csrv.Serve(cln)
	return s
}

// Close stops the site and the canary: it closes their listeners and
// connections, ends latency waits, and returns once every handler of the
// site has returned. Close is idempotent. The other methods still work
// after Close.
func (s *ScriptSite) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	close(s.done)
	s.srv.Close()
	s.csrv.Close()
	s.wg.Wait()
}

// URL returns the site's origin, "http://127.0.0.1:port".
func (s *ScriptSite) URL() string { return s.origin }

// Addr returns the site's address, "127.0.0.1:port", as a crawl's
// address allow list takes it.
func (s *ScriptSite) Addr() string { return s.ln.Addr().String() }

// CanaryAddr returns the canary's address, "127.0.0.1:port": another
// port of the same IP, which a crawl of the site must not allow.
func (s *ScriptSite) CanaryAddr() string { return s.canary }

// Seed returns the home page's URL, "http://127.0.0.1:port/".
func (s *ScriptSite) Seed() string { return s.origin + "/" }

// StaticPages returns the URLs of the pages a crawl without rendering
// reaches from Seed: the home page, then /static/1 to
// /static/<ScriptStaticPages> (robots.txt is not a page). The slice is
// new on each call.
func (s *ScriptSite) StaticPages() []string {
	out := []string{s.Seed()}
	for i := 1; i <= ScriptStaticPages; i++ {
		out = append(out, s.origin+"/static/"+strconv.Itoa(i))
	}
	return out
}

// ScriptOnlyPages returns the URLs of the pages that only a renderer
// reaches, by links that scripts make: /js/now/<n>, /js/timer/<n> and
// /js/fetch/<n> for n from 1 to ScriptConfig.Pages, in that order. It
// leaves out the /js/private/ pages, which only the disallowed resources
// link to. The slice is new on each call.
func (s *ScriptSite) ScriptOnlyPages() []string {
	out := make([]string, 0, len(scriptKinds)*s.pages)
	for _, kind := range scriptKinds {
		for n := 1; n <= s.pages; n++ {
			out = append(out, s.origin+scriptPagePath(kind, n))
		}
	}
	return out
}

// Forbidden returns the paths, under /private/, that robots.txt disallows
// and the home page references: a script (<script src>), an image and a
// fetch() of JSON. A renderer that obeys robots.txt never requests them.
// The slice is new on each call.
func (s *ScriptSite) Forbidden() []string { return append([]string(nil), scriptForbidden[:]...) }

// Requests returns how many requests the site got for path, a request
// URI as sent: the path, escaped as on the wire, and "?query" if there was
// one ("/api/links.json", "/static/1?x=1"). robots.txt counts like any path.
func (s *ScriptSite) Requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

// CanaryRequests returns how many requests the canary got, whatever their
// path or method. A crawl that fetches nothing but the site leaves it 0.
func (s *ScriptSite) CanaryRequests() int { return int(s.canaryN.Load()) }

// Products returns, for each script-made page URL (all of ScriptOnlyPages),
// the texts of the `.product .name` elements that its script writes, in
// document order: "Product 1", "Product 2", ... The map is new on each
// call; its slices are shared and must not be modified.
func (s *ScriptSite) Products() map[string][]string {
	out := make(map[string][]string, len(s.products))
	for p, names := range s.products {
		out[s.origin+p] = names
	}
	return out
}

func scriptPagePath(kind string, n int) string { return "/js/" + kind + "/" + strconv.Itoa(n) }

// build makes every response of the site.
func (s *ScriptSite) build() {
	s.files = map[string]scriptFile{}
	s.products = map[string][]string{}
	html := func(p, body string) { s.files[p] = scriptFile{ctHTML, []byte(body)} }
	s.files["/robots.txt"] = scriptFile{ctText, []byte(robotsBody)}
	s.files["/static/logo.png"] = scriptFile{ctPNG, pngBody}
	s.files["/private/pixel.png"] = scriptFile{ctPNG, pngBody}
	s.files["/private/tracker.js"] = scriptFile{scriptCTJS, []byte(scriptTracker)}
	s.files["/private/data.json"] = scriptFile{scriptCTJSON, []byte(`{"links": [{"href": "` + scriptPrivatePages[1] + `", "text": "Private page 2"}]}` + "\n")}
	s.files["/api/links.json"] = scriptFile{scriptCTJSON, []byte(`{"links": [{"href": "/js/fetch/1", "text": "Fetch page 1"}]}` + "\n")}
	html("/", scriptHome(s.canary))
	for i := 1; i <= ScriptStaticPages; i++ {
		html("/static/"+strconv.Itoa(i), scriptStatic(i))
	}
	for i, p := range scriptPrivatePages {
		html(p, scriptPage("Private page "+strconv.Itoa(i+1), "", ""))
	}
	k := 1 // the next product number
	for ki, kind := range scriptKinds {
		for n := 1; n <= s.pages; n++ {
			count := 2 + (ki+n)%3
			names := make([]string, count)
			prices := make([]int, count) // in cents
			for j := range names {
				names[j] = "Product " + strconv.Itoa(k+j)
				prices[j] = 100 + (k+j)*379%9900
			}
			p := scriptPagePath(kind, n)
			s.products[p] = names
			title := strings.ToUpper(kind[:1]) + kind[1:] + " page " + strconv.Itoa(n)
			var next string // the next page's link, spelled as the kind spells it
			switch {
			case n == s.pages:
			case kind == "now":
				next = strconv.Itoa(n + 1)
			default:
				next = scriptPagePath(kind, n+1)
			}
			var run string
			switch kind {
			case "now":
				run = fmt.Sprintf("build(products(%d, %s), %s);", k, scriptJSInts(prices), scriptJSString(next))
			case "timer":
				nextJS := "''"
				if next != "" {
					nextJS = "location.origin + " + scriptJSString(next)
				}
				run = fmt.Sprintf("setTimeout(function () {\n    build(products(%d, %s), %s);\n  }, %d);",
					k, scriptJSInts(prices), nextJS, ScriptTimer.Milliseconds())
			case "fetch":
				api := "/api/fetch/" + strconv.Itoa(n) + ".json"
				run = fmt.Sprintf("fetch(%s)\n    .then(function (r) { return r.json(); })\n    .then(function (d) { build(d.products, d.next); })\n    .catch(function () {});", scriptJSString(api))
				var b strings.Builder
				b.WriteString(`{"products": [`)
				for j, name := range names {
					if j > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, `{"name": %q, "price": %q}`, name, scriptCents(prices[j]))
				}
				fmt.Fprintf(&b, `], "next": %q}`+"\n", next)
				s.files[api] = scriptFile{scriptCTJSON, []byte(b.String())}
			}
			html(p, scriptPage(title, scriptBuild, run))
			k += count
		}
	}
}

// scriptCents formats a price in cents as "$D.CC", as the pages' script
// does.
func scriptCents(c int) string { return fmt.Sprintf("$%d.%02d", c/100, c%100) }

// scriptJSString returns s as a JavaScript string literal (s is plain ASCII
// without quotes or backslashes).
func scriptJSString(s string) string { return "'" + s + "'" }

// scriptJSInts returns a JavaScript array literal of v.
func scriptJSInts(v []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(x))
	}
	b.WriteByte(']')
	return b.String()
}

// scriptBuild are the functions of a script-made page's script:
// products(first, prices) makes the products first, first+1, ... with
// those prices (in cents); build(products, next) writes them into
// #products and the links to next (if not "") and home into #nav.
const scriptBuild = `function products(first, prices) {
    return prices.map(function (c, i) {
      return {name: 'Product ' + (first + i), price: '$' + (c / 100).toFixed(2)};
    });
  }
  function link(href, text) {
    var a = document.createElement('a');
    a.href = href;
    a.textContent = text;
    return a;
  }
  function build(products, next) {
    var list = document.getElementById('products');
    products.forEach(function (p) {
      var div = document.createElement('div');
      div.className = 'product';
      var name = document.createElement('span');
      name.className = 'name';
      name.textContent = p.name;
      var price = document.createElement('span');
      price.className = 'price';
      price.textContent = p.price;
      div.append(name, ' ', price);
      list.appendChild(div);
    });
    var nav = document.getElementById('nav');
    if (next) {
      nav.append(link(next, 'Next page'), ' ');
    }
    nav.append(link('/', 'Home'));
  }
  `

// scriptTracker is /private/tracker.js: once the document is parsed, it
// adds a link to the first /js/private/ page to the body.
const scriptTracker = `// Disallowed by robots.txt: a polite renderer never runs this.
document.addEventListener('DOMContentLoaded', function () {
  var a = document.createElement('a');
  a.href = '/js/private/1';
  a.textContent = 'Private page 1';
  document.body.appendChild(a);
});
`

// scriptPage returns the HTML of a page whose body the inline script
// helpers+run builds ("" for a page without script).
func scriptPage(title, helpers, run string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>%s</title>
</head>
<body>
<h1>%s</h1>
<noscript><p>This page needs JavaScript.</p></noscript>
<img src="/static/logo.png" alt="Logo" width="2" height="2">
<div id="products"></div>
<p id="nav"></p>
`, title, title)
	if run != "" {
		fmt.Fprintf(&b, "<script>\n(function () {\n  'use strict';\n  %s%s\n})();\n</script>\n", helpers, run)
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// scriptStatic returns the HTML of /static/<i>.
func scriptStatic(i int) string {
	return fmt.Sprintf(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Static page %d</title>
</head>
<body>
<h1>Static page %d</h1>
<img src="/static/logo.png" alt="Logo" width="2" height="2">
<p>This page is plain HTML: no script.</p>
<p><a href="/">Home</a></p>
</body>
</html>
`, i, i)
}

// scriptHome returns the HTML of the home page, whose canary is at the
// address canary.
func scriptHome(canary string) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Script site</title>
<script src="/private/tracker.js"></script>
</head>
<body>
<h1>Script site</h1>
<img src="/static/logo.png" alt="Logo" width="2" height="2">
<ul id="static">
`)
	for i := 1; i <= ScriptStaticPages; i++ {
		fmt.Fprintf(&b, "<li><a href=\"/static/%d\">Static page %d</a></li>\n", i, i)
	}
	fmt.Fprintf(&b, `</ul>
<ul id="links"></ul>
<img src="/private/pixel.png" alt="" width="1" height="1">
<img src="http://%[1]s/img.png" alt="" width="1" height="1">
<script>
(function () {
  'use strict';
  var list = document.getElementById('links');
  function add(href, text) {
    var a = document.createElement('a');
    a.href = href;
    a.textContent = text;
    var li = document.createElement('li');
    li.appendChild(a);
    list.appendChild(li);
  }
  function addAll(d) {
    d.links.forEach(function (l) { add(l.href, l.text); });
  }
  // At once: a relative link.
  add('js/now/1', 'Now page 1');
  // After a timer: an absolute link.
  setTimeout(function () {
    add(location.origin + '/js/timer/1', 'Timer page 1');
  }, %[2]d);
  // After fetch() of JSON: the links it lists.
  fetch('/api/links.json')
    .then(function (r) { return r.json(); })
    .then(addAll)
    .catch(function () {});
  // Disallowed by robots.txt: a polite renderer never sends this.
  fetch('/private/data.json')
    .then(function (r) { return r.json(); })
    .then(addAll)
    .catch(function () {});
  // Another address, which the crawl does not allow.
  fetch('http://%[1]s/beacon', {mode: 'no-cors'}).catch(function () {});
})();
</script>
</body>
</html>
`, canary, ScriptTimer.Milliseconds())
	return b.String()
}

// serve is the site's handler.
func (s *ScriptSite) serve(rw http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(rw, "crawlertest: closed", http.StatusServiceUnavailable)
		return
	}
	s.requests[r.URL.RequestURI()]++
	s.arrivals = append(s.arrivals, time.Now())
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	if s.latency > 0 && !s.wait(r.Context(), s.latency) {
		panic(http.ErrAbortHandler) // no response, rather than an empty 200
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		rw.Header().Set("Allow", "GET, HEAD")
		writeBody(rw, r, http.StatusMethodNotAllowed, ctText, []byte("405 method not allowed\n"))
		return
	}
	f, ok := s.files[r.URL.Path]
	if !ok || r.URL.RawQuery != "" {
		writeBody(rw, r, http.StatusNotFound, ctText, []byte(notFoundText))
		return
	}
	writeBody(rw, r, http.StatusOK, f.ct, f.body)
}

// wait waits for d, and reports false if the request or the site ended
// first.
func (s *ScriptSite) wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}

// serveCanary is the canary's handler: it counts the request and answers
// 204 No Content.
func (s *ScriptSite) serveCanary(rw http.ResponseWriter, r *http.Request) {
	s.canaryN.Add(1)
	rw.WriteHeader(http.StatusNoContent)
}

// Arrivals returns the time each request to the site arrived, in order:
// what a test of per-host politeness measures the gaps of.
func (s *ScriptSite) Arrivals() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.arrivals)
}

// RequestCounts returns a snapshot of the site's request counts: request
// URI as sent (see Requests) to number of requests, for every one requested
// at least once. Cost: O(distinct request URIs).
func (s *ScriptSite) RequestCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.requests)
}
