package sites

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"crawler/fetch"
	"crawler/internal/htmlattr"
)

// maxLoginRedirects bounds the redirects a login follows to the page its
// selector is matched on.
const maxLoginRedirects = 5

// attempt makes one login of site, for page: the scripted flow if the
// Policy has one, else the form flow.
func (sf *siteFetcher) attempt(ctx context.Context, site Site, page string) error {
	l := site.Login
	if l == nil {
		return errNoLogin
	}
	var last time.Time // of the login's last request, for the site's pacing
	send := func(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
		if err := sf.robots(ctx, req.URL); err != nil {
			return nil, err
		}
		if err := sf.pace(ctx, site, last); err != nil {
			return nil, err
		}
		defer func() { last = time.Now() }()
		return sf.send(ctx, sf.p.Rules.ForURL(req.URL), req, true)
	}
	if sf.p.Login != nil {
		return sf.p.Login(ctx, &Session{Site: site, URL: page, Fetch: send, Jar: sf.env.Jar})
	}
	return sf.formLogin(ctx, l, send)
}

// robots returns an error if robots.txt disallows u, a login's request.
func (sf *siteFetcher) robots(ctx context.Context, u string) error {
	if sf.env.Robots == nil || sf.p.IgnoresRobots(u) {
		return nil
	}
	pu, err := url.Parse(u)
	if err != nil {
		return err
	}
	rules, _, err := sf.env.Robots.Get(ctx, pu.Scheme+"://"+pu.Host)
	switch {
	case err != nil:
		return fmt.Errorf("robots.txt of %s: %w", pu.Host, err)
	case !rules.Allowed(sf.env.Agent, u):
		return fmt.Errorf("robots.txt disallows %s", u)
	}
	return nil
}

// pace waits until the site's delay (or the crawl's) has passed since
// last, the end of the login's request before; last zero: none.
func (sf *siteFetcher) pace(ctx context.Context, site Site, last time.Time) error {
	if last.IsZero() {
		return nil
	}
	gap := sf.env.Delay
	if site.Delay != nil {
		gap = *site.Delay
	}
	wait := time.Until(last.Add(gap))
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// formLogin fetches the login page, fills its form and submits it, and
// checks l.Success.
func (sf *siteFetcher) formLogin(ctx context.Context, l *Login, send func(context.Context, *fetch.Request) (*fetch.Response, error)) error {
	resp, err := send(ctx, &fetch.Request{URL: l.URL})
	if err != nil {
		return err
	}
	if resp.Status/100 != 2 {
		return fmt.Errorf("the login page answered %d", resp.Status)
	}
	f, err := findForm(resp.Body, l)
	if err != nil {
		return err
	}
	req, err := f.request(l.URL, l.Fields)
	if err != nil {
		return err
	}
	if resp, err = send(ctx, req); err != nil {
		return err
	}
	if c := l.Success.Cookie; c != "" {
		// The answer's redirect is not followed: the page it names is the
		// crawl's to fetch, once.
		if hasCookie(sf.env.Jar, l.URL, c) || hasCookie(sf.env.Jar, req.URL, c) {
			return nil
		}
		return fmt.Errorf("the answer (%d) set no cookie %q", resp.Status, c)
	}
	at := req.URL
	for range maxLoginRedirects {
		if !fetch.IsRedirect(resp.Status) {
			break
		}
		base, _ := url.Parse(at)
		next, err := base.Parse(resp.Header.Get("Location"))
		if err != nil {
			return fmt.Errorf("the answer's redirect: %w", err)
		}
		at = next.String()
		if resp, err = send(ctx, &fetch.Request{URL: at}); err != nil {
			return err
		}
	}
	sel, err := cascadia.Compile(l.Success.Selector)
	if err != nil {
		return err // checked when loading
	}
	doc, err := html.Parse(bytes.NewReader(resp.Body))
	if err != nil || cascadia.Query(doc, sel) == nil {
		return fmt.Errorf("the page after the login (%d, %s) has no %q", resp.Status, at, l.Success.Selector)
	}
	return nil
}

// form is a login form as found: where and how it submits, and the
// values its inputs hold.
type form struct {
	action, method, enctype string
	values                  url.Values
	names                   []string // in document order, for the body
}

// findForm finds l's form in the login page: the one l.Form selects, or
// the page's only form, or the one form holding every field l fills.
func findForm(page []byte, l *Login) (*form, error) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("the login page: %w", err)
	}
	sel := "form"
	if l.Form != "" {
		sel = l.Form
	}
	s, err := cascadia.Compile(sel)
	if err != nil {
		return nil, err // checked when loading
	}
	forms := cascadia.QueryAll(doc, s)
	if l.Form == "" && len(forms) > 1 {
		var holding []*html.Node
		for _, n := range forms {
			if readForm(n).holds(l.Fields) {
				holding = append(holding, n)
			}
		}
		forms = holding
	}
	switch {
	case len(forms) == 0:
		return nil, fmt.Errorf("no form %q on the login page", sel)
	case len(forms) > 1:
		return nil, fmt.Errorf("%d forms on the login page hold the fields: set form, a CSS selector", len(forms))
	}
	f := readForm(forms[0])
	if !f.holds(l.Fields) {
		return nil, fmt.Errorf("the form has no input for each field (it has %s)", strings.Join(f.names, ", "))
	}
	return f, nil
}

