#!/usr/bin/env bash
# bench-warm.sh BEFORE AFTER: the warm paths on a kept index, two ctxls
# binaries measured in alternation in one run (docs/benchmarks.md, "The
# warm paths, measured against the binary before"), so that a shared
# machine's load falls on both alike. Each path is timed RUNS times per
# binary with /usr/bin/time (wall, user+sys CPU, peak RSS), the binaries
# taking turns (which goes first alternates too); the summary gives each
# one's medians.
#
#   warm        `ctxls assemble` of the scale benchmark's question, nothing
#               changed, on four distinct copies of Go's src (bench-scale's
#               and bench-edits's tree: copies 2–4 get a comment line
#               appended to every Go file)
#   refresh     `ctxls index` again on the same unchanged tree
#   edit        EDIT_FILES (default 5) Go files of the four copies each get
#               a new function named by a word written nowhere else, then
#               `ctxls assemble --query WORD` (the semantic channel on); each
#               binary's index sees the same change
#   review      one copy of Go's src in a git repository, a pull request
#               changing 1 % of its indexed files (bench-review.sh's); the
#               base commit's index restored (copied), then `ctxls index`
#               + `ctxls assemble --diff base...HEAD --budget 8000 --json`
#
# Both binaries start from the same kept index of each tree (built once
# by AFTER and copied: the formats are the same). Environment: RUNS
# (default 5), COPIES (default 4), WORK (a directory to keep the trees
# and indexes in between runs; default a temporary one, removed at the
# end), PATHS (default "warm refresh edit review"), SAME_ANSWERS (default
# 1: the two binaries must answer byte for byte alike; 0 when a change
# meant to change the answers is measured).
set -euo pipefail
before=$(realpath "${1:?usage: bench-warm.sh BEFORE AFTER}")
after=$(realpath "${2:?usage: bench-warm.sh BEFORE AFTER}")
runs=${RUNS:-5}
copies=${COPIES:-4}
nedit=${EDIT_FILES:-5}
paths=${PATHS:-warm refresh edit review}
src=$(go env GOROOT)/src
query="how does the http server handle keep-alive connections and timeouts"
if [ -n "${WORK:-}" ]; then
	work=$WORK
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-warm-XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd -P)
declare -A bins=([before]=$before [after]=$after)

# timed NAME CMD...: runs CMD, appends "NAME wall cpu rssMB" to $work/times.
timed() {
	local name=$1
	shift
	/usr/bin/time -o "$work/time.one" -f '%e %U %S %M' "$@"
	read -r e u s m <"$work/time.one"
	echo "$name $e $(echo "$u $s" | awk '{printf "%.2f", $1 + $2}') $((m / 1024))" >>"$work/times"
}

# order R: the binaries in the order of round R.
order() { if [ $(($1 % 2)) = 1 ]; then echo before after; else echo after before; fi; }

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg); Go $(go env GOVERSION)" >&2
echo "before: $("$before" --version 2>/dev/null || echo "$before")" >&2
echo "after:  $("$after" --version 2>/dev/null || echo "$after")" >&2
: >"$work/times"

tree=$work/tree
if [ ! -d "$tree" ]; then
	echo "== $copies copies of Go's src in $tree" >&2
	for c in $(seq 1 "$copies"); do
		mkdir -p "$tree"
		cp -R "$src" "$tree/c$c"
		if [ "$c" -gt 1 ]; then
			find "$tree/c$c" -name '*.go' -type f -exec sh -c 'for f; do echo "// copy '"$c"'" >>"$f"; done' _ {} +
		fi
	done
fi
if [ ! -d "$work/cache-after" ]; then
	echo "== the kept index of the tree (built once, copied for each binary)" >&2
	"$after" index --root "$tree" --cache-dir "$work/cache-after" >/dev/null
	"$after" assemble --root "$tree" --cache-dir "$work/cache-after" --query "$query" --budget 2000 >/dev/null
	rm -rf "$work/cache-before"
	cp -R "$work/cache-after" "$work/cache-before"
	"$before" assemble --root "$tree" --cache-dir "$work/cache-before" --query "$query" --budget 2000 >/dev/null
fi

