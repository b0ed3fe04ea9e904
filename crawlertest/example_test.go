package crawlertest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"crawler/crawlertest"
)

// Example serves a web, fetches its seed with the web's client, and reads
// the ground truth of a crawl.
func Example() {
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 1})
	defer w.Close()

	resp, err := w.Client().Get(w.Seeds()[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, title, _ := strings.Cut(string(body), "<title>")
	title, _, _ = strings.Cut(title, "</title>")
	fmt.Println(resp.Status, title)

	depths := w.Depths() // every URL a compliant crawler fetches, with its depth
	fmt.Println(depths["http://h0.crawler.test/"], depths["http://h0.crawler.test/p/1"], depths["http://h1.crawler.test/"])
	// Output:
	// 200 OK Host 0 page 0
	// 0 1 1
}

// ExampleWeb_Requests shows that the request log counts a page fetched under
// two spellings twice, under its canonical URL.
func ExampleWeb_Requests() {
	w := crawlertest.NewWeb(crawlertest.Config{})
	defer w.Close()
	c := w.Client()
	for _, u := range []string{"http://h3.crawler.test/p/5", "HTTP://H3.Crawler.Test:80/x/../p/%35"} {
		resp, err := c.Get(u)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
	}
	fmt.Println(w.Requests("http://h3.crawler.test/p/5"), w.RequestCounts())
	// Output:
	// 2 map[http://h3.crawler.test/p/5:2]
}

// ExampleBehavior serves a web whose host h1 throttles every second page
// request and whose host h2's robots.txt fails with 503, and shows what a
// compliant crawler may and may not request.
func ExampleBehavior() {
	w := crawlertest.NewWeb(crawlertest.Config{
		Hosts: 3,
		Log:   true,
		Behavior: func(h int) crawlertest.Behavior {
			switch h {
			case 1:
				return crawlertest.Behavior{ThrottleEvery: 2, RetryAfter: "1"}
			case 2:
				return crawlertest.Behavior{RobotsStatus: 503}
			}
			return crawlertest.Behavior{}
		},
	})
	defer w.Close()

	c := w.Client()
	for _, u := range []string{"http://h1.crawler.test/", "http://h1.crawler.test/p/1", "http://h2.crawler.test/robots.txt"} {
		resp, err := c.Get(u)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Printf("%s %d Retry-After=%q\n", u, resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// A request is logged once its handler has returned, which may be
	// after the client has the response: Close waits for every handler.
	w.Close()
	for _, l := range w.Log() {
		fmt.Println(l.URL, l.Robots, l.Status)
	}
	_, ok := w.Depths()["http://h2.crawler.test/"]
	fmt.Println("h2 home in Depths:", ok, "- first Unreachable:", w.Unreachable()[0])
	// Output:
	// http://h1.crawler.test/ 200 Retry-After=""
	// http://h1.crawler.test/p/1 429 Retry-After="1"
	// http://h2.crawler.test/robots.txt 503 Retry-After=""
	// http://h1.crawler.test/ false 200
	// http://h1.crawler.test/p/1 false 429
	// http://h2.crawler.test/robots.txt true 503
	// h2 home in Depths: false - first Unreachable: http://h2.crawler.test/
}

// ExampleTrap serves a web whose host h4 is a calendar trap, and reads the
// ground truth: the trap is left out of the good pages and their PageRank.
func ExampleTrap() {
	w := crawlertest.NewWeb(crawlertest.Config{
		Hosts:      5,
		Popularity: 1,
		Traps: func(h int) crawlertest.Trap {
			if h == 4 {
				return crawlertest.Calendar
			}
			return crawlertest.NoTrap
		},
	})
	defer w.Close()

	resp, err := w.Client().Get("http://h4.crawler.test/") // the trap's entry
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, next, _ := strings.Cut(string(body), `<a href="/calendar?month=2025-`)
	fmt.Println(resp.Status, "next month: 2025-"+next[:2])
	fmt.Println(w.TrapHosts(), w.IsTrap("HTTP://H4.Crawler.Test/calendar?month=2031-07"), w.TrapRequests())

	good := w.GoodPages()
	rank := w.PageRank()
	sum := 0.0
	for _, u := range good {
		sum += rank[u]
	}
	fmt.Printf("%d good pages, PageRank sums to %.6f, h0's home has %.4f\n", len(good), sum, rank["http://h0.crawler.test/"])
	// Output:
	// 200 OK next month: 2025-02
	// [h4.crawler.test] true 1
	// 231 good pages, PageRank sums to 1.000000, h0's home has 0.0372
}

// ExampleFaultServer fetches the gzip bomb, reading only the first 10 MiB
// of the 4 GiB it inflates to, and the redirect chain's first hop.
func ExampleFaultServer() {
	s := crawlertest.NewFaultServer(crawlertest.FaultConfig{})
	defer s.Close()
	client := s.Client()
	defer client.CloseIdleConnections()

	resp, err := client.Get(s.URL(crawlertest.GzipBomb))
	if err != nil {
		fmt.Println(err)
		return
	}
	n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 10<<20))
	resp.Body.Close()
	fmt.Println(resp.Status, resp.Uncompressed, n, err)

	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err = client.Get(s.URL(crawlertest.RedirectChain))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.Status, resp.Header.Get("Location"))
	fmt.Println(s.Requests(crawlertest.RedirectChain))
	// Output:
	// 200 OK true 10485760 <nil>
	// 301 Moved Permanently /hop/1
	// [redirect-chain.faults.test/]
}
