package graph

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/zeebo/xxh3"
)

// ReadOptions choose how a file becomes a Graph. The zero value reads the
// graph that crawlertest's PageRank is defined on.
type ReadOptions struct {
	// KeepUnfetched makes the URLs that were linked (or redirected to) but
	// never recorded as pages nodes too, without out-edges, numbered after
	// the pages (see Graph.Pages), so that links to them count: for the
	// in-degree of the frontier of an unfinished crawl, say. URLs recorded
	// as redirects are never nodes. It costs the memory of those nodes.
	// By default links to unfetched URLs are dropped.
	KeepUnfetched bool
}

// Read reads a file written by a Writer into a Graph, with the default
// ReadOptions. See ReadOptions.Read.
func Read(r io.Reader) (*Graph, error) { return ReadOptions{}.Read(r) }

// Load reads the file at path, with the default ReadOptions. See
// ReadOptions.Read.
func Load(path string) (*Graph, error) { return ReadOptions{}.Load(path) }

// Load reads the file at path. See Read.
func (o ReadOptions) Load(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return o.Read(f)
}

// Read reads a file written by a Writer into a Graph.
//
// Input that does not begin with the header fails with ErrFormat, and a
// header of another format version or fingerprint function with
// ErrVersion. Input that ends within a record, or whose last record fails
// its checksum (a torn write), gives the graph of the whole records before
// it and an error wrapping ErrTruncated that tells where; every prefix of
// a valid file thus reads, into the graph of the records it holds whole.
// A record failing its checksum before the last one, or a record whose
// checksum matches but whose contents are invalid, fails with ErrCorrupt.
// Other errors are the underlying reader's.
//
// Read allocates in proportion to the input it is given, whatever the
// input claims: while reading, about 36 bytes plus the URL per URL named
// and 4 bytes per recorded link (those dropped included), then the Graph.
func (o ReadOptions) Read(r io.Reader) (*Graph, error) {
	d := decoder{r: bufio.NewReaderSize(r, 64<<10)}
	err := d.header()
	for err == nil {
		err = d.record()
	}
	switch {
	case err == io.EOF:
		err = nil
	case errors.Is(err, ErrTruncated):
	default:
		return nil, err
	}
	g, berr := d.build(o)
	if berr != nil {
		return nil, berr
	}
	return g, err
}

// decoder holds a file being read: its names (URLs, in ID order) and the
// last record of each.
type decoder struct {
	r       *bufio.Reader
	off     int64 // offset of the next byte of input
	records int   // whole records read
	buf     []byte
	lenBuf  [binary.MaxVarintLen64]byte // a record's length, as read
	sum     [4]byte                     // a record's checksum

	names []byte   // the URLs, concatenated in ID order
	ends  []int    // URL i is names[ends[i-1]:ends[i]]
	fps   []uint64 // fingerprint of URL i
	// last[i] is 0 if URL i has no record; else its last record is at
	// edges[last[i]>>1-1:], a redirect (its target) if last[i]&1, or a
	// page (its target count, then the targets).
	last  []uint64
	edges []uint32
}

// header reads and checks the header line.
func (d *decoder) header() error {
	line, err := d.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull || len(line) > maxHeader {
		line = line[:maxHeader]
	}
	d.off += int64(len(line))
	if err != nil && err != bufio.ErrBufferFull {
		if err != io.EOF {
			return err
		}
		if strings.HasPrefix(header, string(line)) {
			return fmt.Errorf("%w: in the header (%d bytes)", ErrTruncated, len(line))
		}
	}
	fields := strings.Fields(string(line))
	switch {
	case len(fields) == 0 || fields[0] != magic:
		return fmt.Errorf("%w: header %.32q", ErrFormat, line)
	case len(fields) < 2 || fields[1] != version:
		got := "none"
		if len(fields) > 1 {
			got = fields[1]
		}
		return fmt.Errorf("%w: format version %.16q, this package reads %s", ErrVersion, got, version)
	case len(fields) != 3 || fields[2] != hashName || line[len(line)-1] != '\n':
		return fmt.Errorf("%w: header %.64q, want %q", ErrVersion, line, header)
	}
	return nil
}

