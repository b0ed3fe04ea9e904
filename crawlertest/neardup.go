package crawlertest

import "strconv"

// With Config.NearDuplicates, story hosts also serve stories, pages in the
// template of a news site:
//
//	/story/<f>/<v>   variant v of story family f, f < Web.StoryFamilies,
//	                 v below the family's size (1 to maxVariants)
//
// The variants of a family have the same title and main text (an article
// of PageBytes/4 to 5·PageBytes/4 bytes of the 64 words) and differ only
// where real near-duplicates do: an "Updated" date and time line, a
// "Related stories" box of 2 to 4 links to other stories or pages (drawn
// from the family's 6), a "read N times" counter, and, invisibly, a
// session id in a script and the spelling of their hrefs. Every story of a
// host, whatever its family, shares the host's site template: a nav bar of
// the same 4 links, a site name, the same footer, and the same words.
//
// Page n of a story host links to the stories of slots n, n+PagesPerHost,
// ... below 5F (F families): slot s is variant s/F of family s%F, if the
// family has it, so variant 0 of every family is linked from the first F
// pages and the other variants from later ones.

// Story families.
const (
	maxVariants  = 5 // pages of a family: 1 to maxVariants
	storyNav     = 4 // nav links of a story: home and three pages of its host
	storyPool    = 6 // related-link candidates of a family
	minRelated   = 2 // related links of a variant: minRelated to minRelated+2
	familyPages  = 5 // pages of a host per family: F = max(1, PagesPerHost/familyPages)
	storyCounter = 100_000
)

// Salts of the story streams (see saltLinks).
const (
	saltFamilyLinks  = 16 + iota // family: size and related pool
	saltFamilyText               // family: title and main text
	saltVariantLinks             // variant: which related links
	saltVariantText              // variant: date, counter, session, hrefs
	saltSiteLinks                // host: nav targets
	saltSiteText                 // host: site name, nav labels, footer
	saltStorySlots               // page: where its story links go
)

// setStories marks the first n good hosts as story hosts.
func (g *gen) setStories(n int) {
	if n <= 0 {
		return
	}
	g.stories = make([]bool, g.hosts)
	for h := 0; h < g.hosts && n > 0; h++ {
		if !g.isTrap(h) {
			g.stories[h] = true
			n--
		}
	}
}

// storyFamilies returns the number of story families of host h: 0 unless
// h is a story host.
func (g *gen) storyFamilies(h int) int {
	if g.stories == nil || h < 0 || h >= len(g.stories) || !g.stories[h] {
		return 0
	}
	return max(1, g.pages/familyPages)
}

// story returns the resource of variant v of family f of host h.
func story(h, f, v int) res { return res{host: int32(h), kind: kindStory, n: int32(f), k: int32(v)} }

// storyRNG returns the random stream of variant v of family f of host h
// (v = -1: of the family; f = -1: of the host) for salt.
func (g *gen) storyRNG(h, f, v int, salt uint64) rng {
	rg := g.docRNG(res{host: int32(h), kind: kindStory, n: int32(f)}, salt)
	if v >= 0 {
		rg.s = mix64(rg.s ^ uint64(v))
	}
	return rg
}

// family returns the size of family f of host h and its related-link
// candidates.
func (g *gen) family(h, f int) (size int, pool [storyPool]res) {
	rg := g.storyRNG(h, f, -1, saltFamilyLinks)
	size = 1 + rg.intn(maxVariants)
	families := g.storyFamilies(h)
	for i := range pool {
		if families > 1 && rg.intn(2) == 0 {
			pool[i] = story(h, (f+1+rg.intn(families-1))%families, 0)
		} else {
			pool[i] = page(h, g.sitePage(&rg))
		}
	}
	return size, pool
}

// sitePage draws a page of a host, not its home page if it has others.
func (g *gen) sitePage(rg *rng) int {
	if g.pages < 2 {
		return 0
	}
	return 1 + rg.intn(g.pages-1)
}

// storyLinks appends the links of story doc: storyNav nav links, then its
// related links.
func (g *gen) storyLinks(dst []link, doc res) []link {
	h := int(doc.host)
	dst = append(dst, link{to: page(h, 0)})
	site := g.storyRNG(h, -1, -1, saltSiteLinks)
	for range storyNav - 1 {
		dst = append(dst, link{to: page(h, g.sitePage(&site))})
	}
	_, pool := g.family(h, int(doc.n))
	rg := g.storyRNG(h, int(doc.n), int(doc.k), saltVariantLinks)
	idx := [storyPool]int{0, 1, 2, 3, 4, 5}
	for i := range minRelated + rg.intn(3) {
		j := i + rg.intn(storyPool-i)
		idx[i], idx[j] = idx[j], idx[i]
		dst = append(dst, link{to: pool[idx[i]]})
	}
	return dst
}

