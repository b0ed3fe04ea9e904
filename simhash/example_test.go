package simhash_test

import (
	"fmt"
	"strings"

	"crawler/simhash"
)

// A crawler keeps one Index for the whole crawl and asks it, for each page
// fetched, whether an earlier page was a near-duplicate.
func ExampleIndex_FindOrAdd() {
	article := `<p>The river runs past the old stone mill and on towards the harbor, where the
boats of the fishermen wait for the morning tide. Nobody remembers who built the mill,
but everybody in the valley has a story about the miller and his seven daughters.</p>
<p>In spring the water rises over the weir, and the children of the village come down
to watch the wheel turn faster than it ever does in summer. The miller's grandson still
grinds a little flour for the bakery on market days, though the great stones are worn
smooth and the roof lets in the rain above the loft where the sacks were stored.</p>
<p>The council has promised to mend the roof before winter. Until then the mill stands
as it has for two hundred years, half ruin and half working machine, and the river
goes on past it towards the sea without paying it any attention at all.</p>`
	pages := []struct {
		url, body string
	}{
		{"/story/1", "<h1>The mill</h1><p>Updated Monday 3 May, 10:15</p>" + article + "<p>Read 1,024 times</p>"},
		{"/story/1?print", "<h1>The mill</h1><p>Updated Tuesday 4 May, 18:40</p>" + article + "<p>Read 2,311 times</p>"},
		{"/story/2", "<h1>The harbor</h1><p>A different story altogether, about boats, nets and the sea.</p>"},
	}
	idx := simhash.NewIndex(0) // k = DefaultDistance
	for id, p := range pages {
		fp := simhash.OfHTML([]byte(p.body))
		if earlier, dist, ok := idx.FindOrAdd(fp, uint64(id)); ok {
			fmt.Printf("%s: near-duplicate of %s (distance %d)\n", p.url, pages[earlier].url, dist)
		} else {
			fmt.Printf("%s: new\n", p.url)
		}
	}
	// Output:
	// /story/1: new
	// /story/1?print: near-duplicate of /story/1 (distance 1)
	// /story/2: new
}

// A Hasher fingerprints features of the caller's choosing, here words
// weighted by their length.
func ExampleHasher() {
	var h simhash.Hasher
	for _, w := range strings.Fields("a rose is a rose is a rose") {
		h.AddString(w, len(w))
	}
	a := h.Sum()
	h.Reset()
	for _, w := range strings.Fields("a rose is a rose is a tulip") {
		h.AddString(w, len(w))
	}
	fmt.Println(simhash.Distance(a, h.Sum()) < 32)
	// Output: true
}
