package simhash

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"crawler/crawlertest"
)

// The measurements behind OfHTML's features and DefaultDistance: every
// good page of crawlertest webs with near-duplicate story families is
// fetched in crawl order (by depth, then URL), fingerprinted under several
// feature schemes, and judged against the webs' ground truth.

// measureConfig is the web measured, with each of measureSeeds: the
// default web (10 hosts of 50 pages of about 4 KiB), every host a story
// host (10 families each).
var (
	measureConfig = crawlertest.Config{NearDuplicates: crawlertest.DefaultHosts}
	measureSeeds  = []int64{1, 2, 3}
)

// measuredPage is a fetched page: its URL, its family in the ground truth
// and its visible text.
type measuredPage struct {
	url    string
	family int // index in NearDuplicateFamilies, -1 for a page of no family
	body   []byte
	pieces []piece
}

// piece is a call to a textSink: text, or the end of a block if text is nil.
type piece struct {
	text   []byte
	anchor bool
}

// fingerprint is fingerprintHTML(p.body, f), from the visible text saved.
func (p *measuredPage) fingerprint(f features) uint64 {
	s := shingler{f: f}
	for _, pc := range p.pieces {
		if pc.text == nil {
			s.endBlock()
		} else {
			s.text(pc.text, pc.anchor)
		}
	}
	return s.sum()
}

func (p *measuredPage) text(t []byte, anchor bool) {
	p.pieces = append(p.pieces, piece{append([]byte{}, t...), anchor})
}

func (p *measuredPage) endBlock() { p.pieces = append(p.pieces, piece{}) }

// fetchWeb serves the web of cfg and fetches its good pages in crawl order.
func fetchWeb(t testing.TB, cfg crawlertest.Config) (*crawlertest.Web, []measuredPage) {
	t.Helper()
	w := crawlertest.NewWeb(cfg)
	t.Cleanup(w.Close)
	family := map[string]int{}
	for i, fam := range w.NearDuplicateFamilies() {
		for _, u := range fam {
			family[u] = i
		}
	}
	depth := w.Depths()
	good := w.GoodPages()
	slices.SortFunc(good, func(a, b string) int { return cmp.Or(cmp.Compare(depth[a], depth[b]), strings.Compare(a, b)) })
	client := w.Client()
	pages := make([]measuredPage, 0, len(good))
	for _, u := range good {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d, %v", u, resp.StatusCode, err)
		}
		p := measuredPage{url: u, family: -1, body: body}
		if f, ok := family[u]; ok {
			p.family = f
		}
		visibleText(body, &p)
		pages = append(pages, p)
	}
	return w, pages
}

// nearest returns, for each page, the distance to the closest earlier page
// of its family (65 if none) and to the closest earlier page of another
// family or of none (65 if none).
func nearest(pages []measuredPage, fps []uint64) (fam, other []int) {
	fam, other = make([]int, len(pages)), make([]int, len(pages))
	for j := range pages {
		fam[j], other[j] = 65, 65
		for i := range j {
			d := Distance(fps[i], fps[j])
			if f := pages[j].family; f >= 0 && pages[i].family == f {
				fam[j] = min(fam[j], d)
			} else {
				other[j] = min(other[j], d)
			}
		}
	}
	return fam, other
}

// score is how "within k of an earlier page" judges near-duplicates.
type score struct {
	marked    int // within k of any earlier page
	correct   int // within k of an earlier page of the same family
	dups      int // with an earlier page of the same family
	unrelated int // within k of an earlier page of another family or of none
	// As FindOrAdd judges: within k of an earlier page not itself marked.
	kept, keptCorrect int
}

// addKept scores FindOrAdd's verdicts, by brute force: a page is compared
// with the earlier pages that were not near-duplicates.
func (s *score) addKept(pages []measuredPage, fps []uint64, k int) {
	var kept []int
	for j := range pages {
		best, bestI := k+1, -1
		for _, i := range kept {
			if d := Distance(fps[i], fps[j]); d < best {
				best, bestI = d, i
			}
		}
		if bestI < 0 {
			kept = append(kept, j)
			continue
		}
		s.kept++
		if f := pages[j].family; f >= 0 && pages[bestI].family == f {
			s.keptCorrect++
		}
	}
}

func (s *score) add(fam, other []int, k int) {
	for j := range fam {
		if fam[j] <= 64 {
			s.dups++
		}
		if fam[j] <= k {
			s.correct++
		}
		if other[j] <= k {
			s.unrelated++
		}
		if fam[j] <= k || other[j] <= k {
			s.marked++
		}
	}
}

