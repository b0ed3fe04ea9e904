package canon

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

type tcase struct {
	name string
	in   string
	want string // "" when an error is expected
	err  error
}

// coreCases are Canonical with the zero Canonicalizer.
var coreCases = []tcase{
	// Scheme and host case, empty path, fragment.
	{"bare host", "http://example.com", "http://example.com/", nil},
	{"upper scheme and host", "HTTP://EXAMPLE.COM/", "http://example.com/", nil},
	{"mixed scheme", "HtTpS://a/", "https://a/", nil},
	{"path and query keep case", "http://Example.COM/Path/File?Q=A", "http://example.com/Path/File?Q=A", nil},
	{"https kept", "https://example.com/", "https://example.com/", nil},
	{"www kept", "http://www.example.com/", "http://www.example.com/", nil},
	{"trailing slash kept", "http://example.com/a/", "http://example.com/a/", nil},
	{"no trailing slash kept", "http://example.com/a", "http://example.com/a", nil},
	{"fragment dropped", "http://example.com/#frag", "http://example.com/", nil},
	{"fragment with query chars", "http://example.com/a#b?c", "http://example.com/a", nil},
	{"empty query and fragment", "http://example.com/?#", "http://example.com/?", nil},
	{"query without path", "http://example.com?q", "http://example.com/?q", nil},
	{"fragment without path", "http://example.com#f", "http://example.com/", nil},
	{"empty query kept", "http://example.com/?", "http://example.com/?", nil},

	// Ports.
	{"default http port", "http://example.com:80/", "http://example.com/", nil},
	{"default https port", "https://example.com:443/", "https://example.com/", nil},
	{"443 on http kept", "http://example.com:443/", "http://example.com:443/", nil},
	{"80 on https kept", "https://example.com:80/", "https://example.com:80/", nil},
	{"zero-padded default", "http://example.com:080/", "http://example.com/", nil},
	{"zero-padded default long", "http://example.com:00080/", "http://example.com/", nil},
	{"other port kept", "http://example.com:8080/", "http://example.com:8080/", nil},
	{"zero-padded port", "http://example.com:08080/", "http://example.com:8080/", nil},
	{"empty port", "http://example.com:/", "http://example.com/", nil},
	{"empty port no path", "http://example.com:", "http://example.com/", nil},
	{"port zero", "http://example.com:0/", "http://example.com:0/", nil},
	{"port 00", "http://example.com:00/", "http://example.com:0/", nil},
	{"max port", "http://example.com:65535/", "http://example.com:65535/", nil},
	{"port before query", "http://example.com:81?x", "http://example.com:81/?x", nil},
	{"port out of range", "http://example.com:65536/", "", ErrPort},
	{"port huge", "http://example.com:99999999999999999999/", "", ErrPort},
	{"port letters", "http://example.com:8a/", "", ErrPort},
	{"port negative", "http://example.com:-1/", "", ErrPort},
	{"two colons", "http://example.com:80:80/", "", ErrPort},

	// Dot segments.
	{"dot", "http://a/b/./c", "http://a/b/c", nil},
	{"dotdot", "http://a/b/../c", "http://a/c", nil},
	{"trailing dotdot", "http://a/b/c/..", "http://a/b/", nil},
	{"trailing dot", "http://a/b/c/.", "http://a/b/c/", nil},
	{"dotdot above root", "http://a/..", "http://a/", nil},
	{"many dotdot above root", "http://a/../../x", "http://a/x", nil},
	{"only dot", "http://a/.", "http://a/", nil},
	{"encoded dot", "http://a/b/%2e/c", "http://a/b/c", nil},
	{"encoded dotdot upper", "http://a/b/%2E%2E/c", "http://a/c", nil},
	{"half encoded dotdot", "http://a/b/.%2e/c", "http://a/c", nil},
	{"half encoded dotdot 2", "http://a/b/%2e./c", "http://a/c", nil},
	{"dotdot prefix not a dot segment", "http://a/b/..c/d", "http://a/b/..c/d", nil},
	{"dotdot suffix not a dot segment", "http://a/b/c../d", "http://a/b/c../d", nil},
	{"three dots kept", "http://a/b/.../d", "http://a/b/.../d", nil},
	{"double slash kept", "http://a/b//c", "http://a/b//c", nil},
	{"dotdot after empty segment", "http://a/b//../c", "http://a/b/c", nil},
	{"dots in query kept", "http://a/?x/../y/./z", "http://a/?x/../y/./z", nil},
	{"dotdot with backslash", "http://a/b\\..\\c", "http://a/c", nil},

	// Percent-encoding.
	{"tilde decoded", "http://a/%7Euser", "http://a/~user", nil},
	{"tilde decoded lower", "http://a/%7euser", "http://a/~user", nil},
	{"letters decoded", "http://a/%41%42%43%61", "http://a/ABCa", nil},
	{"unreserved punct decoded", "http://a/%2D%2E%5F%7E%30", "http://a/-._~0", nil},
	{"slash escape kept", "http://a/a%2Fb", "http://a/a%2Fb", nil},
	{"slash escape upper-cased", "http://a/a%2fb", "http://a/a%2Fb", nil},
	{"colon escape upper-cased", "http://a/%3a", "http://a/%3A", nil},
	{"question escape kept", "http://a/%3F", "http://a/%3F", nil},
	{"hash escape kept", "http://a/%23", "http://a/%23", nil},
	{"percent escape kept", "http://a/%25", "http://a/%25", nil},
	{"percent escape of hex not decoded twice", "http://a/%2541", "http://a/%2541", nil},
	{"stray percent at end", "http://a/%", "http://a/%25", nil},
	{"stray percent bad hex", "http://a/%zz", "http://a/%25zz", nil},
	{"stray percent one digit", "http://a/%4", "http://a/%254", nil},
	{"percent percent", "http://a/%%41", "http://a/%25A", nil},
	{"space encoded", "http://a/a b", "http://a/a%20b", nil},
	{"plus kept", "http://a/a+b", "http://a/a+b", nil},
	{"encoded space kept", "http://a/a%20b", "http://a/a%20b", nil},
	{"non-ASCII path", "http://a/é", "http://a/%C3%A9", nil},
	{"lower escapes of UTF-8", "http://a/%c3%a9", "http://a/%C3%A9", nil},
	{"invalid UTF-8 byte", "http://a/\xff", "http://a/%FF", nil},
	{"must-encode in path", "http://a/\"<>^`{|}", "http://a/%22%3C%3E%5E%60%7B%7C%7D", nil},
	{"must-encode in query", "http://a/?q=\"<>^`{|}\\", "http://a/?q=%22%3C%3E%5E%60%7B%7C%7D%5C", nil},
	{"space in query", "http://a/?q=a b", "http://a/?q=a%20b", nil},
	{"non-ASCII query", "http://a/?q=é", "http://a/?q=%C3%A9", nil},
	{"query unreserved decoded", "http://a/?%7e=%41", "http://a/?~=A", nil},
	{"query reserved upper-cased", "http://a/?a=%2f&b=%26", "http://a/?a=%2F&b=%26", nil},
	{"query order kept", "http://a/?b=2&a=1", "http://a/?b=2&a=1", nil},
	{"semicolon query kept", "http://a/?a=1;b=2", "http://a/?a=1;b=2", nil},
	{"question and slash in query", "http://a/?a?b/c", "http://a/?a?b/c", nil},
	{"control in path", "http://a/a\x01b\x7fc", "http://a/a%01b%7Fc", nil},
	{"brackets in path encoded", "http://a/[x]", "http://a/%5Bx%5D", nil},        // issue 46
	{"brackets in query encoded", "http://a/?q[]=1", "http://a/?q%5B%5D=1", nil}, // issue 46
	{"bracket escapes kept", "http://a/%5bx%5d?%5B%5D", "http://a/%5Bx%5D?%5B%5D", nil},
	{"sub-delims kept", "http://a/!$&'()*+,;=:@", "http://a/!$&'()*+,;=:@", nil},
	{"backslash in path", "http://a/b\\c", "http://a/b/c", nil},
	{"backslash in query", "http://a/?a\\b", "http://a/?a%5Cb", nil},
	{"backslash authority", "http:\\\\example.com\\a\\b", "http://example.com/a/b", nil},

	// Whitespace and controls.
	{"surrounding spaces", "  http://example.com/  ", "http://example.com/", nil},
	{"surrounding controls", "\x00http://example.com/\x1f", "http://example.com/", nil},
	{"tab CR LF removed", "http://exa\tmple.com/a\nb\rc", "http://example.com/abc", nil},
	{"tab CR LF in query", "http://a/?x=1\n&y=\t2", "http://a/?x=1&y=2", nil},
	{"inner space kept encoded", "http://example.com/a b ", "http://example.com/a%20b", nil},
	{"leading tab", "\thttp://example.com/", "http://example.com/", nil},
	{"CR LF inside scheme", "ht\r\ntp://a/", "http://a/", nil},

	// Scheme forms.
	{"slashless", "http:example.com/a", "http://example.com/a", nil},
	{"one slash", "http:/example.com/a", "http://example.com/a", nil},
	{"three slashes", "http:///example.com/a", "http://example.com/a", nil},
	{"javascript", "javascript:alert(1)", "", ErrScheme},
	{"mailto", "mailto:a@b.c", "", ErrScheme},
	{"data", "data:text/html,hi", "", ErrScheme},
	{"tel", "tel:+1555", "", ErrScheme},
	{"ftp", "ftp://example.com/", "", ErrScheme},
	{"file", "file:///etc/passwd", "", ErrScheme},
	{"ws", "ws://example.com/", "", ErrScheme},
	{"httpx", "httpx://example.com/", "", ErrScheme},
	{"no scheme", "example.com/a", "", ErrScheme},
	{"protocol relative", "//example.com/", "", ErrScheme},
	{"empty", "", "", ErrScheme},
	{"only spaces", "   ", "", ErrScheme},
	{"no colon", "http//example.com", "", ErrScheme},
	{"digit first", "1http://a/", "", ErrScheme},

	// Host names.
	{"IDN", "http://münchen.de/", "http://xn--mnchen-3ya.de/", nil},
	{"IDN upper", "http://MÜNCHEN.DE/", "http://xn--mnchen-3ya.de/", nil},
	{"punycode kept", "http://xn--mnchen-3ya.de/", "http://xn--mnchen-3ya.de/", nil},
	{"punycode upper", "http://XN--MNCHEN-3YA.DE/", "http://xn--mnchen-3ya.de/", nil},
	{"sharp s non-transitional", "http://faß.de/", "http://xn--fa-hia.de/", nil},
	{"Japanese", "http://例え.テスト/", "http://xn--r8jz45g.xn--zckzah/", nil},
	{"fullwidth letters", "http://ｅｘａｍｐｌｅ.com/", "http://example.com/", nil},
	{"ideographic full stop", "http://example。com/", "http://example.com/", nil},
	{"soft hyphen ignored", "http://a\u00adb.com/", "http://ab.com/", nil},
	{"encoded host", "http://%41.com/", "http://a.com/", nil},
	{"encoded UTF-8 host", "http://m%C3%BCnchen.de/", "http://xn--mnchen-3ya.de/", nil},
	{"underscore", "http://a_b.example.com/", "http://a_b.example.com/", nil},
	{"double hyphen", "http://r3---sn-abc.example.com/", "http://r3---sn-abc.example.com/", nil},
	{"trailing dot kept", "http://example.com./", "http://example.com./", nil},
	{"two trailing dots after number", "http://0../", "http://0../", nil},
	{"encoded slash in host", "http://ex%2Fample.com/", "", ErrHost},
	{"space in host", "http://a b.com/", "", ErrHost},
	{"lt in host", "http://a<b.com/", "", ErrHost},
	{"caret in host", "http://a^b/", "", ErrHost},
	{"pipe in host", "http://a|b/", "", ErrHost},
	{"stray percent in host", "http://a%b/", "", ErrHost},
	{"brace in host", "http://a{b}/", "", ErrHost},
	{"fullwidth solidus", "http://ex\uff0fample.com/", "", ErrHost},
	{"ASCII punycode", "http://xn--abc-.com/", "", ErrHost},
	{"bad UTF-8 host", "http://\xff.com/", "", ErrHost},
	{"replacement char host", "http://\ufffd.com/", "", ErrHost},
	{"disallowed code point", "http://a\u2028b.com/", "", ErrHost},
	{"bidi rule", "http://a\u05d0.com/", "", ErrHost},
	{"host of ignored code points", "http://\u00ad/", "", ErrHost},
	{"empty host", "http:///", "", ErrHost},
	{"empty host no slash", "http://", "", ErrHost},
	{"empty host after userinfo", "http://user@/", "", ErrHost},
	{"empty host with port", "http://:80/", "", ErrHost},
	{"host then query only", "http://?x", "", ErrHost},

	// IPv4.
	{"dotted decimal", "http://192.168.0.1/", "http://192.168.0.1/", nil},
	{"one decimal number", "http://3279880203/", "http://195.127.0.11/", nil},
	{"hex two parts", "http://0x7f.1/", "http://127.0.0.1/", nil},
	{"one hex number", "http://0x7F000001/", "http://127.0.0.1/", nil},
	{"one octal number", "http://017700000001/", "http://127.0.0.1/", nil},
	{"octal part", "http://0177.0.0.1/", "http://127.0.0.1/", nil},
	{"two parts", "http://127.1/", "http://127.0.0.1/", nil},
	{"three parts", "http://127.0.1/", "http://127.0.0.1/", nil},
	{"three parts big last", "http://192.168.257/", "http://192.168.1.1/", nil},
	{"empty hex", "http://0x.0x.0/", "http://0.0.0.0/", nil},
	{"trailing dot IPv4", "http://1.2.3.4./", "http://1.2.3.4/", nil},
	{"max", "http://4294967295/", "http://255.255.255.255/", nil},
	{"fullwidth digits", "http://１２７.０.０.１/", "http://127.0.0.1/", nil},
	{"encoded digits", "http://%31%32%37.0.0.1/", "http://127.0.0.1/", nil},
	{"IPv4 default port", "http://1.2.3.4:80/", "http://1.2.3.4/", nil},
	{"upper hex prefix", "http://0X7F.0X1/", "http://127.0.0.1/", nil},
	{"not a number label", "http://1.2.3.4x/", "http://1.2.3.4x/", nil},
	{"bad hex label is a name", "http://a.b.0x1g/", "http://a.b.0x1g/", nil},
	{"first part too big", "http://256.0.0.1/", "", ErrHost},
	{"last part too big", "http://1.2.3.256/", "", ErrHost},
	{"single number too big", "http://4294967296/", "", ErrHost},
	{"five parts", "http://1.2.3.4.5/", "", ErrHost},
	{"bad octal", "http://1.2.3.09/", "", ErrHost},
	{"name then number", "http://foo.123/", "", ErrHost},
	{"name then 0x", "http://foo.0x/", "", ErrHost},
	{"hex part too big", "http://0x100.1/", "", ErrHost},
	{"empty part", "http://1..2/", "", ErrHost},
	{"leading empty part", "http://.1.2.3/", "", ErrHost},
	{"bare 0x", "http://0x/", "http://0.0.0.0/", nil},
	{"octal looking 09", "http://09/", "", ErrHost},
	{"zero", "http://0/", "http://0.0.0.0/", nil},
	{"three parts max last", "http://1.2.65535/", "http://1.2.255.255/", nil},
	{"three parts last too big", "http://1.2.65536/", "", ErrHost},
	{"two parts max last", "http://1.16777215/", "http://1.255.255.255/", nil},
	{"two parts last too big", "http://1.16777216/", "", ErrHost},
	{"long zero padding", "http://0000000000000000000000000000001/", "http://0.0.0.1/", nil},
	{"huge hex", "http://0xffffffffffffffffffffffff/", "", ErrHost},

	// IPv6.
	{"loopback", "http://[::1]/", "http://[::1]/", nil},
	{"loopback long", "http://[0:0:0:0:0:0:0:1]/", "http://[::1]/", nil},
	{"upper hex", "http://[2001:DB8::1]/", "http://[2001:db8::1]/", nil},
	{"leading zeros", "http://[2001:0db8:0000:0000:0000:0000:0000:0001]/", "http://[2001:db8::1]/", nil},
	{"first longest run", "http://[2001:db8:0:0:1:0:0:1]/", "http://[2001:db8::1:0:0:1]/", nil},
	{"single zero not compressed", "http://[2001:db8:0:1:1:1:1:1]/", "http://[2001:db8:0:1:1:1:1:1]/", nil},
	{"IPv4-mapped", "http://[::ffff:c000:280]/", "http://[::ffff:c000:280]/", nil},
	{"IPv4-mapped dotted", "http://[::ffff:192.168.1.1]/", "http://[::ffff:c0a8:101]/", nil}, // issue 46
	{"IPv4-mapped long", "http://[0:0:0:0:0:FFFF:0.0.0.1]:8080/", "http://[::ffff:0:1]:8080/", nil},
	{"IPv4-mapped zero", "http://[::ffff:0.0.0.0]/", "http://[::ffff:0:0]/", nil},
	{"IPv4-mapped high", "http://[::ffff:255.255.255.255]/", "http://[::ffff:ffff:ffff]/", nil},
	{"IPv4-translated", "http://[::ffff:0:1.2.3.4]/", "http://[::ffff:0:102:304]/", nil},
	{"IPv6 default port", "http://[::1]:80/", "http://[::1]/", nil},
	{"IPv6 other port", "http://[::1]:8080/", "http://[::1]:8080/", nil},
	{"IPv6 unclosed", "http://[::1/", "", ErrHost},
	{"IPv6 junk after", "http://[::1]x/", "", ErrHost},
	{"IPv4 in brackets", "http://[1.2.3.4]/", "", ErrHost},
	{"IPv6 zone", "http://[fe80::1%25eth0]/", "", ErrHost},
	{"IPv6 bad digit", "http://[::g]/", "", ErrHost},
	{"IPv6 empty", "http://[]/", "", ErrHost},
	{"IPv6 five digits", "http://[12345::1]/", "", ErrHost},
	{"IPv6 embedded IPv4", "http://[::1.2.3.4]/", "http://[::102:304]/", nil},
	{"IPv6 mapped dotted", "http://[::FFFF:1.2.3.4]/", "http://[::ffff:102:304]/", nil},
	{"IPv6 leading zero in IPv4", "http://[::1.2.3.04]/", "", ErrHost},
	{"IPv6 two double colons", "http://[1::2::3]/", "", ErrHost},
	{"IPv6 empty port", "http://[::1]:/", "http://[::1]/", nil},
	{"IPv6 all zero", "http://[0:0::0]/", "http://[::]/", nil},

	// Userinfo.
	{"userinfo kept", "http://user:pass@example.com/", "http://user:pass@example.com/", nil},
	{"userinfo keeps case", "http://User:Pass@Example.com/", "http://User:Pass@example.com/", nil},
	{"empty userinfo", "http://@example.com/", "http://example.com/", nil},
	{"empty user and password", "http://:@example.com/", "http://example.com/", nil},
	{"empty password", "http://user:@example.com/", "http://user@example.com/", nil},
	{"at in userinfo", "http://a@b@example.com/", "http://a%40b@example.com/", nil},
	{"userinfo escapes", "http://u%7e:p%3a@h/", "http://u~:p%3A@h/", nil},
	{"colon in password", "http://u:p:q@h/", "http://u:p%3Aq@h/", nil},
	{"space in userinfo", "http://us er@h/", "http://us%20er@h/", nil},
	{"password only", "http://:pw@h/", "http://:pw@h/", nil},
	{"userinfo escapes of sub-delims decoded", "http://%21%41%2a:%28p%29%3D@h/", "http://!A*:(p)=@h/", nil}, // fuzz
	{"userinfo stray percent", "http://u%:p%2@h/", "http://u%25:p%252@h/", nil},
	{"userinfo escaped percent", "http://u%25:p%2541@h/", "http://u%25:p%2541@h/", nil},
	{"userinfo escaped delimiters kept", "http://u%40%2F%3F:p%3A%5B@h/", "http://u%40%2F%3F:p%3A%5B@h/", nil},

	// Length.
	{"too long", "http://a/" + strings.Repeat("x", MaxLength), "", ErrTooLong},
	{"too long after encoding", "http://a/" + strings.Repeat("é", MaxLength/3), "", ErrTooLong},
	{"far too long", strings.Repeat("x", 4*MaxLength+1), "", ErrTooLong},
}

