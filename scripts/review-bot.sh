#!/usr/bin/env bash
# review-bot.sh: the logic of the ctxls GitHub Action (action.yml), usable
# by any CI: environment variables in, files out. See docs/review-bots.md.
#
#   review-bot.sh prepare   resolve the base commit; print the index cache
#                           directory and cache keys (outputs)
#   review-bot.sh install   install ctxls CTXLS_VERSION (else the action's
#                           ref): its release archive for this runner,
#                           checksum verified, else go install of that
#                           version; with neither, the action's own checkout
#   review-bot.sh install-release   the release archive only (output
#                           release=true|false)
#   review-bot.sh run       refresh (or build) the index, assemble the
#                           context of the diff BASE...HEAD, write the files,
#                           the outputs and the step summary
#   review-bot.sh reduce-diff IN OUT   write to OUT the diff IN reduced to
#                           what ctxls reads (16 MiB), as run does with a
#                           larger diff; print how many files' changes it
#                           left out
#
# Inputs (environment; all optional):
#   CTXLS_ROOT        workspace root (default $GITHUB_WORKSPACE, else .)
#   CTXLS_BASE_REF    base branch, ref or commit (default $GITHUB_BASE_REF);
#                     empty: no pull request, `run` only builds or refreshes
#                     the index (a push to the base branch warming the cache)
#   CTXLS_HEAD_REF    the pull request's commit (default HEAD)
#   CTXLS_BUDGET      token budget (default 8000)
#   CTXLS_FORMAT      markdown, xml or json (default markdown)
#   CTXLS_ENCODING    cl100k_base, o200k_base or approx (default cl100k_base)
#   CTXLS_MODE        review (default: the changed code, its callers and the
#                     definitions it uses) or related (also what the diff's
#                     words match and what else may have to change with it)
#   CTXLS_QUERY       text to retrieve for besides the diff (e.g. the pull
#                     request's title); passed through a file, never a shell
#   CTXLS_EXTRA_ARGS  more `ctxls assemble` arguments, quoted as in a shell
#                     ('...' and "..." group; nothing is expanded or run)
#   CTXLS_INDEX_DIR   the index directory, the path actions/cache keeps
#                     (default $RUNNER_TEMP/ctxls-index)
#   CTXLS_OUT_DIR     where the files go (default $RUNNER_TEMP/ctxls-review)
#   CTXLS_BIN         the ctxls binary (default: ctxls on PATH, else where
#                     go install puts it, else CTXLS_INSTALL_DIR's)
#   CTXLS_INSTALL_DIR where install copies a release's binary when the CI
#                     has no GITHUB_PATH (default where go install puts
#                     binaries, else ~/.local/bin)
#   CTXLS_CACHE_MATCHED_KEY  the key actions/cache restored (for the summary)
#   CTXLS_VERSION, CTXLS_ACTION_REF, CTXLS_ACTION_PATH  for install
#   CTXLS_RELEASE_URL where install finds the release's archives and
#                     SHA256SUMS (default the GitHub release of the version,
#                     https://github.com/ctxls/ctxls/releases/download/VERSION;
#                     any URL curl reads, file:// too)
#   GITHUB_OUTPUT, GITHUB_STEP_SUMMARY  files appended to (default
#                     $CTXLS_OUT_DIR/outputs and $CTXLS_OUT_DIR/summary.md)
#
# Files written by run, in CTXLS_OUT_DIR: context.md|.xml|.json (the
# rendered context), result.json (`ctxls assemble --json`, see
# docs/result.schema.json), diff.patch (the diff BASE...HEAD),
# diff.reduced.patch (when diff.patch is over the 16 MiB ctxls reads: the
# diff the context is for, without the changes of its largest files),
# index.json (`ctxls index --json`: what the refresh read and changed).
# None of them is ever context, whatever the repository's ignore files say.
set -euo pipefail

module=github.com/ctxls/ctxls

# fail STATUS MESSAGE…: says MESSAGE (as a GitHub error annotation in an
# action) and exits with STATUS; die is fail 1.
fail() {
	local status=$1
	shift
	if [ "${GITHUB_ACTIONS:-}" = true ]; then
		echo "::error title=ctxls::$*" >&2
	else
		echo "review-bot: $*" >&2
	fi
	exit "$status"
}

die() { fail 1 "$@"; }

log() { echo "review-bot: $*" >&2; }

