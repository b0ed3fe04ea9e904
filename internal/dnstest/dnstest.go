// Package dnstest is a DNS server on 127.0.0.1 for tests, which a
// net.Resolver reaches instead of the machine's own: it answers the names
// it was given with their addresses, SERVFAIL for the names told to fail,
// and NXDOMAIN for any other name, as a real server does, so that Go's
// resolver returns the *net.DNSError it would for the real answer
// (IsNotFound for NXDOMAIN, IsTemporary for SERVFAIL). It counts the
// queries it gets, and can hold a name's answers until the test releases
// them.
//
//	dns := dnstest.New(t, map[string][]netip.Addr{"a.test": {netip.MustParseAddr("127.0.0.1")}})
//	f := &fetch.HTTPFetcher{DNS: &fetch.DNSCache{Resolver: dns.Resolver()}}
package dnstest

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// Server is a DNS server on 127.0.0.1 (UDP). It is safe for concurrent
// use; it stops when its test ends, answering any query still held.
type Server struct {
	conn  net.PacketConn
	names map[string][]netip.Addr // "a.test." → its addresses, A and AAAA

	mu     sync.Mutex
	fail   map[string]bool  // "a.test." → answered SERVFAIL
	counts map[query]int    // queries by name and type
	holds  map[string]*hold // "a.test." → its A queries wait

	loop sync.WaitGroup // the read loop
	held sync.WaitGroup // the held queries
	stop chan struct{}  // closed when the test ends: held queries are answered
}

// query is a name ("a.test.") and a type, a key of Server.counts.
type query struct {
	name string
	typ  dnsmessage.Type
}

// hold keeps the A queries of one name waiting: each arrival is sent on
// arrived, and all of them are answered once release is closed.
type hold struct {
	arrived chan struct{}
	release chan struct{}
}

// New starts a server that answers for names (without a final dot, in
// any letter case), and stops it when t ends.
func New(t testing.TB, names map[string][]netip.Addr) *Server {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{conn: conn, names: map[string][]netip.Addr{}, fail: map[string]bool{},
		counts: map[query]int{}, holds: map[string]*hold{}, stop: make(chan struct{})}
	for n, a := range names {
		s.names[fqdn(n)] = a
	}
	s.loop.Go(s.serve)
	t.Cleanup(func() {
		s.conn.SetReadDeadline(time.Unix(1, 0)) // ends the read loop
		s.loop.Wait()
		close(s.stop)
		s.held.Wait()
		s.conn.Close()
	})
	return s
}

// Fail makes the server answer SERVFAIL for name from now on: a
// temporary failure.
func (s *Server) Fail(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[fqdn(name)] = true
}

// Hold makes the A queries for name, from now on, wait until release is
// called or the test ends; other types are answered at once. Each held
// query's arrival is sent on arrived, which buffers 16 (arrivals beyond
// that are not sent). release may be called more than once; after it,
// queries for name are answered at once, their arrivals still sent. A
// second Hold of a name replaces the first for the queries to come.
func (s *Server) Hold(name string) (arrived <-chan struct{}, release func()) {
	hd := &hold{arrived: make(chan struct{}, 16), release: make(chan struct{})}
	s.mu.Lock()
	s.holds[fqdn(name)] = hd
	s.mu.Unlock()
	var once sync.Once
	return hd.arrived, func() { once.Do(func() { close(hd.release) }) }
}

// Queries returns the A queries made for name so far.
func (s *Server) Queries(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[query{fqdn(name), dnsmessage.TypeA}]
}

// Total returns the queries made so far for any name and of any type
// (A, AAAA and others alike).
func (s *Server) Total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.counts {
		n += c
	}
	return n
}

// Resolver returns a pure-Go resolver that sends every query to s.
func (s *Server) Resolver() *net.Resolver {
	addr := s.conn.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

func fqdn(name string) string { return strings.ToLower(strings.TrimSuffix(name, ".")) + "." }

// serve reads queries until the socket's read deadline passes, answering
// each at once or, if its name is held, from a goroutine of s.held.
func (s *Server) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := s.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		var p dnsmessage.Parser
		h, err := p.Start(buf[:n])
		if err != nil {
			continue
		}
		q, err := p.Question()
		if err != nil {
			continue
		}
		name := strings.ToLower(q.Name.String())
		s.mu.Lock()
		s.counts[query{name, q.Type}]++
		hd := s.holds[name]
		s.mu.Unlock()
		if hd == nil || q.Type != dnsmessage.TypeA {
			s.answer(h, q, name, from)
			continue
		}
		s.held.Go(func() {
			select {
			case hd.arrived <- struct{}{}:
			default: // nobody is counting so many
			}
			select {
			case <-hd.release:
			case <-s.stop:
			}
			s.answer(h, q, name, from)
		})
	}
}

// answer sends the reply to q, whose name is name in lower case.
func (s *Server) answer(h dnsmessage.Header, q dnsmessage.Question, name string, to net.Addr) {
	s.mu.Lock()
	fail := s.fail[name]
	s.mu.Unlock()
	addrs, known := s.names[name]
	rcode := dnsmessage.RCodeSuccess
	switch {
	case fail:
		rcode, addrs = dnsmessage.RCodeServerFailure, nil
	case !known:
		rcode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: !fail,
		RecursionDesired: h.RecursionDesired, RecursionAvailable: true, RCode: rcode})
	b.StartQuestions()
	b.Question(q)
	b.StartAnswers()
	rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}
	for _, a := range addrs {
		switch {
		case q.Type == dnsmessage.TypeA && a.Is4():
			b.AResource(rh, dnsmessage.AResource{A: a.As4()})
		case q.Type == dnsmessage.TypeAAAA && a.Is6():
			b.AAAAResource(rh, dnsmessage.AAAAResource{AAAA: a.As16()})
		}
	}
	if msg, err := b.Finish(); err == nil {
		s.conn.WriteTo(msg, to)
	}
}
