package walk

import "time"

// DefaultMaxFileSize is the size limit used when Options.MaxFileSize is 0.
const DefaultMaxFileSize int64 = 1 << 20

// Options configures which files of a root are indexable. The zero value is
// ready to use and gives the defaults described on each field.
type Options struct {
	// MaxFileSize is the largest file size, in bytes, that is indexed.
	// 0 means DefaultMaxFileSize (1 MiB); a negative value disables the limit.
	// The size is taken from stat: a larger file is never opened for reading.
	MaxFileSize int64

	// Include, when non-empty, restricts the walk to files matching at least
	// one of these doublestar globs (github.com/bmatcuk/doublestar/v4 syntax)
	// on the slash path relative to the root. A glob that matches a
	// directory includes everything below it ("src" includes "src/a/b.go").
	Include []string

	// Exclude skips files and directories matching any of these doublestar
	// globs on the slash path relative to the root. A directory matched by
	// an Exclude glob is not entered.
	Exclude []string

	// NoFollowSymlinks skips every symbolic link (reason ReasonSymlink).
	// By default symlinks are followed, but never to a target outside the
	// root (ReasonSymlinkOutside) and never into a loop (ReasonSymlinkLoop).
	NoFollowSymlinks bool

	// Unchanged, if set, is asked about every regular file that passes the
	// name and size rules; true means "this file was already judged, with
	// this size and modification time, and passed": the walk then skips
	// reading its first bytes for the binary/generated/secret content
	// checks. A refresh of an index uses it for the files it holds.
	Unchanged func(rel string, size int64, mtime time.Time) bool

	// SkippedBefore, if set, is asked about every regular file that
	// passes the name and size rules and is not Unchanged; ok means "this
	// file was judged, with this size and modification time, and left out
	// for its content" (reason and detail as then): the walk skips it
	// again without reading it. A refresh uses it for the verdicts it kept
	// (Skipped.ModTime set).
	SkippedBefore func(rel string, size int64, mtime time.Time) (reason Reason, detail string, ok bool)
}

// File is one indexable file.
type File struct {
	Path    string    // slash-separated, relative to the root
	Abs     string    // absolute path below the root as given (symlinks not resolved)
	Size    int64     // bytes, from stat
	ModTime time.Time // from stat
}

// Reason says why a path was skipped. Its values are stable strings meant for
// machine-readable output (for example counts by reason in JSON).
type Reason string

// Skip reasons.
const (
	// ReasonIgnored: matched by .gitignore, .git/info/exclude, .ignore,
	// .ctxlsignore, or the built-in default (node_modules/).
	ReasonIgnored Reason = "ignored"
	// ReasonExcluded: matched an Options.Exclude glob or no Options.Include glob.
	ReasonExcluded Reason = "excluded"
	// ReasonVCS: a version-control metadata directory (.git, .hg, .svn, .jj, .bzr).
	ReasonVCS Reason = "vcs_dir"
	// ReasonBinary: a NUL byte in the first 8 KiB.
	ReasonBinary Reason = "binary"
	// ReasonTooLarge: larger than Options.MaxFileSize.
	ReasonTooLarge Reason = "too_large"
	// ReasonGenerated: a lockfile, a generated-code marker or minified code.
	ReasonGenerated Reason = "generated"
	// ReasonSecret: a credential file or directory by name, or a private
	// key or a token by content — found by the walk in a file's first
	// bytes, or by the indexer in its whole text.
	ReasonSecret Reason = "secret"
	// ReasonSymlink: a symlink, skipped because Options.NoFollowSymlinks is set.
	ReasonSymlink Reason = "symlink"
	// ReasonSymlinkOutside: a symlink whose target resolves outside the root.
	ReasonSymlinkOutside Reason = "symlink_outside_root"
	// ReasonSymlinkLoop: a symlink to a directory containing the link.
	ReasonSymlinkLoop Reason = "symlink_loop"
	// ReasonBrokenSymlink: a symlink whose target does not exist.
	ReasonBrokenSymlink Reason = "broken_symlink"
	// ReasonDuplicate: a file or directory already listed under another
	// path (reached through a symlink).
	ReasonDuplicate Reason = "duplicate"
	// ReasonSpecial: not a regular file or directory (socket, FIFO, device).
	ReasonSpecial Reason = "special_file"
	// ReasonUnreadable: stat, open, read or directory listing failed.
	ReasonUnreadable Reason = "unreadable"
	// ReasonOutsideRoot: a path given to a Matcher method is not below the root.
	ReasonOutsideRoot Reason = "outside_root"
)

// Skipped records a path that was not indexed. For a skipped directory only
// the directory itself is recorded, not the entries below it.
type Skipped struct {
	Path   string // slash-separated, relative to the root
	Reason Reason
	Detail string // human-readable specifics, e.g. ".gitignore:3: *.log"; may be empty
	// Size and ModTime are the file's when it was left out for its
	// content (binary, generated, secret: a verdict that holds while they
	// do); ModTime is zero for every other reason.
	Size    int64
	ModTime time.Time
}
