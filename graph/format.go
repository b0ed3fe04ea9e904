package graph

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// FormatVersion is the version of the file format that this package writes
// and the only one it reads. It is the "v1" of the header line.
const FormatVersion = 1

// MaxRecordBytes bounds one record of a file: [Writer.Page] refuses a page
// whose URL and links could exceed it (see [ErrTooLarge]), and the reader
// takes a longer record for corruption. 64 MiB holds a page with a million
// links of 50 bytes.
const MaxRecordBytes = 64 << 20

const (
	magic    = "crawler/graph"
	version  = "v1"
	hashName = "xxh3-64/seed=0" // the fingerprint of a URL is xxh3.HashString(url)
	header   = magic + " " + version + " " + hashName + "\n"

	// maxHeader bounds the header line the reader looks at.
	maxHeader = 128

	// maxNames bounds the URLs of one file: IDs are uint32, and the
	// writer's table stores ID+1.
	maxNames = 1<<32 - 2

	// Record kinds, the first byte of a record's body.
	kindPage     = 1
	kindRedirect = 2
)

// crcTable is CRC-32C (Castagnoli), which amd64 and arm64 compute in
// hardware.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Errors of files and writers. Errors returned by Read and Load wrap one of
// the first five, or are I/O errors of the underlying reader.
var (
	// ErrFormat means the input is not a link graph file: it does not begin
	// with the "crawler/graph" header.
	ErrFormat = errors.New("graph: not a link graph file")
	// ErrVersion means the input is a link graph file of a format version
	// or fingerprint function this package does not read.
	ErrVersion = errors.New("graph: unsupported link graph format")
	// ErrCorrupt means a record that is not the last one fails its
	// checksum, or a record is malformed though its checksum matches: the
	// file was damaged or forged, not merely cut short.
	ErrCorrupt = errors.New("graph: corrupt link graph file")
	// ErrTruncated means the input ends within a record, as it does when
	// the writing process died: the records before it were read and the
	// partial one ignored. Read and Load return it together with the
	// graph of the whole records.
	ErrTruncated = errors.New("graph: link graph file ends within a record")
	// ErrTooLarge is returned by Writer.Page for a page whose record could
	// exceed MaxRecordBytes (nothing is written), and by the writer and
	// the reader when a graph exceeds 2³²-2 URLs or edges.
	ErrTooLarge = errors.New("graph: too large")
	// ErrClosed is returned by a Writer's methods after Close.
	ErrClosed = errors.New("graph: writer closed")
)

// zigzag maps a signed difference to an unsigned varint-friendly value.
func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// unzigzag is the inverse of zigzag.
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// appendRecord appends the framing of body to b: its length as a uvarint,
// body, and the CRC-32C of both, little-endian.
func appendRecord(b, body []byte) []byte {
	start := len(b)
	b = binary.AppendUvarint(b, uint64(len(body)))
	crc := crc32.Update(crc32.Checksum(b[start:], crcTable), crcTable, body)
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, crc)
}