for p in $paths; do
	case $p in
	warm | refresh)
		echo "== $p, $runs rounds" >&2
		for r in $(seq "$runs"); do
			for b in $(order "$r"); do
				if [ "$p" = warm ]; then
					timed "warm-$b" "${bins[$b]}" assemble --root "$tree" --cache-dir "$work/cache-$b" --query "$query" --budget 2000 >"$work/out-$b"
				else
					timed "refresh-$b" "${bins[$b]}" index --root "$tree" --cache-dir "$work/cache-$b" >/dev/null
				fi
			done
			if [ "$p" = warm ] && [ "${SAME_ANSWERS:-1}" = 1 ] && ! cmp -s "$work/out-before" "$work/out-after"; then
				echo "bench-warm: the two binaries' answers differ (round $r)" >&2
				exit 1
			fi
		done
		;;
	edit)
		echo "== edit, $runs rounds of $nedit files" >&2
		mapfile -t all < <(cd "$tree" && find . -name '*.go' ! -name '*_test.go' ! -path '*/testdata/*' ! -path '*/vendor/*' -type f | sort)
		step=$((${#all[@]} / nedit))
		letters=(a b c d e f g h i j k l m n o p q r s t u v w x y z)
		for r in $(seq "$runs"); do
			word=zqwarm${letters[$((RANDOM % 26))]}${letters[$((r % 26))]}${letters[$(((r / 26) % 26))]}mark
			for i in $(seq 0 $((nedit - 1))); do
				f=${all[$((i * step + step / 2 + r))]}
				printf '\n// %s is a word written by the benchmark.\nfunc Edit%s() string { return "%s" }\n' "$word" "$word" "$word" >>"$tree/$f"
			done
			for b in $(order "$r"); do
				timed "edit-$b" "${bins[$b]}" assemble --root "$tree" --cache-dir "$work/cache-$b" --query "$word" --budget 2000 >"$work/out-$b"
				grep -q "$word" "$work/out-$b" || { echo "bench-warm: $b did not find $word" >&2; exit 1; }
			done
		done
		;;
	review)
		repo=$work/review
		g() { git -C "$repo" -c user.email=bench@ctxls -c user.name=bench "$@"; }
		if [ ! -d "$repo" ]; then
			echo "== Go's src in a git repository, a pull request of 1 % of its files" >&2
			cp -R "$src" "$repo"
			g init -q -b main
			g add -A
			g commit -qm base --no-verify
			"$after" index --root "$repo" --cache-dir "$work/review-base" --json >"$work/review-base.json"
			files=$(jq .files "$work/review-base.json")
			n=$(((files + 50) / 100))
			g checkout -qb pr
			g ls-files '*.go' | grep -v '/testdata/' | grep -v '^cmd/vendor/\|^vendor/' |
				(cd "$repo" && xargs grep -L '^// Code generated .* DO NOT EDIT\.$') >"$work/candidates"
			total=$(wc -l <"$work/candidates")
			awk -v n="$n" -v t="$total" 'BEGIN { srand(1) } { line[NR] = $0 } END { for (i = 0; i < n; i++) print line[int(i * t / n) + 1] }' "$work/candidates" >"$work/changed"
			i=0
			while read -r f; do
				i=$((i + 1))
				printf '\n// benchReviewChange%d is the pull request'"'"'s change %d.\nfunc benchReviewChange%d(x int) int { return x*%d + len("%s") }\n' "$i" "$i" "$i" "$i" "$f" >>"$repo/$f"
			done <"$work/changed"
			g commit -qam "pr: $n files" --no-verify
		fi
		base=$(g rev-parse main)
		echo "== review, $runs rounds" >&2
		for r in $(seq "$runs"); do
			for b in $(order "$r"); do
				rm -rf "$work/review-warm"
				cp -R "$work/review-base" "$work/review-warm"
				timed "review-refresh-$b" "${bins[$b]}" index --root "$repo" --cache-dir "$work/review-warm" --json >/dev/null
				timed "review-assemble-$b" "${bins[$b]}" assemble --root "$repo" --cache-dir "$work/review-warm" --diff "$base...HEAD" --budget 8000 --json >"$work/out-$b"
				jq -S 'del(.timing)' "$work/out-$b" >"$work/out-$b.cmp"
			done
			if [ "${SAME_ANSWERS:-1}" = 1 ] && ! cmp -s "$work/out-before.cmp" "$work/out-after.cmp"; then
				echo "bench-warm: the two binaries' review answers differ (round $r)" >&2
				exit 1
			fi
		done
		;;
	esac
done

# stats NAME: median wall and CPU of NAME's runs, and their ranges.
stats() {
	awk -v k="$1" '$1 == k { w[++n] = $2; c[n] = $3; m[n] = $4 } END {
		if (n == 0) { print "-"; exit }
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) { if (w[j] < w[i]) { t = w[i]; w[i] = w[j]; w[j] = t } if (c[j] < c[i]) { t = c[i]; c[i] = c[j]; c[j] = t } if (m[j] < m[i]) { t = m[i]; m[i] = m[j]; m[j] = t } }
		printf "wall %.2f s (%.2f–%.2f), CPU %.2f s (%.2f–%.2f), peak RSS %d MB; %d runs", w[int((n + 1) / 2)], w[1], w[n], c[int((n + 1) / 2)], c[1], c[n], m[int((n + 1) / 2)], n }' "$work/times"
}
# total A B: the median of the per-round sums of A's and B's wall (field 2) or CPU (3).
total() {
	awk -v a="$1" -v b="$2" -v f="$3" '$1 == a { x[++n] = $f } $1 == b { y[++m] = $f } END {
		if (n == 0) { print "-"; exit }
		for (i = 1; i <= n; i++) s[i] = x[i] + y[i]
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }
		printf "%.2f s (%.2f–%.2f)", s[int((n + 1) / 2)], s[1], s[n] }' "$work/times"
}
echo
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
for b in before after; do
	echo "$b:"
	for p in $paths; do
		case $p in
		review)
			echo "  review refresh   $(stats "review-refresh-$b")"
			echo "  review assemble  $(stats "review-assemble-$b")"
			echo "  review total     wall $(total "review-refresh-$b" "review-assemble-$b" 2), CPU $(total "review-refresh-$b" "review-assemble-$b" 3)"
			;;
		*) printf '  %-16s %s\n' "$p" "$(stats "$p-$b")" ;;
		esac
	done
done
