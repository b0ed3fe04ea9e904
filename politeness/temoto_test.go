package politeness

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/temoto/robotstxt"
)

// TestTemotoComparison measures github.com/temoto/robotstxt v1.1.2, which
// this package used before it had its own parser and matcher, against the
// case table (robotsCases and rfc9309Cases): each body goes to
// robotstxt.FromBytes as is, and each target to TestAgent as a path with
// query (an absolute URL's path and query, the fragment dropped), with the
// case's user agent as is. A body temoto rejects, or an absolute URL that
// does not parse, counts as temoto answering "not allowed". It reports the
// figure (and checks that doc.go quotes it): run it with
//
//	go test -run TestTemotoComparison -v ./politeness
func TestTemotoComparison(t *testing.T) {
	cases := slices.Concat(robotsCases, rfc9309Cases)
	agree := 0
	for _, tt := range cases {
		agent := tt.ua
		if agent == "" {
			agent = ua
		}
		got := false
		if data, err := robotstxt.FromBytes([]byte(tt.body)); err == nil {
			if path, ok := pathAndQuery(tt.target); ok {
				got = data.TestAgent(path, agent)
			}
		}
		if got == tt.want {
			agree++
		} else {
			t.Logf("temoto disagrees: %s: Allowed(%q) = %v, RFC 9309 %v", tt.name, tt.target, got, tt.want)
		}
	}
	// The package documentation quotes the figure.
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("in %d of %d cases", agree, len(cases)); !strings.Contains(strings.ReplaceAll(string(doc), "\n// ", " "), want) {
		t.Errorf("doc.go does not say %q", want)
	}
	t.Logf("temoto agrees with RFC 9309 on %d of %d cases (this package's table: the RFC's answers, and its documented choices where the RFC is silent)", agree, len(cases))
}