tmpbase=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
root=${CTXLS_ROOT:-${GITHUB_WORKSPACE:-.}}
index_dir=${CTXLS_INDEX_DIR:-$tmpbase/ctxls-index}
out_dir=${CTXLS_OUT_DIR:-$tmpbase/ctxls-review}
encoding=${CTXLS_ENCODING:-cl100k_base}
budget=${CTXLS_BUDGET:-8000}
format=${CTXLS_FORMAT:-markdown}
context_mode=${CTXLS_MODE:-review}
base_ref=${CTXLS_BASE_REF-${GITHUB_BASE_REF:-}}
head_ref=${CTXLS_HEAD_REF:-HEAD}
# The largest diff ctxls reads (retrieve.MaxDiffBytes, 16 MiB); a larger
# one is reduced to it (reduce_diff).
max_diff=16777216
# The index depends on the encoding (its token counts) and the runner's
# operating system; anything else that differs is refreshed by ctxls.
key_prefix="ctxls-index-v1-${RUNNER_OS:-$(uname -s)}-$encoding-"

# output NAME VALUE appends one output (single-line values only).
output() {
	local file=${GITHUB_OUTPUT:-$out_dir/outputs}
	mkdir -p "$(dirname "$file")"
	printf '%s=%s\n' "$1" "$2" >>"$file"
}

summary() {
	local file=${GITHUB_STEP_SUMMARY:-$out_dir/summary.md}
	mkdir -p "$(dirname "$file")"
	cat >>"$file"
}

git_root() { git -C "$root" "$@"; }

# commit_of REV prints the commit REV names, or fails.
commit_of() { git_root rev-parse --verify --quiet "$1^{commit}"; }

# resolve_base prints the base commit: CTXLS_BASE_REF as a remote-tracking
# branch of origin, as a local ref or commit, else fetched from origin.
resolve_base() {
	local c
	for r in "refs/remotes/origin/$base_ref" "$base_ref"; do
		if c=$(commit_of "$r"); then
			echo "$c"
			return
		fi
	done
	log "fetching $base_ref from origin"
	git_root fetch --no-tags --quiet origin "$base_ref" >&2 ||
		die "base $base_ref: not a commit or ref here, and git fetch origin $base_ref failed"
	commit_of FETCH_HEAD || die "base $base_ref: fetched, but FETCH_HEAD is not a commit"
}

# merge_base BASE HEAD prints their merge base; in a shallow clone it
# fetches the missing history first (checkout with fetch-depth: 0 avoids
# that).
merge_base() {
	local mb
	if mb=$(git_root merge-base "$1" "$2" 2>/dev/null); then
		echo "$mb"
		return
	fi
	if [ "$(git_root rev-parse --is-shallow-repository)" = true ]; then
		log "shallow clone: fetching the history to find the merge base of $1 and $2"
		git_root fetch --no-tags --quiet --unshallow origin >&2 || die "git fetch --unshallow origin failed"
		git_root fetch --no-tags --quiet origin "$1" >&2 || true
		if mb=$(git_root merge-base "$1" "$2" 2>/dev/null); then
			echo "$mb"
			return
		fi
	fi
	die "$1 and $2 have no merge base"
}

# install_dir prints where install leaves a release's binary for the steps
# that follow in a new shell when the CI has no GITHUB_PATH (GitLab's
# script lines): CTXLS_INSTALL_DIR, else where go install puts binaries
# (the recipes put it on PATH), else ~/.local/bin.
install_dir() {
	if [ -n "${CTXLS_INSTALL_DIR:-}" ]; then
		echo "$CTXLS_INSTALL_DIR"
	elif command -v go >/dev/null 2>&1; then
		gobin
	else
		echo "$HOME/.local/bin"
	fi
}

# gobin prints where go install puts binaries.
gobin() {
	local d
	d=$(go env GOBIN)
	if [ -z "$d" ]; then
		d="$(go env GOPATH)/bin"
	fi
	echo "$d"
}

ctxls_bin() {
	if [ -n "${CTXLS_BIN:-}" ]; then
		echo "$CTXLS_BIN"
	elif command -v ctxls >/dev/null 2>&1; then
		command -v ctxls
	elif command -v go >/dev/null 2>&1 && [ -x "$(gobin)/ctxls" ]; then
		echo "$(gobin)/ctxls"
	elif [ -x "$(install_dir)/ctxls" ]; then
		echo "$(install_dir)/ctxls"
	else
		die "ctxls not found: run review-bot.sh install, or set CTXLS_BIN"
	fi
}

