//go:build windows

package osfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// shareAll lets other processes read, write, rename and delete a file
// while a handle of ctxls's is open on it: without FILE_SHARE_DELETE,
// Windows refuses a rename over the file (another ctxls replacing it, a
// user's editor saving a source file) for as long as the handle lives.
const shareAll = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE

// createFile opens path with CreateFile, as a *os.File named path.
func createFile(op, path string, access, disposition, flags uint32) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(longPath(path))
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, access, shareAll, nil, disposition, flags, 0)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// longPath gives an absolute path of 248 characters or more the \\?\
// prefix that lifts MAX_PATH, as package os does for its own calls.
func longPath(path string) string {
	if len(path) < 248 || !filepath.IsAbs(path) || len(path) >= 4 && (path[:4] == `\\?\` || path[:4] == `\??\`) {
		return path
	}
	p := filepath.Clean(path)
	if len(p) >= 2 && p[0] == '\\' && p[1] == '\\' {
		return `\\?\UNC\` + p[2:]
	}
	return `\\?\` + p
}

// Open opens the file (or directory) at path for reading, shared for
// reading, writing and deletion.
func Open(path string) (*os.File, error) {
	return createFile("open", path, windows.GENERIC_READ, windows.OPEN_EXISTING,
		windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_BACKUP_SEMANTICS)
}

// OpenNoFollow opens the file at path as os.OpenFile does (the flags
// O_RDONLY, O_WRONLY, O_RDWR, O_CREATE, O_EXCL, O_TRUNC; perm only says
// whether the file is read-only), but fails when path is itself a symbolic
// link, a junction or any other reparse point rather than open what it
// points to: the handle is opened on the reparse point itself, then
// refused when it is one. The file is shared for reading, writing and
// deletion.
func OpenNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	var access uint32
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		access = windows.GENERIC_READ
	case os.O_WRONLY:
		access = windows.GENERIC_WRITE
	case os.O_RDWR:
		access = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	var disposition uint32
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		disposition = windows.CREATE_NEW
	case flag&(os.O_CREATE|os.O_TRUNC) == os.O_CREATE|os.O_TRUNC:
		disposition = windows.CREATE_ALWAYS
	case flag&os.O_CREATE != 0:
		disposition = windows.OPEN_ALWAYS
	case flag&os.O_TRUNC != 0:
		disposition = windows.TRUNCATE_EXISTING
	default:
		disposition = windows.OPEN_EXISTING
	}
	attrs := uint32(windows.FILE_ATTRIBUTE_NORMAL)
	if perm&0o200 == 0 {
		attrs = windows.FILE_ATTRIBUTE_READONLY
	}
	f, err := createFile("open", path, access, disposition, attrs|windows.FILE_FLAG_OPEN_REPARSE_POINT)
	if err != nil {
		return nil, err
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	// The name must still be what was opened, and no link: a file
	// system that shows a link without its reparse attribute is caught by
	// Lstat.
	fi, err := os.Lstat(path)
	var opened fs.FileInfo
	if err == nil {
		opened, err = f.Stat()
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 || err != nil ||
		fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 || !os.SameFile(fi, opened) {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	}
	return f, nil
}

// renameWait bounds how long Rename retries a rename that another
// program's handle refuses.
const renameWait = 2 * time.Second

// Rename renames oldpath to newpath, replacing newpath atomically. Within
// one directory (every rename of the index's) it renames with POSIX
// semantics (os.Root's Rename), which replace a file that other handles
// hold open when they share it for deletion, as ctxls's own readers do
// (Open). A rename that Windows refuses because another program holds
// either file without sharing it for deletion — an antivirus scanning a
// new file, a backup or a search indexer reading one, an editor — is
// retried for up to two seconds; when it still fails, neither file has
// changed.
func Rename(oldpath, newpath string) error {
	rename := func() error { return moveFile(oldpath, newpath) }
	if dir := filepath.Dir(oldpath); dir == filepath.Dir(newpath) {
		root, err := os.OpenRoot(dir)
		if err != nil {
			return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
		}
		defer root.Close()
		rename = func() error { return root.Rename(filepath.Base(oldpath), filepath.Base(newpath)) }
	}
	deadline := time.Now().Add(renameWait)
	pause := 5 * time.Millisecond
	for {
		err := rename()
		if err == nil {
			return nil
		}
		if !heldOpen(err) || time.Now().After(deadline) {
			var le *os.LinkError
			if errors.As(err, &le) {
				err = le.Err
			}
			if heldOpen(err) {
				err = &refusedError{err}
			}
			return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// refusedError is a rename Windows still refused after renameWait.
type refusedError struct{ err error }

func (e *refusedError) Error() string {
	return e.err.Error() + " (refused for " + renameWait.String() +
		": another program may hold the file open, an antivirus, a backup or an editor)"
}

func (e *refusedError) Unwrap() error { return e.err }

// moveFile renames oldpath to newpath with MoveFileEx, replacing newpath
// and written through to disk before it returns.
func moveFile(oldpath, newpath string) error {
	from, err := windows.UTF16PtrFromString(longPath(oldpath))
	if err != nil {
		return err
	}
	to, err := windows.UTF16PtrFromString(longPath(newpath))
	if err != nil {
		return err
	}
	return windows.MoveFileEx(from, to, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH)
}

// heldOpen reports whether err is how Windows refuses to touch a file
// another handle holds without sharing it.
func heldOpen(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}

// Sync writes the file at path to disk. A directory needs nothing:
// Windows cannot flush one, and Rename writes its change through.
func Sync(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return nil
	}
	// FlushFileBuffers needs a handle that may write.
	f, err := createFile("sync", path, windows.GENERIC_WRITE, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// lockOffset is where the locked byte lies: far past the end of any lock
// file, so that a lock, which Windows enforces on reads and writes of its
// range, never keeps another process from reading what the file says.
const lockOffset = 1 << 62

func tryLock(f *os.File, l Lock) (bool, error) {
	_ = unlock(f) // converting: flock(2) too releases the lock held first
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if l == Exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	ol := lockOverlapped()
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		return false, nil
	}
	return false, &fs.PathError{Op: "lock", Path: f.Name(), Err: err}
}

func unlock(f *os.File) error {
	err := windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockOverlapped())
	// A byte not locked: ERROR_NOT_LOCKED (wine says ERROR_LOCK_VIOLATION).
	if err != nil && !errors.Is(err, windows.ERROR_NOT_LOCKED) && !errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return &fs.PathError{Op: "unlock", Path: f.Name(), Err: err}
	}
	return nil
}

// lockOverlapped names the locked byte for LockFileEx and UnlockFileEx.
func lockOverlapped() *windows.Overlapped {
	return &windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
}

// fileBasicInfo is FILE_BASIC_INFO (GetFileInformationByHandleEx's
// FileBasicInfo class): times in 100 ns since 1601.
type fileBasicInfo struct {
	CreationTime, LastAccessTime, LastWriteTime, ChangeTime int64
	FileAttributes                                          uint32
	_                                                       uint32
}

// Stat describes the file at path (following a link); false when it
// cannot be stat'ed. Its identity is the file index, its change time the
// last change of its data or attributes.
func Stat(path string) (FileStat, bool) {
	f, err := Open(path)
	if err != nil {
		return FileStat{}, false
	}
	defer f.Close()
	h := windows.Handle(f.Fd())
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return FileStat{}, false
	}
	st := FileStat{
		Size:    int64(info.FileSizeHigh)<<32 | int64(info.FileSizeLow),
		ID:      int64(info.FileIndexHigh)<<32 | int64(info.FileIndexLow),
		ModTime: info.LastWriteTime.Nanoseconds(),
	}
	var basic fileBasicInfo
	if windows.GetFileInformationByHandleEx(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&basic)), uint32(unsafe.Sizeof(basic))) == nil {
		st.ChangeTime = (basic.ChangeTime - unixEpochFiletime) * 100
	}
	return st, true
}

// unixEpochFiletime is the Unix epoch as a FILETIME (100 ns units since
// 1601).
const unixEpochFiletime = 116444736000000000

// Owned is false: Windows says who may read a file by its access control
// list, which ctxls leaves as the directory it is in made it (a user's
// profile is theirs alone).
func Owned(fs.FileInfo) bool { return false }

// CheckEnter is nil: a directory that lists can be entered.
func CheckEnter(string) error { return nil }

// unwritable are the errors of a place that cannot be written.
func unwritable() []error {
	return []error{
		windows.ERROR_DISK_FULL, windows.ERROR_HANDLE_DISK_FULL, windows.ERROR_WRITE_PROTECT,
		windows.ERROR_ACCESS_DENIED, windows.ERROR_SHARING_VIOLATION, windows.ERROR_LOCK_VIOLATION,
		windows.ERROR_FILE_TOO_LARGE,
		syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG, syscall.EROFS,
		syscall.EACCES, syscall.EPERM, syscall.ENOTDIR,
	}
}
