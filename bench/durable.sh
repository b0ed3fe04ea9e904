#!/usr/bin/env bash
# Measures the durable crawl against the in-memory one (README, "Durable
# crawls"): the CLI crawls PAGES pages of a web of 20,000 hosts whose
# answers take LATENCY, alternately in memory and with -state, RUNS times
# each, with WORKERS workers (32 by default), and prints pages/s, peak RSS
# and CPU time a page (user and system) of each run, and after a -state
# run the CLI's line on how its seen-set answered (the cache's hit rate).
#
#   bench/durable.sh PAGES LATENCY RUNS [WORKERS]   e.g. bench/durable.sh 300000 0 2
set -euo pipefail
PAGES=${1:?pages}; LATENCY=${2:-0}; RUNS=${3:-2}; WORKERS=${4:-32}
. "$(dirname "$0")/lib.sh"
start_web -latency "$LATENCY"
for i in $(seq "$RUNS"); do
	for mode in memory state; do
		rm -rf "$tmp/state"
		args=()
		[ $mode = state ] && args=(-state "$tmp/state")
		HTTP_PROXY=$proxy /usr/bin/time -f "%e %M %U %S" -o "$tmp/time" "$tmp/crawl" "${args[@]}" \
			-delay -1s -delay-factor -1 -workers "$WORKERS" -max-pages "$PAGES" -json "$seed" > /dev/null 2> "$tmp/stderr"
		read -r secs rss user sys < "$tmp/time"
		echo "$mode run=$i pages/s=$(awk "BEGIN { printf \"%d\", $PAGES / $secs }") rss_mb=$((rss / 1024)) seconds=$secs cpu_ms/page=$(awk "BEGIN { printf \"%.3f\", ($user + $sys) * 1000 / $PAGES }")"
		grep 'seen-set' "$tmp/stderr" || true
	done
done