// addStoryLinks inserts into the links ls[start:] of page doc of a story
// host its links to the stories of its slots.
func (g *gen) addStoryLinks(ls []link, start int, doc res) []link {
	h := int(doc.host)
	families := g.storyFamilies(h)
	if families == 0 || doc.kind != kindPage {
		return ls
	}
	rg := g.docRNG(doc, saltStorySlots)
	for s := int(doc.n); s < families*maxVariants; s += g.pages {
		f, v := s%families, s/families
		if size, _ := g.family(h, f); v < size {
			ls = insertAt(ls, start+rg.intn(len(ls)-start+1), link{to: story(h, f, v)})
		}
	}
	return ls
}

var (
	weekdays = [7]string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	months   = [12]string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
)

// appendNWords appends n words separated by spaces.
func appendNWords(b []byte, rg *rng, n int) []byte {
	for i := range n {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, words[rg.intn(len(words))]...)
	}
	return b
}

// appendStoryTitle appends the title of a family, drawn first from its
// text stream rg.
func appendStoryTitle(b []byte, rg *rng) []byte { return appendNWords(b, rg, 3+rg.intn(5)) }

// appendLinkTitle appends the title of a story or page, as related links
// show it.
func (g *gen) appendLinkTitle(b []byte, to res) []byte {
	if to.kind != kindStory {
		return appendTitle(b, to)
	}
	rg := g.storyRNG(int(to.host), int(to.n), -1, saltFamilyText)
	return appendStoryTitle(b, &rg)
}

// appendTwo appends n < 100 in two digits.
func appendTwo(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }

// renderStory appends the HTML of story doc with links ls (from
// storyLinks) to b.
func (g *gen) renderStory(b []byte, doc res, ls []link) []byte {
	h := int(doc.host)
	site := g.storyRNG(h, -1, -1, saltSiteText)
	fam := g.storyRNG(h, int(doc.n), -1, saltFamilyText)
	rg := g.storyRNG(h, int(doc.n), int(doc.k), saltVariantText)
	var docPath [48]byte
	dp := appendPath(docPath[:0], doc)
	var nameBuf, titleBuf [128]byte
	name := appendNWords(append(nameBuf[:0], "The "...), &site, 2)
	title := appendStoryTitle(titleBuf[:0], &fam)

	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"...)
	b = append(b, title...)
	b = append(b, " | "...)
	b = append(b, name...)
	b = append(b, "</title>\n<style>\nnav a { margin-right: 1em }\naside.related { float: right; width: 30% }\n</style>\n"...)
	b = append(b, "<script>\nvar session = \""...)
	for x, i := rg.next(), 0; i < 16; i++ {
		b = append(b, "0123456789abcdef"[x>>(4*i)&15])
	}
	b = append(b, "\";\nvar served = "...)
	b = strconv.AppendUint(b, rg.next()>>24, 10)
	b = append(b, ";\n</script>\n</head>\n<body>\n<nav>"...)
	for i, l := range ls[:storyNav] {
		b = append(b, "<a href=\""...)
		b = g.appendHref(b, &rg, dp, doc, l.to)
		b = append(b, "\">"...)
		if i == 0 {
			b = append(b, "Home"...)
		} else {
			b = appendNWords(b, &site, 1+site.intn(2))
		}
		b = append(b, "</a> "...)
	}
	b = append(b, "</nav>\n<h1>"...)
	b = append(b, title...)
	b = append(b, "</h1>\n<p class=\"date\">Updated "...)
	b = append(b, weekdays[rg.intn(7)]...)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, int64(1+rg.intn(28)), 10)
	b = append(b, ' ')
	b = append(b, months[rg.intn(12)]...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(2015+rg.intn(11)), 10)
	b = append(b, ", "...)
	b = appendTwo(b, rg.intn(24))
	b = append(b, ':')
	b = appendTwo(b, rg.intn(60))
	b = append(b, "</p>\n<article>\n"...)
	for n := g.pageBytes/4 + fam.intn(g.pageBytes+1); n > 0; {
		chunk := min(n, 300+fam.intn(300))
		b = append(b, "<p>"...)
		b = appendWords(b, &fam, chunk)
		b = append(b[:len(b)-1], "</p>\n"...) // drop the trailing space
		n -= chunk
	}
	b = append(b, "</article>\n<aside class=\"related\">\n<h2>Related stories</h2>\n<ul>\n"...)
	for _, l := range ls[storyNav:] {
		b = append(b, "<li><a href=\""...)
		b = g.appendHref(b, &rg, dp, doc, l.to)
		b = append(b, "\">"...)
		b = g.appendLinkTitle(b, l.to)
		b = append(b, "</a></li>\n"...)
	}
	b = append(b, "</ul>\n</aside>\n<p class=\"counter\">This story has been read "...)
	c := 1 + rg.intn(storyCounter-1)
	if c >= 1000 {
		b = strconv.AppendInt(b, int64(c/1000), 10)
		b = append(b, ',', byte('0'+c/100%10))
		b = appendTwo(b, c%100)
	} else {
		b = strconv.AppendInt(b, int64(c), 10)
	}
	b = append(b, " times.</p>\n<footer>\n<p>"...)
	b = appendNWords(b, &site, 20+site.intn(10))
	b = append(b, "</p>\n<p>&copy; "...)
	b = append(b, name...)
	b = append(b, " &amp; contributors. All rights reserved.</p>\n</footer>\n</body>\n</html>\n"...)
	return b
}

