package cluster

import (
	"strconv"

	"github.com/zeebo/xxh3"
)

// Partitions is the number of partitions a crawl's hosts are split into.
// It is fixed for the life of a crawl (a node with another count would
// send a host's links to the wrong owner), and large next to the number of
// nodes, so that a node joining or leaving moves about 1/N of the work.
const Partitions = 256

// PartitionOf returns the partition of host (host[:port], as
// frontier.Entry.Host): xxh3 of the name, mod Partitions, the same on
// every node and every version of this package.
func PartitionOf(host string) int { return int(xxh3.HashString(host) % Partitions) }

// Owner returns the node that should hold partition p among members, by
// rendezvous hashing (Thaler and Ravishankar's highest random weight):
// the member whose hash with p is highest. A member joining takes from
// each other member only the partitions it now wins, about 1/N of them,
// and a member leaving gives away only its own. It returns "" for no
// members.
func Owner(p int, members []string) string {
	var best string
	var bestW uint64
	for _, m := range members {
		w := xxh3.HashString(m + "/" + strconv.Itoa(p))
		if best == "" || w > bestW || w == bestW && m < best {
			best, bestW = m, w
		}
	}
	return best
}
