package index

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/tokens"
)

// DefaultEncoding is the encoding counted when Options.Counters is nil.
const DefaultEncoding = "cl100k_base"

// EnvCacheDir names the environment variable that, when set, replaces
// os.UserCacheDir()/ctxls as the parent of all index directories.
const EnvCacheDir = "CTXLS_CACHE_DIR"

// Options configure Open and Build. The zero value is usable: default
// cache directory, the default lister and chunker, no token counts,
// GOMAXPROCS workers.
type Options struct {
	// CacheDir is the directory that holds this root's index. Empty means
	// DefaultCacheDir(root). It must be new, empty, or a ctxls index
	// directory (it carries ctxls's CACHEDIR.TAG, or an earlier version's
	// layout): ctxls never writes into, nor deletes from, a directory of
	// other files, and never uses one that is a symlink.
	CacheDir string
	// InMemory keeps the whole index in memory and never touches the cache
	// directory (no lock, nothing persisted). For tests and for callers
	// that index throw-away trees.
	InMemory bool
	// Rebuild forces a full build even when a valid index is on disk.
	Rebuild bool

	// Counters are the encodings whose token counts are computed for every
	// chunk at index time, by encoding name. nil means cl100k_base from a
	// new tokens.Registry; an empty map computes none (TokenCount then
	// reports false). Pass the process's shared counters when there are.
	Counters map[string]tokens.Counter

	// Lister lists the files to index; nil means a new WalkLister with
	// walk's default options. A Lister that is also a FileFilter filters
	// single-file changes too.
	Lister Lister
	// NewChunker creates one Chunker per worker; nil means
	// chunk.NewChunker(Chunking).
	NewChunker func() (Chunker, error)
	// Files serves the root's files instead of the disk (nil: the disk).
	// The Lister lists them; the root directory must exist all the same.
	Files FileSource
	// Chunking configures the default chunker.
	Chunking chunk.Options
	// ConfigKey identifies the chunker configuration when NewChunker is
	// set (the default chunker's options are accounted for already). It is
	// stored with the index; an index built under another key is rebuilt.
	ConfigKey string

	// Workers is the number of chunking goroutines; 0 means GOMAXPROCS.
	Workers int
	// BatchSize is how many documents the writer adds between two
	// hand-overs of the written files (a background build publishes a
	// snapshot at most once a second, at such a point); 0 means 1000.
	BatchSize int

	// Progress, if set, is called from the writer goroutine after each
	// file of a build or refresh. It must return quickly.
	Progress func(Progress)
	// Logf, if set, receives diagnostic messages (why an index was
	// rebuilt, files that failed to chunk).
	Logf func(format string, args ...any)
	// Warnf, if set, receives what the user must be told (once): the
	// cache directory cannot be written, so the index is kept in memory.
	// nil means Logf.
	Warnf func(format string, args ...any)
	// NoMemoryFallback makes a cache directory that cannot be written an
	// error — a *CacheDirError from Open and Build, nothing built — instead
	// of an index kept in memory with a warning: for a caller whose job is
	// to write the index (ctxls index).
	NoMemoryFallback bool

	// Background makes Open return as soon as the index is usable: when a
	// full build is needed, Open starts it in the background and returns
	// an Index whose snapshots are partial (Complete() == false) until the
	// build ends; Wait blocks until then.
	Background bool

	// Warm builds the symbol maps (Defs, Refs) in the background as soon as
	// an existing index is open, while the refresh walks the tree, instead
	// of on the first lookup. For callers that will query; Build ignores it.
	Warm bool

	// TextCacheBytes bounds the file texts kept in memory between requests
	// (Snapshot.File); 0 means 32 MiB, negative keeps none.
	TextCacheBytes int

	// LockTimeout is how long Open waits for another process (or Index)
	// that holds this root's index; 0 means 10 s.
	LockTimeout time.Duration
	// PrivateWhenLocked, when the lock cannot be had within LockTimeout,
	// builds a private index in a temporary directory that is removed on
	// Close, instead of failing with ErrLocked.
	PrivateWhenLocked bool

	// CheckpointDelay is how long after the last incremental change the
	// index writes its tables and completeness marker to disk; 0 means
	// 5 s, negative means only on Checkpoint and Close.
	CheckpointDelay time.Duration
}

