package warc

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"
)

// This file deflates small inputs (RFC 1951): a record of a few hundred
// bytes (a request, a redirect) as one final block of dynamic Huffman
// codes, but codes made once, from the letters of a typical record,
// rather than for each record: building the codes is most of what
// deflate costs on such a record (dynamic codes of its own save a
// record a few bytes over these at most, and cost their table in the
// member all the same). The matching is a greedy LZ77 pass like that of
// deflate's fastest level.

// maxSmallInput is the largest input appendSmall takes: its matcher
// keeps positions in uint16, and distances stay within deflate's 32 KiB
// window.
const maxSmallInput = 32 << 10

const (
	smallHashBits = 11
	minMatch      = 4 // the matcher finds matches of 4 bytes or more
	maxMatch      = 258
)

// smallDeflater holds the matcher's table, kept between inputs.
type smallDeflater struct {
	table [1 << smallHashBits]uint16 // position+1 of the last input at each hash; 0: none
}

// A bitWriter appends bits to a byte slice, least significant first.
type bitWriter struct {
	out   []byte
	acc   uint64
	nbits uint
}

func (b *bitWriter) write(v uint64, n uint) {
	b.acc |= v << b.nbits
	b.nbits += n
	if b.nbits >= 32 {
		b.out = binary.LittleEndian.AppendUint32(b.out, uint32(b.acc))
		b.acc >>= 32
		b.nbits -= 32
	}
}

func (b *bitWriter) code(c huffCode) { b.write(uint64(c.code), uint(c.len)) }

// huffCode is a Huffman code, its bits reversed to be written least
// significant first.
type huffCode struct {
	code uint16
	len  uint8
}

// A codeTable is a block's codes and its header, which declares them.
type codeTable struct {
	lit    [286]huffCode // literals, end of block, lengths
	dist   [30]huffCode
	header bitWriter // the block header: BFINAL, BTYPE and the codes
}

// appendSmall appends to dst the deflate stream of in (at most
// maxSmallInput bytes): one final block of the codes of smallTable. Its
// matcher is greedy, like deflate's fastest level: a hash of 4 bytes
// finds the last position that began with them.
func (d *smallDeflater) appendSmall(dst, in []byte) []byte {
	return d.deflate(dst, in, smallTable(), nil)
}

// deflate appends to dst the deflate stream of in in codes t, and counts
// the literals and matches it writes in counts if it is not nil: by
// symbol of the literal/length alphabet (the 286 first), then of the
// distances' (the 30 after). The end of the block is not counted.
func (d *smallDeflater) deflate(dst, in []byte, t *codeTable, counts *[286 + 30]int) []byte {
	// At most 15 bits a literal, 48 a match (of 4 bytes or more), and
	// 8 bytes of room for a write past the end.
	n := len(dst)
	dst = slices.Grow(dst, len(t.header.out)+2*len(in)+32)
	buf := dst[:cap(dst)]
	pos := n + copy(buf[n:], t.header.out)
	acc, nbits := t.header.acc, t.header.nbits
	lit := &t.lit
	clear(d.table[:])
	emitted := 0 // the first byte not yet written
	for i := 0; ; {
		// Find the next match, m bytes at cand, or none (m 0).
		m, cand := 0, 0
		for ; i+minMatch <= len(in); i++ {
			v := binary.LittleEndian.Uint32(in[i:])
			h := smallHash(v)
			cand = int(d.table[h]) - 1
			d.table[h] = uint16(i + 1)
			if cand >= 0 && binary.LittleEndian.Uint32(in[cand:]) == v {
				m = minMatch + matchLen(in[i+minMatch:min(len(in), i+maxMatch)], in[cand+minMatch:])
				break
			}
		}
		if m == 0 {
			i = len(in)
		}
		for _, c := range in[emitted:i] { // the literals before it
			if counts != nil {
				counts[c]++
			}
			h := lit[c]
			acc |= uint64(h.code) << (nbits & 63)
			nbits += uint(h.len)
			if nbits >= 48 {
				binary.LittleEndian.PutUint64(buf[pos:], acc)
				pos += 6
				acc >>= 48
				nbits -= 48
			}
		}
		if m == 0 {
			break
		}
		// A match takes at most 48 bits: write acc down to 7 bits first.
		binary.LittleEndian.PutUint64(buf[pos:], acc)
		k := nbits >> 3
		pos += int(k)
		acc >>= (k << 3) & 63
		nbits &= 7
		lc := lengthCode[m]
		dist := i - cand
		dc := distCode(dist)
		if counts != nil {
			counts[257+int(lc)]++
			counts[286+dc]++
		}
		c := lit[257+int(lc)]
		acc |= (uint64(c.code) | uint64(m-int(lengthBase[lc]))<<(c.len&63)) << (nbits & 63)
		nbits += uint(c.len) + uint(lengthExtra[lc])
		c = t.dist[dc]
		acc |= (uint64(c.code) | uint64(dist-int(distBase[dc]))<<(c.len&63)) << (nbits & 63)
		nbits += uint(c.len) + uint(distExtra[dc])
		if nbits >= 48 {
			binary.LittleEndian.PutUint64(buf[pos:], acc)
			pos += 6
			acc >>= 48
			nbits -= 48
		}
		// Index the match's last position, so that a run goes on.
		if end := i + m - 1; end+minMatch <= len(in) {
			d.table[smallHash(binary.LittleEndian.Uint32(in[end:]))] = uint16(end + 1)
		}
		i += m
		emitted = i
	}
	c := lit[256] // end of block
	acc |= uint64(c.code) << (nbits & 63)
	nbits += uint(c.len)
	binary.LittleEndian.PutUint64(buf[pos:], acc) // under 64 bits
	return dst[:pos+int(nbits+7)>>3]
}

