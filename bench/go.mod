module crawler/bench

go 1.26.0

require (
	crawler v0.0.0
	github.com/bits-and-blooms/bloom/v3 v3.7.1
	golang.org/x/net v0.62.0
)

require (
	github.com/bits-and-blooms/bitset v1.29.0 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)

replace crawler => ../
