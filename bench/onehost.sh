#!/usr/bin/env bash
# Measures the crawl's request interval on one host at one connection with
# pacing off against wget's (README, "Performance"): a web of one host of
# PAGES pages whose answers take LATENCY, crawled RUNS times in turn by
# `wget -r` and by the CLI with -per-host 1, each against a fresh server
# whose own count of requests divides the run's wall time. Prints each
# run's microseconds a request, then the medians and their ratio.
# CRAWL_FLAGS adds flags to the crawl's (e.g. "-workers 1").
#
#   bench/onehost.sh PAGES LATENCY RUNS      e.g. bench/onehost.sh 2000 0 5
set -euo pipefail
PAGES=${1:?pages}; LATENCY=${2:-0}; RUNS=${3:-5}
. "$(dirname "$0")/lib.sh"
command -v wget > /dev/null || { echo "onehost.sh: needs wget (apt-get install wget)" >&2; exit 2; }
wget_run() { (cd "$tmp/wget" && http_proxy=$proxy wget -q -r -l inf --delete-after "$seed") || true; }
crawl_run() { HTTP_PROXY=$proxy "$tmp/crawl" -delay -1s -delay-factor -1 -per-host 1 ${CRAWL_FLAGS:-} -json "$seed" > /dev/null 2>&1; }
for i in $(seq "$RUNS"); do
	for v in wget crawl; do
		rm -rf "$tmp/wget" && mkdir "$tmp/wget"
		start_web -hosts 1 -pages "$PAGES" -latency "$LATENCY"
		start=$(date +%s.%N)
		${v}_run
		end=$(date +%s.%N)
		kill -INT $web
		wait $web || true
		n=$(tail -1 "$tmp/web.out" | sed -n 's/^requests=\([0-9]*\).*/\1/p')
		us=$(awk "BEGIN { printf \"%.0f\", ($end - $start) * 1e6 / $n }")
		echo "$v run=$i requests=$n us/request=$us"
		echo "$v $us" >> "$tmp/all"
	done
done
median() { grep "^$1 " "$tmp/all" | cut -d' ' -f2 | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
w=$(median wget); c=$(median crawl)
echo "median us/request: wget=$w crawl=$c crawl/wget=$(awk "BEGIN { printf \"%.2f\", $c / $w }")"
