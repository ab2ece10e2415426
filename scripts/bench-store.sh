#!/usr/bin/env bash
# What the PostgreSQL index store costs, on a copy of Go's own source tree
# (`go env GOROOT`/src, ≈ 2.9 M lines) made a git repository:
#
#   - a full publish (`ctxls index --store`) into an empty store, and a
#     publish after 1 % of the files changed: time and bytes written (the
#     index image a full publish uploads for cold replicas included); then
#     the same tree published again (every stored row it names checked by
#     the digest the server computes), and again without the publisher's
#     record (a fresh cache directory's publish: every row read back);
#   - the first request for the repository on a cold replica (an empty
#     checkout directory), median of STORE_COLD_RUNS, without and with the
#     vectors published (--store-vectors);
#   - warm requests: p50 and p95 of STORE_WARM_RUNS `ctxls assemble` calls
#     answered from the store's replica and from the local index, in turns.
#
#   scripts/bench-store.sh [BIN]     BIN: the ctxls binary (default bin/ctxls)
#   STORE_COLD_RUNS=3 STORE_WARM_RUNS=20
#
# It starts its own PostgreSQL server (Debian's postgresql-15, as `make
# test` installs it; as the user nobody under root) in a temporary
# directory, prints a markdown table and removes everything at the end.
# Not a test: the figures depend on the machine (docs/benchmarks.md records
# them with the machine).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-bin/ctxls}")
cold_runs=${STORE_COLD_RUNS:-3}
warm_runs=${STORE_WARM_RUNS:-20}
[ -x "$bin" ] || { echo "bench-store: no ctxls binary at $bin (make build)" >&2; exit 2; }
. scripts/lib/pg.sh

work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-store-XXXXXX")
trap 'pg_stop; rm -rf "$work"' EXIT
pg_start "$work/pg"
url=$pg_url

# The tree: Go's src as a git repository (the history channel's input).
cp -r "$(go env GOROOT)/src" "$work/tree"
git -C "$work/tree" init -q
git -C "$work/tree" add -A
git -C "$work/tree" -c user.email=b@b -c user.name=b commit -qm tree
"$bin" index --root "$work/tree" --cache-dir "$work/local" >/dev/null 2>&1

# publish REPO [FLAGS]: prints "seconds MB".
publish() {
	local repo=$1
	shift
	local out
	out=$("$bin" index --root "$work/tree" --cache-dir "$work/local" --store "$url" --repo "$repo" --json "$@" 2>/dev/null |
		tr -d ' \n' | sed 's/.*"publish":{//')
	field() { echo "$out" | sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
	echo "$(echo "$(field durationMs) / 1000" | bc -l) $(echo "$(field written) / 1000000" | bc -l) $(field newBlobs) $(field files) $(echo "$(field imageWritten) / 1000000" | bc -l)"
}
read -r full_s full_mb full_blobs files full_img <<<"$(publish go)"
# 1 % of the indexed files change: a function added to as many Go files,
# spread over the tree.
find "$work/tree" -name '*.go' -not -path '*/.git/*' | sort >"$work/gofiles"
want=$((files / 100))
step=$(($(wc -l <"$work/gofiles") / want))
awk -v s="$step" 'NR % s == 0' "$work/gofiles" | head -"$want" >"$work/changed"
nchanged=$(wc -l <"$work/changed")
while read -r f; do printf '\nfunc benchStoreAdded%d() {}\n' "$RANDOM" >>"$f"; done <"$work/changed"
"$bin" index --root "$work/tree" --cache-dir "$work/local" >/dev/null 2>&1
read -r inc_s inc_mb inc_blobs _ inc_img <<<"$(publish go)"
read -r same_s _ <<<"$(publish go)"
rm -f "$work/local"/pgstore-publish-* # the publisher's record (internal/pgstore/repair.go)
read -r norec_s _ <<<"$(publish go)"
publish govec --store-vectors >/dev/null

queries=("how does the http server handle keep-alive connections" "where are goroutines scheduled onto threads"
	"how is a tls handshake verified" "what parses a go source file into an ast" "how does the garbage collector mark objects")

# seconds CMD...: the wall time of CMD.
seconds() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>"$work/stderr" || { echo "bench-store: $* failed:" >&2; tail -5 "$work/stderr" >&2; exit 1; }
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
pct() { # pct P X...: the P-th percentile (nearest rank)
	local p=$1
	shift
	printf '%s\n' "$@" | sort -n | sed -n "$(((p * $# + 99) / 100))p"
}

cold() { # cold REPO: median first-request time on an empty checkout directory
	local ts=()
	for i in $(seq "$cold_runs"); do
		rm -rf "$work/replica"
		ts+=("$(seconds "$bin" assemble --store "$url" --repo "$1" --cache-dir "$work/replica" --query "${queries[0]}" --budget 2000)")
	done
	median "${ts[@]}"
}
cold_plain=$(cold go)
cold_vec=$(cold govec)

# Warm: the replica's checkout kept, local and store in turns.
local_t=() store_t=()
for i in $(seq "$warm_runs"); do
	q=${queries[$((i % ${#queries[@]}))]}
	local_t+=("$(seconds "$bin" assemble --root "$work/tree" --cache-dir "$work/local" --query "$q" --budget 2000)")
	store_t+=("$(seconds "$bin" assemble --store "$url" --repo govec --cache-dir "$work/replica" --query "$q" --budget 2000)")
done

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $("$bin" --version 2>/dev/null || echo ctxls); PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on loopback"
echo
echo "| measure | value |"
echo "|---|---:|"
full_all=$(echo "$full_mb + $full_img" | bc -l)
inc_all=$(echo "$inc_mb + $inc_img" | bc -l)
printf '| full publish (%d files) | %.2f s, %.1f MB written (%d blobs; %.1f MB of it the index image) |\n' "$files" "$full_s" "$full_all" "$full_blobs" "$full_img"
printf '| publish after %d files (1 %%) changed | %.2f s (%.1f %%), %.1f MB (%.1f %%) written (%d blobs) |\n' "$nchanged" "$inc_s" \
	"$(echo "100 * $inc_s / $full_s" | bc -l)" "$inc_all" "$(echo "100 * $inc_all / $full_all" | bc -l)" "$inc_blobs"
printf '| the same tree published again (every row checked) | %.2f s |\n' "$same_s"
printf '| the same, without the publisher'"'"'s record (every row read back) | %.2f s |\n' "$norec_s"
printf '| first request, cold replica (median of %d) | %.2f s |\n' "$cold_runs" "$cold_plain"
printf '| the same, vectors published (--store-vectors) | %.2f s |\n' "$cold_vec"
printf '| warm request from the store, p50 / p95 of %d | %.3f / %.3f s |\n' "$warm_runs" "$(pct 50 "${store_t[@]}")" "$(pct 95 "${store_t[@]}")"
printf '| warm request from the local index, p50 / p95 of %d | %.3f / %.3f s |\n' "$warm_runs" "$(pct 50 "${local_t[@]}")" "$(pct 95 "${local_t[@]}")"
printf '| p95 store / local | %.2f× |\n' "$(echo "$(pct 95 "${store_t[@]}") / $(pct 95 "${local_t[@]}")" | bc -l)"
