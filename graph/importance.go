package graph

import "strings"

// Importance scores URLs for crawl priority with the textbook formula
//
//	I(P) = A·backlinks(P) + B·URLScore(P)
//
// where backlinks(P) counts the known pages linking to P (in-degree) and
// URLScore judges the URL string alone. Breadth-first order already
// favours pages near the seeds, so this is the rest of the textbook's
// ordering metric. The zero value scores with A = 1, B = 1 and
// DefaultURLScore: the URL score, in [0, 1], weighs about as much as one
// backlink and orders pages with equal backlinks. Importance is a value;
// it is safe for concurrent use if URLScore is.
type Importance struct {
	// A and B weigh backlinks and the URL score. If both are 0, A = 1 and
	// B = 1; otherwise both are used as given.
	A, B float64
	// URLScore scores a URL string; nil means DefaultURLScore.
	URLScore func(url string) float64
}

// Score returns the importance of url with the given number of backlinks.
func (im Importance) Score(url string, backlinks int) float64 {
	a, b := im.A, im.B
	if a == 0 && b == 0 {
		a, b = 1, 1
	}
	f := im.URLScore
	if f == nil {
		f = DefaultURLScore
	}
	return a*float64(backlinks) + b*f(url)
}

// Scores returns the importance of every node of g, taking in-degrees as
// backlinks. Read with ReadOptions.KeepUnfetched, g counts links to the
// URLs not yet fetched too, which makes Scores a priority for the frontier
// of an unfinished crawl (nodes Pages() to Len()-1).
func (im Importance) Scores(g *Graph) []float64 {
	in := g.inDegrees()
	s := make([]float64, g.Len())
	for k := range s {
		s[k] = im.Score(g.URL(k), int(in[k]))
	}
	return s
}

// DefaultURLScore scores a URL by how shallow it is: 1/(1+depth), where
// depth counts the non-empty segments of its path, plus one for a query.
// A final segment naming a directory's home ("index.html", "index.php",
// "default.aspx", "home"...: "index", "default" or "home" before an
// optional extension) does not count. So a host's home page "/" (or
// "/index.html") scores 1, "/docs/" and "/?q=1" 1/2, "/docs/a.html" 1/3. The
// URL is expected canonical: scheme and host are skipped up to the first
// "/" after "://", and a fragment is ignored.
func DefaultURLScore(url string) float64 {
	if i := strings.Index(url, "://"); i >= 0 {
		url = url[i+3:]
		if j := strings.IndexByte(url, '/'); j >= 0 {
			url = url[j:]
		} else {
			url = ""
		}
	}
	url, _, _ = strings.Cut(url, "#")
	path, query, hasQuery := strings.Cut(url, "?")
	depth := 0
	if hasQuery && query != "" {
		depth++
	}
	for seg := range strings.SplitSeq(path, "/") {
		if seg != "" {
			depth++
		}
	}
	if last := path[strings.LastIndexByte(path, '/')+1:]; isHome(last) {
		depth--
	}
	return 1 / float64(1+depth)
}

// isHome reports whether path segment s names a directory's home page.
func isHome(s string) bool {
	name, _, _ := strings.Cut(s, ".")
	switch strings.ToLower(name) {
	case "index", "default", "home":
		return true
	}
	return false
}
