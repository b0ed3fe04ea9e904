package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"crawler/fetch"
	"crawler/warc"
)

// List, verify and extract from the file a crawl's warc.Writer wrote:
// the JSON lines of list (here, some of their fields: offsets and dates
// vary), the summary of verify, and a chunked page's payload.
func Example() {
	dir, err := os.MkdirTemp("", "warc-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	w, err := warc.NewWriter(dir, warc.Options{})
	if err != nil {
		log.Fatal(err)
	}
	err = w.Record(context.Background(), &fetch.Exchange{
		URL:      "http://example.com/",
		Date:     time.Date(2026, 11, 26, 3, 15, 0, 0, time.UTC),
		Request:  []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"),
		Response: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"),
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	file := w.Files()[0]

	var out bytes.Buffer
	if err := run([]string{"list", "-json", file}, &out, os.Stderr); err != nil {
		log.Fatal(err)
	}
	for dec := json.NewDecoder(&out); dec.More(); {
		var e entry
		if err := dec.Decode(&e); err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.Type, e.Status, e.ContentType, orDash(e.URI))
	}
	if err := run([]string{"verify", file}, &out, os.Stderr); err != nil {
		log.Fatal(err)
	}
	fmt.Print(out.String())
	if err := run([]string{"extract", "-payload", "-uri", "http://example.com/", file}, os.Stdout, io.Discard); err != nil {
		log.Fatal(err)
	}
	// Output:
	// warcinfo 0 application/warc-fields -
	// request 0 application/http;msgtype=request http://example.com/
	// response 200 text/plain http://example.com/
	// 1 file, 3 records: 3 verified, 0 without digests, 0 bad
	// hello world
}
