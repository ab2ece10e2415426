#!/usr/bin/env bash
# bench-review.sh TREE [WORKDIR]: what a review bot's run costs on a large
# tree (docs/benchmarks.md, "Review bots"). TREE is copied into a git
# repository in WORKDIR (default: a temporary directory, removed at the
# end): a base commit, and a pull request that changes 1 % of the indexed
# files. It prints, wall seconds (and user+sys CPU seconds):
#
#   cold   `ctxls index` alone, and `ctxls index` + `ctxls assemble --diff
#          base...HEAD` (what the action does with no cache), each with a
#          fresh index directory, interleaved, COLD_RUNS times
#   warm   an index of the base commit, restored (copied), refreshed and
#          assembled for the pull request, WARM_RUNS times: in place (the
#          unchanged files keep their mtimes, as on a runner that keeps its
#          workspace) and after a fresh checkout (every mtime new: each file
#          is read and hashed, only the changed ones indexed again); and
#          scripts/review-bot.sh run end to end (git diff, jq, files)
#
# Environment: CTXLS_BIN (default: built from this repository), COLD_RUNS
# (default 2), WARM_RUNS (default 5), BUDGET (default 8000).
set -euo pipefail

tree=${1:?usage: bench-review.sh TREE [WORKDIR]}
here=$(cd "$(dirname "$0")/.." && pwd -P)
cold_runs=${COLD_RUNS:-2}
warm_runs=${WARM_RUNS:-5}
budget=${BUDGET:-8000}
if [ -n "${2:-}" ]; then
	work=$2
	mkdir -p "$work"
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd -P)

if [ -n "${CTXLS_BIN:-}" ]; then
	ctxls=$CTXLS_BIN
else
	ctxls=$work/ctxls
	(cd "$here" && CGO_ENABLED=1 go build -o "$ctxls" ./cmd/ctxls)
fi

# timed NAME CMD...: runs CMD, appends "NAME wall cpu" to $work/times.
timed() {
	local name=$1
	shift
	/usr/bin/time -o "$work/time.one" -f '%e %U %S %M' "$@"
	read -r e u s m <"$work/time.one"
	echo "$name $e $(echo "$u $s" | awk '{printf "%.2f", $1 + $2}') $m" >>"$work/times"
}

g() { git -C "$work/src" -c user.email=bench@ctxls -c user.name=bench "$@"; }

echo "== copying $tree into a git repository in $work/src" >&2
rm -rf "$work/src" "$work/times"
cp -R "$tree" "$work/src"
g init -q -b main
g add -A
g commit -qm base --no-verify
base=$(g rev-parse HEAD)

echo "== the base commit's index (the cache a run on main saved)" >&2
timed index-base "$ctxls" index --root "$work/src" --cache-dir "$work/cache-base" --json >"$work/index-base.json"
files=$(jq .files "$work/index-base.json")
bytes=$(jq .bytes "$work/index-base.json")

# The pull request: 1 % of the indexed files, evenly spread over the Go
# files outside testdata and vendor that are not generated (the index
# skips those), each gets a new function at its end.
n=$(((files + 50) / 100))
g checkout -qb pr
g ls-files '*.go' | grep -v '/testdata/' | grep -v '^cmd/vendor/\|^vendor/' |
	(cd "$work/src" && xargs grep -L '^// Code generated .* DO NOT EDIT\.$') >"$work/candidates"
total=$(wc -l <"$work/candidates")
awk -v n="$n" -v t="$total" 'BEGIN { srand(1) } { line[NR] = $0 } END { for (i = 0; i < n; i++) print line[int(i * t / n) + 1] }' "$work/candidates" >"$work/changed"
i=0
while read -r f; do
	i=$((i + 1))
	printf '\n// benchReviewChange%d is the pull request'"'"'s change %d.\nfunc benchReviewChange%d(x int) int { return x*%d + len("%s") }\n' "$i" "$i" "$i" "$i" "$f" >>"$work/src/$f"
done <"$work/changed"
g commit -qam "pr: $n files" --no-verify

echo "== cold: ctxls index alone vs index + assemble, fresh index directories, interleaved" >&2
for r in $(seq "$cold_runs"); do
	rm -rf "$work/cold"
	timed cold-index "$ctxls" index --root "$work/src" --cache-dir "$work/cold" --json >/dev/null
	rm -rf "$work/cold"
	timed cold-both-index "$ctxls" index --root "$work/src" --cache-dir "$work/cold" --json >/dev/null
	timed cold-both-assemble "$ctxls" assemble --root "$work/src" --cache-dir "$work/cold" --diff "$base...HEAD" --budget "$budget" --json >"$work/result.json"
	echo "  run $r done" >&2
done
rm -rf "$work/cold"

