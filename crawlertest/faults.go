package crawlertest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault is one way a web server can be broken or hostile. A [FaultServer]
// serves each Fault on a host of its own, named after it:
// http://slow-body.faults.test/ for SlowBody. The package doc says what
// each one serves.
type Fault string

// The faults a FaultServer serves, in the order of [Faults].
const (
	SlowBody        Fault = "slow-body"      // the body arrives one byte per FaultConfig.SlowInterval
	NoAnswer        Fault = "no-answer"      // connections are accepted and never read or answered
	ConnReset       Fault = "conn-reset"     // the connection is reset (TCP RST) halfway through the body
	TruncatedBody   Fault = "truncated-body" // a chunked body stops mid-chunk: the connection just closes
	LyingLength     Fault = "lying-length"   // Content-Length says 1 GiB and 1 KiB comes, or says 16 bytes and 4 KiB comes
	GzipBomb        Fault = "gzip-bomb"      // ~4 MiB of gzip that inflates to FaultBombBytes (4 GiB)
	EndlessBody     Fault = "endless-body"   // an HTML body that never ends
	RedirectLoop    Fault = "redirect-loop"  // /a -> /b -> /a, and /self -> /self
	RedirectChain   Fault = "redirect-chain" // "/" redirects FaultChainHops (50) times before a page
	ServerErrors    Fault = "5xx-storm"      // FaultStormPages pages answering 500, 502, 503, 504
	TooManyRequests Fault = "429-flood"      // FaultStormPages pages answering 429, Retry-After: 3600
	InvalidUTF8     Fault = "invalid-utf8"   // text and hrefs that are not UTF-8 on a page labelled UTF-8
	WrongCharset    Fault = "wrong-charset"  // pages whose charset label lies, or names no charset at all
	UnclosedTags    Fault = "unclosed-tags"  // tags, quotes and a comment left open
	HugeAttribute   Fault = "huge-attribute" // a FaultAttrBytes (1 MiB) attribute value; a tag of 524,288 attributes
	ManyLinks       Fault = "many-links"     // FaultLinks (1,000,000) links on one page
	ControlChars    Fault = "control-chars"  // hrefs with tabs, newlines, NUL, DEL and other controls
	LongURLs        Fault = "long-urls"      // hrefs and a redirect Location of up to FaultURLBytes (64 KiB)
	BadPercent      Fault = "bad-percent"    // hrefs with invalid percent-encoding ("/%zz", "/%")
	IDNHosts        Fault = "idn-hosts"      // links to internationalized host names (bücher.idn-hosts.faults.test)
	IPv6Hosts       Fault = "ipv6-hosts"     // links to IPv6 literal hosts ([2001:db8::1])
	OtherSchemes    Fault = "other-schemes"  // links with mailto:, javascript:, ftp:, file:, data: and other schemes
	HugeHeader      Fault = "huge-header"    // a response header of FaultHeaderBytes (1 MiB)
	HugeRobots      Fault = "huge-robots"    // a robots.txt of FaultRobotsBytes (2 MiB), a rule at each end
	BinaryRobots    Fault = "binary-robots"  // a robots.txt of gzip bytes sent as they are
	HTMLRobots      Fault = "html-robots"    // a robots.txt that is an HTML error page, status 200
)

var allFaults = [...]Fault{SlowBody, NoAnswer, ConnReset, TruncatedBody, LyingLength, GzipBomb, EndlessBody,
	RedirectLoop, RedirectChain, ServerErrors, TooManyRequests, InvalidUTF8, WrongCharset, UnclosedTags,
	HugeAttribute, ManyLinks, ControlChars, LongURLs, BadPercent, IDNHosts, IPv6Hosts, OtherSchemes,
	HugeHeader, HugeRobots, BinaryRobots, HTMLRobots}

// Faults returns every Fault a FaultServer serves. The slice is new on
// each call.
func Faults() []Fault { return append([]Fault(nil), allFaults[:]...) }

