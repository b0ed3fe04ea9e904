package replay

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"crawler/canon"
	"crawler/warc"
)

// IndexName is the name of the index file that [Open] keeps in the
// directory of the WARC files.
const IndexName = "replay.cdx"

// indexMagic is the first line of an index file; a file that does not
// start with it is rebuilt.
const indexMagic = "!replay-index 1"

// dateLayout writes a WARC-Date in an index line: a CDX timestamp, with
// the microseconds WARC 1.1 allows.
const dateLayout = "20060102150405.000000"

// Kinds of captures.
const (
	kindResponse    uint8 = iota // a response record
	kindRevisit                  // a revisit record, answered as the record it refers to
	kindNotModified              // a revisit of the server-not-modified profile
)

var kindNames = [...]string{"response", "revisit", "revisit-304"}

// loc is where a record is: the file (its index in the archive's list),
// the offset of its gzip member (or of the record, uncompressed), and how
// many records of the member come before it.
type loc struct {
	file uint32
	skip uint16
	off  int64
}

// line is one record as the index file holds it, and as a scan of the
// files finds it.
type line struct {
	uri    string // WARC-Target-URI
	date   int64  // WARC-Date, Unix microseconds; 0 if it has none that parses
	kind   uint8
	status int // of the recorded HTTP response; 0 if it has none
	at     loc
	ref    loc // of a revisit: the record it refers to
	hasRef bool

	// of a scan only: what resolves revisits
	id, digest       string // WARC-Record-ID and WARC-Payload-Digest
	refID, refURI    string // WARC-Refers-To, WARC-Refers-To-Target-URI
	refDate          int64  // WARC-Refers-To-Date, Unix microseconds; 0 if none
	canonical, refCn string // canonical forms of uri and of the revisit's target
}

// fileInfo is a WARC file of the directory as the index file knows it.
type fileInfo struct {
	name  string
	size  int64
	mtime int64 // Unix nanoseconds
}

// listFiles returns the WARC files of dir, sorted by name: those whose
// names end in .warc or .warc.gz, and .open added to either.
func listFiles(dir string) ([]fileInfo, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	var files []fileInfo
	for _, e := range entries {
		name := e.Name()
		base := strings.TrimSuffix(name, ".open") // a file a Writer writes, or left at a crash
		if !e.Type().IsRegular() || !strings.HasSuffix(base, ".warc") && !strings.HasSuffix(base, ".warc.gz") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		files = append(files, fileInfo{name: name, size: info.Size(), mtime: info.ModTime().UnixNano()})
	}
	slices.SortFunc(files, func(a, b fileInfo) int { return strings.Compare(a.name, b.name) })
	return files, nil
}