# warm SCENARIO: restore the base index, (for fresh) give every file a new
# mtime, then refresh and assemble.
warm() {
	local scenario=$1
	for r in $(seq "$warm_runs"); do
		rm -rf "$work/warm"
		cp -R "$work/cache-base" "$work/warm"
		if [ "$scenario" = fresh ]; then
			find "$work/src" -path "$work/src/.git" -prune -o -type f -exec touch -c {} +
		fi
		timed "warm-$scenario-refresh" "$ctxls" index --root "$work/src" --cache-dir "$work/warm" --json >"$work/index-warm-$scenario.json"
		timed "warm-$scenario-assemble" "$ctxls" assemble --root "$work/src" --cache-dir "$work/warm" --diff "$base...HEAD" --budget "$budget" --json >"$work/result.json"
	done
}
# In place, the files the pull request did not change keep the mtimes the
# base index recorded (first); after a fresh checkout none does (last:
# it touches every file).
echo "== warm, in place" >&2
warm inplace

echo "== scripts/review-bot.sh run, warm, in place" >&2
for r in $(seq "$warm_runs"); do
	rm -rf "$work/warm" "$work/out"
	cp -R "$work/cache-base" "$work/warm"
	timed script env CTXLS_BIN="$ctxls" CTXLS_ROOT="$work/src" CTXLS_BASE_REF=main CTXLS_INDEX_DIR="$work/warm" \
		CTXLS_OUT_DIR="$work/out" CTXLS_BUDGET="$budget" GITHUB_OUTPUT="$work/out/outputs" GITHUB_STEP_SUMMARY="$work/out/summary" \
		"$here/scripts/review-bot.sh" run
done
script_read=$(grep '^files-read=' "$work/out/outputs" | cut -d= -f2)
script_changed=$(grep '^files-changed=' "$work/out/outputs" | cut -d= -f2)

echo "== warm, fresh checkout" >&2
warm fresh

# stats NAME: min, median and max wall seconds of NAME, and median CPU.
stats() {
	awk -v k="$1" '$1 == k { w[++n] = $2; c[n] = $3 } END {
		if (n == 0) { print "-"; exit }
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) { if (w[j] < w[i]) { t = w[i]; w[i] = w[j]; w[j] = t } if (c[j] < c[i]) { t = c[i]; c[i] = c[j]; c[j] = t } }
		printf "%.2f s (min %.2f, max %.2f; CPU %.2f s; %d runs)", w[int((n + 1) / 2)], w[1], w[n], c[int((n + 1) / 2)], n }' "$work/times"
}
sum_median() {
	awk -v a="$1" -v b="$2" '$1 == a { x[++n] = $2 } $1 == b { y[++m] = $2 } END {
		for (i = 1; i <= n; i++) s[i] = x[i] + y[i]
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }
		printf "%.2f s (min %.2f, max %.2f)", s[int((n + 1) / 2)], s[1], s[n] }' "$work/times"
}
# ratio FIELD PAIRED: the ratios (index + assemble) / index alone of each
# cold run, sorted, in wall (FIELD 2) or CPU (FIELD 3) seconds; PAIRED=1
# divides by the same run's own index step instead of the separate
# `ctxls index` alone (what the assemble adds, without the run-to-run
# noise of a shared machine).
ratio() {
	awk -v f="$1" -v paired="$2" '$1 == "cold-index" { a[++n] = $f } $1 == "cold-both-index" { b[++m] = $f } $1 == "cold-both-assemble" { c[++k] = $f } END {
		for (i = 1; i <= n; i++) r[i] = (b[i] + c[i]) / (paired ? b[i] : a[i])
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
		s = ""; for (i = 1; i <= n; i++) s = s sprintf("%s%.3f", (i > 1 ? ", " : ""), r[i]); print s }' "$work/times"
}

cat <<EOF

tree: $tree ($files files indexed, $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB); pull request: $n files changed ($(awk -v n="$n" -v f="$files" 'BEGIN { printf "%.2f", 100 * n / f }') %), budget $budget
machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version 2>/dev/null | cut -d' ' -f3-4)

cold (no cache)
  ctxls index alone                  $(stats cold-index)
  index + assemble: index            $(stats cold-both-index)
                    assemble         $(stats cold-both-assemble)
                    total            $(sum_median cold-both-index cold-both-assemble)
  (index + assemble) / index alone   wall $(ratio 2 0); CPU $(ratio 3 0)   (target <= 1.2)
  (index + assemble) / its index     wall $(ratio 2 1); CPU $(ratio 3 1)

warm (the base commit's index restored; refresh + assemble, target <= 2 s)
  in place       refresh             $(stats warm-inplace-refresh)   read $(jq .read "$work/index-warm-inplace.json"), changed $(jq .changed "$work/index-warm-inplace.json")
                 assemble            $(stats warm-inplace-assemble)
                 total               $(sum_median warm-inplace-refresh warm-inplace-assemble)
  fresh checkout refresh             $(stats warm-fresh-refresh)   read $(jq .read "$work/index-warm-fresh.json"), changed $(jq .changed "$work/index-warm-fresh.json")
                 assemble            $(stats warm-fresh-assemble)
                 total               $(sum_median warm-fresh-refresh warm-fresh-assemble)
  review-bot.sh run (in place)       $(stats script)   read $script_read, changed $script_changed
EOF