func (s score) precision() float64  { return ratio(s.correct, s.marked) }
func (s score) recall() float64     { return ratio(s.correct, s.dups) }
func (s score) keptRecall() float64 { return ratio(s.keptCorrect, s.dups) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// schemes are the feature schemes measured: "-digits" drops words with a
// digit, "links/4" gives link text a quarter of the weight of other text
// ("-links": none), "short/4" does so for the words of blocks of fewer than
// 10 words ("-short": drops them). The first is OfHTML's.
var schemes = []struct {
	name string
	f    features
}{
	{"*3-sh -digits short/4 links/4", htmlFeatures},
	{"words", features{shingle: 1, text: 1, anchor: 1, numbers: true}},
	{"2-shingles", features{shingle: 2, text: 1, anchor: 1, numbers: true}},
	{"3-shingles", features{shingle: 3, text: 1, anchor: 1, numbers: true}},
	{"4-shingles", features{shingle: 4, text: 1, anchor: 1, numbers: true}},
	{"3-sh -digits", features{shingle: 3, text: 1, anchor: 1}},
	{"3-sh links/4", features{shingle: 3, text: 4, anchor: 1, numbers: true}},
	{"3-sh -links", features{shingle: 3, text: 1, anchor: 0, numbers: true}},
	{"words -digits links/4", features{shingle: 1, text: 4, anchor: 1}},
	{"2-sh -digits links/4", features{shingle: 2, text: 4, anchor: 1}},
	{"3-sh -digits links/4", features{shingle: 3, text: 4, anchor: 1}},
	{"4-sh -digits links/4", features{shingle: 4, text: 4, anchor: 1}},
	{"3-sh -digits -links", features{shingle: 3, text: 1, anchor: 0}},
	{"words -digits short/4", features{shingle: 1, text: 4, anchor: 4, short: 10, shortWeight: 1}},
	{"2-sh -digits short/4", features{shingle: 2, text: 4, anchor: 4, short: 10, shortWeight: 1}},
	{"3-sh -digits short/4", features{shingle: 3, text: 4, anchor: 4, short: 10, shortWeight: 1}},
	{"4-sh -digits short/4", features{shingle: 4, text: 4, anchor: 4, short: 10, shortWeight: 1}},
	{"3-sh short/4 links/4", features{shingle: 3, text: 4, anchor: 1, numbers: true, short: 10, shortWeight: 1}},
	{"3-sh -digits short5/4 l/4", features{shingle: 3, text: 4, anchor: 1, short: 5, shortWeight: 1}},
	{"3-sh -digits short20/4 l/4", features{shingle: 3, text: 4, anchor: 1, short: 20, shortWeight: 1}},
	{"3-sh -digits -short", features{shingle: 3, text: 1, anchor: 1, short: 10, shortWeight: 0}},
}

// row measures feature scheme f on webs, for k from kLo to kHi.
func row(webs [][]measuredPage, f features, kLo, kHi int) string {
	var famAll, otherAll []int
	scores := make([]score, kHi+1)
	for _, pages := range webs {
		fps := make([]uint64, len(pages))
		for i := range pages {
			fps[i] = pages[i].fingerprint(f)
		}
		fam, other := nearest(pages, fps)
		for k := kLo; k <= kHi; k++ {
			scores[k].add(fam, other, k)
			scores[k].addKept(pages, fps, k)
		}
		famAll = append(famAll, fam...)
		otherAll = append(otherAll, other...)
	}
	var dd []int // distance of each near-duplicate to its closest earlier family member
	for _, d := range famAll {
		if d <= 64 {
			dd = append(dd, d)
		}
	}
	slices.Sort(dd)
	q := func(p float64) int { return dd[int(p*float64(len(dd)-1))] }
	var b strings.Builder
	fmt.Fprintf(&b, "%2d/%2d/%2d %5d", q(0.5), q(0.9), dd[len(dd)-1], slices.Min(otherAll))
	for k := kLo; k <= kHi; k++ {
		s := scores[k]
		fmt.Fprintf(&b, " | %.2f %.2f %4d %.2f", s.precision(), s.recall(), s.unrelated, s.keptRecall())
	}
	return b.String()
}

// header is the header of rows from kLo to kHi.
func header(first string, kLo, kHi int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s dup 50/90/max unrel", first)
	for k := kLo; k <= kHi; k++ {
		fmt.Fprintf(&b, " | k=%d P  R     U  R1  ", k)
	}
	return b.String()
}

// TestMeasureFeatures prints, for each feature scheme, the distance of
// each near-duplicate to the closest earlier page of its family (median,
// 90th percentile, maximum), the least distance of a page to an earlier
// unrelated page ("unrel"), and for k = 3..8 the precision P and recall R
// of "within k of an earlier page" (a match is correct if within k of an
// earlier page of the family), U the number of pages within k of an
// earlier unrelated page, and R1 the recall of Index.FindOrAdd (compared
// with the earlier pages that were not near-duplicates). Then the same
// for OfHTML on webs of other shapes. Run it with
//
//	go test -run=TestMeasureFeatures -v ./simhash
func TestMeasureFeatures(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("measurement: skipped in -short and with -race")
	}
	var webs [][]measuredPage
	n, dups := 0, 0
	for _, seed := range measureSeeds {
		cfg := measureConfig
		cfg.Seed = seed
		_, pages := fetchWeb(t, cfg)
		webs = append(webs, pages)
		n += len(pages)
		for _, d := range must(nearest(pages, make([]uint64, len(pages)))) {
			if d <= 64 {
				dups++
			}
		}
	}
	var tab strings.Builder
	fmt.Fprintf(&tab, "%d pages, %d near-duplicates of an earlier page (3 webs: seeds %v, 10 hosts of 50 pages of 4 KiB, 10 story families per host)\n",
		n, dups, measureSeeds)
	fmt.Fprintf(&tab, "%s\n", header(fmt.Sprintf("%-30s", "features"), 3, 8))
	for _, sc := range schemes {
		fmt.Fprintf(&tab, "%-30s %s\n", sc.name, row(webs, sc.f, 3, 8))
	}
	fmt.Fprintf(&tab, "\nOfHTML on other webs (seed 5)\n%s\n", header(fmt.Sprintf("%-42s", "web"), 3, 5))
	for _, c := range []struct {
		name string
		cfg  crawlertest.Config
	}{
		{"PageBytes 1024 (stories of 40-200 words)", crawlertest.Config{PageBytes: 1024}},
		{"PageBytes 2048", crawlertest.Config{PageBytes: 2048}},
		{"PageBytes 8192", crawlertest.Config{PageBytes: 8192}},
		{"20 hosts of 100 pages, 5 story hosts, Zipf", crawlertest.Config{Hosts: 20, PagesPerHost: 100, NearDuplicates: 5, Popularity: 1}},
	} {
		cfg := c.cfg
		cfg.Seed = 5
		if cfg.NearDuplicates == 0 {
			cfg.NearDuplicates = crawlertest.DefaultHosts
		}
		_, pages := fetchWeb(t, cfg)
		fmt.Fprintf(&tab, "%-42s %s\n", c.name, row([][]measuredPage{pages}, htmlFeatures, 3, 5))
	}
	t.Logf("\n%s", tab.String())
}

