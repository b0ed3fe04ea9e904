package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"crawler"
)

// console is the command's stderr, shared by the logger, the progress line
// and the command's own messages: it serializes their writes, and erases
// the progress line before writing anything else over it.
type console struct {
	mu       sync.Mutex
	w        io.Writer
	progress bool // a progress line is on screen
}

// newConsole returns a console writing to w.
func newConsole(w io.Writer) *console { return &console{w: w} }

// Write writes p, after erasing the progress line if one is shown.
func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.eraseProgress()
	return c.w.Write(p)
}

// showProgress replaces the progress line with line.
func (c *console) showProgress(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprint(c.w, "\r\033[K"+line)
	c.progress = true
}

// eraseProgress erases the progress line, if one is shown; c.mu is held.
func (c *console) eraseProgress() {
	if c.progress {
		fmt.Fprint(c.w, "\r\033[K")
		c.progress = false
	}
}

// newLogger returns the Crawler's logger: short text lines on w, without
// time, at level Warn, or Debug (a line per page) if verbose; the URLs in
// its values are shortened.
func newLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: compactAttr}))
}

// newNoticeLogger returns a logger like newLogger's, at level Info: for
// what the operator did (a control of the status page), which is said
// whatever -v.
func newNoticeLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo, ReplaceAttr: compactAttr}))
}

// compactAttr drops the time of a log record and shortens the URLs in
// string and error values.
func compactAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	switch v := a.Value.Any().(type) {
	case string:
		a.Value = slog.StringValue(shortenURLs(v))
	case error:
		a.Value = slog.StringValue(shortenURLs(v.Error()))
	}
	return a
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// startProgress reports the crawl's progress on con every interval (0:
// the default; negative: never): on a terminal (stderr, the console's
// destination) as a line rewritten in place, otherwise as a plain log
// line, at defaultLogProgress by default. It returns a function that
// stops it and erases the line.
func startProgress(c *crawler.Crawler, con *console, stderr io.Writer, interval time.Duration) func() {
	terminal := isTerminal(stderr)
	if interval < 0 {
		return func() {}
	}
	if interval == 0 {
		interval = defaultProgress
		if !terminal {
			interval = defaultLogProgress
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				line := progressLine(c.Stats(), c.MaxPages)
				if terminal {
					con.showProgress(line)
				} else {
					fmt.Fprintf(con, "crawl: %s\n", line)
				}
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		con.mu.Lock()
		defer con.mu.Unlock()
		con.eraseProgress()
	}
}

// progressLine is the progress line for s, with the time left to a page
// budget of maxPages (0 or negative: none) at the rate so far.
func progressLine(s crawler.Stats, maxPages int64) string {
	var errs int64
	for _, n := range s.Errors {
		errs += n
	}
	line := fmt.Sprintf("pages %d  %.0f/s  frontier %d  hosts %d  errors %d", s.Fetched, s.PagesPerSec, s.Frontier, s.Hosts, errs)
	if maxPages > 0 {
		line += fmt.Sprintf("  %d%% of %d", min(100, s.Requests*100/maxPages), maxPages)
		if rate := float64(s.Requests) / s.Elapsed.Seconds(); rate > 0 && s.Requests < maxPages {
			left := time.Duration(float64(maxPages-s.Requests) / rate * float64(time.Second))
			line += "  ETA " + left.Round(time.Second).String()
		}
	}
	return line
}

// maxURLBytes is the most bytes of a URL that a message quotes.
const maxURLBytes = 200

// shortURL returns u if it has at most maxURLBytes bytes, and otherwise
// its start and end around an ellipsis, maxURLBytes bytes in all, cut at
// UTF-8 character boundaries.
func shortURL(u string) string {
	if len(u) <= maxURLBytes {
		return u
	}
	const ellipsis = "…"
	const tail = 40
	head := maxURLBytes - tail - len(ellipsis)
	for head > 0 && !utf8.RuneStart(u[head]) {
		head--
	}
	from := len(u) - tail
	for from < len(u) && !utf8.RuneStart(u[from]) {
		from++
	}
	return u[:head] + ellipsis + u[from:]
}

// shortenURLs shortens (with shortURL) every word of msg longer than
// maxURLBytes: a run of bytes without spaces, or a double-quoted string
// as Go quotes it, whose inside is shortened. Canonical URLs contain no
// space, errors quote other URLs, and nothing else the crawler prints has
// words that long, so these are the URLs of the message.
func shortenURLs(msg string) string {
	if len(msg) <= maxURLBytes {
		return msg
	}
	var b strings.Builder
	for msg != "" {
		n := wordLen(msg)
		word := msg[:n]
		if n > maxURLBytes {
			if quoted := n >= 2 && word[0] == '"' && word[n-1] == '"'; quoted {
				word = `"` + shortURL(word[1:n-1]) + `"`
			} else {
				word = shortURL(word)
			}
		}
		b.WriteString(word)
		msg = msg[n:]
	}
	return b.String()
}

// wordLen returns the length of the first word of s, as shortenURLs reads
// words: a space, a double-quoted string up to its closing quote (or the
// end of s), or a run of bytes up to a space or quote.
func wordLen(s string) int {
	switch {
	case s[0] == ' ':
		return 1
	case s[0] == '"':
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return len(s)
	}
	if i := strings.IndexAny(s, ` "`); i > 0 {
		return i
	}
	return len(s)
}
