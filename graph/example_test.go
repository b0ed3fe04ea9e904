package graph_test

import (
	"bytes"
	"fmt"

	"crawler/graph"
)

// Example records a small crawl, with a redirect and a link to a page not
// fetched, reads it back and ranks its pages.
func Example() {
	var file bytes.Buffer // or graph.Create(path)
	w := graph.NewWriter(&file)
	w.Page("http://a.test/", []string{"http://a.test/b", "http://a.test/c", "http://other.test/"})
	w.Page("http://a.test/b", []string{"http://a.test/"})
	w.Redirect("http://a.test/old", "http://a.test/")
	w.Page("http://a.test/c", []string{"http://a.test/old", "http://a.test/b"})
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}

	g, err := graph.Read(&file)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := graph.PageRank(g, graph.PageRankOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d pages, %d edges, %d iterations\n", g.Len(), g.Edges(), res.Iterations)
	for k := range g.Len() {
		fmt.Printf("%-16s %.4f links to %d\n", g.URL(k), res.Ranks[k], len(g.Out(k)))
	}
	// Output:
	// 3 pages, 5 edges, 24 iterations
	// http://a.test/   0.4327 links to 2
	// http://a.test/b  0.3333 links to 1
	// http://a.test/c  0.2339 links to 2
}