// must returns the first of two values.
func must[T any](a, _ T) T { return a }

// TestChosenFeatures checks the chosen setting, OfHTML and an Index of
// DefaultDistance used as a crawler would (FindOrAdd of each page in crawl
// order), against the ground truth: precision ≥ 0.95, recall ≥ 0.90, and
// no page merged with an unrelated earlier page, neither by the Index nor
// by brute force over all earlier pages.
func TestChosenFeatures(t *testing.T) {
	seeds := measureSeeds
	if raceEnabled {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		cfg := measureConfig
		cfg.Seed = seed
		w, pages := fetchWeb(t, cfg)
		idx := NewIndex(0)
		order := make([]string, len(pages))
		matches := map[string]string{}
		fps := make([]uint64, len(pages))
		for i := range pages {
			order[i] = pages[i].url
			fps[i] = OfHTML(pages[i].body)
			if got := pages[i].fingerprint(htmlFeatures); got != fps[i] {
				t.Fatalf("%s: fingerprint from visible text %#x, OfHTML %#x", pages[i].url, got, fps[i])
			}
			if j, _, ok := idx.FindOrAdd(fps[i], uint64(i)); ok {
				matches[pages[i].url] = pages[j].url
			}
		}
		s := w.ScoreNearDuplicates(order, matches)
		t.Logf("seed %d: %d pages, %d near-duplicates, %d marked, precision %.3f, recall %.3f, %d unrelated",
			seed, s.Pages, s.Duplicates, s.Marked, s.Precision(), s.Recall(), s.Unrelated())
		if s.Precision() < 0.95 || s.Recall() < 0.90 || s.Unrelated() != 0 {
			t.Errorf("seed %d: precision %.3f (want ≥ 0.95), recall %.3f (want ≥ 0.90), %d unrelated merges (want 0)",
				seed, s.Precision(), s.Recall(), s.Unrelated())
		}
		_, other := nearest(pages, fps)
		var brute score
		brute.add(make([]int, len(pages)), other, DefaultDistance)
		if brute.unrelated != 0 {
			t.Errorf("seed %d: %d pages within %d of an unrelated earlier page", seed, brute.unrelated, DefaultDistance)
		}
		if s.Duplicates < 150 {
			t.Errorf("seed %d: only %d near-duplicates: the measurement is too small", seed, s.Duplicates)
		}
	}
}