func runCases(t *testing.T, c *Canonicalizer, cases []tcase) {
	t.Helper()
	seen := make(map[string]bool)
	for _, tc := range cases {
		if seen[tc.name] {
			t.Errorf("duplicate case name %q", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Canonical(tc.in)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Canonical(%q) = %q, %v; want error %v", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Canonical(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			// Fixed point, and recognized by the fast path when possible.
			again, err := c.Canonical(got)
			if err != nil || again != got {
				t.Fatalf("Canonical(%q) = %q, %v; not a fixed point", got, again, err)
			}
			if _, err := url.Parse(got); err != nil {
				t.Errorf("url.Parse(%q): %v", got, err)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	runCases(t, &Canonicalizer{}, coreCases)
}

func TestCanonicalNil(t *testing.T) {
	var c *Canonicalizer
	got, err := c.Canonical("HTTP://A/")
	if err != nil || got != "http://a/" {
		t.Fatalf("nil Canonicalizer: got %q, %v", got, err)
	}
}

func TestOptional(t *testing.T) {
	tests := []struct {
		name  string
		c     Canonicalizer
		cases []tcase
	}{
		{"SortQuery", Canonicalizer{SortQuery: true}, []tcase{
			{"sorted", "http://a/?b=2&a=1", "http://a/?a=1&b=2", nil},
			{"stable", "http://a/?b=2&a=1&b=1", "http://a/?a=1&b=2&b=1", nil},
			{"semicolon not separator", "http://a/?b=1;a=2&a=1", "http://a/?a=1&b=1;a=2", nil},
			{"after normalization", "http://a/?a=%7e&A=1", "http://a/?A=1&a=~", nil},
			{"key without value", "http://a/?c&b=1&a", "http://a/?a&b=1&c", nil},
			{"already sorted", "http://a/?a=1&b=2", "http://a/?a=1&b=2", nil},
			{"empty params kept", "http://a/?b&&a", "http://a/?&a&b", nil},
			{"prefix key first", "http://a/?ab=1&a=2", "http://a/?a=2&ab=1", nil},
			{"empty query", "http://a/?", "http://a/?", nil},
		}},
		{"StripSessionIDs", Canonicalizer{StripSessionIDs: true}, []tcase{
			{"jsessionid", "http://a/p?jsessionid=1&x=2", "http://a/p?x=2", nil},
			{"PHPSESSID last", "http://a/p?x=2&PHPSESSID=abc", "http://a/p?x=2", nil},
			{"only sid", "http://a/p?sid=1", "http://a/p", nil},
			{"sid2 kept", "http://a/p?sid2=1&x=1", "http://a/p?sid2=1&x=1", nil},
			{"xsid kept", "http://a/p?xsid=1", "http://a/p?xsid=1", nil},
			{"SessionID any case", "http://a/p?SessionID=x&y", "http://a/p?y", nil},
			{"aspsessionid prefix", "http://a/p?ASPSESSIONIDQQGGGNCG=abc&a=1", "http://a/p?a=1", nil},
			{"cfid cftoken", "http://a/p?cfid=1&cftoken=2&q=3", "http://a/p?q=3", nil},
			{"value named sid kept", "http://a/p?x=sid", "http://a/p?x=sid", nil},
			{"encoded name", "http://a/p?s%69d=1&x", "http://a/p?x", nil},
			{"path jsessionid", "http://a/a;jsessionid=ABC?x=1", "http://a/a?x=1", nil},
			{"path JSESSIONID mid", "http://a/a;JSESSIONID=ABC/b", "http://a/a/b", nil},
			{"path param kept", "http://a/a;x=1;jsessionid=2;y=3", "http://a/a;x=1;y=3", nil},
			{"path other param kept", "http://a/a;x=1", "http://a/a;x=1", nil},
			{"empty query kept", "http://a/?", "http://a/?", nil},
			{"only empty params left", "http://a/?&sid=1", "http://a/", nil},
			{"semicolon in query not separator", "http://a/?x=1;sid=2", "http://a/?x=1;sid=2", nil},
		}},
		{"MergeSlashes", Canonicalizer{MergeSlashes: true}, []tcase{
			{"runs", "http://a//b///c/", "http://a/b/c/", nil},
			{"before dots", "http://a/b//../c", "http://a/c", nil},
			{"query untouched", "http://a/?x//y", "http://a/?x//y", nil},
			{"backslashes", "http://a/b\\\\c", "http://a/b/c", nil},
		}},
		{"StripTrailingDot", Canonicalizer{StripTrailingDot: true}, []tcase{
			{"one", "http://example.com./", "http://example.com/", nil},
			{"two", "http://example.com../", "http://example.com/", nil},
			{"with port", "http://example.com.:81/", "http://example.com:81/", nil},
			{"IPv4", "http://1.2.3.4./", "http://1.2.3.4/", nil},
			{"only dot", "http://./", "", ErrHost},
			{"dots then number", "http:0..", "http://0.0.0.0/", nil}, // fuzz
			{"IPv4 two dots", "http://1.2.3.4../", "http://1.2.3.4/", nil},
		}},
		{"DropEmptyQuery", Canonicalizer{DropEmptyQuery: true}, []tcase{
			{"bare", "http://a/?", "http://a/", nil},
			{"bare with fragment", "http://a/?#x", "http://a/", nil},
			{"non-empty kept", "http://a/?x", "http://a/?x", nil},
		}},
		{"IgnoreParams", Canonicalizer{IgnoreParams: ignoreOnA}, []tcase{
			{"dropped on a", "http://a/p?utm_source=x&id=1", "http://a/p?id=1", nil},
			{"only one", "http://a/p?utm_source=x", "http://a/p", nil},
			{"other host kept", "http://b/p?utm_source=x&id=1", "http://b/p?utm_source=x&id=1", nil},
			{"case-sensitive", "http://a/p?UTM_SOURCE=x", "http://a/p?UTM_SOURCE=x", nil},
			{"key without value", "http://a/p?ref&x", "http://a/p?x", nil},
			{"value named so kept", "http://a/p?x=ref", "http://a/p?x=ref", nil},
			{"under /keep/ none", "http://a/keep/p?ref=1", "http://a/keep/p?ref=1", nil},
		}},
		{"all", Canonicalizer{SortQuery: true, StripSessionIDs: true, MergeSlashes: true, StripTrailingDot: true, DropEmptyQuery: true}, []tcase{
			{"everything", "HTTP://Example.COM.:80//a//b/;jsessionid=1/../c?z=1&sid=2&a=%7e#f", "http://example.com/a/c?a=~&z=1", nil},
			{"all stripped", "http://a/?sid=1&cfid=2", "http://a/", nil},
			{"empty", "http://a/?", "http://a/", nil},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runCases(t, &tt.c, tt.cases)
		})
	}
}

// ignoreOnA is an IgnoreParams hook: on host a, outside /keep/, the
// parameters utm_source and ref go.
func ignoreOnA(u string) []string {
	if strings.HasPrefix(u, "http://a/") && !strings.HasPrefix(u, "http://a/keep/") {
		return []string{"utm_source", "ref"}
	}
	return nil
}

// TestPairs checks URL pairs that must, or must never, merge.
func TestPairs(t *testing.T) {
	var c Canonicalizer
	for _, tt := range mergePairs {
		ca, erra := c.Canonical(tt.a)
		cb, errb := c.Canonical(tt.b)
		if erra != nil || errb != nil {
			t.Errorf("%q, %q: errors %v, %v", tt.a, tt.b, erra, errb)
			continue
		}
		if (ca == cb) != tt.merge {
			t.Errorf("%q -> %q, %q -> %q: merged = %v, want %v", tt.a, ca, tt.b, cb, ca == cb, tt.merge)
		}
	}
}

var mergePairs = []struct {
	a, b  string
	merge bool
}{
	{"http://example.com", "HTTP://EXAMPLE.COM:80/", true},
	{"http://a/%7Efoo", "http://a/~foo", true},
	{"http://a/b/../c", "http://a/c", true},
	{"http://3279880203/", "http://195.127.0.11/", true},
	{"http://0xC3.0177.0.11/", "http://195.127.0.11/", true},
	{"http://[::1]/", "http://[0::01]/", true},
	{"http://münchen.de/", "http://xn--mnchen-3ya.de/", true},
	{"http://a/?q=%2a", "http://a/?q=%2A", true},
	{"http://a/a b", "http://a/a%20b", true},
	{"http://a/#x", "http://a/#y", true},
	{"http://a/%", "http://a/%25", true},
	{"http://a/a%2Fb", "http://a/a/b", false},
	{"http://a/", "https://a/", false},
	{"http://www.a/", "http://a/", false},
	{"http://a/b", "http://a/b/", false},
	{"http://a/B", "http://a/b", false},
	{"http://a/?q=A", "http://a/?q=a", false},
	{"http://a/?a=1&b=2", "http://a/?b=2&a=1", false},
	{"http://a/?", "http://a/", false},
	{"http://a/%3F", "http://a/?", false},
	{"http://a/+", "http://a/%20", false},
	{"http://a/?q=+", "http://a/?q=%20", false},
	{"http://a/?q=%2B", "http://a/?q=+", false},
	{"http://a:8080/", "http://a/", false},
	{"http://u@a/", "http://a/", false},
	{"http://a/b;c", "http://a/b%3Bc", false},
	{"http://a./", "http://a/", false},
	{"http://a/%2E%2E/", "http://a/%252E%252E/", false},
	{"http://a/?x=%26", "http://a/?x=&", false},
	{"http://a/[x]", "http://a/%5Bx%5D", true},                          // issue 46: one spelling, %5B%5D
	{"http://a/?q[a]=1", "http://a/?q%5ba%5d=1", true},                  // issue 46
	{"http://[::ffff:192.168.1.1]/", "http://[::ffff:c0a8:101]/", true}, // issue 46
	{"http://[::ffff:1.2.3.4]/", "http://[::1.2.3.4]/", false},
	{"http://a/?sid=1", "http://a/", false},
	{"http://a/%3A", "http://a/:", false},
	{"http://a/%2B", "http://a/+", false},
	{"http://a/%26", "http://a/&", false},
	{"http://a/x%3Dy", "http://a/x=y", false},
	{"http://a/%40", "http://a/@", false},
	{"http://a/%24", "http://a/$", false},
	{"http://a/?q=%3D", "http://a/?q==", false},
	{"http://a/a%2F..%2Fb", "http://a/b", false},
	{"http://a/%20", "http://a/", false},
	{"http://a/\\b", "http://a//b", true},
	{"http://a/%E9", "http://a/%C3%A9", false},
	{"http://[::1]/", "http://[::2]/", false},
	{"http://0x7f.1/", "http://127.0.0.1/", true},
	{"http://example.com:8080/", "http://example.com:08080/", true},
}

// resolveCases are resolved against rfcBase (RFC 3986 §5.4).
const rfcBase = "http://a/b/c/d;p?q"

var resolveCases = []tcase{
	// RFC 3986 §5.4.1 normal examples.
	{"g:h", "g:h", "", ErrScheme},
	{"g", "g", "http://a/b/c/g", nil},
	{"./g", "./g", "http://a/b/c/g", nil},
	{"g/", "g/", "http://a/b/c/g/", nil},
	{"/g", "/g", "http://a/g", nil},
	{"//g", "//g", "http://g/", nil},
	{"?y", "?y", "http://a/b/c/d;p?y", nil},
	{"g?y", "g?y", "http://a/b/c/g?y", nil},
	{"#s", "#s", "http://a/b/c/d;p?q", nil},
	{"g#s", "g#s", "http://a/b/c/g", nil},
	{"g?y#s", "g?y#s", "http://a/b/c/g?y", nil},
	{";x", ";x", "http://a/b/c/;x", nil},
	{"g;x", "g;x", "http://a/b/c/g;x", nil},
	{"g;x?y#s", "g;x?y#s", "http://a/b/c/g;x?y", nil},
	{"empty", "", "http://a/b/c/d;p?q", nil},
	{".", ".", "http://a/b/c/", nil},
	{"./", "./", "http://a/b/c/", nil},
	{"..", "..", "http://a/b/", nil},
	{"../", "../", "http://a/b/", nil},
	{"../g", "../g", "http://a/b/g", nil},
	{"../..", "../..", "http://a/", nil},
	{"../../", "../../", "http://a/", nil},
	{"../../g", "../../g", "http://a/g", nil},
	// RFC 3986 §5.4.2 abnormal examples.
	{"../../../g", "../../../g", "http://a/g", nil},
	{"../../../../g", "../../../../g", "http://a/g", nil},
	{"/./g", "/./g", "http://a/g", nil},
	{"/../g", "/../g", "http://a/g", nil},
	{"g.", "g.", "http://a/b/c/g.", nil},
	{".g", ".g", "http://a/b/c/.g", nil},
	{"g..", "g..", "http://a/b/c/g..", nil},
	{"..g", "..g", "http://a/b/c/..g", nil},
	{"./../g", "./../g", "http://a/b/g", nil},
	{"./g/.", "./g/.", "http://a/b/c/g/", nil},
	{"g/./h", "g/./h", "http://a/b/c/g/h", nil},
	{"g/../h", "g/../h", "http://a/b/c/h", nil},
	{"g;x=1/./y", "g;x=1/./y", "http://a/b/c/g;x=1/y", nil},
	{"g;x=1/../y", "g;x=1/../y", "http://a/b/c/y", nil},
	{"g?y/./x", "g?y/./x", "http://a/b/c/g?y/./x", nil},
	{"g?y/../x", "g?y/../x", "http://a/b/c/g?y/../x", nil},
	{"g#s/./x", "g#s/./x", "http://a/b/c/g", nil},
	{"g#s/../x", "g#s/../x", "http://a/b/c/g", nil},
	{"http:g", "http:g", "http://a/b/c/g", nil}, // WHATWG, RFC's non-strict parsers
	// Browser behaviour.
	{"HTTP:g", "HTTP:g", "http://a/b/c/g", nil},
	{"http:/g", "http:/g", "http://a/g", nil},
	{"http://g", "http://g", "http://g/", nil},
	{"http:\\\\g\\h", "http:\\\\g\\h", "http://g/h", nil},
	{"https:g", "https:g", "https://g/", nil},
	{"https:/g", "https:/g", "https://g/", nil},
	{"absolute", "https://Example.com/x/../y", "https://example.com/y", nil},
	{"absolute canonical", "http://example.com/x", "http://example.com/x", nil},
	{"backslashes network path", "\\\\g\\h", "http://g/h", nil},
	{"slash backslash", "/\\g", "http://g/", nil},
	{"backslash absolute path", "\\g", "http://a/g", nil},
	{"three slashes", "///g", "http://g/", nil},
	{"spaces around", "  g  ", "http://a/b/c/g", nil},
	{"newline around", "\n\tg\r\n", "http://a/b/c/g", nil},
	{"tab inside", "g\tx", "http://a/b/c/gx", nil},
	{"javascript", "javascript:void(0)", "", ErrScheme},
	{"javascript upper", " JavaScript:void(0)", "", ErrScheme},
	{"mailto", "mailto:x@y.z", "", ErrScheme},
	{"tel", "tel:+1555", "", ErrScheme},
	{"data", "data:image/png;base64,AAAA", "", ErrScheme},
	{"bare query", "?", "http://a/b/c/d;p?", nil},
	{"bare fragment", "#", "http://a/b/c/d;p?q", nil},
	{"spaces only", "   ", "http://a/b/c/d;p?q", nil},
	{"colon later in path", "g:h/x", "", ErrScheme},
	{"digit first is a path", "1g:h", "http://a/b/c/1g:h", nil},
	{"dot slash colon", "./g:h", "http://a/b/c/g:h", nil},
	{"encoding in ref", "a b/é?q=é", "http://a/b/c/a%20b/%C3%A9?q=%C3%A9", nil},
	{"network path with port", "//G:80/x", "http://g/x", nil},
	{"network path bad host", "//a b/", "", ErrHost},
	{"network path empty host", "//", "", ErrHost},
	{"query then fragment", "?y#z", "http://a/b/c/d;p?y", nil},
	{"encoded dot segments", "%2e%2e/g", "http://a/b/g", nil},
}

func TestResolve(t *testing.T) {
	base, err := url.Parse(rfcBase)
	if err != nil {
		t.Fatal(err)
	}
	var c Canonicalizer
	for _, tc := range resolveCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Resolve(base, tc.in)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Resolve(%q) = %q, %v; want error %v", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Resolve(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			if again, err := c.Canonical(got); err != nil || again != got {
				t.Fatalf("Canonical(%q) = %q, %v; not a fixed point", got, again, err)
			}
		})
	}
}

