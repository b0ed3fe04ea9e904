package crawler_test

import (
	"net/netip"

	"crawler"
)

// testLoopback is the address policy of the tests whose servers
// (httptest) listen on 127.0.0.1: that address is allowed, and no other
// special-purpose one.
var testLoopback = crawler.AddressPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
