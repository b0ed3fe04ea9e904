package crawlertest

import (
	"math/bits"
	"strconv"
	"strings"
)

// domain is the suffix of every virtual host name.
const domain = ".crawler.test"

// kind is the kind of a resource of the synthetic web.
type kind uint8

const (
	kindPage     kind = iota // "/" (n == 0) or /p/<n>: HTML with links
	kindPrivate              // /private/<n>: HTML with links, disallowed by robots.txt
	kindNofollow             // /nofollow/<n>: HTML with links, linked only with rel=nofollow
	kindImg                  // /img/<n>.png: image/png
	kindRedirect             // /r/<n>: 301 to /p/<n>
	kindTo                   // /to/<k>/<n>: 302 to http://h<k>.crawler.test/p/<n>
	kindChain                // /chain/<n>/<k>: 307/308 to /chain/<n>/<k-1>, and /chain/<n>/1 to /p/<n>
	kindLoopA                // /loop/a: 302 to /loop/b
	kindLoopB                // /loop/b: 303 to /loop/a
	kindMissing              // /missing/<n>: 404 with a small HTML body without links
	kindStory                // /story/<n>/<k>: variant k of story family n (Config.NearDuplicates)
)

// res is one resource (URL) of the synthetic web. It is comparable and used as
// a map key by the ground truth.
type res struct {
	host int32
	kind kind
	n    int32
	k    int32 // kindChain: hops left; kindTo: target host; kindStory: variant
}

// link is one <a href> of an HTML page.
type link struct {
	to       res
	nofollow bool
}

// gen is the deterministic generator shared by the server and the ground
// truth. It is immutable after newGen and safe for concurrent use.
type gen struct {
	seed      uint64
	hosts     int
	pages     int
	pageBytes int
	outDegree int
	maxChain  int

	// With Config.Popularity > 0, random link targets are Zipf-distributed:
	// pagePop over the page indexes of a host, hostPop over the other
	// hosts of a cross-host link, by index. Both nil: uniform.
	pagePop, hostPop *zipf

	// With Config.Traps marking at least one host, traps is the Trap of
	// every host, goodHosts the indexes of the others, and nextGood[h] the
	// first good host after h (cyclically). All nil without traps.
	traps     []Trap
	goodHosts []int32
	nextGood  []int32

	// With Config.NearDuplicates, stories[h] tells whether host h serves
	// story families (see neardup.go); nil without.
	stories []bool
}

// mix64 is the splitmix64 finalizer: a cheap, well-mixing bijection on uint64.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// rng is a splitmix64 generator: small, fast, and good enough for a test web.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n) for n > 0 (Lemire's multiply, no division).
func (r *rng) intn(n int) int {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}

// Salts separate the random streams of one document: the link structure
// (needed by the ground truth) is drawn apart from its spelling and padding
// (needed only to render), so the ground truth never pays for rendering.
const (
	saltLinks   = 1
	saltText    = 2
	saltChanges = 3 // Config.ChangeInterval: when a page changes
)

// docRNG returns the random stream of document r for salt.
func (g *gen) docRNG(r res, salt uint64) rng {
	x := mix64(g.seed ^ salt*0xd1b54a32d192ed03)
	x = mix64(x ^ uint64(uint32(r.host)))
	x = mix64(x ^ uint64(r.kind)<<32 ^ uint64(uint32(r.n)))
	return rng{s: x}
}

// hasRobots reports whether host h serves a robots.txt (every host but
// h3, h7, h11, ...).
func hasRobots(h int) bool { return h%4 != 3 }

// isHTML reports whether r is answered with 200 and an HTML page with links.
func isHTML(k kind) bool {
	return k == kindPage || k == kindPrivate || k == kindNofollow || k == kindStory
}

// page returns the resource of page n of host h.
func page(h, n int) res { return res{host: int32(h), kind: kindPage, n: int32(n)} }

// links appends the links of HTML document doc to dst, in document order.
//
// Every page n links to page n+1 of its host, and every home page to the
// next host's home page (and, if that host is a trap, to the next good
// host's home page too), so the web is reachable from h0's home. The rest
// is random: about 20% of links go to other hosts (to the home page, the
// trap's entry, of a trap host), and a few go to images, redirects, chains,
// the loop, broken links, private pages and (with rel=nofollow) nofollow
// pages. No followed link ever targets a nofollow page. On a story host
// (Config.NearDuplicates), pages also link to stories, and stories have
// links of their own (see neardup.go).
func (g *gen) links(dst []link, doc res) []link {
	if doc.kind == kindStory {
		return g.storyLinks(dst, doc)
	}
	rg := g.docRNG(doc, saltLinks)
	h := int(doc.host)
	w := g.outDegree / 2
	deg := g.outDegree - w + rg.intn(2*w+1)
	start := len(dst)
	for range deg {
		dst = append(dst, g.randomLink(&rg, h))
	}
	if doc.kind == kindPage {
		if int(doc.n)+1 < g.pages {
			dst = insertAt(dst, start+rg.intn(len(dst)-start+1), link{to: page(h, int(doc.n)+1)})
		}
		if doc.n == 0 && g.hosts > 1 {
			next := (h + 1) % g.hosts
			dst = insertAt(dst, start+rg.intn(len(dst)-start+1), link{to: page(next, 0)})
			if g.isTrap(next) && int(g.nextGood[h]) != h {
				dst = insertAt(dst, start+rg.intn(len(dst)-start+1), link{to: page(int(g.nextGood[h]), 0)})
			}
		}
		dst = g.addStoryLinks(dst, start, doc)
	}
	return dst
}

