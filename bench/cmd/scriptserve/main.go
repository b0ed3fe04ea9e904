// Command scriptserve serves a crawlertest ScriptSite, whose links and
// content only JavaScript makes, on loopback for render.sh: it prints the
// site's address and seed on one line, and on SIGINT or SIGTERM how many
// of its script-made pages were requested, and the requests to robots.txt
// disallowed paths and to its canary (an address the crawl does not
// allow), which a policing renderer keeps at 0.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"crawler/crawlertest"
)

func main() {
	pages := flag.Int("pages", 50, "script-made pages of each kind (at once, after a timer, after a fetch of JSON)")
	flag.Parse()
	s := crawlertest.NewScriptSite(crawlertest.ScriptConfig{Pages: *pages})
	fmt.Println(s.Addr(), s.Seed())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	reached, forbidden := 0, 0
	for _, u := range s.ScriptOnlyPages() {
		if s.Requests(u[len(s.URL()):]) > 0 {
			reached++
		}
	}
	for _, p := range s.Forbidden() {
		forbidden += s.Requests(p)
	}
	fmt.Printf("script_pages=%d reached=%d forbidden_requests=%d canary_requests=%d\n",
		len(s.ScriptOnlyPages()), reached, forbidden, s.CanaryRequests())
	s.Close()
}
