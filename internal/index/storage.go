package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/ctxls/ctxls/internal/cachefile"
	"github.com/ctxls/ctxls/internal/index/postings"
	"github.com/ctxls/ctxls/internal/osfile"
)

// A cache directory that cannot be written — it cannot be created or
// locked (read-only, not a directory, no permission), or it fills up
// during a build (no space, a quota, a file size limit) — makes the index
// build in memory instead: it is served as usual, nothing is saved, and the
// next process indexes again. The user is told once, through
// Options.Warnf (or, with Options.NoMemoryFallback, Open fails with a
// *CacheDirError).

// isStorageFailure reports whether err says the cache directory cannot be
// written. An error reading the root (a *RootReadError: an unreadable
// workspace fails with the same errnos) never does, nor a cache
// directory refused as not ctxls's (ErrNotCacheDir: Open handles it).
func isStorageFailure(err error) bool {
	var re *RootReadError
	if errors.As(err, &re) || errors.Is(err, ErrNotCacheDir) {
		return false
	}
	return osfile.IsUnwritable(err)
}

// probeName is the file probeWrite writes (and removes at once).
const probeName = ".ctxls-write-probe"

// probeWrite says why dir cannot be written, if a small write shows it.
func probeWrite(dir string) error {
	if dir == "" {
		return nil
	}
	p := filepath.Join(dir, probeName)
	err := os.WriteFile(p, make([]byte, 64<<10), 0o600)
	os.Remove(p)
	return err
}

// storageCause describes why dir cannot be written: what a write there
// says now, else err.
func storageCause(dir string, err error) string {
	if perr := probeWrite(dir); perr != nil {
		return perr.Error()
	}
	return err.Error()
}

// CacheDirError says that the index of Root cannot be written to its cache
// directory Dir, and why (Cause: what a write there says). It is the error
// of Open and Build with Options.NoMemoryFallback; otherwise it is what the
// warning given to Options.Warnf says. Err is ErrNotCacheDir when ctxls
// refused the directory as not its own (nothing was written there), nil
// when the directory failed a write.
type CacheDirError struct {
	Root, Dir, Cause string
	Err              error
}

func (e *CacheDirError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("cannot use %s for the index of %s: %s", e.Dir, e.Root, e.Cause)
	}
	return fmt.Sprintf("cannot write the index of %s to %s (%s)", e.Root, e.Dir, e.Cause)
}

// Unwrap returns Err.
func (e *CacheDirError) Unwrap() error { return e.Err }

// inMemory decides what a cache directory dir that cannot be written (why)
// means for x: with Options.NoMemoryFallback, the error to return; else nil,
// after telling the user, once, that the index is kept in memory.
func (x *Index) inMemory(dir, why string) error {
	return x.inMemoryErr(&CacheDirError{Root: x.env.root, Dir: dir, Cause: why})
}

// inMemoryErr is inMemory for the error e.
func (x *Index) inMemoryErr(e *CacheDirError) error {
	if x.set.NoMemoryFallback {
		return e
	}
	x.set.Warnf("index: %v; indexing in memory: nothing is saved, the next run indexes again", e)
	return nil
}

// openInMemory is Open's way out when the cache directory dir cannot be
// created, locked or written: the build runs in memory (or, with
// NoMemoryFallback, Open fails). x has no lock.
func (x *Index) openInMemory(ctx context.Context, dir string, err error) (*Index, error) {
	x.dir, x.lock = "", nil
	e := &CacheDirError{Root: x.env.root, Dir: dir}
	if r := (*refusal)(nil); errors.As(err, &r) {
		// Refused, not failed: nothing is written there, not even a
		// probe.
		e.Cause, e.Err = r.reason(), ErrNotCacheDir
	} else {
		e.Cause = storageCause(dir, err)
	}
	if err := x.inMemoryErr(e); err != nil {
		x.Close()
		return nil, err
	}
	x.set.InMemory = true
	if err := x.startBuild(ctx, "in memory: the cache directory cannot be written"); err != nil {
		x.Close()
		return nil, err
	}
	return x, nil
}

// rebuildInMemory runs after a build into generation gen failed because
// the disk did not take it (cause): the generation is deleted, the cache
// directory given up (its lock released; nothing more is written there),
// and the build runs again in memory (with NoMemoryFallback, the build
// fails with a *CacheDirError instead).
func (x *Index) rebuildInMemory(ctx context.Context, gen, reason string, cause error) error {
	why := storageCause(x.dir, cause) // before the generation's space is freed
	x.abandonBuild(gen)
	if err := x.inMemory(x.dir, why); err != nil {
		return err
	}
	post, err := postings.Create("")
	if err != nil {
		return fmt.Errorf("create index in memory: %w", err)
	}
	x.mu.Lock()
	x.post = post
	x.gen = ""
	lerr := x.lock.release()
	x.lock = nil
	x.mu.Unlock()
	if lerr != nil {
		x.set.Logf("index: release the lock of %s: %v", x.dir, lerr)
	}
	return x.fullBuild(ctx, "", reason+"; in memory: the cache directory cannot be written")
}

