#!/usr/bin/env bash
# Where a cold `ctxls index` spends its CPU and its allocations, by phase:
# it indexes TREE into an empty cache directory with a CPU and a heap
# profile (CTXLS_CPUPROFILE, CTXLS_MEMPROFILE) and prints a markdown table
# of each phase's share, from the profiles' samples under the phase's
# functions. Phases can overlap (the lexical documents are made while
# chunking); "all" is the whole run.
#
#   scripts/build-phases.sh TREE [BIN]     BIN: the ctxls binary (default bin/ctxls)
#
# Not a test: the figures depend on the machine (docs/benchmarks.md
# records them with the machine).
set -euo pipefail
cd "$(dirname "$0")/.."
tree=${1:?usage: scripts/build-phases.sh TREE [BIN]}
bin=${2:-bin/ctxls}
[ -x "$bin" ] || { echo "build-phases: no ctxls binary at $bin (make build)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-phases-XXXXXX")
trap 'rm -rf "$work"' EXIT

/usr/bin/time -f '%e %M' -o "$work/time" env CTXLS_CPUPROFILE="$work/cpu" CTXLS_MEMPROFILE="$work/mem" \
	"$bin" index --root "$tree" --cache-dir "$work/cache" >/dev/null 2>"$work/stderr" || {
	tail -5 "$work/stderr" >&2
	exit 1
}
read -r secs kb <"$work/time"

# total PROFILE SAMPLE [FOCUS]: the samples under FOCUS (all without), in
# seconds or MB.
total() {
	local args=(-top -nodefraction=0 -nodecount=1000000)
	[ "$2" != cpu ] && args+=(-sample_index="$2")
	[ -n "${3:-}" ] && args+=(-focus="$3")
	go tool pprof "${args[@]}" "$bin" "$1" 2>/dev/null |
		awk '/^Showing nodes accounting for/ { v = $5; sub(/,$/, "", v) }
			END {
				u = v; sub(/[0-9.]+/, "", u); n = v + 0
				if (u == "ms") n /= 1000; else if (u == "kB") n /= 1024; else if (u == "GB") n *= 1024; else if (u == "B") n /= 1048576
				printf "%.2f", n
			}'
}

cpu_all=$(total "$work/cpu" cpu)
# A binary without CTXLS_MEMPROFILE (older ones) leaves no heap profile:
# its allocations are not shown.
alloc_all=—
[ -s "$work/mem" ] && alloc_all=$(total "$work/mem" alloc_space)
echo "ctxls index of $tree: $secs s wall, $cpu_all CPU-s, peak RSS $((kb / 1024)) MB, $alloc_all MB allocated"
echo
echo "| phase | CPU-s | share | allocated MB | share |"
echo "|---|---:|---:|---:|---:|"
phase() {
	local name=$1 focus=$2 c a
	c=$(total "$work/cpu" cpu "$focus")
	a=— ap=—
	if [ "$alloc_all" != — ]; then
		a=$(total "$work/mem" alloc_space "$focus")
		ap="$(awk -v a="$a" -v b="$alloc_all" 'BEGIN { printf "%.0f", 100 * a / b }') %"
	fi
	printf '| %s | %s | %s %% | %s | %s |\n' "$name" "$c" "$(awk -v a="$c" -v b="$cpu_all" 'BEGIN { printf "%.0f", 100 * a / b }')" "$a" "$ap"
}
phase "walk (list the tree, ignore rules, verdicts)" 'index/walk\.'
phase "read and hash" 'os\.ReadFile|index\.contentHash|walk\.SecretContent'
phase "parse (tree-sitter)" 'go-tree-sitter\.\(\*Parser\)'
phase "chunk (all of chunking, parse included)" 'chunk\.\(\*Chunker\)\.(Chunk|ChunkAgain)$'
phase "token counts" 'internal/tokens\.'
phase "lexical analysis" 'index\.(lexicalDocument|chunkDocument)|analysis\.Frequencies'
phase "lexical store (postings)" 'index/postings\.'
phase "bleve (before the postings store)" 'blevesearch'
phase "tables (rows, encode, write)" 'index\.(newTables|newTablesOrdered|writeTables|newChunkRec)$'
phase "symbol maps" 'index\.buildSymIndex'
phase "semantic (bag, train, embed, save)" 'ctxls/internal/semantic\.'
phase "history (git log)" 'ctxls/internal/history\.'
phase "garbage collector" 'runtime\.gcBgMarkWorker|runtime\.gcAssist|runtime\.markroot'
