// Package proxytest runs proxies on loopback for tests: an HTTP forward
// proxy (absolute-form requests and CONNECT) and a SOCKS5 server, each
// sending whatever it is asked for to one origin address, whatever the
// host named, so that names in URLs need no DNS. A proxy can be healthy,
// answer 403 to everything (banned), or drop every other request.
//
//	p := proxytest.NewHTTP(t, origin.Listener.Addr().String(), proxytest.Healthy)
//	pool := &fetch.ProxyPool{Proxies: []*url.URL{p.URL}}
package proxytest

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

// Mode is how a proxy behaves.
type Mode int

// Modes of a proxy.
const (
	Healthy  Mode = iota // forwards everything
	Ban                  // answers 403 Forbidden to everything (SOCKS5: refuses the CONNECT)
	DropHalf             // drops the connection of every other request, forwarding the rest
)

// Proxy is a proxy on loopback. Its counts are safe to read at any time.
type Proxy struct {
	URL       *url.URL     // the proxy's URL, to give a client
	Requests  atomic.Int64 // requests (or SOCKS5 connects) received
	Forwarded atomic.Int64 // of which sent on to the origin
	Dropped   atomic.Int64 // of which dropped
	mode      atomic.Int64
	target    string
	closeFunc func()
}

// SetMode changes how p behaves from now on.
func (p *Proxy) SetMode(m Mode) { p.mode.Store(int64(m)) }

// Close stops the proxy.
func (p *Proxy) Close() { p.closeFunc() }

// decide counts a request and reports what to do with it.
func (p *Proxy) decide() Mode {
	n := p.Requests.Add(1)
	m := Mode(p.mode.Load())
	switch {
	case m == DropHalf && n%2 == 0:
		p.Dropped.Add(1)
		return DropHalf
	case m == Ban:
		return Ban
	}
	p.Forwarded.Add(1)
	return Healthy
}

// NewHTTP starts an HTTP forward proxy that sends every request to
// target (host:port), closed at the end of the test. With tls set it
// serves over TLS (httptest's certificate), as an https:// proxy.
func NewHTTP(t testing.TB, target string, mode Mode, tls bool) *Proxy {
	p := &Proxy{target: target}
	p.SetMode(mode)
	fwd := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", target)
		},
		DisableCompression: true,
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p.decide() {
		case Ban:
			http.Error(w, "banned", http.StatusForbidden)
			return
		case DropHalf:
			drop(w)
			return
		}
		if r.Method == http.MethodConnect {
			tunnel(w, target)
			return
		}
		out := r.Clone(r.Context())
		out.RequestURI = ""
		out.Header.Del("Proxy-Authorization")
		out.Header.Del("Proxy-Connection")
		resp, err := fwd.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	p.URL, _ = url.Parse(srv.URL)
	p.closeFunc = func() {
		srv.CloseClientConnections()
		srv.Close()
		fwd.CloseIdleConnections()
	}
	t.Cleanup(p.Close)
	return p
}

// drop closes the connection of w's request without an answer.
func drop(w http.ResponseWriter) {
	if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
		c.Close()
	}
}

// tunnel answers a CONNECT with 200 and joins its connection to target.
func tunnel(w http.ResponseWriter, target string) {
	up, err := net.Dial("tcp", target)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.WriteHeader(http.StatusOK)
	c, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		return
	}
	if err := brw.Flush(); err != nil {
		up.Close()
		c.Close()
		return
	}
	pipe(c, brw.Reader, up)
}

// pipe copies between client (read through r, which may hold bytes
// already read) and up until either ends, then closes both.
func pipe(client net.Conn, r io.Reader, up net.Conn) {
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, r); done <- struct{}{} }()
	go func() { io.Copy(client, up); done <- struct{}{} }()
	<-done
	client.Close()
	up.Close()
	<-done
}

// NewSOCKS5 starts a SOCKS5 server (RFC 1928, CONNECT only, no
// authentication or user/password per RFC 1929, any accepted) that
// connects every client to target, closed at the end of the test.
func NewSOCKS5(t testing.TB, target string, mode Mode) *Proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{target: target}
	p.SetMode(mode)
	p.URL = &url.URL{Scheme: "socks5", Host: ln.Addr().String()}
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns[c] = true
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.serveSOCKS(c)
				mu.Lock()
				delete(conns, c)
				mu.Unlock()
			}()
		}
	}()
	p.closeFunc = sync.OnceFunc(func() {
		ln.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	t.Cleanup(p.Close)
	return p
}

// serveSOCKS serves one SOCKS5 client.
func (p *Proxy) serveSOCKS(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil || hdr[0] != 5 {
		return
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return
	}
	method := byte(0xff)
	for _, m := range methods {
		if m == 0 || m == 2 && method == 0xff {
			method = m
		}
	}
	if _, err := c.Write([]byte{5, method}); err != nil || method == 0xff {
		return
	}
	if method == 2 { // RFC 1929: VER ULEN UNAME PLEN PASSWD
		if err := skipUserPass(r); err != nil {
			return
		}
		if _, err := c.Write([]byte{1, 0}); err != nil {
			return
		}
	}
	// VER CMD RSV ATYP DST.ADDR DST.PORT
	var req [4]byte
	if _, err := io.ReadFull(r, req[:]); err != nil || req[1] != 1 {
		return
	}
	var n int
	switch req[3] {
	case 1:
		n = 4
	case 4:
		n = 16
	case 3:
		l, err := r.ReadByte()
		if err != nil {
			return
		}
		n = int(l)
	default:
		return
	}
	if _, err := io.ReadFull(r, make([]byte, n+2)); err != nil {
		return
	}
	reply := func(code byte) error {
		_, err := c.Write([]byte{5, code, 0, 1, 0, 0, 0, 0, 0, 0})
		return err
	}
	switch p.decide() {
	case Ban:
		reply(2) // connection not allowed by ruleset
		return
	case DropHalf:
		return
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		reply(5)
		return
	}
	if reply(0) != nil {
		up.Close()
		return
	}
	pipe(c, r, up)
}

// skipUserPass reads an RFC 1929 user/password request: VER ULEN UNAME
// PLEN PASSWD.
func skipUserPass(r *bufio.Reader) error {
	if _, err := r.ReadByte(); err != nil {
		return err
	}
	for range 2 {
		l, err := r.ReadByte()
		if err != nil {
			return err
		}
		if _, err := io.ReadFull(r, make([]byte, l)); err != nil {
			return err
		}
	}
	return nil
}
