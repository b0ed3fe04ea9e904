package simhash_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"crawler/simhash"

	"github.com/zeebo/xxh3"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b uint64
		want int
	}{
		{0, 0, 0},
		{0, 1, 1},
		{1 << 63, 0, 1},
		{0, ^uint64(0), 64},
		{0xf0f0, 0x0ff0, 8},
		{0x8000000000000001, 0x8000000000000001, 0},
	} {
		if got := simhash.Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%#x, %#x) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := simhash.Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%#x, %#x) = %d, want %d", c.b, c.a, got, c.want)
		}
	}
}

// reference is Charikar's SimHash written plainly: a signed counter per bit.
func reference(hashes []uint64, weights []int) uint64 {
	var v [64]int64
	for j, x := range hashes {
		for i := range v {
			if x>>i&1 == 1 {
				v[i] += int64(weights[j])
			} else {
				v[i] -= int64(weights[j])
			}
		}
	}
	var fp uint64
	for i, c := range v {
		if c > 0 {
			fp |= 1 << i
		}
	}
	return fp
}

// TestHasherReference checks the Hasher's counters (small weights packed
// in bytes, large ones apart) against the plain algorithm.
func TestHasherReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	trials := 300
	if simhash.RaceEnabled {
		trials = 30
	}
	for trial := range trials {
		n := r.IntN(2000)
		maxW := []int{1, 4, 255, 256, 1000, 1 << 20}[trial%6]
		hashes, weights := make([]uint64, n), make([]int, n)
		var h simhash.Hasher
		for i := range n {
			hashes[i], weights[i] = r.Uint64(), r.IntN(maxW+1)
			h.AddHash(hashes[i], weights[i])
		}
		want := reference(hashes, weights)
		if got := h.Sum(); got != want {
			t.Fatalf("trial %d (%d features, weights ≤ %d): Sum %#x, want %#x", trial, n, maxW, got, want)
		}
		if got := h.Sum(); got != want {
			t.Fatalf("trial %d: second Sum %#x, want %#x", trial, got, want)
		}
	}
}

func TestHasher(t *testing.T) {
	var h simhash.Hasher
	if got := h.Sum(); got != 0 {
		t.Errorf("empty Sum = %#x, want 0", got)
	}
	h.AddString("one", 0)
	if got := h.Sum(); got != 0 {
		t.Errorf("Sum after a weight of 0 = %#x, want 0", got)
	}
	h.Add([]byte("alpha"), 1)
	if got, want := h.Sum(), xxh3.HashString("alpha"); got != want {
		t.Errorf("Sum of one feature = %#x, want its hash %#x", got, want)
	}
	h.AddString("alpha", 2) // Add and AddString agree
	if got, want := h.Sum(), xxh3.HashString("alpha"); got != want {
		t.Errorf("Sum of one feature thrice = %#x, want %#x", got, want)
	}
	h.Reset()
	if got := h.Sum(); got != 0 {
		t.Errorf("Sum after Reset = %#x, want 0", got)
	}
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	for _, w := range words {
		h.AddString(w, 1)
	}
	of := simhash.Of(func(yield func([]byte) bool) {
		for _, w := range words {
			if !yield([]byte(w)) {
				return
			}
		}
	})
	if got := h.Sum(); got != of {
		t.Errorf("Hasher %#x != Of %#x", got, of)
	}
	defer func() {
		if recover() == nil {
			t.Error("AddHash with a negative weight did not panic")
		}
	}()
	h.AddHash(1, -1)
}

