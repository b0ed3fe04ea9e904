package fetch

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
)

// Kinds of fetch failure, as [ErrorKind] names them. The crawler counts
// its failures by kind (its Stats.Errors), under these and kinds of its
// own.
const (
	KindTimeout        = "timeout"          // the fetch ran out of time
	KindDNS            = "dns"              // the host name did not resolve
	KindRefused        = "refused"          // the connection was refused
	KindReset          = "reset"            // the connection was reset or closed early
	KindTLS            = "tls"              // the TLS handshake or certificate failed
	KindCanceled       = "canceled"         // the fetch's context was cancelled
	KindBlockedAddress = "blocked-address"  // refused before sending: the address is not allowed (see AddressPolicy)
	KindHeaderTooLarge = "header-too-large" // the response header passed the transport's limit (NewTransport: 256 KiB)
	KindNotArchived    = "not-archived"     // a replaying fetcher's archive has no capture of the URL (crawler/replay)
	KindProxyBanned    = "proxy-banned"     // the answer through a proxy of a ProxyPool was a ban (ErrProxyBanned)
	KindProxyAuth      = "proxy-auth"       // a proxy of a ProxyPool answered 407 (ErrProxyAuth)
	KindOther          = "other"            // anything else
)

// Kinded is an error that names its own kind (a failed login:
// "login-failed"), which ErrorKind returns for it and for every error
// wrapping it.
type Kinded interface {
	error
	ErrorKind() string
}

// ErrorKind classifies the error of a fetch into one of the Kind
// constants, or the kind a [Kinded] error in its chain names; "" for nil.
func ErrorKind(err error) string {
	if k, ok := errors.AsType[Kinded](err); ok {
		return k.ErrorKind()
	}
	var dnsErr *net.DNSError
	var recErr interface{ Timeout() bool }
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrBlockedAddress):
		return KindBlockedAddress
	case errors.Is(err, ErrProxyBanned):
		return KindProxyBanned
	case errors.Is(err, ErrProxyAuth):
		return KindProxyAuth
	case strings.Contains(err.Error(), "server response headers exceeded"): // net/http has no sentinel
		return KindHeaderTooLarge
	case errors.Is(err, context.Canceled):
		return KindCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	case errors.As(err, &dnsErr):
		return KindDNS
	case errors.As(err, &recErr) && recErr.Timeout():
		return KindTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return KindRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, io.EOF), errors.Is(err, syscall.EPIPE):
		return KindReset
	case strings.Contains(err.Error(), "tls:"), strings.Contains(err.Error(), "x509:"):
		return KindTLS
	}
	return KindOther
}

// ErrNotSent is wrapped by the errors of fetches that a Fetcher declined
// before sending anything (a site's max_pages spent): the crawler reports
// the page with the error, and counts no request and no failure of its
// host.
var ErrNotSent = errors.New("fetch: not sent")
