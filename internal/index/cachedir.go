package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ctxls/ctxls/internal/cachefile"
	"github.com/ctxls/ctxls/internal/osfile"
)

// CacheDirIn returns the index directory of root under parent: parent
// joined with the per-root name DefaultCacheDir uses (the hex of the first 16
// bytes of the SHA-256 of the absolute, cleaned root path). It is how a cache
// parent other than the default (a client's cacheDir setting, a --cache-dir
// flag) holds one index directory per root.
//
// A relative root whose absolute path cannot be found (the working
// directory is gone) is named by its cleaned path; Open fails on such a
// root anyway.
func CacheDirIn(parent, root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	return filepath.Join(parent, cacheDirName(abs))
}

// cacheDirName is the name of the index directory of the root at the
// absolute path abs, under any cache parent.
func cacheDirName(abs string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(abs)))
	return hex.EncodeToString(sum[:16])
}

// Ownership of cache directories.
//
// ctxls deletes files in an index directory: old generations, leftover
// temporary files. It must never delete what it did not create, so an
// index directory carries a tag, and ctxls writes and collects only in a
// directory that has it:
//
//   - The tag is CACHEDIR.TAG of the Cache Directory Tagging specification
//     (https://bford.info/cachedir/): its first line is the specification's
//     signature, so backup tools that honour the tag (tar --exclude-caches,
//     restic and borg --exclude-caches, …) skip the index, which holds
//     copies of the code and is rebuilt at will. Its next line says that
//     ctxls wrote it; only a tag with both lines is ctxls's (another
//     program's cache directory is not taken for one).
//   - A directory that does not exist is created (mode 0700) and tagged.
//     An empty one is tagged and used.
//   - A directory without the tag that holds exactly what earlier ctxls
//     versions left there (the lock file, CURRENT, generations g-<ns>-<hex>,
//     the history and vector caches, their temporary files) is an index
//     directory of an earlier ctxls: it is tagged and used as it is.
//   - Anything else — a directory with other files, a symbolic link (even
//     to a tagged directory: ctxls does not follow links where it deletes)
//     — is refused: ErrNotCacheDir. Nothing is written there.
//
// An existing index directory whose mode lets the group or others in
// (earlier versions made them 0755) is made 0700 when its owner opens it.
//
// The parent of the default index directories ($CTXLS_CACHE_DIR, else
// os.UserCacheDir()/ctxls) is tagged and kept 0700 where ctxls owns it:
// os.UserCacheDir()/ctxls always, $CTXLS_CACHE_DIR when ctxls created it.
// A $CTXLS_CACHE_DIR that existed before is left as it is (it may be any
// directory of the user's); so is the parent a caller names (CacheDirIn):
// the index directories in it carry their own tags.

// ErrNotCacheDir is the refusal of a cache directory that ctxls did not
// create (see above). A *CacheDirError wraps it.
var ErrNotCacheDir = errors.New("not a ctxls cache directory")

const (
	tagName = "CACHEDIR.TAG"
	// tagSignature is the first line of every CACHEDIR.TAG.
	tagSignature = "Signature: 8a477f597d28d172789f06886806bc55"
	// tagOwner is the line that makes a tag ctxls's.
	tagOwner = "# This file is a cache directory tag created by ctxls."
	// tagMax bounds how much of a tag is read.
	tagMax = 4096
)

// tagText is the content of a CACHEDIR.TAG that ctxls writes.
const tagText = tagSignature + "\n" + tagOwner + "\n" +
	"# It holds an index of source code, rebuilt at will: backups may skip it.\n" +
	"# For information about cache directory tags, see https://bford.info/cachedir/\n"

// hasTag reports whether dir holds ctxls's CACHEDIR.TAG: a regular file
// (not a link) that starts with the signature and says ctxls wrote it.
func hasTag(dir string) bool {
	p := filepath.Join(dir, tagName)
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := osfile.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, tagMax))
	if err != nil {
		return false
	}
	return bytes.HasPrefix(b, []byte(tagSignature)) && bytes.Contains(b, []byte("\n"+tagOwner+"\n"))
}

// writeTag writes ctxls's CACHEDIR.TAG into dir (mode 0600, atomically).
func writeTag(dir string) error {
	if err := cachefile.Write(filepath.Join(dir, tagName), []byte(tagText)); err != nil {
		return fmt.Errorf("tag the cache directory %s: %w", dir, err)
	}
	return nil
}

// refusal is the refusal of a cache directory: Dir is not ctxls's, for
// the reason Why; Advice says what to do instead.
type refusal struct{ Dir, Why, Advice string }

func (r *refusal) Error() string { return r.Dir + ": " + r.reason() }

// reason is the refusal without the directory's name.
func (r *refusal) reason() string {
	return fmt.Sprintf("%v (%s); %s", ErrNotCacheDir, r.Why, r.Advice)
}

// Unwrap returns ErrNotCacheDir.
func (r *refusal) Unwrap() error { return ErrNotCacheDir }

// prepareCacheDir makes dir ready to hold a root's index, or refuses it
// (an error wrapping ErrNotCacheDir): see "Ownership of cache directories"
// above. Errors of the file system (a parent that is a file, no
// permission, a read-only disk) are returned as they are.
func prepareCacheDir(dir string) error { return prepareOwnedDir(dir, earlierLayout) }

