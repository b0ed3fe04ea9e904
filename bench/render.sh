#!/usr/bin/env bash
# Measures rendering (README, "Extraction and rendering"): the CLI crawls a
# crawlertest ScriptSite of 3 x PAGES script-made pages with -render at
# 1, 4 and 8 tabs (as many pages of the one host in flight), RUNS times
# each, and prints pages/s and the peak memory of the crawl with its
# browser (the PSS summed over the process tree, sampled every 100 ms: RSS
# would count the browser's shared pages once per process), then what the
# site counted: script pages reached, requests to disallowed paths and to
# the address the crawl does not allow.
#
#   bench/render.sh PAGES RUNS      e.g. bench/render.sh 50 3
set -euo pipefail
PAGES=${1:-50}; RUNS=${2:-3}
. "$(dirname "$0")/lib.sh"
(cd "$root/bench" && go build -o "$tmp/scriptserve" ./cmd/scriptserve)

# tree_pss PID: the proportional set size in KiB of PID and all its
# descendants (shared pages split between the processes sharing them, so
# that the browser's processes are not counted many times over).
tree_pss() {
	local pids=$1 all=$1 next p sum=0 kb
	while [ -n "$pids" ]; do
		next=$(for p in $pids; do pgrep -P "$p" || true; done | tr '\n' ' ')
		all="$all $next"
		pids=$next
	done
	for p in $all; do
		kb=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2> /dev/null || true)
		sum=$((sum + ${kb:-0}))
	done
	echo "$sum"
}

for i in $(seq "$RUNS"); do
	for tabs in 1 4 8; do
		rm -f "$tmp/site.out" # the last run's would name a site gone
		"$tmp/scriptserve" -pages "$PAGES" > "$tmp/site.out" &
		site=$!
		until [ -s "$tmp/site.out" ]; do sleep 0.1; done
		read -r addr seed < "$tmp/site.out"
		"$tmp/crawl" -allow "$addr" -delay -1s -delay-factor -1 -render -render-tabs "$tabs" -per-host "$tabs" \
			-progress -1s -json "$seed" > "$tmp/sum.json" 2> "$tmp/crawl.err" &
		crawl=$!
		peak=0
		start=$SECONDS
		while kill -0 "$crawl" 2> /dev/null; do
			if [ $((SECONDS - start)) -gt 600 ]; then # stuck: keep its goroutines' stacks
				kill -QUIT "$crawl"; sleep 1; cp "$tmp/crawl.err" "$root/render-stuck.err"
			fi
			pss=$(tree_pss "$crawl")
			if [ "$pss" -gt "$peak" ]; then peak=$pss; fi
			sleep 0.1
		done
		wait "$crawl" || { echo "crawl failed:"; tail -5 "$tmp/crawl.err"; }
		kill -INT "$site"; wait "$site" || true
		pps=$(sed -n 's/.*"pages_per_sec": \([0-9.]*\).*/\1/p' "$tmp/sum.json")
		echo "tabs=$tabs run=$i pages/s=$pps peak_pss_MiB=$((peak / 1024)) $(tail -1 "$tmp/site.out")"
	done
done
