// Package links extracts the links of an HTML page and the robots
// directives that govern them, reading the body in place with a scanner
// that finds what golang.org/x/net/html's Tokenizer finds (FuzzScanHTML
// checks that for any input) at a fraction of its cost.
package links
