//go:build unix

package walk

import (
	"io/fs"
	"os"
	"syscall"
)

// readFileHead reads the first len(buf) bytes of the file name (fewer when
// it is shorter) into buf and returns how many it read. It uses the system
// calls directly: an *os.File would also register the descriptor with the
// poller, a measurable cost when sniffing ten thousand files. O_NONBLOCK
// keeps a file replaced by a FIFO since its stat from blocking the walk.
func readFileHead(name string, buf []byte) (int, error) {
	fd, err := openFD(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK)
	if err != nil {
		return 0, err
	}
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(fd)
			return n, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if m <= 0 {
			break
		}
		n += m
	}
	if err := syscall.Close(fd); err != nil {
		return n, &fs.PathError{Op: "close", Path: name, Err: err}
	}
	return n, nil
}

// openFD opens name with flags through the system call, again when a
// signal interrupts it; the error names the path.
func openFD(name string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(name, flags, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return fd, nil
	}
}

// openRead opens name for reading; O_NONBLOCK keeps a file replaced by a
// FIFO since its stat from blocking the open (ReadFile then finds it is
// no regular file).
func openRead(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
