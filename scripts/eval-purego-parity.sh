#!/usr/bin/env bash
# eval-purego-parity.sh: the eval's requests answered by the build with cgo
# and by the build without it (tree-sitter as WebAssembly, what macOS and
# Windows ship), every case's result and shown parts compared byte for
# byte (make eval-purego-parity; docs/benchmarks.md, "Pure-Go build").
# EVAL_REPOS_DIR as for scripts/eval.sh; extra flags go to the eval (the
# default is five repositories' cases at 2 000 tokens, every task).
# Minutes; not in CI, whose machine has no eval repositories (CI compares
# the two builds on cmd/ctxls's TestWithoutCgo corpus instead).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${EVAL_REPOS_DIR:-}" ] || { echo "eval-purego-parity: set EVAL_REPOS_DIR (see scripts/eval.sh)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-purego-parity-XXXXXX")
trap 'rm -rf "$work"' EXIT
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(-repo pallets/click,sirupsen/logrus,gorilla/mux,koajs/koa,rust-lang/log -budgets 2000)
for cgo in 1 0; do
	CGO_ENABLED=$cgo go build -o "$work/run-$cgo" ./eval/cmd/run
	"$work/run-$cgo" -cases eval/cases.json -repos-dir "$EVAL_REPOS_DIR" -ablations=false -systems ctxls -parts \
		-work "$work/trees-$cgo" -out "$work/results-$cgo.jsonl" "${flags[@]}" >"$work/log-$cgo" 2>&1 ||
		{ tail -20 "$work/log-$cgo" >&2; echo "eval-purego-parity: the eval failed (CGO_ENABLED=$cgo)" >&2; exit 1; }
done
n=$(wc -l <"$work/results-1.jsonl")
[ "$n" -gt 0 ] || { echo "eval-purego-parity: no result" >&2; exit 1; }
if ! cmp -s "$work/results-1.jsonl" "$work/results-0.jsonl"; then
	diff <(cut -c1-300 "$work/results-1.jsonl") <(cut -c1-300 "$work/results-0.jsonl") | head -20 >&2
	echo "eval-purego-parity: FAIL: the builds' results differ" >&2
	exit 1
fi
echo "eval-purego-parity: $n results (cases × budgets), byte-identical with and without cgo; $(tail -1 "$work/log-1")"
