package extract

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/andybalholm/cascadia"
)

// A SelectorError reports a CSS selector that does not compile.
type SelectorError struct {
	Selector string
	Err      error // cascadia's
}

// Error names the selector and says what is wrong with it.
func (e *SelectorError) Error() string {
	return "extract: bad selector " + strconv.Quote(e.Selector) + ": " + e.Err.Error()
}

// Unwrap returns cascadia's error.
func (e *SelectorError) Unwrap() error { return e.Err }

// compile compiles a selector, or a group of them ("h1, h2"), as goquery
// does; pseudo-elements (::before) are not supported.
func compile(selector string) (cascadia.Selector, error) {
	sel, err := cascadia.Compile(selector)
	if err != nil {
		return nil, &SelectorError{Selector: selector, Err: err}
	}
	return sel, nil
}

// Rule is a named CSS selector, compiled once, whose matches' texts are
// extracted: the -extract NAME=SELECTOR of the CLI. Make it with
// ParseRule; in a Rule literal, whose selector is not compiled, Texts
// compiles it on each call (and finds nothing for a bad one). A Rule is
// safe for concurrent use.
type Rule struct {
	Name     string
	Selector string

	sel cascadia.Selector // compiled Selector; nil in a literal
}

// ParseRule parses "NAME=SELECTOR" into a Rule: a name of letters, digits,
// '_' and '-', then '=', then a CSS selector (or a group, "h1, h2"; an
// '=' in it is its own), each trimmed of white space. A missing '=' or
// name, or a character outside those of names, is an error naming the
// rule; a selector that does not compile, a *SelectorError.
func ParseRule(s string) (Rule, error) {
	name, selector, ok := strings.Cut(s, "=")
	if !ok {
		return Rule{}, fmt.Errorf("extract: rule %q: want NAME=SELECTOR, found no '='", s)
	}
	name, selector = strings.TrimSpace(name), strings.TrimSpace(selector)
	if name == "" {
		return Rule{}, fmt.Errorf("extract: rule %q: no name before '='", s)
	}
	if i := strings.IndexFunc(name, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-'
	}); i >= 0 {
		return Rule{}, fmt.Errorf("extract: rule %q: name %q has %q: want letters, digits, '_' and '-'", s, name, []rune(name[i:])[0])
	}
	if selector == "" {
		return Rule{}, fmt.Errorf("extract: rule %q: no selector after '='", s)
	}
	sel, err := compile(selector)
	if err != nil {
		return Rule{}, err
	}
	return Rule{Name: name, Selector: selector, sel: sel}, nil
}

// Texts returns the text of each element of d that the rule's selector
// matches, as Document.Texts does.
func (r Rule) Texts(d *Document) []string {
	sel := r.sel
	if sel == nil {
		var err error
		if sel, err = compile(r.Selector); err != nil {
			return nil
		}
	}
	return d.texts(sel)
}

// String returns the rule as ParseRule reads it, "NAME=SELECTOR".
func (r Rule) String() string { return r.Name + "=" + r.Selector }

// Rules are rules applied together, such as the CLI's -extract flags.
type Rules []Rule

// Extract applies every rule to d and returns, for each rule's name, the
// texts of its matches (Rule.Texts), an empty slice (not nil) for a rule
// that matched nothing. Rules of the same name add up, in rule order.
func (rs Rules) Extract(d *Document) map[string][]string {
	out := make(map[string][]string, len(rs))
	for _, r := range rs {
		texts := r.Texts(d)
		if prev, ok := out[r.Name]; ok {
			texts = append(prev, texts...)
		} else if texts == nil {
			texts = []string{}
		}
		out[r.Name] = texts
	}
	return out
}
