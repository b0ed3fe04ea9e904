package peers

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/net/html"
)

// Reference is about the least a crawler must do: Workers goroutines take URLs
// from a channel, fetch them over keep-alive connections without following
// redirects (a Location is a link), tokenize HTML for <a href>, resolve
// links with net/url, drop fragments and queue the ones a map has not seen.
// It does not read robots.txt, canonicalize beyond net/url or pace hosts:
// its pages per second are the cost of fetch and parse alone, the practical
// limit of this machine.
func Reference(ctx context.Context, cfg Config) (Result, error) {
	client := &http.Client{
		Transport:     cfg.Transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	// The queue holds at most Budget URLs ever, so sends never block.
	queue := make(chan string, cfg.Budget)
	var (
		mu       sync.Mutex
		seen     = map[string]bool{}
		queued   int            // URLs ever sent to queue; ≤ Budget
		inFlight sync.WaitGroup // one per URL queued and not yet handled
		fetched  atomic.Int64
	)
	enqueue := func(links []string) {
		mu.Lock()
		defer mu.Unlock()
		for _, l := range links {
			if queued == cfg.Budget {
				return
			}
			if !seen[l] {
				seen[l] = true
				queued++
				inFlight.Add(1)
				queue <- l
			}
		}
	}
	enqueue(cfg.Seeds)
	go func() { inFlight.Wait(); close(queue) }()

	var workers sync.WaitGroup
	for range cfg.Workers {
		workers.Go(func() {
			var buf bytes.Buffer
			for u := range queue {
				if ctx.Err() == nil {
					fetched.Add(1)
					enqueue(fetchLinks(ctx, client, u, &buf))
				}
				inFlight.Done()
			}
		})
	}
	workers.Wait()
	return Result{Fetched: fetched.Load()}, ctx.Err()
}

// fetchLinks fetches u and returns its links: the Location of a redirect,
// or the <a href> of an HTML page.
func fetchLinks(ctx context.Context, client *http.Client, u string, buf *bytes.Buffer) []string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil
	}
	req.Header.Set("User-Agent", UserAgent)
	resp, err := client.Do(req)
	if err != nil {
		return nil
	}
	buf.Reset()
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil
	}
	base := resp.Request.URL
	if loc := resp.Header.Get("Location"); loc != "" {
		if t, err := base.Parse(loc); err == nil {
			t.Fragment = ""
			return []string{t.String()}
		}
		return nil
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		return nil
	}
	var links []string
	z := html.NewTokenizer(bytes.NewReader(buf.Bytes()))
	for {
		switch z.Next() {
		case html.ErrorToken: // io.EOF or a read error: the links so far
			return links
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			if string(name) != "a" {
				continue
			}
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				if string(k) == "href" {
					if t, err := base.Parse(string(v)); err == nil && (t.Scheme == "http" || t.Scheme == "https") {
						t.Fragment = ""
						links = append(links, t.String())
					}
				}
			}
		}
	}
}