// matchLen returns how many bytes a and b share at their start; b is at
// least as long as a.
func matchLen(a, b []byte) int {
	n := 0
	for ; n+8 <= len(a); n += 8 {
		if x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:]); x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
	}
	for ; n < len(a) && a[n] == b[n]; n++ {
	}
	return n
}

func smallHash(v uint32) uint32 { return (v * 0x9e3779b1) >> (32 - smallHashBits) }

// distCode returns the deflate code of distance d (1 to 32768).
func distCode(d int) int {
	x := uint32(d - 1)
	if x < 4 {
		return int(x)
	}
	nb := bits.Len32(x)
	return 2*(nb-1) + int(x>>(nb-2))&1
}

var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}

	// lengthCode is the length code (less 257) of each match length; a
	// table never changed after it is built.
	lengthCode = func() (lc [maxMatch + 1]uint8) {
		for c := range lengthBase {
			end := maxMatch
			if c+1 < len(lengthBase) {
				end = int(lengthBase[c+1]) - 1
			}
			for n := int(lengthBase[c]); n <= end; n++ {
				lc[n] = uint8(c)
			}
		}
		return lc
	}()
)

// smallTable returns the codes of appendSmall, made at its first call
// from the symbols of smallSample and never changed after.
var smallTable = sync.OnceValue(func() *codeTable {
	// Count the symbols of the sample in codes whose bits do not matter.
	var counting codeTable
	for i := range counting.lit {
		counting.lit[i].len = 9
	}
	for i := range counting.dist {
		counting.dist[i].len = 9
	}
	var counts [286 + 30]int
	var d smallDeflater
	d.deflate(nil, []byte(smallSample), &counting, &counts)
	litFreq, distFreq := counts[:286], counts[286:]
	// Every symbol gets a code, the ones the sample lacks a long one.
	for i := range litFreq {
		litFreq[i] = 4*litFreq[i] + 1
	}
	for i := range distFreq {
		distFreq[i] = 4*distFreq[i] + 1
	}
	t := &codeTable{}
	litLens := huffLengths(litFreq[:], 15)
	distLens := huffLengths(distFreq[:], 15)
	canonical(t.lit[:], litLens)
	canonical(t.dist[:], distLens)
	t.header = blockHeader(litLens, distLens)
	return t
})

// smallSample is what the codes of appendSmall are made for: the records
// of an exchange of a redirect, as the Writer writes them.
const smallSample = "WARC/1.1\r\nWARC-Type: request\r\nWARC-Record-ID: <urn:uuid:3f2b9c1e-7a4d-4e8b-9f06-5c1d2e3a4b7f>\r\n" +
	"WARC-Date: 2026-11-26T03:15:00.123456Z\r\nWARC-Target-URI: https://www.example.com/news/2026/11/26/article.html\r\n" +
	"WARC-IP-Address: 192.0.2.17\r\nWARC-Warcinfo-ID: <urn:uuid:a8c04d2e-19f7-4b3a-8e5d-6f7a8b9c0d1e>\r\n" +
	"WARC-Concurrent-To: <urn:uuid:b9d15e3f-2a08-4c4b-9f6e-7a8b9c0d1e2f>\r\nContent-Type: application/http;msgtype=request\r\n" +
	"WARC-Block-Digest: sha1:K7QZ3XW2MBN5RTLH6JYPVD4GCFEUA7OS\r\nContent-Length: 142\r\n\r\n" +
	"GET /news/2026/11/26/article.html HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: crawler/0.1 (+https://example.org/bot)\r\n" +
	"Accept-Encoding: gzip\r\n\r\n\r\n\r\n" +
	"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:b9d15e3f-2a08-4c4b-9f6e-7a8b9c0d1e2f>\r\n" +
	"WARC-Date: 2026-11-26T03:15:00.123456Z\r\nWARC-Target-URI: https://www.example.com/news/2026/11/26/article.html\r\n" +
	"WARC-IP-Address: 192.0.2.17\r\nWARC-Warcinfo-ID: <urn:uuid:a8c04d2e-19f7-4b3a-8e5d-6f7a8b9c0d1e>\r\n" +
	"WARC-Concurrent-To: <urn:uuid:3f2b9c1e-7a4d-4e8b-9f06-5c1d2e3a4b7f>\r\nContent-Type: application/http;msgtype=response\r\n" +
	"WARC-Block-Digest: sha1:2MRFXJ4WQ7BZC6HN3PLKYTVG5DSEAU6O\r\nWARC-Payload-Digest: sha1:Q4ZJ7K3TXBW2MNC5RLHP6VYDGFE3AUIS\r\n" +
	"Content-Length: 398\r\n\r\n" +
	"HTTP/1.1 301 Moved Permanently\r\nDate: Thu, 26 Nov 2026 03:15:00 GMT\r\nServer: nginx/1.24.0\r\n" +
	"Content-Type: text/html; charset=utf-8\r\nContent-Length: 162\r\nLocation: https://www.example.com/news/2026/11/26/article-2.html\r\n" +
	"Cache-Control: max-age=3600\r\nConnection: keep-alive\r\nVary: Accept-Encoding\r\n\r\n" +
	"<html>\n<head><title>301 Moved Permanently</title></head>\n<body>\n<center><h1>301 Moved Permanently</h1></center>\n" +
	"<p>The document has moved <a href=\"/news/2026/11/26/article-2.html\">here</a>.</p>\n</body>\n</html>\n\r\n\r\n"

