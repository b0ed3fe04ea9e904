module crawler

go 1.26.0

require (
	github.com/PuerkitoBio/purell v1.2.1
	github.com/bits-and-blooms/bitset v1.29.0
	github.com/temoto/robotstxt v1.1.2
	github.com/zeebo/xxh3 v1.1.0
	golang.org/x/net v0.62.0
)

require (
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
