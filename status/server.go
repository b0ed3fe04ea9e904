package status

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"

	"crawler"
	"crawler/canon"
)

// ServerOptions configure the HTTP handler of a Monitor. The zero value
// serves the page and its JSON to anyone who can reach it, without
// /metrics and without a stop control.
type ServerOptions struct {
	// Token, if set, must come with every request, as an
	// "Authorization: Bearer <Token>" header or a ?token=<Token> query
	// parameter; requests without it get 401. The page passes on the
	// token of its own URL, so open it as /?token=<Token>.
	Token string
	// Metrics, if not nil, is served at /metrics (behind the Token).
	Metrics http.Handler
	// Stop is called by the "stop gracefully" control, at most once, after
	// which the state is StateStopping; the caller typically cancels the
	// context of its Run. Nil: no stop control.
	Stop func()
	// Logger receives a line (at level Info) for each control used: the
	// crawl paused, resumed or stopped, a host retired, with the address
	// of the client that asked. Nil: the Crawler's Logger (none if that
	// is nil too).
	Logger *slog.Logger
}

// ControlHeader must be set to "1" on the requests of the controls.
// A request with a header of its own cannot be sent across origins
// without a CORS preflight, which the handler never answers, so another
// web site open in the operator's browser cannot drive the crawl through
// its loopback port.
const ControlHeader = "X-Crawler-Control"

// Handler returns the HTTP handler of the status page:
//
//	GET  /                 the page (no data in it: it polls /status.json)
//	GET  /status.json      the Snapshot
//	     /metrics          opts.Metrics, if set
//	POST /control/pause    Crawler.Pause
//	POST /control/resume   Crawler.Resume
//	POST /control/stop     opts.Stop, if set
//	POST /control/retire   Crawler.RetireHost of the form or JSON field
//	                       "host" (a host[:port] or a URL)
//
// The controls answer 204 No Content, or a 4xx status with a text error;
// they must be POST requests with the ControlHeader set, else 405 or
// 403. With opts.Token set, every request needs it (see ServerOptions);
// without one, requests must name a loopback address or localhost in
// their Host header (else 403), so that a web site whose name resolves
// to 127.0.0.1 (DNS rebinding) cannot read the page. The handler may be
// mounted under a path prefix with http.StripPrefix, the page opened with
// a trailing slash (/status/): its requests are relative.
func (m *Monitor) Handler(opts ServerOptions) http.Handler {
	s := &server{m: m, opts: opts, page: livePage(opts.Stop != nil)}
	if opts.Token != "" {
		s.token = sha256.Sum256([]byte(opts.Token))
	}
	return s
}

