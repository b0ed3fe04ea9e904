// Package sites loads per-site rules for a crawl (the -sites file): a TOML
// file of [[site]] entries, each matching a host, a domain or a URL prefix
// and setting what differs there (pacing, headers, credentials, a login,
// paths to keep out), like Heritrix's sheets. [Rules] loads, validates and
// matches; a [Policy] applies them to a crawl, which consults it (the
// crawler's Sites field), and logs in.
//
//	rules, err := sites.LoadFile("sites.toml") // an *sites.Error names file, line and key
//	s := rules.For(u)                          // the effective settings for u
//	if s.Delay != nil { ... }                  // nil: the crawl's default
//	ok := rules.Allowed(u)                     // allow / deny path prefixes
//	c := &crawler.Crawler{Sites: &sites.Policy{Rules: rules}}
//
// # How a crawl applies them
//
// The crawler asks the Policy for each link (Policy.Follow: allow, deny, a
// max_pages not yet spent) and each page (Policy.IgnoresRobots), sends its
// requests through the Policy's fetcher (Policy.Fetcher), drops the
// ignore_query parameters when it canonicalizes (Policy.Canonicalizer), and
// paces each host by its delay and per_host (Rules.HostDelay, HostLimit).
// The fetcher matches each request on its own URL, redirect hops included,
// so a host's headers, credentials and User-Agent never reach another
// host; robots.txt gets them too.
//
// A site with a login is logged in to before its first page: the login page
// is fetched, the form found (the one Login.Form selects, the page's only
// one, or the one holding every field), its inputs read as a browser
// submits them (hidden ones, the CSRF token, included), the fields filled,
// and the form submitted by its method to its action, through the crawl's
// fetcher (the address policy), robots.txt (unless ignore_robots) and the
// site's delay between the login's requests. With success.cookie the
// answer's redirect is not followed (the page it names is the crawl's to
// fetch once); with success.selector it is, to the page to match. A page
// answered by a redirect to the login page, or 401 or 403, logs in again
// once and is fetched again: the handler sees the page, never the login
// page. Once three logins again in a row have left their pages answering
// 401 or 403, the site's 401 and 403 are taken as the pages' own (pages
// the account may not see), and log in again once a minute at most, until
// a login again helps. Two failed attempts in a row end the site's pages with a
// [LoginError] (kind login-failed), which retires their host. A session
// kept from an earlier run of the crawl (its cookies in the crawl's state)
// is used as it is when the success cookie is there. Policy.Login replaces
// the form with a script of your own.
//
// # The file
//
//	# A site behind a login: the form at url is filled with fields and
//	# submitted; the login worked when the "session" cookie is set.
//	[[site]]
//	match = "members.example.com"
//	cookies = true
//	deny = ["/logout"]
//	[site.login]
//	url = "https://members.example.com/login"
//	form = "form#login"                   # optional: when the page has several forms
//	fields = { user = "crawler", password = "env:MEMBERS_PASSWORD" }
//	success = { cookie = "session" }      # or: success = { selector = "a.logout" }
//
//	# A slow site: one request at a time, 5 s apart, at most 1,000 pages.
//	[[site]]
//	match = "*.slow.example.org"          # slow.example.org and its subdomains
//	delay = "5s"
//	per_host = 1
//	max_pages = 1000
//	ignore_query = ["sessionid", "utm_source"]
//
//	# A site that wants a header, and Basic credentials under /api/.
//	[[site]]
//	match = "api.example.net:8443"
//	user_agent = "ExampleBot/1.0 (+https://example.com/bot)"
//	headers = { X-Api-Version = "2" }
//	[[site]]
//	match = "https://api.example.net:8443/api/"
//	basic_auth = { user = "bot", password_env = "API_PASSWORD" }
//	render = false
//	ignore_robots = true
//
// The keys of a [[site]]:
//
//   - match (required): a host ("example.com", "127.0.0.1:8080", a port
//     allowed), "*.example.com" (example.com and every subdomain), or a URL
//     prefix ("https://example.com/docs/": scheme, host, port, and a path
//     prefix, without query or fragment). Hosts are matched as canonical
//     URLs have them: lower-case, Punycode. A host without a port matches
//     every port. Two entries may not match the same thing.
//   - delay: a duration ("1.5s", "500ms") between requests to a host.
//   - per_host: requests in flight to a host, at least 1.
//   - max_pages: pages to fetch under this entry, at least 1.
//   - user_agent: the User-Agent header.
//   - headers: a table of header names to values, sent with every request.
//   - basic_auth: user, and password_env, the name of an environment
//     variable holding the password (read when the file is loaded; unset is
//     an error).
//   - render, cookies, ignore_robots: booleans.
//   - ignore_query: query parameter names dropped from URLs.
//   - allow, deny: path prefixes, as in robots.txt: the longest match
//     decides, deny wins a tie; see [Rules.Allowed].
//   - ban_pattern: a regular expression (RE2) that a response's body
//     matches when the site refused the crawl (a ban or captcha page),
//     for a proxy pool to count against its proxy.
//   - login: url (the page holding the form, an absolute URL), fields (input
//     names to values; a value "env:NAME" is the environment variable NAME,
//     read when loading), form (optional, a CSS selector), and success: a
//     table with exactly one of cookie = "NAME" (a cookie that must be set)
//     and selector = "..." (must match the page after submitting).
//
// delay and per_host pace a whole host, so a URL-prefix entry may not set
// them. Any other key, anywhere, is an error, as is a value of the wrong
// type or out of range; errors read "FILE:LINE: KEY: what is wrong".
//
// # Which entry applies
//
// The most specific entry that matches a URL wins, field by field: a field
// it leaves unset comes from the next most specific, and so on, and a field
// no entry sets is left unset, for the crawl's default. From most to least
// specific: a URL prefix (the longer first), the host with the URL's port,
// the host, then *.domain entries (the longer domain first). headers merge
// name by name; every other field, lists and tables included, is taken
// whole. Each entry's merged settings are computed when loading, so
// [Rules.For] is a few map lookups and does not allocate.
package sites
