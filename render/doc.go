// Package render fetches pages the way a browser shows them: it loads each
// HTML page in headless Chromium, lets its scripts run, and returns the
// document as the scripts left it, so that links and text made by
// JavaScript reach the crawler. Its [Fetcher] is a [fetch.Fetcher], so a
// crawl uses it in place of the plain one, and takes the links of the
// rendered document as it takes those of any page.
//
//	f := &render.Fetcher{Allowed: robotsAllowed} // over a fetch.HTTPFetcher
//	defer f.Close()                               // ends the browser
//	c := &crawler.Crawler{Fetcher: f}
//	err := c.Run(ctx, "https://example.com/")
//
// # Every request goes through the crawl's rules
//
// The browser never fetches anything itself. Each tab intercepts every
// request its page makes, from the first (the DevTools Fetch domain,
// paused at the request stage, for all URLs), and answers it:
//
//   - the page's own document with the response the Fetcher already got:
//     the page is requested once;
//   - data: and blob: URLs, which the page made itself, are let through;
//   - methods other than GET, schemes other than http(s), event streams
//     and prefetches fail: a crawler reads, and a stream never ends;
//   - images, fonts, media and the favicon fail unless LoadMedia;
//   - a document other than the page (a frame's, or the page moving away)
//     is asked of Navigate;
//   - then Allowed (robots.txt, the crawl's scope), then the host's turn
//     (one request at a time per host, across tabs) and Pace (the crawl's
//     per-host delay);
//   - then Fetcher fetches it, so its address policy (SSRF, the crawl's
//     allowances), proxy, body cap and timeouts apply as to any request of
//     the crawl, and its response is handed to the browser: status,
//     headers (but the encoding and length of a body already decoded) and
//     body. A redirect is handed over as it is; the browser asks for its
//     target, which is intercepted and judged again.
//
// Each request the Fetcher makes for the browser carries the extra
// headers Headers gives for its URL, so a site's credentials go to its
// own hosts only, and, with a Jar, the Jar's cookies; the cookies its
// response sets, and those the page's scripts set, go to the Jar (see
// Fetcher.Jar). The headers the browser itself put on a request are not
// sent.
//
// A request refused fails in the page as one blocked by an extension
// would (net::ERR_BLOCKED_BY_CLIENT); a document refused gets 204 No
// Content, which leaves its frame, or the page, as it was. What each
// became is counted in [Stats], and logged at Debug level.
//
// # What interception cannot see, and what stops it
//
// Some traffic of a browser never reaches the Fetch domain: WebSockets
// (and WebTransport), a service worker's script and its requests, the
// requests of a frame running in a process of its own, and those of a
// window the page opens. For these the browser is run so that they have
// nowhere to go:
//
//   - its host resolver resolves nothing (host-resolver-rules MAP *
//     ~NOTFOUND), address literals included, so no DNS query leaves and
//     no connection is made;
//   - its proxy is a dead port on loopback (127.0.0.1:9), with no bypass,
//     not even for loopback, and no fallback to a direct connection;
//   - WebRTC, which sends UDP past any HTTP proxy, may use no UDP but
//     through the proxy, so it gathers no candidate and sends nothing;
//   - site isolation is off, so that every frame runs in its page's
//     process and its requests are intercepted like the page's;
//   - the browser's own traffic (updates, sync, extensions, reports,
//     pings, QUIC) is switched off, and downloads are refused.
//
// The tests check the interception and the guards on loopback: a canary
// server gets no request from an image, script, fetch, iframe, redirect,
// beacon, popup or WebSocket, nor a UDP packet from WebRTC, and the
// WebSocket does reach it once both guards are off (each alone stops it). They rest on Chromium honouring its flags
// (those above are checked against Chromium 156): a future Chromium that
// dropped one, or a bug in its network stack, could open a way out. To
// close the network at the level of the operating system instead, run the
// browser in a network namespace of its own, which it does not notice,
// since chromedp talks to it over a pipe; on Linux, make ExecPath a
// script such as
//
//	#!/bin/sh
//	exec unshare --net /usr/bin/chromium "$@"
//
// (unshare --net needs root, or unshare --user --map-root-user --net
// where unprivileged user namespaces are allowed).
//
// Turning site isolation off lets a page's frames of other sites share
// its process, which site isolation exists to prevent; the browser keeps
// nothing to steal (each page has a browser context of its own, with its
// cookies and storage, thrown away with the page).
//
// # What the crawler gets
//
// The document is read once the page has settled: its load event has
// fired and no request of its has been pending for Idle (or an element
// matching WaitSelector is visible), or MaxWait has passed. It is
// serialized with a <!DOCTYPE html> before it, and given a <base> when its
// base URL is not the page's (it moved, or has a <base> of its own), so
// that its links resolve as in the browser. Not in it: the documents of
// frames, shadow roots, and what scripts do after the page settled.
//
// # Cost
//
// One Chromium process, and a renderer process per tab (tens to hundreds
// of MB each, with the page's scripts). A page costs a tab opened and
// closed (about 250 ms and 100 ms on two cores), its own load and
// scripts, and Idle; pages render Tabs at a time, and on few cores the
// CPU bounds them before Tabs does. BenchmarkRender measures it on a
// small script site on loopback; on two cores: 1.1 pages/s at 1 tab and
// about 2 at 4 or 8 with the default Idle; 1.9 to 2.5 with an Idle of 100
// ms, at which a busy browser starts to miss links that a timer makes
// (3.6 of 4 per page at 8 tabs). The plain fetcher does hundreds of such
// pages a second: render only what needs it (Render).
package render