// Sizes of the faults, for tests to assert against.
const (
	FaultBombBytes   = 4 << 30   // GzipBomb: bytes the body inflates to
	FaultChainHops   = 50        // RedirectChain: redirects before the page
	FaultStormPages  = 50        // ServerErrors, TooManyRequests: failing pages linked from "/"
	FaultAttrBytes   = 1 << 20   // HugeAttribute: bytes of the long attribute value (and of the tag of many attributes)
	FaultLinks       = 1_000_000 // ManyLinks: links on the page
	FaultURLBytes    = 64 << 10  // LongURLs: bytes of the longest href and of the redirect Location
	FaultHeaderBytes = 1 << 20   // HugeHeader: bytes of the response header
	FaultRobotsBytes = 2 << 20   // HugeRobots: bytes of robots.txt
)

// DefaultSlowInterval is the wait between two bytes of SlowBody's body.
const DefaultSlowInterval = 2 * time.Second

// faultDomain is the domain under which every fault has its host.
const faultDomain = ".faults.test"

// maxLogged bounds the requests a FaultServer records per fault.
const maxLogged = 1 << 16

// FaultConfig configures a FaultServer. The zero value is the defaults.
type FaultConfig struct {
	// SlowInterval is the wait between two bytes of SlowBody's body.
	// 0 means DefaultSlowInterval; make it short, with a short fetch
	// timeout, to keep tests fast.
	SlowInterval time.Duration
}

// FaultServer serves every [Fault] on loopback, each on its own host
// <fault>.faults.test, routed by the Host header. Any subdomain of a
// fault's host is served the same way (w7.gzip-bomb.faults.test), so
// that a test can give one fault many hosts, and thus many requests in
// flight at once. IPv6Hosts also answers for the IPv6 literals of
// 2001:db8::/32. Every host but those of HugeRobots, BinaryRobots and
// HTMLRobots answers /robots.txt with 404.
//
// One listener on 127.0.0.1 serves HTTP; NoAnswer has a second one,
// which accepts connections and never reads from them. Reach the server
// through [FaultServer.DialContext], which dials those listeners and
// nothing else, or through the Client or Transport built on it.
//
// Create a FaultServer with NewFaultServer and stop it with Close. Its
// methods are safe for concurrent use.
type FaultServer struct {
	cfg        FaultConfig
	ln, silent net.Listener // HTTP; NoAnswer's
	srv        *http.Server

	mu     sync.Mutex
	closed bool
	log    map[Fault][]string
	conns  map[net.Conn]struct{} // accepted by silent, held open until Close
	wg     sync.WaitGroup        // handlers and the two accept loops
	done   chan struct{}         // closed by Close: ends waits and streams
}

// NewFaultServer starts serving the faults on two new listeners on
// 127.0.0.1 (ephemeral ports) and returns the server. The caller must
// Close it. It panics if it cannot listen.
func NewFaultServer(cfg FaultConfig) *FaultServer {
	if cfg.SlowInterval <= 0 {
		cfg.SlowInterval = DefaultSlowInterval
	}
	listen := func() net.Listener {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic("crawlertest: cannot listen on 127.0.0.1: " + err.Error())
		}
		return ln
	}
	s := &FaultServer{
		cfg:    cfg,
		ln:     listen(),
		silent: listen(),
		log:    map[Fault][]string{},
		conns:  map[net.Conn]struct{}{},
		done:   make(chan struct{}),
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: time.Minute}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		s.srv.Serve(s.ln)
	}()
	go s.acceptSilently()
	return s
}

// Close stops the server: it closes both listeners and every connection,
// ends the streams and waits, and returns once every handler has
// returned. Close is idempotent; Requests still works after it.
func (s *FaultServer) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	close(s.done)
	s.silent.Close()
	s.srv.Close()
	s.wg.Wait()
}

