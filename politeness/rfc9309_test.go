package politeness

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// rfc51 is the robots.txt of RFC 9309 section 5.1, as printed (with its
// closing "EOF" line, an unknown record here).
const rfc51 = `User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
`

// rfc52 is the robots.txt of RFC 9309 section 5.2.
const rfc52 = "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n"

// rfcMerge and rfcStar are the examples of RFC 9309 section 2.2.1 (groups
// naming the same agent are merged; without one's own group, "*" applies).
const (
	rfcMerge = "user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n"
	rfcStar  = "user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n"
)

// dis returns a "*" group disallowing pattern.
func dis(pattern string) string { return "User-agent: *\nDisallow: " + pattern + "\n" }

// only returns a "*" group allowing only pattern.
func only(pattern string) string { return "User-agent: *\nDisallow: /\nAllow: " + pattern + "\n" }

// rfc9309Cases are written from the text of RFC 9309: its grammar (2.2),
// the user-agent (2.2.1), allow/disallow (2.2.2, with its table of encodings)
// and special-character (2.2.3, with its tables) sections, and the examples of
// section 5; plus the choices the package documentation makes where the RFC
// is silent. TestTemotoComparison runs them against temoto too.
var rfc9309Cases = []robotsCase{
	// 5.1 Simple example.
	{"5.1 star: /example/ disallowed", rfc51, "otherbot/1.0", "/example/x", false},
	{"5.1 star: /publications/ allowed", rfc51, "otherbot/1.0", "/publications/a", true},
	{"5.1 star: .gif disallowed anywhere", rfc51, "otherbot/1.0", "/img/a/b.gif", false},
	{"5.1 star: .gif$ anchored, query escapes it", rfc51, "otherbot/1.0", "/a.gif?x=1", true},
	{"5.1 star: other paths allowed", rfc51, "otherbot/1.0", "/a/b.png", true},
	{"5.1 star: longer allow beats .gif$", rfc51, "otherbot/1.0", "/publications/a.gif", true},
	{"5.1 star: crawler has no group of its own", rfc51, "", "/example/x", false},
	{"5.1 foobot: root disallowed", rfc51, "foobot", "/", false},
	{"5.1 foobot: page.html allowed", rfc51, "foobot", "/example/page.html", true},
	{"5.1 foobot: allowed.gif allowed", rfc51, "foobot", "/example/allowed.gif", true},
	{"5.1 foobot: other example path disallowed", rfc51, "foobot", "/example/other", false},
	{"5.1 foobot: star group not merged in", rfc51, "foobot", "/publications/a", false},
	{"5.1 foobot: full user-agent header", rfc51, "FooBot/2.1 (+https://foo.example/bot)", "/example/page.html", true},
	{"5.1 foobot: token case-insensitive", rfc51, "FOOBOT", "/example/x", false},
	{"5.1 foobotx is not foobot", rfc51, "foobotx/1.0", "/example/page.html", false},
	{"5.1 barbot: page.html disallowed", rfc51, "barbot", "/example/page.html", false},
	{"5.1 barbot: page.html is a prefix", rfc51, "barbot", "/example/page.html.bak", false},
	{"5.1 barbot: rest allowed", rfc51, "barbot", "/example/other", true},
	{"5.1 barbot: star .gif rule does not apply", rfc51, "barbot", "/x.gif", true},
	{"5.1 bazbot: shares the group", rfc51, "bazbot/3", "/example/page.html", false},
	{"5.1 bazbot: rest allowed", rfc51, "bazbot/3", "/example/", true},
	{"5.1 quxbot: empty last group allows", rfc51, "quxbot", "/example/x", true},
	{"5.1 quxbot: empty group does not fall back to star", rfc51, "quxbot", "/x.gif", true},

	// 5.2 Longest match.
	{"5.2 longest match disallows", rfc52, "foobot", "/example/page/disallowed.gif", false},
	{"5.2 URI as printed (disallow.gif) only matches the allow", rfc52, "foobot", "/example/page/disallow.gif", true},
	{"5.2 allow prefix", rfc52, "foobot", "/example/page/", true},
	{"5.2 no rule matches", rfc52, "foobot", "/example/other", true},
	{"5.2 other agent has no group", rfc52, "", "/example/page/disallowed.gif", true},

	// 2.2.1 The user-agent line.
	{"2.2.1 merged groups: first", rfcMerge, "ExampleBot/0.1", "/foo", false},
	{"2.2.1 merged groups: second", rfcMerge, "ExampleBot/0.1", "/bar", false},
	{"2.2.1 merged groups: from the second group", rfcMerge, "ExampleBot/0.1", "/baz", false},
	{"2.2.1 merged groups: unlisted", rfcMerge, "ExampleBot/0.1", "/qux", true},
	{"2.2.1 no own group: star applies", rfcStar, "ExampleBot/0.1", "/foo", false},
	{"2.2.1 no own group: other agent's rule not applied", rfcStar, "ExampleBot/0.1", "/baz", true},
	{"2.2.1 own group: star not applied", rfcStar, "BazBot", "/foo", true},
	{"2.2.1 own group applies", rfcStar, "bazbot/1", "/baz", false},
	{"2.2.1 no group and no star: no rules", "user-agent: BazBot\ndisallow: /\n", "ExampleBot", "/anything", true},
	{"2.2.1 no groups at all", "# nothing\nSitemap: https://h/s.xml\n", "", "/a", true},
	{"2.2.1 prefix agent: FooBot does not obey Foo", "User-agent: Foo\nDisallow: /\n", "FooBot/1.0", "/a", true},
	{"2.2.1 prefix agent: Foo does not obey FooBot", "User-agent: FooBot\nDisallow: /\n", "Foo/1.0", "/a", true},
	{"2.2.1 hyphen in token", "User-agent: my-crawler\nDisallow: /\n", "my-crawler/2", "/a", false},
	{"2.2.1 hyphen token not a prefix", "User-agent: my-crawler\nDisallow: /\n", "my/2", "/a", true},
	{"2.2.1 underscore in token", "User-agent: My_Bot\nDisallow: /\n", "my_bot", "/a", false},
	{"2.2.1 words after the token", "User-agent: crawler and friends\nDisallow: /\n", "", "/a", false},
	{"2.2.1 header-like value names its first token", "User-agent: Mozilla/5.0 (compatible; crawler)\nDisallow: /\n", "", "/a", true},
	{"2.2.1 invalid token *crawler names nobody", "User-agent: *crawler\nDisallow: /\n", "", "/a", true},
	{"2.2.1 star with comment", "User-agent: * # everyone\nDisallow: /\n", "", "/a", false},
	{"2.2.1 empty value still in agent list", "User-agent:\nUser-agent: crawler\nDisallow: /x\n", "", "/x", false},
	{"2.2.1 star groups merged", "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n", "", "/b", false},
	{"2.2.1 star and agent in one group: agent", "User-agent: *\nUser-agent: crawler\nDisallow: /x\n", "", "/x", false},
	{"2.2.1 star and agent in one group: other", "User-agent: *\nUser-agent: crawler\nDisallow: /x\n", "other", "/x", false},
	{"2.2.1 empty own group: no fallback to star", "User-agent: crawler\nDisallow:\n\nUser-agent: *\nDisallow: /\n", "", "/a", true},
	{"2.2.1 own group with only Crawl-delay allows", "User-agent: crawler\nCrawl-delay: 5\n\nUser-agent: *\nDisallow: /\n", "", "/a", true},
	{"2.2.1 merged with an empty group: rules kept", "User-agent: crawler\nDisallow:\n\nUser-agent: crawler\nDisallow: /b\n", "", "/b", false},
	{"2.2.1 merged with an empty group: rest allowed", "User-agent: crawler\nDisallow:\n\nUser-agent: crawler\nDisallow: /b\n", "", "/a", true},
	{"2.2.1 agent listed twice in a group", "User-agent: crawler\nUser-agent: Crawler\nDisallow: /a\nAllow: /a\n", "", "/a", true},
	{"2.2.1 bare token user agent", "User-agent: crawler\nDisallow: /\n", "crawler", "/a", false},

	// 2.2 grammar: groups, lines, comments.
	{"2.2 blank line does not end the agent list", "User-agent: crawler\n\nUser-agent: *\nDisallow: /\n", "", "/a", false},
	{"2.2 comment line does not end the agent list", "User-agent: a\n# b next\nUser-agent: crawler\nDisallow: /x\n", "", "/x", false},
	{"2.2 unknown line does not end the agent list", "User-agent: a\nFoo: bar\nUser-agent: crawler\nDisallow: /x\n", "", "/x", false},
	{"2.2.4 sitemap does not end the agent list", "User-agent: a\nSitemap: https://h/s.xml\nUser-agent: crawler\nDisallow: /x\n", "", "/x", false},
	{"2.2.4 sitemap does not end the group", "User-agent: crawler\nSitemap: https://h/s.xml\nDisallow: /x\n", "", "/x", false},
	{"2.2 blank line does not end the rules", "User-agent: crawler\nDisallow: /a\n\nDisallow: /b\n", "", "/b", false},
	{"2.2 user-agent after rules starts a group", "User-agent: crawler\nDisallow: /a\nUser-agent: other\nDisallow: /b\n", "", "/b", true},
	{"2.2 user-agent after rules: new group's rules", "User-agent: other\nDisallow: /a\nUser-agent: crawler\nDisallow: /b\n", "", "/b", false},
	{"2.2 crawl-delay ends the agent list", "User-agent: crawler\nCrawl-delay: 1\nUser-agent: other\nDisallow: /\n", "", "/x", true},
	{"2.2 empty disallow ends the agent list", "User-agent: crawler\nDisallow:\nUser-agent: other\nDisallow: /\n", "", "/x", true},
	{"2.2 white space around key and colon", "  user-agent  :  crawler  \n\tdisallow\t:\t/a\t\n", "", "/a", false},
	{"2.2 key case-insensitive", "uSeR-aGeNt: CrAwLeR\nDiSaLlOw: /a\n", "", "/a", false},
	{"2.2 no space after colon", "User-agent:crawler\nDisallow:/a\n", "", "/a", false},
	{"2.2 no colon, value has a colon", "User-agent *\nDisallow /a:b\n", "", "/a:b", false},
	{"2.2 NL lone CR", "User-agent: *\rDisallow: /x\rAllow: /x/y\r", "", "/x/y", true},
	{"2.2 NL CRLF", "User-agent: *\r\nDisallow: /x\r\nAllow: /x/y\r\n", "", "/x/z", false},
	{"2.2 NL mixed", "User-agent: a\rUser-agent: crawler\r\n\nDisallow: /x\n", "", "/x", false},
	{"2.2 last line without NL", "User-agent: *\nDisallow: /x", "", "/x", false},
	{"2.2 BOM dropped", "\uFEFFUser-agent: *\nDisallow: /x\n", "", "/x", false},
	{"2.2 BOM only at the start", "User-agent: *\n\uFEFFDisallow: /x\n", "", "/x", true},
	{"2.2 # comment without white space", "User-agent: *\nDisallow: /a#b\n", "", "/a/c", false},
	{"2.2 # comment without white space cuts the value", "User-agent: *\nDisallow: /a#b\n", "", "/ab", false},
	{"2.2 # in user-agent", "User-agent: crawler#bot\nDisallow: /\n", "", "/a", false},
	{"2.2 # comment makes an empty rule", "User-agent: *\nDisallow: #/\n", "", "/a", true},
	{"2.2.3 # comment in line", "User-agent: *\nDisallow: /a\nallow: /a/b # comment in line\n", "", "/a/b", true},
	{"2.2.3 # comment on its own line", "User-agent: *\n# comment on its own line\nDisallow: /a\n", "", "/a", false},
	{"2.2 misspelling dissallow", "User-agent: *\nDissallow: /a\n", "", "/a", false},
	{"2.2 misspelling dissalow", "User-agent: *\nDissalow: /a\n", "", "/a", false},
	{"2.2 misspelling diasllow", "User-agent: *\nDiasllow: /a\n", "", "/a", false},
	{"2.2 misspelling disallaw", "User-agent: *\nDisallaw: /a\n", "", "/a", false},
	{"2.2 misspelling user agent", "User agent: *\nDisallow: /a\n", "", "/a", false},
	{"2.2 unknown key ignored", "User-agent: *\nNoindex: /a\nDisallow: /b\n", "", "/a", true},
	{"2.2.2 rule before first user-agent ignored", "Disallow: /\nUser-agent: *\nDisallow: /b\n", "", "/a", true},
	{"2.2.2 allow before first user-agent ignored", "Allow: /\nUser-agent: *\nDisallow: /\n", "", "/a", false},
	{"2.2.2 only rules, no group", "Disallow: /\nCrawl-delay: 5\n", "", "/a", true},
	{"non-numeric crawl-delay keeps the group", "User-agent: crawler\nCrawl-delay: fast\nDisallow: /a\n", "", "/a", false},
	{"non-numeric crawl-delay keeps later groups", "User-agent: a\nCrawl-delay: x\nUser-agent: crawler\nDisallow: /a\n", "", "/a", false},

	// 2.2.2 Matching.
	{"2.2.2 matching is case-sensitive", dis("/Foo"), "", "/foo", true},
	{"2.2.2 match starts at the first octet", dis("/bar"), "", "/foo/bar", true},
	{"2.2.2 end of rule must be reached", dis("/foo/"), "", "/foo", true},
	{"2.2.2 prefix match", dis("/foo"), "", "/foo/bar", false},
	{"2.2.2 equivalent allow wins", "User-agent: *\nAllow: /a\nDisallow: /a\n", "", "/a", true},
	{"2.2.2 no rules in the group allows", "User-agent: *\n", "", "/a", true},
	{"2.2.2 /robots.txt implicitly allowed", dis("/robots.txt"), "", "/robots.txt", true},
	{"2.2.2 /robots.txt with query implicitly allowed", dis("/"), "", "/robots.txt?x=1", true},
	{"2.2.2 longest rule wins over order", "User-agent: *\nDisallow: /a/b\nAllow: /a\n", "", "/a/b", false},
	{"2.2.2 longest is the rule's length, not the matched text", "User-agent: *\nAllow: /*.html\nDisallow: /products/\n", "", "/products/a.html", false},
	{"2.2.2 wildcard counts as written: tie to allow", "User-agent: *\nAllow: /p*\nDisallow: /pa\n", "", "/page", true},
	{"2.2.2 wildcard counts as written: longer disallow", "User-agent: *\nAllow: /p*\nDisallow: /pag\n", "", "/page", false},
	{"2.2.2 dollar counts: anchored rule is longer", "User-agent: *\nAllow: /a\nDisallow: /a$\n", "", "/a", false},
	{"2.2.2 allow * ties disallow /", "User-agent: *\nAllow: *\nDisallow: /\n", "", "/x", true},
	{"2.2.2 tie across merged groups with wildcards", "User-agent: crawler\nDisallow: /*.pdf\n\nUser-agent: crawler\nAllow: /a*pdf\n", "", "/a.pdf", true},
	{"2.2.2 tie across spellings: normalized length", "User-agent: *\nDisallow: /%7Ea\nAllow: /~a\n", "", "/~a", true},
	{"2.2.2 tie across spellings: UTF-8", "User-agent: *\nDisallow: /ä\nAllow: /%c3%a4\n", "", "/%C3%A4", true},
	{"2.2.2 empty allow is no rule", "User-agent: *\nDisallow: /\nAllow:\n", "", "/a", false},
	{"2.2.2 no leading slash gets one", dis("a"), "", "/a", false},
	{"2.2.2 no leading slash is still anchored", dis("a"), "", "/ba", true},
	{"2.2.2 query-only pattern", dis("?"), "", "/?x", false},
	{"2.2.2 query-only pattern anchored", dis("?"), "", "/a?x", true},
	{"2.2.2 query kept in matching", dis("/foo/bar?baz=quz"), "", "/foo/bar?baz=quz", false},
	{"2.2.2 query differs", dis("/foo/bar?baz=quz"), "", "/foo/bar?baz=qux", true},

	// 2.2.2 table: encodings.
	{"2.2.2 table row 2: encoded rule, encoded URI", dis("/foo/bar?baz=https%3A%2F%2Ffoo.bar"), "", "/foo/bar?baz=https%3A%2F%2Ffoo.bar", false},
	{"2.2.2 table row 2: raw rule, raw URI", dis("/foo/bar?baz=https://foo.bar"), "", "https://h/foo/bar?baz=https://foo.bar", false},
	{"2.2.2 table row 2: raw reserved stays distinct from encoded (see doc)", dis("/foo/bar?baz=https://foo.bar"), "", "/foo/bar?baz=https%3A%2F%2Ffoo.bar", true},
	{"2.2.2 table row 3: UTF-8 rule, encoded URI", dis("/foo/bar/ツ"), "", "/foo/bar/%E3%83%84", false},
	{"2.2.2 table row 3: encoded rule, UTF-8 URI", dis("/foo/bar/%E3%83%84"), "", "/foo/bar/ツ", false},
	{"2.2.2 table row 3: UTF-8 URL", dis("/foo/bar/%E3%83%84"), "", "https://h/foo/bar/ツ", false},
	{"2.2.2 table row 4: encoded both", dis("/foo/bar/%E3%83%84"), "", "/foo/bar/%E3%83%84", false},
	{"2.2.2 table row 4: lower-case hex URI", dis("/foo/bar/%E3%83%84"), "", "/foo/bar/%e3%83%84", false},
	{"2.2.2 table row 4: lower-case hex rule", dis("/foo/bar/%e3%83%84"), "", "/foo/bar/%E3%83%84", false},
	{"2.2.2 table row 5: unreserved decoded in rule", dis("/foo/bar/%62%61%7A"), "", "/foo/bar/baz", false},
	{"2.2.2 table row 5: unreserved decoded in URI", dis("/foo/bar/baz"), "", "/foo/bar/%62%61%7A", false},
	{"2.2.2 table row 5: lower-case hex", dis("/foo/bar/%62%61%7a"), "", "/foo/bar/%62a%7A", false},
	{"percent: %7E rule matches ~ URI", dis("/%7Ea"), "", "/~a", false},
	{"percent: ~ rule matches %7e URI", dis("/~a"), "", "/%7ea", false},
	{"percent: %2D rule matches -", dis("/a%2Db"), "", "/a-b", false},
	{"percent: %41 rule matches A", dis("/%41"), "", "/A", false},
	{"percent: A rule matches %41 URL", dis("/A"), "", "https://h/%41", false},
	{"percent: %3c rule matches %3C", dis("/a%3c"), "", "/a%3C", false},
	{"percent: %3C rule matches %3c", dis("/a%3C"), "", "/a%3c", false},
	{"percent: raw < matches %3C", dis("/a%3C"), "", "/a<", false},
	{"percent: %2F rule does not match /", dis("/a%2Fb"), "", "/a/b", true},
	{"percent: / rule does not match %2F", dis("/a/b"), "", "/a%2Fb", true},
	{"percent: %2f matches %2F", dis("/a%2fb"), "", "/a%2Fb", false},
	{"percent: %20 rule matches space", dis("/a%20b"), "", "/a b", false},
	{"percent: Latin-1 %E4 is not UTF-8 ä", dis("/%E4"), "", "/ä", true},
	{"percent: raw { matches %7B", dis("/a{b"), "", "/a%7Bb", false},
	{"percent: %7B matches raw { in URL", dis("/a%7Bb"), "", "https://h/a{b", false},
	{"percent: malformed % is %25", dis("/100%"), "", "/100%25", false},
	{"percent: %25 rule matches lone %", dis("/100%25"), "", "/100%", false},
	{"percent: malformed %zz matches itself", dis("/a%zz"), "", "/a%zz", false},
	{"percent: malformed %zz is %25zz", dis("/a%zz"), "", "/a%25zz", false},
	{"percent: truncated %4 is not a prefix of %41", dis("/a%4"), "", "/a%41", true},
	{"percent: truncated %4 matches itself", dis("/a%4"), "", "/a%4", false},
	{"percent: %25 is not decoded", dis("/a%2541"), "", "/aA", true},

	// 2.2.3 Special characters.
	{"2.2.3 $ exact path", only("/this/path/exactly$"), "", "/this/path/exactly", true},
	{"2.2.3 $ longer path", only("/this/path/exactly$"), "", "/this/path/exactly/", false},
	{"2.2.3 $ longer name", only("/this/path/exactly$"), "", "/this/path/exactlyx", false},
	{"2.2.3 $ query", only("/this/path/exactly$"), "", "/this/path/exactly?x", false},
	{"2.2.3 * one segment", only("/this/*/exactly"), "", "/this/a/exactly", true},
	{"2.2.3 * spans slashes", only("/this/*/exactly"), "", "/this/a/b/exactly", true},
	{"2.2.3 * matches empty", only("/this/*/exactly"), "", "/this//exactly", true},
	{"2.2.3 * prefix must match", only("/this/*/exactly"), "", "/that/a/exactly", false},
	{"2.2.3 * is a prefix match", only("/this/*/exactly"), "", "/this/a/exactly/more", true},
	{"2.2.3 %2A is a literal *", dis("/path/file-with-a-%2A.html"), "", "https://www.example.com/path/file-with-a-*.html", false},
	{"2.2.3 %2A is not a wildcard", dis("/path/file-with-a-%2A.html"), "", "/path/file-with-a-x.html", true},
	{"2.2.3 %2a matches %2A", dis("/a%2a"), "", "/a%2A", false},
	{"2.2.3 %24 is a literal $", dis("/path/foo-%24"), "", "https://www.example.com/path/foo-$", false},
	{"2.2.3 %24 is not an anchor", dis("/path/foo-%24"), "", "/path/foo-$bar", false},
	{"2.2.3 %24 needs the $", dis("/path/foo-%24"), "", "/path/foo-", true},
	{"$ in the middle is literal", dis("/a$b"), "", "/a$b/c", false},
	{"$ in the middle matches %24", dis("/a$b"), "", "/a%24b", false},
	{"$ in the middle is no anchor", dis("/a$b"), "", "/a", true},
	{"$$: first literal, last anchor", dis("/a$$"), "", "/a$", false},
	{"$$: anchored", dis("/a$$"), "", "/a$x", true},
	{"$ before * is literal", dis("/a$*"), "", "/a$x", false},
	{"$ before * needs the $", dis("/a$*"), "", "/a", true},
	{"/$ only the root", dis("/$"), "", "/", false},
	{"/$ not below", dis("/$"), "", "/a", true},
	{"$ alone means /$", dis("$"), "", "/", false},
	{"* anchored at path start", dis("/*/b"), "", "/a/b", false},
	{"* anchored: first segment must be a prefix", dis("/a*b"), "", "/xab", true},
	{"* pattern: prefix match", dis("/a*b"), "", "/a/xb/c", false},
	{"* needs the rest", dis("/a*b"), "", "/a/c", true},
	{"** same as *", dis("/a**b"), "", "/a/x/b", false},
	{"*$ same as prefix", dis("/a*$"), "", "/abc", false},
	{"*.php$ end", dis("/*.php$"), "", "/x/y.php", false},
	{"*.php$ last occurrence", dis("/*.php$"), "", "/a.php/b.php", false},
	{"*.php$ not at end", dis("/*.php$"), "", "/a.php/b", true},
	{"Disallow: * blocks root", dis("*"), "", "/", false},
	{"Disallow: * blocks query", dis("*"), "", "/?a", false},
	{"Disallow: * keeps /robots.txt", dis("*"), "", "/robots.txt", true},
	{"Disallow: /* blocks root", dis("/*"), "", "/", false},
	{"literal * in URI matched by wildcard", dis("/a*c"), "", "/a*c", false},
	{"literal * in URI not a wildcard", dis("/a%2Ac"), "", "/abc", true},
	{"pathological pattern: no match", dis("/*a*a*a*a*a*a*a*a*b"), "", "/" + strings.Repeat("a", 5000), true},
	{"pathological pattern: match", dis("/*a*a*a*a*a*a*a*a*b"), "", "/" + strings.Repeat("a", 5000) + "b", false},
	{"pathological anchored pattern", dis("/*a*a*a*a*a*a*a*a*b$"), "", "/" + strings.Repeat("a", 5000) + "bc", true},

	// Targets.
	{"target: absolute URL encoded path", dis("/~a"), "", "https://h/%7Ea", false},
	{"target: absolute URL UTF-8 path", dis("/%C3%A4"), "", "https://h/ä", false},
	{"target: absolute URL empty path with query", dis("/?x"), "", "https://h?x=1", false},
	{"target: absolute URL port and userinfo", dis("/a"), "", "https://u:p@h:8443/a", false},
	{"target: absolute URL upper-case scheme", dis("/a"), "", "HTTPS://H/a", false},
	{"target: absolute URL fragment only", dis("/$"), "", "https://h#top", false},
	{"target: query with %2F kept", dis("/a?u=%2F"), "", "https://h/a?u=%2f", false},
}

