package store

import (
	"encoding/binary"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"crawler/politeness"
)

// prefixRobots is the prefix of the robots.txt files kept: "r" origin.
const prefixRobots = 'r'

// Robots returns the store's keeper of robots.txt files, for a
// [politeness.RobotsCache]'s Store: a crawl resumed from the store uses
// the files fetched before, until they are the cache's TTL old, instead
// of asking every host again.
func (s *Store) Robots() *Robots { return (*Robots)(s) }

// Robots is a Store seen as a [politeness.RobotsStore]. Its methods are
// safe for concurrent use, alongside the crawler's steps: each file is
// written alone, outside the steps, and synced with the next group. A file
// that could not be written is fetched again when needed.
type Robots Store

var _ politeness.RobotsStore = (*Robots)(nil)

// LoadRobots returns the robots.txt kept for origin, if any.
func (r *Robots) LoadRobots(origin string) (kept politeness.KeptRobots, ok bool) {
	defer recoverFatal(new(error))
	v, closer, err := r.db.Get(robotsKey(origin))
	if err != nil || len(v) < 10 {
		if err == nil {
			closer.Close()
		}
		return kept, false
	}
	defer closer.Close()
	kept.Status = int(binary.BigEndian.Uint16(v))
	kept.Fetched = time.Unix(0, int64(binary.BigEndian.Uint64(v[2:])))
	if len(v) > 10 {
		kept.Body = append([]byte(nil), v[10:]...)
	}
	return kept, true
}

// SaveRobots keeps k for origin.
func (r *Robots) SaveRobots(origin string, k politeness.KeptRobots) {
	defer recoverFatal(new(error))
	v := binary.BigEndian.AppendUint16(nil, uint16(k.Status))
	v = binary.BigEndian.AppendUint64(v, uint64(k.Fetched.UnixNano()))
	r.db.Set(robotsKey(origin), append(v, k.Body...), pebble.NoSync)
}

func robotsKey(origin string) []byte { return append([]byte{prefixRobots}, origin...) }
