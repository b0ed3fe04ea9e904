package frontier

import (
	"math"
	"time"
)

// PerHostLimit reads a frontier's PerHost setting as every frontier does:
// how many entries of one host may be out at once. 0 means 1; a negative
// value, no limit (math.MaxInt).
func PerHostLimit(n int) int {
	switch {
	case n == 0:
		return 1
	case n < 0:
		return math.MaxInt
	}
	return n
}

// hostLimit returns the limit of entries of host out at once that limit
// (from [HostLimiter.LimitHosts]) gives, or 0 for the frontier's PerHost.
func hostLimit(limit func(host string) int, host string) int {
	if limit == nil {
		return 0
	}
	return max(limit(host), 0)
}

// hostOr returns a host's limit of entries out at once: limit, from
// hostLimit, or, if 0, the frontier's perHost as PerHostLimit reads it.
func hostOr(limit, perHost int) int {
	if limit > 0 {
		return limit
	}
	return PerHostLimit(perHost)
}

// Entry is one URL waiting to be fetched. The crawler fills every field but
// Importance before [Frontier.Push]; a frontier hands entries back unchanged
// except for Importance.
type Entry struct {
	URL      string // canonical URL
	FP       uint64 // fingerprint of URL (canon.Fingerprint)
	Host     string // politeness key: host[:port] of URL
	Depth    int    // link distance from a seed (seeds: 0); a redirect keeps its source's depth
	Hops     int    // redirects followed to reach URL
	Referrer string // canonical URL of the page that linked here ("" for seeds)
	Tries    int    // requests for URL that failed and were retried (429, 5xx, network errors)

	// Importance is the frontier's estimate of the URL's importance when
	// Next handed it out (AOPIC: its share of all credit handed out so
	// far); 0 for frontiers without one (FIFO). Set by Next; the crawler
	// leaves it alone.
	Importance float64

	seq uint64 // order of Push, kept by FIFO so that a retried entry keeps its place
}

// Result is the outcome of handing out an Entry, reported by [Frontier.Done].
type Result struct {
	// Next is the earliest time the entry's host may be contacted again
	// (politeness). The zero time means at once.
	Next time.Time
	// Retry reports that the entry was not processed (for example because
	// the host's robots.txt had to be fetched first, or the host asked to be
	// left alone for a while) and must be handed out again, in its place
	// among the other URLs of its host. The entry given to Done is the one
	// to keep: the crawler may have updated its Tries.
	Retry bool
	// Links holds the fingerprints of the page's out-links, already seen or
	// not. Importance-based frontiers spend credit on them; FIFO ignores
	// them. The slice belongs to the frontier after Done.
	Links []uint64
	// Requested reports that a page request was sent for the entry (not
	// for one disallowed, refused or cut short): what MaxPages counts.
	Requested bool
	// Redirect reports that the entry was a redirect to Links[0], its one
	// link: no page of its own. AOPIC passes its credit and its history to
	// the target whole, and leaves it out of its ranking.
	Redirect bool
}

// Committer is a Frontier that writes in steps, such as a durable store:
// the crawler calls Commit at the end of each step of its scheduler (the
// seeds pushed; a page's outcome given to Done with the links pushed just
// before), so that a crash keeps each step whole or not at all, and Flush
// before it waits with nothing in flight and at the end of a Run, so that
// every step ended is durable then. Steps may be committed in groups. An
// error stops the crawl.
type Committer interface {
	Commit() error
	Flush() error
}

// Keeper is a Committer that also keeps, with its steps, the crawl's
// state that is neither a URL nor a queue: the crawler's counters, the
// verdicts of its trap rules, the hosts of its seeds. A crawl that resumes
// from a Keeper has them back.
type Keeper interface {
	Committer
	// Keep registers value under name (a later call replaces it). Each
	// commit of a group of steps writes what value returns with them,
	// unless it returns nil: nothing changed since its last call. value is
	// called by the goroutine that calls Commit and Flush.
	Keep(name string, value func() []byte)
	// Kept returns the value last committed under name, or nil.
	Kept(name string) []byte
}

