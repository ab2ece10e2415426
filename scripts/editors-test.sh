#!/usr/bin/env bash
# Tests the editor integrations in editors/ against the real `ctxls serve`
# on a git checkout of the fixture workspace internal/lsp/testdata/workspace:
#   vscode  npm ci, strict tsc, the extension's tests under node (node --test),
#           and vsce package (the .vsix is checked, then removed)
#   nvim    headless Neovim runs editors/nvim/test/test.lua
#   emacs   emacs --batch with eglot runs editors/emacs/test/ctxls-test.el
#
# usage: scripts/editors-test.sh [vscode] [nvim] [emacs]    (default: all three)
# env:   REQUIRE=1  an editor (or node) that is not installed fails instead of
#                   being skipped with a printed line (.ci/run sets it)
#        KEEP=1     keep the temporary directory (workspace copies, caches, logs)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
editors=("$@")
[ ${#editors[@]} -gt 0 ] || editors=(vscode nvim emacs)

go build -o bin/ctxls ./cmd/ctxls
bin=$repo/bin/ctxls
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-editors.XXXXXX")
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; else echo "editors-test: keeping $tmp"; fi

# workspace NAME: a fresh git checkout of the fixture in $tmp/NAME/ws.
workspace() {
  local d=$tmp/$1/ws
  mkdir -p "$tmp/$1"
  cp -R internal/lsp/testdata/workspace "$d"
  git -C "$d" init -q
  git -C "$d" add .
  git -C "$d" -c user.name=ctxls -c user.email=ctxls@example.com commit -q -m fixture
  echo "$d"
}

missing() { # missing EDITOR WHAT
  if [ -n "${REQUIRE:-}" ]; then echo "editors-test: FAIL: $1: $2 is not installed" >&2; exit 1; fi
  echo "editors-test: $1: skipped: $2 is not installed"
}

run_vscode() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then missing vscode "node/npm"; return; fi
  echo "== vscode: npm ci, compile (strict TypeScript)"
  (cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error && npm run --silent compile)
  echo "== vscode: the extension's tests (node --test) against ctxls serve"
  # The tests make their own git checkout of the fixture (in TMPDIR).
  mkdir -p "$tmp/vscode"
  (cd editors/vscode && CTXLS_BIN=$bin CTXLS_FIXTURE=$repo/internal/lsp/testdata/workspace TMPDIR=$tmp/vscode node --test out/test/)
  echo "== vscode: vsce package"
  (cd editors/vscode && npx --no-install vsce package --out "$tmp/vscode/ctxls.vsix" >"$tmp/vscode/vsce.log" 2>&1) ||
    { cat "$tmp/vscode/vsce.log" >&2; echo "editors-test: FAIL: vsce package" >&2; exit 1; }
  [ -s "$tmp/vscode/ctxls.vsix" ] || { echo "editors-test: FAIL: vsce wrote no .vsix" >&2; exit 1; }
  # What the .vsix holds: the compiled extension and its runtime dependencies, no tests.
  local listing; listing=$(cd editors/vscode && npx --no-install vsce ls 2>/dev/null)
  for f in package.json out/src/extension.js node_modules/vscode-languageclient/package.json; do
    grep -qx "$f" <<<"$listing" || { echo "editors-test: FAIL: the .vsix lacks $f" >&2; exit 1; }
  done
  if grep -q '^out/test/\|^src/' <<<"$listing"; then echo "editors-test: FAIL: the .vsix holds sources or tests" >&2; exit 1; fi
  echo "   $(du -h "$tmp/vscode/ctxls.vsix" | cut -f1) .vsix, $(wc -l <<<"$listing") files"
}

run_nvim() {
  if ! command -v nvim >/dev/null; then missing nvim "nvim (apt-get install neovim)"; return; fi
  echo "== nvim: $(nvim --version | head -1): editors/nvim/test/test.lua against ctxls serve"
  local ws; ws=$(workspace nvim)
  CTXLS_BIN=$bin CTXLS_WS=$ws CTXLS_CACHE_DIR=$tmp/nvim/cache CTXLS_CLI_CACHE=$tmp/nvim/cli-cache \
    XDG_STATE_HOME=$tmp/nvim/state XDG_CACHE_HOME=$tmp/nvim/xdg-cache \
    timeout -k 5 180 nvim --headless -u NONE -i NONE -n --cmd "set rtp^=$repo/editors/nvim" \
    -c "luafile $repo/editors/nvim/test/test.lua" </dev/null
}

run_emacs() {
  if ! command -v emacs >/dev/null; then missing emacs "emacs (apt-get install emacs-nox elpa-eglot)"; return; fi
  echo "== emacs: $(emacs --version | head -1): editors/emacs/test/ctxls-test.el against ctxls serve"
  local ws; ws=$(workspace emacs)
  CTXLS_BIN=$bin CTXLS_WS=$ws CTXLS_CACHE_DIR=$tmp/emacs/cache CTXLS_CLI_CACHE=$tmp/emacs/cli-cache \
    timeout -k 5 180 emacs --batch -L "$repo/editors/emacs" -l "$repo/editors/emacs/test/ctxls-test.el" </dev/null
}

for e in "${editors[@]}"; do
  case $e in
    vscode) run_vscode ;;
    nvim) run_nvim ;;
    emacs) run_emacs ;;
    *) echo "editors-test: unknown editor $e (vscode, nvim, emacs)" >&2; exit 2 ;;
  esac
done
echo "== editors-test: ${editors[*]}: done"
