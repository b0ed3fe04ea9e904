// Package frontier decides which URL a crawl fetches next.
//
// A frontier keeps one queue per host and hands out a URL only from a host
// that politeness allows to be contacted now, so that a slow or throttled host
// never blocks the others (Mercator's back queues). Among ready hosts, the
// order is the frontier's policy: [FIFO] gives breadth-first order,
// [AOPIC] hands out the most important URL first, estimating importance on
// line from the links of the pages fetched so far, and [Priority] the URL
// of most backlinks and best URL score, I(P) = A·backlinks + B·URL score.
//
//	f := new(frontier.FIFO)
//	f.Push(frontier.Entry{URL: "http://example.com/", Host: "example.com"})
//	e, ok, _ := f.Next(time.Now())
//	// fetch e.URL, then:
//	f.Done(e, frontier.Result{Next: time.Now().Add(time.Second)})
//
// Time is passed in, never read from a clock, so a frontier is deterministic
// and is tested without sleeping. Frontiers are owned by one goroutine (the
// crawler's scheduler) and are not safe for concurrent use. Package
// frontiertest is the conformance suite every Frontier should pass.
//
// # AOPIC
//
// Every page holds credit, which always sums to the number of seeds. When
// a fetched page is reported Done, its credit is spent: Tax of it goes to
// a virtual page lambda and the rest is split evenly over its links as
// given (a link listed twice gets two shares). A share for a fingerprint
// the frontier does not know goes to lambda, and so does all the credit of
// a page without links. A page is fetched at most once: credit later sent
// to a fetched page goes on, evenly, to the pages of its host still
// waiting, standing in for the refetch a continuous crawl would make,
// which would pass it on mostly within its own site.
//
// Whenever lambda holds more credit than the best page Next could hand
// out, lambda is "crawled" first: its credit is spread over the pages
// still waiting, a host with n of them taking about √n shares (a host
// with 2^k to 2^(k+1)-1 waiting pages gives each a weight of 2^(-k/2)).
// Spread evenly per page, it would feed the traps that mint URLs fastest;
// evenly per host, a calendar keeping one page waiting would take as much
// as a whole site. A trap whose pages each link to one new page pays tax
// at every step, so what it gets through links shrinks geometrically.
//
// A page's history is the credit it received through links (a seed's
// initial credit included), not the shares spread by lambda or its host,
// whose sum tells how long a page waited rather than how it is linked. Its
// importance, in [Entry.Importance] and from [AOPIC.Importance] and
// [AOPIC.Top], is its history as a share of all histories: importances
// sum to 1, and in a long crawl they approach the pages' PageRank.
//
// Credits live in memory only. A crawl that must resume checkpoints them
// with [AOPIC.AppendSnapshot] now and then, and after a crash restores
// the last checkpoint ([AOPIC.Restore]) and reconciles it with its
// durable queue ([AOPIC.Reconcile]): credits lag by one checkpoint, URLs
// by nothing.
package frontier
