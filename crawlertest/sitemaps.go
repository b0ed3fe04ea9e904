package crawlertest

import (
	"bytes"
	"compress/gzip"
	"strconv"
	"strings"
)

// With Config.Sitemaps, each host that serves a robots.txt lists a sitemap
// index there, which lists a gzipped urlset and a text list; between them
// they list the host's home page and its orphan pages, which no link
// reaches:
//
//	/robots.txt              the rules, then "Sitemap: http://<host>/sitemaps/index.xml"
//	/sitemaps/index.xml      sitemap index of the two below
//	/sitemaps/pages.xml.gz   urlset (gzip, application/x-gzip): the home page, even orphans
//	/sitemaps/more.txt       text sitemap: odd orphans
//	/orphan/<n>              HTML page linking to "/" alone, n < Web.OrphansPerHost
//
// With Config.StandardSitemaps too, the index is /sitemap.xml, and only
// the robots.txt of even hosts names it.

var (
	ctXML  = []string{"application/xml"}
	ctGzip = []string{"application/x-gzip"}
)

// OrphansPerHost returns how many orphan pages each host of a web with
// Config.Sitemaps has: a tenth of its pages, at least one.
func (w *Web) OrphansPerHost() int { return max(1, w.g.pages/10) }

// Orphans returns the URLs of the orphan pages that sitemaps list: those
// of the hosts whose robots.txt a crawler gets (every good host but h3,
// h7, h11, ..., and none whose Behavior changes its robots.txt), and with
// Config.StandardSitemaps of those with no robots.txt too (h3, h7, ...,
// but none with a Behavior), where a crawler may ask for /sitemap.xml.
// Nil without Config.Sitemaps.
func (w *Web) Orphans() []string {
	if !w.cfg.Sitemaps {
		return nil
	}
	var out []string
	for h := range w.g.hosts {
		if !w.findsSitemaps(h) {
			continue
		}
		for n := range w.OrphansPerHost() {
			out = append(out, origin(h)+"/orphan/"+strconv.Itoa(n))
		}
	}
	return out
}

// findsSitemaps reports whether a compliant crawler reads host h's
// robots.txt (or, with Config.StandardSitemaps, finds there is none), and
// then its sitemaps and pages, each at the first request.
func (w *Web) findsSitemaps(h int) bool {
	if !w.cfg.Sitemaps || w.g.isTrap(h) || w.failing(h) {
		return false
	}
	b := w.behavior(h)
	if b != nil && b.ThrottleEvery != 0 {
		return false
	}
	return w.robotsRules(h) || w.cfg.StandardSitemaps && b == nil && !hasRobots(h)
}

// indexPath returns the path of each host's sitemap index.
func (w *Web) indexPath() string {
	if w.cfg.StandardSitemaps {
		return "/sitemap.xml"
	}
	return "/sitemaps/index.xml"
}

// sitemapLine returns robots.txt body with host h's Sitemap line added,
// with Config.Sitemaps (and, with StandardSitemaps, for an even h); body
// itself otherwise.
func (w *Web) sitemapLine(body []byte, h int) []byte {
	if !w.cfg.Sitemaps || w.g.isTrap(h) || w.cfg.StandardSitemaps && h%2 == 1 {
		return body
	}
	return append(bytes.Clone(body), "\nSitemap: "+origin(h)+w.indexPath()+"\n"...)
}

// sitemapFile returns the body and type of host h's sitemap file or
// orphan page at path p, if there is one.
func (w *Web) sitemapFile(h int, p string) (body []byte, ct []string, ok bool) {
	if h < 0 || w.g.isTrap(h) {
		return nil, nil, false
	}
	base := origin(h)
	var b strings.Builder
	switch p {
	case w.indexPath():
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		for _, f := range []string{"/sitemaps/pages.xml.gz", "/sitemaps/more.txt"} {
			b.WriteString("  <sitemap><loc>" + base + f + "</loc></sitemap>\n")
		}
		b.WriteString("</sitemapindex>\n")
		return []byte(b.String()), ctXML, true
	case "/sitemaps/pages.xml.gz":
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		b.WriteString("  <url><loc>" + base + "/</loc><priority>1.0</priority></url>\n")
		for n := 0; n < w.OrphansPerHost(); n += 2 {
			b.WriteString("  <url><loc>" + base + "/orphan/" + strconv.Itoa(n) + "</loc></url>\n")
		}
		b.WriteString("</urlset>\n")
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write([]byte(b.String()))
		zw.Close()
		return z.Bytes(), ctGzip, true
	case "/sitemaps/more.txt":
		for n := 1; n < w.OrphansPerHost(); n += 2 {
			b.WriteString(base + "/orphan/" + strconv.Itoa(n) + "\n")
		}
		return []byte(b.String()), ctText, true
	}
	if s, found := strings.CutPrefix(p, "/orphan/"); found {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < w.OrphansPerHost() && strconv.Itoa(n) == s {
			return []byte("<!DOCTYPE html>\n<html><head><title>orphan " + s + "</title></head><body><a href=\"/\">home</a></body></html>\n"), ctHTML, true
		}
	}
	return nil, nil, false
}
