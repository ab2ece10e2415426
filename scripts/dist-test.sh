#!/usr/bin/env bash
# dist-test.sh: checks what make dist left in dist/ as its users would use
# it (make test-dist):
#   - every file matches SHA256SUMS;
#   - every archive holds README.md and the binary for its platform (its
#     format and architecture); those that can run here run and name the
#     version: this machine's natively, linux/arm64 under qemu-user, the
#     Windows one under wine64 (scripts/lib/wine.sh), where it also gives
#     the Linux binary's context for a question, byte for byte;
#   - the review bot's install step installs ctxls from the archive
#     (CTXLS_RELEASE_URL=file://…/dist), checksum verified;
#   - the npm package, installed from its tarballs into an empty
#     directory, starts as `npx -y @ctxls/cli mcp` and answers the MCP
#     TypeScript SDK (testdata/mcp-client/npx.mjs); each platform package
#     is for node's os and cpu and carries the binary for them, and the
#     launcher, as on Windows, runs win32-x64's bin/ctxls.exe;
#   - each .vsix carries the server binary for its platform.
set -euo pipefail
cd "$(dirname "$0")/.."
die() {
	echo "dist-test: $*" >&2
	exit 1
}
[ -f dist/SHA256SUMS ] || die "no dist/SHA256SUMS: run make dist"
(cd dist && sha256sum -c --quiet SHA256SUMS) || die "a file of dist/ does not match SHA256SUMS"
echo "ok   every file matches SHA256SUMS"

. scripts/lib/wine.sh
. scripts/lib/platforms.sh
case $(uname -m) in
x86_64) arch=amd64 cpu=x64 ;;
aarch64) arch=arm64 cpu=arm64 ;;
*) die "no archive is made for $(uname -m)" ;;
esac
archive=$(cd dist && ls ctxls_v*_linux_"$arch".tar.gz)
version=${archive#ctxls_}
version=${version%_linux_"$arch".tar.gz}
npmversion=${version#v}
work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-dist-test-XXXXXX")
trap 'wine_stop; rm -rf "$work"' EXIT
host=$work/ctxls_${version}_linux_$arch/ctxls

command -v file >/dev/null || { apt-get update -qq && apt-get install -y -qq file >/dev/null; }
query="how are overlapping ranges merged"
n=0
for plat in linux/amd64 linux/arm64 darwin/arm64 darwin/amd64 windows/amd64; do
	os=${plat%/*} a=${plat#*/}
	name=ctxls_${version}_${os}_$a
	if [ "$os" = windows ]; then
		[ -f "dist/$name.zip" ] || die "no dist/$name.zip"
		unzip -q -d "$work" "dist/$name.zip"
		bin=$work/$name/ctxls.exe
	else
		[ -f "dist/$name.tar.gz" ] || die "no dist/$name.tar.gz"
		tar -C "$work" -xzf "dist/$name.tar.gz"
		bin=$work/$name/ctxls
	fi
	[ -f "$work/$name/README.md" ] || die "$name has no README.md"
	isfor "$bin" "$plat" "$name's binary"
	case $plat in
	linux/"$arch") got=$("$bin" version) how=natively ;;
	linux/arm64)
		command -v qemu-aarch64 >/dev/null || { apt-get update -qq && apt-get install -y -qq qemu-user >/dev/null; }
		got=$(qemu-aarch64 "$bin" version) how="under qemu-aarch64"
		;;
	linux/amd64) got=$(qemu-x86_64 "$bin" version) how="under qemu-x86_64" ;;
	windows/amd64)
		wine_install
		wine_setup "$work"
		got=$("$wine" "$bin" version | tr -d '\r') how="under $("$wine" --version 2>/dev/null || echo wine)"
		# The same context as the Linux binary's, for a question.
		"$host" assemble --root internal/ranges --cache-dir "$work/cache-linux" --git-history=false \
			--budget 800 --query "$query" >"$work/q-linux.md"
		"$wine" "$bin" assemble --root "$(winpath "$PWD/internal/ranges")" --cache-dir "$(winpath "$work/cache-win")" \
			--git-history=false --budget 800 --query "$query" >"$work/q-win.md" || die "$name: ctxls.exe assemble failed"
		[ -s "$work/q-linux.md" ] && cmp -s "$work/q-linux.md" "$work/q-win.md" ||
			die "$name: ctxls.exe's context differs from the Linux binary's: $(diff "$work/q-linux.md" "$work/q-win.md" | head -5)"
		ctx=", and gives the Linux binary's context byte for byte"
		;;
	*) got= how= ;;
	esac
	if [ -n "$how" ]; then
		[ "$got" = "ctxls $version" ] || die "$name: the binary says \"$got\", want \"ctxls $version\""
		echo "ok   $name: the binary runs $how, names $version${ctx:-}"
	else
		echo "ok   $name: $(file -b "$bin" | cut -d, -f1-2) (not run here)"
	fi
	n=$((n + 1))
