package sites

import (
	"net/url"
	"strings"
	"testing"
)

// The form a login fills: found by selector, alone, or as the one holding
// the fields; its inputs as a browser submits them; its submission.
func TestLoginForm(t *testing.T) {
	const page = `<html><body>
<form id="search" action="/search"><input name="q"></form>
<form id="login" method="POST" action="/session?x=1#f">
  <input type="hidden" name="csrf" value="tok">
  <input name="user" value="guest">
  <input type="password" name="password">
  <input type="checkbox" name="remember" checked>
  <input type="checkbox" name="spam">
  <input type="radio" name="r" value="a"><input type="radio" name="r" value="b" checked>
  <select name="lang"><option value="en">English<option value="fr" selected>French</select>
  <textarea name="note">hi</textarea>
  <input type="file" name="f"><input type="reset" name="z">
  <button name="go" value="1">Log in</button><input type="submit" name="other" value="2">
</form></body></html>`
	fields := map[string]string{"user": "bot", "password": "p&w"}
	for _, tc := range []struct {
		name, form, err, body string
	}{
		{"by fields", "", "", "csrf=tok&user=bot&password=p%26w&remember=on&r=b&lang=fr&note=hi&go=1"},
		{"by selector", "form#login", "", "csrf=tok&user=bot&password=p%26w&remember=on&r=b&lang=fr&note=hi&go=1"},
		{"selector without the fields", "form#search", "no input for each field", ""},
		{"no such form", "form#nope", "no form", ""},
	} {
		f, err := findForm([]byte(page), &Login{Fields: fields, Form: tc.form})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v; want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		req, err := f.request("https://a.example/login", fields)
		if err != nil {
			t.Fatal(err)
		}
		if req.Method != "POST" || req.URL != "https://a.example/session?x=1" || string(req.Body) != tc.body ||
			req.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			t.Errorf("%s: %s %s %q %v", tc.name, req.Method, req.URL, req.Body, req.Header)
		}
	}
}

// A GET form is submitted in the action's query; two forms holding the
// fields need a selector; a multipart form and an action that is not
// http(s) are refused with what is wrong.
func TestLoginFormOthers(t *testing.T) {
	fields := map[string]string{"u": "x"}
	f, err := findForm([]byte(`<form action="go"><input name="u"><input name="k" value="v w"></form>`), &Login{Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	req, err := f.request("http://a.example/dir/login", fields)
	if err != nil || req.Method != "" || req.URL != "http://a.example/dir/go?u=x&k=v+w" || req.Body != nil {
		t.Errorf("GET form: %+v, %v", req, err)
	}
	two := `<form><input name="u"></form><form><input name="u"></form>`
	if _, err := findForm([]byte(two), &Login{Fields: fields}); err == nil || !strings.Contains(err.Error(), "set form") {
		t.Errorf("two forms: %v; want to be told to set form", err)
	}
	for page, want := range map[string]string{
		`<form method=post enctype="multipart/form-data"><input name="u"></form>`: "enctype",
		`<form action="javascript:go()"><input name="u"></form>`:                  "not http(s)",
	} {
		f, err := findForm([]byte(page), &Login{Fields: fields})
		if err == nil {
			_, err = f.request("http://a.example/", fields)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", page, err, want)
		}
	}
}

// FuzzLoginForm reads any page as a login page: no panic, and a form found
// is submitted to an http(s) URL with every field in its body or query.
func FuzzLoginForm(f *testing.F) {
	f.Add(`<form method=post action=/s><input type=hidden name=t value=1><input name=user><input name=password></form>`)
	f.Add(`<form><select name=user><option>a</select><textarea name=password></textarea></form>`)
	f.Add(`<form action="//other.example/x"><input name=user><input name=password><form><input name=user>`)
	f.Add(`<form action="http://[::1"><input name="user"><input name="password"></form>`)
	fields := map[string]string{"user": "u", "password": "p"}
	f.Fuzz(func(t *testing.T, page string) {
		form, err := findForm([]byte(page), &Login{Fields: fields})
		if err != nil {
			return
		}
		req, err := form.request("https://a.example/login", fields)
		if err != nil {
			return
		}
		u, err := url.Parse(req.URL)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("submitted to %q", req.URL)
		}
		vals := u.Query()
		if req.Body != nil {
			vals, _ = url.ParseQuery(string(req.Body))
		}
		if vals.Get("user") != "u" || vals.Get("password") != "p" {
			t.Fatalf("fields not submitted: %v", vals)
		}
	})
}
