#!/usr/bin/env bash
# windows-test.sh: the Windows build, run here under wine (make test-windows):
#   - ctxls.exe is cross-compiled as it ships, without cgo (tree-sitter as
#     WebAssembly; WINDOWS_CGO=1 builds it with cgo through Debian's
#     gcc-mingw-w64-x86-64 instead), beside this machine's default ctxls,
#     and runs under wine64 in a fresh prefix;
#   - `ctxls.exe version` names the Linux binary's version;
#   - both index a copy of the fixture internal/lsp/testdata/workspace, some
#     of its files converted to CRLF, to the same state root;
#   - a question and a cursor give the Linux binary's context byte for byte
#     (markdown and JSON, timings aside), with the root and the cursor
#     written as Windows users write them: drive letters, '\' and '/',
#     relative and absolute, '.' and '..';
#   - a CRLF file's chunks are those of the same file with LF endings;
#   - a focus relative to a drive's current directory (C:x) is refused;
#   - the OS layer's unit tests run as Windows binaries (internal/osfile:
#     locks, no-follow opens, renames over files another process holds,
#     reads shared for deletion; the cursor's paths; the LSP client's
#     process; the WebAssembly parser, its traps and its private cache);
#   - an index survives a program that holds its CURRENT file open: a
#     build that cannot replace it leaves the old generation live and
#     serves from memory, and the context is unchanged; an index whose lock
#     another process holds is built in a private copy, same context.
# Go 1.26's runtime needs bcryptprimitives.dll, which wine 8.0 lacks: a
# test-only shim (scripts/windows/bcryptprimitives.c) is built and copied
# into the prefix. KEEP=1 keeps the temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
die() {
	echo "windows-test: FAIL: $*" >&2
	exit 1
}
CC_WIN=${CC_WIN:-x86_64-w64-mingw32-gcc}
. scripts/lib/wine.sh