cmd_prepare() {
	git_root rev-parse --git-dir >/dev/null 2>&1 || die "$root is not in a git repository"
	local head base mode
	head=$(commit_of "$head_ref") || die "head $head_ref: not a commit"
	if [ -n "$base_ref" ]; then
		mode=pull-request
		base=$(resolve_base)
		merge_base "$base" "$head" >/dev/null
	else
		# No pull request: this run keeps the index of this commit for the
		# pull requests based on it.
		mode=index
		base=$head
	fi
	output mode "$mode"
	output base-sha "$base"
	output head-sha "$head"
	output cache-dir "$index_dir"
	output cache-key "$key_prefix$base"
	output cache-restore-key "$key_prefix"
}

# install_release VERSION: downloads the release archive of VERSION for
# this machine and its SHA256SUMS from CTXLS_RELEASE_URL, checks the
# archive's checksum and unpacks it; prints the binary's path. Returns 1
# when the release has no such archive (a branch or a commit is not a
# release); exits 2, saying why, when the archive cannot be trusted (no
# checksum, a mismatch) or unpacked.
release_bad() { fail 2 "$@"; }

install_release() {
	local version=$1 arch base name dir
	case $(uname -m) in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) return 1 ;;
	esac
	[ "$(uname -s)" = Linux ] || return 1
	command -v curl >/dev/null 2>&1 || return 1
	base=${CTXLS_RELEASE_URL:-https://github.com/ctxls/ctxls/releases/download/$version}
	name=ctxls_${version}_linux_${arch}.tar.gz
	dir=$tmpbase/ctxls-release-$version
	rm -rf "$dir"
	mkdir -p "$dir"
	curl -fsSL --retry 2 --connect-timeout 10 -o "$dir/$name" "$base/$name" 2>/dev/null || return 1
	curl -fsSL --retry 2 --connect-timeout 10 -o "$dir/SHA256SUMS" "$base/SHA256SUMS" 2>/dev/null ||
		release_bad "$base/$name has no SHA256SUMS beside it: not installing an archive that cannot be verified"
	grep -q "  $name\$" "$dir/SHA256SUMS" || release_bad "$base/SHA256SUMS does not list $name"
	(cd "$dir" && grep "  $name\$" SHA256SUMS | sha256sum -c --quiet >/dev/null 2>&1) ||
		release_bad "$base/$name does not match its checksum in SHA256SUMS"
	tar -C "$dir" -xzf "$dir/$name" || release_bad "cannot unpack $name"
	[ -x "$dir/ctxls_${version}_linux_${arch}/ctxls" ] || release_bad "$name has no ctxls binary"
	log "installed the release archive $base/$name (checksum verified)"
	echo "$dir/ctxls_${version}_linux_${arch}/ctxls"
}

# use_bin BIN: BIN is the ctxls to run: the ctxls-bin output, and its
# directory on the runner's PATH.
use_bin() {
	output ctxls-bin "$1"
	if [ -n "${GITHUB_PATH:-}" ]; then
		dirname "$1" >>"$GITHUB_PATH"
	fi
}

# keep_release BIN: a release's binary, unpacked in a temporary directory,
# where the next steps find it: on GitHub the runner's PATH names that
# directory (use_bin); elsewhere it is copied to install_dir, which the
# recipes put on PATH and ctxls_bin looks in. Prints the binary to use.
keep_release() {
	if [ -n "${GITHUB_PATH:-}" ]; then
		echo "$1"
		return 0
	fi
	local dir
	dir=$(install_dir)
	mkdir -p "$dir" || release_bad "cannot create $dir (CTXLS_INSTALL_DIR)"
	cp "$1" "$dir/ctxls.tmp.$$" && chmod 755 "$dir/ctxls.tmp.$$" && mv -f "$dir/ctxls.tmp.$$" "$dir/ctxls" ||
		release_bad "cannot install ctxls into $dir (CTXLS_INSTALL_DIR)"
	log "ctxls is in $dir: put it on PATH (the recipes do) or set CTXLS_BIN"
	echo "$dir/ctxls"
}

# try_release VERSION: installs VERSION's release archive and uses it
# (install_release); fails (1) when there is none, exits when it cannot
# be trusted.
try_release() {
	local bin rc=0
	bin=$(install_release "$1") || rc=$?
	case $rc in
	0) bin=$(keep_release "$bin") || exit 1
		use_bin "$bin" ;;
	1) return 1 ;;
	*) exit 1 ;;
	esac
}