// readIndex reads the index file of dir, if it indexes files as they
// are; ok is false if it is missing, stale or unreadable.
func readIndex(dir string, files []fileInfo) (lines []line, damage []*DamageError, ok bool) {
	f, err := os.Open(filepath.Join(dir, IndexName))
	if err != nil {
		return nil, nil, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() || sc.Text() != indexMagic {
		return nil, nil, false
	}
	n := 0 // files listed
	for sc.Scan() {
		t := sc.Text()
		switch {
		case strings.HasPrefix(t, "!file "):
			fs := strings.Fields(t)
			if len(fs) != 4 || n >= len(files) || fs[1] != files[n].name ||
				fs[2] != strconv.FormatInt(files[n].size, 10) || fs[3] != strconv.FormatInt(files[n].mtime, 10) {
				return nil, nil, false
			}
			n++
		case strings.HasPrefix(t, "!damage "):
			fs := strings.SplitN(t, " ", 5)
			if len(fs) != 5 {
				return nil, nil, false
			}
			fi, err1 := strconv.Atoi(fs[1])
			off, err2 := strconv.ParseInt(fs[2], 10, 64)
			resumed, err3 := strconv.ParseInt(fs[3], 10, 64)
			msg, err4 := strconv.Unquote(fs[4])
			if err := errors.Join(err1, err2, err3, err4); err != nil || fi < 0 || fi >= len(files) {
				return nil, nil, false
			}
			damage = append(damage, &DamageError{File: filepath.Join(dir, files[fi].name), Offset: off, Resumed: resumed, Err: errors.New(msg)})
		default:
			l, ok := parseLine(t, len(files))
			if !ok {
				return nil, nil, false
			}
			lines = append(lines, l)
		}
	}
	if sc.Err() != nil || n != len(files) {
		return nil, nil, false
	}
	return lines, damage, true
}

// parseLine parses an index line: URL, date, kind, status, file, offset
// and skip, and for a revisit the file, offset and skip of the record it
// refers to, or "-".
func parseLine(t string, files int) (line, bool) {
	fs := strings.Fields(t)
	if len(fs) != 7 && len(fs) != 8 && len(fs) != 10 {
		return line{}, false
	}
	l := line{uri: fs[0]}
	if fs[1] != "-" {
		d, err := time.Parse(dateLayout, fs[1])
		if err != nil {
			return line{}, false
		}
		l.date = d.UnixMicro()
	}
	k := slices.Index(kindNames[:], fs[2])
	status, err := strconv.Atoi(fs[3])
	if k < 0 || err != nil {
		return line{}, false
	}
	l.kind, l.status = uint8(k), status
	var ok bool
	if l.at, ok = parseLoc(fs[4:7], files); !ok {
		return line{}, false
	}
	if len(fs) == 10 {
		if l.ref, ok = parseLoc(fs[7:10], files); !ok {
			return line{}, false
		}
		l.hasRef = true
	}
	return l, true
}

func parseLoc(fs []string, files int) (loc, bool) {
	f, err1 := strconv.ParseUint(fs[0], 10, 32)
	off, err2 := strconv.ParseInt(fs[1], 10, 64)
	skip, err3 := strconv.ParseUint(fs[2], 10, 16)
	if errors.Join(err1, err2, err3) != nil || int(f) >= files || off < 0 {
		return loc{}, false
	}
	return loc{file: uint32(f), off: off, skip: uint16(skip)}, true
}

// writeIndex writes the index file of dir, through a temporary file
// renamed into place.
func writeIndex(dir string, files []fileInfo, lines []line, damage []*DamageError) error {
	var b bytes.Buffer
	b.WriteString(indexMagic + "\n")
	for _, f := range files {
		fmt.Fprintf(&b, "!file %s %d %d\n", f.name, f.size, f.mtime)
	}
	for _, d := range damage {
		fi := slices.IndexFunc(files, func(f fileInfo) bool { return f.name == filepath.Base(d.File) })
		fmt.Fprintf(&b, "!damage %d %d %d %s\n", fi, d.Offset, d.Resumed, strconv.Quote(d.Err.Error()))
	}
	for _, l := range lines {
		date := "-"
		if l.date != 0 {
			date = time.UnixMicro(l.date).UTC().Format(dateLayout)
		}
		fmt.Fprintf(&b, "%s %s %s %d %d %d %d", strings.ReplaceAll(l.uri, " ", "%20"), date, kindNames[l.kind], l.status, l.at.file, l.at.off, l.at.skip)
		if l.kind != kindResponse {
			if l.hasRef {
				fmt.Fprintf(&b, " %d %d %d", l.ref.file, l.ref.off, l.ref.skip)
			} else {
				b.WriteString(" -")
			}
		}
		b.WriteByte('\n')
	}
	tmp, err := os.CreateTemp(dir, IndexName+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, IndexName))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// scan reads every file of dir and returns its records' index lines,
// revisits resolved, sorted by URL and date, and the damage met.
func scan(dir string, files []fileInfo, c *canon.Canonicalizer) ([]line, []*DamageError, error) {
	var lines []line
	var damage []*DamageError
	for i, fi := range files {
		d, err := scanFile(dir, uint32(i), fi, &lines)
		if err != nil {
			return nil, nil, err
		}
		damage = append(damage, d...)
	}
	resolve(lines, c)
	slices.SortStableFunc(lines, func(a, b line) int {
		return cmp.Or(strings.Compare(a.uri, b.uri), cmp.Compare(a.date, b.date))
	})
	for i := range lines { // let the scan's strings go
		l := &lines[i]
		l.id, l.digest, l.refID, l.refURI, l.canonical, l.refCn = "", "", "", "", "", ""
	}
	return lines, damage, nil
}

// scanFile appends to lines those of the response and revisit records of
// file number fi, and returns the damage met: at each, it looks for the
// next record that reads and goes on from there.
func scanFile(dir string, fi uint32, info fileInfo, lines *[]line) ([]*DamageError, error) {
	f, err := os.Open(filepath.Join(dir, info.name))
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	var magic [2]byte
	f.ReadAt(magic[:], 0)
	compressed := magic == [2]byte{0x1f, 0x8b}
	var damage []*DamageError
	start := int64(0)
	for start < info.size {
		r := warc.NewReader(io.NewSectionReader(f, start, info.size-start))
		r.Start = start
		prev, skip := int64(-1), 0
		for {
			rec, err := r.Next()
			if err == io.EOF {
				return damage, nil
			}
			if err != nil {
				at := r.Offset()
				next := resync(f, info.size, at+1, compressed)
				damage = append(damage, &DamageError{File: filepath.Join(dir, info.name), Offset: at, Resumed: next, Err: err})
				if next < 0 {
					return damage, nil
				}
				start = next
				break
			}
			if rec.Offset == prev {
				skip++
			} else {
				prev, skip = rec.Offset, 0
			}
			if skip > 0xffff {
				continue // a gzip member of more records than a loc counts: left out
			}
			if l, ok := indexLine(rec); ok {
				l.at = loc{file: fi, off: rec.Offset, skip: uint16(skip)}
				*lines = append(*lines, l)
			}
		}
	}
	return damage, nil
}

// indexLine returns the index line of rec, if it is a response or
// revisit record of an HTTP exchange with an http(s) URL.
func indexLine(rec *warc.Record) (line, bool) {
	var kind uint8
	switch strings.ToLower(rec.Type()) {
	case "response":
		kind = kindResponse
	case "revisit":
		kind = kindRevisit
		if strings.HasSuffix(rec.Get("WARC-Profile"), "/revisit/server-not-modified") {
			kind = kindNotModified
		}
	default:
		return line{}, false
	}
	uri := warcURI(rec.Get("WARC-Target-URI"))
	if !strings.HasPrefix(uri, "http://") && !strings.HasPrefix(uri, "https://") {
		return line{}, false
	}
	if kind == kindResponse {
		mt, _, _ := strings.Cut(rec.Get("Content-Type"), ";")
		if !strings.EqualFold(strings.TrimSpace(mt), "application/http") {
			return line{}, false
		}
	}
	return line{
		uri: uri, date: warcDate(rec.Get("WARC-Date")), kind: kind, status: httpStatus(rec.Block),
		id: rec.Get("WARC-Record-ID"), digest: rec.Get("WARC-Payload-Digest"),
		refID: rec.Get("WARC-Refers-To"), refURI: warcURI(rec.Get("WARC-Refers-To-Target-URI")),
		refDate: warcDate(rec.Get("WARC-Refers-To-Date")),
	}, true
}

// warcURI returns a WARC-Target-URI without the angle brackets that
// WARC 1.0 files put around it.
func warcURI(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && v[0] == '<' && v[len(v)-1] == '>' {
		return v[1 : len(v)-1]
	}
	return v
}

// warcDate parses a WARC-Date, to Unix microseconds; 0 if it does not.
func warcDate(v string) int64 {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v))
	if err != nil {
		return 0
	}
	return t.UnixMicro()
}