// record reads one record. It returns io.EOF at the clean end of input.
func (d *decoder) record() error {
	start := d.off
	truncated := func(what string) error {
		return fmt.Errorf("%w: %s of record %d at offset %d (%d bytes ignored)",
			ErrTruncated, what, d.records, start, d.off-start)
	}
	corrupt := func(what string) error {
		return fmt.Errorf("%w: record %d at offset %d: %s", ErrCorrupt, d.records, start, what)
	}

	// The length, a uvarint.
	lenBuf := d.lenBuf[:]
	n := 0
	for {
		c, err := d.r.ReadByte()
		if err == io.EOF {
			if n == 0 {
				return io.EOF
			}
			return truncated("length")
		}
		if err != nil {
			return err
		}
		d.off++
		if n == len(lenBuf) {
			return corrupt("length overflows")
		}
		lenBuf[n] = c
		n++
		if c < 0x80 {
			break
		}
	}
	size, m := binary.Uvarint(lenBuf[:n])
	if m != n {
		return corrupt("length overflows")
	}
	if size < 4 || size > MaxRecordBytes {
		return corrupt(fmt.Sprintf("length %d out of range", size))
	}

	// The body, read in growing chunks so that a false length costs only
	// the input actually there.
	body := d.buf[:0]
	for len(body) < int(size) {
		chunk := min(int(size)-len(body), max(len(body), 64<<10))
		body = slices.Grow(body, chunk)
		k, err := io.ReadFull(d.r, body[len(body):len(body)+chunk])
		body = body[:len(body)+k]
		d.off += int64(k)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			d.buf = body
			return truncated("body")
		}
		if err != nil {
			return err
		}
	}
	d.buf = body

	// The checksum.
	sum := d.sum[:]
	k, err := io.ReadFull(d.r, sum)
	d.off += int64(k)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return truncated("checksum")
	}
	if err != nil {
		return err
	}
	if crc := crc32.Update(crc32.Checksum(lenBuf[:n], crcTable), crcTable, body); crc != binary.LittleEndian.Uint32(sum) {
		if _, err := d.r.Peek(1); err == io.EOF {
			return truncated("torn write (checksum mismatch)")
		}
		return corrupt("checksum mismatch")
	}

	if err := d.parse(body); err != nil {
		if errors.Is(err, ErrTooLarge) {
			return fmt.Errorf("%w (record %d at offset %d)", err, d.records, start)
		}
		return corrupt(err.Error())
	}
	d.records++
	return nil
}

// parse decodes the body of a record whose checksum matched.
func (d *decoder) parse(b []byte) error {
	kind := b[0]
	b = b[1:]
	uvarint := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return 1<<64 - 1 // out of range of any check below
		}
		b = b[n:]
		return v
	}

	// Names: each takes at least 2 bytes.
	nNames := uvarint()
	if nNames > uint64(len(b)/2) {
		return errors.New("name count out of range")
	}
	if uint64(len(d.fps))+nNames > maxNames {
		return fmt.Errorf("%w: more than %d URLs", ErrTooLarge, maxNames)
	}
	for range nNames {
		l := uvarint()
		if l == 0 || l > uint64(len(b)) {
			return errors.New("name length out of range")
		}
		u := b[:l]
		b = b[l:]
		d.names = append(d.names, u...)
		d.ends = append(d.ends, len(d.names))
		d.fps = append(d.fps, xxh3.Hash(u))
		d.last = append(d.last, 0)
	}

	ids := uint64(len(d.fps))
	src := uvarint()
	if src >= ids {
		return errors.New("URL ID out of range")
	}
	pos := uint64(len(d.edges)) + 1
	switch kind {
	case kindPage:
		count := uvarint()
		if count > uint64(len(b)) { // each target takes at least a byte
			return errors.New("link count out of range")
		}
		d.edges = append(d.edges, uint32(count))
		var t uint64
		for i := range count {
			if i == 0 {
				first := int64(src) + unzigzag(uvarint())
				if first < 0 {
					return errors.New("link target out of range")
				}
				t = uint64(first)
			} else {
				gap := uvarint()
				if gap >= ids {
					return errors.New("link target out of range")
				}
				t += gap + 1
			}
			if t >= ids {
				return errors.New("link target out of range")
			}
			d.edges = append(d.edges, uint32(t))
		}
		d.last[src] = pos << 1
	case kindRedirect:
		to := uvarint()
		if to >= ids {
			return errors.New("redirect target out of range")
		}
		d.edges = append(d.edges, uint32(to))
		d.last[src] = pos<<1 | 1
	default:
		return fmt.Errorf("unknown record kind %d", kind)
	}
	if len(b) != 0 {
		return fmt.Errorf("trailing bytes after the record's data (%d)", len(b))
	}
	if uint64(len(d.edges)) > maxNames {
		return fmt.Errorf("%w: more than %d links", ErrTooLarge, maxNames)
	}
	return nil
}