func insertAt(s []link, i int, l link) []link {
	s = append(s, link{})
	copy(s[i+1:], s[i:])
	s[i] = l
	return s
}

// otherHost returns a random host other than h (h itself if there is no
// other): uniform, or with Config.Popularity the i-th of the other hosts in
// index order with Zipf probability, so low-numbered hosts are popular.
func (g *gen) otherHost(rg *rng, h int) int {
	if g.hosts < 2 {
		return h
	}
	if g.hostPop != nil {
		t := g.hostPop.draw(rg)
		if t >= h {
			t++ // skip h itself
		}
		return t
	}
	return (h + 1 + rg.intn(g.hosts-1)) % g.hosts
}

func (g *gen) randomLink(rg *rng, h int) link {
	x := rg.intn(100)
	if x < 20 && g.hosts > 1 {
		t := g.otherHost(rg, h)
		var l link
		switch y := rg.intn(20); {
		case y < 17:
			l = link{to: page(t, g.pageIndex(rg))}
		case y < 19:
			l = link{to: res{host: int32(t), kind: kindRedirect, n: int32(g.pageIndex(rg))}}
		default:
			l = link{to: res{host: int32(t), kind: kindImg, n: int32(g.pageIndex(rg))}}
		}
		if g.isTrap(t) {
			l.to = page(t, 0) // the trap's entry
		}
		return l
	}
	r := res{host: int32(h), n: int32(g.pageIndex(rg))}
	switch {
	case x < 70:
		r.kind = kindPage
	case x < 75:
		r.kind = kindImg
	case x < 79:
		r.kind = kindRedirect
	case x < 82:
		r.kind = kindTo
		r.k = int32(g.otherHost(rg, h))
		if g.isTrap(int(r.k)) {
			r.n = 0 // to the trap's entry
		}
	case x < 84:
		r.kind = kindChain
		r.k = int32(1 + rg.intn(g.maxChain))
	case x < 85:
		r.kind = kindLoopA + kind(rg.intn(2))
		r.n = 0
	case x < 88:
		r.kind = kindMissing
	case x < 93:
		r.kind = kindPrivate
	case x < 98:
		r.kind = kindNofollow
		return link{to: r, nofollow: true}
	default:
		// A nofollow link to an ordinary page (reachable otherwise).
		r.kind = kindPage
		return link{to: r, nofollow: true}
	}
	return link{to: r}
}

// redirect returns the target and status of a redirecting resource.
func (g *gen) redirect(r res) (to res, status int, ok bool) {
	h := int(r.host)
	switch r.kind {
	case kindRedirect:
		return page(h, int(r.n)), 301, true
	case kindTo:
		return page(int(r.k), int(r.n)), 302, true
	case kindChain:
		if r.k == 1 {
			return page(h, int(r.n)), 308, true
		}
		return res{host: r.host, kind: kindChain, n: r.n, k: r.k - 1}, 307, true
	case kindLoopA:
		return res{host: r.host, kind: kindLoopB}, 302, true
	case kindLoopB:
		return res{host: r.host, kind: kindLoopA}, 303, true
	}
	return res{}, 0, false
}

// appendLocation appends the Location header value of redirecting resource r
// (target to). Spellings vary but all resolve to to's canonical URL.
func appendLocation(b []byte, r, to res) []byte {
	switch r.kind {
	case kindTo:
		switch (r.n + r.k) % 3 {
		case 0:
			b = append(b, "http://"...)
			b = appendHost(b, int(to.host))
		case 1:
			b = append(b, "HTTP://H"...)
			b = strconv.AppendInt(b, int64(to.host), 10)
			b = append(b, ".CRAWLER.TEST:80"...)
		default:
			b = append(b, "//"...)
			b = appendHost(b, int(to.host))
		}
		return appendPath(b, to)
	case kindChain:
		if to.kind == kindChain {
			return strconv.AppendInt(b, int64(to.k), 10) // relative: same directory
		}
	case kindLoopA:
		return append(b, 'b') // relative: /loop/b
	}
	return appendPath(b, to)
}

