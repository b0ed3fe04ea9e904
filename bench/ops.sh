#!/usr/bin/env bash
# Measures what the live status page costs a crawl (README, "Watching a
# crawl"): the CLI crawls PAGES pages of a web of 20,000 hosts whose answers
# take LATENCY, with 32 workers, RUNS rounds, each round running "base"
# (no -http) and "http" (-http, with /metrics and /status.json scraped every
# second, as Prometheus and an open status page would) in turn, and prints
# pages/s of each run.
#
#   bench/ops.sh PAGES LATENCY RUNS      e.g. bench/ops.sh 30000 5ms 5
set -euo pipefail
PAGES=${1:?pages}; LATENCY=${2:-0}; RUNS=${3:-3}
. "$(dirname "$0")/lib.sh"
start_web -latency "$LATENCY"
port=$((20000 + RANDOM % 20000))
for i in $(seq "$RUNS"); do
	for v in base http; do
		args=()
		scraper=
		if [ "$v" = http ]; then
			args=(-http "127.0.0.1:$port")
			(while sleep 1; do
				curl -sf "http://127.0.0.1:$port/metrics" > /dev/null || true
				curl -sf "http://127.0.0.1:$port/status.json" > /dev/null || true
			done) &
			scraper=$!
		fi
		pps=$(NO_PROXY=127.0.0.1 HTTP_PROXY=$proxy "$tmp/crawl" "${args[@]}" -delay -1s -delay-factor -1 -workers 32 \
			-max-pages "$PAGES" -progress -1s -json "$seed" 2> /dev/null |
			sed -n 's/.*"pages_per_sec": \([0-9]*\).*/\1/p' | head -n 1) # the run's; -state adds the total's
		[ -n "$scraper" ] && kill "$scraper" 2> /dev/null
		echo "$v run=$i pages/s=$pps"
	done
done