type server struct {
	m     *Monitor
	opts  ServerOptions
	token [sha256.Size]byte // of opts.Token, compared in constant time
	page  []byte
	stop  sync.Once
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="crawler status"`)
		http.Error(w, "crawler status: unauthorized: open the page as /?token=<token>, or send an \"Authorization: Bearer <token>\" header", http.StatusUnauthorized)
		return
	}
	if s.opts.Token == "" && !loopbackHost(r.Host) {
		http.Error(w, fmt.Sprintf("crawler status: host %q refused: without a token the page answers only to a loopback address or localhost", r.Host), http.StatusForbidden)
		return
	}
	switch path := r.URL.Path; {
	case path == "/" || path == "":
		if allow(w, r, http.MethodGet, http.MethodHead) {
			s.servePage(w, r)
		}
	case path == "/status.json":
		if allow(w, r, http.MethodGet, http.MethodHead) {
			s.serveJSON(w, r)
		}
	case path == "/metrics" && s.opts.Metrics != nil:
		s.opts.Metrics.ServeHTTP(w, r)
	case strings.HasPrefix(path, "/control/"):
		s.control(w, r, strings.TrimPrefix(path, "/control/"))
	default:
		http.NotFound(w, r)
	}
}

// authorized reports whether r carries the token, if one is needed.
func (s *server) authorized(r *http.Request) bool {
	if s.opts.Token == "" {
		return true
	}
	given, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		given = r.URL.Query().Get("token")
	}
	sum := sha256.Sum256([]byte(given))
	return subtle.ConstantTimeCompare(sum[:], s.token[:]) == 1
}

// loopbackHost reports whether host, a Host header, names a loopback
// address or localhost.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// allow reports whether r's method is one of methods; if not, it answers
// 405.
func allow(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	http.Error(w, fmt.Sprintf("crawler status: method %s not allowed; use %s", r.Method, strings.Join(methods, " or ")), http.StatusMethodNotAllowed)
	return false
}

func (s *server) servePage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", pageCSP+"; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Length", strconv.Itoa(len(s.page)))
	if r.Method != http.MethodHead {
		w.Write(s.page)
	}
}

func (s *server) serveJSON(w http.ResponseWriter, r *http.Request) {
	data, err := json.Marshal(s.m.Snapshot())
	if err != nil {
		http.Error(w, "crawler status: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	if r.Method != http.MethodHead {
		w.Write(data)
	}
}

// maxControlBody bounds the body of a control request.
const maxControlBody = 64 << 10

func (s *server) control(w http.ResponseWriter, r *http.Request, action string) {
	switch action {
	case "pause", "resume", "stop", "retire":
	default:
		http.NotFound(w, r)
		return
	}
	if !allow(w, r, http.MethodPost) {
		return
	}
	if r.Header.Get(ControlHeader) != "1" {
		http.Error(w, "crawler status: forbidden: a control request must carry the header "+ControlHeader+": 1 (a guard against cross-site requests)", http.StatusForbidden)
		return
	}
	c := s.m.c
	switch action {
	case "pause":
		c.Pause()
		s.log().Info("crawl paused from the status page", "client", r.RemoteAddr)
	case "resume":
		c.Resume()
		s.log().Info("crawl resumed from the status page", "client", r.RemoteAddr)
	case "stop":
		if s.opts.Stop == nil {
			http.Error(w, "crawler status: this crawl has no stop control", http.StatusNotFound)
			return
		}
		s.m.StopRequested()
		s.stop.Do(func() {
			s.log().Info("crawl stopping from the status page: the requests in flight end, no new one starts", "client", r.RemoteAddr)
			s.opts.Stop()
		})
	case "retire":
		host, err := s.hostOf(w, r)
		if err != nil {
			http.Error(w, "crawler status: "+err.Error(), http.StatusBadRequest)
			return
		}
		retired, err := c.RetireHost(host, "retired by the operator")
		switch {
		case errors.Is(err, crawler.ErrNotRunning):
			http.Error(w, "crawler status: no crawl is running", http.StatusConflict)
			return
		case err != nil:
			http.Error(w, "crawler status: "+err.Error(), http.StatusInternalServerError)
			return
		case !retired:
			http.Error(w, fmt.Sprintf("crawler status: host %q is retired already", host), http.StatusConflict)
			return
		}
		s.log().Info("host retired from the status page", "host", host, "client", r.RemoteAddr)
	}
	w.WriteHeader(http.StatusNoContent)
}

// log returns the logger of the controls: ServerOptions.Logger, else the
// Crawler's, else one that discards.
func (s *server) log() *slog.Logger {
	switch {
	case s.opts.Logger != nil:
		return s.opts.Logger
	case s.m.c.Logger != nil:
		return s.m.c.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// hostOf returns the host of a retire request: its "host" field, from a
// JSON object or a form, as host[:port] or a URL.
func (s *server) hostOf(w http.ResponseWriter, r *http.Request) (string, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxControlBody)
	var host string
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "application/json" {
		var body struct {
			Host string `json:"host"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			return "", fmt.Errorf("reading the JSON body: %w", err)
		}
		host = body.Host
	} else {
		if err := r.ParseForm(); err != nil {
			return "", fmt.Errorf("reading the form: %w", err)
		}
		host = r.Form.Get("host")
	}
	host = strings.TrimSpace(host)
	if strings.Contains(host, "://") {
		cn := s.m.c.Canon
		if cn == nil {
			cn = new(canon.Canonicalizer)
		}
		u, err := cn.Canonical(host)
		if err != nil {
			return "", fmt.Errorf("host: %w", err)
		}
		host = canon.Host(u)
	}
	host = strings.ToLower(host)
	switch {
	case host == "":
		return "", errors.New(`no host given: send the field "host"`)
	case len(host) > 300 || strings.ContainsAny(host, "/?#@ \t\r\n"):
		return "", fmt.Errorf("host %q is not a host[:port]", host)
	}
	return host, nil
}