// TestPinned pins fingerprints, which callers may store: a change of
// features, hash or rule must be deliberate (and change these values).
func TestPinned(t *testing.T) {
	page := `<!DOCTYPE html><html><head><title>Near duplicates</title>
<script>var x = "not text";</script><style>p { color: red }</style></head>
<body><nav><a href="/">Home</a> <a href="/news">News</a></nav>
<p>Detecting near duplicates for web crawling: a crawler should ignore a page
that differs from an earlier one only in its date, its counters &amp; its ads.</p>
<p class="date">Updated 7 March 2024</p></body></html>`
	for _, c := range []struct {
		name string
		got  uint64
		want uint64
	}{
		{"Of", simhash.Of(slices.Values([][]byte{[]byte("a"), []byte("b"), []byte("c")})), 0xc642239e4698cc1f},
		{"OfHTML", simhash.OfHTML([]byte(page)), 0x64e4e940e3b43684},
		{"Of, majority", simhash.Of(slices.Values([][]byte{[]byte("a"), []byte("b"), []byte("c")})), majority(xxh3.HashString("a"), xxh3.HashString("b"), xxh3.HashString("c"))},
		{"OfHTML empty", simhash.OfHTML(nil), 0},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
}

// majority returns the bitwise majority of three words.
func majority(a, b, c uint64) uint64 { return a&b | a&c | b&c }

// TestOfHTML checks what counts as text: pairs of documents with the same
// visible text have the same fingerprint, and other pairs differ.
func TestOfHTML(t *testing.T) {
	const text = "one two three four five six seven eight nine ten eleven twelve"
	for _, c := range []struct {
		name string
		a, b string
		same bool
	}{
		{"markup", "<p>" + text + "</p>", "<DIV class=x>" + strings.ReplaceAll(text, " ", " \n\t ") + "</DIV>", true},
		{"case", "<p>" + text + "</p>", "<p>" + strings.ToUpper(text) + "</p>", true},
		{"entities", "<p>caf&eacute; &amp; bar &#x62;az " + text + "</p>", "<p>café &amp; bar baz " + text + "</p>", true},
		{"punctuation", "<p>" + text + "</p>", "<p>" + strings.ReplaceAll(text, " ", ", ") + ".</p>", true},
		{"script", "<p>" + text + "</p>", "<p>" + text + "<script>var a = 'alpha beta gamma delta epsilon';</script></p>", true},
		{"self-closing script", "<p>" + text + "</p>", "<p>" + text + "<script/>alpha beta gamma delta epsilon</script></p>", true},
		{"style", "<p>" + text + "</p>", "<style>p { alpha: beta }</style><p>" + text + "</p>", true},
		{"noscript", "<p>" + text + "</p>", "<p>" + text + "</p><noscript>enable javascript to read more text</noscript>", true},
		{"template", "<p>" + text + "</p>", "<p>" + text + "</p><template><p>alpha <template>beta</template> gamma delta</p></template>", true},
		{"comment", "<p>" + text + "</p>", "<p>" + text + "<!-- alpha beta gamma delta --></p>", true},
		{"attributes", "<p>" + text + "</p>", "<p title='alpha beta gamma delta' data-x=\"epsilon\">" + text + "</p>", true},
		{"digits", "<p>" + text + "</p>", "<p>" + text + " 2024 12:30 h3</p>", true},
		{"unclosed script", "<p>" + text + "</p>", "<p>" + text + "</p><script>alpha beta gamma delta epsilon", true},
		{"words", "<p>" + text + "</p>", "<p>" + text + " thirteen fourteen fifteen sixteen</p>", false},
		{"order", "<p>" + text + "</p>", "<p>" + reversed(text) + "</p>", false},
		{"template closed", "<p>" + text + "</p>", "<template>alpha</template><p>" + text + " thirteen fourteen fifteen</p>", false},
		{"title", "<p>" + text + "</p>", "<title>alpha beta gamma delta epsilon zeta eta theta</title><p>" + text + "</p>", false},
		{"tag ends word", "<p>" + text + "</p>", "<p>" + strings.ReplaceAll(text, "three", "th<b>ree</b>") + "</p>", false},
	} {
		a, b := simhash.OfHTML([]byte(c.a)), simhash.OfHTML([]byte(c.b))
		if (a == b) != c.same {
			t.Errorf("%s: OfHTML(%q) = %#x, OfHTML(%q) = %#x: same %v, want %v", c.name, c.a, a, c.b, b, a == b, c.same)
		}
	}
}

// reversed returns the words of s in reverse order.
func reversed(s string) string {
	w := strings.Fields(s)
	slices.Reverse(w)
	return strings.Join(w, " ")
}

// TestOfHTMLNear checks that a small change of a long text moves the
// fingerprint a little, and an unrelated text a lot.
func TestOfHTMLNear(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vocab := strings.Fields("river stone cloud forest meadow harbor lantern orchard copper silver amber cedar willow granite thistle juniper alpha bravo charlie delta echo foxtrot golf hotel")
	para := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	main := "<p>" + para(300) + "</p><p>" + para(300) + "</p>"
	a := simhash.OfHTML([]byte("<p>Updated Monday 3 May</p>" + main + "<p>read 12 times</p>"))
	b := simhash.OfHTML([]byte("<p>Updated Friday 9 June</p>" + main + "<p>read 345 times</p>"))
	c := simhash.OfHTML([]byte("<p>Updated Monday 3 May</p><p>" + para(600) + "</p><p>read 12 times</p>"))
	if d := simhash.Distance(a, b); d > simhash.DefaultDistance {
		t.Errorf("near-duplicates %d bits apart, want ≤ %d", d, simhash.DefaultDistance)
	}
	if d := simhash.Distance(a, c); d <= 2*simhash.DefaultDistance {
		t.Errorf("unrelated pages %d bits apart, want > %d", d, 2*simhash.DefaultDistance)
	}
}

func ExampleDistance() {
	fmt.Println(simhash.Distance(0b1011, 0b0110))
	// Output: 3
}