// URL returns the URL of fault f's first page, "http://<f>.faults.test/".
func (s *FaultServer) URL(f Fault) string { return "http://" + string(f) + faultDomain + "/" }

// Addr returns the address of the HTTP listener, "127.0.0.1:port".
func (s *FaultServer) Addr() string { return s.ln.Addr().String() }

// Requests returns the requests fault f's hosts received, in the order
// they arrived, each as its host and request target:
// "xn--bcher-kva.idn-hosts.faults.test/a?b". robots.txt requests are
// included. A NoAnswer entry is a connection accepted: its host, then
// " (connection)". At most 65,536 are kept per fault. The slice is new on
// each call.
func (s *FaultServer) Requests(f Fault) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log[f]...)
}

func (s *FaultServer) record(f Fault, req string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.log[f]) < maxLogged {
		s.log[f] = append(s.log[f], req)
	}
}

// errNotFault is the error of DialContext for addresses that are not the
// server's.
var errNotFault = errors.New("crawlertest: refusing to dial an address outside *.faults.test and 2001:db8::/32")

// ipv6Hosts is the prefix whose literals IPv6Hosts answers for: the
// documentation prefix, which no real host has.
var ipv6Hosts = netip.MustParsePrefix("2001:db8::/32")

// DialContext connects to the server for any address whose host is a
// *.faults.test name (any port) or an IPv6 literal of 2001:db8::/32, and
// to the HTTP listener's own address: NoAnswer's hosts to the silent
// listener, the rest to the HTTP one. It refuses every other address, so
// a client using it never leaves loopback. Use it as an
// http.Transport's DialContext, such as a crawler's own transport.
func (s *FaultServer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, err := dialHost(network, addr, errNotFault)
	if err != nil {
		return nil, err
	}
	target := s.ln.Addr().String()
	f, ok := faultOf(host)
	switch {
	case ok && f == NoAnswer:
		target = s.silent.Addr().String()
	case ok, addr == target:
	default:
		return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("%w: %s", errNotFault, addr)}
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", target)
}

// Transport returns a new http.Transport that reaches the server through
// DialContext, with no proxy and Go's default limits. To test a
// crawler's own transport instead, set its DialContext to
// [FaultServer.DialContext].
func (s *FaultServer) Transport() *http.Transport {
	return &http.Transport{DialContext: s.DialContext, MaxIdleConnsPerHost: 4, IdleConnTimeout: 90 * time.Second}
}

// Client returns a new http.Client over a new Transport. It follows
// redirects as http.Client does by default.
func (s *FaultServer) Client() *http.Client { return &http.Client{Transport: s.Transport()} }

// faultOf returns the fault whose host h (a name or an IP literal, with
// or without brackets and port) is.
func faultOf(h string) (Fault, bool) {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if ip, err := netip.ParseAddr(h); err == nil {
		return IPv6Hosts, ip.Is6() && ipv6Hosts.Contains(ip)
	}
	name, ok := strings.CutSuffix(h, faultDomain)
	if !ok {
		return "", false
	}
	name = name[strings.LastIndexByte(name, '.')+1:]
	for _, f := range allFaults {
		if string(f) == name {
			return f, true
		}
	}
	return "", false
}

// acceptSilently accepts NoAnswer's connections and holds them open,
// never reading or writing, until Close.
func (s *FaultServer) acceptSilently() {
	defer s.wg.Done()
	for {
		c, err := s.silent.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.record(NoAnswer, string(NoAnswer)+faultDomain+" (connection)")
	}
}

