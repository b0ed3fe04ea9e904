package crawlertest

import (
	"fmt"
	"testing"
)

// storyGen returns a test generator whose first n hosts are story hosts.
func storyGen(hosts, pages, n int) *gen {
	g := testGen(hosts, pages, 10)
	g.setStories(n)
	return g
}

// storyDocs returns every story of g.
func (g *gen) storyDocs() []res {
	var out []res
	for h := range g.hosts {
		for f := range g.storyFamilies(h) {
			size, _ := g.family(h, f)
			for v := range size {
				out = append(out, story(h, f, v))
			}
		}
	}
	return out
}

// TestStoryHrefsResolve checks that the hrefs of stories, and of the pages
// of story hosts, resolve to their links' targets.
func TestStoryHrefsResolve(t *testing.T) {
	g := storyGen(4, 30, 2)
	docs := g.storyDocs()
	for h := range 2 {
		for n := range g.pages {
			docs = append(docs, page(h, n))
		}
	}
	checkHrefs(t, g, docs, map[string]bool{})
}

// TestStoryStructure checks the stories of generators of several sizes:
// their URLs round-trip through route (and others are refused), each is
// linked from exactly one page of its host, and their own links are the
// nav bar and 2 to 4 related links, all on their host.
func TestStoryStructure(t *testing.T) {
	for _, c := range []struct{ hosts, pages, n int }{{4, 30, 2}, {3, 50, 9}, {2, 1, 1}, {2, 4, 2}, {3, 101, 1}} {
		t.Run(fmt.Sprintf("hosts=%d/pages=%d/n=%d", c.hosts, c.pages, c.n), func(t *testing.T) {
			g := storyGen(c.hosts, c.pages, c.n)
			linked := map[res]int{}
			var ls []link
			for h := range g.hosts {
				for n := range g.pages {
					for _, l := range g.links(ls[:0], page(h, n)) {
						if l.to.kind == kindStory {
							if l.to.host != int32(h) || l.nofollow {
								t.Fatalf("page %d of h%d links to %+v", n, h, l)
							}
							linked[l.to]++
						}
					}
				}
			}
			sizes := map[int]int{}
			for h := range g.hosts {
				families := g.storyFamilies(h)
				if (families > 0) != (h < min(c.n, c.hosts)) {
					t.Fatalf("host %d: %d families", h, families)
				}
				if p := fmt.Sprintf("/story/%d/0", families); routes(g, h, p) {
					t.Errorf("host %d routes %s", h, p)
				}
				for f := range families {
					size, _ := g.family(h, f)
					sizes[size]++
					if size < 1 || size > maxVariants {
						t.Fatalf("family %d of host %d: size %d", f, h, size)
					}
					if p := fmt.Sprintf("/story/%d/%d", f, size); routes(g, h, p) {
						t.Errorf("host %d routes %s, beyond its family", h, p)
					}
					for v := range size {
						r := story(h, f, v)
						p := string(appendPath(nil, r))
						if got, ok := g.route(h, p); !ok || got != r {
							t.Fatalf("route(%d, %q) = %+v, %v", h, p, got, ok)
						}
						if linked[r] != 1 {
							t.Errorf("%s is linked from %d pages, want 1", canonical(r), linked[r])
						}
						ls = g.links(ls[:0], r)
						if len(ls) < storyNav+minRelated || len(ls) > storyNav+minRelated+2 || ls[0].to != page(h, 0) {
							t.Fatalf("%s: links %+v", canonical(r), ls)
						}
						for _, l := range ls {
							if l.to.host != int32(h) || l.nofollow || (l.to.kind != kindPage && l.to.kind != kindStory) {
								t.Fatalf("%s links to %+v", canonical(r), l)
							}
							if _, ok := g.route(h, string(appendPath(nil, l.to))); !ok {
								t.Fatalf("%s links to %s, which does not route", canonical(r), canonical(l.to))
							}
						}
					}
				}
			}
			if c.pages >= 30 && (sizes[1] == 0 || sizes[maxVariants] == 0) {
				t.Errorf("family sizes %v: want singletons and full families", sizes)
			}
		})
	}
}

func routes(g *gen, h int, p string) bool {
	_, ok := g.route(h, p)
	return ok
}

// TestStoriesSkipTraps checks that story hosts are the first good hosts.
func TestStoriesSkipTraps(t *testing.T) {
	g := testGen(6, 10, 5)
	g.setTraps(func(h int) Trap {
		if h == 1 || h == 2 {
			return Calendar
		}
		return NoTrap
	})
	g.setStories(2)
	for h, want := range []bool{true, false, false, true, false, false} {
		if got := g.storyFamilies(h) > 0; got != want {
			t.Errorf("host %d: story host %v, want %v", h, got, want)
		}
	}
}
