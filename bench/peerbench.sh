#!/usr/bin/env bash
# Runs the side-by-side comparison of bench/README.md ("Against colly and
# gocrawl"): every crawler of package peers, 3 rounds, budgets of 20k and
# 100k pages without server latency and 20k with 5 ms and 50 ms, and prints
# one table of medians per case. Takes about half an hour on 2 cores.
# Arguments go to peerbench: -runs 5, -cases 20000@0, -crawlers ours-fifo,colly ...
set -euo pipefail
cd "$(dirname "$0")"
go run ./cmd/peerbench -runs 3 "$@"