// huffLengths returns the code lengths, at most maxBits, of a Huffman
// code for freq, all of which are positive.
func huffLengths(freq []int, maxBits int) []uint8 {
	freq = slices.Clone(freq)
	for {
		lens := treeLengths(freq)
		if slices.Max(lens) <= uint8(maxBits) {
			return lens
		}
		for i := range freq { // flatten the counts and try again
			freq[i] = freq[i]/2 + 1
		}
	}
}

// treeLengths returns the depth of each leaf of a Huffman tree of freq.
func treeLengths(freq []int) []uint8 {
	type node struct {
		w      int
		parent int
	}
	nodes := make([]node, len(freq), 2*len(freq))
	var live []int // nodes without a parent yet
	for i, f := range freq {
		nodes[i] = node{f, -1}
		live = append(live, i)
	}
	for len(live) > 1 {
		slices.SortStableFunc(live, func(a, b int) int { return nodes[b].w - nodes[a].w }) // lightest last
		a, b := live[len(live)-1], live[len(live)-2]
		nodes = append(nodes, node{nodes[a].w + nodes[b].w, -1})
		nodes[a].parent, nodes[b].parent = len(nodes)-1, len(nodes)-1
		live = append(live[:len(live)-2], len(nodes)-1)
	}
	lens := make([]uint8, len(freq))
	for i := range freq {
		for p := nodes[i].parent; p >= 0; p = nodes[p].parent {
			lens[i]++
		}
	}
	return lens
}

// canonical fills codes with the canonical Huffman code of lengths lens
// (RFC 1951 3.2.2), bits reversed.
func canonical(codes []huffCode, lens []uint8) {
	var count, next [16]int
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	code := 0
	for l := 1; l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	for s, l := range lens {
		if l == 0 {
			continue
		}
		codes[s] = huffCode{bits.Reverse16(uint16(next[l])) >> (16 - l), l}
		next[l]++
	}
}

// codeLengthOrder is the order of the code length codes' lengths in a
// block header (RFC 1951 3.2.7).
var codeLengthOrder = [19]int{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// blockHeader returns the header of a final block of dynamic codes of
// lengths litLens (286) and distLens (30), all positive: the lengths as a
// sequence of code length codes, runs as code 16 (copy the last length 3
// to 6 times).
func blockHeader(litLens, distLens []uint8) bitWriter {
	type sym struct{ code, extra uint8 }
	var seq []sym
	all := slices.Concat(litLens, distLens)
	for i := 0; i < len(all); {
		l := all[i]
		seq = append(seq, sym{l, 0})
		run := 1
		for i+run < len(all) && all[i+run] == l {
			run++
		}
		i += run
		for run--; run >= 3; {
			n := min(run, 6)
			seq = append(seq, sym{16, uint8(n - 3)})
			run -= n
		}
		for ; run > 0; run-- {
			seq = append(seq, sym{l, 0})
		}
	}
	freq := make([]int, 19)
	for _, s := range seq {
		freq[s.code]++
	}
	clLens := make([]uint8, 19)
	var used []int
	for c, f := range freq {
		if f > 0 {
			used = append(used, c)
		}
	}
	if len(used) == 1 { // a code needs two symbols: give an unused one the other
		used = append(used, (used[0]+1)%19)
		freq[used[1]] = 1
	}
	usedFreq := make([]int, len(used))
	for i, c := range used {
		usedFreq[i] = freq[c]
	}
	for i, l := range huffLengths(usedFreq, 7) {
		clLens[used[i]] = l
	}
	var clCodes [19]huffCode
	canonical(clCodes[:], clLens)

	var b bitWriter
	b.write(1, 1)                        // BFINAL
	b.write(2, 2)                        // BTYPE 10: dynamic codes
	b.write(uint64(len(litLens)-257), 5) // HLIT
	b.write(uint64(len(distLens)-1), 5)  // HDIST
	b.write(19-4, 4)                     // HCLEN: all 19
	for _, c := range codeLengthOrder {
		b.write(uint64(clLens[c]), 3)
	}
	for _, s := range seq {
		b.code(clCodes[s.code])
		if s.code == 16 {
			b.write(uint64(s.extra), 2)
		}
	}
	return b
}
