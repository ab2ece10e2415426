#!/usr/bin/env bash
# A whole deployment on this machine, on loopback: a PostgreSQL store, an
# indexer publishing this repository, two stateless ctxls MCP replicas and
# nginx balancing between them; then requests through the balancer, one
# replica killed, requests again. docs/deploy.md explains each step; the
# systemd units and nginx.conf beside this script are the same set-up for
# real machines.
#
#   deploy/example.sh [BIN]     BIN: the ctxls binary (default bin/ctxls)
#
# Needs PostgreSQL's server (make need-postgres) and nginx (Debian's
# nginx-light). Everything lives in a temporary directory, removed at the
# end.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-bin/ctxls}")
[ -x "$bin" ] || { echo "example: no ctxls binary at $bin (make build)" >&2; exit 2; }
command -v nginx >/dev/null || { echo "example: nginx is needed (apt-get install nginx-light)" >&2; exit 2; }
. scripts/lib/pg.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-deploy-XXXXXX")
pids=()
cleanup() {
	[ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	pg_stop
	rm -rf "$work"
}
trap cleanup EXIT
say() { printf '\n== %s\n' "$*"; }

say "the store: PostgreSQL"
pg_start "$work/pg"
# Its connection string goes in a file only its owner reads (/etc/ctxls/store
# on a real machine), never on a command line, which every user sees. On
# loopback no TLS; across machines sslmode=verify-full (docs/deploy.md).
(umask 077 && printf '%s?sslmode=disable\n' "$pg_url" >"$work/store")

say "the indexer publishes this repository as ctxls/ctxls"
"$bin" index --root . --cache-dir "$work/indexer" --store-file "$work/store" --repo ctxls/ctxls --store-vectors

say "a token for a bot that may read ctxls/ctxls"
token=$(CTXLS_STORE_FILE=$work/store "$bin" store token --name example-bot --repos ctxls/ctxls)
echo "${token:0:12}…"

say "two replicas"
port() { echo $((20000 + RANDOM % 20000)); }
p1=$(port) p2=$(port) plb=$(port)
for p in "$p1" "$p2"; do
	"$bin" mcp --http "127.0.0.1:$p" --store-file "$work/store" --cache-dir "$work/replica-$p" --log "$work/replica-$p.log" &
	pids+=($!)
done

say "nginx in front of them"
cat >"$work/nginx.conf" <<CONF
daemon off;
pid $work/nginx.pid;
error_log $work/nginx.err;
events {}
http {
	access_log off;
	client_body_temp_path $work/nginx-body;
	proxy_temp_path $work/nginx-proxy;
	upstream ctxls { server 127.0.0.1:$p1; server 127.0.0.1:$p2; }
	server {
		listen 127.0.0.1:$plb;
		location /mcp {
			proxy_pass http://ctxls;
			proxy_http_version 1.1;
			proxy_set_header Host \$host;
			proxy_buffering off;
			proxy_next_upstream error timeout http_502;
		}
	}
}
CONF
nginx -c "$work/nginx.conf" -p "$work" &
pids+=($!)
for _ in $(seq 100); do
	curl -s -o /dev/null "http://127.0.0.1:$p1/mcp" && curl -s -o /dev/null "http://127.0.0.1:$p2/mcp" &&
		curl -s -o /dev/null "http://127.0.0.1:$plb/mcp" && break
	sleep 0.1
done

# call TOOL ARGS: one JSON-RPC tools/call through the balancer (the
# replicas are stateless: no session to open first).
call() {
	curl -sS --max-time 60 "http://127.0.0.1:$plb/mcp" -H "Authorization: Bearer $token" \
		-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
		--data "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"$1\",\"arguments\":$2}}"
}
ask='{"repo":"ctxls/ctxls","query":"how are overlapping line ranges merged","budget":{"maxTokens":600}}'

say "list_repos through the balancer"
call list_repos '{}' | grep -o '"structuredContent":{"repos":\[[^]]*\]' | head -1

say "assemble_context through the balancer, four times (both replicas answer)"
for _ in 1 2 3 4; do call assemble_context "$ask" | grep -o '### \[1\] [^ ]*' | head -1; done

say "kill one replica: the balancer's other replica answers"
kill "${pids[0]}"
for _ in 1 2 3 4; do call assemble_context "$ask" | grep -o '### \[1\] [^ ]*' | head -1; done

say "a forged token is refused"
token=ctxls_forged
call list_repos '{}' | head -1
echo
