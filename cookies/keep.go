package cookies

import (
	"errors"
	"net"
	"net/http"
	"strings"

	"crawler/frontier"
)

// keptName names the jar's cookies in a Keeper.
const keptName = "crawler/cookies"

// Restore gives j the cookies k kept, and has k keep them with each
// commit in which they changed (see Changes): a crawl resumed from k keeps
// its sessions. A value k kept that does not decode is an error; cookies
// the jar refuses (expired ones are dropped) are left out, which the
// error returned with them says, wrapping ErrRefused.
//
// If k is a [Holder] (a cluster's node, whose hosts move between
// processes), Restore hands j to it instead, and k keeps j's cookies
// host by host, as its HoldCookies says.
func (j *Jar) Restore(k frontier.Keeper) error {
	if h, ok := k.(Holder); ok {
		return h.HoldCookies(j)
	}
	entries, err := Kept(k)
	if err != nil {
		return err
	}
	refused := j.Import(entries)
	frontier.KeepJSON(k, keptName, j.Changes(), j.Changes, j.Export)
	if refused != nil {
		return errors.Join(ErrRefused, refused)
	}
	return nil
}

// Kept returns the cookies k keeps for a jar (see Restore), for a report
// of a crawl's state without a crawl; nil if it keeps none.
func Kept(k frontier.Keeper) ([]Entry, error) {
	var entries []Entry
	_, err := frontier.KeptJSON(k, keptName, &entries)
	return entries, err
}

// ErrRefused is wrapped by the error of Restore when the jar refused some
// of the cookies kept; the others are in the jar.
var ErrRefused = errors.New("cookies: kept cookies refused")

// Holder is a frontier.Keeper that keeps a jar's cookies itself, with
// the hosts they belong to, rather than as one value of the whole jar: a
// node of a cluster (crawler/cluster.Node), whose hosts move between
// nodes, each with its cookies. [Jar.Restore] hands it the jar.
type Holder interface {
	// HoldCookies makes j the jar whose cookies the Holder keeps: it
	// gives j the cookies it keeps of the hosts it crawls (those it takes
	// later, as it takes them), keeps them as they change, and takes out
	// of j those of the hosts it gives up. It is called by the goroutine
	// that calls the frontier's methods, before the crawl's first step.
	// Its error wraps ErrRefused if j refused some of the cookies kept.
	HoldCookies(j *Jar) error
}

// Find returns the *Jar in which v keeps its cookies, or nil: v itself,
// else what its CookieJar method returns (fetch.HTTPFetcher,
// render.Fetcher), seen through the Unwrap methods of jars that wrap
// another (a site's rules, sites.Policy.FilterJar).
func Find(v any) *Jar {
	for range 8 { // wrappers nest a few deep at most
		switch x := v.(type) {
		case *Jar:
			return x
		case interface{ CookieJar() http.CookieJar }:
			v = x.CookieJar()
		case interface{ Unwrap() http.CookieJar }:
			v = x.Unwrap()
		default:
			return nil
		}
	}
	return nil
}

// HostCount returns the number of cookies of the jar that a request to
// host (host[:port]; the port is ignored) could be sent, as Host gives
// them, without copying them.
func (j *Jar) HostCount(host string) int {
	if j.Len() == 0 {
		return 0 // most crawls' hosts: no site lookup
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, c := range j.sites[siteOf(host)] {
		if !c.expired(now) && (c.HostOnly && c.Domain == host || !c.HostOnly && domainMatch(host, c.Domain)) {
			n++
		}
	}
	return n
}
