package extract_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"crawler"
	"crawler/extract"
)

// parse parses an HTML body as a page of http://example.test/dir/page.
func parse(tb testing.TB, body string) *extract.Document {
	tb.Helper()
	d, err := extract.Parse(&crawler.Page{URL: "http://example.test/dir/page", ContentType: "text/html; charset=utf-8", Body: []byte(body)})
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		in, name, selector string
	}{
		{"title=h1", "title", "h1"},
		{" a-b_1 =  h1, h2 ", "a-b_1", "h1, h2"},
		{"href=a[href='x=y']", "href", "a[href='x=y']"},
		{"prix=.price > span:nth-child(2)", "prix", ".price > span:nth-child(2)"},
		{"café=p", "café", "p"},
	} {
		r, err := extract.ParseRule(tc.in)
		if err != nil || r.Name != tc.name || r.Selector != tc.selector {
			t.Errorf("ParseRule(%q) = %q, %q, %v; want %q, %q", tc.in, r.Name, r.Selector, err, tc.name, tc.selector)
		}
		if r2, err := extract.ParseRule(r.String()); err != nil || r2.String() != r.String() {
			t.Errorf("ParseRule(%q.String()) = %v, %v", tc.in, r2, err)
		}
	}
}

func TestParseRuleErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // in the error
		sel  bool   // a *SelectorError
	}{
		{"", `rule "": want NAME=SELECTOR, found no '='`, false},
		{"h1", `rule "h1": want NAME=SELECTOR, found no '='`, false},
		{"=h1", `rule "=h1": no name before '='`, false},
		{"  =h1", `no name before '='`, false},
		{"the title=h1", `rule "the title=h1": name "the title" has ' '`, false},
		{"a.b=h1", `name "a.b" has '.'`, false},
		{"title=", `rule "title=": no selector after '='`, false},
		{"title=  ", `no selector after '='`, false},
		{"title=a[", `bad selector "a["`, true},
		{"title=p::before", `bad selector "p::before"`, true},
		{"title=h1,", `bad selector "h1,"`, true},
		{"title=h1 >", `bad selector "h1 >"`, true},
	} {
		_, err := extract.ParseRule(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "extract: ") {
			t.Errorf("ParseRule(%q) = %v, want an error with %q", tc.in, err, tc.want)
			continue
		}
		var se *extract.SelectorError
		if errors.As(err, &se) != tc.sel {
			t.Errorf("ParseRule(%q) = %v: a *SelectorError: %t, want %t", tc.in, err, !tc.sel, tc.sel)
		}
	}
}

func TestBadSelector(t *testing.T) {
	d := parse(t, "<p>x</p>")
	_, err := d.Texts("p[")
	var se *extract.SelectorError
	if !errors.As(err, &se) || se.Selector != "p[" || !strings.Contains(err.Error(), `"p["`) {
		t.Errorf("Texts(p[) = %v, want a *SelectorError naming it", err)
	}
	if _, err := d.Attrs("::x", "href"); !errors.As(err, &se) || se.Selector != "::x" {
		t.Errorf("Attrs(::x) = %v, want a *SelectorError", err)
	}
	if _, err := d.URLs("a >", "href"); !errors.As(err, &se) {
		t.Errorf("URLs(a >) = %v, want a *SelectorError", err)
	}
}

