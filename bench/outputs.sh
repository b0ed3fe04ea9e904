#!/usr/bin/env bash
# Measures what -out, -warc, -near-dups and -graph cost a crawl (README,
# "Archives, near-duplicates, the link graph"): the CLI crawls PAGES pages of
# a web of 20,000 hosts whose answers take LATENCY, with 32 workers, RUNS
# rounds, each round running every variant once in turn, and prints pages/s
# of each run. STATE=1 also gives every variant -state; VARIANTS names the
# variants to run (default: base out warc near-dups graph all); CPU=1 also
# prints the crawl's CPU seconds, user and system (GNU time), which a
# loaded machine disturbs less than pages/s.
#
#   bench/outputs.sh PAGES LATENCY RUNS      e.g. bench/outputs.sh 20000 5ms 3
#   VARIANTS="base warc" bench/outputs.sh 20000 0 5
set -euo pipefail
PAGES=${1:?pages}; LATENCY=${2:-0}; RUNS=${3:-3}
. "$(dirname "$0")/lib.sh"
start_web -latency "$LATENCY"
for i in $(seq "$RUNS"); do
	for v in ${VARIANTS:-base out warc near-dups graph all}; do
		rm -rf "$tmp/out" && mkdir "$tmp/out"
		args=()
		[ "${STATE:-0}" = 1 ] && args=(-state "$tmp/out/state")
		case $v in
		out) args+=(-out "$tmp/out/pages.jsonl") ;;
		warc) args+=(-warc "$tmp/out/warc") ;;
		near-dups) args+=(-near-dups) ;;
		graph) args+=(-graph "$tmp/out/graph") ;;
		all) args+=(-out "$tmp/out/pages.jsonl" -warc "$tmp/out/warc" -near-dups -graph "$tmp/out/graph") ;;
		esac
		timed=()
		[ "${CPU:-0}" = 1 ] && timed=(/usr/bin/time -o "$tmp/cpu" -f "user=%U sys=%S")
		pps=$(HTTP_PROXY=$proxy "${timed[@]}" "$tmp/crawl" "${args[@]}" -delay -1s -delay-factor -1 -workers 32 \
			-max-pages "$PAGES" -progress -1s -json "$seed" 2> /dev/null |
			sed -n 's/.*"pages_per_sec": \([0-9]*\).*/\1/p' | head -n 1) # the run's; -state adds the total's
		cpu=""
		[ "${CPU:-0}" = 1 ] && cpu=" $(cat "$tmp/cpu")"
		echo "$v run=$i pages/s=$pps$cpu"
	done
done
