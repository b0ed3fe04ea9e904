package canon

import (
	"errors"
	"testing"
)

// safeBrowsingCases take their inputs from the canonicalization examples of
// Google Safe Browsing's "URLs and hashing" documentation. The expected
// outputs are canon's, which differ from Safe Browsing's on purpose where
// Safe Browsing merges distinct pages: it unescapes repeatedly (so
// "%25%32%35" becomes "%"; canon decodes unreserved escapes once and keeps
// "%25"), drops ports, and repairs hosts that browsers reject.
var safeBrowsingCases = []struct {
	in, want string
	err      error
}{
	{"http://host/%25%32%35", "http://host/%2525", nil},
	{"http://host/%25%32%35%25%32%35", "http://host/%2525%2525", nil},
	{"http://host/%2525252525252525", "http://host/%2525252525252525", nil},
	{"http://host/asdf%25%32%35asd", "http://host/asdf%2525asd", nil},
	{"http://host/%%%25%32%35asd%%", "http://host/%25%25%2525asd%25%25", nil},
	{"http://www.google.com/", "http://www.google.com/", nil},
	{"http://%31%36%38%2e%31%38%38%2e%39%39%2e%32%36/%2E%73%65%63%75%72%65/%77%77%77%2E%65%62%61%79%2E%63%6F%6D/",
		"http://168.188.99.26/.secure/www.ebay.com/", nil},
	{"http://195.127.0.11/uploads/%20%20%20%20/.verify/.eBaysecure=updateuserdataxplimnbqmn-xplmvalidateinfoswqpcmlx=hgplmcx/",
		"http://195.127.0.11/uploads/%20%20%20%20/.verify/.eBaysecure=updateuserdataxplimnbqmn-xplmvalidateinfoswqpcmlx=hgplmcx/", nil},
	{"http://host%23.com/%257Ea%2521b%2540c%2523d%2524e%25f%255E00%252611%252A22%252833%252944_55%252B", "", ErrHost},
	{"http://3279880203/blah", "http://195.127.0.11/blah", nil},
	{"http://www.google.com/blah/..", "http://www.google.com/", nil},
	{"www.google.com/", "", ErrScheme},
	{"www.google.com", "", ErrScheme},
	{"http://www.evil.com/blah#frag", "http://www.evil.com/blah", nil},
	{"http://www.GOOgle.com/", "http://www.google.com/", nil},
	{"http://www.google.com/foo\tbar\rbaz\n2", "http://www.google.com/foobarbaz2", nil},
	{"http://www.google.com/q?", "http://www.google.com/q?", nil},
	{"http://www.google.com/q?r?", "http://www.google.com/q?r?", nil},
	{"http://www.google.com/q?r?s", "http://www.google.com/q?r?s", nil},
	{"http://evil.com/foo#bar#baz", "http://evil.com/foo", nil},
	{"http://evil.com/foo;", "http://evil.com/foo;", nil},
	{"http://evil.com/foo?bar;", "http://evil.com/foo?bar;", nil},
	{"http://\x01\x80.com/", "", ErrHost},
	{"http://notrailingslash.com", "http://notrailingslash.com/", nil},
	{"http://www.gotaport.com:1234/", "http://www.gotaport.com:1234/", nil},
	{"  http://www.google.com/  ", "http://www.google.com/", nil},
	{"http:// leadingspace.com/", "", ErrHost},
	{"http://%20leadingspace.com/", "", ErrHost},
	{"%20leadingspace.com/", "", ErrScheme},
	{"https://www.securesite.com/", "https://www.securesite.com/", nil},
	{"http://host.com/ab%23cd", "http://host.com/ab%23cd", nil},
	{"http://host.com//twoslashes?more//slashes", "http://host.com//twoslashes?more//slashes", nil},
}

func TestSafeBrowsingCases(t *testing.T) {
	var c Canonicalizer
	for _, tc := range safeBrowsingCases {
		got, err := c.Canonical(tc.in)
		switch {
		case tc.err != nil && !errors.Is(err, tc.err):
			t.Errorf("Canonical(%q) = %q, %v; want error %v", tc.in, got, err, tc.err)
		case tc.err == nil && (err != nil || got != tc.want):
			t.Errorf("Canonical(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	// With the optional rules, Safe Browsing's merges that are safe for a
	// crawler to make.
	opt := Canonicalizer{MergeSlashes: true, StripTrailingDot: true}
	for in, want := range map[string]string{
		"http://host.com//twoslashes?more//slashes": "http://host.com/twoslashes?more//slashes",
		"http://www.google.com.../":                 "http://www.google.com/",
	} {
		if got, err := opt.Canonical(in); err != nil || got != want {
			t.Errorf("optional rules: Canonical(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