done
echo "ok   $n archives"

out=$work/bot-outputs
GITHUB_OUTPUT=$out GITHUB_PATH= RUNNER_TEMP=$work CTXLS_INSTALL_DIR=$work/bin CTXLS_VERSION=$version CTXLS_RELEASE_URL=file://$PWD/dist \
	scripts/review-bot.sh install-release
bin=$(sed -n 's/^ctxls-bin=//p' "$out")
grep -qx 'release=true' "$out" || die "review-bot.sh install-release did not install the release archive"
[ "$("$bin" version)" = "ctxls $version" ] || die "review-bot.sh installed $bin, which does not name $version"
echo "ok   review-bot.sh install-release: $bin, checksum verified"

mkdir -p "$work/npx"
(cd "$work/npx" && npm install --no-audit --no-fund --loglevel=error \
	"$OLDPWD/dist/npm/ctxls-cli-linux-$cpu-$npmversion.tgz" "$OLDPWD/dist/npm/ctxls-cli-$npmversion.tgz" >/dev/null) ||
	die "npm install of the tarballs failed"
(cd testdata/mcp-client && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
node testdata/mcp-client/npx.mjs "$work/npx" "$PWD/internal/ranges" "$work/cache" "$version"

# Before the package is published: the tarballs installed globally (npm
# install -g, here under a prefix of its own), then `ctxls mcp` found on PATH
# and started from a project directory where nothing was installed.
mkdir -p "$work/global" "$work/project"
npm install -g --prefix "$work/global" --no-audit --no-fund --loglevel=error \
	"$PWD/dist/npm/ctxls-cli-linux-$cpu-$npmversion.tgz" "$PWD/dist/npm/ctxls-cli-$npmversion.tgz" >/dev/null ||
	die "npm install -g of the tarballs failed"
node testdata/mcp-client/npx.mjs "$work/project" "$PWD/internal/ranges" "$work/cache" "$version" "$work/global/bin"

# Each platform package: node's os and cpu, and the binary for them.
for np in linux-x64:linux/amd64 linux-arm64:linux/arm64 darwin-arm64:darwin/arm64 darwin-x64:darwin/amd64 win32-x64:windows/amd64; do
	target=${np%%:*} plat=${np#*:}
	tgz=dist/npm/ctxls-cli-$target-$npmversion.tgz
	[ -f "$tgz" ] || die "no $tgz"
	exe=ctxls
	[ "${target%-*}" != win32 ] || exe=ctxls.exe
	mkdir -p "$work/pkg-$target"
	tar -C "$work/pkg-$target" -xzf "$tgz"
	PKG=$work/pkg-$target/package/package.json WANT_OS=${target%-*} WANT_CPU=${target#*-} WANT_BIN=bin/$exe node -e '
		const e = process.env, p = JSON.parse(require("fs").readFileSync(e.PKG, "utf8"));
		const ok = p.name === `@ctxls/cli-${e.WANT_OS}-${e.WANT_CPU}` && p.os.join() === e.WANT_OS &&
			p.cpu.join() === e.WANT_CPU && p.files.join() === e.WANT_BIN;
		if (!ok) { console.error(`dist-test: ${e.PKG}: ${JSON.stringify(p)}`); process.exit(1); }' || die "$tgz: package.json is not for $target"
	isfor "$work/pkg-$target/package/bin/$exe" "$plat" "$tgz's bin/$exe"
	grep -q "\"@ctxls/cli-$target\"" <(tar -xzOf "dist/npm/ctxls-cli-$npmversion.tgz" package/package.json) ||
		die "the launcher package does not name @ctxls/cli-$target among its optional dependencies"
done
echo "ok   npm: five platform packages, each for its os and cpu, named by the launcher"
# The launcher as Windows runs it (process.platform win32): it runs the
# win32-x64 package's bin/ctxls.exe (here a Linux binary by that name).
fake=$work/fake-win32/node_modules
mkdir -p "$fake/@ctxls/cli-win32-x64/bin" "$fake/@ctxls"
tar -C "$fake/@ctxls" -xzf "dist/npm/ctxls-cli-$npmversion.tgz" && mv "$fake/@ctxls/package" "$fake/@ctxls/cli"
cp "$work/pkg-win32-x64/package/package.json" "$fake/@ctxls/cli-win32-x64/"
cp "$host" "$fake/@ctxls/cli-win32-x64/bin/ctxls.exe"
got=$(LAUNCHER="$fake/@ctxls/cli/bin/ctxls.js" node -e 'Object.defineProperty(process, "platform", { value: "win32" });
	Object.defineProperty(process, "arch", { value: "x64" });
	process.argv = [process.argv[0], "ctxls", "version"]; require(process.env.LAUNCHER);' 2>&1) ||
	die "the launcher, as on win32-x64, failed: $got"
[ "$got" = "ctxls $version" ] || die "the launcher, as on win32-x64, ran something else: $got"
echo "ok   the launcher on win32-x64 runs @ctxls/cli-win32-x64/bin/ctxls.exe"

nv=0
for vsix in dist/*.vsix; do
	[ -e "$vsix" ] || die "no .vsix in dist/"
	target=$(basename "$vsix")
	target=${target#ctxls-}
	target=${target%-"$npmversion".vsix}
	case $target in
	linux-x64) plat=linux/amd64 ;; linux-arm64) plat=linux/arm64 ;; darwin-arm64) plat=darwin/arm64 ;;
	darwin-x64) plat=darwin/amd64 ;; win32-x64) plat=windows/amd64 ;; *) die "$vsix: an unknown VS Code target $target" ;;
	esac
	exe=ctxls
	[ "$target" != win32-x64 ] || exe=ctxls.exe
	unzip -Z1 "$vsix" | grep -x "extension/bin/$exe" >/dev/null || die "$vsix carries no extension/bin/$exe"
	[ "$(unzip -Z1 "$vsix" | grep -c '^extension/bin/')" = 1 ] || die "$vsix carries more than its platform's binary"
	unzip -p "$vsix" extension.vsixmanifest | grep "TargetPlatform=\"$target\"" >/dev/null || die "$vsix is not made for $target"
	unzip -p "$vsix" "extension/bin/$exe" >"$work/vsix-bin"
	isfor "$work/vsix-bin" "$plat" "$vsix's extension/bin/$exe"
	echo "ok   $vsix: the server binary, for $target"
	nv=$((nv + 1))
done
[ -z "${DIST_VSIX_COUNT:-5}" ] || [ "$nv" = "${DIST_VSIX_COUNT:-5}" ] || die "$nv .vsix files in dist/, want ${DIST_VSIX_COUNT:-5}"
echo "dist-test: all checks passed"
