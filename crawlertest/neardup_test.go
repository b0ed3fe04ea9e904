package crawlertest_test

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"crawler/crawlertest"
)

var tagRE = regexp.MustCompile(`<[^>]*>`)

// section returns the text of body between start and end, without tags.
func section(t *testing.T, body, start, end string) string {
	t.Helper()
	_, s, ok := strings.Cut(body, start)
	if ok {
		s, _, ok = strings.Cut(s, end)
	}
	if !ok {
		t.Fatalf("no %s...%s in %q", start, end, body)
	}
	return strings.Join(strings.Fields(tagRE.ReplaceAllString(s, " ")), " ")
}

// storyParts is the visible text of the parts of a story page.
type storyParts struct {
	title, nav, date, article, related, counter, footer string
}

func parts(t *testing.T, body string) storyParts {
	return storyParts{
		title:   section(t, body, "<title>", "</title>"),
		nav:     section(t, body, "<nav>", "</nav>"),
		date:    section(t, body, `<p class="date">`, "</p>"),
		article: section(t, body, "<article>", "</article>"),
		related: section(t, body, `<aside class="related">`, "</aside>"),
		counter: section(t, body, `<p class="counter">`, "</p>"),
		footer:  section(t, body, "<footer>", "</footer>"),
	}
}

// TestNearDuplicates checks the ground truth of near-duplicates against
// the served pages: the stories of each story host are the variants of
// /story/<f>/<v> answering 200, and those of the families of two or more
// are NearDuplicateFamilies; the variants of a family share their title
// and main text but not their date line, and families share only the site
// template (nav bar and footer); every story is linked from an ordinary
// page, so that a crawl reaches it (it is in Depths and GoodPages).
func TestNearDuplicates(t *testing.T) {
	cfg := crawlertest.Config{Seed: 3, Hosts: 4, PagesPerHost: 30, NearDuplicates: 2}
	w := newWeb(t, cfg)
	c := noFollow(w)
	if got, want := w.StoryHosts(), []string{"h0.crawler.test", "h1.crawler.test"}; !slices.Equal(got, want) {
		t.Fatalf("StoryHosts = %v, want %v", got, want)
	}
	if n := w.StoryFamilies(); n != 6 {
		t.Fatalf("StoryFamilies = %d, want 30/5", n)
	}
	depths := w.Depths()
	good := map[string]bool{}
	for _, u := range w.GoodPages() {
		good[u] = true
	}

	// The links of the ordinary pages of the story hosts.
	linked := map[string]bool{}
	for h := range 2 {
		for n := range cfg.PagesPerHost {
			u := w.URL(h, n)
			base, _ := url.Parse(u)
			for _, l := range extract(get(t, c, u).body) {
				if cu, ok := canon(base, l.href); ok && !l.nofollow {
					linked[cu] = true
				}
			}
		}
	}

	var families [][]string
	stories := 0
	for h := range 2 {
		var template storyParts
		articles := map[string]string{}
		for f := range w.StoryFamilies() {
			var fam []string
			var first storyParts
			for v := 0; ; v++ {
				u := fmt.Sprintf("http://h%d.crawler.test/story/%d/%d", h, f, v)
				r := get(t, c, u)
				if r.status == 404 {
					if v == 0 || v > 5 {
						t.Fatalf("%s: 404", u)
					}
					break
				}
				if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
					t.Fatalf("%s: %d %s", u, r.status, r.header.Get("Content-Type"))
				}
				stories++
				if _, ok := depths[u]; !ok || !good[u] || !linked[u] {
					t.Errorf("%s: in Depths %v, GoodPages %v, linked from an ordinary page %v", u, ok, good[u], linked[u])
				}
				p := parts(t, r.body)
				if len(strings.Fields(p.article)) < 30 || len(strings.Fields(p.related)) < 4 {
					t.Errorf("%s: article %q, related %q", u, p.article, p.related)
				}
				switch {
				case f == 0 && v == 0:
					template = p
				case p.nav != template.nav || p.footer != template.footer:
					t.Errorf("%s: template %q %q, want %q %q (that of the host)", u, p.nav, p.footer, template.nav, template.footer)
				}
				if v == 0 {
					first = p
					if other, ok := articles[p.article]; ok {
						t.Errorf("%s has the main text of %s", u, other)
					}
					articles[p.article] = u
				} else {
					if p.title != first.title || p.article != first.article {
						t.Errorf("%s: title or main text differs from variant 0", u)
					}
					if p.date == first.date {
						t.Errorf("%s: same date line as variant 0, %q", u, p.date)
					}
				}
				fam = append(fam, u)
			}
			if len(fam) > 1 {
				families = append(families, fam)
			}
		}
	}
	if got := w.NearDuplicateFamilies(); !slices.EqualFunc(got, families, slices.Equal) {
		t.Errorf("NearDuplicateFamilies = %v, served families %v", got, families)
	}
	if len(families) < 3 || stories == len(families) {
		t.Errorf("%d families in %d stories", len(families), stories)
	}
	if r := get(t, c, "http://h2.crawler.test/story/0/0"); r.status != 404 {
		t.Errorf("a story on a host without stories: %d", r.status)
	}

	// Deterministic: the same Config serves the same stories.
	w2 := newWeb(t, cfg)
	u := families[0][1]
	if a, b := get(t, c, u).body, get(t, noFollow(w2), u).body; a != b {
		t.Errorf("%s differs between two webs of the same Config", u)
	}
}