// StoryFamilies returns the number of story families of each story host,
// max(1, PagesPerHost/5), or 0 without Config.NearDuplicates.
func (w *Web) StoryFamilies() int {
	if w.g.stories == nil {
		return 0
	}
	return max(1, w.g.pages/familyPages)
}

// StoryHosts returns the names of the story hosts of a web with
// Config.NearDuplicates ("h0.crawler.test", ...), in index order.
func (w *Web) StoryHosts() []string {
	var out []string
	for h := range w.g.hosts {
		if w.g.storyFamilies(h) > 0 {
			out = append(out, string(appendHost(nil, h)))
		}
	}
	return out
}

// NearDuplicateFamilies returns the ground truth of near-duplicates: the
// canonical URLs of each story family of at least two variants
// ("http://h0.crawler.test/story/3/0", ".../story/3/1", ...), by host,
// family and variant. Two pages are near-duplicates if and only if they
// are in the same family; stories of other families (singletons
// included) share only the site template with them, and ordinary pages
// only their words. Families of hosts that a crawler cannot fetch (Behavior's
// PageStatus or an unavailable robots.txt) are listed too. Nil without
// Config.NearDuplicates; the slices are new on each call.
func (w *Web) NearDuplicateFamilies() [][]string {
	var out [][]string
	for h := range w.g.hosts {
		for f := range w.g.storyFamilies(h) {
			size, _ := w.g.family(h, f)
			if size < 2 {
				continue
			}
			fam := make([]string, size)
			for v := range fam {
				fam[v] = canonical(story(h, f, v))
			}
			out = append(out, fam)
		}
	}
	return out
}

// familyOf returns the story family of URL u, in any spelling the server
// accepts, if it is a variant of a family of at least two.
func (w *Web) familyOf(u string) (fam [2]int32, ok bool) {
	h, p, q, ok := w.g.parseURL(u)
	if !ok || q != "" {
		return fam, false
	}
	r, ok := w.g.route(h, p)
	if !ok || r.kind != kindStory {
		return fam, false
	}
	if size, _ := w.g.family(h, int(r.n)); size < 2 {
		return fam, false
	}
	return [2]int32{r.host, r.n}, true
}

// NearDupScore is how a crawler's near-duplicate verdicts compare with the
// ground truth (see Web.ScoreNearDuplicates).
type NearDupScore struct {
	Pages      int // pages judged
	Marked     int // pages marked as near-duplicates of an earlier page
	Correct    int // marked pages matched to an earlier page of their own family
	Duplicates int // pages with an earlier page of their family: what a perfect crawler marks
}

// Precision returns Correct/Marked: 1 if nothing was marked.
func (s NearDupScore) Precision() float64 {
	if s.Marked == 0 {
		return 1
	}
	return float64(s.Correct) / float64(s.Marked)
}

// Recall returns Correct/Duplicates: 1 if there was no duplicate.
func (s NearDupScore) Recall() float64 {
	if s.Duplicates == 0 {
		return 1
	}
	return float64(s.Correct) / float64(s.Duplicates)
}

// Unrelated returns the number of wrong merges, Marked-Correct: pages
// marked as near-duplicates of a page outside their family (or of no
// earlier page).
func (s NearDupScore) Unrelated() int { return s.Marked - s.Correct }

// ScoreNearDuplicates judges a crawler's near-duplicate verdicts against
// NearDuplicateFamilies. order lists the pages the crawler fetched, in the
// order it judged them; matches maps each page it marked as a
// near-duplicate to the earlier page it matched. URLs may be spelled in
// any way the server accepts. A mark is correct if the matched page is of
// the same family and comes earlier in order; a page is a duplicate if an
// earlier page of order is of its family. Marks of pages not in order are
// ignored.
func (w *Web) ScoreNearDuplicates(order []string, matches map[string]string) NearDupScore {
	key := func(u string) string {
		h, p, q, ok := w.g.parseURL(u)
		if !ok {
			return u
		}
		return canonicalString(h, p, q)
	}
	canonMatches := make(map[string]string, len(matches))
	for u, m := range matches {
		canonMatches[key(u)] = key(m)
	}
	seenFam := make(map[[2]int32]bool)
	seen := make(map[string]bool, len(order))
	var s NearDupScore
	for _, raw := range order {
		u := key(raw)
		s.Pages++
		fam, inFam := w.familyOf(u)
		if inFam && seenFam[fam] {
			s.Duplicates++
		}
		if m, ok := canonMatches[u]; ok {
			s.Marked++
			if mf, ok := w.familyOf(m); ok && inFam && mf == fam && seen[m] {
				s.Correct++
			}
		}
		seen[u] = true
		if inFam {
			seenFam[fam] = true
		}
	}
	return s
}
