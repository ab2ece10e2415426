#!/usr/bin/env bash
# Run every Go fuzz target of the module for a while: scripts/fuzz.sh [FUZZTIME]
set -euo pipefail
t=${1:-30s}
cd "$(dirname "$0")/.."
fail=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "== $pkg $f ($t)"
    if ! go test -run '^$' -fuzz "^${f}\$" -fuzztime "$t" "$pkg"; then
      echo "FAIL: $pkg $f"; fail=1
    fi
  done
done
exit $fail
