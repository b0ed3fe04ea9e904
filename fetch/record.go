package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// Exchange is one HTTP request and its response as they crossed the
// connection: the bytes the fetcher wrote and read, before net/http
// parsed, canonicalised or decoded anything. It is what an archive (a
// WARC file, see package warc) keeps of a fetch.
type Exchange struct {
	URL  string    // the URL fetched
	IP   string    // the address connected to (the proxy's, through one), without port
	Date time.Time // when the request was sent

	// Request is the bytes written for the request: request line,
	// headers as sent, body (none for a GET).
	Request []byte
	// Response is the bytes read for the response: status line, headers
	// as received, and the body as it came (chunked, compressed), up to
	// where the fetch stopped reading it.
	Response []byte
	// Truncated says why Response lacks the end of the body: "length"
	// when the fetch stopped at its body cap, "" when it holds the
	// whole response.
	Truncated string
}

// Recorder keeps the exchanges of a fetcher (see [HTTPFetcher.Recorder]).
// Record is called on the fetching goroutine once the body has been read,
// before Fetch returns, so that what a fetch returned has been taken by
// the Recorder (a warc.Writer writes it later, in order; its Sync waits
// for it): x and its bytes are the Recorder's to keep, the fetcher uses
// them no more. It must be safe for concurrent use. An error fails the
// fetch.
type Recorder interface {
	Record(ctx context.Context, x *Exchange) error
}

// ErrUnrecordable is the error of a fetch that a Recorder should record
// but whose exchange could not be seen in the clear: an https request
// tunnelled through a proxy (CONNECT), whose TLS the transport does
// itself, over the recorded connection.
var ErrUnrecordable = errors.New("exchange cannot be recorded: TLS inside a proxy tunnel")

// recordingTransport returns a copy of t whose connections record what
// crosses them for the exchange attached to them (see recordingConn). It
// speaks HTTP/1.1 only: an HTTP/2 connection interleaves its streams and
// compresses their headers, so its bytes are no request's or response's
// own, and archives record HTTP/1.1. For https it does the TLS handshake
// itself, over t's DialContext (so the address policy still applies), to
// record above TLS; a DialTLSContext of t's own is used as it is.
func recordingTransport(t *http.Transport) *http.Transport {
	t = t.Clone()
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &recordingConn{Conn: c}, nil
	}
	dialTLS := t.DialTLSContext
	if dialTLS == nil {
		base := t.TLSClientConfig
		timeout := t.TLSHandshakeTimeout
		dialTLS = func(ctx context.Context, network, addr string) (net.Conn, error) {
			raw, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			cfg := &tls.Config{}
			if base != nil {
				cfg = base.Clone()
			}
			if cfg.ServerName == "" {
				cfg.ServerName, _, _ = net.SplitHostPort(addr)
			}
			cfg.NextProtos = []string{"http/1.1"}
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			tc := tls.Client(raw, cfg)
			if err := tc.HandshakeContext(ctx); err != nil {
				raw.Close()
				return nil, err
			}
			return tc, nil
		}
	}
	t.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialTLS(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &recordingConn{Conn: c}, nil
	}
	t.ForceAttemptHTTP2 = false
	t.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{} // non-nil and empty: no HTTP/2
	return t
}

// recordingConn is a connection that copies the bytes written to and
// read from it into the recording attached to it, if any. The transport
// uses a connection for one exchange at a time: Fetch attaches its
// recording when the transport hands it the connection (httptrace's
// GotConn), before the request is written, and detaches it once the
// body is read, after which the connection may serve another fetch.
type recordingConn struct {
	net.Conn
	mu  sync.Mutex
	rec *recording // attached, or nil
}

func (c *recordingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.mu.Lock()
	if c.rec != nil {
		c.rec.request = append(c.rec.request, p[:n]...)
	}
	c.mu.Unlock()
	return n, err
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if c.rec != nil {
		c.rec.response = append(c.rec.response, p[:n]...)
	}
	c.mu.Unlock()
	return n, err
}

// recording is what one fetch recorded, and where.
type recording struct {
	mu           sync.Mutex
	conn         *recordingConn // attached to, or nil
	ip           string
	unrecordable bool // the transport gave a connection that does not record
	request      []byte
	response     []byte // guarded by conn.mu while attached
}

// gotConn attaches r to the connection the transport chose. A request
// retried on another connection starts over.
func (r *recording) gotConn(info httptrace.GotConnInfo) {
	r.detach()
	rc, ok := info.Conn.(*recordingConn)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.unrecordable = !ok
	if !ok {
		return
	}
	rc.mu.Lock()
	r.request, r.response = r.request[:0], r.response[:0]
	rc.rec = r
	rc.mu.Unlock()
	r.conn = rc
	r.ip = ""
	if a, ok := rc.RemoteAddr().(*net.TCPAddr); ok {
		r.ip = a.IP.String()
	} else if a := rc.RemoteAddr(); a != nil {
		r.ip, _, _ = net.SplitHostPort(a.String())
	}
}

// detach stops recording into r. The connection may by then record for
// another fetch, which it got after r's body was read.
func (r *recording) detach() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rc := r.conn; rc != nil {
		rc.mu.Lock()
		if rc.rec == r {
			rc.rec = nil
		}
		rc.mu.Unlock()
		r.conn = nil
	}
}
