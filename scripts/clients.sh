#!/usr/bin/env bash
# Runs `ctxls serve` under three real LSP clients — Neovim 0.7 vim.lsp,
# vscode-jsonrpc 10 (VS Code's protocol layer) and Emacs eglot 1.9 — through
# the drivers in ../shared/clients, on the fixture workspace
# internal/lsp/testdata/workspace:
#   1. context/assemble with a query     every client passes, same result but for timing
#   2. context/assemble with a focus     every client passes, same result but for timing
#   3. context/assemble with bad params  every client gets the JSON-RPC error (rc 2)
# Fails loudly on the first check that does not hold.
#
# usage: scripts/clients.sh          (install the clients first: ../shared/clients/install.sh)
# env:   CLIENTS_DIR   the drivers (default ../shared/clients)
#        OUT_DIR       keep each client's output there (default: a temporary directory)
#        CLIENTS       which clients (default: all three, all required)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
clients_dir=${CLIENTS_DIR:-$repo/../shared/clients}
[ -x "$clients_dir/run-all.sh" ] || { echo "clients.sh: no drivers at $clients_dir (set CLIENTS_DIR)" >&2; exit 1; }
command -v node >/dev/null || { echo "clients.sh: node is required" >&2; exit 1; }

echo "== build bin/ctxls"
go build -o bin/ctxls ./cmd/ctxls

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-clients.XXXXXX")
out=${OUT_DIR:-$tmp/out}
mkdir -p "$out"
ws=$tmp/workspace
cp -R internal/lsp/testdata/workspace "$ws"
# A cache of its own: the first client builds the index, the others open it warm.
export CTXLS_CACHE_DIR=$tmp/cache
server="$repo/bin/ctxls serve"
export REQUIRE_ALL=1
export EXTRA_ARGS="--file cart/cart.go"

fail() { echo "clients.sh: FAIL: $*" >&2; exit 1; }

# normalize FILE: the result without timing, keys sorted (node: no jq needed).
normalize() {
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    delete r.timing;
    const sort = (v) => Array.isArray(v) ? v.map(sort) : v && typeof v === "object"
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort(v[k])])) : v;
    process.stdout.write(JSON.stringify(sort(r)));' "$1"
}

# check NAME EXPECT_RC PARAMS [NODE_ASSERTION]: runs all clients, requires
# them to pass and to agree; the assertion (a JS expression on the result r)
# must hold.
check() {
  local name=$1 rc=$2 params=$3 assertion=${4:-true}
  echo "== $name"
  EXPECT_RC=$rc OUT_DIR="$out/$name" "$clients_dir/run-all.sh" "$server" "$ws" context/assemble "$params" ||
    fail "$name: not every client passed (outputs in $out/$name)"
  local first="" c
  for c in ${CLIENTS:-nvim node emacs}; do
    [ -s "$out/$name/$c.out" ] || fail "$name: $c printed nothing"
    local norm
    norm=$(normalize "$out/$name/$c.out") || fail "$name: $c printed no JSON: $(head -c 300 "$out/$name/$c.out")"
    if [ -z "$first" ]; then
      first=$norm
      node -e "const r = JSON.parse(process.argv[1]); if (!($assertion)) { console.error('assertion failed: ' + process.argv[2]); process.exit(1) }" \
        "$norm" "$assertion" || fail "$name: unexpected result: $(head -c 600 "$out/$name/$c.out")"
    elif [ "$norm" != "$first" ]; then
      fail "$name: $c's result differs from the others' (beyond timing); see $out/$name"
    fi
  done
  echo "   same result from every client (timing aside)"
}

check query 0 '{"query":"how is the tax computed at checkout","budget":{"maxTokens":2000}}' \
  'r.stats.indexComplete && r.parts.length > 0 && r.parts.some((p) => p.path === "pricing/tax.go" && p.uri.startsWith("file://") && p.uri.endsWith("/pricing/tax.go")) && r.stats.totalTokens <= 2000'
check focus 0 '{"focus":{"uri":"{{fileUri}}","position":{"line":46,"character":8}},"budget":{"maxTokens":1500}}' \
  'r.stats.indexComplete && r.parts.some((p) => p.path === "cart/cart.go" && p.ranges.some((g) => g.start <= 47 && 47 <= g.end)) && r.stats.totalTokens <= 1500'
check bad-params 2 '{"query":"tax","budget":{"maxTokens":0}}' \
  'r.error && r.error.code === -32602 && r.error.data.field === "budget.maxTokens"'

rm -rf "$tmp/cache" "$ws"
echo "== clients.sh: all checks passed (outputs in $out)"
