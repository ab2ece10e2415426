#!/usr/bin/env bash
# A simulated organisation on one replica: ORG_REPOS small repositories
# (copies of a few packages of Go's source — container, sort, bufio —
# each with one file of its own) published into a PostgreSQL store, served
# by one `ctxls mcp --http --store` replica with --max-open-repos
# ORG_MAX_OPEN, and asked one question each in turn:
#
#   - the publish of all of them (seconds, and the store's size);
#   - the round-robin over all of them (every request opens a repository:
#     the first checks it out, the second — a repository closed since —
#     reopens it from its checkout on disk): p50 and p95;
#   - warm requests (ORG_WARM requests over the repositories still open):
#     p50 and p95;
#   - the replica's RSS (now and its peak) and open files after the
#     rounds;
#   - the idle load on PostgreSQL: transactions committed a second in the
#     database (pg_stat_database), over ORG_IDLE seconds after the rounds.
#
#   scripts/bench-org.sh [BIN]     BIN: the ctxls binary (default bin/ctxls)
#   ORG_REPOS=1000 ORG_MAX_OPEN=50 ORG_WARM=500 ORG_IDLE=30
#   (ORG_MAX_OPEN=0: no --max-open-repos, for a binary without it; warm
#   requests then go to the last 50)
#
# It starts its own PostgreSQL server (scripts/lib/pg.sh) in a temporary
# directory, prints a markdown table and removes everything at the end.
# Not a test (the figures depend on the machine; docs/benchmarks.md records
# them with it): cmd/ctxls's TestStoreOrganisation checks the same bounds
# on 30 repositories.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-bin/ctxls}")
repos=${ORG_REPOS:-1000}
max_open=${ORG_MAX_OPEN:-50}
warm=${ORG_WARM:-500}
idle_s=${ORG_IDLE:-30}
[ -x "$bin" ] || { echo "bench-org: no ctxls binary at $bin (make build)" >&2; exit 2; }
. scripts/lib/pg.sh

work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-org-XXXXXX")
replica=
trap '[ -n "$replica" ] && kill "$replica" 2>/dev/null; pg_stop; rm -rf "$work"' EXIT
pg_start "$work/pg"
url=${pg_url%/postgres}/org
"$pg_bin/psql" -q "$pg_url" -c 'CREATE DATABASE org'
psql_org() { "$pg_bin/psql" -qtAX "$url" -c "$1"; }

# The tree: a few packages of Go's source, one file of the repository's
# own (subject.go).
goroot=$(go env GOROOT)
mkdir -p "$work/tree"
for p in container sort bufio; do cp -r "$goroot/src/$p" "$work/tree/"; done
lines=$(find "$work/tree" -name '*.go' -exec cat {} + | wc -l)

t0=$(date +%s.%N)
for i in $(seq 0 $((repos - 1))); do
	printf 'package subject\n\n// Subject%d names what repository r%d keeps: the accounts of branch %d.\nfunc Subject%d() string { return "branch-%d" }\n' \
		"$i" "$i" "$i" "$i" "$i" >"$work/tree/subject.go"
	"$bin" index --root "$work/tree" --cache-dir "$work/indexer" --store "$url" --repo "org/r$i" >/dev/null 2>"$work/stderr" ||
		{ echo "bench-org: publish org/r$i failed:" >&2; tail -5 "$work/stderr" >&2; exit 1; }
done
t1=$(date +%s.%N)
publish_s=$(echo "$t1 - $t0" | bc -l)
store_mb=$(echo "$(psql_org 'SELECT pg_database_size(current_database())') / 1000000" | bc -l)
token=$("$bin" store token --store "$url" --name org --repos '*')

port=$((20000 + RANDOM % 20000))
bound=(--max-open-repos "$max_open")
if [ "$max_open" = 0 ]; then bound=() max_open=50; fi
"$bin" mcp --http "127.0.0.1:$port" --store "$url" --cache-dir "$work/replica" "${bound[@]}" --log "$work/replica.log" 2>"$work/replica.err" &
replica=$!
for _ in $(seq 300); do
	curl -s -o /dev/null "http://127.0.0.1:$port/mcp" && break
	sleep 0.1
done

# ask I: one assemble_context for org/rI; prints the request's seconds.
ask() {
	local out
	out=$(curl -sS --max-time 120 -o "$work/answer" -w '%{time_total}' "http://127.0.0.1:$port/mcp" -H "Authorization: Bearer $token" \
		-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
		--data "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"assemble_context\",\"arguments\":{\"repo\":\"org/r$1\",\"query\":\"which branch's accounts are kept here\",\"budget\":{\"maxTokens\":800}}}}")
	grep -q "Subject$1" "$work/answer" || { echo "bench-org: org/r$1 answered without its subject:" >&2; head -c 600 "$work/answer" >&2; exit 1; }
	echo "$out"
}
# pct P FILE: the P-th percentile of FILE's numbers, in ms.
pct() { sort -n "$2" | awk -v p="$1" '{a[NR]=$1} END {i=int((NR*p+99)/100); if (i<1) i=1; printf "%.0f", a[i]*1000}'; }

for round in 1 2; do
	: >"$work/round$round"
	for i in $(seq 0 $((repos - 1))); do ask "$i" >>"$work/round$round"; done
done
# Warm: the repositories asked last, still open.
: >"$work/warm"
for k in $(seq 0 $((warm - 1))); do ask $((repos - 1 - k % max_open)) >>"$work/warm"; done

status() { awk -v k="$1" '$1 == k":" {printf "%.0f", $2/1024}' "/proc/$replica/status"; }
rss=$(status VmRSS)
hwm=$(status VmHWM)
fds=$(ls "/proc/$replica/fd" | wc -l)

# Idle: what was pending flushed into the statistics first (a server
# process flushes them within 10 s of going idle), then counted.
sleep 11
x0=$(psql_org 'SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')
sleep "$idle_s"
x1=$(psql_org 'SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')
idle=$(echo "($x1 - $x0 - 1) / $idle_s" | bc -l)
closed=$(grep -c 'closed (unused, beyond the' "$work/replica.log" || true)

printf '| %s repositories (%s lines each), %s | |\n|---|---:|\n' "$repos" "$lines" "${bound[*]:-no --max-open-repos}"
printf '| publish, all of them | %.0f s (%.2f s each) |\n' "$publish_s" "$(echo "$publish_s / $repos" | bc -l)"
printf '| the store'"'"'s database | %.0f MB |\n' "$store_mb"
printf '| round-robin, first round (checkouts): p50 / p95 | %s / %s ms |\n' "$(pct 50 "$work/round1")" "$(pct 95 "$work/round1")"
printf '| round-robin, second round (reopened from disk): p50 / p95 | %s / %s ms |\n' "$(pct 50 "$work/round2")" "$(pct 95 "$work/round2")"
printf '| warm (%s requests over the open ones): p50 / p95 | %s / %s ms |\n' "$warm" "$(pct 50 "$work/warm")" "$(pct 95 "$work/warm")"
printf '| replica RSS after the rounds (peak) | %s MB (%s MB) |\n' "$rss" "$hwm"
printf '| replica open files | %s |\n' "$fds"
printf '| repositories closed (beyond %s open) | %s |\n' "$max_open" "$closed"
printf '| idle load on PostgreSQL | %.2f transactions/s |\n' "$idle"
