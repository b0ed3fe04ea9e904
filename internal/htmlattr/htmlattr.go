// Package htmlattr reads the attributes of an element of an HTML tree
// parsed by golang.org/x/net/html, as the packages that walk such trees
// (extract, sites) need them.
package htmlattr

import (
	"strings"

	"golang.org/x/net/html"
)

// Lookup returns the value of n's attribute key (in any case, outside a
// namespace), and whether n has it.
func Lookup(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && strings.EqualFold(a.Key, key) {
			return a.Val, true
		}
	}
	return "", false
}

// Get returns the value of n's attribute key; "" if n has none.
func Get(n *html.Node, key string) string {
	v, _ := Lookup(n, key)
	return v
}

// Has reports whether n has the attribute key.
func Has(n *html.Node, key string) bool {
	_, ok := Lookup(n, key)
	return ok
}