// holds reports whether f has an input for each of fields.
func (f *form) holds(fields map[string]string) bool {
	for k := range fields {
		if _, ok := f.values[k]; !ok {
			return false
		}
	}
	return true
}

// readForm reads a form element: its action, method and inputs with the
// values a browser would submit, hidden ones (CSRF tokens) included.
func readForm(n *html.Node) *form {
	f := &form{action: htmlattr.Get(n, "action"), method: strings.ToUpper(htmlattr.Get(n, "method")), enctype: htmlattr.Get(n, "enctype"), values: url.Values{}}
	add := func(name, value string) {
		if _, ok := f.values[name]; !ok {
			f.names = append(f.names, name)
		}
		f.values[name] = append(f.values[name], value)
	}
	submitted := false
	var walk func(*html.Node)
	walk = func(c *html.Node) {
		if c.Type == html.ElementNode {
			name := htmlattr.Get(c, "name")
			switch c.Data {
			case "input":
				switch t := strings.ToLower(htmlattr.Get(c, "type")); t {
				case "submit", "image":
					if name != "" && !submitted {
						add(name, htmlattr.Get(c, "value"))
						submitted = true
					}
				case "button", "reset", "file":
				case "checkbox", "radio":
					if htmlattr.Has(c, "checked") && name != "" {
						add(name, cmp.Or(htmlattr.Get(c, "value"), "on"))
					}
				default:
					if name != "" {
						add(name, htmlattr.Get(c, "value"))
					}
				}
			case "textarea":
				if name != "" {
					add(name, text(c))
				}
			case "select":
				if name != "" {
					add(name, selected(c))
				}
			case "button":
				if t := strings.ToLower(htmlattr.Get(c, "type")); (t == "" || t == "submit") && name != "" && !submitted {
					add(name, htmlattr.Get(c, "value"))
					submitted = true
				}
			}
		}
		for ch := c.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(n)
	return f
}

// request returns the submission of f, found on the page at pageURL, with
// fields filled in.
func (f *form) request(pageURL string, fields map[string]string) (*fetch.Request, error) {
	base, err := url.Parse(pageURL)
	if err != nil {
		return nil, err
	}
	action, err := base.Parse(f.action)
	if err != nil {
		return nil, fmt.Errorf("the form's action %q: %w", f.action, err)
	}
	if action.Scheme != "http" && action.Scheme != "https" {
		return nil, fmt.Errorf("the form's action %q is not http(s)", f.action)
	}
	action.Fragment = ""
	for k, v := range fields {
		f.values[k] = []string{v}
	}
	var b strings.Builder // the names in document order, as a browser sends them
	for _, k := range f.names {
		for _, v := range f.values[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k) + "=" + url.QueryEscape(v))
		}
	}
	if f.method != http.MethodPost {
		action.RawQuery = b.String()
		return &fetch.Request{URL: action.String()}, nil
	}
	if e := strings.ToLower(f.enctype); e != "" && e != "application/x-www-form-urlencoded" {
		return nil, fmt.Errorf("the form's enctype %q is not supported", f.enctype)
	}
	return &fetch.Request{
		URL:    action.String(),
		Method: http.MethodPost,
		Body:   []byte(b.String()),
		Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
	}, nil
}

// text returns the text inside n.
func text(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// selected returns the value a select element submits: its selected
// option's, else its first option's.
func selected(n *html.Node) string {
	var first, chosen *html.Node
	var walk func(*html.Node)
	walk = func(c *html.Node) {
		if c.Type == html.ElementNode && c.Data == "option" {
			if first == nil {
				first = c
			}
			if chosen == nil && htmlattr.Has(c, "selected") {
				chosen = c
			}
		}
		for ch := c.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(n)
	if chosen == nil {
		chosen = first
	}
	if chosen == nil {
		return ""
	}
	if v, ok := htmlattr.Lookup(chosen, "value"); ok {
		return v
	}
	return strings.TrimSpace(text(chosen))
}