// Expediter is a Frontier that can take an entry ahead of the others: the
// crawler gives it the pages due for a revisit (Crawler.Recrawl), so that
// they are fetched when due, not after every URL their host queued before,
// and revisits take their share of the crawl while new URLs wait. FIFO is
// one.
type Expediter interface {
	Frontier
	// Expedite adds e to be handed out before every entry given to Push
	// (after those expedited before it), as soon as its host's politeness
	// allows.
	Expedite(e Entry)
}

// Waker is a Frontier that can make a host's waiting entries ready
// sooner than its politeness said: the crawler wakes a host the operator
// retired (Crawler.RetireHost), whose entries then end at once, unfetched,
// rather than after the host's delay or backoff.
type Waker interface {
	// Wake makes host's entries ready from at, if its ready time is later;
	// an unknown host, or one ready by then, is left as it is.
	Wake(host string, at time.Time)
}

// HostLimiter is a Frontier whose limit of entries of one host handed out
// at once can differ by host: the crawler gives it the per_host of the
// sites a crawl's rules set (package sites).
type HostLimiter interface {
	// LimitHosts sets limit, which gives a host's limit; a result of 0 or
	// less means the frontier's PerHost. The frontier calls limit once per
	// host, when it meets the host, and keeps the result, so that Next
	// costs what it did. LimitHosts calls it at once for the hosts met
	// already (those a durable frontier restored from disk included),
	// which take the new limit then: a host with more entries out than
	// its new limit keeps them, and gets no more until it is below it.
	// Call it before the first Push, or at least between the crawler's
	// steps. A nil limit gives every host the frontier's PerHost. limit is
	// called on the goroutine that calls the frontier, and must be quick.
	LimitHosts(limit func(host string) int)
}

// Recorder is a Keeper that also keeps records by name and id, each
// written with the step in progress, so that a crash keeps it with the
// step or loses both: the crawler keeps there the visits of each page it
// revisits (Crawler.Recrawl), written with the page's outcome.
type Recorder interface {
	Keeper
	// Record writes value under (name, id) with the step in progress; a
	// nil value deletes it. name must not hold a 0 byte.
	Record(name string, id uint64, value []byte)
	// Records calls f with every record committed under name, until f
	// returns an error, which Records returns.
	Records(name string, f func(id uint64, value []byte) error) error
}

// Frontier is the set of URLs still to fetch and the policy that orders
// them. Implementations need not be safe for concurrent use.
type Frontier interface {
	// Push adds a URL that is new to the crawl (canonical and
	// deduplicated), or one handed out and Done before, to be fetched again
	// as e says (the crawler does so when it finds a page nearer a seed
	// than it was fetched at, and its links were cut by the depth limit).
	Push(e Entry)
	// Next hands out a URL whose host is ready at now, marking the host busy
	// until Done. If none is ready, ok is false and wake is when to ask
	// again; a zero wake means nothing will be ready before the next Push or
	// Done.
	Next(now time.Time) (e Entry, ok bool, wake time.Time)
	// Done reports the outcome of an entry returned by Next.
	Done(e Entry, r Result)
	// Len reports the number of URLs waiting (not counting those handed out
	// and not yet Done).
	Len() int
}

// Exchanger is a Frontier that holds part of a crawl shared with other
// frontiers, such as one node of a cluster that splits the crawl's hosts
// between its nodes. The crawler gives it each link before the URL-seen
// test, discovers the links other nodes forwarded here as its own, and
// runs until the whole crawl is finished, not only this part of it.
type Exchanger interface {
	Frontier
	// Forward takes e, a link the crawler found, if e's host is held by
	// another part of the crawl, and reports whether it did. The crawler
	// then does nothing more with e: the part that holds the host runs
	// the URL-seen test and the crawler's rules there. A forwarded link
	// is on its way when the step that found it is committed.
	Forward(e Entry) bool
	// Receive returns the links forwarded here since its last call, for
	// the crawler to discover as links of its own: the URL-seen test,
	// then Push. They are acknowledged to their sender once the step
	// that discovered them is committed.
	Receive() []Entry
	// Ready returns a channel that receives when links arrive or the
	// crawl finishes.
	Ready() <-chan struct{}
	// Finished reports whether the whole crawl is done: no part has work
	// or a link in flight, or its budget is spent. With nothing in flight
	// here, the crawler ends its Run then.
	Finished() bool
}
