#!/usr/bin/env bash
# dist.sh: ctxls's release artifacts, in dist/ (make dist).
#
#   ctxls_VERSION_linux_amd64.tar.gz   the binary (ctxls) and README.md
#   ctxls_VERSION_linux_arm64.tar.gz
#   ctxls_VERSION_darwin_arm64.tar.gz
#   ctxls_VERSION_darwin_amd64.tar.gz
#   ctxls_VERSION_windows_amd64.zip    ctxls.exe and README.md
#   SHA256SUMS                         sha256sum's format, of every file above and below
#   npm/ctxls-cli-NPMVERSION.tgz       the npm launcher package @ctxls/cli
#   npm/ctxls-cli-OS-CPU-NPMVERSION.tgz
#                                      its per-platform binaries (optional
#                                      dependencies), OS-CPU in node's names:
#                                      linux-x64, linux-arm64, darwin-arm64,
#                                      darwin-x64, win32-x64
#   ctxls-OS-CPU-NPMVERSION.vsix       the VS Code extension with the server
#                                      binary inside, per VS Code target (the
#                                      same five)
#
# VERSION is $DIST_VERSION (a release: v1.2.3), else the tag at HEAD, else
# v0.0.0-dev.gCOMMIT; NPMVERSION is VERSION without its "v". The binaries
# name it (`ctxls version`). DIST_TARGETS chooses the platforms (default
# all five, "linux/amd64 linux/arm64 darwin/arm64 darwin/amd64
# windows/amd64"); DIST_VSIX=0 skips the VS Code packages (they need node
# and npm).
#
# Which build each platform gets (docs/architecture.md, "Two builds";
# docs/benchmarks.md, "Pure-Go build"):
#   - linux: cgo (tree-sitter compiled natively, the faster cold index),
#     linked statically (netgo, osusergo), so the binary needs no glibc of
#     any version; linux/arm64 is cross-compiled with Debian's
#     aarch64-linux-gnu-gcc, installed with apt-get when missing;
#   - darwin and windows: without cgo (CGO_ENABLED=0: tree-sitter as
#     WebAssembly under wazero), the code CI runs in full on Linux
#     (make test-wasm, TestWithoutCgo, make test-windows); no C compiler or
#     Apple SDK is needed.
#
# Each binary is checked for its format and architecture, and run
# (`ctxls version`) where it can be: natively, linux/arm64 under qemu-user
# (Debian's qemu-user, installed when missing); make test-dist runs the
# Windows one under wine and checks every package.
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
	echo "dist: $*" >&2
	exit 1
}
log() { echo "dist: $*" >&2; }

apt_install() {
	log "installing $* (Debian packages)"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; } ||
		die "cannot install $* (apt-get): install them, or set DIST_TARGETS to the platforms this machine can build"
}

version=${DIST_VERSION:-$(git describe --tags --exact-match 2>/dev/null || echo "v0.0.0-dev.g$(git rev-parse --short=12 HEAD)")}
case $version in
v[0-9]*) ;;
*) die "version $version: want vMAJOR.MINOR.PATCH[-PRERELEASE]" ;;
esac
npmversion=${version#v}
targets=${DIST_TARGETS:-linux/amd64 linux/arm64 darwin/arm64 darwin/amd64 windows/amd64}
out=dist
rm -rf "$out"
mkdir -p "$out/npm"
work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-dist-XXXXXX")
trap 'rm -rf "$work"' EXIT
host=$(go env GOOS)/$(go env GOARCH)

# cc_for TARGET: the C compiler for a Linux target (installed when
# missing).
cc_for() {
	case $1 in
	"$host") echo "${CC:-gcc}" ;;
	linux/arm64)
		command -v aarch64-linux-gnu-gcc >/dev/null || apt_install gcc-aarch64-linux-gnu libc6-dev-arm64-cross
		echo aarch64-linux-gnu-gcc
		;;
	linux/amd64)
		command -v x86_64-linux-gnu-gcc >/dev/null || apt_install gcc-x86-64-linux-gnu libc6-dev-amd64-cross
		echo x86_64-linux-gnu-gcc
		;;
	*) die "$1: not a supported Linux target (linux/amd64, linux/arm64)" ;;
	esac
}

# build TARGET OUT: ctxls for TARGET, written to OUT.
build() {
	local os=${1%/*} arch=${1#*/} ldflags="-s -w -X main.releaseVersion=$version"
	case $os in
	linux)
		local cc
		cc=$(cc_for "$1")
		log "building $1 with cgo ($cc), linked statically"
		CGO_ENABLED=1 GOOS=$os GOARCH=$arch CC=$cc go build -trimpath -buildvcs=false -tags netgo,osusergo \
			-ldflags "$ldflags -linkmode external -extldflags -static" -o "$2" ./cmd/ctxls
		;;
	darwin | windows)
		log "building $1 without cgo"
		CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$2" ./cmd/ctxls
		;;
	*) die "$1: not a supported target (linux/amd64, linux/arm64, darwin/arm64, darwin/amd64, windows/amd64)" ;;
	esac
}

# run_binary TARGET BIN: runs `BIN version` natively or under qemu-user and
# prints what it printed; prints nothing for a target that cannot run here.
run_binary() {
	case $1 in
	"$host") "$2" version ;;
	linux/arm64)
		command -v qemu-aarch64 >/dev/null || apt_install qemu-user
		qemu-aarch64 "$2" version
		;;
	linux/amd64)
		command -v qemu-x86_64 >/dev/null || apt_install qemu-user
		qemu-x86_64 "$2" version
		;;
	esac
}

