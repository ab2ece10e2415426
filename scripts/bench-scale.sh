#!/usr/bin/env bash
# How ctxls's costs grow with the repository: on 1, 2 and 4 copies of Go's
# own source tree (`go env GOROOT`/src, ≈ 2.9 M lines a copy), the cold
# index (`ctxls index` into an empty cache directory) with its wall time
# and peak RSS, a refresh with nothing changed, and the median of five warm
# `ctxls assemble` calls; zoekt-index on the same trees in the same run
# when ZOEKT_INDEX names its binary (docs/benchmarks.md, "Scale", says how
# to build one from sourcegraph/zoekt's source; this script never does).
#
#   scripts/bench-scale.sh [BIN]          BIN: the ctxls binary (default bin/ctxls)
#   SCALE_COPIES="1 2 4"                  the tree sizes, in copies
#   ZOEKT_INDEX=/path/to/zoekt-index      the peer, optional
#   SCALE_EMBEDDINGS=workspace|off        the semantic channel (default workspace)
#   SCALE_RUNS=3                          cold builds per tree and tool: the
#                                         table has the median time and RSS
#   SCALE_DISTINCT=1                      make the copies differ: a comment line
#                                         is appended to every file of copy 2 and
#                                         up, so that no content is seen twice
#
# It prints a markdown table; nothing is written outside a temporary
# directory, which is removed at the end. Not a test: the figures depend on
# the machine (docs/benchmarks.md records them with the machine).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/ctxls}
copies=${SCALE_COPIES:-1 2 4}
emb=${SCALE_EMBEDDINGS:-workspace}
runs=${SCALE_RUNS:-3}
src=$(go env GOROOT)/src
[ -x "$bin" ] || { echo "bench-scale: no ctxls binary at $bin (make build)" >&2; exit 2; }
if [ -n "${ZOEKT_INDEX:-}" ] && [ ! -x "$ZOEKT_INDEX" ]; then
	echo "bench-scale: ZOEKT_INDEX=$ZOEKT_INDEX is not an executable" >&2
	exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-scale-XXXXXX")
trap 'rm -rf "$work"' EXIT
query="how does the http server handle keep-alive connections and timeouts"

# measure OUT CMD...: runs CMD, writes "seconds peakKB" to OUT.
measure() {
	local out=$1
	shift
	/usr/bin/time -f '%e %M' -o "$out" "$@" >/dev/null 2>"$work/stderr" || {
		echo "bench-scale: $* failed:" >&2
		tail -5 "$work/stderr" >&2
		exit 1
	}
}

# median X...: the middle value (the lower middle of an even count).
median() {
	printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"
}

lines1=$(find "$src" -name '*.go' -type f -print0 | xargs -0 cat | wc -l)
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $("$bin" --version 2>/dev/null || echo ctxls); Go $(go env GOVERSION); embeddings $emb${SCALE_DISTINCT:+; copies made distinct}"
echo
echo "| copies | Go lines | ctxls cold index | peak RSS | zoekt-index | zoekt RSS | ratio | refresh, nothing changed | warm assemble (median of 5) | its peak RSS |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $copies; do
	tree=$work/tree$n
	mkdir -p "$tree"
	for i in $(seq 1 "$n"); do
		cp -a "$src" "$tree/copy$i"
		if [ -n "${SCALE_DISTINCT:-}" ] && [ "$i" -gt 1 ]; then
			find "$tree/copy$i" -type f -exec sh -c 'for f; do printf "\n// copy %s\n" "$0" >>"$f"; done' "$i" {} +
		fi
	done
	cache=$work/cache$n
	# Cold builds, ctxls and zoekt in turns (a machine whose speed drifts
	# drifts for both): the median of the runs.
	colds=()
	coldkbs=()
	zts=()
	zkbs=()
	for _ in $(seq 1 "$runs"); do
		rm -rf "$cache"
		measure "$work/cold" "$bin" index --root "$tree" --cache-dir "$cache" --embeddings "$emb"
		read -r s kb <"$work/cold"
		colds+=("$s")
		coldkbs+=("$kb")
		if [ -n "${ZOEKT_INDEX:-}" ]; then
			rm -rf "$work/zoekt$n"
			measure "$work/zoekt" "$ZOEKT_INDEX" -index "$work/zoekt$n" "$tree"
			read -r s kb <"$work/zoekt"
			zts+=("$s")
			zkbs+=("$kb")
			rm -rf "$work/zoekt$n"
		fi
	done
	cold=$(median "${colds[@]}")
	coldkb=$(median "${coldkbs[@]}")
	measure "$work/refresh" "$bin" index --root "$tree" --cache-dir "$cache" --embeddings "$emb"
	read -r refresh _ <"$work/refresh"
	warm=()
	warmkb=0
	for _ in 1 2 3 4 5; do
		measure "$work/warm" "$bin" assemble --root "$tree" --cache-dir "$cache" --embeddings "$emb" --query "$query" --budget 2000
		read -r s kb <"$work/warm"
		warm+=("$s")
		[ "$kb" -gt "$warmkb" ] && warmkb=$kb
	done
	median=$(median "${warm[@]}")
	zt="—"
	zkb="—"
	ratio="—"
	if [ -n "${ZOEKT_INDEX:-}" ]; then
		zt=$(median "${zts[@]}")
		zkb=$(median "${zkbs[@]}")
		ratio=$(awk -v a="$cold" -v b="$zt" 'BEGIN { printf "%.2f×", a / b }')
		zkb="$((zkb / 1024)) MB"
		zt="$zt s"
	fi
	echo "  (copies $n: ctxls ${colds[*]} s, ${coldkbs[*]} KB; zoekt ${zts[*]:-—} s, ${zkbs[*]:-—} KB)" >&2
	printf '| %d | %s | %s s | %d MB | %s | %s | %s | %s s | %s s | %d MB |\n' "$n" "$(awk -v l="$lines1" -v n="$n" 'BEGIN { printf "%.1f M", l * n / 1e6 }')" \
		"$cold" $((coldkb / 1024)) "$zt" "$zkb" "$ratio" "$refresh" "$median" $((warmkb / 1024))
	rm -rf "$tree" "$cache"
done