// serve is the HTTP handler of every fault.
func (s *FaultServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "crawlertest: closed", http.StatusServiceUnavailable)
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	f, ok := faultOf(r.Host)
	if !ok {
		writeBody(w, r, http.StatusNotFound, ctText, []byte("404 unknown host\n"))
		return
	}
	host := strings.ToLower(r.Host)
	s.record(f, host+r.RequestURI)
	p := r.URL.Path
	if p == "/robots.txt" {
		s.serveRobots(w, r, f)
		return
	}
	switch f {
	case SlowBody:
		s.slowBody(w, r)
	case ConnReset:
		hijack(w, func(c net.Conn, bw *bufio.Writer) {
			page := faultPage("reset", 8<<10)
			fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n", 2*len(page))
			bw.Write(page)
			bw.Flush()
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0) // Close sends RST, not FIN
			}
		})
	case TruncatedBody:
		hijack(w, func(_ net.Conn, bw *bufio.Writer) {
			page := faultPage("truncated", 8<<10)
			bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n")
			fmt.Fprintf(bw, "%x\r\n%s\r\n", len(page), page)
			fmt.Fprintf(bw, "%x\r\n", len(page))
			bw.Write(page[:len(page)/2]) // and no more: no rest, no last chunk
			bw.Flush()
		})
	case LyingLength:
		s.lyingLength(w, r, p)
	case GzipBomb:
		s.gzipBomb(w, r)
	case EndlessBody:
		s.endless(w, r)
	case RedirectLoop:
		switch p {
		case "/a":
			redirect(w, r, http.StatusFound, "/b")
		case "/b":
			redirect(w, r, http.StatusMovedPermanently, "http://"+host+"/a")
		case "/self":
			redirect(w, r, http.StatusTemporaryRedirect, "/self")
		default:
			writePage(w, r, http.StatusOK, links("redirect loop", "/a", "/self"))
		}
	case RedirectChain:
		s.redirectChain(w, r, p)
	case ServerErrors, TooManyRequests:
		s.storm(w, r, f, p)
	case WrongCharset:
		wrongCharset(w, r, p)
	case HugeAttribute:
		hugeAttribute(w, r, p)
	case LongURLs:
		if p == "/redirect" {
			redirect(w, r, http.StatusFound, "/long/"+strings.Repeat("r", FaultURLBytes-len("/long/")))
			return
		}
		s.servePage(w, r, f, p)
	case HugeHeader:
		h := w.Header()
		pad := strings.Repeat("x", 1000)
		for i := range FaultHeaderBytes / 1024 {
			h["X-Pad-"+strconv.Itoa(i)] = []string{pad}
		}
		writePage(w, r, http.StatusOK, links("huge header"))
	case HugeRobots, BinaryRobots, HTMLRobots:
		if p != "/" {
			writePage(w, r, http.StatusOK, links("a page behind "+string(f)))
			return
		}
		writePage(w, r, http.StatusOK, links("robots.txt fault", "/early", "/late", "/p/1"))
	default:
		s.servePage(w, r, f, p)
	}
}

