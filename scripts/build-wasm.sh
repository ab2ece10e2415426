#!/usr/bin/env bash
# build-wasm.sh: the WebAssembly module the build without cgo parses with
# (make wasm): tree-sitter's runtime, the twelve grammars ctxls uses and
# the syntax package's walker (internal/index/chunk/syntax/csrc), compiled
# from the Go module cache's copy of github.com/smacker/go-tree-sitter (the
# version go.mod names) into one wasm32-wasi reactor module.
#
#   scripts/build-wasm.sh            writes internal/index/chunk/syntax/syntax.wasm
#   scripts/build-wasm.sh OUT        writes OUT instead
#   scripts/build-wasm.sh --check    rebuilds into a temporary file and fails
#                                    unless it is byte-identical to the committed one
#
# The module is committed, so that a fresh clone builds with CGO_ENABLED=0
# and no C toolchain; --check (make test) proves it is what these sources
# and flags make. The output is reproducible: no debug information, no
# names section, source paths mapped to fixed prefixes (assert messages
# hold __FILE__), inputs in a fixed order. It depends on the compiler, so
# the compiler is pinned: Debian 12's clang-16 16.0.6, lld-16, wasi-libc
# and libclang-rt-16-dev-wasm32 (installed with apt-get when missing).
# Another clang may well build a working module, but not the same bytes:
# CTXLS_WASM_ANY_CLANG=1 accepts it (for trying a newer compiler; commit
# the result with the new version written below).
set -euo pipefail
cd "$(dirname "$0")/.."

# The compiler the committed module was built with (clang-16 --version).
CLANG_VERSION="Debian clang version 16.0.6 (15~deb12u1)"
CLANG=${CLANG:-clang-16}
COMMITTED=internal/index/chunk/syntax/syntax.wasm

die() {
	echo "build-wasm: $*" >&2
	exit 1
}

check=0
out=$COMMITTED
case "${1:-}" in
--check) check=1 ;;
"") ;;
*) out=$1 ;;
esac

if ! command -v "$CLANG" >/dev/null || ! command -v wasm-ld-16 >/dev/null || [ ! -f /usr/lib/wasm32-wasi/libc.a ] ||
	[ ! -f /usr/lib/llvm-16/lib/clang/16/lib/wasi/libclang_rt.builtins-wasm32.a ]; then
	echo "build-wasm: installing clang-16, lld-16, wasi-libc, libclang-rt-16-dev-wasm32 (Debian packages)" >&2
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		clang-16 lld-16 wasi-libc libclang-rt-16-dev-wasm32 >/dev/null; } ||
		die "cannot install clang-16, lld-16, wasi-libc and libclang-rt-16-dev-wasm32: install them"
fi
have=$("$CLANG" --version | head -n 1)
if [ "$have" != "$CLANG_VERSION" ] && [ "${CTXLS_WASM_ANY_CLANG:-}" != 1 ]; then
	die "the module is built with \"$CLANG_VERSION\", this is \"$have\" (CTXLS_WASM_ANY_CLANG=1 to build anyway; the bytes will differ)"
fi

go mod download github.com/smacker/go-tree-sitter || die "go mod download github.com/smacker/go-tree-sitter"
mod=$(go list -m -f '{{.Dir}}' github.com/smacker/go-tree-sitter)
[ -n "$mod" ] && [ -f "$mod/api.h" ] || die "github.com/smacker/go-tree-sitter is not in the module cache (go mod download)"
csrc=$PWD/internal/index/chunk/syntax/csrc

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# -O2 as cgo compiles the same C (go env CGO_CFLAGS), assertions kept as
# there. The runtime's tree.c calls dup without declaring it (its dot-graph
# printer, never used; syntax.c defines a stub).
cflags=(--target=wasm32-wasi -O2 -g0 -std=gnu11 -fvisibility=hidden
	-ffile-prefix-map="$mod"=go-tree-sitter -ffile-prefix-map="$csrc"=ctxls
	-Wno-implicit-function-declaration -Wno-unused-but-set-variable -Wno-trigraphs)

# Sources: the runtime (all of it but bindings.c, the Go callbacks, and
# query.c, which ctxls does not use), each grammar's parser and scanner,
# the walker. Object names are numbered in this order.
srcs=()
for f in alloc get_changed_ranges language lexer node parser stack subtree tree tree_cursor wasm_store; do
	srcs+=("$mod/$f.c")
done
for g in golang python rust javascript typescript/typescript typescript/tsx java c cpp csharp ruby php; do
	srcs+=("$mod/$g/parser.c")
	[ -f "$mod/$g/scanner.c" ] && srcs+=("$mod/$g/scanner.c")
done
srcs+=("$csrc/syntax.c")

# Compiled $(nproc) at a time; the objects are linked in the list's order.
objs=()
pids=()
i=0
for src in "${srcs[@]}"; do
	i=$((i + 1))
	obj=$(printf '%s/%03d.o' "$tmp" "$i")
	objs+=("$obj")
	"$CLANG" "${cflags[@]}" -I"$mod" -I"$(dirname "$src")" -c "$src" -o "$obj" &
	pids+=($!)
	if [ "${#pids[@]}" -ge "$(nproc)" ]; then
		wait "${pids[0]}" || die "compile failed (see above)"
		pids=("${pids[@]:1}")
	fi
done
for pid in "${pids[@]}"; do
	wait "$pid" || die "compile failed (see above)"
done

exports=(ctxls_new ctxls_delete ctxls_input ctxls_ranges ctxls_edit_input ctxls_parse ctxls_expand ctxls_tree_edit
	ctxls_tree_delete ctxls_names)
ldflags=(-mexec-model=reactor -Wl,--strip-all -Wl,--stack-first -Wl,-z,stack-size=1048576)
for e in "${exports[@]}"; do
	ldflags+=(-Wl,--export="$e")
done
"$CLANG" --target=wasm32-wasi -O2 "${ldflags[@]}" "${objs[@]}" -o "$tmp/syntax.wasm" || die "link"

if [ "$check" = 1 ]; then
	[ -f "$COMMITTED" ] || die "$COMMITTED is missing (make wasm)"
	if ! cmp -s "$tmp/syntax.wasm" "$COMMITTED"; then
		die "$COMMITTED differs from what scripts/build-wasm.sh builds from these sources ($(wc -c <"$tmp/syntax.wasm") bytes against $(wc -c <"$COMMITTED")): run make wasm and commit it"
	fi
	echo "build-wasm: $COMMITTED is reproducible ($(wc -c <"$COMMITTED") bytes, $have)" >&2
	exit 0
fi
cp "$tmp/syntax.wasm" "$out"
echo "build-wasm: wrote $out ($(wc -c <"$out") bytes, $have)" >&2
