package sites_test

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"os"

	"crawler"
	"crawler/cookies"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/sites"
)

// exampleFile is the file of the package doc (TestDocFile keeps them one).
const exampleFile = `# A site behind a login: the form at url is filled with fields and
# submitted; the login worked when the "session" cookie is set.
[[site]]
match = "members.example.com"
cookies = true
deny = ["/logout"]
[site.login]
url = "https://members.example.com/login"
form = "form#login"                   # optional: when the page has several forms
fields = { user = "crawler", password = "env:MEMBERS_PASSWORD" }
success = { cookie = "session" }      # or: success = { selector = "a.logout" }

# A slow site: one request at a time, 5 s apart, at most 1,000 pages.
[[site]]
match = "*.slow.example.org"          # slow.example.org and its subdomains
delay = "5s"
per_host = 1
max_pages = 1000
ignore_query = ["sessionid", "utm_source"]

# A site that wants a header, and Basic credentials under /api/.
[[site]]
match = "api.example.net:8443"
user_agent = "ExampleBot/1.0 (+https://example.com/bot)"
headers = { X-Api-Version = "2" }
[[site]]
match = "https://api.example.net:8443/api/"
basic_auth = { user = "bot", password_env = "API_PASSWORD" }
render = false
ignore_robots = true
`

func Example() {
	env := map[string]string{"MEMBERS_PASSWORD": "s3cret", "API_PASSWORD": "hunter2"}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	rules, err := sites.Load("sites.toml", []byte(exampleFile), lookup)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, raw := range []string{
		"https://members.example.com/logout",
		"https://www.slow.example.org/a?b=c",
		"https://api.example.net:8443/api/v2/items",
	} {
		u, _ := url.Parse(raw)
		s := rules.For(u)
		fmt.Printf("%s (line %d: %q) allowed=%v\n", raw, s.Line, s.Match, rules.Allowed(u))
		if s.Login != nil {
			fmt.Printf("  login at %s as %s, success: cookie %q\n", s.Login.URL, s.Login.Fields["user"], s.Login.Success.Cookie)
		}
		if s.Delay != nil {
			fmt.Printf("  delay %v, per_host %d, max_pages %d, ignore_query %q\n", *s.Delay, *s.PerHost, *s.MaxPages, s.IgnoreQuery)
		}
		if s.BasicAuth != nil {
			fmt.Printf("  user agent %q, headers %v, basic auth %s, ignore_robots %v\n", *s.UserAgent, s.Headers, s.BasicAuth.User, *s.IgnoreRobots)
		}
	}
	// Output:
	// https://members.example.com/logout (line 3: "members.example.com") allowed=false
	//   login at https://members.example.com/login as crawler, success: cookie "session"
	// https://www.slow.example.org/a?b=c (line 14: "*.slow.example.org") allowed=true
	//   delay 5s, per_host 1, max_pages 1000, ignore_query ["sessionid" "utm_source"]
	// https://api.example.net:8443/api/v2/items (line 26: "https://api.example.net:8443/api/") allowed=true
	//   user agent "ExampleBot/1.0 (+https://example.com/bot)", headers map[X-Api-Version:2], basic auth bot, ignore_robots true
}

// A Crawler that logs in to the members' part of a site, and crawls
// nothing else there: the rules say where the form is, what to fill in
// and how to tell that it worked; the Policy applies them, and logs in
// again when the session expires.
func ExamplePolicy() {
	site := crawlertest.NewSessionSite(crawlertest.SessionConfig{Pages: 5, Expiry: 2})
	defer site.Close()
	os.Setenv("MEMBERS_PASSWORD", crawlertest.SessionPassword) // as the shell would
	rules, err := sites.Load("sites.toml", []byte(fmt.Sprintf(`
[[site]]
match = "%[1]s/members/"
[site.login]
url = "%[1]s/login"
fields = { user = "crawler", password = "env:MEMBERS_PASSWORD" }
success = { cookie = "session" }

[[site]]
match = "%[1]s/"
deny = ["/"]
allow = ["/members/"]
`, site.URL())), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	loopback := fetch.AddressPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}} // the test site's
	c := &crawler.Crawler{
		Sites:   &sites.Policy{Rules: rules},
		Fetcher: &fetch.HTTPFetcher{Addresses: loopback, Jar: &cookies.Jar{}},
		Pacing:  politeness.Pacing{Delay: -1}, // our own site: no delay
	}
	if err := c.Run(context.Background(), site.URL()+"/members/1"); err != nil {
		fmt.Println(err)
		return
	}
	st := c.Stats()
	fmt.Printf("members' pages: %d, logins: %d, again after expiry: %d\n", len(site.MemberFetches()), st.Logins, st.Relogins)
	// Output: members' pages: 5, logins: 1, again after expiry: 2
}