// servePage serves the faults whose harm is all in the HTML of "/": the
// page there, and a small page without links at any other path (and on
// the hosts IDNHosts and IPv6Hosts link to).
func (s *FaultServer) servePage(w http.ResponseWriter, r *http.Request, f Fault, p string) {
	linked := (f == IDNHosts || f == IPv6Hosts) && !strings.EqualFold(r.Host, string(f)+faultDomain)
	if p != "/" || r.URL.RawQuery != "" || linked {
		writePage(w, r, http.StatusOK, links("a page behind "+string(f)))
		return
	}
	if f == ManyLinks {
		s.manyLinks(w, r)
		return
	}
	var body []byte
	switch f {
	case InvalidUTF8:
		body = []byte("<!DOCTYPE html><html><head><title>caf\xe9 \xc3\x28</title></head><body>\n<p>\xff\xfe\xfd not UTF-8 \xed\xa0\x80</p>\n" +
			"<a href=\"/caf\xe9\">1</a>\n<a href=\"/\xff\xfe\">2</a>\n<a href=\"/ok\xc3\x28\">3</a>\n<a href=\"/?q=\x80\">4</a>\n</body></html>\n")
	case UnclosedTags:
		body = []byte("<html><body><div><p><a href=\"/u/1\">one<a href=/u/2>two<table><tr><td><a href='/u/3'>three\n" +
			"<b><i></b></i><a href=\"/u/4\" <a href=\"/u/5\">four</p></div>\n<!-- a comment never closed <a href=\"/hidden\">\n")
	case ControlChars:
		body = []byte(links("control characters", "/c/tab\tx", "/c/nl\nx", "\x01\x02/c/lead", "/c/del\x7fx", "/c/nul\x00x",
			"/c/bell\x07x", " /c/space ", "java\tscript:alert(1)", "http://bad\x01host.control-chars.faults.test/"))
	case LongURLs:
		body = []byte(links("long URLs", "/long/"+strings.Repeat("a", FaultURLBytes-len("/long/")),
			"/mid/"+strings.Repeat("m", 4<<10), "/redirect", "/ok"))
	case BadPercent:
		body = []byte(links("bad percent-encoding", "/%zz", "/%", "/%4", "/p%E9%", "/%%30%30", "/a%2Fb", "/?q=%zz&r=%", "/%00", "/%C3%A9"))
	case IDNHosts:
		body = []byte(links("IDN hosts", "http://bücher.idn-hosts.faults.test/", "http://BÜCHER.idn-hosts.faults.test/a",
			"http://xn--bcher-kva.idn-hosts.faults.test/b", "http://日本語.idn-hosts.faults.test/", "http://straße.idn-hosts.faults.test/",
			"http://a\u00adb.idn-hosts.faults.test/", "http://☃.idn-hosts.faults.test/", "http://xn--zz.idn-hosts.faults.test/"))
	case IPv6Hosts:
		body = []byte(links("IPv6 hosts", "http://[2001:db8::1]/", "http://[2001:DB8:0:0::1]/a", "http://[2001:db8::2]:80/b",
			"http://[2001:db8::1/", "http://[fe80::1%25en0]/"))
	case OtherSchemes:
		body = []byte(links("other schemes", "mailto:a@example.com", "javascript:location='/js'", "ftp://other-schemes.faults.test/",
			"file:///etc/passwd", "data:text/html,<a href=/data>x</a>", "tel:+1", "ws://other-schemes.faults.test/", "gopher://x/",
			"HTTP://other-schemes.faults.test/ok"))
	}
	writeBody(w, r, http.StatusOK, ctHTML, body)
}

// links returns an HTML page titled title with one link to each href,
// written as it is (hostile hrefs included) between double quotes.
func links(title string, hrefs ...string) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + title + "</title></head><body>\n<h1>" + title + "</h1>\n")
	for i, h := range hrefs {
		fmt.Fprintf(&b, "<a href=\"%s\">link %d</a>\n", h, i)
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// faultPage returns an HTML page of n bytes or so, linking to /never (a
// page the crawler must not reach, since the fault cuts the page short).
func faultPage(title string, n int) []byte {
	b := []byte(links(title, "/never"))
	const line = "<p>Nothing to see: this page exists to be cut short.</p>\n"
	for len(b)+len(line) <= n {
		b = append(b, line...)
	}
	return b
}

func writePage(w http.ResponseWriter, r *http.Request, status int, html string) {
	writeBody(w, r, status, ctHTML, []byte(html))
}

func redirect(w http.ResponseWriter, r *http.Request, status int, loc string) {
	w.Header()["Location"] = []string{loc}
	writeBody(w, r, status, nil, nil)
}

// hijack takes over the connection of w, calls write with it and a
// buffered writer on it, and closes it.
func hijack(w http.ResponseWriter, write func(net.Conn, *bufio.Writer)) {
	c, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		http.Error(w, "crawlertest: cannot hijack: "+err.Error(), http.StatusInternalServerError)
		return
	}
	defer c.Close()
	write(c, brw.Writer)
}

// wait waits for d, and reports false if the request or the server ended
// first.
func (s *FaultServer) wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.done:
	}
	return false
}

