package crawlertest

import (
	"slices"
)

// crawl is the result of the reference traversal behind Depths and
// Disallowed.
type crawl struct {
	depth   map[res]int
	other   map[string]int      // seeds on the web's hosts that no resource answers (404s)
	blocked map[string]struct{} // robots-disallowed link and redirect targets
	unreach map[string]struct{} // seeds, link and redirect targets on unreachable hosts
}

// truth runs a 0-1 breadth-first search over the link and redirect graph
// from seeds, as a compliant crawler would request URLs: a followed link
// costs one level of depth, a redirect none, robots-disallowed URLs and URLs
// of unreachable hosts (robots.txt 429 or 5xx) are neither requested nor
// expanded, and the URLs of failing hosts (Behavior.PageStatus) are
// requested but not expanded. URLs of trap hosts (Config.Traps) are left
// out altogether, so the search is finite.
func (w *Web) truth(seeds []string) crawl {
	if len(seeds) == 0 {
		seeds = w.Seeds()
	}
	c := crawl{
		depth:   make(map[res]int),
		other:   make(map[string]int),
		blocked: make(map[string]struct{}),
		unreach: make(map[string]struct{}),
	}
	type item struct {
		r res
		d int
	}
	// A deque as two stacks would reorder; use a ring-less slice deque:
	// front pushes go to a separate stack popped first.
	var front, back []item
	head := 0
	push := func(r res, d int, zero bool) {
		if w.g.isTrap(int(r.host)) {
			return // a trap: no ground truth there
		}
		if w.unreachable(int(r.host)) {
			c.unreach[canonical(r)] = struct{}{}
			return
		}
		if w.disallowed(r) {
			c.blocked[canonical(r)] = struct{}{}
			return
		}
		if old, ok := c.depth[r]; ok && old <= d {
			return
		}
		c.depth[r] = d
		if zero {
			front = append(front, item{r, d})
		} else {
			back = append(back, item{r, d})
		}
	}
	for _, s := range seeds {
		h, p, q, ok := w.g.parseURL(s)
		if !ok || w.g.isTrap(h) {
			continue
		}
		if w.unreachable(h) {
			c.unreach[canonicalString(h, p, q)] = struct{}{}
			continue
		}
		if w.robotsBlock(h, p) {
			continue // never requested, but not linked either
		}
		if r, ok := w.g.route(h, p); ok && q == "" {
			push(r, 0, true)
		} else {
			c.other[canonicalString(h, p, q)] = 0
		}
	}
	var ls []link
	for {
		var it item
		switch {
		case len(front) > 0:
			it = front[len(front)-1]
			front = front[:len(front)-1]
		case head < len(back):
			it = back[head]
			head++
		default:
			return c
		}
		if c.depth[it.r] < it.d {
			continue // stale entry
		}
		switch {
		case w.failing(int(it.r.host)):
			// An error page: no link, no redirect to follow.
		case isHTML(it.r.kind):
			ls = w.g.links(ls[:0], it.r)
			for _, l := range ls {
				if !l.nofollow {
					push(l.to, it.d+1, false)
				}
			}
		default:
			if to, _, ok := w.g.redirect(it.r); ok {
				push(to, it.d, true)
			}
		}
	}
}

// Depths returns the ground truth of a crawl from seeds (default Seeds()):
// every URL that a compliant crawler requests, keyed by canonical URL
// ("http://h3.crawler.test/p/7"), with its minimum depth.
//
// A compliant crawler requests each seed, the target of each followed link
// (an <a href> without rel=nofollow) of each HTML page it requested with
// status 200, and the Location target of each redirect it requested, but
// never a URL that its host's robots.txt disallows, nor any URL of a host
// whose robots.txt is unavailable (see Unreachable). Seeds have depth 0, a
// link target one more than its page, a redirect target the depth of the
// redirecting URL. The map includes HTML pages, images, redirecting URLs and
// 404s, but not robots.txt. Seeds outside the web are ignored.
//
// Behaviors (Config.Behavior) change the ground truth as they change what a
// compliant crawler sees: a robots.txt answering a 4xx other than 429, or
// behind more than 5 redirects or a redirect loop, imposes no restriction;
// one answering 429 or 5xx (within 5 redirects) makes the host unreachable;
// one padded still applies its rules. The URLs of a host with PageStatus are
// requested but are error pages, so their links and redirects are not
// followed. Throttling, SlowDown and latencies change nothing: a throttled
// URL is requested again later.
//
// With traps (Config.Traps), Depths covers the good URLs only: no URL of a
// trap host is in it (nor in Disallowed or Unreachable), and seeds on trap
// hosts are ignored. Links and redirects into a trap are not followed, so
// Depths stays finite; what a crawler fetches in traps is counted apart
// (see Web.TrapRequests). Every good page is still reachable: the home page
// before a trap host also links to the next good host's home page.
//
// Depths computes this from the generator, not by parsing HTML, in
// O(URLs reached × OutDegree) time; the map is new on each call.
func (w *Web) Depths(seeds ...string) map[string]int {
	c := w.truth(seeds)
	out := make(map[string]int, len(c.depth)+len(c.other))
	for r, d := range c.depth {
		out[canonical(r)] = d
	}
	for u, d := range c.other {
		out[u] = d
	}
	return out
}

// Disallowed returns, sorted, the canonical URLs that a compliant crawler
// from seeds (default Seeds()) finds linked (by followed links or
// redirects) but must not request because robots.txt disallows them.
func (w *Web) Disallowed(seeds ...string) []string {
	c := w.truth(seeds)
	out := make([]string, 0, len(c.blocked))
	for u := range c.blocked {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

// Unreachable returns, sorted, the canonical URLs that a compliant crawler
// from seeds (default Seeds()) finds (as seeds, followed-link targets or
// redirect targets) on hosts whose robots.txt answers 429 or 5xx (within 5
// redirects; Behavior.RobotsStatus), and so must not request: such a crawler
// requests nothing on those hosts but robots.txt, and retries that later.
// These URLs are not in Depths, nor is what only they lead to. Unreachable
// lists the URLs where the crawl meets such a host, not the host's whole
// content; it is empty without Behaviors.
func (w *Web) Unreachable(seeds ...string) []string {
	c := w.truth(seeds)
	out := make([]string, 0, len(c.unreach))
	for u := range c.unreach {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}