func TestRulesExtract(t *testing.T) {
	d := parse(t, `<h1>One</h1><p class=x>a</p><h2>Two</h2><p>b</p><p class=x></p>`)
	rs := extract.Rules{
		mustRule(t, "head=h1, h2"),
		mustRule(t, "none=blink"),
		mustRule(t, "x=p.x"),
		mustRule(t, "none=marquee"),
		mustRule(t, "p=h1"),
		mustRule(t, "p=p:not(.x)"),
		{Name: "literal", Selector: "h2"},  // compiled on use
		{Name: "bad", Selector: "h2 >"},    // finds nothing
		{Name: "empty", Selector: "table"}, // matches nothing
	}
	got := rs.Extract(d)
	want := map[string][]string{
		"head":    {"One", "Two"},
		"none":    {},
		"x":       {"a", ""},
		"p":       {"One", "b"},
		"literal": {"Two"},
		"bad":     {},
		"empty":   {},
	}
	if len(got) != len(want) {
		t.Errorf("Extract = %q, want %q", got, want)
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok || g == nil || !slices.Equal(g, w) {
			t.Errorf("Extract[%q] = %#v, want %#v", name, g, w)
		}
	}
	// Nothing matches on an empty page; every name is there all the same.
	for name, texts := range rs.Extract(parse(t, " ")) {
		if texts == nil || len(texts) != 0 {
			t.Errorf("Extract(empty page)[%q] = %#v, want an empty slice", name, texts)
		}
	}
	if got := (extract.Rules{}).Extract(d); got == nil || len(got) != 0 {
		t.Errorf("Rules{}.Extract = %#v, want an empty map", got)
	}
}

func TestParseSkips(t *testing.T) {
	for _, tc := range []struct {
		desc  string
		page  crawler.Page
		want  error // nil: parsed
		title string
	}{
		{"html", crawler.Page{ContentType: "text/html", Body: []byte("<title>t</title>")}, nil, "t"},
		{"xhtml", crawler.Page{ContentType: "application/xhtml+xml; charset=utf-8", Body: []byte("<title>t</title>")}, nil, "t"},
		{"sniffed html", crawler.Page{Body: []byte("<!DOCTYPE html><title>t</title>")}, nil, "t"},
		{"from the header", crawler.Page{Header: map[string][]string{"Content-Type": {"TEXT/HTML"}}, Body: []byte("<title>t</title>")}, nil, "t"},
		{"json", crawler.Page{ContentType: "application/json", Body: []byte(`{"<title>": 1}`)}, extract.ErrNotHTML, ""},
		{"text", crawler.Page{ContentType: "text/plain", Body: []byte("<title>t</title>")}, extract.ErrNotHTML, ""},
		{"sniffed png", crawler.Page{Body: []byte("\x89PNG\r\n\x1a\n")}, extract.ErrNotHTML, ""},
		{"sniffed text", crawler.Page{Body: []byte("hello")}, extract.ErrNotHTML, ""},
		{"no body", crawler.Page{ContentType: "text/html"}, extract.ErrNoBody, ""},
		{"fetch error", crawler.Page{Err: errors.New("refused")}, extract.ErrNoBody, ""},
	} {
		tc.page.URL = "http://example.test/"
		d, err := extract.Parse(&tc.page)
		if !errors.Is(err, tc.want) || tc.want == nil && err != nil {
			t.Errorf("%s: Parse: %v, want %v", tc.desc, err, tc.want)
			continue
		}
		if err == nil && d.Title() != tc.title {
			t.Errorf("%s: Title %q, want %q", tc.desc, d.Title(), tc.title)
		}
	}
	if _, err := extract.Parse(&crawler.Page{URL: "http://[::1", ContentType: "text/html", Body: []byte("x")}); err == nil {
		t.Error("Parse of a page with a bad URL succeeded")
	}
}

// Handler calls its function for HTML pages only; a page that does not
// parse is its error.
func TestHandlerSkips(t *testing.T) {
	html := []byte("<title>t</title>")
	deep := []byte(strings.Repeat("<div>", 600))
	for _, tc := range []struct {
		desc   string
		page   crawler.Page
		called bool
		err    bool
	}{
		{"html", crawler.Page{Status: 200, ContentType: "text/html", Body: html}, true, false},
		{"404 html", crawler.Page{Status: 404, ContentType: "text/html", Body: html}, true, false},
		{"with Err", crawler.Page{Err: errors.New("truncated"), ContentType: "text/html", Body: html}, false, false},
		{"not html", crawler.Page{Status: 200, ContentType: "image/png", Body: []byte("\x89PNG")}, false, false},
		{"304", crawler.Page{Status: 304, ContentType: "text/html"}, false, false},
		{"too deep", crawler.Page{Status: 200, ContentType: "text/html", Body: deep}, false, true},
	} {
		tc.page.URL = "http://example.test/"
		called := false
		h := extract.Handler(func(ctx context.Context, p *crawler.Page, d *extract.Document) error {
			called = true
			if d.Title() != "t" {
				t.Errorf("%s: Title %q", tc.desc, d.Title())
			}
			return errors.New("from f")
		})
		err := h.Handle(context.Background(), &tc.page)
		if called != tc.called || (err != nil) != (tc.err || tc.called) {
			t.Errorf("%s: called %t, error %v; want called %t", tc.desc, called, err, tc.called)
		}
	}
}

