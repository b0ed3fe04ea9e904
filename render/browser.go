package render

import (
	"context"
	"fmt"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

const (
	// startTimeout bounds the start of the browser.
	startTimeout = 30 * time.Second
	// closeTimeout bounds the graceful close of the browser, after which
	// it is killed.
	closeTimeout = 2 * time.Second
	// deadProxy is where the browser sends what the interception does not
	// take: nothing listens there (port 9 is discard, refused by browsers
	// as a destination, and closed on any sane host), so it fails.
	deadProxy = "http://127.0.0.1:9"
)

// browser is one Chromium process and the chromedp context that drives it.
type browser struct {
	ctx         context.Context    // the browser's chromedp context; done once it is stopped or has died
	kill        context.CancelFunc // cancels ctx without waiting, which kills the process
	cancel      context.CancelFunc // chromedp's cancel of ctx, which waits for the process
	cancelAlloc context.CancelFunc // the allocator's, which waits for the profile directory to go
	pid         int                // the process's id, 0 if unknown
}

// guards are network guards of the browser, which tests leave out to show
// what they stop.
type guards struct {
	proxy    bool // the dead proxy
	resolver bool // the host resolver that resolves nothing
	// lna is Chromium's own Local Network Access checks: they keep a page
	// the browser takes for public (as all pages fulfilled by the
	// interception are) from reaching loopback and private addresses,
	// such as a test's canary, but not public ones, which tests cannot
	// use.
	lna bool
}

// browserFlags returns the allocator options of a browser run from path:
// headless, and with every way to the network the browser has of its own
// closed, but for the guards in off.
//
// Flags of older documentation that this Chromium (156) no longer has are
// left out: --dns-prefetch-disable (DNS prefetching is covered by
// host-resolver-rules and the proxy), --force-webrtc-ip-handling-policy.
func browserFlags(path string, off guards) []chromedp.ExecAllocatorOption {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless, // with hide-scrollbars and mute-audio
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// chromedp adds --no-sandbox when run as root, as Chromium needs.
		chromedp.Flag("disable-gpu", true),

		// Nothing of the browser's own talks to the network: no
		// background requests, updates, sync, extensions, apps, reports,
		// crash uploads or pings.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("disable-quic", true),
		// WebRTC sends UDP (STUN, connectivity checks, mDNS) past both
		// the interception and any HTTP proxy; this policy allows it only
		// through the proxy, which is dead, so it sends nothing.
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("disable-site-isolation-trials", true), // see disable-features below

		// Tabs render at full speed in the background, and the browser
		// asks nobody anything.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-hang-monitor", true),
		chromedp.Flag("disable-ipc-flooding-protection", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("deny-permission-prompts", true),
		chromedp.Flag("disable-notifications", true),
		chromedp.Flag("password-store", "basic"),
	}
	// Every frame in the page's own renderer process: a frame of another
	// site in a process of its own has its requests outside the page's
	// interception (they would fail at the dead proxy).
	disabled := "SitePerProcess,IsolateOrigins,IsolateSandboxedIframes"
	if off.lna {
		disabled += ",LocalNetworkAccessChecks,LocalNetworkAccessChecksWebSockets"
	}
	opts = append(opts, chromedp.Flag("disable-features", disabled))
	if !off.resolver {
		// No host is ever resolved by the browser (its requests are made
		// by the Fetcher, which resolves them): no DNS query leaves,
		// whatever a page prefetches or preconnects. The rule matches
		// address literals too, so a connection the interception misses
		// fails here already, proxy or not.
		opts = append(opts, chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"))
	}
	if !off.proxy {
		// Whatever the interception misses (WebSockets, which the Fetch
		// domain cannot pause; a service worker's script) goes to a proxy
		// that is not there, loopback included ("<-loopback>" removes the
		// implicit bypass of localhost), and fails: there is no fallback
		// to a direct connection.
		opts = append(opts,
			chromedp.ProxyServer(deadProxy),
			chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		)
	}
	return opts
}

// startBrowser starts the browser at path, with a temporary profile
// directory that chromedp removes when the browser ends.
func startBrowser(path string, off guards) (*browser, error) {
	root, kill := context.WithCancel(context.Background())
	actx, cancelAlloc := chromedp.NewExecAllocator(root, browserFlags(path, off)...)
	quiet := func(string, ...any) {}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(quiet), chromedp.WithErrorf(quiet))
	b := &browser{ctx: ctx, kill: kill, cancel: cancel, cancelAlloc: cancelAlloc}

	t := time.AfterFunc(startTimeout, kill)
	err := chromedp.Do(ctx) // starts it, bound to ctx
	if !t.Stop() && err != nil {
		err = fmt.Errorf("%w (after %v)", err, startTimeout)
	}
	if err != nil {
		b.stop()
		return nil, fmt.Errorf("start browser %s: %w", path, err)
	}
	if p := chromedp.FromContext(ctx).Browser.Process(); p != nil {
		b.pid = p.Pid
	}
	return b, nil
}

// stop closes the browser, gracefully if it can within closeTimeout, and
// returns once its processes have exited and its profile directory is
// gone.
func (b *browser) stop() {
	// A browser that never started has no process to close; its context
	// must then be cancelled only once, below (chromedp's Cancel and
	// cancel would each wait for the same token of its allocator).
	if b.ctx.Err() == nil && chromedp.FromContext(b.ctx).Browser != nil {
		ctx, cancel := context.WithTimeout(b.ctx, closeTimeout)
		chromedp.Cancel(ctx)
		cancel()
	}
	b.kill()
	b.cancel()
	b.cancelAlloc()
}

// denyDownloads makes the browser context id refuse downloads, which would
// write files (a frame's document sent as an attachment).
func denyDownloads(ctx context.Context, id cdp.BrowserContextID) error {
	_, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior:         cdpbrowser.SetDownloadBehaviorBehaviorDeny,
		BrowserContextID: id,
	})
	return err
}