# cmd_install_release: the release archive only (the action runs it before
# deciding whether Go is needed); output release=true with ctxls-bin, or
# release=false.
cmd_install_release() {
	local version=${CTXLS_VERSION:-${CTXLS_ACTION_REF:-}}
	if [ -n "$version" ] && try_release "$version"; then
		output release true
		return 0
	fi
	[ -z "$version" ] || log "no release archive of $version for this runner"
	output release false
}

cmd_install() {
	local version=${CTXLS_VERSION:-${CTXLS_ACTION_REF:-}}
	if [ -n "$version" ]; then
		try_release "$version" && return 0
		log "no release archive of $version for this runner: building it with go install"
	fi
	command -v go >/dev/null 2>&1 || die "go is not installed (actions/setup-go), and no release archive of ${version:-this action} was found"
	export CGO_ENABLED=1 # tree-sitter
	if [ -n "$version" ]; then
		log "go install $module/cmd/ctxls@$version"
		go install "$module/cmd/ctxls@$version" || die "go install $module/cmd/ctxls@$version failed"
	elif [ -n "${CTXLS_ACTION_PATH:-}" ] && grep -q "^module $module\$" "$CTXLS_ACTION_PATH/go.mod" 2>/dev/null; then
		# Used as a local action (uses: ./) or the runner gave no ref: the
		# action's directory is the source at the ref it is used at.
		log "go install ./cmd/ctxls in $CTXLS_ACTION_PATH"
		(cd "$CTXLS_ACTION_PATH" && go install ./cmd/ctxls) || die "go install ./cmd/ctxls in $CTXLS_ACTION_PATH failed"
	else
		die "no ctxls version: set CTXLS_VERSION (a tag, branch or commit of $module)"
	fi
	local bin
	bin="$(gobin)/ctxls"
	[ -x "$bin" ] || die "go install left no $bin"
	use_bin "$bin"
}

