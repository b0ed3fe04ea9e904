package warc_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"crawler/fetch"
	"crawler/warc"
)

// Write two exchanges, a page and a 304, then read the file back.
func Example() {
	dir, err := os.MkdirTemp("", "warc-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	w, err := warc.NewWriter(dir, warc.Options{Info: []warc.Field{{"operator", "ops@example.com"}}})
	if err != nil {
		log.Fatal(err)
	}
	sent := time.Date(2026, 11, 26, 3, 15, 0, 0, time.UTC)
	for _, resp := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nETag: \"v1\"\r\n\r\nhello",
		"HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n",
	} {
		err := w.Record(context.Background(), &fetch.Exchange{
			URL:      "http://example.com/",
			IP:       "192.0.2.1",
			Date:     sent,
			Request:  []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"),
			Response: []byte(resp),
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	f, err := os.Open(w.Files()[0])
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	for rec, err := range warc.NewReader(f).All() {
		if err != nil {
			log.Fatal(err)
		}
		// (the warcinfo record's WARC-Date is when the file was started)
		fmt.Printf("%-8s %q payload=%q verify=%v\n", rec.Type(), rec.Get("WARC-Target-URI"),
			rec.Get("WARC-Payload-Digest"), rec.Verify())
	}
	// Output:
	// warcinfo "" payload="" verify=<nil>
	// request  "http://example.com/" payload="" verify=<nil>
	// response "http://example.com/" payload="sha1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N" verify=<nil>
	// request  "http://example.com/" payload="" verify=<nil>
	// revisit  "http://example.com/" payload="" verify=<nil>
}
