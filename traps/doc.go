// Package traps holds a crawl's defences against crawler traps: endless URL
// spaces such as calendars, session ids in links, ever-deeper paths and
// soft-404 pages that answer any path. [Config] says which rules are on and
// their limits; a [Guard] applies them and holds what they counted.
//
//	g := traps.New(traps.Config{MaxPagesPerHost: 1000}) // one per crawl
//	if rule := g.Check(u); rule != "" { /* a worker drops the link */ }
//	if rule := g.Admit(u, host, false); rule != "" { /* the scheduler does not queue it */ }
//	if err := g.Stopped(u, host); err != nil { /* a worker does not fetch it: err wraps ErrTrap */ }
//	stopped, duplicate := g.Observe(u, host, contentFingerprint) // the scheduler, for each HTML page
//
// # The rules
//
// Three need nothing but the canonical URL ([Guard.Check]): its length
// ([URLLength]), its path's depth ([PathDepth]) and a path segment repeated
// ([SegmentRepeats]). Three are stateful ([Guard.Admit]): a budget of URLs
// per host ([HostBudget]), a bound on the distinct values of a query
// parameter on a host ([QueryValues]), and the path patterns stopped for
// serving content already seen ([Duplicates]), which [Guard.Observe]
// decides from each HTML page's content fingerprint. The names of the
// rules are the keys of the crawler's Stats.Traps and of the CLI's output:
// they do not change.
//
// # Concurrency
//
// A Guard has the crawler's two sides. [Guard.Check] and [Guard.Stopped]
// are safe for concurrent use, by any number of workers, and alongside the
// other methods. [Guard.Admit], [Guard.Observe], [Guard.Record] and
// [Guard.Restore] are the scheduler's: one goroutine at a time calls them,
// and they need no lock but the one that guards the stopped patterns,
// which the workers read. [Guard.Configure] runs while nothing else does:
// between two Runs of a crawl.
//
// # Durable state
//
// What the rules have counted is the crawl's, not one Run's: a Guard kept
// for the next Run carries on with it. [Guard.Restore] has a durable
// frontier keep the patterns stopped, as a frontier.Keeper, and the URLs
// each host has queued and the values each query parameter has taken, as a
// frontier.Recorder whose records [Guard.Record] writes with each step, so
// that a crawl resumed after a restart or a crash spends no budget twice;
// the counts start when their rule is on. The contents seen start anew
// after a restart.
package traps
