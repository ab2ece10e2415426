#!/usr/bin/env bash
# dist.sh: ctxls's release artifacts, in dist/ (make dist).
#
#   ctxls_VERSION_linux_amd64.tar.gz   the binary (ctxls) and README.md
#   ctxls_VERSION_linux_arm64.tar.gz
#   SHA256SUMS                         sha256sum's format, of every file above and below
#   npm/ctxls-cli-NPMVERSION.tgz       the npm launcher package @ctxls/cli
#   npm/ctxls-cli-linux-x64-NPMVERSION.tgz, npm/ctxls-cli-linux-arm64-NPMVERSION.tgz
#                                      its per-platform binaries (optional dependencies)
#   ctxls-linux-x64-NPMVERSION.vsix, ctxls-linux-arm64-NPMVERSION.vsix
#                                      the VS Code extension with the server binary inside
#
# VERSION is $DIST_VERSION (a release: v1.2.3), else the tag at HEAD, else
# v0.0.0-dev.gCOMMIT; NPMVERSION is VERSION without its "v". The binaries
# name it (`ctxls version`). DIST_TARGETS chooses the platforms (default
# "linux/amd64 linux/arm64"); DIST_VSIX=0 skips the VS Code packages (they
# need node and npm).
#
# ctxls uses cgo (tree-sitter), so every target needs a C compiler for it:
# linux/arm64 is cross-compiled with Debian's aarch64-linux-gnu-gcc,
# installed with apt-get when missing. darwin is not built: cgo for it needs
# Apple's SDK, which no package registry reachable here provides (build on a
# Mac: `make build`).
#
# Each archive's binary is run (`ctxls version`) where it can be: natively,
# or under qemu-user for another architecture (Debian's qemu-user, installed
# when missing); one that cannot be run here is said so, not skipped quietly.
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
targets=${DIST_TARGETS:-linux/amd64 linux/arm64}
out=dist
rm -rf "$out"
mkdir -p "$out/npm"
work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-dist-XXXXXX")
trap 'rm -rf "$work"' EXIT
host=$(go env GOOS)/$(go env GOARCH)

# cc_for TARGET: the C compiler for a target (installed when missing).
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
	darwin/*) die "$1: cgo for darwin needs Apple's SDK, which is not available here; build on a Mac (make build)" ;;
	*) die "$1: not a supported target (linux/amd64, linux/arm64)" ;;
	esac
}

# run_binary TARGET BIN: runs `BIN version` natively or under qemu-user;
# prints what it printed.
run_binary() {
	case $1 in
	"$host") "$2" version ;;
	linux/arm64)
		command -v qemu-aarch64 >/dev/null || apt_install qemu-user
		qemu-aarch64 -L /usr/aarch64-linux-gnu "$2" version
		;;
	linux/amd64)
		command -v qemu-x86_64 >/dev/null || apt_install qemu-user
		qemu-x86_64 -L /usr/x86_64-linux-gnu "$2" version
		;;
	esac
}

# npm's names: node's process.platform and process.arch.
npm_cpu() { case $1 in amd64) echo x64 ;; *) echo "$1" ;; esac }

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

for t in $targets; do
	os=${t%/*}
	arch=${t#*/}
	cc=$(cc_for "$t")
	name=ctxls_${version}_${os}_${arch}
	log "building $t with $cc"
	mkdir -p "$work/$name"
	CGO_ENABLED=1 GOOS=$os GOARCH=$arch CC=$cc go build -trimpath -buildvcs=false \
		-ldflags "-s -w -X main.releaseVersion=$version" -o "$work/$name/ctxls" ./cmd/ctxls
	cp README.md "$work/$name/"
	got=$(run_binary "$t" "$work/$name/ctxls") || die "$t: the binary does not run: $got"
	[ "$got" = "ctxls $version" ] || die "$t: the binary says \"$got\", want \"ctxls $version\""
	log "$t: runs here: $got"
	tar -C "$work" --owner=0 --group=0 --numeric-owner --mtime=@0 --sort=name -czf "$out/$name.tar.gz" "$name"

	# The npm platform package: the binary, for node's os and cpu.
	cpu=$(npm_cpu "$arch")
	pkg=$work/npm-$os-$cpu
	mkdir -p "$pkg/bin"
	cp "$work/$name/ctxls" "$pkg/bin/ctxls"
	sed "s/OS-CPU/$os-$cpu/g" packaging/npm/platform-README.md >"$pkg/README.md"
	PKG_NAME=@ctxls/cli-$os-$cpu PKG_VERSION=$npmversion PKG_OS=$os PKG_CPU=$cpu node -e '
		const e = process.env;
		process.stdout.write(JSON.stringify({
			name: e.PKG_NAME, version: e.PKG_VERSION,
			description: `The ctxls binary for ${e.PKG_OS}-${e.PKG_CPU} (installed by @ctxls/cli)`,
			license: "UNLICENSED", os: [e.PKG_OS], cpu: [e.PKG_CPU], files: ["bin/ctxls"],
			preferUnplugged: true,
		}, null, 2) + "\n");' >"$pkg/package.json"
	(cd "$pkg" && npm pack --silent --pack-destination "$OLDPWD/$out/npm" >/dev/null)
	optional="${optional:+$optional,}\"@ctxls/cli-$os-$cpu\":\"$npmversion\""

	# The VS Code extension for this platform, with the binary inside.
	if [ -n "$ext" ]; then
		cp "$work/$name/ctxls" "$ext/bin/ctxls"
		(cd "$ext" && npx vsce package --no-git-tag-version --no-update-package-json --skip-license --allow-missing-repository \
			--target "$os-$cpu" -o "$OLDPWD/$out/ctxls-$os-$cpu-$npmversion.vsix" "$npmversion" >/dev/null) ||
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