// httpStatus returns the status code of the HTTP response that starts
// block, or 0.
func httpStatus(block []byte) int {
	first, _, _ := bytes.Cut(block, []byte("\n"))
	_, rest, ok := bytes.Cut(first, []byte(" "))
	if !ok || !bytes.HasPrefix(first, []byte("HTTP/")) || len(rest) < 3 {
		return 0
	}
	n, err := strconv.Atoi(string(rest[:3]))
	if err != nil {
		return 0
	}
	return n
}

// resync returns the offset, from from on, of the next record of the file
// that reads (one starting a gzip member, if compressed; else one
// starting a line with "WARC/"), or -1 if there is none.
func resync(f io.ReaderAt, size, from int64, compressed bool) int64 {
	magic := []byte("\nWARC/")
	if compressed {
		magic = []byte{0x1f, 0x8b, 0x08}
	} else {
		from-- // the candidate's line end
	}
	buf := make([]byte, 64<<10)
	for from < size {
		n, err := f.ReadAt(buf, from)
		if n < len(magic) {
			return -1
		}
		chunk := buf[:n]
		for i := 0; ; {
			j := bytes.Index(chunk[i:], magic)
			if j < 0 {
				break
			}
			at := from + int64(i+j)
			if !compressed {
				at++ // after the line end
			}
			r := warc.NewReader(io.NewSectionReader(f, at, size-at))
			r.Start = at
			if _, err := r.Next(); err == nil {
				return at
			}
			i += j + 1
		}
		if err != nil {
			return -1
		}
		from += int64(n - len(magic) + 1)
	}
	return -1
}