func TestTexts(t *testing.T) {
	d := parse(t, `<ul>
<li>  plain  </li>
<li><p>two</p><p>blocks</p></li>
<li>with <script>no()</script><style>x{}</style>code</li>
<li>a<br>break</li>
<li>in<b>line</b> &amp; <i>entity</i>&nbsp;</li>
<li></li>
</ul><script id=data>{"json": true}</script>`)
	got, err := d.Texts("li")
	want := []string{"plain", "two blocks", "with code", "a break", "inline & entity", ""}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Texts(li) = %q, %v; want %q", got, err, want)
	}
	// A hidden element that the selector matches shows its own text.
	if got, _ := d.Texts("script#data"); !slices.Equal(got, []string{`{"json": true}`}) {
		t.Errorf("Texts(script#data) = %q", got)
	}
	if got, _ := d.Texts("table"); got == nil || len(got) != 0 {
		t.Errorf("Texts(table) = %#v, want an empty slice", got)
	}
}

func TestAttrsAndURLs(t *testing.T) {
	d := parse(t, `<a href=" x?q=1#f ">x</a><a name=anchor>no href</a><A HREF="/abs">abs</A>
<a href="https://other.test/p">other</a><a href="http://[::1">bad</a><img src="../img.png" alt="&lt;img&gt;">`)
	hrefs, err := d.Attrs("a", "href")
	if want := []string{" x?q=1#f ", "/abs", "https://other.test/p", "http://[::1"}; err != nil || !slices.Equal(hrefs, want) {
		t.Errorf("Attrs(a, href) = %q, %v; want %q", hrefs, err, want)
	}
	urls, err := d.URLs("a", "HREF")
	if want := []string{"http://example.test/dir/x?q=1#f", "http://example.test/abs", "https://other.test/p"}; err != nil || !slices.Equal(urls, want) {
		t.Errorf("URLs(a, HREF) = %q, %v; want %q", urls, err, want)
	}
	if got, _ := d.URLs("img", "src"); !slices.Equal(got, []string{"http://example.test/img.png"}) {
		t.Errorf("URLs(img, src) = %q", got)
	}
	if got, _ := d.Attrs("img", "alt"); !slices.Equal(got, []string{"<img>"}) {
		t.Errorf("Attrs(img, alt) = %q", got)
	}
	if d.URL().String() != "http://example.test/dir/page" {
		t.Errorf("URL() = %v", d.URL())
	}
}

func TestText(t *testing.T) {
	for _, tc := range []struct{ html, want string }{
		{" ", ""},
		{"<p>  a  b  </p><p></p><p>c</p>", "a b\nc"},
		{"<head><title>T</title><script>s()</script></head><body>x</body>", "x"},
		{"<div><div>a</div>b<span>c</span> d</div>", "a\nbc d"},
		{"<pre>  keep\n  lines?  </pre>", "keep lines?"},
		{"a<br><br>b", "a\nb"},
		{"<p>x<!-- comment -->y</p>", "xy"},
		{"<table><tr><td>1</td><td>2</td></tr><tr><td>3</td></tr></table>", "1 2\n3"},
		{"<p>a<template>t</template><noscript>n</noscript><iframe>i</iframe>b</p>", "ab"},
		{"<div hidden><p>h</p></div><p>v</p>", "v"},
		{"<textarea>typed</textarea>", "typed"},
		{"<plaintext><script>x</script>", "<script>x</script>"},
		{"&lt;script&gt;alert(1)&lt;/script&gt;", "<script>alert(1)</script>"},
		{"<svg><style>s</style><script>x</script><text>drawn</text></svg>", "drawn"},
	} {
		if got := parse(t, tc.html).Text(); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.html, got, tc.want)
		}
	}
}

