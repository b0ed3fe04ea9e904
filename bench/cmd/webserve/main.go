// Command webserve serves a crawlertest web on loopback for the
// measurements of cluster.sh and durable.sh: it prints the address of its
// proxy and the web's seed on one line, and on SIGINT or SIGTERM the
// server's own count of requests, pages missed and fetched more than once,
// and robots.txt violations. -equal serves a web whose hosts are of
// about the same size.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"crawler/crawlertest"
)

func main() {
	latency := flag.Duration("latency", 0, "how long each answer takes")
	hosts := flag.Int("hosts", 20000, "hosts of the web")
	pages := flag.Int("pages", 100, "pages per host")
	seed := flag.Int64("seed", 7, "the web's random seed")
	equal := flag.Bool("equal", false, "hosts of about equal size: every robots.txt answers 404, where a host "+
		"with one keeps the crawler from its /private/ pages (at 100 pages a host: 853 to 1,088 URLs, not 553 to 1,023)")
	flag.Parse()
	cfg := crawlertest.Config{Seed: *seed, Hosts: *hosts, PagesPerHost: *pages, PageBytes: 4096, Latency: *latency}
	if *equal {
		cfg.Behavior = func(int) crawlertest.Behavior { return crawlertest.Behavior{RobotsStatus: http.StatusNotFound} }
	}
	w := crawlertest.NewWeb(cfg)
	fmt.Println(w.ProxyURL(), w.Seeds()[0])
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	missed, extra := w.Coverage(w.Seeds()...)
	violations := 0
	for u := range w.RequestCounts() {
		if w.RobotsDisallows(u) {
			violations++
		}
	}
	fmt.Printf("requests=%d missed=%d extra=%d robots_violations=%d\n", w.TotalRequests(), missed, extra, violations)
	w.Close()
}