// Progress reports how far a build or refresh has come.
type Progress struct {
	FilesDone  int   `json:"filesDone"`
	FilesTotal int   `json:"filesTotal"`
	BytesDone  int64 `json:"bytesDone"`
	BytesTotal int64 `json:"bytesTotal"`
	Chunks     int   `json:"chunks"`
}

// CacheDirOf returns the directory Open keeps root's index in with these
// options (unless it falls back to a private or in-memory one):
// CacheDir, or DefaultCacheDir(root).
func (o Options) CacheDirOf(root string) (string, error) {
	if o.CacheDir != "" {
		return o.CacheDir, nil
	}
	return DefaultCacheDir(root)
}

// DefaultCacheDir returns the index directory for root:
// $CTXLS_CACHE_DIR/<hash> if that variable is set, else
// os.UserCacheDir()/ctxls/<hash>, where <hash> is the first 16 bytes of the
// hex SHA-256 of the absolute, cleaned root path.
func DefaultCacheDir(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("cache dir for %s: %w", root, err)
	}
	base, err := DefaultCacheParent()
	if err != nil {
		return "", fmt.Errorf("cache dir for %s: %w", root, err)
	}
	return filepath.Join(base, cacheDirName(abs)), nil
}

// DefaultCacheParent returns the directory the default index directories
// are in: $CTXLS_CACHE_DIR, else os.UserCacheDir()/ctxls.
//
// $CTXLS_CACHE_DIR often comes from an MCP client's or an editor's
// configuration, which starts the server without a shell and in a working
// directory of its own (often the workspace, or /): a leading "~" is the
// home directory, as a shell would read it, and a relative path is refused
// rather than read against that directory (it would put the index into the
// workspace, or nowhere the user looks).
func DefaultCacheParent() (string, error) {
	if base := os.Getenv(EnvCacheDir); base != "" {
		return cacheParentFromEnv(base)
	}
	ucd, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("%w (set %s)", err, EnvCacheDir)
	}
	return filepath.Join(ucd, "ctxls"), nil
}

// settings are Options with defaults filled in.
type settings struct {
	Options
	encodings []string // sorted names of Counters
	counters  []tokens.Counter
}

func (o Options) settings() (settings, error) {
	s := settings{Options: o}
	if s.Lister == nil {
		s.Lister = &WalkLister{}
	}
	if s.Counters == nil {
		c, err := tokens.NewRegistry().Get(DefaultEncoding)
		if err != nil {
			return s, fmt.Errorf("default token counter: %w", err)
		}
		s.Counters = map[string]tokens.Counter{DefaultEncoding: c}
	}
	if s.NewChunker == nil {
		copts := s.Chunking
		s.NewChunker = func() (Chunker, error) { return chunk.NewChunker(copts), nil }
		s.ConfigKey = fmt.Sprintf("%s|chunk.Options%+v", s.ConfigKey, chunk.NewChunker(copts).Options())
	}
	if s.Workers <= 0 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	if s.BatchSize <= 0 {
		s.BatchSize = 1000
	}
	if s.LockTimeout <= 0 {
		s.LockTimeout = 10 * time.Second
	}
	if s.CheckpointDelay == 0 {
		s.CheckpointDelay = 5 * time.Second
	}
	if s.Logf == nil {
		s.Logf = func(string, ...any) {}
	}
	if s.Warnf == nil {
		s.Warnf = s.Logf
	}
	for name := range s.Counters {
		s.encodings = append(s.encodings, name)
	}
	slices.Sort(s.encodings)
	for _, name := range s.encodings {
		s.counters = append(s.counters, s.Counters[name])
	}
	return s, nil
}

// cacheParentFromEnv reads a $CTXLS_CACHE_DIR: "~" and "~/…" under the
// home directory, an absolute path as it is, anything else an error naming
// the variable.
func cacheParentFromEnv(v string) (string, error) {
	if v == "~" || strings.HasPrefix(v, "~/") || (filepath.Separator != '/' && strings.HasPrefix(v, "~"+string(filepath.Separator))) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%s=%q: %w", EnvCacheDir, v, err)
		}
		return filepath.Join(home, v[1:]), nil
	}
	if !filepath.IsAbs(v) {
		return "", fmt.Errorf("%s=%q is not an absolute path: give the full path of the directory (a client or editor that starts ctxls may run it from any directory)", EnvCacheDir, v)
	}
	return filepath.Clean(v), nil
}