// stopped reports whether the request or the server has ended. A
// streaming handler that sees it panics with http.ErrAbortHandler, so
// that the response does not end as if complete.
func (s *FaultServer) stopped(r *http.Request) bool {
	select {
	case <-r.Context().Done():
	case <-s.done:
	default:
		return false
	}
	return true
}

// slowBody sends a 1 KiB page, announced by its Content-Length, one byte
// per SlowInterval.
func (s *FaultServer) slowBody(w http.ResponseWriter, r *http.Request) {
	page := faultPage("slow body", 1<<10)
	w.Header()["Content-Type"] = ctHTML
	w.Header()["Content-Length"] = []string{strconv.Itoa(len(page))}
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush()
	for i := range page {
		if !s.wait(r.Context(), s.cfg.SlowInterval) {
			panic(http.ErrAbortHandler)
		}
		if _, err := w.Write(page[i : i+1]); err != nil {
			return
		}
		rc.Flush()
	}
}

// lyingLength serves "/" linking to /over (Content-Length 1 GiB, 1 KiB
// sent, then the connection closes) and /under (Content-Length 16, a
// 4 KiB page sent, with Connection: close so that the surplus cannot be
// read as the next response).
func (s *FaultServer) lyingLength(w http.ResponseWriter, r *http.Request, p string) {
	switch p {
	case "/over":
		w.Header()["Content-Type"] = ctHTML
		w.Header()["Content-Length"] = []string{strconv.Itoa(1 << 30)}
		w.WriteHeader(http.StatusOK)
		w.Write(faultPage("over", 1<<10)) // the server closes the connection: the rest never comes
	case "/under":
		hijack(w, func(_ net.Conn, bw *bufio.Writer) {
			bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: 16\r\nConnection: close\r\n\r\n")
			bw.Write(faultPage("under", 4<<10))
			bw.Flush()
		})
	case "/":
		writePage(w, r, http.StatusOK, links("lying Content-Length", "/over", "/under"))
	default:
		writePage(w, r, http.StatusOK, links("a page behind "+string(LyingLength)))
	}
}

// bombMembers returns the two gzip members of GzipBomb's body: the
// first inflates to an HTML start, a link to /inside and spaces, 1 MiB
// in all; the second to 1 MiB of spaces.
var bombMembers = sync.OnceValues(func() (first, rest []byte) {
	member := func(prefix string) []byte {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write([]byte(prefix))
		zw.Write(bytes.Repeat([]byte(" "), 1<<20-len(prefix)))
		zw.Close()
		return b.Bytes()
	}
	return member(`<!DOCTYPE html><html><body><a href="/inside">inside</a>`), member("")
})

// gzipBomb sends, with Content-Encoding: gzip, FaultBombBytes/1 MiB gzip
// members of 1 MiB each: about 4 MiB on the wire.
func (s *FaultServer) gzipBomb(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		writePage(w, r, http.StatusOK, links("a page behind "+string(GzipBomb)))
		return
	}
	first, rest := bombMembers()
	h := w.Header()
	h["Content-Type"] = ctHTML
	h["Content-Encoding"] = encGzip
	h["Content-Length"] = []string{strconv.Itoa(len(first) + (FaultBombBytes>>20-1)*len(rest))}
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(first); err != nil {
		return
	}
	for range FaultBombBytes>>20 - 1 {
		if _, err := w.Write(rest); err != nil {
			return
		}
		if s.stopped(r) {
			panic(http.ErrAbortHandler)
		}
	}
}

// endless streams an HTML body of paragraphs that never ends, until the
// client goes away or the server closes.
func (s *FaultServer) endless(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		writePage(w, r, http.StatusOK, links("a page behind "+string(EndlessBody)))
		return
	}
	w.Header()["Content-Type"] = ctHTML
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write([]byte(links("endless body", "/inside"))); err != nil {
		return
	}
	block := bytes.Repeat([]byte("<p>and on, and on</p>\n"), 32<<10/22)
	for {
		if _, err := w.Write(block); err != nil {
			return
		}
		if s.stopped(r) {
			panic(http.ErrAbortHandler)
		}
	}
}

