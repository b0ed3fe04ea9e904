package simhash

import (
	"bytes"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// FuzzTagAtom checks tagAtom against the tokenizer's own TagName, for
// every tag of any input.
func FuzzTagAtom(f *testing.F) {
	for _, s := range []string{"<P class=x>", "</p >", "<br/>", "<SCRIPT\t>x</script\n>", "<a\x00b>", "</>", "<template/>",
		"<BlockQuote>", "<figcaption>", "<verylongtagnamebeyondsixteen>", "<p\r>", "</a b='c'>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 1<<12 {
			return
		}
		z := html.NewTokenizer(bytes.NewReader(body))
		for {
			switch tt := z.Next(); tt {
			case html.ErrorToken:
				return
			case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
				raw := bytes.Clone(z.Raw())
				name, _ := z.TagName()
				if got, want := tagAtom(raw), atom.Lookup(name); got != want {
					t.Fatalf("tagAtom(%q) = %v, TagName %q: %v", raw, got, name, want)
				}
			}
		}
	})
}
