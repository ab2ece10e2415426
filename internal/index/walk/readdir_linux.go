package walk

import (
	"encoding/binary"
	"io/fs"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// readDir lists the directory dir in the order the file system gives
// (nothing here depends on the order: what Walk returns is sorted once at
// the end). It uses the system calls directly, as readFileHead does: an
// *os.File costs a stat, two fcntl calls and the poller's bookkeeping per
// directory, a fifth of a nothing-changed walk's time.
func readDir(dir string, buf []byte) ([]dirEntry, error) {
	out, h, err := openDir(dir, buf)
	if h != nil {
		h.release()
	}
	return out, err
}

// openDir is readDir, keeping the directory open: the handle (its one
// reference the caller's) lets the walk's workers stat the directory's
// files relative to it (dirHandle.lstat), a lookup of one name instead
// of every element of the path.
func openDir(dir string, buf []byte) ([]dirEntry, *dirHandle, error) {
	fd, err := openFD(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC)
	if err != nil {
		return nil, nil, err
	}
	h := &dirHandle{fd: fd}
	h.refs.Store(1)
	var out []dirEntry
	for {
		n, err := syscall.Getdents(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			h.release()
			return nil, nil, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			return out, h, nil
		}
		if out, err = parseDirents(dir, buf[:n], out); err != nil {
			h.release()
			return nil, nil, err
		}
	}
}

// dirHandle is an open directory shared by the walk's tasks for its
// files: each holds a reference (acquire), and the last release closes
// it.
type dirHandle struct {
	fd   int
	refs atomic.Int32
}

func (h *dirHandle) acquire() { h.refs.Add(1) }

// release drops a reference (nil: none).
func (h *dirHandle) release() {
	if h != nil && h.refs.Add(-1) == 0 {
		syscall.Close(h.fd)
	}
}

// lstat is os.Lstat(abs) for the entry name of the directory h (nil:
// os.Lstat itself): the same FileInfo's mode, size and modification
// time, and the same error.
func (h *dirHandle) lstat(name, abs string) (fs.FileInfo, error) {
	if h == nil {
		return os.Lstat(abs)
	}
	var st unix.Stat_t
	for {
		err := unix.Fstatat(h.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: abs, Err: err}
		}
		return &statInfo{name: name, size: st.Size, mode: fileMode(st.Mode), mtime: time.Unix(st.Mtim.Sec, st.Mtim.Nsec)}, nil
	}
}

// fileMode converts a stat mode as package os does.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// statInfo is the fs.FileInfo of dirHandle.lstat.
type statInfo struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
}

func (i *statInfo) Name() string       { return i.name }
func (i *statInfo) Size() int64        { return i.size }
func (i *statInfo) Mode() fs.FileMode  { return i.mode }
func (i *statInfo) ModTime() time.Time { return i.mtime }
func (i *statInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *statInfo) Sys() any           { return nil }

// direntHeader is the size of struct linux_dirent64 before its name:
// inode (8 bytes), offset (8), record length (2), type (1).
const direntHeader = 19

// parseDirents appends the entries in buf, records of getdents64, to out,
// without "." and "..".
func parseDirents(dir string, buf []byte, out []dirEntry) ([]dirEntry, error) {
	for len(buf) >= direntHeader {
		reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
		if reclen < direntHeader || reclen > len(buf) {
			return out, &fs.PathError{Op: "readdirent", Path: dir, Err: syscall.EINVAL}
		}
		ino, typ, name := binary.NativeEndian.Uint64(buf[0:8]), buf[18], buf[direntHeader:reclen]
		buf = buf[reclen:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if ino == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		e := dirEntry{name: string(name)}
		switch typ {
		case syscall.DT_REG:
		case syscall.DT_DIR:
			e.typ = fs.ModeDir
		case syscall.DT_LNK:
			e.typ = fs.ModeSymlink
		case syscall.DT_FIFO:
			e.typ = fs.ModeNamedPipe
		case syscall.DT_SOCK:
			e.typ = fs.ModeSocket
		case syscall.DT_CHR:
			e.typ = fs.ModeDevice | fs.ModeCharDevice
		case syscall.DT_BLK:
			e.typ = fs.ModeDevice
		default: // DT_UNKNOWN: the file system does not say; ask it
			info, err := os.Lstat(dir + string(os.PathSeparator) + e.name)
			if err != nil {
				continue // gone since it was listed
			}
			e.typ = info.Mode().Type()
		}
		out = append(out, e)
	}
	return out, nil
}
