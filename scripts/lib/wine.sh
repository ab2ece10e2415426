# wine.sh: runs Windows binaries here, under Debian's wine64, for the
# scripts that test ctxls.exe (windows-test.sh, dist-test.sh). Sourced;
# needs die().
#
# wine_setup WORK: a fresh wine prefix under WORK (WINEPREFIX exported),
# with the test-only bcryptprimitives.dll shim that Go 1.26's runtime needs
# and wine 8.0 lacks (scripts/windows/), built with Debian's
# gcc-mingw-w64-x86-64. Sets $wine. wine_stop ends the prefix's
# wineserver, which outlives the programs it ran.

wine_setup() {
	local cc=${CC_WIN:-x86_64-w64-mingw32-gcc} lib
	lib=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	command -v "$cc" >/dev/null || die "$cc not found: install gcc-mingw-w64-x86-64 (make test-windows does)"
	wine=$(command -v wine64 || command -v wine || true)
	[ -n "$wine" ] || [ ! -x /usr/lib/wine/wine64 ] || wine=/usr/lib/wine/wine64
	[ -n "$wine" ] || die "wine64 not found: install wine64 (make test-windows does)"
	export WINEPREFIX=$1/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
	"$wine" wineboot --init >/dev/null 2>&1 || true
	local sys32=$WINEPREFIX/drive_c/windows/system32
	[ -d "$sys32" ] || die "wineboot made no prefix at $WINEPREFIX"
	"$cc" -shared -O2 -o "$sys32/bcryptprimitives.dll" "$lib/windows/bcryptprimitives.c" \
		"$lib/windows/bcryptprimitives.def" -ladvapi32
}

wine_stop() {
	[ -n "${WINEPREFIX:-}" ] || return 0
	"$(command -v wineserver || echo /usr/lib/wine/wineserver)" -k 2>/dev/null || true
}

# winpath P: the Windows spelling of the absolute Linux path P (wine maps
# the Linux root to drive Z:).
winpath() { local p=${1//\//\\}; printf 'Z:%s' "$p"; }

# wine_install: installs gcc-mingw-w64-x86-64 and wine64 when missing.
wine_install() {
	command -v x86_64-w64-mingw32-gcc >/dev/null &&
		{ command -v wine64 >/dev/null || command -v wine >/dev/null || [ -x /usr/lib/wine/wine64 ]; } && return 0
	echo "installing gcc-mingw-w64-x86-64 and wine64 (Debian packages: Windows binaries run here)" >&2
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-mingw-w64-x86-64 wine64 >/dev/null; } ||
		die "Windows binaries run here under wine64: install gcc-mingw-w64-x86-64 and wine64"
}