// appendHost appends "h<n>.crawler.test".
func appendHost(b []byte, h int) []byte {
	b = append(b, 'h')
	b = strconv.AppendInt(b, int64(h), 10)
	return append(b, domain...)
}

// origin returns "http://" and host h's name.
func origin(h int) string { return "http://" + string(appendHost(nil, h)) }

// appendPath appends the canonical path of r.
func appendPath(b []byte, r res) []byte {
	switch r.kind {
	case kindPage:
		if r.n == 0 {
			return append(b, '/')
		}
		b = append(b, "/p/"...)
	case kindPrivate:
		b = append(b, "/private/"...)
	case kindNofollow:
		b = append(b, "/nofollow/"...)
	case kindImg:
		b = append(b, "/img/"...)
		b = strconv.AppendInt(b, int64(r.n), 10)
		return append(b, ".png"...)
	case kindRedirect:
		b = append(b, "/r/"...)
	case kindTo:
		b = append(b, "/to/"...)
		b = strconv.AppendInt(b, int64(r.k), 10)
		b = append(b, '/')
	case kindChain:
		b = append(b, "/chain/"...)
		b = strconv.AppendInt(b, int64(r.n), 10)
		b = append(b, '/')
		return strconv.AppendInt(b, int64(r.k), 10)
	case kindLoopA:
		return append(b, "/loop/a"...)
	case kindLoopB:
		return append(b, "/loop/b"...)
	case kindMissing:
		b = append(b, "/missing/"...)
	case kindStory:
		b = append(b, "/story/"...)
		b = strconv.AppendInt(b, int64(r.n), 10)
		b = append(b, '/')
		return strconv.AppendInt(b, int64(r.k), 10)
	}
	return strconv.AppendInt(b, int64(r.n), 10)
}

// canonical returns the canonical URL of r.
func canonical(r res) string {
	b := make([]byte, 0, 48)
	b = append(b, "http://"...)
	b = appendHost(b, int(r.host))
	return string(appendPath(b, r))
}

// num parses a canonical decimal (no sign, no leading zero) below limit.
func num(s string, limit int) (int32, bool) {
	if s == "" || len(s) > 9 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n >= limit {
		return 0, false
	}
	return int32(n), true
}

// route maps a decoded, dot-segment-free path of host h to its resource. It
// is the inverse of appendPath: route(appendPath(r)) == r for every resource
// the generator can produce, and ok is false for every other path.
func (g *gen) route(h int, p string) (r res, ok bool) {
	r = res{host: int32(h)}
	if p == "/" {
		return r, true
	}
	if len(p) < 2 || p[0] != '/' {
		return r, false
	}
	seg, rest, _ := strings.Cut(p[1:], "/")
	switch seg {
	case "p":
		r.kind = kindPage
		r.n, ok = num(rest, g.pages)
		ok = ok && r.n > 0
	case "private":
		r.kind = kindPrivate
		r.n, ok = num(rest, g.pages)
	case "nofollow":
		r.kind = kindNofollow
		r.n, ok = num(rest, g.pages)
	case "img":
		r.kind = kindImg
		if s, found := strings.CutSuffix(rest, ".png"); found {
			r.n, ok = num(s, g.pages)
		}
	case "r":
		r.kind = kindRedirect
		r.n, ok = num(rest, g.pages)
	case "to":
		r.kind = kindTo
		if ks, ns, found := strings.Cut(rest, "/"); found {
			var ok1 bool
			r.k, ok1 = num(ks, g.hosts)
			r.n, ok = num(ns, g.pages)
			ok = ok && ok1
		}
	case "chain":
		r.kind = kindChain
		if ns, ks, found := strings.Cut(rest, "/"); found {
			var ok1 bool
			r.n, ok1 = num(ns, g.pages)
			r.k, ok = num(ks, g.maxChain+1)
			ok = ok && ok1 && r.k > 0
		}
	case "loop":
		switch rest {
		case "a":
			r.kind, ok = kindLoopA, true
		case "b":
			r.kind, ok = kindLoopB, true
		}
	case "missing":
		r.kind = kindMissing
		r.n, ok = num(rest, g.pages)
	case "story":
		r.kind = kindStory
		if fs, vs, found := strings.Cut(rest, "/"); found {
			var ok1 bool
			r.n, ok1 = num(fs, g.storyFamilies(h))
			r.k, ok = num(vs, maxVariants)
			if ok = ok && ok1; ok {
				size, _ := g.family(h, int(r.n))
				ok = int(r.k) < size
			}
		}
	}
	if !ok {
		return res{host: int32(h)}, false
	}
	return r, true
}