. scripts/lib/platforms.sh

# The VS Code extension, compiled once; each platform's package adds its
# binary as bin/ctxls.
ext=
if [ "${DIST_VSIX:-1}" != 0 ]; then
	ext=$work/vscode
	mkdir -p "$ext/bin"
	(cd editors/vscode && git ls-files -z | xargs -0 -I{} cp --parents {} "$ext/")
	(cd "$ext" && npm ci --no-audit --no-fund --loglevel=error >/dev/null && npx tsc -p .) ||
		die "the VS Code extension does not build"
fi

command -v file >/dev/null || apt_install file
for t in $targets; do
	os=${t%/*}
	arch=${t#*/}
	exe=ctxls
	[ "$os" != windows ] || exe=ctxls.exe
	name=ctxls_${version}_${os}_${arch}
	mkdir -p "$work/$name"
	build "$t" "$work/$name/$exe"
	cp README.md "$work/$name/"
	isfor "$work/$name/$exe" "$t" "$t's build"
	got=$(run_binary "$t" "$work/$name/$exe") || die "$t: the binary does not run: $got"
	if [ -n "$got" ]; then
		[ "$got" = "ctxls $version" ] || die "$t: the binary says \"$got\", want \"ctxls $version\""
		log "$t: runs here: $got"
	else
		log "$t: $(file -b "$work/$name/$exe" | cut -d, -f1) (not run here$( [ "$os" != windows ] || echo ": make test-dist runs it under wine"))"
	fi
	if [ "$os" = windows ]; then
		# A zip, as Windows users expect; its entries dated 1980-01-01 (zip's
		# earliest), in name order, without extra fields: reproducible.
		command -v zip >/dev/null || apt_install zip
		find "$work/$name" -exec touch -h -d '1980-01-01 00:00:00 UTC' {} +
		(cd "$work" && find "$name" -type f | LC_ALL=C sort | TZ=UTC zip -X -q -D "$OLDPWD/$out/$name.zip" -@)
	else
		tar -C "$work" --owner=0 --group=0 --numeric-owner --mtime=@0 --sort=name -czf "$out/$name.tar.gz" "$name"
	fi

	# The npm platform package: the binary, for node's os and cpu.
	cpu=$(npm_cpu "$arch")
	nos=$(npm_os "$os")
	pkg=$work/npm-$nos-$cpu
	mkdir -p "$pkg/bin"
	cp "$work/$name/$exe" "$pkg/bin/$exe"
	sed "s/OS-CPU/$nos-$cpu/g" packaging/npm/platform-README.md >"$pkg/README.md"
	PKG_NAME=@ctxls/cli-$nos-$cpu PKG_VERSION=$npmversion PKG_OS=$nos PKG_CPU=$cpu PKG_BIN=bin/$exe node -e '
		const e = process.env;
		process.stdout.write(JSON.stringify({
			name: e.PKG_NAME, version: e.PKG_VERSION,
			description: `The ctxls binary for ${e.PKG_OS}-${e.PKG_CPU} (installed by @ctxls/cli)`,
			license: "UNLICENSED", os: [e.PKG_OS], cpu: [e.PKG_CPU], files: [e.PKG_BIN],
			preferUnplugged: true,
		}, null, 2) + "\n");' >"$pkg/package.json"
	(cd "$pkg" && npm pack --silent --pack-destination "$OLDPWD/$out/npm" >/dev/null)
	optional="${optional:+$optional,}\"@ctxls/cli-$nos-$cpu\":\"$npmversion\""

	# The VS Code extension for this platform, with the binary inside.
	if [ -n "$ext" ]; then
		rm -f "$ext/bin/ctxls" "$ext/bin/ctxls.exe"
		cp "$work/$name/$exe" "$ext/bin/$exe"
		(cd "$ext" && npx vsce package --no-git-tag-version --no-update-package-json --skip-license --allow-missing-repository \
			--target "$nos-$cpu" -o "$OLDPWD/$out/ctxls-$nos-$cpu-$npmversion.vsix" "$npmversion" >/dev/null) ||
			die "$t: the VS Code package failed"
	fi
done

# The npm launcher package, with the platform packages as optional
# dependencies.
pkg=$work/npm-cli
cp -r packaging/npm/cli "$pkg"
PKG_VERSION=$npmversion PKG_OPTIONAL="{$optional}" node -e '
	const e = process.env;
	process.stdout.write(JSON.stringify({
		name: "@ctxls/cli", version: e.PKG_VERSION,
		description: "ctxls, the context engine for coding assistants: a language server, an MCP server and a CLI",
		license: "UNLICENSED", bin: { ctxls: "bin/ctxls.js" }, files: ["bin/ctxls.js"],
		engines: { node: ">=18" }, optionalDependencies: JSON.parse(e.PKG_OPTIONAL),
	}, null, 2) + "\n");' >"$pkg/package.json"
(cd "$pkg" && npm pack --silent --pack-destination "$OLDPWD/$out/npm" >/dev/null)

(cd "$out" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
log "version $version: $(cd "$out" && find . -type f | wc -l) files in $out/"
cat "$out/SHA256SUMS"
