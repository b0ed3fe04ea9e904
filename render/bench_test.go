package render

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"crawler/fetch"
)

// benchPages is a small site of script-made pages: each loads a shared
// script, which fetches the page's JSON and makes its links from it, and
// adds one more link after a timer.
func benchPages(n int) map[string]resource {
	pages := map[string]resource{
		"/app.js": js(`
const id = location.pathname.slice(3);
fetch("/data/" + id + ".json").then(r => r.json()).then(d => {
	for (const l of d.links) document.body.insertAdjacentHTML("beforeend", '<a href="' + l + '">' + l + '</a>');
});
setTimeout(() => document.body.insertAdjacentHTML("beforeend", '<a href="/later">later</a>'), 50);`),
	}
	for i := range n {
		id := strconv.Itoa(i)
		pages["/p/"+id] = html(`<!doctype html><html><head><title>page ` + id + `</title></head>
<body><h1>page ` + id + `</h1><script src="/app.js"></script></body></html>`)
		pages["/data/"+id+".json"] = resource{ctype: "application/json",
			body: fmt.Sprintf(`{"links": ["/p/%d", "/p/%d", "/p/%d"]}`, (i+1)%n, (i+2)%n, (i+3)%n)}
	}
	return pages
}

// BenchmarkRender measures pages rendered per second on a small script
// site on loopback, at several numbers of tabs and idle times. Run it
// with a fixed count, since each page takes at least Idle:
//
//	go test -run '^$' -bench Render -benchtime 40x ./render
func BenchmarkRender(b *testing.B) {
	const n = 50
	for _, idle := range []time.Duration{DefaultIdle, 100 * time.Millisecond} {
		for _, tabs := range []int{1, 4, 8} {
			b.Run(fmt.Sprintf("idle=%v/tabs=%d", idle, tabs), func(b *testing.B) {
				s := newSite(b, benchPages(n))
				f := newFetcher(b, s, func(f *Fetcher) {
					f.Tabs, f.Idle, f.Logger = tabs, idle, nil
				})
				if err := warm(context.Background(), f, s); err != nil {
					b.Fatal(err)
				}
				var next, links atomic.Int64
				b.SetParallelism(tabs) // GOMAXPROCS×tabs goroutines: tabs stay busy
				start := time.Now()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						i := next.Add(1) % n
						resp, err := f.Fetch(context.Background(), &fetch.Request{URL: s.URL + "/p/" + strconv.FormatInt(i, 10)})
						if err != nil {
							b.Error(err)
							return
						}
						links.Add(int64(len(hrefs(resp.Body))))
					}
				})
				elapsed := time.Since(start)
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pages/s")
				b.ReportMetric(float64(links.Load())/float64(b.N), "links/page")
			})
		}
	}
}