// Resolution states of a URL ID, besides node numbers (>= 0).
const (
	none       = -1 // not a node, and leads to none
	unresolved = -2 // a redirect not yet followed
	visiting   = -3 // a redirect on the chain being followed
)

// build makes the Graph of the records read.
func (d *decoder) build(o ReadOptions) (*Graph, error) {
	n := len(d.fps)
	// Every URL is named once: a file naming one twice is corrupt (links
	// to it would be split between two IDs).
	if fp, ok := duplicate(d.fps); ok {
		id := slices.Index(d.fps, fp)
		return nil, fmt.Errorf("%w: URL %.100q is named twice", ErrCorrupt, d.names[d.start(id):d.ends[id]])
	}
	isPage := func(id int) bool { return d.last[id] != 0 && d.last[id]&1 == 0 }

	// node[id]: the node URL id is, or leads to by redirects, or none.
	// Pages are numbered first, then (KeepUnfetched) unrecorded URLs,
	// each in ID order: the order the writer first saw them.
	node := make([]int32, n)
	nodes := 0
	for id := range n {
		switch {
		case isPage(id):
			node[id] = int32(nodes)
			nodes++
		case d.last[id] != 0:
			node[id] = unresolved
		default:
			node[id] = none
		}
	}
	pages := nodes
	if o.KeepUnfetched {
		for id := range n {
			if d.last[id] == 0 {
				node[id] = int32(nodes)
				nodes++
			}
		}
	}
	var chain []int
	for id := range n {
		x := id
		chain = chain[:0]
		for node[x] == unresolved {
			node[x] = visiting
			chain = append(chain, x)
			x = int(d.edges[d.last[x]>>1-1])
		}
		v := node[x]
		if v == visiting { // a loop
			v = none
		}
		for _, c := range chain {
			node[c] = v
		}
	}

	// ids[k]: the URL ID of node k.
	ids := make([]uint32, nodes)
	for id := range n {
		if v := node[id]; v >= 0 && (isPage(id) || d.last[id] == 0) {
			ids[v] = uint32(id)
		}
	}

	// The edges, counted first to allocate them exactly.
	g := &Graph{pages: pages, off: make([]uint32, nodes+1)}
	var row []uint32
	rowOf := func(k int) []uint32 {
		row = row[:0]
		at := d.last[ids[k]]>>1 - 1
		for _, t := range d.edges[at+1 : at+1+uint64(d.edges[at])] {
			if v := node[t]; v >= 0 {
				row = append(row, uint32(v))
			}
		}
		slices.Sort(row)
		return slices.Compact(row)
	}
	total := 0
	for k := range pages {
		total += len(rowOf(k))
		if total > maxNames {
			return nil, fmt.Errorf("%w: more than %d edges", ErrTooLarge, maxNames)
		}
		g.off[k+1] = uint32(total)
	}
	for k := pages; k < nodes; k++ {
		g.off[k+1] = uint32(total)
	}
	g.dst = make([]uint32, 0, total)
	for k := range pages {
		g.dst = append(g.dst, rowOf(k)...)
	}

	// The URLs and fingerprints, in node order.
	var sb strings.Builder
	size := 0
	for _, id := range ids {
		size += d.ends[id] - d.start(int(id))
	}
	sb.Grow(size)
	g.ends = make([]int, nodes)
	g.fps = make([]uint64, nodes)
	for k, id := range ids {
		sb.Write(d.names[d.start(int(id)):d.ends[id]])
		g.ends[k] = sb.Len()
		g.fps[k] = d.fps[id]
	}
	g.urls = sb.String()

	g.byFP = make([]uint32, nodes)
	for k := range g.byFP {
		g.byFP[k] = uint32(k)
	}
	slices.SortFunc(g.byFP, func(a, b uint32) int { return cmp.Compare(g.fps[a], g.fps[b]) })
	return g, nil
}

// start returns where URL id begins in d.names.
func (d *decoder) start(id int) int {
	if id == 0 {
		return 0
	}
	return d.ends[id-1]
}

// duplicate returns a value that occurs twice in fps, if one does.
func duplicate(fps []uint64) (uint64, bool) {
	sorted := slices.Clone(fps)
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return sorted[i], true
		}
	}
	return 0, false
}
