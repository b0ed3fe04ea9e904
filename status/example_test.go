package status_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"

	"crawler"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/status"
)

// A crawl of a small site on loopback, watched on its status page: the
// Monitor sees the pages through the Handler, samples the crawl every
// second, and serves the page, /status.json and the controls; the stop
// control cancels the crawl.
func ExampleMonitor() {
	site := http.NewServeMux()
	site.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Home</title><a href="/a">A</a> <a href="/b">B</a>`)
	})
	site.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `<title>A</title>`) })
	site.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `<title>B</title>`) })
	web := httptest.NewServer(site)
	defer web.Close()

	c := &crawler.Crawler{
		Pacing: politeness.Pacing{Delay: -1}, // our own server: no politeness delay
		Fetcher: &fetch.HTTPFetcher{Addresses: fetch.AddressPolicy{
			AllowAddrPorts: []netip.AddrPort{netip.MustParseAddrPort(web.Listener.Addr().String())},
		}},
	}
	m := status.New(c, status.Options{})
	c.Handler = m.Wrap(nil) // or m.Wrap(yourHandler)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go m.Run(ctx)

	addr, err := status.CheckAddr("", "") // loopback, any free port
	if err != nil {
		fmt.Println(err)
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := &http.Server{Handler: m.Handler(status.ServerOptions{Stop: cancel})}
	go srv.Serve(ln)
	defer srv.Close()
	fmt.Println("status page at", addr)

	if err := c.Run(ctx, web.URL+"/"); err != nil {
		fmt.Println(err)
	}
	m.Finish()

	resp, err := http.Get("http://" + ln.Addr().String() + "/status.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var s status.Snapshot
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		fmt.Println(err)
		return
	}
	var titles []string
	for _, p := range s.RecentPages {
		titles = append(titles, p.Title)
	}
	slices.Sort(titles) // workers run in parallel: sort for a stable output
	fmt.Println(s.State, s.Stats.Fetched, "pages:", titles)
	// Output:
	// status page at 127.0.0.1:0
	// finished 3 pages: [A B Home]
}
