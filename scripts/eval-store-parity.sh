#!/usr/bin/env bash
# The store's parity with the local index over the project's eval: every
# case's tree is published into a PostgreSQL store, checked out as a
# replica does and indexed from the stored chunks; every ctxls request
# (question, diff, cursor, review; every budget) is answered from both,
# and the contexts must be byte-identical. Fails on the first run with a
# difference (eval/cmd/run -store says which case).
#
#   EVAL_REPOS_DIR=DIR scripts/eval-store-parity.sh [eval/cmd/run flags]
#   e.g. -cases eval/heldout.json, -repo logrus, -limit 5
#
# Starts its own PostgreSQL server (scripts/lib/pg.sh). Minutes, not a
# test (make eval-store-parity).
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=1
if [ -z "${EVAL_REPOS_DIR:-}" ]; then
	echo "eval-store-parity.sh: set EVAL_REPOS_DIR as for scripts/eval.sh" >&2
	exit 2
fi
. scripts/lib/pg.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-parity-XXXXXX")
trap 'pg_stop; rm -rf "$work"' EXIT
pg_start "$work/pg"
go run ./eval/cmd/run -repos-dir "$EVAL_REPOS_DIR" -systems ctxls -ablations=false -store "$pg_url" "$@"
