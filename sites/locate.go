package sites

import (
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// The TOML decoder reports a key's position only for syntax errors: it
// keeps one position per dotted key, so every [[site]] shares the last
// one's. keyLines finds the line of each key occurrence itself, by a scan
// of the (already valid) text for key tokens.

// keyLines returns the line (from 1) of each of keys, which are in
// document order as [toml.MetaData.Keys] gives them; 0 where not found.
func keyLines(src string, keys []toml.Key) []int {
	toks := keyTokens(src)
	lines := make([]int, len(keys))
	j := 0
	for i, k := range keys {
		last := k[len(k)-1]
		for j < len(toks) && toks[j].name != last {
			j++
		}
		if j == len(toks) {
			break
		}
		lines[i] = toks[j].line
		j++
	}
	return lines
}

type token struct {
	name string
	line int
}

// keyTokens returns the words and single-line strings of src that are
// followed by "=", "." or "]", which every key is, outside comments and
// string values. A few non-keys pass too (the 1 of 1.5, the "x" of
// ["x"]); keyLines skips them, as it looks for a key's name in order.
func keyTokens(src string) []token {
	var toks []token
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			name, end, multi := scanString(src, i)
			if !multi && keyEnd(src, end) {
				toks = append(toks, token{name, line})
			}
			line += strings.Count(src[i:end], "\n")
			i = end
		case bare(c):
			j := i
			for j < len(src) && bare(src[j]) {
				j++
			}
			if keyEnd(src, j) {
				toks = append(toks, token{src[i:j], line})
			}
			i = j
		default:
			i++
		}
	}
	return toks
}

func bare(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// keyEnd reports whether src[i:] starts, after blanks, with "=", "." or "]".
func keyEnd(src string, i int) bool {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i < len(src) && (src[i] == '=' || src[i] == '.' || src[i] == ']')
}

// scanString reads the string that starts at src[i] (a quote) and returns
// its value (for a single-line string), the index after it, and whether
// it is a multi-line one.
func scanString(src string, i int) (name string, end int, multi bool) {
	q := src[i]
	if strings.HasPrefix(src[i:], string([]byte{q, q, q})) {
		j := i + 3
		for j < len(src) {
			if q == '"' && src[j] == '\\' {
				j += 2
				continue
			}
			if src[j] == q && strings.HasPrefix(src[j:], string([]byte{q, q, q})) {
				j += 3
				for k := 0; k < 2 && j < len(src) && src[j] == q; k++ {
					j++ // up to two quotes end the content
				}
				return "", j, true
			}
			j++
		}
		return "", len(src), true
	}
	j := i + 1
	for j < len(src) && src[j] != q && src[j] != '\n' {
		if q == '"' && src[j] == '\\' {
			j++
		}
		j++
	}
	j = min(j, len(src))
	raw := src[i+1 : j]
	if j < len(src) && src[j] == q {
		j++
	}
	if q == '"' {
		if s, err := strconv.Unquote(`"` + goEscapes(raw) + `"`); err == nil {
			raw = s
		}
	}
	return raw, j, false
}

// goEscapes returns the content of a TOML basic string with its escapes
// as Go writes them: TOML's "\e" (escape, TOML 1.1) is Go's "\x1b"; the
// other escapes the TOML parser takes are Go's too.
func goEscapes(raw string) string {
	if !strings.Contains(raw, `\e`) {
		return raw
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		switch {
		case raw[i] != '\\' || i+1 == len(raw):
			b.WriteByte(raw[i])
		case raw[i+1] == 'e':
			b.WriteString(`\x1b`)
			i++
		default:
			b.WriteString(raw[i : i+2])
			i++
		}
	}
	return b.String()
}
