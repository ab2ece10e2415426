//go:build (!cgo || ctxls_wasm) && !unix

package syntax

import "os"

// privateDir reports whether dir is a directory. On Windows the user's
// cache directory (%LocalAppData%) is private by its access list; on
// systems with neither, caching is harmless or absent.
func privateDir(dir string) bool {
	fi, err := os.Lstat(dir)
	return err == nil && fi.IsDir()
}