func TestMetadata(t *testing.T) {
	d := parse(t, `<html><head>
<base href="https://cdn.example.test/base/">
<title>First</title><title>Second</title>
<link rel="canonical" href="c?x=1">
<meta property="og:image" content="/img.png">
<meta property="og:image" content="/second.png">
</head></html>`)
	if d.Title() != "First" {
		t.Errorf("Title = %q", d.Title())
	}
	if d.Canonical() != "https://cdn.example.test/base/c?x=1" {
		t.Errorf("Canonical = %q", d.Canonical())
	}
	if og := d.OpenGraph(); len(og) != 1 || og["og:image"] != "/img.png" {
		t.Errorf("OpenGraph = %q", og)
	}
	for _, body := range []string{"<p>none</p>", `<link rel=canonical>`, `<link rel=canonical href="http://[::1">`} {
		d := parse(t, body)
		if d.Title() != "" || d.Description() != "" || d.Canonical() != "" || len(d.OpenGraph()) != 0 || d.JSONLD() != nil {
			t.Errorf("%q: Title %q, Description %q, Canonical %q, OpenGraph %q, JSONLD %q", body, d.Title(), d.Description(), d.Canonical(), d.OpenGraph(), d.JSONLD())
		}
	}
}

// Bodies in other encodings are decoded, from what the page says or, for
// a body that is not UTF-8, from windows-1252.
func TestCharset(t *testing.T) {
	for _, tc := range []struct {
		desc, ctype, body string
	}{
		{"utf-8", "text/html", "<title>Café ☺</title>"},
		{"header", "text/html; charset=ISO-8859-1", "<title>Caf\xe9 \xa4</title>"},
		{"meta", "text/html", `<meta charset="windows-1252"><title>Caf` + "\xe9 \x80</title>"},
		{"no charset, not utf-8", "text/html", "<title>Caf\xe9</title>"},
		{"utf-8 cut at the end", "text/html", "<title>Café</title>☺"[:len("<title>Café</title>☺")-1]},
		{"utf-16 bom", "text/html", "\xff\xfe<\x00t\x00i\x00t\x00l\x00e\x00>\x00C\x00a\x00f\x00\xe9\x00<\x00/\x00t\x00i\x00t\x00l\x00e\x00>\x00"},
	} {
		d, err := extract.Parse(&crawler.Page{URL: "http://example.test/", ContentType: tc.ctype, Body: []byte(tc.body)})
		if err != nil {
			t.Errorf("%s: %v", tc.desc, err)
			continue
		}
		want := map[string]string{"utf-8": "Café ☺", "header": "Café ¤", "meta": "Café €"}[tc.desc]
		if want == "" {
			want = "Café"
		}
		if d.Title() != want {
			t.Errorf("%s: Title %q, want %q", tc.desc, d.Title(), want)
		}
	}
}

func TestJSONLD(t *testing.T) {
	d := parse(t, `<script type="application/ld+json">{"a":1}</script>
<script type="application/ld+json">  [1, 2]  </script>
<script type="application/ld+json">{"a":</script>
<script type="application/ld+json">  </script>
<script type="application/json">{"not": "ld"}</script>
<script type="application/ld+json">"a string"</script>`)
	var got []string
	for _, b := range d.JSONLD() {
		got = append(got, string(b))
	}
	if want := []string{`{"a":1}`, `[1, 2]`, `"a string"`}; !slices.Equal(got, want) {
		t.Errorf("JSONLD = %q, want %q", got, want)
	}
}

func TestDocumentConcurrent(t *testing.T) {
	d := parse(t, strings.Repeat(`<p class=x>a <b>b</b></p><a href="/l">l</a>`, 50))
	want := fmt.Sprint(d.Texts("p.x"))
	done := make(chan string)
	for range 4 {
		go func() {
			d.Text()
			d.URLs("a", "href")
			done <- fmt.Sprint(d.Texts("p.x"))
		}()
	}
	for range 4 {
		if got := <-done; got != want {
			t.Errorf("concurrent Texts = %s, want %s", got, want)
		}
	}
}
