#!/usr/bin/env bash
# Quality eval of ctxls against a BM25 baseline on real commits of public
# repositories (method and numbers: docs/quality.md).
#
#   EVAL_REPOS_DIR=DIR scripts/eval.sh              full run: rewrites eval/results/latest.jsonl
#                                                   and the generated tables of docs/quality.md
#   EVAL_REPOS_DIR=DIR scripts/eval.sh FLAGS…       a tuning run (e.g. -repo click -limit 5
#                                                   -budgets 2000 -ablations=false -weights symbol=2
#                                                   -opts rrfk=30); results go to eval/work/last.jsonl
#   EVAL_REPOS_DIR=DIR scripts/eval.sh -heldout     the held-out check: eval/heldout.json (five repositories
#                                                   whose query and diff cases were never tuned on) against the peers; rewrites
#                                                   eval/results/heldout.jsonl and docs/heldout.md's tables
#   EVAL_REPOS_DIR=DIR scripts/eval.sh -model-ages 10,50 -task query -systems ctxls -ablations=false
#                                                   ctxls also with the semantic model trained 10 and 50
#                                                   commits before each case's tree, reused as the CLI
#                                                   reuses its cached model (trained again past the drift
#                                                   thresholds): side by side with the fresh model, and how
#                                                   many cases retrained (docs/quality.md, "A model trained
#                                                   N commits ago"; -cases eval/heldout.json: the held-out
#                                                   cases, leaving docs/heldout.md alone)
#   EVAL_REPOS_DIR=DIR scripts/eval.sh -clone       clone the missing repositories (bare) into DIR
#   EVAL_REPOS_DIR=DIR scripts/eval.sh -mine        mine eval/cases.json again from the recorded heads
#                                                   (query and diff cases, then the cursor and review cases)
#
# DIR holds one git directory per repository of eval/cases.json, as
# owner+name/repo, owner+name.git, owner/name.git or owner/name (a clone).
# `go run ./eval/cmd/run -h` lists every flag.
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=1

if [ -z "${EVAL_REPOS_DIR:-}" ]; then
	echo "eval.sh: set EVAL_REPOS_DIR to the directory holding the repositories' git directories" >&2
	echo "         (EVAL_REPOS_DIR=DIR scripts/eval.sh -clone clones them there)" >&2
	exit 2
fi

# The cases files: the eval's own and the held-out check's (docs/heldout.md).
CASES_FILES="eval/cases.json eval/heldout.json"

# The twelve repositories with cursor cases (docs/quality.md, "Cursor
# task"; the other nine have none).
CURSOR_REPOS=dtolnay/anyhow,expressjs/express,google/gson,gorilla/mux,koajs/koa,pallets/click,python-attrs/attrs,rust-lang/log,sindresorhus/got,sirupsen/logrus,spf13/pflag,tqdm/tqdm

case "${1:-}" in
-clone)
	mkdir -p "$EVAL_REPOS_DIR"
	for cases in $CASES_FILES; do go run ./eval/cmd/run -cases "$cases" -list-repos; done | while read -r name head; do
		plus=${name/\//+}
		found=
		for d in "$plus/repo" "$plus.git" "$plus" "$name.git" "$name" "${name#*/}.git" "${name#*/}"; do
			if [ -e "$EVAL_REPOS_DIR/$d/HEAD" ] || [ -e "$EVAL_REPOS_DIR/$d/.git/HEAD" ]; then found=$d; break; fi
		done
		if [ -n "$found" ]; then
			echo "have $name ($EVAL_REPOS_DIR/$found)"
		else
			echo "cloning $name into $EVAL_REPOS_DIR/$plus.git"
			git clone --quiet --bare "https://github.com/$name.git" "$EVAL_REPOS_DIR/$plus.git"
		fi
	done
	# Every recorded head must be there: the cases are pinned to it.
	for cases in $CASES_FILES; do go run ./eval/cmd/run -cases "$cases" -repos-dir "$EVAL_REPOS_DIR" -check-repos; done
	exit 0
	;;
-heldout)
	# Run it to check a change that won on eval/cases.json: its query and
	# diff cases were never tuned on, its review cases were consulted while
	# the review mode was built (docs/heldout.md says how they were chosen).
	shift
	mkdir -p eval/results
	exec go run ./eval/cmd/run -cases eval/heldout.json -repos-dir "$EVAL_REPOS_DIR" -ablations=false \
		-out eval/results/heldout.jsonl -doc docs/heldout.md "$@"
	;;
-mine)
	shift
	go run ./eval/cmd/mine -all -repos-dir "$EVAL_REPOS_DIR" "$@"
	# The cursor task's cases: the first twelve repositories only (docs/quality.md).
	go run ./eval/cmd/mine -all -cursor -repos-dir "$EVAL_REPOS_DIR" -cursor-repos "$CURSOR_REPOS"
	# The review task's cases: the Go repositories (gold from go/types).
	exec go run ./eval/cmd/mine -all -review -repos-dir "$EVAL_REPOS_DIR"
	;;
esac

if [ $# -eq 0 ]; then
	mkdir -p eval/results
	exec go run ./eval/cmd/run -repos-dir "$EVAL_REPOS_DIR" -out eval/results/latest.jsonl -doc docs/quality.md
fi
mkdir -p eval/work
exec go run ./eval/cmd/run -repos-dir "$EVAL_REPOS_DIR" -out eval/work/last.jsonl "$@"
