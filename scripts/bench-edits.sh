#!/usr/bin/env bash
# What one `ctxls assemble` costs after a few files of a kept index
# changed (docs/benchmarks.md, "A CLI call after a few files changed"): on
# copies of Go's own source tree (`go env GOROOT`/src) in a temporary
# directory, the tree is indexed once (`ctxls index`), then, RUNS times,
# EDIT_FILES of its Go files each get a new function whose name holds a
# word written nowhere else, and one `ctxls assemble` asks for that word
# (2 000 tokens, the semantic channel on): its wall time and peak RSS and
# whether the answer holds the word; then the scale benchmark's question is
# asked with nothing changed (the next call).
#
#   scripts/bench-edits.sh [BIN]          BIN: the ctxls binary (default bin/ctxls)
#   EDIT_COPIES=1                         copies of Go's src (4: four copies)
#   EDIT_DISTINCT=1                       make the copies differ (a comment line
#                                         appended to every file of copy 2 and up)
#   EDIT_FILES=2                          files changed before each call
#   EDIT_RUNS=5                           calls measured: the table has each and
#                                         the median
#   EDIT_EMBEDDINGS=workspace|off         the semantic channel (default workspace)
#
# Nothing is written outside the temporary directory, which is removed at
# the end. Not a test: the figures depend on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-bin/ctxls}")
copies=${EDIT_COPIES:-1}
nfiles=${EDIT_FILES:-2}
runs=${EDIT_RUNS:-5}
emb=${EDIT_EMBEDDINGS:-workspace}
src=$(go env GOROOT)/src
[ -x "$bin" ] || { echo "bench-edits: no ctxls binary at $bin (make build)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-edits-XXXXXX")
trap 'rm -rf "$work"' EXIT
query="how does the http server handle keep-alive connections and timeouts"

if [ "$copies" = 1 ]; then
	tree=$work/src
	cp -R "$src" "$tree"
else
	tree=$work/tree
	for c in $(seq 1 "$copies"); do
		cp -R "$src" "$tree/c$c" 2>/dev/null || { mkdir -p "$tree" && cp -R "$src" "$tree/c$c"; }
		if [ -n "${EDIT_DISTINCT:-}" ] && [ "$c" -gt 1 ]; then
			find "$tree/c$c" -name '*.go' -type f -exec sh -c 'for f; do echo "// copy '"$c"'" >>"$f"; done' _ {} +
		fi
	done
fi
cache=$work/cache

# The files to change: every k-th non-test Go file of a package directory,
# in path order.
mapfile -t all < <(cd "$tree" && find . -name '*.go' ! -name '*_test.go' ! -path '*/testdata/*' ! -path '*/vendor/*' -type f | sort)
step=$((${#all[@]} / nfiles))
files=()
for i in $(seq 0 $((nfiles - 1))); do files+=("${all[$((i * step + step / 2))]}"); done

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg); $("$bin" --version 2>/dev/null || echo ctxls); Go $(go env GOVERSION)"
echo "tree: $copies cop$([ "$copies" = 1 ] && echo y || echo ies) of Go's src${EDIT_DISTINCT:+ (distinct)}; $nfiles files changed before each call: ${files[*]}; embeddings $emb"
"$bin" index --root "$tree" --cache-dir "$cache" --embeddings "$emb" >/dev/null
# A first call makes the caches a call reads (history, vectors).
"$bin" assemble --root "$tree" --cache-dir "$cache" --embeddings "$emb" --query "$query" --budget 2000 >/dev/null 2>&1

letters=(a b c d e f g h i j k l m n o p q r s t u v w x y z)
echo
echo "| run | after the edit: wall | CPU (user+sys) | peak RSS | word found | the next call: wall | CPU |"
echo "|---:|---:|---:|---:|---|---:|---:|"
times=()
nexts=()
cpus=()
cpus2=()
for r in $(seq 1 "$runs"); do
	word=zqedit${letters[$((r % 26))]}${letters[$(((r / 26) % 26))]}mark
	for f in "${files[@]}"; do
		printf '\n// %s is a word written by the benchmark.\nfunc Edit%s() string { return "%s" }\n' "$word" "$word" "$word" >>"$tree/$f"
	done
	/usr/bin/time -f '%e %M %U %S' -o "$work/t" "$bin" assemble --root "$tree" --cache-dir "$cache" --embeddings "$emb" \
		--query "$word" --budget 2000 >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
	read -r secs kb u s <"$work/t"
	cpu=$(echo "$u $s" | awk '{printf "%.2f", $1 + $2}')
	found=no
	grep -q "$word" "$work/out" && found=yes
	/usr/bin/time -f '%e %M %U %S' -o "$work/t2" "$bin" assemble --root "$tree" --cache-dir "$cache" --embeddings "$emb" \
		--query "$query" --budget 2000 >/dev/null 2>&1
	read -r secs2 _ u2 s2 <"$work/t2"
	cpu2=$(echo "$u2 $s2" | awk '{printf "%.2f", $1 + $2}')
	times+=("$secs")
	nexts+=("$secs2")
	cpus+=("$cpu")
	cpus2+=("$cpu2")
	echo "| $r | $secs s | $cpu s | $((kb / 1024)) MB | $found | $secs2 s | $cpu2 s |"
done
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
echo
echo "median of $runs: after the edit $(median "${times[@]}") s (CPU $(median "${cpus[@]}") s), the next call $(median "${nexts[@]}") s (CPU $(median "${cpus2[@]}") s); load $(cut -d' ' -f1-3 /proc/loadavg)"
