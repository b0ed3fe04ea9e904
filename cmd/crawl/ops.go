package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"crawler/metrics"
	"crawler/status"
)

// errStopControl is the cause of a crawl stopped from the status page.
var errStopControl = errors.New("stopped from the status page")

// operations are what -http and -report add to a crawl: a Monitor that
// samples it, and the status server.
type operations struct {
	monitor      *status.Monitor
	server       *http.Server // nil without -http
	con          io.Writer    // the console: stderr
	reportPath   string       // -report
	stopSampling context.CancelFunc
	wg           sync.WaitGroup
}

// startOperations starts what o asks of -http and -report for cr, and
// wraps cr's Handler to record the last pages and errors. stop stops the
// crawl gracefully (the status page's stop control). It says on cr.con
// where the status page is, and logs there each control used, whatever
// -v. It returns nil when neither flag is given.
func startOperations(ctx context.Context, o *options, cr *crawl, stop func()) (*operations, error) {
	if o.http == "" && o.report == "" {
		return nil, nil
	}
	opts := status.Options{MaxPages: o.maxPages, Node: o.node}
	if o.proxies.pool != nil {
		opts.Proxies = o.proxies.pool
	}
	ops := &operations{monitor: status.New(cr.c, opts), con: cr.con, reportPath: o.report}
	if o.http != "" {
		addr, err := status.CheckAddr(o.http, o.httpToken)
		if err != nil {
			return nil, usageError{fmt.Errorf("-http %s: %w", o.http, err)}
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("-http: %w", err)
		}
		reg := prometheus.NewRegistry()
		var labels prometheus.Labels
		if o.node != "" {
			labels = prometheus.Labels{"node": o.node}
		}
		reg.MustRegister(metrics.NewCollector(cr.c, metrics.Options{ConstLabels: labels}))
		if o.proxies.pool != nil {
			reg.MustRegister(metrics.NewProxyCollector(o.proxies.pool, metrics.Options{ConstLabels: labels}))
		}
		ops.server = &http.Server{
			Handler: ops.monitor.Handler(status.ServerOptions{
				Token:   o.httpToken,
				Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}),
				Stop:    stop,
				Logger:  newNoticeLogger(cr.con),
			}),
			ReadHeaderTimeout: 10 * time.Second,
		}
		ops.wg.Go(func() { ops.server.Serve(l) }) // returns at Close
		fmt.Fprintf(cr.con, "crawl: status page at http://%s/ (Prometheus metrics at /metrics)\n", l.Addr())
	}
	cr.c.Handler = ops.monitor.Wrap(cr.c.Handler)
	var sampling context.Context
	sampling, ops.stopSampling = context.WithCancel(context.WithoutCancel(ctx))
	ops.wg.Go(func() { ops.monitor.Run(sampling) })
	return ops, nil
}

// finish marks the crawl finished, takes the last sample and writes the
// -report to report, if not nil, saying so on the console.
func (ops *operations) finish(report *output) error {
	if ops == nil {
		return nil
	}
	ops.stopSampling()
	ops.monitor.Finish()
	if report == nil {
		return nil
	}
	if err := ops.monitor.WriteReport(report.w); err != nil {
		return fmt.Errorf("-report: %w", err)
	}
	fmt.Fprintf(ops.con, "crawl: report written to %s\n", ops.reportPath)
	return nil
}

// Close stops the status server and waits for the sampler.
func (ops *operations) Close() error {
	if ops == nil {
		return nil
	}
	ops.stopSampling()
	var err error
	if ops.server != nil {
		err = ops.server.Close()
	}
	ops.wg.Wait()
	return err
}