// WriteReport writes the report of the crawl: one self-contained HTML
// file with the page and plots of the whole run and the Snapshot of now
// embedded, without polling or controls. Call it after Finish for the
// final report.
func (m *Monitor) WriteReport(w io.Writer) error {
	// encoding/json escapes <, > and & (as \u003c...), so no string of
	// the data can end the script element that holds it.
	data, err := json.Marshal(m.Snapshot())
	if err != nil {
		return fmt.Errorf("status: report: %w", err)
	}
	if _, err := w.Write(reportPage(data)); err != nil {
		return fmt.Errorf("status: report: %w", err)
	}
	return nil
}

// CheckAddr normalizes addr, the listen address of a status page: "",
// ":PORT" or "PORT" become 127.0.0.1:PORT ("" port 0: any free one), as
// loopback is the default. A host that is not loopback (by its IP;
// "localhost" counts as loopback) needs a token, since anyone who can
// reach the page could steer the crawl: without one, CheckAddr returns an
// error saying that -http-token is needed.
func CheckAddr(addr, token string) (string, error) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		addr = ":0"
	}
	if isPort(addr) {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("status: listen address %q: %w", addr, err)
	}
	if !isPort(port) {
		return "", fmt.Errorf("status: listen address %q: bad port %q", addr, port)
	}
	if host == "" {
		return net.JoinHostPort("127.0.0.1", port), nil
	}
	if !loopbackHost(host) && token == "" {
		return "", fmt.Errorf("status: listen address %q is not loopback: anyone who can reach it could watch and steer the crawl; set a token with -http-token (or listen on 127.0.0.1)", addr)
	}
	return net.JoinHostPort(host, port), nil
}

// isPort reports whether s is a port number.
func isPort(s string) bool {
	_, err := strconv.ParseUint(s, 10, 16)
	return err == nil
}

// pageHTML is the page, live and report: the JavaScript reads the
// body's data-mode. Its marked parts are cut or filled in by livePage and
// reportPage; {{csp}} is pageCSP, which allows its one script and one
// style element by their hashes.
//
//go:embed page.html
var pageHTML string

var (
	pageCSP    string // the Content-Security-Policy of the page, but frame-ancestors
	pageSource = strings.ReplaceAll(pageHTML, "\r\n", "\n")
)

func init() {
	pageCSP = "default-src 'none'; script-src " + hashOf(pageSource, "<script>", "</script>") +
		"; style-src " + hashOf(pageSource, "<style>", "</style>") +
		"; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'"
}

// hashOf returns the CSP source of the text of the first element of src
// between open and close: 'sha256-<base64>'.
func hashOf(src, open, close string) string {
	_, rest, ok := strings.Cut(src, open)
	text, _, ok2 := strings.Cut(rest, close)
	if !ok || !ok2 {
		panic("status: page.html has no " + open)
	}
	sum := sha256.Sum256([]byte(text))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// livePage returns the page served live, with a stop button if stop.
func livePage(stop bool) []byte {
	p := fill(pageSource, "live", nil)
	p = cut(p, "<!--controls-->", "<!--/controls-->", false)
	return []byte(cut(p, "<!--stop-->", "<!--/stop-->", !stop))
}

// reportPage returns the report page with data, a JSON Snapshot, in it.
func reportPage(data []byte) []byte {
	p := fill(pageSource, "report", data)
	p = cut(p, "<!--stop-->", "<!--/stop-->", false)
	return []byte(cut(p, "<!--controls-->", "<!--/controls-->", true))
}

// fill sets the page's mode and CSP, and puts data, if any, in its data
// element.
func fill(p, mode string, data []byte) string {
	var script string
	if data != nil {
		script = `<script type="application/json" id="data">` + string(bytes.TrimSpace(data)) + `</script>`
	}
	return strings.NewReplacer("{{mode}}", mode, "{{csp}}", pageCSP, "<!--data-->", script).Replace(p)
}

// cut removes the markers open and close from p, and what is between
// them if drop.
func cut(p, open, close string, drop bool) string {
	before, rest, ok := strings.Cut(p, open)
	inside, after, ok2 := strings.Cut(rest, close)
	if !ok || !ok2 {
		panic("status: page.html has no " + open)
	}
	if drop {
		inside = ""
	}
	return before + inside + after
}