// resolve finds the record each revisit of lines refers to, among their
// responses: see the package doc.
func resolve(lines []line, c *canon.Canonicalizer) {
	var byID map[string]int
	byURL := map[string][]int{} // responses of a canonical URL, in scan order
	byDigest := map[string]int{}
	revisits := false
	for i := range lines {
		l := &lines[i]
		l.canonical, _ = c.Canonical(l.uri)
		if l.kind == kindResponse {
			byURL[l.canonical] = append(byURL[l.canonical], i)
			if l.digest != "" {
				if j, ok := byDigest[l.digest]; !ok || lines[j].date <= l.date {
					byDigest[l.digest] = i
				}
			}
			continue
		}
		revisits = true
		if l.refID != "" && byID == nil {
			byID = map[string]int{}
		}
	}
	if !revisits {
		return
	}
	if byID != nil {
		for i := range lines {
			if lines[i].kind == kindResponse && lines[i].id != "" {
				byID[lines[i].id] = i
			}
		}
	}
	for i := range lines {
		l := &lines[i]
		if l.kind == kindResponse {
			continue
		}
		j := -1
		if k, ok := byID[l.refID]; ok && l.refID != "" {
			j = k
		}
		if j < 0 {
			target := l.canonical
			if l.refURI != "" {
				target, _ = c.Canonical(l.refURI)
			}
			j = pick(lines, byURL[target], l.refDate, l.date)
		}
		if k, ok := byDigest[l.digest]; j < 0 && ok && l.digest != "" {
			j = k
		}
		if j >= 0 {
			l.ref, l.hasRef = lines[j].at, true
		}
	}
}

// pick returns the response of cands (indexes of lines) a revisit refers
// to: the latest of WARC-Refers-To-Date refDate (to the second, as some
// tools write it), if given and there is one; else the latest not after
// the revisit's own date; -1 if none.
func pick(lines []line, cands []int, refDate, date int64) int {
	best := -1
	if refDate != 0 {
		for _, k := range cands {
			if d := lines[k].date - refDate; d > -1e6 && d < 1e6 {
				best = k
			}
		}
		if best >= 0 {
			return best
		}
	}
	for _, k := range cands {
		if lines[k].date <= date && (best < 0 || lines[k].date >= lines[best].date) {
			best = k
		}
	}
	return best
}
