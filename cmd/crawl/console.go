package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

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
// time, at level Warn, or Debug (a line per page) if verbose.
func newLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: compactAttr}))
}

// compactAttr drops the time of a log record.
func compactAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
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

// startProgress shows a progress line on con every interval (0: the
// default; negative: never) if stderr, the console's destination, is a
// terminal. It returns a function that stops it and erases the line.
func startProgress(c *crawler.Crawler, con *console, stderr io.Writer, interval time.Duration) func() {
	if interval < 0 || !isTerminal(stderr) {
		return func() {}
	}
	if interval == 0 {
		interval = defaultProgress
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
				con.showProgress(progressLine(c.Stats()))
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

// progressLine is the progress line for s.
func progressLine(s crawler.Stats) string {
	var errs int64
	for _, n := range s.Errors {
		errs += n
	}
	return fmt.Sprintf("pages %d  %.0f/s  frontier %d  hosts %d  errors %d", s.Fetched, s.PagesPerSec, s.Frontier, s.Hosts, errs)
}
