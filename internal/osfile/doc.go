// Package osfile holds the operating system's forms of what the index's
// files need from it, so that the code above is the same on every
// platform: a lock on a file that another process can test without
// waiting (flock(2) on Unix, LockFileEx on Windows), an open that refuses
// a symbolic link in the file's place (O_NOFOLLOW; on Windows the handle
// is opened on the reparse point itself and refused when it is one), reads
// that never keep another process from renaming or deleting the file (on
// Windows, handles shared for delete), a rename over a file that another
// program holds open for a moment (Windows refuses it: the rename is
// retried briefly, and a rename that still fails leaves the old file as
// it was), and syncing a file or a directory to disk.
//
// It knows nothing of indexes: it is the layer the index, its cache files
// and the store's checkouts stand on.
package osfile
