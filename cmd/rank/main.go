// Command rank ranks the pages of a crawl's link graph, written by
// crawl -graph FILE, by PageRank and by Kleinberg's HITS.
//
//	rank [-top N] [-by pagerank|authority|hub] FILE
//
// It prints one JSON line per page on stdout, best first: url, pagerank,
// authority, hub, in_links and out_links; and on stderr the graph's size
// and the iterations each method took. The graph's nodes are the pages
// recorded (HTML pages fetched with a 2xx); a link to anything else is no
// edge, and a link to a redirect is an edge to where the redirect leads
// (see package graph).
//
// Exit status: 0 when the ranks were printed; 1 when the file could not
// be read or the ranking failed; 2 for bad usage.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"crawler/graph"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rank:", err)
	}
	var usage usageError
	switch {
	case errors.As(err, &usage):
		os.Exit(2)
	case err != nil:
		os.Exit(1)
	}
}

// usageError is a mistake in the command line.
type usageError struct{ error }

// defaultTop is the number of pages -top 0 prints.
const defaultTop = 20

// line is one page of the output.
type line struct {
	URL       string  `json:"url"`
	PageRank  float64 `json:"pagerank"`
	Authority float64 `json:"authority"`
	Hub       float64 `json:"hub"`
	InLinks   int     `json:"in_links"`
	OutLinks  int     `json:"out_links"`
}

// usageHead is the start of -h: what the command reads, what it prints
// where, and its exit statuses. The flags follow.
const usageHead = `usage: rank [-top N] [-by pagerank|authority|hub] FILE

Ranks the pages of FILE, the link graph a crawl wrote with crawl -graph FILE,
by PageRank and by Kleinberg's HITS. The graph's nodes are the HTML pages
fetched with a 2xx; a link to a redirect counts for where it leads.

Where output goes:
  stdout  one JSON line per page, best first by -by: url, pagerank,
          authority, hub, in_links, out_links.
  stderr  the graph's size (pages, edges) and the iterations each method
          took, and whether it converged.
  Example:
    crawl -graph g.bin -max-pages 1000 https://example.com/
    rank -top 10 -by authority g.bin | jq -r .url

Exit status: 0 the ranks were printed; 1 the file could not be read or the
ranking failed; 2 bad usage.

Flags:
`

// run ranks the graph that args name, writing the pages to stdout and the
// figures to stderr. -h prints the usage to stdout and returns nil.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rank", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, in one line
	fs.Usage = func() {}
	top := fs.Int("top", 0, fmt.Sprintf("pages to print (0: %d; negative: all)", defaultTop))
	by := fs.String("by", "pagerank", "order: pagerank, authority or hub")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usageHead)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() != 1 {
		return usageError{errors.New("want one FILE, the graph written by crawl -graph FILE (-h for usage)")}
	}
	if *by != "pagerank" && *by != "authority" && *by != "hub" {
		return usageError{fmt.Errorf("-by %q: want pagerank, authority or hub", *by)}
	}
	g, err := graph.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	pr, err := graph.PageRank(g, graph.PageRankOptions{})
	if err != nil {
		return err
	}
	hits, err := graph.HITS(g, graph.HITSOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "rank: %d pages, %d edges; PageRank %d iterations (converged %v), HITS %d (converged %v)\n",
		g.Len(), g.Edges(), pr.Iterations, pr.Converged, hits.Iterations, hits.Converged)

	in := make([]int, g.Len())
	for k := range g.Len() {
		for _, q := range g.Out(k) {
			in[q]++
		}
	}
	score := map[string][]float64{"pagerank": pr.Ranks, "authority": hits.Authorities, "hub": hits.Hubs}[*by]
	order := make([]int, g.Len())
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	n := *top
	switch {
	case n == 0:
		n = defaultTop
	case n < 0:
		n = len(order)
	}
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	for _, k := range order[:min(n, len(order))] {
		if err := enc.Encode(line{URL: g.URL(k), PageRank: pr.Ranks[k], Authority: hits.Authorities[k], Hub: hits.Hubs[k],
			InLinks: in[k], OutLinks: len(g.Out(k))}); err != nil {
			return err
		}
	}
	return w.Flush()
}