func TestResolveBases(t *testing.T) {
	var c Canonicalizer
	tests := []struct {
		name, base, ref, want string
		err                   error
	}{
		{"https network path", "https://a/b", "//g/x", "https://g/x", nil},
		{"https same scheme", "https://a/b/c", "https:g", "https://a/b/g", nil},
		{"http on https base", "https://a/b/c", "http:g", "http://g/", nil},
		{"non-canonical base", "HTTP://A:80/b/./c?x#f", "d", "http://a/b/d", nil},
		{"non-canonical base query", "HTTP://A:80/b/./c?x#f", "", "http://a/b/c?x", nil},
		{"base without path", "http://a", "g", "http://a/g", nil},
		{"base without path query", "http://a", "?x", "http://a/?x", nil},
		{"base with userinfo", "http://u:p@a/b", "c", "http://u:p@a/c", nil},
		{"base with sub-delims in userinfo", "http://!@a/", "", "http://!@a/", nil}, // fuzz: not "%21@"
		{"base with escaped userinfo", "http://%21:%2A%3A@a/b", "c", "http://!:*%3A@a/c", nil},
		{"base with port", "http://a:8080/b/", "c", "http://a:8080/b/c", nil},
		{"base IPv6", "http://[::1]/b/", "c", "http://[::1]/b/c", nil},
		{"base encoded slash", "http://a/x%2Fy/z", "w", "http://a/x%2Fy/w", nil},
		{"base escaped unreserved", "http://a/%7Ex/z", "w", "http://a/~x/w", nil},
		{"base non-ASCII raw", "http://a/café/z", "w", "http://a/caf%C3%A9/w", nil},
		{"base escaped percent", "http://a/%2541/z", "w", "http://a/%2541/w", nil},
		{"base parens", "http://a/(x)/z", "w", "http://a/(x)/w", nil},
		{"base space", "http://a/x%20y/z", "w", "http://a/x%20y/w", nil},
		{"base raw bang and space", "http://a/x! y/z", "w", "http://a/x!%20y/w", nil}, // fuzz: not "%21"
		{"base force query", "http://a/b?", "", "http://a/b?", nil},
		{"opaque base", "http:a/b/c", "d", "http://a/b/d", nil},
		{"mailto base", "mailto:x@y", "g", "", ErrScheme},
		{"mailto base absolute ref", "mailto:x@y", "http://g/", "http://g/", nil},
		{"relative base", "/x/y", "g", "", ErrScheme},
		{"base IDN", "http://münchen.de/a/b", "c", "http://xn--mnchen-3ya.de/a/c", nil},
		{"base brackets", "http://a/[x]/z?q[]=1", "", "http://a/%5Bx%5D/z?q%5B%5D=1", nil},     // issue 46
		{"base bracket escapes", "http://a/%5Bx%5D/z", "w[]", "http://a/%5Bx%5D/w%5B%5D", nil}, // issue 46
		{"base mapped IPv6", "http://[::ffff:192.168.1.1]/b", "c", "http://[::ffff:c0a8:101]/c", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := url.Parse(tt.base)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Resolve(base, tt.ref)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Resolve(%q, %q) = %q, %v; want error %v", tt.base, tt.ref, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Resolve(%q, %q) = %q, %v; want %q", tt.base, tt.ref, got, err, tt.want)
			}
		})
	}
	// A base with no host serializes as "http:///x", which parses as host x.
	if got, err := c.Resolve(&url.URL{Scheme: "http", Path: "/x/y"}, "g"); err != nil || got != "http://x/g" {
		t.Errorf("Resolve(host-less base) = %q, %v", got, err)
	}
	// Hand-built bases whose path lacks the leading slash.
	hand := &url.URL{Scheme: "https", Host: "h", Path: "a/b", RawQuery: "q"}
	for ref, want := range map[string]string{"": "https://h/a/b?q", "c": "https://h/a/c", "?x": "https://h/a/b?x"} {
		if got, err := c.Resolve(hand, ref); err != nil || got != want {
			t.Errorf("Resolve(%v, %q) = %q, %v; want %q", hand, ref, got, err, want)
		}
	}
	var nilC *Canonicalizer
	if got, err := nilC.Resolve(nil, "HTTP://G"); err != nil || got != "http://g/" {
		t.Errorf("nil Canonicalizer: Resolve = %q, %v", got, err)
	}
	if _, err := c.Resolve(nil, "//g/"); !errors.Is(err, ErrScheme) {
		t.Errorf("Resolve(nil, network path) error = %v, want ErrScheme", err)
	}
	if _, err := c.Resolve(nil, strings.Repeat("a", 4*MaxLength+1)); !errors.Is(err, ErrTooLong) {
		t.Errorf("Resolve(nil, huge) error = %v, want ErrTooLong", err)
	}
	// A nil base works for absolute refs only.
	if got, err := c.Resolve(nil, "HTTP://G"); err != nil || got != "http://g/" {
		t.Errorf("Resolve(nil, abs) = %q, %v", got, err)
	}
	if _, err := c.Resolve(nil, "g"); !errors.Is(err, ErrScheme) {
		t.Errorf("Resolve(nil, rel) error = %v, want ErrScheme", err)
	}
}

func TestHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://example.com/", "example.com"},
		{"http://example.com:8080/a", "example.com:8080"},
		{"https://u:p@example.com/", "example.com"},
		{"http://[::1]:81/", "[::1]:81"},
		{"http://a?x", "a"},
		{"http://a", "a"},
		{"example.com/a", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Host(tt.in); got != tt.want {
			t.Errorf("Host(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = Host("http://example.com:8080/a") }); n != 0 {
		t.Errorf("Host allocates %v times", n)
	}
}

func TestPathQuery(t *testing.T) {
	tests := []struct{ in, path, query string }{
		{"http://example.com/", "/", ""},
		{"http://example.com:8080/a/b?x=1&y", "/a/b", "x=1&y"},
		{"https://u:p@example.com/p?q#frag", "/p", "q"},
		{"http://a?x/y", "", "x/y"},
		{"http://a#f?g", "", ""},
		{"http://a", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		if path, query := PathQuery(tt.in); path != tt.path || query != tt.query {
			t.Errorf("PathQuery(%q) = %q, %q; want %q, %q", tt.in, path, query, tt.path, tt.query)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = PathQuery("http://example.com:8080/a?b") }); n != 0 {
		t.Errorf("PathQuery allocates %v times", n)
	}
}

func TestFingerprint(t *testing.T) {
	// Pinned: fingerprints are persisted, so they must never change.
	tests := []struct {
		in   string
		want uint64
	}{
		{"", 0x2d06800538d394c2},
		{"http://example.com/", 0xb97a010e03af1e2b},
	}
	for _, tt := range tests {
		if got := Fingerprint(tt.in); got != tt.want {
			t.Errorf("Fingerprint(%q) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
}

func TestErrors(t *testing.T) {
	var c Canonicalizer
	_, err := c.Canonical("http://a b/" + strings.Repeat("x", 500))
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrHost) {
		t.Fatalf("error %v (%T) is not an *Error wrapping ErrHost", err, err)
	}
	if len(e.URL) > 110 {
		t.Errorf("URL in error not truncated: %d bytes", len(e.URL))
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "canon: invalid host") {
		t.Errorf("message %q", msg)
	}
}

// TestHostile runs large adversarial inputs (each bounded by MaxLength;
// each takes at most a few milliseconds).
func TestHostile(t *testing.T) {
	c := &Canonicalizer{SortQuery: true, StripSessionIDs: true, MergeSlashes: true}
	tests := []struct {
		in   string
		want string
		err  error
	}{
		{"http://" + strings.Repeat("é", 16000) + "/", "", ErrTooLong},
		{"http://" + strings.Repeat("xn--ls8h.", 3000) + "/", "", ErrTooLong},
		{"http://a/" + strings.Repeat("../", 10000), "http://a/", nil},
		{"http://a/" + strings.Repeat("a/", 5000) + strings.Repeat("../", 5000), "http://a/", nil},
		{"http://a/?" + strings.Repeat("b=1&a=2&", 4000), "", ErrTooLong},
		{"http://a/x" + strings.Repeat(";jsessionid=1", 2400), "http://a/x", nil},
		{"http://a/" + strings.Repeat("%", 32000), "", ErrTooLong},
		{"http://" + strings.Repeat("1.", 16000) + "/", "", ErrHost},
		{"http://[" + strings.Repeat("1:", 16000) + "]/", "", ErrHost},
	}
	for _, tt := range tests {
		got, err := c.Canonical(tt.in)
		if tt.err != nil && !errors.Is(err, tt.err) || tt.err == nil && (err != nil || got != tt.want) {
			t.Errorf("Canonical(%.30q...) = %.30q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
		var e *Error
		if errors.As(err, &e) && !utf8.ValidString(e.URL) {
			t.Errorf("error URL %q cut inside a rune", e.URL)
		}
	}
}

// TestConcurrent uses one Canonicalizer from several goroutines (run with
// -race).
func TestConcurrent(t *testing.T) {
	c := &Canonicalizer{SortQuery: true, StripSessionIDs: true}
	base, _ := url.Parse(rfcBase)
	done := make(chan bool)
	for range 4 {
		go func() {
			defer func() { done <- true }()
			for _, tc := range resolveCases {
				got, err := c.Resolve(base, tc.in)
				if tc.err == nil && (err != nil || got != tc.want) {
					t.Errorf("Resolve(%q) = %q, %v", tc.in, got, err)
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
}

// TestAllocs checks the fast paths stay allocation-free.
func TestAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	c := &Canonicalizer{SortQuery: true, StripSessionIDs: true}
	in := "https://www.example.com/a/b-c/d.html?a=1&b=%2F"
	if n := testing.AllocsPerRun(100, func() { _, _ = c.Canonical(in) }); n != 0 {
		t.Errorf("Canonical(canonical) allocates %v times", n)
	}
	base, _ := url.Parse("https://www.example.com/a-rather-long-directory/with-more-than/32-bytes/")
	if n := testing.AllocsPerRun(100, func() { _, _ = c.Resolve(base, "../c/d.html?x=1") }); n > 1 {
		t.Errorf("Resolve(relative) allocates %v times", n)
	}
	escBase, _ := url.Parse("https://www.example.com/caf%C3%A9/a%2Fb/(x)/")
	if n := testing.AllocsPerRun(100, func() { _, _ = c.Resolve(escBase, "d.html") }); n > 1 {
		t.Errorf("Resolve(relative, base with escapes) allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = c.Canonical("HTTP://www.Example.com/a/./b") }); n > 1 {
		t.Errorf("Canonical(non-canonical) allocates %v times", n)
	}
}
