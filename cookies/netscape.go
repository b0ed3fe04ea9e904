package cookies

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// httpOnlyPrefix marks, in a cookies.txt, a line of an HttpOnly cookie
// that would otherwise be a comment (curl's convention).
const httpOnlyPrefix = "#HttpOnly_"

// maxNetscapeLine bounds a line of a cookies.txt.
const maxNetscapeLine = 1 << 20

// ReadNetscape reads a Netscape cookies.txt, the format curl, wget and
// browser exports write: one cookie a line as 7 fields separated by tabs,
// domain, include-subdomains (TRUE or FALSE), path, secure (TRUE or
// FALSE), expiry (Unix seconds, 0 for a session cookie), name and value
// (which may be missing, as curl writes an empty one). Names and values
// hold no control character, domains are ASCII. A domain starting with "#HttpOnly_" is that of an HttpOnly
// cookie; other lines starting with "#", and blank lines, are comments. A
// leading dot on the domain is dropped; a cookie whose include-subdomains
// is FALSE is host-only. Lines may end in CRLF.
//
// The entries are in the file's order, with no creation or access time
// (Import counts them as new). An error names the line (counting from 1)
// and what is wrong in it; nothing is returned with it.
func ReadNetscape(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxNetscapeLine)
	var out []Entry
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSuffix(sc.Text(), "\r")
		httpOnly := false
		if strings.HasPrefix(s, httpOnlyPrefix) {
			s, httpOnly = s[len(httpOnlyPrefix):], true
		} else if strings.HasPrefix(s, "#") || strings.TrimSpace(s) == "" {
			continue
		}
		e, err := parseNetscape(s)
		if err != nil {
			return nil, fmt.Errorf("cookies.txt line %d: %w", line, err)
		}
		e.HttpOnly = httpOnly
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cookies.txt line %d: %w", line+1, err)
	}
	return out, nil
}

// parseNetscape parses the fields of one cookie line.
func parseNetscape(s string) (Entry, error) {
	f := strings.SplitN(s, "\t", 7)
	if len(f) == 6 {
		f = append(f, "") // curl's empty value
	}
	if len(f) != 7 {
		return Entry{}, fmt.Errorf("%d tab-separated fields, want 7 (domain, include-subdomains, path, secure, expiry, name, value)", len(f))
	}
	var e Entry
	domain := strings.ToLower(f[0])
	e.Domain = strings.TrimPrefix(domain, ".")
	if e.Domain == "" || e.Domain[0] == '.' || strings.ContainsFunc(e.Domain, badDomainRune) {
		return Entry{}, fmt.Errorf("bad domain %q", f[0])
	}
	sub, err := netscapeBool("include-subdomains", f[1])
	if err != nil {
		return Entry{}, err
	}
	e.HostOnly = !sub
	e.Path = f[2]
	if e.Path == "" || e.Path[0] != '/' {
		return Entry{}, fmt.Errorf("path %q does not start with /", f[2])
	}
	if e.Secure, err = netscapeBool("secure", f[3]); err != nil {
		return Entry{}, err
	}
	exp, err := strconv.ParseInt(f[4], 10, 64)
	if err != nil || exp < 0 {
		return Entry{}, fmt.Errorf("expiry %q is not Unix seconds", f[4])
	}
	if exp > 0 {
		e.Expires = time.Unix(exp, 0)
	}
	e.Name, e.Value = f[5], f[6]
	if e.Name == "" {
		return Entry{}, fmt.Errorf("no cookie name")
	}
	if strings.ContainsFunc(e.Name, isCTL) || strings.ContainsFunc(e.Value, isCTL) {
		return Entry{}, fmt.Errorf("cookie %q: a control character in its name or value", e.Name)
	}
	return e, nil
}

// badDomainRune reports whether r may not be in a domain: a domain is
// ASCII (an IDN is written in punycode), with no space, slash or hash.
func badDomainRune(r rune) bool { return r <= ' ' || r >= 0x7f || r == '/' || r == '#' }

func isCTL(r rune) bool { return r < ' ' || r == 0x7f }

func netscapeBool(field, s string) (bool, error) {
	switch {
	case strings.EqualFold(s, "TRUE"):
		return true, nil
	case strings.EqualFold(s, "FALSE"):
		return false, nil
	}
	return false, fmt.Errorf("%s is %q, want TRUE or FALSE", field, s)
}

// WriteNetscape writes entries as a Netscape cookies.txt that
// [ReadNetscape], curl and wget read: a header comment, then a line for
// each entry, "#HttpOnly_" before the domain of an HttpOnly cookie and a
// dot before that of a domain cookie. It returns the first write error.
func WriteNetscape(w io.Writer, entries []Entry) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("# Netscape HTTP Cookie File\n")
	for _, e := range entries {
		if e.HttpOnly {
			bw.WriteString(httpOnlyPrefix)
		}
		sub := "FALSE"
		if !e.HostOnly {
			bw.WriteString(".")
			sub = "TRUE"
		}
		var exp int64
		if !e.Expires.IsZero() {
			exp = e.Expires.Unix()
		}
		fmt.Fprintf(bw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", e.Domain, sub, e.Path, strings.ToUpper(strconv.FormatBool(e.Secure)), exp, e.Name, e.Value)
	}
	return bw.Flush()
}
