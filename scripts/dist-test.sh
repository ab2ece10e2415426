#!/usr/bin/env bash
# dist-test.sh: checks what make dist left in dist/ as its users would use
# it (make test-dist):
#   - every file matches SHA256SUMS;
#   - this machine's archive's binary runs and names the version;
#   - the review bot's install step installs ctxls from the archive
#     (CTXLS_RELEASE_URL=file://…/dist), checksum verified;
#   - the npm package, installed from its tarballs into an empty
#     directory, starts as `npx -y @ctxls/cli mcp` and answers the MCP
#     TypeScript SDK (testdata/mcp-client/npx.mjs);
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

case $(uname -m) in
x86_64) arch=amd64 cpu=x64 ;;
aarch64) arch=arm64 cpu=arm64 ;;
*) die "no archive is made for $(uname -m)" ;;
esac
archive=$(cd dist && ls ctxls_v*_linux_"$arch".tar.gz)
version=${archive#ctxls_}
version=${version%_linux_"$arch".tar.gz}
work=$(mktemp -d "${TMPDIR:-/tmp}/ctxls-dist-test-XXXXXX")
trap 'rm -rf "$work"' EXIT

tar -C "$work" -xzf "dist/$archive"
[ "$("$work/ctxls_${version}_linux_$arch/ctxls" version)" = "ctxls $version" ] || die "$archive: the binary does not name $version"
echo "ok   $archive: the binary runs and names $version"

out=$work/bot-outputs
GITHUB_OUTPUT=$out GITHUB_PATH= RUNNER_TEMP=$work CTXLS_VERSION=$version CTXLS_RELEASE_URL=file://$PWD/dist \
	scripts/review-bot.sh install-release
bin=$(sed -n 's/^ctxls-bin=//p' "$out")
grep -qx 'release=true' "$out" || die "review-bot.sh install-release did not install the release archive"
[ "$("$bin" version)" = "ctxls $version" ] || die "review-bot.sh installed $bin, which does not name $version"
echo "ok   review-bot.sh install-release: $bin, checksum verified"

npmversion=${version#v}
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

for vsix in dist/*.vsix; do
	[ -e "$vsix" ] || die "no .vsix in dist/"
	target=$(basename "$vsix")
	target=${target#ctxls-}
	target=${target%-"$npmversion".vsix}
	unzip -Z1 "$vsix" | grep -x 'extension/bin/ctxls' >/dev/null || die "$vsix carries no extension/bin/ctxls"
	unzip -p "$vsix" extension.vsixmanifest | grep "TargetPlatform=\"$target\"" >/dev/null || die "$vsix is not made for $target"
	echo "ok   $vsix: the server binary, for $target"
done
echo "dist-test: all checks passed"