// prepareOwnedDir applies the rules of "Ownership of cache directories"
// to dir, a directory ctxls keeps for itself: earlier reports whether the
// entries of a directory without the tag are what earlier ctxls versions
// left there (such a directory is tagged and used as it is).
func prepareOwnedDir(dir string, earlier func(ents []fs.DirEntry) bool) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return err
		}
		err = os.Mkdir(dir, 0o700)
		if err == nil {
			return writeTag(dir)
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		// Another process made it meanwhile: judge it as it is.
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &refusal{dir, "a symbolic link, which ctxls does not follow to its cache", "give the directory it points to"}
	case !fi.IsDir():
		return &fs.PathError{Op: "use cache directory", Path: dir, Err: syscall.ENOTDIR}
	}
	if !hasTag(dir) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		if len(ents) > 0 && !earlier(ents) && !tagBeingWritten(ents) {
			return &refusal{dir, "no " + tagName + ", and it is not empty", "choose an empty or new directory"}
		}
		if err := writeTag(dir); err != nil {
			return err
		}
	}
	tighten(dir, fi)
	return nil
}

// earlierLayout reports whether ents, the entries of a directory without
// a tag, are all what earlier ctxls versions wrote into an index
// directory, the lock file (the first thing every version wrote) among
// them — or only the temporary file of a tag another ctxls is writing
// into a directory it has just created.
func earlierLayout(ents []fs.DirEntry) bool {
	lock, tagTemps := false, 0
	for _, e := range ents {
		name, t := e.Name(), e.Type()
		switch {
		case t.IsRegular() && name == lockName:
			lock = true
		case t.IsRegular() && strings.HasPrefix(name, "."+tagName+"-") && ownTempFile(name):
			tagTemps++
		case t.IsRegular() && name != tagName && (ownFile(name) || ownTempFile(name)):
		case t.IsDir() && isGenName(name):
		default:
			// A CACHEDIR.TAG that is not ctxls's says another program
			// owns the directory.
			return false
		}
	}
	return lock || tagTemps == len(ents)
}

// tagBeingWritten reports whether ents are only the temporary files of a
// tag that another ctxls is writing into a directory it has just created.
func tagBeingWritten(ents []fs.DirEntry) bool {
	for _, e := range ents {
		if !e.Type().IsRegular() || !TagTempFile(e.Name()) {
			return false
		}
	}
	return true
}

// ownFiles are the files ctxls keeps at the top of an index directory
// (history.v1: the history cache of earlier versions; semantic.v2.delta:
// the vector cache's delta, semantic.DeltaSuffix).
var ownFiles = []string{lockName, currentName, tagName, "history.v1", "history.v2", "semantic.v1", "semantic.v2", "semantic.v2.delta"}

// ownFile reports whether name is one of ownFiles.
func ownFile(name string) bool {
	for _, f := range ownFiles {
		if name == f {
			return true
		}
	}
	return false
}

// ownTempFile reports whether name is a temporary file ctxls makes at the
// top of an index directory: CURRENT's (writeFileSync), the write probe
// (storageCause), and those of the files written by cachefile.Write
// ("." + name + "-" + digits).
func ownTempFile(name string) bool {
	if name == currentName+".tmp" || name == probeName {
		return true
	}
	for _, f := range ownFiles {
		if rest, ok := strings.CutPrefix(name, "."+f+"-"); ok && allDigits(rest) {
			return true
		}
	}
	return false
}

// isGenName reports whether name is a generation's name as newGeneration
// makes it: g-<decimal nanoseconds>-<8 hex digits>.
func isGenName(name string) bool {
	rest, ok := strings.CutPrefix(name, genPrefix)
	if !ok {
		return false
	}
	ns, hx, ok := strings.Cut(rest, "-")
	if !ok || !allDigits(ns) || len(hx) != 8 {
		return false
	}
	for _, c := range hx {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// allDigits reports whether s is a non-empty run of decimal digits.
func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// tighten makes the directory dir (described by fi) 0700 when it lets
// the group or others in and the user running ctxls owns it. It is best
// effort: a directory that stays open only means what it meant before.
func tighten(dir string, fi fs.FileInfo) {
	if fi.Mode().Perm()&0o077 == 0 {
		return
	}
	if !osfile.Owned(fi) {
		return
	}
	_ = os.Chmod(dir, 0o700)
}

// prepareDefaultParent tags and tightens the parent of the default index
// directories, base, where ctxls owns it: always (owned), or when it does
// not exist yet (it is created here). Failures are left to the index
// directory's creation, which reports them.
func prepareDefaultParent(base string, owned bool) {
	fi, err := os.Lstat(base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if os.MkdirAll(base, 0o700) == nil {
			_ = writeTag(base)
		}
		return
	case err != nil || !fi.IsDir() || !owned:
		return
	}
	if !hasTag(base) {
		_ = writeTag(base)
	}
	tighten(base, fi)
}

// PrepareCacheDir makes dir usable as an index directory before Open does
// (creating and tagging it, or checking a directory found there), so
// that a caller can place a side file in it first: a replica's checkout
// puts the stored vector store and history cache there.
func PrepareCacheDir(dir string) error { return prepareCacheDir(dir) }

// PrepareOwnedDir makes dir usable as another directory that ctxls keeps
// and deletes in (a store's checkout), under the rules of an index
// directory: created 0700 and tagged when missing, an empty one tagged
// and used, a symbolic link or a directory with other files refused
// (ErrNotCacheDir), nothing written there. earlier reports whether the
// entries of a directory without the tag are exactly what earlier ctxls
// versions left in such a directory: it is tagged and used as it is.
func PrepareOwnedDir(dir string, earlier func(ents []fs.DirEntry) bool) error {
	return prepareOwnedDir(dir, earlier)
}

// TagTempFile reports whether name is the temporary file of a tag that
// another ctxls is writing into a directory it has just created.
func TagTempFile(name string) bool {
	return strings.HasPrefix(name, "."+tagName+"-") && ownTempFile(name)
}
