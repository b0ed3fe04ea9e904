#!/usr/bin/env bash
# Measures a cluster crawl (README, "Crawling on several machines"): a
# nats-server and NODES crawl processes on this machine crawl a web of 60
# hosts whose answers take 50 ms, to the end; prints the wall time, the
# server's own count (requests, pages missed, fetched twice, robots.txt
# violations) and each node's requests. KILL=1 kills node n1 with SIGKILL
# 3 s in and starts it again 1 s later. EQUAL=1 serves a web of hosts of
# about equal size (webserve -equal: 853 to 1,088 URLs a host, where the
# default web's are 553 to 1,023). PORT is the nats-server's port
# (14222). HOSTS_LOG=FILE writes to FILE a line per host: its name,
# requests, and the seconds to its first and last request, then each
# node's and each host's requests a second in 5 s steps, and each host's
# milliseconds from an answer to its next request (webserve -hosts-log).
# LOGS=DIR keeps each node's log (its stderr) in DIR. A node that fails
# has the end of its log printed.
#
#   bench/cluster.sh NODES WORKERS [KILL] [crawl flags...]
#   bench/cluster.sh 1 16 0 -per-host 2; bench/cluster.sh 3 16 0 -per-host 2
#   EQUAL=1 bench/cluster.sh 3 16 0
set -euo pipefail
NODES=${1:?nodes}; W=${2:?workers}; KILL=${3:-0}; shift 3 || shift $#
PORT=${PORT:-14222} # of the nats-server
. "$(dirname "$0")/lib.sh"
(cd "$root" && go build -o "$tmp/nats-server" github.com/nats-io/nats-server/v2)
"$tmp/nats-server" -js -a 127.0.0.1 -p "$PORT" -sd "$tmp/nats" > "$tmp/nats.log" 2>&1 &
start_web -hosts 60 -latency 50ms $([ "${EQUAL:-0}" = 1 ] && echo -equal) \
	${HOSTS_LOG:+-hosts-log "$HOSTS_LOG"}
sleep 1.5 # for nats-server to listen
node() { # node NAME [flags...]: one crawl process
	local name=$1
	shift
	HTTP_PROXY=$proxy "$tmp/crawl" -cluster nats://127.0.0.1:$PORT -node "$name" -state "$tmp/$name" \
		-delay -1s -delay-factor -1 -workers "$W" ${AGENTS:+-user-agent "bench-$name/1.0"} "$@" -json "$seed" > "$tmp/$name.json" 2> "$tmp/$name.err"
}
start=$(date +%s.%N)
pids=()
for i in $(seq 0 $((NODES - 1))); do
	node "n$i" "$@" &
	pids+=($!)
done
if [ "$KILL" = 1 ]; then
	sleep 3
	pkill -9 -f -- "-node n1 -state $tmp/n1"
	sleep 1
	node n1 "$@" &
	pids[1]=$!
fi
codes=""
failed=()
for i in "${!pids[@]}"; do
	code=0
	wait "${pids[$i]}" || code=$?
	codes="$codes $code"
	[ "$code" = 0 ] || failed+=("$i")
done
end=$(date +%s.%N)
kill -INT $web
wait $web || true
[ -z "${HOSTS_LOG:-}" ] || echo "# started $start ended $end (Unix seconds)" >> "$HOSTS_LOG"
echo "nodes=$NODES workers=$W kill=$KILL seconds=$(awk "BEGIN { printf \"%.1f\", $end - $start }") exit_codes=$codes $(tail -1 "$tmp/web.out")"
for i in $(seq 0 $((NODES - 1))); do
	echo "  n$i requests $(grep -m1 '"requests"' "$tmp/n$i.json" | tr -dc 0-9)"
done
[ -z "${LOGS:-}" ] || { mkdir -p "$LOGS" && cp "$tmp"/n*.err "$LOGS"/; }
for i in "${failed[@]}"; do
	echo "  n$i failed:"
	tail -3 "$tmp/n$i.err"
done
