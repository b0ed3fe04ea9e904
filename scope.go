package crawler

import (
	"strings"

	"crawler/canon"
)

// Scope says which discovered URLs a crawl follows. Its zero value follows
// every http(s) link at any depth. Seeds are always fetched. Checks run on
// worker goroutines, so Allow must be safe for concurrent use.
type Scope struct {
	// SameHost keeps the crawl on the hosts (host[:port]) of its seeds.
	SameHost bool
	// Domains, if not empty, keeps the crawl on these domains and their
	// subdomains ("example.com" allows "www.example.com").
	Domains []string
	// MaxDepth is the deepest link distance from a seed fetched: every page
	// within it by its shortest path, whatever order paths are found in (a
	// page found nearer later is fetched again: Stats.DepthRefetches). 0 or
	// negative: no limit (for the seeds alone, let Allow say false).
	MaxDepth int
	// Allow, if not nil, is asked last about each URL (canonical) and the
	// depth it would be fetched at; false drops it.
	Allow func(url string, depth int) bool
}

// scopeCheck is a Scope prepared for one Run.
type scopeCheck struct {
	Scope
	seedHosts map[string]bool
	domains   []string
}

// newScopeCheck prepares s for a Run whose crawl has the seeds on
// seedHosts, those of this Run and of the earlier ones it resumes. The
// check only reads seedHosts.
func newScopeCheck(s Scope, seedHosts map[string]bool) *scopeCheck {
	sc := &scopeCheck{Scope: s, seedHosts: seedHosts}
	for _, d := range s.Domains {
		d = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
		if d != "" {
			sc.domains = append(sc.domains, d)
		}
	}
	return sc
}

// allows reports whether the URL u, on host (host[:port]), is followed when
// found at depth. tooDeep reports that it is not only for its depth (as
// far as Allow, never asked then, can tell), so that found nearer a seed
// it would be.
func (s *scopeCheck) allows(u, host string, depth int) (ok, tooDeep bool) {
	if s.SameHost && !s.seedHosts[host] {
		return false, false
	}
	if len(s.domains) > 0 && !canon.InDomains(host, s.domains) {
		return false, false
	}
	if s.MaxDepth > 0 && depth > s.MaxDepth {
		return false, true
	}
	return s.Allow == nil || s.Allow(u, depth), false
}
