package main

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Every flag the README gives a crawl command is one the command has: in
// its code blocks, the words after `crawl` (or `./cmd/crawl`) up to the
// end of that shell command, and in its inline code that starts with
// `crawl `.
func TestREADMEFlagsExist(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	registerFlags(fs, &options{})
	var commands []string
	for _, block := range codeBlocks(string(b)) {
		commands = append(commands, strings.Split(block, "\n")...)
	}
	for _, m := range regexp.MustCompile("`(crawl [^`]*)`").FindAllStringSubmatch(string(b), -1) {
		commands = append(commands, m[1])
	}
	n := 0
	for _, line := range commands {
		for _, name := range crawlFlags(line) {
			n++
			if name != "help" && name != "h" && fs.Lookup(name) == nil {
				t.Errorf("README.md names -%s, which crawl does not have, in: %s", name, strings.TrimSpace(line))
			}
		}
	}
	if n < 20 {
		t.Errorf("found only %d flags of crawl commands in README.md: is the parsing broken?", n)
	}
}

// codeBlocks returns the bodies of the fenced code blocks of a Markdown
// document, but for Go, go.mod and YAML ones.
func codeBlocks(doc string) []string {
	var (
		blocks []string
		b      strings.Builder
		in     bool
		skip   bool
	)
	for line := range strings.SplitSeq(doc, "\n") {
		fence := strings.TrimSpace(line)
		switch {
		case !in && strings.HasPrefix(fence, "```"):
			in = true
			lang := strings.TrimPrefix(fence, "```")
			skip = lang == "go" || lang == "go.mod" || lang == "yaml"
			b.Reset()
		case in && fence == "```":
			in = false
			if !skip {
				blocks = append(blocks, b.String())
			}
		case in:
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return blocks
}

// crawlFlags returns the names of the flags given to crawl on one line of
// shell: the words that start with - after the word crawl (or a path
// ending in /crawl), up to the end of its command (|, &, ;, a comment).
func crawlFlags(line string) []string {
	var names []string
	inCrawl := false
	for _, w := range strings.Fields(line) {
		switch {
		case w == "crawl" || strings.HasSuffix(w, "/crawl"):
			inCrawl = true
		case w == "|" || w == "||" || w == "&" || w == "&&" || w == ";" || strings.HasPrefix(w, "#"):
			inCrawl = false
		case inCrawl && len(w) > 1 && w[0] == '-' && (w[1] == '-' || w[1] >= 'a' && w[1] <= 'z'):
			name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
			names = append(names, name)
		}
	}
	return names
}
