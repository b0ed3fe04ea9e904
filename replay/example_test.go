package replay_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"crawler/fetch"
	"crawler/replay"
	"crawler/warc"
)

// A page fetched once, recorded, and fetched again from the archive with
// the server gone; a page never fetched is not archived.
func Example() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>home</title>")
	}))
	dir, _ := os.MkdirTemp("", "archive")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	w, _ := warc.NewWriter(dir, warc.Options{})
	live := &fetch.HTTPFetcher{Recorder: w, Addresses: loopback}
	live.Fetch(ctx, &fetch.Request{URL: site.URL + "/"})
	live.CloseIdleConnections()
	w.Close()
	site.Close()

	a, err := replay.Open(dir, replay.Options{})
	if err != nil {
		panic(err)
	}
	defer a.Close()
	resp, err := a.Fetch(ctx, &fetch.Request{URL: site.URL + "/"})
	fmt.Println(resp.Status, string(resp.Body), resp.Replayed, err)
	_, err = a.Fetch(ctx, &fetch.Request{URL: site.URL + "/other"})
	fmt.Println(fetch.ErrorKind(err))
	// Output:
	// 200 <title>home</title> true <nil>
	// not-archived
}
