package htmlattr_test

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"crawler/internal/htmlattr"
)

// Attributes are found in any case, those of a foreign namespace not, and
// an empty value is had all the same.
func TestLookup(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<input NAME="q" checked value=""><svg><a xlink:href="/x"></a></svg>`))
	if err != nil {
		t.Fatal(err)
	}
	var input, link *html.Node
	for n := range doc.Descendants() {
		switch n.Data {
		case "input":
			input = n
		case "a":
			link = n
		}
	}
	if v, ok := htmlattr.Lookup(input, "Name"); v != "q" || !ok {
		t.Errorf("Lookup(name) = %q, %v; want q, true", v, ok)
	}
	if !htmlattr.Has(input, "checked") || htmlattr.Get(input, "checked") != "" || !htmlattr.Has(input, "value") {
		t.Error("checked or value: want present and empty")
	}
	if htmlattr.Has(input, "type") || htmlattr.Get(input, "type") != "" {
		t.Error("type: want absent")
	}
	if htmlattr.Has(link, "href") {
		t.Error("xlink:href found as href")
	}
}
