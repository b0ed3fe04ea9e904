package revisit_test

import (
	"fmt"
	"time"

	"crawler/revisit"
)

func Example() {
	// Three pages visited every minute: one changed each time, one once,
	// one never; a budget of one fetch a minute among them. The page that
	// changes fastest is fetched least: most of its copies would be stale
	// anyway.
	visits := [][]revisit.Visit{
		{{Interval: time.Minute, Changed: true}, {Interval: time.Minute, Changed: true}, {Interval: time.Minute, Changed: true}},
		{{Interval: time.Minute, Changed: false}, {Interval: time.Minute, Changed: true}, {Interval: time.Minute, Changed: false}},
		{{Interval: time.Minute, Changed: false}, {Interval: time.Minute, Changed: false}, {Interval: time.Minute, Changed: false}},
	}
	rates := make([]float64, len(visits))
	for i, v := range visits {
		rates[i] = revisit.Estimate(v)
	}
	f := revisit.Allocate(rates, 1.0/60, revisit.Bounds{Max: 24 * time.Hour})
	for i := range f {
		fmt.Printf("page %d: changes every %v, fetch every %v\n", i,
			time.Duration(float64(time.Second)/rates[i]).Round(time.Second),
			time.Duration(float64(time.Second)/f[i]).Round(time.Second))
	}
	// Output:
	// page 0: changes every 31s, fetch every 5m38s
	// page 1: changes every 2m28s, fetch every 2m5s
	// page 2: changes every 6m0s, fetch every 2m55s
}