// chainStatuses are the statuses of RedirectChain's hops, in turn.
var chainStatuses = [...]int{301, 302, 303, 307, 308}

// redirectChain serves "/" -> /hop/1 -> ... -> /hop/49 -> /end.
func (s *FaultServer) redirectChain(w http.ResponseWriter, r *http.Request, p string) {
	k := 0 // hops so far
	if n, ok := strings.CutPrefix(p, "/hop/"); ok {
		var err error
		if k, err = strconv.Atoi(n); err != nil || k < 1 || k >= FaultChainHops {
			k = -1
		}
	} else if p != "/" {
		k = -1
	}
	switch {
	case k < 0:
		writePage(w, r, http.StatusOK, links("the end of the chain"))
	case k == FaultChainHops-1:
		redirect(w, r, chainStatuses[k%len(chainStatuses)], "/end")
	default:
		redirect(w, r, chainStatuses[k%len(chainStatuses)], "/hop/"+strconv.Itoa(k+1))
	}
}

// storm serves "/" linking to /p/1 ... /p/50, which answer 500, 502,
// 503 (with Retry-After: 3600) and 504 in turn (ServerErrors) or 429
// with Retry-After: 3600 (TooManyRequests).
func (s *FaultServer) storm(w http.ResponseWriter, r *http.Request, f Fault, p string) {
	if p == "/" {
		hrefs := make([]string, FaultStormPages)
		for i := range hrefs {
			hrefs[i] = "/p/" + strconv.Itoa(i+1)
		}
		writePage(w, r, http.StatusOK, links(string(f), hrefs...))
		return
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(p, "/p/"))
	status := http.StatusTooManyRequests
	if f == ServerErrors {
		status = [...]int{500, 502, 503, 504}[(n+3)%4] // /p/1: 500
	}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		w.Header()["Retry-After"] = []string{"3600"}
	}
	writeBody(w, r, status, ctHTML, errorPage(status))
}

// wrongCharset serves "/" linking to pages whose charset label lies:
// /latin1 (Latin-1 labelled UTF-8), /utf16 (UTF-16LE labelled
// ISO-8859-1), /sjis (Shift_JIS named only in a meta tag, with a
// Shift_JIS href) and /bogus (a charset that does not exist).
func wrongCharset(w http.ResponseWriter, r *http.Request, p string) {
	switch p {
	case "/":
		writePage(w, r, http.StatusOK, links("wrong charsets", "/latin1", "/utf16", "/sjis", "/bogus"))
	case "/latin1":
		writeBody(w, r, http.StatusOK, ctHTML, []byte("<!DOCTYPE html><html><head><title>Caf\xe9</title></head><body><a href=\"/na\xefve\">na\xefve</a></body></html>"))
	case "/utf16":
		var b []byte
		b = append(b, 0xff, 0xfe) // BOM, little-endian
		for _, c := range []byte(`<html><body><a href="/from-utf16">x</a></body></html>`) {
			b = append(b, c, 0)
		}
		writeBody(w, r, http.StatusOK, []string{"text/html; charset=iso-8859-1"}, b)
	case "/sjis":
		writeBody(w, r, http.StatusOK, []string{"text/html"},
			[]byte("<!DOCTYPE html><html><head><meta charset=\"shift_jis\"><title>\x93\xfa\x96\x7b</title></head><body><a href=\"/\x93\xfa\x96\x7b\">\x93\xfa\x96\x7b</a></body></html>"))
	case "/bogus":
		writeBody(w, r, http.StatusOK, []string{"text/html; charset=x-no-such-charset"}, []byte(links("bogus charset", "/bogus-ok")))
	default:
		writePage(w, r, http.StatusOK, links("a page behind "+string(WrongCharset)))
	}
}

