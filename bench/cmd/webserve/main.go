// Command webserve serves a crawlertest web on loopback for the
// measurements of cluster.sh and durable.sh: it prints the address of its
// proxy and the web's seed on one line, and on SIGINT or SIGTERM the
// server's own count of requests, pages missed and fetched more than once,
// and robots.txt violations.
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
	latency := flag.Duration("latency", 0, "how long each answer takes")
	hosts := flag.Int("hosts", 20000, "hosts of the web")
	pages := flag.Int("pages", 100, "pages per host")
	seed := flag.Int64("seed", 7, "the web's random seed")
	flag.Parse()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: *seed, Hosts: *hosts, PagesPerHost: *pages, PageBytes: 4096, Latency: *latency})
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
