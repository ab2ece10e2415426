package index

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
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
