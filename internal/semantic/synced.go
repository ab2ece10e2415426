package semantic

import (
	"fmt"
	"os"

	"github.com/ctxls/ctxls/internal/cachefile"
	"github.com/ctxls/ctxls/internal/osfile"
)

// The synced record, beside a cache file (its path and SyncedSuffix), says
// which index state the store there was last brought up to date with: the
// state root, the options, and the size, inode and times of the cache
// file and of its delta file as they were then. While they are all the
// same, the store is that state's (a Sync would change nothing), which a
// nothing-changed `ctxls index` can tell without reading the store
// (InSync). Any write to either file changes their stat, and so voids the
// record.
const (
	SyncedSuffix = ".synced"
	syncedMagic  = "CTXLSSY1"
)

// syncedRecord encodes what InSync compares.
func syncedRecord(path, stateRoot string, opts Options) ([]byte, bool) {
	base, ok := osfile.Stat(path)
	if !ok {
		return nil, false
	}
	delta, _ := osfile.Stat(path + DeltaSuffix) // absent: all zero
	b := cachefile.AppendString(nil, stateRoot)
	b = cachefile.AppendString(b, fmt.Sprintf("%+v", opts))
	for _, st := range []osfile.FileStat{base, delta} {
		for _, v := range []int64{st.Size, st.ID, st.ModTime, st.ChangeTime} {
			b = cachefile.AppendString(b, fmt.Sprint(v))
		}
	}
	return b, true
}

// markSynced records that the cache file at path holds the store of the
// index state stateRoot (best effort: without the record, the next
// nothing-changed run reads the store).
func markSynced(path, stateRoot string, opts Options) {
	if path == "" || stateRoot == "" {
		return
	}
	b, ok := syncedRecord(path, stateRoot, opts)
	if !ok || string(cachefile.ReadRecords(path+SyncedSuffix, syncedMagic)) == string(b) {
		return // a warm call whose store changed nothing writes nothing
	}
	_ = cachefile.WriteRecords(path+SyncedSuffix, syncedMagic, b)
}

// InSync reports whether the cache file at path is known to hold the
// store of the index state stateRoot, made with opts (the workspace
// embedder's DefaultOptions for a CLI run): recorded so by the last Load
// or LoadPrefetched that brought it up to date, and neither file written
// since.
func InSync(path, stateRoot string, opts Options) bool {
	if path == "" || stateRoot == "" {
		return false
	}
	want, ok := syncedRecord(path, stateRoot, opts)
	if !ok {
		return false
	}
	got := cachefile.ReadRecords(path+SyncedSuffix, syncedMagic)
	return got != nil && string(got) == string(want)
}

// dropSynced removes the synced record beside path.
func dropSynced(path string) {
	if path != "" {
		_ = os.Remove(path + SyncedSuffix)
	}
}
