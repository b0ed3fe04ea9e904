# Sourced by the measurement scripts of bench/: sets root (the repository)
# and tmp (a directory removed at exit, when the background jobs are
# killed too), and builds the CLI into $tmp/crawl. The jobs are killed
# with SIGKILL: on SIGTERM webserve would count the pages missed of its
# web, a minute or two of a core that would slow the next measurement; a
# script that wants that report sends SIGINT and waits, as cluster.sh
# does. start_web ARGS... starts bench's webserve with ARGS in the
# background, sets web to its pid, and proxy and seed to what it prints
# once it has printed them.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2> /dev/null || true; rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/crawl" ./cmd/crawl)

start_web() {
	(cd "$root/bench" && go build -o "$tmp/webserve" ./cmd/webserve)
	rm -f "$tmp/web.out"
	"$tmp/webserve" "$@" > "$tmp/web.out" &
	web=$!
	until [ -s "$tmp/web.out" ]; do sleep 0.1; done
	read -r proxy seed < "$tmp/web.out"
}
