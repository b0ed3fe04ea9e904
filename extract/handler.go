package extract

import (
	"context"
	"errors"

	"crawler"
)

// Handler returns a crawler.Handler that parses each HTML page once and
// calls f with the page and its Document, from which f may make any number
// of selections. Pages with an Err, without a body (a 304) or that are not
// HTML are skipped: f is not called and the handler returns nil. Pages of
// any status reach f (a 404 page is HTML too): check p.Status. A page that
// does not parse (nested too deep) is an error of the handler, which the
// crawler counts. f runs on the crawler's workers, concurrently: it must
// be safe for concurrent use.
func Handler(f func(ctx context.Context, p *crawler.Page, d *Document) error) crawler.Handler {
	return crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
		if p.Err != nil {
			return nil
		}
		d, err := Parse(p)
		switch {
		case errors.Is(err, ErrNoBody), errors.Is(err, ErrNotHTML):
			return nil
		case err != nil:
			return err
		}
		return f(ctx, p, d)
	})
}