// verifyGeneration checks, on a goroutine of its own, the checksums of
// generation gen's files — every segment file of its lexical store (the
// CRC-32 (IEEE) of its bytes in its last 4), its tables file and its
// tables delta (their CRC-32C trailer) — and sends the first mismatch (or
// nil) on the channel it returns: a flipped bit must not be served, and
// an open serves nothing before this answers. The files are immutable
// once written (a change makes new ones, or writes one anew), so each is
// read once: the ones that passed are recorded in the generation
// (checkedName) with their size, inode, modification and change times,
// and a later open reads only those whose stat differs — any write to a
// file, or a file put in its place, changes its change time. On four
// copies of Go's src that is 300 MB not read again on every warm open.
func verifyGeneration(gen string) <-chan error {
	out := make(chan error, 1)
	go func() {
		files, err := postings.SegmentFiles(filepath.Join(gen, postingsName))
		if err != nil {
			out <- err
			return
		}
		files = append(files, filepath.Join(gen, tablesName))
		if _, err := os.Lstat(filepath.Join(gen, deltaName)); err == nil {
			files = append(files, filepath.Join(gen, deltaName))
		}
		before := readChecked(gen)
		now := make(map[string]segmentStat, len(files))
		buf := make([]byte, 1<<20)
		for _, f := range files {
			st, ok := statSegment(f)
			if ok && before[filepath.Base(f)] == st {
				now[filepath.Base(f)] = st
				continue
			}
			verify := verifySegment
			if name := filepath.Base(f); name == tablesName || name == deltaName {
				verify = verifyTablesSum
			}
			if err := verify(f, buf); err != nil {
				out <- err
				return
			}
			if ok {
				now[filepath.Base(f)] = st
			}
		}
		if !maps.Equal(before, now) {
			_ = writeChecked(gen, now) // advisory: without it, the next open reads them again
		}
		out <- nil
	}()
	return out
}

// checkedName is the record of a generation's verified files:
// "CTXLSCK1", then n × (name, varint size, inode, mtime and ctime in Unix
// ns), then a CRC-32C of everything before (cachefile.WriteRecords).
const (
	checkedName  = "CHECKED"
	checkedMagic = "CTXLSCK1"
)

// segmentStat is what a verified segment's record compares.
type segmentStat struct {
	size, ino, mtime, ctime int64
}

// statSegment stats a segment file (false: it cannot be).
func statSegment(path string) (segmentStat, bool) {
	st, ok := osfile.Stat(path)
	return segmentStat{st.Size, st.ID, st.ModTime, st.ChangeTime}, ok
}

// readChecked reads generation gen's record of verified segments (nil:
// none, or damaged).
func readChecked(gen string) map[string]segmentStat {
	body := cachefile.ReadRecords(filepath.Join(gen, checkedName), checkedMagic)
	if body == nil {
		return nil
	}
	r := cachefile.Record{B: body}
	m := map[string]segmentStat{}
	for r.More() {
		name := r.String()
		m[name] = segmentStat{r.Varint(), r.Varint(), r.Varint(), r.Varint()}
	}
	if r.Err != nil {
		return nil
	}
	return m
}

// writeChecked writes generation gen's record of verified segments.
func writeChecked(gen string, m map[string]segmentStat) error {
	var b []byte
	for _, name := range slices.Sorted(maps.Keys(m)) {
		st := m[name]
		b = cachefile.AppendString(b, name)
		for _, x := range []int64{st.size, st.ino, st.mtime, st.ctime} {
			b = binary.AppendVarint(b, x)
		}
	}
	return cachefile.WriteRecords(filepath.Join(gen, checkedName), checkedMagic, b)
}

// verifySegment checks one segment file's checksum.
func verifySegment(path string, buf []byte) error {
	got, want, n, err := footerSum(path, buf, crc32.NewIEEE(), binary.BigEndian)
	switch {
	case err != nil:
		return fmt.Errorf("segment %s: %w", filepath.Base(path), err)
	case n < 4:
		return fmt.Errorf("segment %s: %d bytes, no footer", filepath.Base(path), n)
	case got != want:
		return fmt.Errorf("segment %s fails its checksum (%08x, footer says %08x)", filepath.Base(path), got, want)
	}
	return nil
}

// footerSum reads the file at path through buf: the checksum h makes of
// all but its last 4 bytes (got), and those 4 bytes in order (want); n is
// its size (under 4: nothing read).
func footerSum(path string, buf []byte, h hash.Hash32, order binary.ByteOrder) (got, want uint32, n int64, err error) {
	f, err := osfile.Open(path)
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, 0, err
	}
	if n = fi.Size(); n < 4 {
		return 0, 0, n, nil
	}
	if _, err := io.CopyBuffer(h, io.LimitReader(f, n-4), buf); err != nil {
		return 0, 0, n, err
	}
	var tail [4]byte
	if _, err := io.ReadFull(f, tail[:]); err != nil {
		return 0, 0, n, err
	}
	return h.Sum32(), order.Uint32(tail[:]), n, nil
}