// TestNearDuplicatesOff checks that a web without Config.NearDuplicates
// has no stories.
func TestNearDuplicatesOff(t *testing.T) {
	w := newWeb(t, small)
	if f := w.NearDuplicateFamilies(); f != nil || w.StoryFamilies() != 0 || w.StoryHosts() != nil {
		t.Errorf("NearDuplicateFamilies = %v, StoryFamilies %d, StoryHosts %v", f, w.StoryFamilies(), w.StoryHosts())
	}
	if r := get(t, noFollow(w), "http://h0.crawler.test/story/0/0"); r.status != 404 {
		t.Errorf("/story/0/0: %d, want 404", r.status)
	}
	defer func() {
		if recover() == nil {
			t.Error("NewWeb with a negative NearDuplicates did not panic")
		}
	}()
	crawlertest.NewWeb(crawlertest.Config{NearDuplicates: -1}).Close()
}

func TestScoreNearDuplicates(t *testing.T) {
	w := newWeb(t, crawlertest.Config{Seed: 3, Hosts: 4, PagesPerHost: 30, NearDuplicates: 2})
	fams := w.NearDuplicateFamilies()
	a, b := fams[0], fams[1]
	// Fetched: a page, a family interleaved with another, in any spelling.
	order := []string{w.URL(0, 0), a[0], b[0], strings.Replace(a[1], "http://h0", "HTTP://H0", 1) + "#x", b[1]}
	if len(a) > 2 {
		order = append(order, a[2])
	}
	perfect := map[string]string{order[3]: a[0], b[1]: b[0]}
	if len(a) > 2 {
		perfect[a[2]] = a[1]
	}
	s := w.ScoreNearDuplicates(order, perfect)
	if s.Pages != len(order) || s.Duplicates != len(perfect) || s.Correct != len(perfect) || s.Precision() != 1 || s.Recall() != 1 || s.Unrelated() != 0 {
		t.Errorf("perfect marks: %+v", s)
	}
	wrong := map[string]string{b[1]: a[0], a[0]: w.URL(0, 0), w.URL(0, 1): w.URL(0, 0)}
	s = w.ScoreNearDuplicates(order, wrong)
	if s.Marked != 2 || s.Correct != 0 || s.Unrelated() != 2 || s.Precision() != 0 || s.Recall() != 0 {
		t.Errorf("wrong marks: %+v", s)
	}
	// A match that comes later in order is wrong.
	s = w.ScoreNearDuplicates([]string{a[1], a[0]}, map[string]string{a[1]: a[0]})
	if s.Correct != 0 || s.Duplicates != 1 || s.Unrelated() != 1 {
		t.Errorf("match fetched later: %+v", s)
	}
	if s := w.ScoreNearDuplicates(nil, nil); s.Precision() != 1 || s.Recall() != 1 {
		t.Errorf("nothing: %+v", s)
	}
}