// hugeAttribute serves "/" with links to /before and /attrs, an <img>
// whose alt is FaultAttrBytes long, and a link to /after; and /attrs
// with an <a> tag of FaultAttrBytes/2 attributes before its href
// (/spam), then a link to /after-attrs.
func hugeAttribute(w http.ResponseWriter, r *http.Request, p string) {
	var b bytes.Buffer
	switch p {
	case "/":
		b.WriteString(`<!DOCTYPE html><html><body><a href="/before">before</a><a href="/attrs">attrs</a><img alt="`)
		b.Write(bytes.Repeat([]byte("x"), FaultAttrBytes))
		b.WriteString(`"><a href="/after">after</a></body></html>`)
	case "/attrs":
		b.WriteString(`<!DOCTYPE html><html><body><a`)
		b.Write(bytes.Repeat([]byte(" x"), FaultAttrBytes/2))
		b.WriteString(` href="/spam">spam</a><a href="/after-attrs">after</a></body></html>`)
	default:
		writePage(w, r, http.StatusOK, links("a page behind "+string(HugeAttribute)))
		return
	}
	writeBody(w, r, http.StatusOK, ctHTML, b.Bytes())
}

// manyLinks streams a page of FaultLinks links to /l/0, /l/1, ...
func (s *FaultServer) manyLinks(w http.ResponseWriter, r *http.Request) {
	w.Header()["Content-Type"] = ctHTML
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 32<<10)
	bw.WriteString("<!DOCTYPE html><html><body>\n")
	var line []byte
	for i := range FaultLinks {
		line = append(line[:0], `<a href="/l/`...)
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, "\">l</a>\n"...)
		if _, err := bw.Write(line); err != nil {
			return
		}
		if i%4096 == 0 && s.stopped(r) {
			panic(http.ErrAbortHandler)
		}
	}
	bw.WriteString("</body></html>\n")
	bw.Flush()
}

// serveRobots answers /robots.txt: 404 but on the robots.txt faults.
func (s *FaultServer) serveRobots(w http.ResponseWriter, r *http.Request, f Fault) {
	switch f {
	case HugeRobots:
		// A rule first, comment lines, and a rule past the 500 KiB a
		// crawler must parse (RFC 9309 section 2.5).
		const head, tail = "User-agent: *\nDisallow: /early\n", "Disallow: /late\n"
		w.Header()["Content-Type"] = ctText
		w.Header()["Content-Length"] = []string{strconv.Itoa(FaultRobotsBytes)}
		w.WriteHeader(http.StatusOK)
		bw := bufio.NewWriterSize(w, 32<<10)
		bw.WriteString(head)
		const line = "# comment lines make this robots.txt huge; the rule after them is past what a crawler parses.\n"
		n := len(head)
		for ; n+len(line)+len(tail) <= FaultRobotsBytes; n += len(line) {
			if _, err := bw.WriteString(line); err != nil {
				return
			}
		}
		if rest := FaultRobotsBytes - n - len(tail); rest > 0 {
			bw.WriteString(strings.Repeat("#", rest-1) + "\n")
		}
		bw.WriteString(tail)
		bw.Flush()
	case BinaryRobots:
		// A robots.txt gzipped, sent without Content-Encoding.
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte("User-agent: *\nDisallow: /\n"))
		for i := range 4096 {
			fmt.Fprintf(zw, "Disallow: /%x\n", i*2654435761)
		}
		zw.Close()
		writeBody(w, r, http.StatusOK, []string{"application/octet-stream"}, b.Bytes())
	case HTMLRobots:
		writePage(w, r, http.StatusOK, "<!DOCTYPE html>\n<html><head><title>Error</title></head><body>\n<h1>Something went wrong</h1>\n"+
			"<p>We could not find what you were looking for. <a href=\"/\">Home</a></p>\n</body></html>\n")
	default:
		writeBody(w, r, http.StatusNotFound, ctText, []byte(notFoundText))
	}
}
