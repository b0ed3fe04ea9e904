module crawler/bench

go 1.26.0

require (
	crawler v0.0.0
	github.com/bits-and-blooms/bloom/v3 v3.7.1
)

require github.com/bits-and-blooms/bitset v1.29.0 // indirect

replace crawler => ../