# ignore_in_repo keeps a directory of the script's inside the repository
# (GitLab caches and keeps only paths there: the index directory, the
# output directory) out of the index: it is added to the repository's
# info/exclude, which ctxls's walk honours. Otherwise a run would index
# the last run's context and diff as code of the repository.
ignore_in_repo() {
	local top dir rel exclude
	top=$(cd "$(git_root rev-parse --show-toplevel)" && pwd -P)
	dir=$(cd "$1" && pwd -P)
	case $dir/ in
	"$top"/*) rel=${dir#"$top"/} ;;
	*) return 0 ;;
	esac
	if git -C "$top" check-ignore -q --no-index "$rel/"; then
		return 0
	fi
	exclude=$(git -C "$top" rev-parse --path-format=absolute --git-path info/exclude)
	mkdir -p "$(dirname "$exclude")"
	printf '/%s/\n' "$rel" >>"$exclude"
	log "added /$rel/ to $exclude (the $2 directory is inside the repository)"
}

# own_globs DIR prints, one a line, `ctxls assemble --exclude` globs (on
# paths relative to the root) that match the script's files in DIR, its
# output directory, when DIR is in the root: the whole directory, or the
# files by name when DIR is the root itself. The repository's ignore
# files cannot re-include what --exclude leaves out of the context (a
# pull request's .ctxlsignore may say "!*": info/exclude, where
# ignore_in_repo puts the directory, is the weakest of them).
own_globs() {
	local top dir rel f
	top=$(cd "$root" && pwd -P)
	dir=$(cd "$1" && pwd -P)
	case $dir/ in
	"$top"/) rel= ;;
	"$top"/*) rel=${dir#"$top"/} ;;
	*) return 0 ;;
	esac
	# Glob characters in the path stand for themselves.
	rel=$(printf '%s' "$rel" | sed 's/[][*?{}\\]/\\&/g')
	if [ -n "$rel" ]; then
		printf '%s/**\n' "$rel"
		return 0
	fi
	for f in context.md context.xml context.json result.json diff.patch diff.reduced.patch index.json query.txt outputs summary.md; do
		printf '%s\n' "$f"
	done
}

# reduce_diff IN OUT LIMIT writes to OUT the diff IN without the changes
# of its largest files, dropped whole (the file's section, from its
# "diff --git" line), largest first, until what remains is at most LIMIT
# bytes; it prints how many files' changes it left out. The changes of
# the other files are kept as they are: their context is the one the
# whole diff gives them.
reduce_diff() {
	local sizes drops
	sizes=$(mktemp)
	drops=$(mktemp)
	LC_ALL=C awk '/^diff --git /{n++} {s[n]+=length($0)+1} END{for(i=0;i<=n;i++) print s[i]+0, i}' "$1" >"$sizes"
	LC_ALL=C sort -k1,1nr -k2,2n "$sizes" | LC_ALL=C awk -v limit="$3" '
		{ size[NR] = $1; section[NR] = $2; total += $1 }
		END { for (i = 1; i <= NR && total > limit; i++) if (section[i] > 0) { print section[i]; total -= size[i] } }' >"$drops"
	LC_ALL=C awk -v drops="$drops" 'BEGIN { while ((getline d < drops) > 0) drop[d] = 1 } /^diff --git /{n++} !(n in drop)' "$1" >"$2"
	wc -l <"$drops" | tr -d ' '
	rm -f "$sizes" "$drops"
}

cmd_reduce_diff() {
	[ $# -eq 2 ] || die "usage: review-bot.sh reduce-diff IN OUT"
	reduce_diff "$1" "$2" "$max_diff"
}

# extra_args reads CTXLS_EXTRA_ARGS into the array extra, split and
# unquoted by xargs (which expands nothing).
extra_args() {
	extra=()
	local spec=${CTXLS_EXTRA_ARGS:-} split a
	[ -n "${spec//[[:space:]]/}" ] || return 0
	split=$(mktemp)
	printf '%s' "$spec" | xargs printf '%s\0' >"$split" ||
		die "extra args: cannot split (unbalanced quotes?): $spec"
	while IFS= read -r -d '' a; do
		extra+=("$a")
	done <"$split"
	rm -f "$split"
}

# json FILE FILTER prints one value of a JSON file.
json() { jq -r "$2" "$1"; }

cmd_run() {
	command -v jq >/dev/null 2>&1 || die "jq is not installed"
	git_root rev-parse --git-dir >/dev/null 2>&1 || die "$root is not in a git repository"
	local bin head base mb mode ext
	bin=$(ctxls_bin)
	case $format in
	markdown) ext=md ;;
	xml) ext=xml ;;
	json) ext=json ;;
	*) die "format $format: want markdown, xml or json" ;;
	esac
	head=$(commit_of "$head_ref") || die "head $head_ref: not a commit"
	mkdir -p "$out_dir" "$index_dir"
	ignore_in_repo "$index_dir" index
	ignore_in_repo "$out_dir" output

	# Refresh the index (or build it): a restored index from an older
	# commit re-reads only the files whose size or mtime changed.
	"$bin" index --root "$root" --cache-dir "$index_dir" --encoding "$encoding" --json >"$out_dir/index.json" ||
		die "ctxls index failed"
	local imode iread ichanged iremoved ifiles ireason iroot isecs
	imode=$(json "$out_dir/index.json" .mode)
	iread=$(json "$out_dir/index.json" .read)
	ichanged=$(json "$out_dir/index.json" .changed)
	iremoved=$(json "$out_dir/index.json" .removed)
	ifiles=$(json "$out_dir/index.json" .files)
	ireason=$(json "$out_dir/index.json" '.reason // ""')
	iroot=$(json "$out_dir/index.json" .stateRoot)
	isecs=$(json "$out_dir/index.json" '.durationMs / 10 | round / 100')
	output index-file "$out_dir/index.json"
	output index-mode "$imode"
	output files-read "$iread"
	output files-changed "$ichanged"
	local restored="none (cold)"
	if [ -n "${CTXLS_CACHE_MATCHED_KEY:-}" ]; then
		restored="\`$CTXLS_CACHE_MATCHED_KEY\`"
	fi
	local index_line="$imode of $ifiles files in $isecs s: $iread read, $ichanged changed, $iremoved removed"
	if [ -n "$ireason" ]; then
		index_line="$index_line ($ireason)"
	fi

	if [ -z "$base_ref" ]; then
		mode=index
		output mode index
		output index-complete true
		output index-state "$iroot"
		summary <<EOF
### ctxls: index of \`${head:0:12}\`

| | |
| --- | --- |
| index | $index_line |
| cache restored | $restored |
| state | \`$iroot\` |
EOF
		return
	fi

	mode=pull-request
	base=$(resolve_base)
	mb=$(merge_base "$base" "$head")
	local range="$base...$head"
	git_root -c core.quotePath=false diff --no-color --no-ext-diff --no-textconv --src-prefix=a/ --dst-prefix=b/ --relative \
		"$range" -- >"$out_dir/diff.patch" || die "git diff $range failed"
	local nfiles dsize left_out=0 context_diff="$out_dir/diff.patch" diff_line
	nfiles=$(grep -c '^diff --git ' "$out_dir/diff.patch" || true)
	diff_line="\`${mb:0:12}...${head:0:12}\` (merge base of \`$base_ref\`); files changed: $nfiles"
	rm -f "$out_dir/diff.reduced.patch"
	dsize=$(($(wc -c <"$out_dir/diff.patch")))
	if [ "$dsize" -gt "$max_diff" ]; then
		# Over what ctxls reads: the context is that of the diff without
		# the changes of its largest files (generated, vendored or data
		# files, most often, which the index leaves out anyway).
		context_diff="$out_dir/diff.reduced.patch"
		left_out=$(reduce_diff "$out_dir/diff.patch" "$context_diff" "$max_diff")
		log "the diff $range is $dsize bytes, over the $max_diff ctxls reads: the context is for the diff without the changes of its $left_out largest files ($context_diff)"
		diff_line="$diff_line; $((dsize >> 20)) MiB, over the 16 MiB ctxls reads: the context is for the diff without the changes of its $left_out largest files (\`diff.reduced.patch\`)"
	fi

	local args=(assemble --root "$root" --cache-dir "$index_dir" --encoding "$encoding" --budget "$budget"
		--format "$format" --json)
	if [ -s "$context_diff" ]; then
		if [ "$context_diff" != "$out_dir/diff.patch" ]; then
			args+=(--diff-file "$context_diff" --mode "$context_mode")
		else
			args+=(--diff "$range" --mode "$context_mode")
		fi
	fi
	local g
	while IFS= read -r g; do
		args+=(--exclude "$g")
	done < <(own_globs "$out_dir")
	if [ -n "${CTXLS_QUERY:-}" ]; then
		printf '%s\n' "$CTXLS_QUERY" >"$out_dir/query.txt"
		args+=(--query-file "$out_dir/query.txt")
	fi
	local extra
	extra_args
	args+=(${extra[@]+"${extra[@]}"})

	local context="$out_dir/context.$ext" result="$out_dir/result.json" tokens parts files complete state ams
	rm -f "$result"
	if [ ! -s "$context_diff" ] && [ -z "${CTXLS_QUERY:-}" ]; then
		# Nothing to retrieve for (ctxls assemble would refuse): an empty
		# context and no result file.
		log "the diff $range is empty, or its files' changes are each over what ctxls reads: no context"
		: >"$context"
		result="" tokens=0 parts=0 files=0 complete=true state=$iroot ams=0
	else
		"$bin" "${args[@]}" >"$result" || die "ctxls assemble failed"
		jq -j .rendered "$result" >"$context"
		tokens=$(json "$result" .stats.totalTokens)
		parts=$(json "$result" .stats.parts)
		files=$(json "$result" .stats.files)
		complete=$(json "$result" .stats.indexComplete)
		state=$(json "$result" .stats.indexState)
		ams=$(json "$result" '.timing.elapsedMs | round')
	fi

	output mode "$mode"
	output base-sha "$base"
	output head-sha "$head"
	output merge-base "$mb"
	output context-file "$context"
	output result-file "$result"
	output diff-file "$out_dir/diff.patch"
	output context-diff-file "$context_diff"
	output diff-left-out "$left_out"
	output tokens "$tokens"
	output parts "$parts"
	output index-complete "$complete"
	output index-state "$state"

	summary <<EOF
### ctxls: review context for \`${base_ref}...${head:0:12}\`

| | |
| --- | --- |
| diff | $diff_line |
| context | $tokens / $budget tokens ($encoding, $format): $parts parts from $files files, assembled in $ams ms |
| index | $index_line |
| cache restored | $restored |
| state | \`$state\` (complete: $complete) |
EOF
}

case ${1:-} in
prepare) cmd_prepare ;;
install) cmd_install ;;
install-release) cmd_install_release ;;
run) cmd_run ;;
reduce-diff)
	shift
	cmd_reduce_diff "$@"
	;;
*)
	echo "usage: review-bot.sh prepare|install|install-release|run|reduce-diff (see the comment at its top)" >&2
	exit 2
	;;
esac
