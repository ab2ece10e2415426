#!/usr/bin/env bash
# What the build without cgo costs against the default one (docs/benchmarks.md,
# "Pure-Go build"): both binaries built from this checkout (CGO_ENABLED=1 and
# CGO_ENABLED=0; BASE_BIN adds a third, e.g. an earlier commit's), then on a
# copy of Go's src (`go env GOROOT`/src):
#
#   - the cold index (`ctxls index` into an empty cache directory), the
#     binaries in turns, PUREGO_RUNS times (default 3): the median of the
#     wall time, of the CPU time (user + system) and of the peak RSS;
#   - warm `ctxls assemble` calls on that index (a question, and a cursor in
#     net/http/server.go; 2 000 tokens), in turns, five of each: the median;
#   - the one-time cost of the build without cgo on a machine where its
#     compiled parser is not cached yet (a one-file tree, with an empty
#     XDG_CACHE_HOME), against a run with the cache.
#
# It prints markdown tables; nothing is written outside a temporary
# directory (removed at the end). The copy of Go's src is a real copy, never
# hard links: nothing run here can write into GOROOT. Not a test: the
# figures depend on the machine and its load.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${PUREGO_RUNS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-purego-XXXXXX")
trap 'rm -rf "$work"' EXIT
query="how does the http server handle keep-alive connections and timeouts"

die() {
	echo "bench-purego: $*" >&2
	exit 1
}

echo "bench-purego: building ctxls with and without cgo" >&2
CGO_ENABLED=1 go build -o "$work/cgo" ./cmd/ctxls || die "go build (cgo)"
CGO_ENABLED=0 go build -o "$work/nocgo" ./cmd/ctxls || die "go build (CGO_ENABLED=0)"
names=(cgo nocgo)
if [ -n "${BASE_BIN:-}" ]; then
	[ -x "$BASE_BIN" ] || die "BASE_BIN=$BASE_BIN is not an executable"
	cp "$BASE_BIN" "$work/base"
	names+=(base)
fi
echo "bench-purego: copying Go's src" >&2
cp -r "$(go env GOROOT)/src" "$work/src"
# The compiled parser's cache, for this run only.
export XDG_CACHE_HOME=$work/xdg

# measure OUT CMD...: runs CMD, appends "wall cpu peakKB" to OUT.
measure() {
	local out=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || {
		echo "bench-purego: $* failed:" >&2
		tail -5 "$work/stderr" >&2
		exit 1
	}
	awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$work/time" >>"$out"
}

# median FILE COLUMN: the middle value of a column (the lower middle of an
# even count).
median() {
	local n
	n=$(wc -l <"$1")
	awk -v c="$2" '{print $c}' "$1" | sort -n | sed -n "$(((n + 1) / 2))p"
}

# The one-time compile first, on a one-file tree: an empty cache, then the
# cache it left.
mkdir -p "$work/tiny"
printf 'package p\n\nfunc F() {}\n' >"$work/tiny/p.go"
for k in 1 2; do
	rm -rf "$work/tiny-cache"
	measure "$work/first-$k" "$work/nocgo" index --root "$work/tiny" --cache-dir "$work/tiny-cache"
done
rm -rf "$work/tiny-cache"
measure "$work/first-cgo" "$work/cgo" index --root "$work/tiny" --cache-dir "$work/tiny-cache"

for r in $(seq "$runs"); do
	for b in "${names[@]}"; do
		echo "bench-purego: cold index $r/$runs, $b" >&2
		rm -rf "$work/cache-$b"
		measure "$work/cold-$b" "$work/$b" index --root "$work/src" --cache-dir "$work/cache-$b"
	done
done
for r in 1 2 3 4 5; do
	for b in "${names[@]}"; do
		measure "$work/warm-$b" "$work/$b" assemble --root "$work/src" --cache-dir "$work/cache-$b" \
			--query "$query" --budget 2000
		measure "$work/focus-$b" "$work/$b" assemble --root "$work/src" --cache-dir "$work/cache-$b" \
			--focus net/http/server.go:2000 --budget 2000
	done
done

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; Go $(go env GOVERSION); ctxls $("$work/cgo" version | cut -d' ' -f2)"
echo
echo "| build | cold index (wall) | its CPU | its peak RSS | warm question | warm cursor | their peak RSS |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for b in "${names[@]}"; do
	label=$b
	case $b in
	cgo) label="cgo (default)" ;;
	nocgo) label="without cgo (CGO_ENABLED=0)" ;;
	base) label="base: $(basename "$BASE_BIN")" ;;
	esac
	printf '| %s | %s s | %s s | %d MB | %s s | %s s | %d MB |\n' "$label" \
		"$(median "$work/cold-$b" 1)" "$(median "$work/cold-$b" 2)" "$(($(median "$work/cold-$b" 3) / 1024))" \
		"$(median "$work/warm-$b" 1)" "$(median "$work/focus-$b" 1)" "$(($(median "$work/warm-$b" 3) / 1024))"
done
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f×", a / b}'; }
echo "without cgo / cgo: cold index $(ratio "$(median "$work/cold-nocgo" 1)" "$(median "$work/cold-cgo" 1)") wall," \
	"$(ratio "$(median "$work/cold-nocgo" 2)" "$(median "$work/cold-cgo" 2)") CPU," \
	"$(ratio "$(median "$work/cold-nocgo" 3)" "$(median "$work/cold-cgo" 3)") peak RSS;" \
	"warm question $(ratio "$(median "$work/warm-nocgo" 1)" "$(median "$work/warm-cgo" 1)")," \
	"warm cursor $(ratio "$(median "$work/focus-nocgo" 1)" "$(median "$work/focus-cgo" 1)")"
echo
echo "runs (wall s, CPU s, peak KB): $(for b in "${names[@]}"; do printf '%s cold: %s; ' "$b" "$(tr '\n' ',' <"$work/cold-$b" | sed 's/,$//; s/,/ | /g')"; done)"
echo
echo "one-file tree without cgo: first run $(cut -d' ' -f1,2 "$work/first-1" | awk '{print $1 " s wall, " $2 " s CPU"}') (compiles the parser)," \
	"then $(cut -d' ' -f1,2 "$work/first-2" | awk '{print $1 " s, " $2 " s CPU"}') (cached; $(($(cut -d' ' -f3 "$work/first-2") / 1024)) MB);" \
	"with cgo $(cut -d' ' -f1,2 "$work/first-cgo" | awk '{print $1 " s, " $2 " s CPU"}') ($(($(cut -d' ' -f3 "$work/first-cgo") / 1024)) MB)"
