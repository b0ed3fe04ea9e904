package fetch

import (
	"context"
	"fmt"
	"net/url"
	"testing"
)

// BenchmarkProxyPick is the pool's cost per request, a pick and its
// report, for a crawl of 1000 hosts over 10 proxies.
func BenchmarkProxyPick(b *testing.B) {
	for _, rotate := range []Rotation{Sticky, RoundRobin} {
		b.Run("rotate="+string(rotate), func(b *testing.B) {
			p := &ProxyPool{Rotate: rotate}
			for i := range 10 {
				p.Proxies = append(p.Proxies, &url.URL{Scheme: "http", Host: fmt.Sprintf("10.0.0.%d:3128", i+1)})
			}
			p.init(&AddressPolicy{AllowPrivate: true})
			hosts := make([]string, 1000)
			for i := range hosts {
				hosts[i] = fmt.Sprintf("host%d.example:443", i)
			}
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				h := hosts[i%len(hosts)]
				s, err := p.pick(ctx, h)
				if err != nil {
					b.Fatal(err)
				}
				p.report(s, h, false, false)
				i++
			}
		})
	}
}