func TestRobotsPathological(t *testing.T) {
	// Matching is not exponential: many wildcards against a long path that
	// almost matches. BenchmarkAllowedPathological measures the time.
	r := ParseRobots([]byte(dis("/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b")))
	long := "/" + strings.Repeat("a", 100<<10)
	if !r.Allowed(ua, long) {
		t.Error("pattern ending in b matched a path without b")
	}
	if r.Allowed(ua, long+"b") {
		t.Error("pattern did not match")
	}
}

func TestParseRobotsMergeLinear(t *testing.T) {
	// Each of many agents is named both by one big group and by a small group
	// of its own: merging must not copy the big group's rules per agent (that
	// would be quadratic in the body size), and the answers must be merged.
	var b strings.Builder
	const agents = 4000
	name := func(i int) string { // product tokens are letters only
		return "a" + strings.Map(func(r rune) rune { return 'a' + r - '0' }, strconv.Itoa(i))
	}
	for i := range agents {
		b.WriteString("User-agent: " + name(i) + "\n")
	}
	for i := range 12000 {
		fmt.Fprintf(&b, "Disallow: /big%d\n", i)
	}
	for i := range agents {
		fmt.Fprintf(&b, "User-agent: %s\nAllow: /big1\nDisallow: /own%d\n", name(i), i)
	}
	if b.Len() > MaxRobotsSize {
		t.Fatalf("body of %d bytes is over MaxRobotsSize", b.Len())
	}
	r := ParseRobots([]byte(b.String()))
	for _, i := range []int{0, 1, agents / 2, agents - 1} {
		a := name(i)
		for _, tt := range []struct {
			target string
			want   bool
		}{{"/big7", false}, {"/big1", true}, {"/big11999", false}, {fmt.Sprintf("/own%d", i), false}, {fmt.Sprintf("/own%dx", i+1), true}} {
			if got := r.Allowed(a, tt.target); got != tt.want {
				t.Errorf("Allowed(%q, %q) = %v, want %v", a, tt.target, got, tt.want)
			}
		}
	}
}
