package simhash_test

import (
	"bytes"
	"testing"

	"crawler/simhash"
)

// FuzzOfHTML checks that OfHTML accepts any input without panicking and is
// deterministic, and that plain text (no markup, character reference, CR
// or NUL) has the fingerprint of the same text in a paragraph after a
// comment, followed by whitespace.
func FuzzOfHTML(f *testing.F) {
	for _, s := range []string{
		"", "<p>hello world</p>", "<script>", "<script/>x</script>y", "<template><template>a</template>b",
		"</template></a></script>text", "<a href=x>link text</a> more text here", "&amp;&#0;&#x110000;&bogus;",
		"\xff\xfe<p>caf\xc3\xa9 \xe2\x80</p>", "<title>t</title><textarea>a < b</textarea>", "<p>2024-03-07 12,345 h3</p>",
		"<!-- unclosed comment <p>text", "<plaintext><p>all text", "<svg><style>x</style></svg>",
		"<noscript><p>no script</p></noscript><iframe>fallback</iframe><noembed>e</noembed>",
		"<p>ÉCOLE Straße ǅemal ΣΊΣΥΦΟΣ 日本語 e\u0301</p>", "plain text of a few words, and more words after",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 1<<16 {
			return
		}
		fp := simhash.OfHTML(body)
		if again := simhash.OfHTML(bytes.Clone(body)); again != fp {
			t.Fatalf("OfHTML not deterministic: %#x then %#x", fp, again)
		}
		if bytes.ContainsAny(body, "<&\r\x00") {
			return
		}
		wrapped := append(append([]byte("<!-- c --><p>"), body...), "</p> \n"...)
		if got := simhash.OfHTML(wrapped); got != fp {
			t.Fatalf("OfHTML(%q) = %#x, but OfHTML(%q) = %#x", body, fp, wrapped, got)
		}
	})
}