work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-windows-test-XXXXXX")
cleanup() {
	wine_stop
	if [ -n "${KEEP:-}" ]; then echo "windows-test: keeping $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

w() { "$wine" "$@"; }

echo "== build ctxls.exe, ctxls and the test binaries"
go build -buildvcs=auto -o "$work/ctxls" ./cmd/ctxls
wingo() { GOOS=windows GOARCH=amd64 CGO_ENABLED=${WINDOWS_CGO:-0} CC=$CC_WIN go "$@"; }
wingo build -trimpath -buildvcs=auto -o "$work/ctxls.exe" ./cmd/ctxls # -trimpath: make dist's compiled packages
wingo test -c -o "$work/osfile.test.exe" ./internal/osfile
wingo test -c -o "$work/retrieve.test.exe" ./internal/retrieve
wingo test -c -o "$work/lsp.test.exe" ./internal/lsp
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -c -o "$work/syntax.test.exe" ./internal/index/chunk/syntax
file "$work/ctxls.exe" | grep -q 'PE32+ executable.*x86-64' || die "ctxls.exe is not a Windows x86-64 executable"
echo "ok   ctxls.exe: $(file -b "$work/ctxls.exe" | cut -d, -f1), CGO_ENABLED=${WINDOWS_CGO:-0}"

echo "== a wine prefix with the bcryptprimitives.dll shim"
wine_setup "$work"
echo "ok   $("$wine" --version 2>/dev/null || echo wine), shim in system32"

cd "$work"
[ "$(w ./ctxls.exe version)" = "$(./ctxls version)" ] || die "ctxls.exe version says '$(w ./ctxls.exe version)', ctxls '$(./ctxls version)'"
echo "ok   ctxls.exe version: $(w ./ctxls.exe version)"

echo "== the OS layer's unit tests as Windows binaries"
w ./osfile.test.exe -test.count=1 >osfile.out 2>&1 || { cat osfile.out; die "internal/osfile's tests under wine"; }
w ./retrieve.test.exe -test.count=1 -test.run '^(TestParseFocus|TestSlashRel|TestRootPathWindows)$' >retrieve.out 2>&1 ||
	{ cat retrieve.out; die "internal/retrieve's path tests under wine"; }
w ./lsp.test.exe -test.count=1 -test.run '^TestProcessGone$' >lsp.out 2>&1 || { cat lsp.out; die "internal/lsp's TestProcessGone under wine"; }
w ./syntax.test.exe -test.count=1 >syntax.out 2>&1 || { cat syntax.out; die "internal/index/chunk/syntax's tests (WebAssembly) under wine"; }
echo "ok   internal/osfile, internal/retrieve (paths), internal/lsp (the client's process), internal/index/chunk/syntax (WebAssembly)"

echo "== the fixture, some files CRLF"
cp -R "$repo/internal/lsp/testdata/workspace" ws
cp -R ws ws-lf
for f in cart/cart.go pricing/tax.go README.md; do
	sed -i 's/$/\r/' "ws/$f"
done
grep -q $'\r$' ws/cart/cart.go || die "the fixture has no CRLF file"
WS=$(winpath "$work/ws")
WCACHE=$(winpath "$work/cache-win")
common=(--git-history=false --budget 1500)

./ctxls index --root ws --cache-dir cache-linux --git-history=false --json >index-linux.json
w ./ctxls.exe index --root "$WS" --cache-dir "$WCACHE" --git-history=false --json >index-win.json ||
	die "ctxls.exe index failed"
pick() { grep -E '"(files|chunks|bytes|stateRoot)"' "$1"; }
[ "$(pick index-win.json)" = "$(pick index-linux.json)" ] ||
	die "the indexes differ: $(pick index-linux.json | tr -d ' \n') (Linux) and $(pick index-win.json | tr -d ' \n') (Windows)"
[ -f cache-win/CURRENT ] && [ -f "cache-win/$(cat cache-win/CURRENT | tr -d '\r\n')/COMPLETE" ] ||
	die "ctxls.exe left no complete generation in its cache directory"
echo "ok   index: $(pick index-linux.json | tr -d ' \n' | tr ',' ' ') on both"

# same NAME FILE-LINUX FILE-WINDOWS: the two outputs are byte-identical
# (JSON: but for elapsed times).
same() {
	local a=$2 b=$3
	if [ "${a%.json}" != "$a" ]; then
		grep -v '"elapsedMs"' "$a" >"$a.cmp"
		grep -v '"elapsedMs"' "$b" >"$b.cmp"
		a=$a.cmp b=$b.cmp
	fi
	cmp -s "$a" "$b" || {
		diff "$a" "$b" | head -20 >&2
		die "$1: ctxls.exe's context differs from ctxls's"
	}
}

echo "== a question"
query="how is the cart total with tax computed"
./ctxls assemble --root ws --cache-dir cache-linux "${common[@]}" --query "$query" >q-linux.md
[ -s q-linux.md ] || die "the Linux binary gave no context"
w ./ctxls.exe assemble --root "$WS" --cache-dir "$WCACHE" "${common[@]}" --query "$query" >q-win.md
same "question" q-linux.md q-win.md
./ctxls assemble --root ws --cache-dir cache-linux "${common[@]}" --query "$query" --json >q-linux.json
w ./ctxls.exe assemble --root "$WS" --cache-dir "$WCACHE" "${common[@]}" --query "$query" --json >q-win.json
same "question (JSON)" q-linux.json q-win.json
echo "ok   question: $(wc -c <q-linux.md) bytes of context, identical (markdown and JSON)"

echo "== a cursor"
./ctxls assemble --root ws --cache-dir cache-linux "${common[@]}" --focus cart/cart.go:45:10 >f-linux.md
grep -q '^### \[1\] cart/cart.go:.*(Cart.Total)' f-linux.md || die "the cursor's context does not start with Cart.Total"
n=0
for root in "$WS" "$WS\\" "${WS//\\//}" '.\ws' "z${WS#Z}"; do
	for focus in 'cart\cart.go:45:10' 'cart/cart.go:45:10' '.\cart\..\cart\cart.go:45:10' \
		"$WS\\cart\\cart.go:45:10" "${WS//\\//}/cart/cart.go:45:10"; do
		w ./ctxls.exe assemble --root "$root" --cache-dir "$WCACHE" "${common[@]}" --focus "$focus" >f-win.md ||
			die "--root $root --focus $focus failed"
		same "--root $root --focus $focus" f-linux.md f-win.md
		n=$((n + 1))
	done
done
./ctxls assemble --root ws --cache-dir cache-linux "${common[@]}" --focus pricing/tax.go:14 --query tax --json >fq-linux.json
w ./ctxls.exe assemble --root "$WS" --cache-dir "$WCACHE" "${common[@]}" --focus 'pricing\tax.go:14' --query tax --json >fq-win.json
same "cursor and question (JSON)" fq-linux.json fq-win.json
echo "ok   cursor: $n spellings of the root and the path ('\\', '/', drive letters, '.', '..'), identical"

if w ./ctxls.exe assemble --root "$WS" --cache-dir "$WCACHE" "${common[@]}" --focus 'C:cart\cart.go:45' >/dev/null 2>drive.err; then
	die "a focus relative to a drive's current directory was accepted"
fi
grep -q "relative to a drive's current directory" drive.err || die "C:x refused with: $(cat drive.err)"
echo "ok   --focus C:cart\\cart.go:45 refused: $(tr -d '\r' <drive.err)"

echo "== CRLF files"
./ctxls assemble --root ws-lf --cache-dir cache-lf "${common[@]}" --budget 4000 --query "$query" >lf.md
./ctxls assemble --root ws --cache-dir cache-linux "${common[@]}" --budget 4000 --query "$query" >crlf.md
grep -q $'\r$' crlf.md || die "the CRLF files' text lost its line endings"
tr -d '\r' <crlf.md | cmp -s - lf.md || die "a CRLF file's chunks differ from the LF file's"
echo "ok   CRLF: the chunks of the LF files, the text as the files have it (CR kept), on both binaries"

echo "== an index whose CURRENT another program holds open"
# holder FILE MS [lock]: another Windows process holds FILE (os.Open, not
# shared for deletion; or its exclusive lock) for MS milliseconds.
holder() {
	CTXLS_TEST_HOLD_OPEN=$(winpath "$work/$1") CTXLS_TEST_HOLD_MS=$2 CTXLS_TEST_HOLD_LOCK=${3:-} \
		"$wine" ./osfile.test.exe -test.run '^TestHoldOpenHelper$' >hold.out 2>&1 &
	holder_pid=$!
	for _ in $(seq 100); do
		grep -q '^held' hold.out 2>/dev/null && return
		sleep 0.1
	done
	die "the holder did not hold $1: $(cat hold.out)"
}
live=$(tr -d '\r\n' <cache-win/CURRENT)
# A moment (an antivirus scanning the file): the rename, retried for two
# seconds, gets through once it is let go (internal/osfile's
# TestRenameWaitsForAnotherProcess times the wait itself).
holder cache-win/CURRENT 1500
w ./ctxls.exe index --root "$WS" --cache-dir "$WCACHE" --git-history=false --rebuild >rebuild.out 2>&1 ||
	die "a rebuild while CURRENT was held for a moment failed: $(cat rebuild.out)"
wait "$holder_pid"
now=$(tr -d '\r\n' <cache-win/CURRENT)
[ "$now" != "$live" ] || die "the rebuild did not switch CURRENT"
echo "ok   held for 1.5 s: the rebuild switched to $now"
live=$now
# Held throughout: the build cannot switch; the old generation stays live.
holder cache-win/CURRENT 20000
./ctxls assemble --root ws --cache-dir cache-linux2 "${common[@]}" --query "$query" --encoding o200k_base >o200k-linux.md
w ./ctxls.exe assemble --root "$WS" --cache-dir "$WCACHE" "${common[@]}" --query "$query" --encoding o200k_base \
	>o200k-win.md 2>held.err || die "assemble while CURRENT was held failed: $(cat held.err)"
same "question while CURRENT was held (o200k_base: a full build)" o200k-linux.md o200k-win.md
grep -q "indexing in memory" held.err || die "no warning said the index was built in memory: $(cat held.err)"
grep -q "another program may hold the file open" held.err || die "the warning does not say why: $(cat held.err)"
[ "$(tr -d '\r\n' <cache-win/CURRENT)" = "$live" ] || die "CURRENT changed while held"
[ -f "cache-win/$live/COMPLETE" ] || die "the live generation lost its completeness marker"
kill "$holder_pid" 2>/dev/null || true
wait "$holder_pid" 2>/dev/null || true
gens() { (cd cache-win && ls -d g-*); }
before=$(gens)
w ./ctxls.exe assemble --root "$WS" --cache-dir "$WCACHE" "${common[@]}" --query "$query" >q-after.md 2>after.err
same "question after the holder let go" q-linux.md q-after.md
[ "$(gens)" = "$before" ] && [ "$(tr -d '\r\n' <cache-win/CURRENT)" = "$live" ] ||
	die "the live generation was not served after the holder let go (a new one was built): $(cat after.err)"
echo "ok   held throughout: served from memory with a warning, CURRENT and $live intact, then served again"

echo "== an index whose lock another process holds"
holder cache-win/lock 20000 1
w ./ctxls.exe assemble --root "$WS" --cache-dir "$WCACHE" "${common[@]}" --query "$query" >q-locked.md 2>locked.err ||
	die "assemble while the lock was held failed: $(cat locked.err)"
same "question while the lock was held" q-linux.md q-locked.md
grep -q "another ctxls keeps this root's index" locked.err || die "no warning named the lock: $(cat locked.err)"
kill "$holder_pid" 2>/dev/null || true
wait "$holder_pid" 2>/dev/null || true
echo "ok   locked: a private copy, same context"

echo "== windows-test passed"
